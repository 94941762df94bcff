//! The one composition of "open an envelope": its order, defaults and named opt-outs.

use super::*;
use crate::replay::new_window;
use concordia_core::aip::did::RouteMode;
use concordia_core::aip::envelope::parse_rfc3339;

const ALICE: &str = "did:aip:example.com:alice";
const BOB: &str = "did:aip:example.com:bob";
const CREATED: &str = "2019-06-01T12:00:00Z";

fn doc(kf: &KeyFile, who: &str) -> Vec<u8> {
    let h = did::parse_did(who).unwrap();
    let x = kf.x.as_ref().unwrap().public_key();
    let mut out = Vec::new();
    did::write_document(
        &h,
        RouteMode::Relay,
        &default_endpoint(&h),
        &kf.ed.public_key(),
        &x,
        &mut VecRefSink(&mut out),
    )
    .unwrap();
    out
}

struct Fixture {
    bob: KeyFile,
    alice_doc: Vec<u8>,
    env: Vec<u8>,
    created: Timestamp,
}

fn fixture(created_at: &str) -> Fixture {
    let alice = KeyFile::from_seed(&[1; 32], Some(ALICE.into())).unwrap();
    let bob = KeyFile::from_seed(&[2; 32], Some(BOB.into())).unwrap();
    let header = envelope::Header {
        id: "0f8fad5b-d9cb-469f-a165-70867728950e",
        from: ALICE,
        to: BOB,
        kind: "aip.message",
        created_at,
    };
    let mut out = vec![0u8; 4096];
    let x = bob.x.as_ref().unwrap().public_key();
    let n = envelope::seal(&header, &x, br#"{"hello":"bob"}"#, &[9; 32], &alice.ed, &mut out).unwrap();
    out.truncate(n);
    Fixture { alice_doc: doc(&alice, ALICE), bob, env: out, created: parse_rfc3339(created_at).unwrap() }
}

impl Fixture {
    fn open(&self, env: &[u8], policy: OpenPolicy<'_>) -> Result<Delivery> {
        open_envelope(env, &self.alice_doc, self.bob.x.as_ref().unwrap(), policy)
            .map(|o| o.delivery)
            .map_err(Error::from)
    }
    fn at(&self, secs: i64) -> Freshness {
        Freshness::At(self.created.add_seconds(secs).unwrap())
    }
    fn tampered_body(&self) -> Vec<u8> {
        let text = String::from_utf8(self.env.clone()).unwrap();
        let at = text.find("\"encrypted_body\":\"").unwrap() + 30;
        let mut b = text.into_bytes();
        b[at] = if b[at] == b'A' { b'B' } else { b'A' };
        b
    }
}

#[test]
fn opens_with_the_default_policy_at_a_given_instant() {
    let f = fixture(CREATED);
    let p = OpenPolicy { freshness: f.at(60), ..OpenPolicy::for_recipient(Some(BOB)) };
    let o = open_envelope(&f.env, &f.alice_doc, f.bob.x.as_ref().unwrap(), p).unwrap();
    assert_eq!(o.delivery, Delivery::Fresh(br#"{"hello":"bob"}"#.to_vec()));
    assert_eq!(o.header.to, BOB);
    // The header's texts are slices of the envelope's own text.
    let range = f.env.as_ptr_range();
    assert!(range.contains(&o.header.id.as_ptr()));
}

#[test]
fn the_default_freshness_is_the_clock_so_a_2019_envelope_is_refused() {
    let f = fixture(CREATED);
    assert_eq!(
        f.open(&f.env, OpenPolicy::for_recipient(Some(BOB))).unwrap_err().class(),
        concordia_core::Class::Temporal
    );
    // Only by name.
    let p = OpenPolicy { freshness: Freshness::Unchecked, ..OpenPolicy::for_recipient(Some(BOB)) };
    assert!(matches!(f.open(&f.env, p), Ok(Delivery::Fresh(_))));
}

#[test]
fn future_and_stale_envelopes_are_temporal() {
    let f = fixture(CREATED);
    for secs in [601, -301] {
        let p = OpenPolicy { freshness: f.at(secs), ..OpenPolicy::for_recipient(Some(BOB)) };
        assert_eq!(f.open(&f.env, p).unwrap_err().class(), concordia_core::Class::Temporal, "{secs}");
    }
}

#[test]
fn a_stale_envelope_with_a_tampered_body_is_a_signature_failure() {
    // The C ABI once checked freshness first and said Temporal here.
    let f = fixture(CREATED);
    let bad = f.tampered_body();
    assert_eq!(f.open(&bad, OpenPolicy::for_recipient(Some(BOB))), Err(Error::Signature));
    let p = OpenPolicy { freshness: f.at(60), ..OpenPolicy::for_recipient(Some(BOB)) };
    assert_eq!(f.open(&bad, p), Err(Error::Signature));
}

#[test]
fn the_recipients_did_is_required_unless_the_addressee_check_is_skipped_by_name() {
    let f = fixture(CREATED);
    let p = OpenPolicy { freshness: f.at(60), ..OpenPolicy::for_recipient(None) };
    assert_eq!(f.open(&f.env, p), Err(Error::InvalidArgument(NO_RECIPIENT_DID)));
    let p = OpenPolicy { freshness: f.at(60), ..OpenPolicy::default() };
    assert_eq!(f.open(&f.env, p), Err(Error::InvalidArgument(NO_RECIPIENT_DID)));
    // Another agent holding the key: refused by its DID, opened only when asked by name.
    let p = OpenPolicy { freshness: f.at(60), ..OpenPolicy::for_recipient(Some("did:aip:example.com:etagi")) };
    assert_eq!(f.open(&f.env, p).unwrap_err().class(), concordia_core::Class::Binding);
    let p = OpenPolicy { freshness: f.at(60), addressee: Addressee::Unchecked, window: None };
    assert!(matches!(f.open(&f.env, p), Ok(Delivery::Fresh(_))));
    let p = OpenPolicy { freshness: f.at(60), ..OpenPolicy::for_recipient(Some("not a did")) };
    assert_eq!(f.open(&f.env, p).unwrap_err().class(), concordia_core::Class::Input);
}

#[test]
fn a_window_sees_a_second_delivery_and_needs_a_clock() {
    let f = fixture(CREATED);
    let mut w = new_window(16).unwrap();
    for expected in [true, false] {
        let p = OpenPolicy { freshness: f.at(60), window: Some(&mut w), ..OpenPolicy::for_recipient(Some(BOB)) };
        assert_eq!(matches!(f.open(&f.env, p).unwrap(), Delivery::Fresh(_)), expected);
    }
    let mut w = new_window(16).unwrap();
    let p =
        OpenPolicy { freshness: Freshness::Unchecked, window: Some(&mut w), ..OpenPolicy::for_recipient(Some(BOB)) };
    assert_eq!(f.open(&f.env, p), Err(Error::InvalidArgument(WINDOW_NEEDS_CLOCK)));
    // A refused envelope is not remembered.
    let mut w = new_window(16).unwrap();
    let bad = f.tampered_body();
    let p = OpenPolicy { freshness: f.at(60), window: Some(&mut w), ..OpenPolicy::for_recipient(Some(BOB)) };
    assert_eq!(f.open(&bad, p), Err(Error::Signature));
    let p = OpenPolicy { freshness: f.at(60), window: Some(&mut w), ..OpenPolicy::for_recipient(Some(BOB)) };
    assert!(matches!(f.open(&f.env, p), Ok(Delivery::Fresh(_))));
}

#[test]
fn a_refusal_names_the_argument_it_is_about() {
    let f = fixture(CREATED);
    let x = f.bob.x.as_ref().unwrap();
    let part = |env: &[u8], doc: &[u8], p| open_envelope(env, doc, x, p).unwrap_err().part;
    assert_eq!(part(&f.env, &f.alice_doc, OpenPolicy::default()), Part::Policy);
    assert_eq!(part(&f.env, b"{", OpenPolicy::for_recipient(Some(BOB))), Part::SenderDocument);
    assert_eq!(part(b"{", &f.alice_doc, OpenPolicy::for_recipient(Some(BOB))), Part::Envelope);
    assert_eq!(part(&f.env, &f.alice_doc, OpenPolicy::for_recipient(Some(BOB))), Part::Envelope);
}

#[test]
fn the_addressee_of_a_surfaces_arguments() {
    assert_eq!(Addressee::from_args(None, None, false), Ok(Addressee::Recipient(None)));
    assert_eq!(Addressee::from_args(None, Some(BOB), false), Ok(Addressee::Recipient(Some(BOB))));
    assert_eq!(Addressee::from_args(Some(BOB), None, false), Ok(Addressee::Recipient(Some(BOB))));
    assert_eq!(Addressee::from_args(Some(BOB), Some(BOB), false), Ok(Addressee::Recipient(Some(BOB))));
    assert_eq!(Addressee::from_args(Some(ALICE), Some(BOB), false), Err(Error::InvalidArgument(DID_NOT_THE_KEYS)));
    assert_eq!(Addressee::from_args(None, Some(BOB), true), Ok(Addressee::Unchecked));
    assert_eq!(Addressee::from_args(Some(BOB), None, true), Err(Error::InvalidArgument(DID_AND_UNCHECKED)));
}
