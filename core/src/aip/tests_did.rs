//! DID Documents: verification method ids unique (decoded), controller required (issue 32,
//! class 9), and members returned as text refused by name when escaped (class 1).

use std::format;
use std::string::String;
use std::vec;

use super::super::did;
use super::super::hpke::derive_keypair;
use crate::error::{Error, Limit};
use crate::json::Node;
use crate::sign::KeyPair;

const ID: &str = "did:aip:aigentix.org:alice";

fn keys() -> (String, String, String) {
    let ed = did::encode_multikey(
        KeyPair::from_seed(&[0x11; 32]).public_key().as_bytes(),
        crate::did_key::ED25519_MULTICODEC,
    );
    let other = did::encode_multikey(
        KeyPair::from_seed(&[0x12; 32]).public_key().as_bytes(),
        crate::did_key::ED25519_MULTICODEC,
    );
    let (_, x) = derive_keypair(&[0x22; 32]);
    (ed.as_str().into(), other.as_str().into(), did::encode_multikey(&x.0, did::X25519_MULTICODEC).as_str().into())
}

fn method(id: &str, controller: Option<&str>, mb: &str) -> String {
    let c = controller.map(|c| format!(r#""controller":"{c}","#)).unwrap_or_default();
    format!(r#"{{"id":"{id}",{c}"type":"Multikey","publicKeyMultibase":"{mb}"}}"#)
}

fn doc(vm: &[String], ka: &[String]) -> String {
    format!(
        r#"{{"id":"{ID}","route_mode":"relay","endpoint":"https://hub.aigentix.org/relay/alice","verificationMethod":[{}],"keyAgreement":[{}]}}"#,
        vm.join(","),
        ka.join(",")
    )
}

fn parse(text: &str) -> crate::Result<usize> {
    let mut nodes = vec![Node::EMPTY; text.len()];
    did::parse_document(text.as_bytes(), &mut nodes).map(|d| d.signing_keys.len())
}

#[test]
fn well_formed_documents_still_parse() {
    let (ed, other, x) = keys();
    let k1 = format!("{ID}#key-1");
    let k2 = format!("{ID}#key-2");
    let good = doc(
        &[method(&k1, Some(ID), &ed), method(&k2, Some(ID), &other)],
        &[method(&format!("{ID}#x-1"), Some(ID), &x)],
    );
    assert_eq!(parse(&good), Ok(2));
}

#[test]
fn duplicate_method_ids_are_refused() {
    let (ed, other, x) = keys();
    let k1 = format!("{ID}#key-1");
    let unique = Err(Error::Schema("verification method ids must be unique"));
    // The same id twice in verificationMethod: a second key would sign as #key-1.
    assert_eq!(parse(&doc(&[method(&k1, Some(ID), &ed), method(&k1, Some(ID), &other)], &[])), unique);
    // Spelled differently but the same decoded.
    let escaped = format!("{ID}#\\u006bey-1");
    assert_eq!(parse(&doc(&[method(&k1, Some(ID), &ed), method(&escaped, Some(ID), &other)], &[])), unique);
    // Relative and absolute forms of one id.
    assert_eq!(parse(&doc(&[method(&k1, Some(ID), &ed), method("#key-1", Some(ID), &other)], &[])), unique);
    // Across the two lists, and in keyAgreement.
    assert_eq!(parse(&doc(&[method(&k1, Some(ID), &ed)], &[method(&k1, Some(ID), &x)])), unique);
    let x1 = format!("{ID}#x-1");
    assert_eq!(
        parse(&doc(&[method(&k1, Some(ID), &ed)], &[method(&x1, Some(ID), &x), method(&x1, Some(ID), &x)])),
        unique
    );
    // A JWK entry (not read as a key) cannot claim a key's id either.
    let jwk = format!(r#"{{"id":"{k1}","controller":"{ID}","type":"JsonWebKey","publicKeyJwk":{{}}}}"#);
    assert_eq!(parse(&doc(&[method(&k1, Some(ID), &ed), jwk], &[])), unique);
}

#[test]
fn methods_need_an_id_and_the_subject_as_controller() {
    let (ed, _, x) = keys();
    let k1 = format!("{ID}#key-1");
    assert_eq!(
        parse(&doc(&[method(&k1, None, &ed)], &[])),
        Err(Error::Schema("verification method controller missing"))
    );
    assert_eq!(
        parse(&doc(&[method(&k1, Some(ID), &ed)], &[method(&format!("{ID}#x-1"), None, &x)])),
        Err(Error::Schema("verification method controller missing"))
    );
    assert_eq!(
        parse(&doc(&[method(&k1, Some("did:aip:x.org:eve"), &ed)], &[])),
        Err(Error::Schema("key controller must be the document id"))
    );
    // The controller is compared decoded.
    let escaped = "did:aip:aigentix.org:\\u0061lice";
    assert_eq!(parse(&doc(&[method(&k1, Some(escaped), &ed)], &[])), Ok(1));
    let no_id = format!(r#"{{"controller":"{ID}","type":"Multikey","publicKeyMultibase":"{ed}"}}"#);
    assert_eq!(parse(&doc(&[no_id], &[])), Err(Error::Schema("verification method id missing")));
    // Work is bounded: at most MAX_METHODS embedded methods a list.
    let many: std::vec::Vec<String> = (0..=did::MAX_METHODS)
        .map(|i| format!(r##"{{"id":"#j{i}","controller":"{ID}","type":"JsonWebKey"}}"##))
        .collect();
    assert!(matches!(parse(&doc(&many, &[])), Err(Error::Limit { kind: Limit::Capacity, .. })));
}

#[test]
fn escaped_text_members_are_refused_by_name() {
    let (ed, _, _) = keys();
    let good = doc(&[method(&format!("{ID}#key-1"), Some(ID), &ed)], &[]);
    let id = good.replacen(&format!("\"id\":\"{ID}\""), "\"id\":\"did:aip:aigentix.org:\\u0061lice\"", 1);
    assert_eq!(parse(&id), Err(Error::Schema("DID Document id must be written without JSON escapes")));
    let ep = good.replacen("https://hub", "https:\\/\\/hub", 1);
    assert_eq!(parse(&ep), Err(Error::Schema("endpoint must be written without JSON escapes")));
    let mb = good.replacen("\"publicKeyMultibase\":\"z", "\"publicKeyMultibase\":\"\\u007a", 1);
    assert_eq!(parse(&mb), Err(Error::Schema("publicKeyMultibase must be written without JSON escapes")));
}
