//! The serde writers (`concordia_core::serde`) on arbitrary JSON values. The input is read by
//! serde_json (member order kept, so the writer meets members out of order and must sort
//! them); where the core's strict reader accepts the same text, `to_canonical_slice` of the
//! value must equal the core's canonical form of the text. Whatever the value: the streamed
//! digest equals the digest of the buffered bytes; a buffer one byte short reports the exact
//! length needed; an exact-size buffer (no spare room, so members move by rotation) gives
//! the same bytes; and `from_slice` reads the canonical bytes back to a value whose
//! canonical form is the same. What one writer refuses (the number policy, depth) the other
//! refuses too, except at each one's own documented capacity.
#![no_main]
use concordia_core::error::Limit;
use concordia_core::serde as cser;
use concordia_core::{digest, Error};
use concordia_fuzz::{canonical, nodes_for, parse};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(value) = serde_json::from_slice::<serde_json::Value>(data) else { return };
    let mut out = vec![0u8; data.len() * 6 + 64];
    let buffered = cser::to_canonical_slice(&value, &mut out);
    let streamed = cser::sha256(&value);
    // Each form has its own documented capacity (the buffer form's member table, the
    // streaming form's MAX_KEY_BYTES of names along a path): either may stop there alone.
    let capacity = |e: Option<&Error>| matches!(e, Some(Error::Limit { kind: Limit::Capacity, .. }));
    let n = match buffered {
        Ok(n) => n,
        Err(e) => {
            assert!(!matches!(e, Error::BufferTooSmall { .. }), "a buffer of 6 bytes per input byte is too small");
            // Both refuse (a value with two faults may report a different one first: the
            // buffer form meets members in serde's order, the streaming form in sorted order).
            assert!(
                capacity(Some(&e)) || streamed.is_err(),
                "the streamed writer accepts what the buffered refuses: {e:?}"
            );
            return;
        }
    };
    let bytes = &out[..n];
    if !capacity(streamed.as_ref().err()) {
        assert_eq!(streamed, Ok(digest::sha256(bytes)), "streamed digest differs from the buffered bytes'");
    }

    let mut nodes = Vec::new();
    if let Ok(doc) = parse(data, &mut nodes) {
        let theirs = canonical(doc.root());
        assert!(
            bytes == theirs.as_slice(),
            "serde writer and core jcs differ\n serde: {}\n jcs:   {}",
            String::from_utf8_lossy(bytes),
            String::from_utf8_lossy(&theirs)
        );
    }

    let mut exact = vec![0u8; n];
    assert_eq!(cser::to_canonical_slice(&value, &mut exact), Ok(n));
    assert_eq!(exact.as_slice(), bytes, "an exact-size buffer gives other bytes");
    if n > 0 {
        let mut short = vec![0u8; n - 1];
        assert_eq!(cser::to_canonical_slice(&value, &mut short), Err(Error::BufferTooSmall { needed: n }));
    }

    let mut nodes = nodes_for(bytes);
    let back: serde_json::Value = match cser::from_slice(bytes, &mut nodes) {
        Ok(v) => v,
        // The canonical form of a value the writer accepted is read back, except where the
        // strict reader's limits are tighter than serde_json's (nesting).
        Err(Error::Limit { .. }) => return,
        Err(e) => panic!("from_slice refused the canonical bytes: {e:?}\n {}", String::from_utf8_lossy(bytes)),
    };
    let mut again = vec![0u8; n + 64];
    let m = cser::to_canonical_slice(&back, &mut again).expect("the value read back is written");
    assert_eq!(&again[..m], bytes, "the value read back has another canonical form");
});
