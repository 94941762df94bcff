//! W3C's `eddsa-jcs-2022` test vectors (github.com/w3c/vc-di-eddsa, TestVectors/, vendored
//! unmodified under tests/data/w3c-vc-di-eddsa, see NOTICE), reproduced step by step: the
//! canonical forms of the credential and the proof configuration, their SHA-256 hashes,
//! `hashData`, the Ed25519 signature from the vectors' key, its base58btc `proofValue`,
//! and `vc::verify_proof` on the signed credential. The credential's issuer is an https URL,
//! not the proof's did:key, so the strict `vc::verify` refuses it (binding).

// `vc` is the `aip` feature's (default); without it there is nothing to test here.
#![cfg(feature = "aip")]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::fs;
use std::path::PathBuf;

use concordia_core::aip::vc;
use concordia_core::digest;
use concordia_core::json::{self, Node};
use concordia_core::preimage::Without;
use concordia_core::sign::{KeyPair, Signature};
use concordia_core::{did_key, encoding, jcs, Error};

fn data(p: &str) -> Vec<u8> {
    fs::read(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/w3c-vc-di-eddsa").join(p)).unwrap()
}

fn text(p: &str) -> String {
    String::from_utf8(data(p)).unwrap().trim_end().to_owned()
}

fn canonical_with(input: &[u8], without: &[&str]) -> String {
    let mut nodes = vec![Node::EMPTY; input.len() / 2 + 2];
    let doc = json::parse(input, &mut nodes).unwrap();
    let mut out = vec![0u8; input.len() * 2];
    let n = jcs::write_to_slice_with(doc.root(), &Without(without), &mut out).unwrap();
    out.truncate(n);
    String::from_utf8(out).unwrap()
}

fn hex(bytes: &[u8]) -> String {
    let mut out = vec![0u8; bytes.len() * 2];
    let n = encoding::encode_hex(bytes, &mut out).unwrap();
    String::from_utf8(out[..n].to_vec()).unwrap()
}

fn proof_of(signed: &[u8]) -> Vec<u8> {
    let mut nodes = vec![Node::EMPTY; signed.len() / 2 + 2];
    let doc = json::parse(signed, &mut nodes).unwrap();
    let mut out = vec![0u8; signed.len()];
    let n = jcs::write_to_slice(doc.root().get("proof").unwrap(), &mut out).unwrap();
    out.truncate(n);
    out
}

#[test]
fn eddsa_jcs_2022_step_by_step() {
    let signed = data("eddsa-jcs-2022/signedJCS.json");

    // 1. The credential without its proof, canonical (RFC 8785).
    let doc_canon = canonical_with(&signed, &["proof"]);
    assert_eq!(doc_canon, text("eddsa-jcs-2022/canonDocJCS.txt"));

    // 2. The proof configuration (the proof without proofValue), canonical; the same from
    //    the vectors' own proofConfigJCS.json.
    let proof_canon = canonical_with(&proof_of(&signed), &["proofValue"]);
    assert_eq!(proof_canon, text("eddsa-jcs-2022/proofCanonJCS.txt"));
    assert_eq!(canonical_with(&data("eddsa-jcs-2022/proofConfigJCS.json"), &[]), proof_canon);

    // 3. Their SHA-256 hashes, and hashData = proof hash || document hash.
    let proof_hash = digest::sha256(proof_canon.as_bytes());
    let doc_hash = digest::sha256(doc_canon.as_bytes());
    assert_eq!(hex(proof_hash.as_bytes()), text("eddsa-jcs-2022/proofHashJCS.txt"));
    assert_eq!(hex(doc_hash.as_bytes()), text("eddsa-jcs-2022/docHashJCS.txt"));
    let mut hash_data = Vec::new();
    hash_data.extend_from_slice(proof_hash.as_bytes());
    hash_data.extend_from_slice(doc_hash.as_bytes());
    assert_eq!(hex(&hash_data), text("eddsa-jcs-2022/combinedHashJCS.txt"));

    // 4. The signature from the vectors' key pair (Ed25519 is deterministic), in hex and as
    //    the multibase base58btc proofValue.
    let keys = data("keyPair.json");
    let mut nodes = vec![Node::EMPTY; 16];
    let kp = json::parse(&keys, &mut nodes).unwrap();
    let public = kp.root().get("publicKeyMultibase").unwrap().as_plain_str().unwrap();
    let private = kp.root().get("privateKeyMultibase").unwrap().as_plain_str().unwrap();
    let seed = did_key::decode_multikey(private, [0x80, 0x26]).unwrap(); // ed25519-priv, 0x1300
    let key = KeyPair::from_seed(&seed);
    assert_eq!(did_key::decode(&format!("did:key:{public}")).unwrap(), key.public_key());
    let sig = key.sign(&hash_data);
    assert_eq!(hex(sig.as_bytes()), text("eddsa-jcs-2022/sigHexJCS.txt"));
    let mut b58 = vec![0u8; 100];
    let n = encoding::encode_base58(sig.as_bytes(), &mut b58).unwrap();
    let proof_value = format!("z{}", std::str::from_utf8(&b58[..n]).unwrap());
    assert_eq!(proof_value, text("eddsa-jcs-2022/sigBTC58JCS.txt"));
    let mut nodes = vec![Node::EMPTY; signed.len()];
    let doc = json::parse(&signed, &mut nodes).unwrap();
    assert_eq!(doc.root().get("proof").unwrap().get("proofValue").unwrap().as_plain_str(), Some(proof_value.as_str()));
    concordia_core::sign::verify(&key.public_key(), &hash_data, &Signature::from_bytes(sig.as_bytes()).unwrap())
        .unwrap();

    // 5. The core verifies the proof alone; the strict verification refuses the https issuer.
    let v = vc::verify_proof(doc.root()).unwrap();
    assert_eq!(v.key, key.public_key());
    assert_eq!(v.verification_method, format!("did:key:{public}#{public}"));
    assert!(matches!(vc::verify(doc.root(), &vc::VerifyOptions::default()), Err(Error::Binding(_))));
}

#[test]
fn eddsa_jcs_2022_tampered_copies_fail() {
    let signed = String::from_utf8(data("eddsa-jcs-2022/signedJCS.json")).unwrap();
    for (from, to) in [
        ("The School of Examples", "The School of Exemples"),
        ("2023-01-01T00:00:00Z", "2023-01-02T00:00:00Z"),
        ("\"created\": \"2023-02-24T23:36:38Z\"", "\"created\": \"2023-02-24T23:36:39Z\""),
        (
            "z2HnFSSPPBzR36zdDgK8PbEHeXbR56YF24jwMpt3R1eHXQzJDMWS93FCzpvJpwTWd3GAVFuUfjoJdcnTMuVor51aX",
            "z2HnFSSPPBzR36zdDgK8PbEHeXbR56YF24jwMpt3R1eHXQzJDMWS93FCzpvJpwTWd3GAVFuUfjoJdcnTMuVor51aY",
        ),
    ] {
        assert!(signed.contains(from));
        let t = signed.replace(from, to);
        let mut nodes = vec![Node::EMPTY; t.len()];
        let doc = json::parse(t.as_bytes(), &mut nodes).unwrap();
        assert!(vc::verify_proof(doc.root()).is_err(), "{to}");
    }
}
