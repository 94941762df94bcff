//! The AIP DID Document subset (`did::parse_document`): no panic on any bytes; an accepted
//! document has at least one signing key, at most `MAX_KEYS` of each kind, and a route.
#![no_main]
use concordia_core::aip::did;
use concordia_fuzz::nodes_for;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let mut nodes = nodes_for(data);
    let Ok(doc) = did::parse_document(data, &mut nodes) else { return };
    assert!(!doc.signing_keys.is_empty() && doc.signing_keys.len() <= did::MAX_KEYS);
    assert!(doc.agreement_keys.len() <= did::MAX_KEYS);
    assert_eq!(did::parse_did(doc.id).ok(), Some(doc.subject));
    let _ = (did::select_route(&doc, true), did::select_route(&doc, false));
});
