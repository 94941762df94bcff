//! Credential verification: decoded comparisons (issue 32, class 1) and the proof's own
//! options (class 7).

use std::format;
use std::string::String;
use std::vec;

use super::super::vc::{self, VerifyOptions, MAX_FUTURE_SKEW};
use crate::error::Error;
use crate::json::{self, Node};
use crate::sign::KeyPair;
use crate::time::{parse_datetime, Timestamp};

const ID: &str = "urn:uuid:58172aac-d8ba-11ed-83dd-0b3aef56cc33";

fn kp() -> KeyPair {
    KeyPair::from_seed(&[0x44; 32])
}

fn did() -> String {
    String::from(crate::did_key::encode(&kp().public_key()).as_str())
}

fn at(text: &str) -> Option<Timestamp> {
    Some(parse_datetime(text).unwrap())
}

fn credential() -> String {
    format!(
        r#"{{"@context":["https://www.w3.org/ns/credentials/v2"],"id":"{ID}","type":["VerifiableCredential"],"issuer":"{}","validFrom":"2026-01-01T00:00:00Z","validUntil":"2027-01-01T00:00:00Z","credentialSubject":{{"id":"did:aip:aigentix.org:etagi","verified":true}}}}"#,
        did()
    )
}

/// Signs `text` (a credential without proof) with a proof whose configuration has the
/// usual members plus `extra` (`"name":value,` pairs), by the cryptosuite's steps written
/// out here: `SHA-256(JCS(config)) || SHA-256(JCS(credential))`, Ed25519, `z` + base58btc.
fn sign_with(text: &str, extra: &str) -> String {
    let kp = kp();
    let vm = vc::verification_method(&kp.public_key());
    let config = format!(
        r#"{{"@context":["https://www.w3.org/ns/credentials/v2"],{extra}"cryptosuite":"eddsa-jcs-2022","proofPurpose":"assertionMethod","type":"DataIntegrityProof","verificationMethod":"{vm}"}}"#
    );
    let mut n1 = vec![Node::EMPTY; config.len()];
    let mut n2 = vec![Node::EMPTY; text.len()];
    let cdoc = json::parse(config.as_bytes(), &mut n1).unwrap();
    let doc = json::parse(text.as_bytes(), &mut n2).unwrap();
    let mut data = [0u8; 64];
    data[..32].copy_from_slice(crate::digest::sha256_jcs(cdoc.root()).as_bytes());
    data[32..].copy_from_slice(crate::digest::sha256_jcs(doc.root()).as_bytes());
    let sig = kp.sign(&data);
    let mut pv = [0u8; 100];
    let n = crate::encoding::encode_base58(sig.as_bytes(), &mut pv).unwrap();
    let pv = core::str::from_utf8(&pv[..n]).unwrap();
    let proof = config.replacen('{', &format!(r#"{{"proofValue":"z{pv}","#), 1);
    format!("{},\"proof\":{proof}}}", &text[..text.len() - 1])
}

fn check(text: &str, opts: &VerifyOptions<'_>) -> crate::Result<(String, Option<String>)> {
    let mut nodes = vec![Node::EMPTY; text.len()];
    let doc = json::parse(text.as_bytes(), &mut nodes)?;
    let v = vc::verify(doc.root(), opts)?;
    Ok((v.issuer.into(), v.subject.map(String::from)))
}

fn check_proof(text: &str) -> crate::Result<()> {
    let mut nodes = vec![Node::EMPTY; text.len()];
    let doc = json::parse(text.as_bytes(), &mut nodes)?;
    vc::verify_proof(doc.root()).map(|_| ())
}

fn opts() -> VerifyOptions<'static> {
    VerifyOptions { now: at("2026-06-01T00:00:00Z"), ..VerifyOptions::default() }
}

#[test]
fn the_helper_signs_what_the_core_verifies() {
    let signed = sign_with(&credential(), r#""created":"2026-05-10T14:25:00Z","#);
    assert_eq!(check(&signed, &opts()).unwrap().1.as_deref(), Some("did:aip:aigentix.org:etagi"));
}

/// Class 1, the high one: a revoked credential whose `id` is respelled with a JSON escape
/// still has a valid proof (JCS unescapes); the revocation lookup must see the decoded id.
#[test]
fn revocation_compares_the_decoded_id() {
    let signed = sign_with(&credential(), "");
    let revoked = [ID];
    let opts = VerifyOptions { revoked: &revoked, ..opts() };
    assert!(matches!(check(&signed, &opts), Err(Error::Binding("credential is revoked"))));
    for respelled in ["urn:uuid:\\u00358172aac", "\\u0075rn:uuid:58172aac", "urn:uuid:58172aac\\u002dd8ba"] {
        let plain = respelled.replace("\\u0035", "5").replace("\\u0075", "u").replace("\\u002d", "-");
        let escaped = signed.replacen(&plain, respelled, 1);
        assert_ne!(escaped, signed);
        check(&escaped, &VerifyOptions { revoked: &[], ..opts }).unwrap(); // the proof still holds
        assert!(matches!(check(&escaped, &opts), Err(Error::Binding("credential is revoked"))), "{respelled}");
    }
    // The escape may also sit in the revocation list's spelling's decoded twin: "\/" is "/".
    let slash = sign_with(&credential().replace(ID, "https://example.org/c/1"), "");
    let escaped = slash.replacen("https://example.org/c/1", "https:\\/\\/example.org\\/c\\/1", 1);
    let revoked = ["https://example.org/c/1"];
    assert!(matches!(check(&escaped, &VerifyOptions { revoked: &revoked, ..opts }), Err(Error::Binding(_))));
    // An id that is not a string is refused, not read as "no id".
    let numeric = sign_with(&credential().replace(&format!("\"{ID}\""), "5"), "");
    assert!(matches!(check(&numeric, &opts), Err(Error::Schema("credential id must be a string"))));
}

#[test]
fn an_escaped_issuer_is_refused_by_name() {
    let signed = sign_with(&credential(), "");
    let did = did();
    let escaped =
        signed.replacen(&format!("\"issuer\":\"{did}\""), &format!("\"issuer\":\"did:\\u006bey:{}\"", &did[8..]), 1);
    assert_ne!(escaped, signed);
    assert!(matches!(check(&escaped, &opts()), Err(Error::Schema("issuer must be written without JSON escapes"))));
    // The object form too.
    let obj = sign_with(
        &credential().replace(&format!("\"issuer\":\"{did}\""), &format!("\"issuer\":{{\"id\":\"{did}\"}}")),
        "",
    );
    check(&obj, &opts()).unwrap();
    let escaped =
        obj.replacen(&format!("{{\"id\":\"{did}\"}}"), &format!("{{\"id\":\"did:\\u006bey:{}\"}}", &did[8..]), 1);
    assert!(matches!(check(&escaped, &opts()), Err(Error::Schema("issuer must be written without JSON escapes"))));
    // Anchors compare the issuer as written: never an escaped spelling matching by accident.
    let anchors = [did.as_str()];
    check(&signed, &VerifyOptions { anchors: Some(&anchors), ..opts() }).unwrap();
}

#[test]
fn an_escaped_subject_is_refused_not_dropped() {
    let signed = sign_with(&credential(), "");
    let escaped = signed.replacen("did:aip:aigentix.org:etagi", "did:aip:aigentix.org:\\u0065tagi", 1);
    assert!(matches!(
        check(&escaped, &opts()),
        Err(Error::Schema("credentialSubject.id must be written without JSON escapes"))
    ));
    let numeric = sign_with(&credential().replace("\"did:aip:aigentix.org:etagi\"", "7"), "");
    assert!(matches!(check(&numeric, &opts()), Err(Error::Schema("credentialSubject.id must be a string"))));
    let none = sign_with(&credential().replace("\"id\":\"did:aip:aigentix.org:etagi\",", ""), "");
    assert_eq!(check(&none, &opts()).unwrap().1, None);
}

#[test]
fn escaped_dates_and_proof_members_are_decoded_or_refused_by_name() {
    // validFrom respelled: decoded, so its instant still counts.
    let signed = sign_with(&credential(), "");
    let escaped = signed.replacen("\"validFrom\":\"2026-01-01", "\"validFrom\":\"2026\\u002d01-01", 1);
    check(&escaped, &opts()).unwrap();
    let early = VerifyOptions { now: at("2025-12-01T00:00:00Z"), ..opts() };
    assert!(matches!(check(&escaped, &early), Err(Error::Temporal("credential is not yet valid"))));
    // The proof's created respelled: decoded and checked.
    let created = sign_with(&credential(), r#""created":"2026\u002d05-10T14:25:00Z","#);
    check(&created, &opts()).unwrap();
    // verificationMethod and proofValue are returned or decoded as written: refused by name.
    let vm = signed.replacen("\"verificationMethod\":\"did:key", "\"verificationMethod\":\"did:\\u006bey", 1);
    assert!(matches!(check_proof(&vm), Err(Error::Schema("verificationMethod must be written without JSON escapes"))));
    let pv = signed.replacen("\"proofValue\":\"z", "\"proofValue\":\"\\u007a", 1);
    assert!(matches!(check_proof(&pv), Err(Error::Schema("proofValue must be written without JSON escapes"))));
}

/// Class 7: the proof's `expires` and `created` against `now`.
#[test]
fn proof_expires_and_created_are_checked() {
    let expiring = sign_with(&credential(), r#""created":"2026-05-01T00:00:00Z","expires":"2026-05-31T00:00:00Z","#);
    check(&expiring, &VerifyOptions { now: at("2026-05-30T00:00:00Z"), ..opts() }).unwrap();
    check(&expiring, &VerifyOptions { now: at("2026-05-31T00:00:00Z"), ..opts() }).unwrap();
    assert!(matches!(
        check(&expiring, &VerifyOptions { now: at("2026-05-31T00:00:01Z"), ..opts() }),
        Err(Error::Temporal("proof has expired"))
    ));
    // Created ahead of now: up to MAX_FUTURE_SKEW is clock skew, beyond it is refused.
    let future = sign_with(&credential(), r#""created":"2026-06-01T00:05:00Z","#);
    assert_eq!(MAX_FUTURE_SKEW, 300);
    check(&future, &opts()).unwrap();
    let further = sign_with(&credential(), r#""created":"2026-06-01T00:05:01Z","#);
    assert!(matches!(check(&further, &opts()), Err(Error::Temporal("proof created in the future"))));
    let sub = sign_with(&credential(), r#""created":"2026-06-01T00:05:00.5Z","#);
    assert!(matches!(check(&sub, &opts()), Err(Error::Temporal("proof created in the future"))));
    // Without now neither is checked.
    check(&further, &VerifyOptions { now: None, ..opts() }).unwrap();
    // Expiring before it was created: refused even without now, and by verify_proof.
    let inverted = sign_with(&credential(), r#""created":"2026-05-02T00:00:00Z","expires":"2026-05-01T00:00:00Z","#);
    let want = Err(Error::Temporal("proof expires before it was created"));
    assert_eq!(check(&inverted, &VerifyOptions { now: None, ..opts() }).map(|_| ()), want);
    assert_eq!(check_proof(&inverted), want);
    // A malformed expires is a schema error.
    let bad = sign_with(&credential(), r#""expires":"tomorrow","#);
    assert!(matches!(check_proof(&bad), Err(Error::Schema(_))));
    let bad = sign_with(&credential(), r#""expires":5,"#);
    assert!(matches!(check_proof(&bad), Err(Error::Schema("proof expires must be a date-time string"))));
}

#[test]
fn domain_and_challenge_can_be_required() {
    let plain = sign_with(&credential(), "");
    let bound = sign_with(&credential(), r#""challenge":"n-0S6_WzA2Mj","domain":"example.org","#);
    let set = sign_with(&credential(), r#""domain":["a.example","example.org"],"#);
    let escaped = sign_with(&credential(), r#""challenge":"n-0S6_WzA2M\u006a","domain":"example\u002eorg","#);
    let dom = |d| VerifyOptions { domain: Some(d), ..opts() };
    let chal = |c| VerifyOptions { challenge: Some(c), ..opts() };
    // Not asked for: accepted (Data Integrity raises only when options.domain/challenge is set).
    check(&bound, &opts()).unwrap();
    // Required: present and equal (decoded; a set contains it).
    check(&bound, &dom("example.org")).unwrap();
    check(&set, &dom("example.org")).unwrap();
    check(&escaped, &dom("example.org")).unwrap();
    check(&bound, &chal("n-0S6_WzA2Mj")).unwrap();
    check(&escaped, &chal("n-0S6_WzA2Mj")).unwrap();
    check(&bound, &VerifyOptions { domain: Some("example.org"), challenge: Some("n-0S6_WzA2Mj"), ..opts() }).unwrap();
    for (text, o) in [
        (&plain, dom("example.org")),
        (&bound, dom("example.com")),
        (&set, dom("b.example")),
        (&plain, chal("n-0S6_WzA2Mj")),
        (&bound, chal("n-0S6_WzA2Mk")),
        (&set, chal("x")),
    ] {
        assert!(matches!(check(text, &o), Err(Error::Binding(_))), "{o:?}");
    }
    // The members are signed: dropping or changing one breaks the proof.
    let dropped = bound.replacen(r#""domain":"example.org","#, "", 1);
    assert!(matches!(check(&dropped, &opts()), Err(Error::Signature)));
}
