//! Tests of the AIP module.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::borrow::ToOwned;
use std::format;
use std::vec;
use std::vec::Vec;

use super::did::{self, Route, RouteMode};
use super::envelope::{self, Header};
use super::handle::{self, Handle};
use super::hpke::{self, derive_keypair, X25519SecretKey};
use crate::encoding;
use crate::error::Error;
use crate::json::{self, Node};
use crate::sign::KeyPair;

fn unhex(s: &str) -> Vec<u8> {
    let mut out = vec![0u8; s.len() / 2];
    assert_eq!(encoding::decode_hex_lower(s.as_bytes(), &mut out).unwrap(), out.len());
    out
}

// ---- handles and DIDs ----

#[test]
fn handle_forms_round_trip() {
    let h = Handle::parse("alice#aigentix.org").unwrap();
    assert_eq!((h.name(), h.domain()), ("alice", "aigentix.org"));
    assert_eq!(h.handle().as_str(), "alice#aigentix.org");
    assert_eq!(h.url_form().as_str(), "alice%23aigentix.org");
    assert_eq!(h.at_form().as_str(), "@alice@aigentix.org");
    assert_eq!(h.did().as_str(), "did:aip:aigentix.org:alice");
    for form in [
        "alice%23aigentix.org",
        "alice%23AIGENTIX.org".to_lowercase().as_str(),
        "@alice@aigentix.org",
        "%61lice%23aigentix.org",
    ] {
        assert_eq!(Handle::parse(form).unwrap(), h, "{form}");
    }
    assert_eq!(handle::parse_any("did:aip:aigentix.org:alice").unwrap(), h);
    assert_eq!(did::parse_did(&h.did()).unwrap(), h);
    assert_eq!(Handle::parse("etagi%23aigentix.org").unwrap().name(), "etagi");
}

#[test]
fn malformed_handles_are_rejected() {
    for bad in [
        "",
        "#",
        "alice",
        "alice#",
        "#aigentix.org",
        "alice#aigentix",
        "Alice#aigentix.org",
        "alice#Aigentix.org",
        "alice#a..org",
        "alice#-a.org",
        "alice#a-.org",
        "-alice#a.org",
        "alice.#a.org",
        "al ice#a.org",
        "alice#a.org#b",
        "alice%2523aigentix.org",
        "alice%2#a.org",
        "alice%zz#a.org",
        "alice%",
        "@alice",
        "@alice@",
        "@@a.org",
        "alice@a.org",
        "alice#a_b.org",
        "al#ce#a.org",
        "alic\u{e9}#a.org",
        "alice%C3%A9#a.org",
    ] {
        assert!(Handle::parse(bad).is_err(), "{bad:?}");
    }
    let long_name = "a".repeat(65);
    assert!(Handle::parse(&std::format!("{long_name}#a.org")).is_err());
    assert!(Handle::parse(&std::format!("{}#a.org", "a".repeat(64))).is_ok());
    let label = "b".repeat(63);
    assert!(Handle::parse(&std::format!("a#{label}.org")).is_ok());
    assert!(Handle::parse(&std::format!("a#{label}b.org")).is_err());
    assert!(Handle::parse(&"%41".repeat(400)).is_err());
    for bad in [
        "did:aip:aigentix.org",
        "did:aip::alice",
        "did:aip:aigentix.org:",
        "did:key:z6Mk",
        "did:aip:aigentix.org:al:ice",
        "did:aip:x:alice",
    ] {
        assert!(did::parse_did(bad).is_err(), "{bad:?}");
    }
}

// ---- DID Documents and routes ----

fn keys() -> (KeyPair, X25519SecretKey, hpke::X25519PublicKey) {
    let kp = KeyPair::from_seed(&[0x11; 32]);
    let (sk, pk) = derive_keypair(&[0x22; 32]);
    (kp, sk, pk)
}

fn did_doc(mode: &str, id: &str) -> std::string::String {
    let (kp, _, x) = keys();
    let ed = did::encode_multikey(kp.public_key().as_bytes(), crate::did_key::ED25519_MULTICODEC);
    let xk = did::encode_multikey(&x.0, did::X25519_MULTICODEC);
    std::format!(
        r#"{{"@context":["https://www.w3.org/ns/did/v1"],"id":"{id}","route_mode":"{mode}","endpoint":"https://hub.aigentix.org/relay/alice",
        "verificationMethod":[{{"id":"{id}#key-1","type":"Multikey","controller":"{id}","publicKeyMultibase":"{ed}"}}],
        "keyAgreement":["{id}#ref",{{"id":"{id}#x-1","type":"Multikey","controller":"{id}","publicKeyMultibase":"{xk}"}}]}}"#
    )
}

#[test]
fn did_document_subset_and_routes() {
    let (kp, _, x) = keys();
    assert!(did::encode_multikey(kp.public_key().as_bytes(), crate::did_key::ED25519_MULTICODEC).starts_with("z6Mk"));
    assert!(did::encode_multikey(&x.0, did::X25519_MULTICODEC).starts_with("z6LS"));
    let text = did_doc("direct", "did:aip:aigentix.org:alice");
    let mut nodes = vec![Node::EMPTY; text.len() / 2 + 2];
    let doc = did::parse_document(text.as_bytes(), &mut nodes).unwrap();
    assert_eq!(doc.route_mode, RouteMode::Direct);
    assert_eq!(doc.subject.handle().as_str(), "alice#aigentix.org");
    assert_eq!(doc.signing_keys.as_slice(), &[kp.public_key()]);
    assert_eq!(doc.agreement_keys.as_slice(), &[x]);
    assert_eq!(did::select_route(&doc, true), Route::Direct("https://hub.aigentix.org/relay/alice"));
    assert_eq!(did::select_route(&doc, false), Route::Relay(None));
    let text = did_doc("relay", "did:aip:aigentix.org:alice");
    let mut nodes = vec![Node::EMPTY; text.len() / 2 + 2];
    let doc = did::parse_document(text.as_bytes(), &mut nodes).unwrap();
    for reachable in [true, false] {
        assert_eq!(did::select_route(&doc, reachable), Route::Relay(Some("https://hub.aigentix.org/relay/alice")));
    }
}

#[test]
fn bad_did_documents_are_rejected() {
    let good = did_doc("relay", "did:aip:aigentix.org:alice");
    let edits: [(&str, &str); 7] = [
        ("\"relay\"", "\"carrier-pigeon\""),
        ("https://hub", "ftp://hub"),
        ("https://hub.aigentix.org/relay/alice", "https://"),
        ("\"id\":\"did:aip:aigentix.org:alice\"", "\"id\":\"did:web:aigentix.org\""),
        (
            "\"controller\":\"did:aip:aigentix.org:alice\",\"publicKeyMultibase\":\"z6Mk",
            "\"controller\":\"did:aip:x.org:eve\",\"publicKeyMultibase\":\"z6Mk",
        ),
        ("\"publicKeyMultibase\":\"z6Mk", "\"publicKeyMultibase\":\"z6Mkx"),
        ("\"verificationMethod\":[", "\"verificationMethod\":[],\"x\":["),
    ];
    for (from, to) in edits {
        assert!(good.contains(from), "{from}");
        let bad = good.replacen(from, to, 1);
        let mut nodes = vec![Node::EMPTY; bad.len() / 2 + 2];
        assert!(did::parse_document(bad.as_bytes(), &mut nodes).is_err(), "{to}");
    }
    // An X25519 key where an Ed25519 key belongs is an error, not silently skipped.
    let (_, _, x) = keys();
    let xk = did::encode_multikey(&x.0, did::X25519_MULTICODEC);
    let swapped = good.replacen(
        "\"publicKeyMultibase\":\"z6Mk",
        &std::format!("\"publicKeyMultibase\":\"{xk}\",\"was\":\"z6Mk"),
        1,
    );
    let mut nodes = vec![Node::EMPTY; swapped.len() / 2 + 2];
    assert_eq!(
        did::parse_document(swapped.as_bytes(), &mut nodes).unwrap_err(),
        Error::Encoding("unexpected multikey codec")
    );
}

// ---- HPKE: RFC 9180 Appendix A.2.1 ----

// RFC 9180 A.2.1, DHKEM(X25519, HKDF-SHA256), HKDF-SHA256, ChaCha20Poly1305, mode_base.
// Values copied from the RFC's appendix as reproduced (identically) in two independent
// third-party test suites found with the search tool; tests-py/test_aip_interop.py checks
// the same values against the independent `pyhpke` implementation.
const A21_INFO: &str = "4f6465206f6e2061204772656369616e2055726e";
const A21_IKM_E: &str = "909a9b35d3dc4713a5e72a4da274b55d3d3821a37e5d099e74a647db583a904b";
const A21_PK_RM: &str = "4310ee97d88cc1f088a5576c77ab0cf5c3ac797f3d95139c6c84b5429c59662a";
const A21_SK_RM: &str = "8057991eef8f1f1af18f4a9491d16a1ce333f695d4db8e38da75975c4478e0fb";
const A21_ENC: &str = "1afa08d3dec047a643885163f1180476fa7ddb54c6a8029ea33f95796bf2ac4a";
const A21_PT: &str = "4265617574792069732074727574682c20747275746820626561757479";
const A21_AAD0: &str = "436f756e742d30";
const A21_CT0: &str = "1c5250d8034ec2b784ba2cfd69dbdb8af406cfe3ff938e131f0def8c8b60b4db21993c62ce81883d2dd1b51a28";

#[test]
fn rfc9180_a21_base_mode_vector() {
    let ikm_e: [u8; 32] = unhex(A21_IKM_E).try_into().unwrap();
    let pk_r = hpke::X25519PublicKey(unhex(A21_PK_RM).try_into().unwrap());
    let sk_r = X25519SecretKey(unhex(A21_SK_RM).try_into().unwrap());
    assert_eq!(sk_r.public_key(), pk_r);
    // pkEm = enc = the public half of DeriveKeyPair(ikmE).
    assert_eq!(derive_keypair(&ikm_e).1 .0.to_vec(), unhex(A21_ENC));
    let mut buf = unhex(A21_PT);
    let (enc, tag) = hpke::seal_in_place(&pk_r, &unhex(A21_INFO), &unhex(A21_AAD0), &ikm_e, &mut buf).unwrap();
    assert_eq!(enc.to_vec(), unhex(A21_ENC));
    let mut ct = buf.clone();
    ct.extend_from_slice(&tag);
    assert_eq!(ct, unhex(A21_CT0));
    hpke::open_in_place(&sk_r, &enc, &unhex(A21_INFO), &unhex(A21_AAD0), &mut buf, &tag).unwrap();
    assert_eq!(buf, unhex(A21_PT));
    // Any change to the aad, info, enc or tag fails and leaves no plaintext behind.
    let mut bad_tag = tag;
    bad_tag[0] ^= 1;
    let mut bad_enc = enc;
    bad_enc[5] ^= 1;
    for (e, info, aad, t) in [
        (enc, A21_INFO, "436f756e742d31", tag),
        (enc, "00", A21_AAD0, tag),
        (enc, A21_INFO, A21_AAD0, bad_tag),
        (bad_enc, A21_INFO, A21_AAD0, tag),
    ] {
        let mut b = ct[..ct.len() - 16].to_vec();
        assert_eq!(hpke::open_in_place(&sk_r, &e, &unhex(info), &unhex(aad), &mut b, &t), Err(Error::Signature));
        assert!(b.iter().all(|&x| x == 0));
    }
    // A low-order recipient key cannot be sealed to.
    let mut b = unhex(A21_PT);
    assert_eq!(hpke::seal_in_place(&hpke::X25519PublicKey([0; 32]), b"", b"", &ikm_e, &mut b), Err(Error::Signature));
}

// ---- envelopes ----

const ID: &str = "1b4e28ba-2fa1-4d3b-a3f5-ef19b5a7633b";
const HEADER: Header<'static> = Header {
    id: ID,
    from: "did:aip:aigentix.org:alice",
    to: "did:aip:etagi.ru:etagi",
    kind: "aip.commerce.offer.request",
    created_at: "2026-05-10T14:25:00Z",
};
const BODY: &[u8] = br#"{"item_id":"doc_123","type":"aip.commerce.offer.request"}"#;

fn seal_default(header: &Header<'_>, body: &[u8]) -> Vec<u8> {
    let (kp, _, x) = keys();
    let mut out = vec![0u8; 2048];
    let n = envelope::seal(header, &x, body, &[0x33; 32], &kp, &mut out).unwrap();
    out.truncate(n);
    out
}

#[test]
fn envelope_seal_verify_open() {
    let (kp, sk, x) = keys();
    let env = seal_default(&HEADER, BODY);
    // The output is canonical JSON.
    let mut nodes = vec![Node::EMPTY; env.len() / 2 + 2];
    let doc = json::parse(&env, &mut nodes).unwrap();
    let mut canon = vec![0u8; env.len()];
    assert_eq!(crate::jcs::write_to_slice(doc.root(), &mut canon).unwrap(), env.len());
    assert_eq!(canon, env);
    // Exact buffer size works; one byte less reports the size.
    let mut exact = vec![0u8; env.len()];
    assert_eq!(envelope::seal(&HEADER, &x, BODY, &[0x33; 32], &kp, &mut exact), Ok(env.len()));
    assert_eq!(exact, env);
    let mut short = vec![0u8; env.len() - 1];
    assert_eq!(
        envelope::seal(&HEADER, &x, BODY, &[0x33; 32], &kp, &mut short),
        Err(Error::BufferTooSmall { needed: env.len() })
    );

    let mut nodes = [Node::EMPTY; envelope::NODES];
    let e = envelope::parse(&env, &mut nodes).unwrap();
    assert_eq!(e.header, HEADER);
    e.verify(&kp.public_key()).unwrap();
    assert_eq!(e.verify(&KeyPair::from_seed(&[1; 32]).public_key()), Err(Error::Signature));
    let mut out = vec![0u8; e.sealed_len()];
    let n = e.open(&sk, &mut out).unwrap();
    assert_eq!(&out[..n], BODY);
    assert_eq!(e.open(&derive_keypair(&[9; 32]).0, &mut out), Err(Error::Signature));
    // Empty and larger bodies, every length mod 3.
    for len in [0usize, 1, 2, 3, 4, 5, 100, 1000] {
        let body: Vec<u8> = (0..len).map(|i| (i * 7) as u8).collect();
        let env = seal_default(&HEADER, &body);
        let mut nodes = [Node::EMPTY; envelope::NODES];
        let e = envelope::parse(&env, &mut nodes).unwrap();
        e.verify(&kp.public_key()).unwrap();
        let mut out = vec![0u8; e.sealed_len()];
        let n = e.open(&sk, &mut out).unwrap();
        assert_eq!(&out[..n], &body[..]);
    }
}

#[test]
fn envelope_body_is_bound_to_its_header() {
    let (kp, sk, _) = keys();
    let env = std::string::String::from_utf8(seal_default(&HEADER, BODY)).unwrap();
    let other = std::string::String::from_utf8(seal_default(
        &Header { id: "2b4e28ba-2fa1-4d3b-a3f5-ef19b5a7633b", ..HEADER },
        BODY,
    ))
    .unwrap();
    let body_of = |s: &str| s.split("\"encrypted_body\":\"").nth(1).unwrap().split('"').next().unwrap().to_owned();
    // Moving a body into another envelope breaks the signature, and the body does not open
    // under the other header even for a recipient who skipped the signature check.
    let moved = other.replace(&body_of(&other), &body_of(&env));
    let mut nodes = [Node::EMPTY; envelope::NODES];
    let e = envelope::parse(moved.as_bytes(), &mut nodes).unwrap();
    assert_eq!(e.verify(&kp.public_key()), Err(Error::Signature));
    let mut out = vec![0u8; e.sealed_len()];
    assert_eq!(e.open(&sk, &mut out), Err(Error::Signature));
}

#[test]
fn envelope_tampering_and_shape() {
    let (kp, _, _) = keys();
    let env = std::string::String::from_utf8(seal_default(&HEADER, BODY)).unwrap();
    // Changing any header field breaks the signature.
    for (from, to) in [
        ("14:25:00Z", "14:25:01Z"),
        ("etagi.ru:etagi", "etagi.ru:etagl"),
        ("offer.request", "offer.requesu"),
        ("a3f5-ef19", "a3f5-ef18"),
        ("aigentix.org:alice", "aigentix.org:alicf"),
    ] {
        let bad = env.replacen(from, to, 1);
        let mut nodes = [Node::EMPTY; envelope::NODES];
        let e = envelope::parse(bad.as_bytes(), &mut nodes).unwrap();
        assert_eq!(e.verify(&kp.public_key()), Err(Error::Signature), "{to}");
    }
    for (from, to) in [
        ("\"id\":\"1b4e28ba-2fa1-4d3b", "\"id\":\"1b4e28ba-2fa1-3d3b"),
        ("-a3f5-", "-c3f5-"),
        ("\"id\":\"1b4e28ba", "\"id\":\"1B4E28BA"),
        ("2026-05-10T14:25:00Z", "2026-05-10 14:25:00Z"),
        ("2026-05-10T14:25:00Z", "2026-05-10T14:25:00"),
        ("2026-05-10T14:25:00Z", "2026-02-30T14:25:00Z"),
        ("2026-05-10T14:25:00Z", "2026-05-10T14:25:00.Z"),
        ("did:aip:etagi.ru:etagi", "etagi#etagi.ru"),
        ("aip.commerce", "Aip.commerce"),
        ("{\"created_at\"", "{\"extra\":\"x\",\"created_at\""),
        ("\"sig\":\"", "\"sig\":\"A"),
        ("\"encrypted_body\":\"", "\"encrypted_body\":\"="),
        ("\"type\":\"aip.commerce.offer.request\"", "\"type\":7"),
    ] {
        let bad = env.replacen(from, to, 1);
        assert_ne!(bad, env, "{from}");
        let mut nodes = [Node::EMPTY; envelope::NODES];
        assert!(envelope::parse(bad.as_bytes(), &mut nodes).is_err(), "{to}");
    }
    for ok in ["2026-05-10T14:25:00.123456Z", "2026-05-10T16:25:00+02:00", "2026-05-10T14:25:00-00:00"] {
        envelope::parse_rfc3339(ok).unwrap();
    }
    let mut nodes = [Node::EMPTY; envelope::NODES];
    assert!(envelope::parse(b"[]", &mut nodes).is_err());
    assert!(envelope::parse(b"{}", &mut nodes).is_err());
    assert!(envelope::seal(
        &Header { created_at: "yesterday", ..HEADER },
        &keys().2,
        b"",
        &[0; 32],
        &kp,
        &mut [0u8; 1024]
    )
    .is_err());
}

#[test]
fn envelope_verify_from_document() {
    let env = seal_default(&HEADER, BODY);
    let mut nodes = [Node::EMPTY; envelope::NODES];
    let e = envelope::parse(&env, &mut nodes).unwrap();
    let text = did_doc("direct", "did:aip:aigentix.org:alice");
    let mut dn = vec![Node::EMPTY; text.len()];
    let doc = did::parse_document(text.as_bytes(), &mut dn).unwrap();
    e.verify_from(&doc).unwrap();
    let text = did_doc("direct", "did:aip:aigentix.org:mallory");
    let mut dn = vec![Node::EMPTY; text.len()];
    let doc = did::parse_document(text.as_bytes(), &mut dn).unwrap();
    assert!(matches!(e.verify_from(&doc), Err(Error::Binding(_))));
}

#[test]
fn envelope_check_to_names_the_addressee() {
    let env = seal_default(&HEADER, BODY);
    let mut nodes = [Node::EMPTY; envelope::NODES];
    let e = envelope::parse(&env, &mut nodes).unwrap();
    e.check_to(&did::parse_did("did:aip:etagi.ru:etagi").unwrap()).unwrap();
    e.check_to(&crate::aip::handle::Handle::parse("@etagi@etagi.ru").unwrap()).unwrap();
    assert!(matches!(e.check_to(&did::parse_did("did:aip:etagi.ru:mallory").unwrap()), Err(Error::Binding(_))));
    assert!(matches!(e.check_to(&did::parse_did("did:aip:other.ru:etagi").unwrap()), Err(Error::Binding(_))));
}

#[path = "tests_replay_trust_vc.rs"]
mod replay_trust_vc;

#[test]
fn did_document_written_by_the_core_reads_back_and_is_canonical() {
    let subject = Handle::new("etagi", "etagi.ru").unwrap();
    let ed = KeyPair::from_seed(&[7; 32]).public_key();
    let (_, x) = derive_keypair(&[9; 32]);
    for (mode, endpoint) in
        [(RouteMode::Direct, "https://api.etagi.ru/aip"), (RouteMode::Relay, "wss://hub.etagi.ru/relay/etagi")]
    {
        let mut buf = [0u8; 1024];
        let mut sink = crate::sink::SliceSink::new(&mut buf);
        did::write_document(&subject, mode, endpoint, &ed, &x, &mut sink).unwrap();
        let n = sink.finish().unwrap();
        let text = &buf[..n];
        let mut nodes = vec![Node::EMPTY; json::nodes_for_valid(n)];
        let doc = did::parse_document(text, &mut nodes).unwrap();
        assert_eq!(doc.subject, subject);
        assert_eq!(doc.id, "did:aip:etagi.ru:etagi");
        assert_eq!(doc.route_mode, mode);
        assert_eq!(doc.endpoint, endpoint);
        assert_eq!(&doc.signing_keys[..], &[ed]);
        assert_eq!(doc.agreement_keys.len(), 1);
        assert_eq!(doc.agreement_keys[0].0, x.0);
        // Already in RFC 8785 form.
        let mut again = [0u8; 1024];
        let m = crate::jcs::write_to_slice(json::parse(text, &mut nodes).unwrap().root(), &mut again).unwrap();
        assert_eq!(&again[..m], text);
    }
    for bad in ["ftp://x", "https://", "https://a b", "https://a\"b", "https://a\\b"] {
        let mut sink = crate::sink::CountSink::default();
        assert!(
            matches!(did::write_document(&subject, RouteMode::Direct, bad, &ed, &x, &mut sink), Err(Error::Schema(_))),
            "{bad}"
        );
    }
}

/// Issue 32 class 10: the X25519 secret erases itself (`ZeroizeOnDrop`; its `Zeroize`
/// clears every byte). The host's tests observe the drop itself.
#[test]
fn x25519_secret_erases_itself() {
    fn erased_on_drop<T: zeroize::ZeroizeOnDrop>() {}
    erased_on_drop::<X25519SecretKey>();
    let (mut sk, _) = derive_keypair(&[9u8; 32]);
    assert_ne!(sk.0, [0u8; 32]);
    zeroize::Zeroize::zeroize(&mut sk);
    assert_eq!(sk.0, [0u8; 32]);
    assert_eq!(format!("{sk:?}"), "X25519SecretKey(..)");
}

#[path = "tests_replay_store.rs"]
mod replay_store;

#[path = "tests_vc.rs"]
mod vc_options;

#[path = "tests_did.rs"]
mod did_methods;
