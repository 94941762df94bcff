//! ES256 encodings (issue 24): the strict DER reader accepts exactly what the writer writes
//! back (one encoding per signature, never a panic), the signature text has one spelling,
//! a SEC1 key reads back from its uncompressed form, and verification of any accepted
//! signature under any accepted key over the input never panics.
#![no_main]
use concordia_core::es256::{verify, KeyPair, PublicKey, Signature};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(sig) = Signature::from_der(data) {
        let mut der = [0u8; Signature::MAX_DER_BYTES];
        let n = sig.to_der(&mut der);
        assert_eq!(&der[..n], data, "DER reading is not strict");
        assert!(sig.s() <= &concordia_core::es256::HALF_ORDER, "a high s was accepted");
        let key = KeyPair::from_scalar(&[7; 32]).expect("scalar in range").public_key();
        let _ = verify(&key, data, &sig);
    }
    if let Ok(text) = std::str::from_utf8(data) {
        if let Ok(sig) = Signature::from_b64url(text) {
            assert_eq!(sig.to_b64url().as_str(), text, "signature text has a second spelling");
        }
    }
    if let Ok(key) = PublicKey::from_sec1(data) {
        assert_eq!(PublicKey::from_sec1(&key.to_uncompressed()), Ok(key));
        // A key built from fuzz input verifies (or refuses) a signature of its own input.
        let sig = KeyPair::from_scalar(&[9; 32]).expect("scalar in range").sign(data);
        let _ = verify(&key, data, &sig);
    }
});
