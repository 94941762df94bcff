//! The AIP signed envelope (`envelope::parse` into `envelope::NODES` nodes): no panic on
//! any bytes; an accepted envelope's header checks, its associated data is canonical JSON,
//! and verifying and opening it (with the keys the seed envelopes were sealed for, so the
//! full path runs on them) never panics.
#![no_main]
use concordia_core::aip::envelope::{self, MAX_AAD, NODES};
use concordia_core::aip::hpke;
use concordia_core::json::Node;
use concordia_core::sign::KeyPair;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let mut nodes = [Node::EMPTY; NODES];
    let Ok(env) = envelope::parse(data, &mut nodes) else { return };
    assert_eq!(env.header.check(), Ok(env.created));
    let mut aad = [0u8; MAX_AAD];
    let n = env.header.aad(&mut aad).expect("aad of a checked header");
    let mut anodes = concordia_fuzz::nodes_for(&aad[..n]);
    let doc = concordia_core::json::parse(&aad[..n], &mut anodes).expect("aad is JSON");
    assert_eq!(concordia_fuzz::canonical(doc.root()), &aad[..n], "aad is not canonical");
    let _ = env.verify(&KeyPair::from_seed(&[0x11; 32]).public_key());
    let (secret, _) = hpke::derive_keypair(&[0x22; 32]);
    let mut out = vec![0u8; env.sealed_len()];
    if let Ok(n) = env.open(&secret, &mut out) {
        assert_eq!(n + 48, env.sealed_len());
    }
});
