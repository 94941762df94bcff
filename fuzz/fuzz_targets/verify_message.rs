//! Arbitrary envelopes and keys into signature and chain verification.
//!
//! Input: one flag byte, then JSON. An object with `messages` (array) and
//! `public_keys_b64url` (object) is a transcript for `verify_transcript` + `KeyMap`
//! (the message-chain vector's shape); anything else is one message. Checks:
//! * verification under an arbitrary key (bytes 1..33 of the input) never panics;
//! * `TranscriptVerifier::push` leaves the verifier unchanged on error, advances by one on
//!   success, and a message can never be pushed twice in a row;
//! * sign-then-verify: an object signed by the core (`sign_object`) verifies, and after one
//!   bit flip (position from the flag byte) it verifies only if its preimage and signature
//!   are unchanged (no two different preimages share a signature).
#![no_main]
use concordia_core::json::{Kind, Str};
use concordia_core::message::{self, KeyMap, TranscriptVerifier};
use concordia_core::preimage::WithoutSignature;
use concordia_core::sign::{KeyPair, PublicKey};
use concordia_core::{jcs, Error};
use concordia_fuzz::parse;
use concordia_host::VecSink;
use libfuzzer_sys::fuzz_target;

fn preimage(v: concordia_core::json::Value<'_>) -> Vec<u8> {
    let mut s = VecSink::default();
    jcs::write_with(v, &WithoutSignature, &mut s).expect("preimage");
    s.0
}

fuzz_target!(|data: &[u8]| {
    let Some((&flags, json)) = data.split_first() else { return };
    let mut nodes = Vec::new();
    let Ok(doc) = parse(json, &mut nodes) else { return };
    let root = doc.root();
    if let (Some(msgs), Some(keys)) = (root.get("messages"), root.get("public_keys_b64url")) {
        let _ = message::verify_transcript(msgs, &KeyMap(keys));
    }
    if let Ok(pk) = PublicKey::from_bytes(json.get(..32).unwrap_or(&[0; 32])) {
        let _ = message::verify_signed_object(root, &pk);
    }
    let pair = KeyPair::from_seed(&[flags; 32]);
    let pk = pair.public_key();
    let resolve = |_: Str<'_>| Some(pk);
    let mut v = TranscriptVerifier::new();
    let pushed = v.push(root, &resolve);
    match pushed {
        Ok(h) => {
            assert_eq!((v.count(), v.head()), (1, h));
            let before = v;
            assert!(v.push(root, &resolve).is_err(), "the same message was accepted twice in a row");
            assert_eq!(v, before, "a failed push changed the verifier");
        }
        Err(_) => assert_eq!(v, TranscriptVerifier::new(), "a failed push changed the verifier"),
    }
    if root.kind() != Kind::Object {
        return;
    }
    let mut out = vec![0u8; 256 + 6 * json.len()];
    let n = match message::sign_object(root, &pair, &mut out) {
        Ok(n) => n,
        Err(Error::BufferTooSmall { needed }) => {
            out = vec![0u8; needed];
            message::sign_object(root, &pair, &mut out).expect("sign_object with the size it asked for")
        }
        Err(e) => panic!("sign_object failed on an object: {e:?}"),
    };
    out.truncate(n);
    let mut snodes = Vec::new();
    let signed = parse(&out, &mut snodes).expect("the core parses what it signed");
    message::verify_signed_object(signed.root(), &pk).expect("a freshly signed object verifies");
    let want_pre = preimage(signed.root());
    let want_sig = message::signature_from_value(signed.root().get("signature").expect("signature")).expect("sig");
    let mut flipped = out.clone();
    let at = usize::from(flags) * 7 % flipped.len();
    flipped[at] ^= 1 << (flags % 8);
    let mut fnodes = Vec::new();
    if let Ok(f) = parse(&flipped, &mut fnodes) {
        if message::verify_signed_object(f.root(), &pk).is_ok() {
            let sig = message::signature_from_value(f.root().get("signature").expect("signature")).expect("sig");
            assert_eq!(sig, want_sig, "a different signature verified");
            assert_eq!(preimage(f.root()), want_pre, "a different preimage verified");
        }
    }
});
