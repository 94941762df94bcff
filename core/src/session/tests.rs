use std::string::String;
use std::vec;
use std::vec::Vec;

use proptest::prelude::*;

use super::*;
use crate::json::{parse, Node};
use crate::message::{Envelope, Party as EnvParty, TranscriptVerifier};
use crate::sign::KeyPair;

const T0: i64 = 1_774_100_000;

fn keys() -> [KeyPair; 3] {
    [KeyPair::from_seed(&[11; 32]), KeyPair::from_seed(&[22; 32]), KeyPair::from_seed(&[33; 32])]
}
const AGENTS: [&str; 3] = ["seller", "buyer", "mallory"];

/// A signed message as bytes.
fn signed(ty: MessageType, who: usize, body: &str, prev: Digest, session: &str, signer: Option<usize>) -> Vec<u8> {
    let mut bn = vec![Node::EMPTY; body.len() / 2 + 2];
    let b = parse(body.as_bytes(), &mut bn).unwrap();
    let mut env =
        Envelope::new(ty.as_str(), "msg", session, "2026-03-21T14:30:00Z", EnvParty::new(AGENTS[who]), b.root());
    env.prev_hash = prev;
    let mut out = vec![0u8; 4096];
    let n = env.write_signed(&keys()[signer.unwrap_or(who)], &mut out).unwrap();
    out.truncate(n);
    out
}

fn session() -> Session<4, 8> {
    let k = keys();
    let mut s = Session::new("ses_cam", Timing::default(), Timestamp::from_unix(T0)).unwrap();
    s.add_party("seller", Role::Initiator, Some(k[0].public_key())).unwrap();
    s.add_party("buyer", Role::Responder, Some(k[1].public_key())).unwrap();
    s
}

fn apply(s: &mut Session<4, 8>, bytes: &[u8], now: i64) -> Result<State> {
    let mut nodes = vec![Node::EMPTY; bytes.len() / 2 + 2];
    let doc = parse(bytes, &mut nodes).unwrap();
    let keys = s.registered_keys();
    s.apply(doc.root(), &keys, Timestamp::from_unix(now))
}

fn offer(price: f64) -> String {
    std::format!(
        r#"{{"offer_id":"o","terms":{{"price":{{"value":{price},"currency":"USD"}},"item":{{"value":"Canon EOS R5"}}}},"complete":true}}"#
    )
}

#[test]
fn camera_negotiation_reaches_agreed_with_concessions() {
    let mut s = session();
    let steps: Vec<(MessageType, usize, String)> = vec![
        (MessageType::Open, 0, r#"{"terms":{"price":{"type":"numeric"},"item":{"type":"string"}}}"#.into()),
        (MessageType::AcceptSession, 1, "{}".into()),
        (MessageType::Offer, 0, offer(2200.0)),
        (MessageType::Counter, 1, offer(1900.0)),
        (MessageType::Counter, 0, offer(2050.0)),
        (MessageType::Counter, 1, offer(2000.0)),
        (MessageType::Accept, 0, r#"{"offer_id":"o"}"#.into()),
    ];
    let expected =
        [State::Proposed, State::Active, State::Active, State::Active, State::Active, State::Active, State::Agreed];
    for (i, (ty, who, body)) in steps.iter().enumerate() {
        let m = signed(*ty, *who, body, s.tip(), "ses_cam", None);
        assert_eq!(apply(&mut s, &m, T0 + 60 * i as i64), Ok(expected[i]), "step {i}");
    }
    assert_eq!(s.round_count(), 4);
    assert_eq!(s.message_count(), 7);
    assert_eq!(s.terms_count(), 2);
    let seller = s.party("seller").unwrap().behavior();
    assert_eq!(seller.offers_made, 2);
    assert_eq!(seller.concessions, 1);
    // |2050 - 2200| / 2200, averaged over the one numeric term.
    assert_eq!(seller.concession_magnitude, 150.0 / 2200.0);
    let buyer = s.party("buyer").unwrap().behavior();
    assert_eq!(buyer.concession_magnitude, 100.0 / 1900.0);
    assert_eq!(s.concluded_at(), Some(Timestamp::from_unix(T0 + 360)));
    assert_eq!(s.duration_seconds(Timestamp::from_unix(T0 + 9999)), 360);
}

#[test]
fn each_failure_has_its_own_error_and_changes_nothing() {
    let mut s = session();
    let open = signed(MessageType::Open, 0, "{}", GENESIS_HASH, "ses_cam", None);
    apply(&mut s, &open, T0).unwrap();
    let snapshot = s.clone();
    let tip = s.tip();
    let cases: Vec<(Vec<u8>, i64, Error)> = vec![
        // Wrong state: an offer while PROPOSED.
        (signed(MessageType::Offer, 1, &offer(1.0), tip, "ses_cam", None), T0, Error::Transition("negotiate.offer")),
        // Bad signature: buyer's message signed by seller's key.
        (signed(MessageType::AcceptSession, 1, "{}", tip, "ses_cam", Some(0)), T0, Error::Signature),
        // Unknown sender.
        (signed(MessageType::AcceptSession, 2, "{}", tip, "ses_cam", None), T0, Error::UnknownKey),
        // Replay from another session.
        (signed(MessageType::AcceptSession, 1, "{}", tip, "ses_other", None), T0, Error::Binding("session_id")),
        // Fork: does not chain to the tip.
        (signed(MessageType::AcceptSession, 1, "{}", GENESIS_HASH, "ses_cam", None), T0, Error::Binding("prev_hash")),
        // Session TTL elapsed.
        (
            signed(MessageType::AcceptSession, 1, "{}", tip, "ses_cam", None),
            T0 + 86_401,
            Error::Temporal("session expired"),
        ),
    ];
    for (i, (m, now, err)) in cases.into_iter().enumerate() {
        assert_eq!(apply(&mut s, &m, now), Err(err), "case {i}");
        assert_eq!(s.tip(), snapshot.tip());
        assert_eq!(s.state(), snapshot.state());
        assert_eq!(s.message_count(), snapshot.message_count());
        assert_eq!(s.transcript_hash(), snapshot.transcript_hash());
    }
}

#[test]
fn max_rounds_and_offer_ttl() {
    let k = keys();
    let mut s: Session<4, 8> =
        Session::new("ses_cam", Timing { max_rounds: 2, ..Timing::default() }, Timestamp::from_unix(T0)).unwrap();
    s.add_party("seller", Role::Initiator, Some(k[0].public_key())).unwrap();
    s.add_party("buyer", Role::Responder, Some(k[1].public_key())).unwrap();
    for (ty, who, body) in [
        (MessageType::Open, 0, "{}".into()),
        (MessageType::AcceptSession, 1, "{}".into()),
        (MessageType::Offer, 0, offer(10.0)),
        (MessageType::Counter, 1, offer(8.0)),
    ] {
        let m = signed(ty, who, &body, s.tip(), "ses_cam", None);
        apply(&mut s, &m, T0).unwrap();
    }
    let third = signed(MessageType::Counter, 0, &offer(9.0), s.tip(), "ses_cam", None);
    assert_eq!(apply(&mut s, &third, T0), Err(Error::MaxRounds));
    // Accepting is still possible, but not after the offer TTL.
    let accept = signed(MessageType::Accept, 0, "{}", s.tip(), "ses_cam", None);
    assert_eq!(apply(&mut s, &accept, T0 + 3601), Err(Error::Temporal("offer expired")));
    assert_eq!(apply(&mut s, &accept, T0 + 3600), Ok(State::Agreed));
    // Terminal: nothing more is accepted.
    let late = signed(MessageType::Reject, 1, "{}", s.tip(), "ses_cam", None);
    assert_eq!(apply(&mut s, &late, T0), Err(Error::Transition("negotiate.reject")));
}

#[test]
fn malformed_offer_bodies_are_refused() {
    let mut s = session();
    for (ty, who) in [(MessageType::Open, 0), (MessageType::AcceptSession, 1)] {
        let m = signed(ty, who, "{}", s.tip(), "ses_cam", None);
        apply(&mut s, &m, T0).unwrap();
    }
    let m = signed(MessageType::Offer, 0, r#"{"price": 5}"#, s.tip(), "ses_cam", None);
    assert!(matches!(apply(&mut s, &m, T0), Err(Error::Schema(_))));
}

#[test]
fn expiry_dormancy_and_reactivation() {
    let mut s = session();
    let m = signed(MessageType::Open, 0, "{}", GENESIS_HASH, "ses_cam", None);
    apply(&mut s, &m, T0).unwrap();
    assert_eq!(s.make_dormant(), Err(Error::Transition("make_dormant")));
    s.expire(Timestamp::from_unix(T0 + 5)).unwrap();
    assert_eq!(s.state(), State::Expired);
    assert_eq!(s.expire(Timestamp::from_unix(T0 + 6)), Err(Error::Transition("expire")));
    s.make_dormant().unwrap();
    assert!(s.is_reactivatable());
    let m = signed(MessageType::Offer, 1, &offer(5.0), s.tip(), "ses_cam", None);
    assert_eq!(apply(&mut s, &m, T0 + 10), Ok(State::Active));
}

/// Applies `bytes` with the resolver `keys` (not the registered keys).
fn apply_with(s: &mut Session<4, 8>, bytes: &[u8], keys: &dyn KeyResolver) -> Result<State> {
    let mut nodes = vec![Node::EMPTY; bytes.len() / 2 + 2];
    let doc = parse(bytes, &mut nodes).unwrap();
    s.apply(doc.root(), keys, Timestamp::from_unix(T0))
}

/// The resolver passed to `apply` is the one source of keys (the SDK's mandatory
/// `public_key_resolver`): a rotated key from it is what verifies, the registered key no
/// longer does, and a resolver returning `None` rejects even a registered party.
#[test]
fn the_resolver_is_authoritative_over_registered_keys() {
    let k = keys();
    let open = r#"{"terms":{"price":{"type":"numeric"}}}"#;
    // "seller" is registered with k[0]; the resolver has rotated it to k[2].
    let rotated = |id: Str<'_>| -> Option<PublicKey> { id.eq_str("seller").then(|| k[2].public_key()) };
    let revoked = |_: Str<'_>| -> Option<PublicKey> { None };

    let mut s = session();
    let by_registered = signed(MessageType::Open, 0, open, GENESIS_HASH, "ses_cam", Some(0));
    let by_rotated = signed(MessageType::Open, 0, open, GENESIS_HASH, "ses_cam", Some(2));
    assert_eq!(s.party("seller").and_then(Party::public_key), Some(k[0].public_key()));

    // Signed by the registered key K1, the resolver says K2: rejected, nothing changes.
    assert_eq!(apply_with(&mut s, &by_registered, &rotated), Err(Error::Signature));
    assert_eq!(s.message_count(), 0);
    // Resolver returns None (revoked): rejected although a key is registered.
    assert_eq!(apply_with(&mut s, &by_registered, &revoked), Err(Error::UnknownKey));
    assert_eq!(apply_with(&mut s, &by_rotated, &revoked), Err(Error::UnknownKey));
    assert_eq!(s.message_count(), 0);
    // Signed by the rotated key K2 with the resolver saying K2: accepted.
    assert_eq!(apply_with(&mut s, &by_rotated, &rotated), Ok(State::Proposed));
    assert_eq!(s.message_count(), 1);

    // With the registered keys as the resolver, K1 verifies and K2 does not.
    let mut s = session();
    let registered = s.registered_keys();
    assert_eq!(apply_with(&mut s, &by_rotated, &registered), Err(Error::Signature));
    assert_eq!(apply_with(&mut s, &by_registered, &registered), Ok(State::Proposed));
    // An unregistered sender (mallory) resolves to nothing through the registered keys.
    let by_mallory = signed(MessageType::AcceptSession, 2, "{}", s.tip(), "ses_cam", None);
    assert_eq!(apply_with(&mut s, &by_mallory, &registered), Err(Error::UnknownKey));
}

#[test]
fn transition_table_matches_the_spec() {
    use MessageType as M;
    let mut allowed = 0;
    for st in [State::Proposed, State::Active, State::Agreed, State::Rejected, State::Expired, State::Dormant] {
        for m in M::ALL {
            if let Some(next) = transition(st, m) {
                allowed += 1;
                assert!(!st.is_terminal(), "{st:?} is terminal");
                assert!(
                    next != State::Expired && next != State::Dormant && next != State::Proposed
                        || (st, m) == (State::Proposed, M::Open)
                );
            }
        }
    }
    assert_eq!(allowed, 15);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// Random sequences of signed messages: the session only ever takes transitions in the
    /// table, a refused message changes nothing, and the messages it accepts form exactly the
    /// transcript the streaming verifier accepts.
    #[test]
    fn random_sequences(steps in prop::collection::vec((0usize..14, 0usize..3, 0u8..10), 1..40)) {
        let mut s = session();
        let mut verifier = TranscriptVerifier::new();
        let resolve = |id: Str<'_>| -> Option<PublicKey> {
            AGENTS.iter().position(|a| id.eq_str(a)).filter(|&i| i < 2).map(|i| keys()[i].public_key())
        };
        for (ty_i, who, fault) in steps {
            let ty = MessageType::ALL[ty_i];
            let body = if ty.is_round() { offer(100.0 + f64::from(fault)) } else { "{}".into() };
            let (prev, session_id, signer) = match fault {
                0 => (GENESIS_HASH, "ses_cam", None),
                1 => (s.tip(), "ses_x", None),
                2 => (s.tip(), "ses_cam", Some((who + 1) % 3)),
                _ => (s.tip(), "ses_cam", None),
            };
            let m = signed(ty, who, &body, prev, session_id, signer);
            let before = s.clone();
            let mut nodes = vec![Node::EMPTY; m.len() / 2 + 2];
            let doc = parse(&m, &mut nodes).unwrap();
            let mut v2 = verifier;
            let streamed = v2.push(doc.root(), &resolve);
            let registered = s.registered_keys();
            match s.apply(doc.root(), &registered, Timestamp::from_unix(T0)) {
                Ok(next) => {
                    prop_assert_eq!(transition(before.state(), ty), Some(next));
                    prop_assert!(streamed.is_ok(), "apply accepted what the verifier refused");
                    verifier = v2;
                    prop_assert_eq!(verifier.head(), s.tip());
                }
                Err(_) => {
                    prop_assert_eq!(s.tip(), before.tip());
                    prop_assert_eq!(s.state(), before.state());
                    prop_assert_eq!(s.message_count(), before.message_count());
                    prop_assert_eq!(s.round_count(), before.round_count());
                }
            }
        }
        prop_assert_eq!(verifier.count(), s.message_count());
    }
}

// ---- Reference SDK parity (issue 25) ----

/// Signs `json` (an object, without `signature`) with `signer` and applies it.
fn apply_json(s: &mut Session<4, 8>, json: &str, signer: usize, now: Timestamp) -> Result<State> {
    let mut nodes = vec![Node::EMPTY; json.len() / 2 + 4];
    let doc = parse(json.as_bytes(), &mut nodes).unwrap();
    let mut out = vec![0u8; json.len() + 256];
    let n = message::sign_object(doc.root(), &keys()[signer], &mut out).unwrap();
    let mut nodes2 = vec![Node::EMPTY; n / 2 + 4];
    let signed = parse(&out[..n], &mut nodes2).unwrap();
    let resolve =
        |id: Str<'_>| -> Option<PublicKey> { AGENTS.iter().position(|a| id.eq_str(a)).map(|i| keys()[i].public_key()) };
    s.apply(signed.root(), &resolve, now)
}

fn apply_env(s: &mut Session<4, 8>, ty: &str, who: &str, body: &str, signer: usize, now: Timestamp) -> Result<State> {
    let json = envelope(ty, who, body, s.tip());
    apply_json(s, &json, signer, now)
}

fn envelope(ty: &str, who: &str, body: &str, prev: Digest) -> String {
    std::format!(
        r#"{{"type":"{ty}","id":"m","session_id":"ses_cam","from":{{"agent_id":"{who}"}},"prev_hash":"{}","body":{body}}}"#,
        prev.to_prefixed().as_str()
    )
}

#[test]
fn duration_truncates_the_exact_difference_like_the_sdk() {
    // created at .9, concluded 2.2 s later: the SDK's int(2.2) is 2; whole-second floors give 3.
    let created = Timestamp::from_unix_nanos(T0, 900_000_000).unwrap();
    let mut s: Session<4, 8> = Session::new("ses_cam", Timing::default(), created).unwrap();
    s.expire(Timestamp::from_unix_nanos(T0 + 3, 100_000_000).unwrap()).unwrap();
    assert_eq!(s.duration_seconds(Timestamp::from_unix(T0 + 99)), 2);
    let open: Session<4, 8> = Session::new("ses_cam", Timing::default(), created).unwrap();
    assert_eq!(open.duration_seconds(Timestamp::from_unix_nanos(T0 + 1, 899_999_999).unwrap()), 0);
    assert_eq!(open.duration_seconds(Timestamp::from_unix(T0 - 5)), 0);
}

#[test]
fn a_sender_who_is_not_a_party_is_tracked_and_keeps_its_behaviour_when_added() {
    let mut s = session();
    let t = Timestamp::from_unix(T0);
    assert_eq!(apply_env(&mut s, "negotiate.open", "seller", "{}", 0, t), Ok(State::Proposed));
    assert_eq!(apply_env(&mut s, "negotiate.accept_session", "buyer", "{}", 1, t), Ok(State::Active));
    let offer = r#"{"offer_id":"o","terms":{"price":{"value":100}}}"#;
    assert_eq!(apply_env(&mut s, "negotiate.offer", "mallory", offer, 2, t), Ok(State::Active));
    assert_eq!(apply_env(&mut s, "negotiate.signal", "mallory", "{}", 2, t), Ok(State::Active));
    assert!(s.party("mallory").is_none());
    let b = s.behavior("mallory").unwrap();
    assert_eq!((b.offers_made, b.signals_shared), (1, 1));
    assert_eq!(s.round_count(), 1);
    s.add_party("mallory", Role::Mediator, None).unwrap();
    let p = s.party("mallory").unwrap();
    assert_eq!((p.behavior().offers_made, p.behavior().signals_shared, p.role()), (1, 1, Role::Mediator));
    assert_eq!(s.parties().len(), 3);
}

#[test]
fn terms_count_is_the_sdks_len_of_terms() {
    let t = Timestamp::from_unix(T0);
    for (terms, count, unsized_) in [
        (r#"{"a":1,"b":2}"#, 2, false),
        ("[1,2,3]", 3, false),
        (r#""h\u00e9!""#, 3, false),
        ("0", 0, false),
        ("false", 0, false),
        ("null", 0, false),
        ("7", 0, true),
        ("2.5", 0, true),
        ("true", 0, true),
    ] {
        let mut s = session();
        let body = std::format!(r#"{{"terms":{terms}}}"#);
        assert_eq!(apply_env(&mut s, "negotiate.open", "seller", &body, 0, t), Ok(State::Proposed));
        assert_eq!((s.terms_count(), s.terms_unsized()), (count, unsized_), "{terms}");
    }
    // A body that is not an object: the SDK's AttributeError, and nothing changes.
    let mut s = session();
    assert_eq!(
        apply_env(&mut s, "negotiate.open", "seller", "[1]", 0, t),
        Err(Error::Schema("open body must be an object"))
    );
    assert_eq!(s.message_count(), 0);
}

#[test]
fn malformed_envelopes_fail_with_the_sdks_reasons_in_its_order() {
    let t = Timestamp::from_unix(T0);
    let g = GENESIS_HASH.to_prefixed();
    let g = g.as_str();
    let cases: [(String, Error); 8] = [
        (
            std::format!(r#"{{"type":"negotiate.open","from":"seller","session_id":"ses_cam","prev_hash":"{g}"}}"#),
            Error::Schema("from must be an object"),
        ),
        (
            std::format!(
                r#"{{"type":"negotiate.open","from":{{"agent_id":""}},"session_id":"ses_cam","prev_hash":"{g}"}}"#
            ),
            Error::Schema("from.agent_id"),
        ),
        (
            std::format!(
                r#"{{"type":"negotiate.open","from":{{"agent_id":5}},"session_id":"ses_cam","prev_hash":"{g}"}}"#
            ),
            Error::Schema("from.agent_id"),
        ),
        (
            std::format!(r#"{{"from":{{"agent_id":"seller"}},"session_id":"ses_cam","prev_hash":"{g}"}}"#),
            Error::Schema("type missing"),
        ),
        (
            std::format!(r#"{{"type":7,"from":{{"agent_id":"seller"}},"session_id":"ses_cam","prev_hash":"{g}"}}"#),
            Error::Schema("type"),
        ),
        (
            std::format!(
                r#"{{"type":"negotiate.open","from":{{"agent_id":"seller"}},"session_id":5,"prev_hash":"{g}"}}"#
            ),
            Error::Binding("session_id"),
        ),
        (
            r#"{"type":"negotiate.open","from":{"agent_id":"seller"},"session_id":"ses_cam","prev_hash":["x"]}"#.into(),
            Error::Binding("prev_hash"),
        ),
        // Absent session_id: refused only after the SDK's own checks (here, the transition).
        (
            std::format!(r#"{{"type":"negotiate.offer","from":{{"agent_id":"seller"}},"prev_hash":"{g}"}}"#),
            Error::Transition("negotiate.offer"),
        ),
    ];
    for (json, want) in cases {
        let mut s = session();
        assert_eq!(apply_json(&mut s, &json, 0, t), Err(want), "{json}");
        assert_eq!(s.message_count(), 0);
    }
    let mut s = session();
    let absent = std::format!(r#"{{"type":"negotiate.open","from":{{"agent_id":"seller"}},"prev_hash":"{g}"}}"#);
    assert_eq!(apply_json(&mut s, &absent, 0, t), Err(Error::Schema("session_id")));
    // Signatures: falsy is missing; any text that does not decode is one Encoding error.
    let mut nodes = vec![Node::EMPTY; 64];
    for (sig, want) in [
        (r#""""#, Error::Schema("signature missing")),
        ("0", Error::Schema("signature missing")),
        (r#""abc""#, Error::Encoding("signature")),
    ] {
        let json = std::format!(
            r#"{{"type":"negotiate.open","from":{{"agent_id":"seller"}},"session_id":"ses_cam","prev_hash":"{g}","signature":{sig}}}"#
        );
        let doc = parse(json.as_bytes(), &mut nodes).unwrap();
        let mut s = session();
        let keys = s.registered_keys();
        assert_eq!(s.apply(doc.root(), &keys, t), Err(want), "{sig}");
    }
}

#[test]
fn timing_from_real_numbers() {
    let t = Timing::from_real(Some(2.5), Some(-1.0), Some(2.5));
    assert_eq!((t.session_ttl, t.offer_ttl, t.max_rounds), (2, 0, 3));
    let t = Timing::from_real(None, Some(f64::NAN), None);
    assert_eq!((t.session_ttl, t.offer_ttl, t.max_rounds), (u32::MAX, u32::MAX, 0));
    let t = Timing::from_real(Some(4_294_967_296.0), Some(f64::INFINITY), Some(-1.0));
    assert_eq!((t.session_ttl, t.offer_ttl, t.max_rounds), (u32::MAX, u32::MAX, 0));
    let t = Timing::from_real(Some(86_400.0), Some(3_600.0), Some(f64::NAN));
    assert_eq!((t.session_ttl, t.offer_ttl, t.max_rounds), (86_400, 3_600, u32::MAX));
    assert_eq!(Timing::from_real(Some(0.5), Some(1e300), Some(-0.5)).max_rounds, 0);
    assert_eq!(
        Timing::from_real(Some(-0.5), None, Some(20.0)),
        Timing { session_ttl: 0, offer_ttl: u32::MAX, max_rounds: 20 }
    );
}
