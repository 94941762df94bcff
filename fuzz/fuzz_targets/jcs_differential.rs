//! The core's RFC 8785 output against an independent oracle (serde_json with
//! float_roundtrip + UTF-16 key sorting + ryu-js): identical bytes on every input both
//! accept. Acceptance must agree too, except where the core's documented policies reject
//! what serde_json takes (duplicates, -0, unsafe integer literals, BOM, lone surrogates,
//! nesting) and at nesting depths near serde_json's recursion limit (128).
#![no_main]
use concordia_fuzz::{canonical, oracle, parse};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let mut nodes = Vec::new();
    let core = parse(data, &mut nodes);
    let theirs = oracle::canonicalize(data);
    match (core, theirs) {
        (Ok(doc), Some(expected)) => {
            let ours = canonical(doc.root());
            assert!(
                ours == expected,
                "canonical forms differ\n core:   {}\n oracle: {}",
                String::from_utf8_lossy(&ours),
                String::from_utf8_lossy(&expected)
            );
        }
        (Ok(_), None) => assert!(oracle::max_depth(data) >= 127, "the core accepts what serde_json rejects"),
        (Err(e), Some(_)) => {
            assert!(oracle::documented_rejection(&e), "the core rejects what serde_json accepts: {e:?}")
        }
        (Err(_), None) => {}
    }
});
