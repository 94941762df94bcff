//! RFC 9530 `Content-Digest` field parsing (`parse_content_digest`): no panic on any text;
//! a digest it finds survives `write_content_digest` and re-parsing.
#![no_main]
use concordia_core::consensus::artifact::{parse_content_digest, write_content_digest};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    if let Ok(Some(d)) = parse_content_digest(text) {
        let mut out = [0u8; 128];
        let n = write_content_digest(&d, &mut out).expect("write_content_digest");
        let again = std::str::from_utf8(&out[..n]).expect("ascii");
        assert_eq!(parse_content_digest(again), Ok(Some(d)));
    }
});
