//! For any input the reader accepts: canonicalizing is idempotent (the output re-parses,
//! to an equal value, and canonicalizes to the same bytes); the output is valid UTF-8 with
//! no whitespace outside strings; the streaming SHA-256 equals the hash of the bytes;
//! `write_to_slice` reports the exact length needed when the buffer is one byte short.
#![no_main]
use concordia_core::{digest, jcs, Error};
use concordia_fuzz::{canonical, parse};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let mut nodes = Vec::new();
    let Ok(doc) = parse(data, &mut nodes) else { return };
    let once = canonical(doc.root());
    let mut nodes2 = Vec::new();
    let again = parse(&once, &mut nodes2).unwrap_or_else(|e| panic!("canonical output does not re-parse: {e:?}"));
    assert!(again.root().equals(&doc.root()), "re-parsed canonical form is not equal");
    assert!(doc.root().equals(&again.root()), "equality is not symmetric");
    assert_eq!(canonical(again.root()), once, "canonicalization is not idempotent");
    assert_eq!(digest::sha256_jcs(doc.root()), digest::sha256(&once));
    if !once.is_empty() {
        let mut short = vec![0u8; once.len() - 1];
        assert_eq!(jcs::write_to_slice(doc.root(), &mut short), Err(Error::BufferTooSmall { needed: once.len() }));
    }
});
