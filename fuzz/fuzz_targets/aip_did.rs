//! `did:aip` identifiers and multikeys: `parse_did` never panics and an accepted DID is
//! its handle's canonical DID; `decode_multikey` accepts exactly what `encode_multikey`
//! writes (for both multicodec prefixes).
#![no_main]
use concordia_core::aip::did;
use concordia_core::did_key::ED25519_MULTICODEC;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    if let Ok(h) = did::parse_did(text) {
        assert_eq!(did::parse_did(h.did().as_str()), Ok(h));
    }
    for codec in [ED25519_MULTICODEC, did::X25519_MULTICODEC] {
        if let Ok(key) = did::decode_multikey(text, codec) {
            assert_eq!(did::encode_multikey(&key, codec).as_str(), text, "multikey decoding is not strict");
        }
    }
    if let Ok(raw) = <[u8; 32]>::try_from(data.get(..32).unwrap_or(&[])) {
        let m = did::encode_multikey(&raw, ED25519_MULTICODEC);
        assert_eq!(did::decode_multikey(m.as_str(), ED25519_MULTICODEC), Ok(raw));
    }
});
