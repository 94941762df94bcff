use std::string::{String, ToString};
use std::vec;
use std::vec::Vec;

use super::*;
use crate::json::{parse, Node};

const SEED_A: [u8; 32] = [1; 32];
const SEED_B: [u8; 32] = [2; 32];

/// Builds a signed chain of `n` messages alternating between two agents.
fn chain(n: usize, session: &str) -> Vec<Vec<u8>> {
    let keys = [KeyPair::from_seed(&SEED_A), KeyPair::from_seed(&SEED_B)];
    let agents = ["agent_a", "agent_b"];
    let mut out = Vec::new();
    let mut prev = GENESIS_HASH;
    for i in 0..n {
        let body_text = std::format!("{{\"round\": {i}, \"terms\": {{\"price\": {{\"value\": {}}}}}}}", 2200 - i * 50);
        let mut bn = vec![Node::EMPTY; 32];
        let body = parse(body_text.as_bytes(), &mut bn).unwrap();
        let id = std::format!("msg_{i}");
        let to = [Party::new(agents[(i + 1) % 2])];
        let mut env = Envelope::new(
            "negotiate.offer",
            &id,
            session,
            "2026-03-21T14:30:00Z",
            Party::new(agents[i % 2]),
            body.root(),
        );
        env.prev_hash = prev;
        env.to = &to;
        env.reasoning = Some("a \"quoted\" reason\n");
        let mut buf = vec![0u8; 1024];
        let len = env.write_signed(&keys[i % 2], &mut buf).unwrap();
        buf.truncate(len);
        let mut nodes = vec![Node::EMPTY; 128];
        prev = message_hash(parse(&buf, &mut nodes).unwrap().root());
        out.push(buf);
    }
    out
}

fn resolver(id: Str<'_>) -> Option<PublicKey> {
    if id.eq_str("agent_a") {
        Some(KeyPair::from_seed(&SEED_A).public_key())
    } else if id.eq_str("agent_b") {
        Some(KeyPair::from_seed(&SEED_B).public_key())
    } else {
        None
    }
}

fn push_all(msgs: &[Vec<u8>]) -> Result<TranscriptVerifier> {
    let mut v = TranscriptVerifier::new();
    for m in msgs {
        let mut nodes = vec![Node::EMPTY; 128];
        let doc = parse(m, &mut nodes).unwrap();
        v.push(doc.root(), &resolver)?;
    }
    Ok(v)
}

#[test]
fn built_envelopes_are_canonical_and_verify() {
    let msgs = chain(5, "ses_1");
    for m in &msgs {
        let mut nodes = vec![Node::EMPTY; 128];
        let doc = parse(m, &mut nodes).unwrap();
        let mut again = vec![0u8; m.len()];
        let n = jcs::write_to_slice(doc.root(), &mut again).unwrap();
        assert_eq!(&again[..n], &m[..], "envelope is written canonical");
        assert!(doc.root().get("to").is_some());
        assert_eq!(doc.root().get("reasoning").unwrap().as_str().unwrap().raw(), "a \\\"quoted\\\" reason\\n");
    }
    let v = push_all(&msgs).unwrap();
    assert_eq!(v.count(), 5);
}

#[test]
fn broken_links_are_binding_errors_and_leave_state_unchanged() {
    let msgs = chain(4, "ses_1");
    // Dropped message.
    let dropped = [msgs[0].clone(), msgs[2].clone()];
    assert_eq!(push_all(&dropped).unwrap_err(), Error::Binding("prev_hash"));
    // Swapped.
    let swapped = [msgs[1].clone(), msgs[0].clone()];
    assert_eq!(push_all(&swapped).unwrap_err(), Error::Binding("prev_hash"));
    // A failed push leaves the verifier as it was.
    let mut v = TranscriptVerifier::new();
    let mut n0 = vec![Node::EMPTY; 128];
    v.push(parse(&msgs[0], &mut n0).unwrap().root(), &resolver).unwrap();
    let before = v;
    let mut n2 = vec![Node::EMPTY; 128];
    assert!(v.push(parse(&msgs[2], &mut n2).unwrap().root(), &resolver).is_err());
    assert_eq!(v, before);
    let mut n1 = vec![Node::EMPTY; 128];
    v.push(parse(&msgs[1], &mut n1).unwrap().root(), &resolver).unwrap();
    assert_eq!(v.count(), 2);
}

#[test]
fn tampered_body_fails_signature() {
    let msgs = chain(2, "ses_1");
    let text = String::from_utf8(msgs[1].clone()).unwrap().replace("\"value\":2150", "\"value\":2151");
    assert_ne!(text.as_bytes(), &msgs[1][..]);
    assert_eq!(push_all(&[msgs[0].clone(), text.into_bytes()]).unwrap_err(), Error::Signature);
}

#[test]
fn session_binding_and_unknown_sender() {
    let a = chain(1, "ses_1");
    let mut v = TranscriptVerifier::new();
    let mut nodes = vec![Node::EMPTY; 128];
    v.push(parse(&a[0], &mut nodes).unwrap().root(), &resolver).unwrap();
    // A message from another session that links to the tip is still refused.
    let keys = KeyPair::from_seed(&SEED_B);
    let mut bn = [Node::EMPTY; 4];
    let body = parse(b"{}", &mut bn).unwrap();
    let mut env =
        Envelope::new("negotiate.counter", "m2", "ses_2", "2026-03-21T14:31:00Z", Party::new("agent_b"), body.root());
    env.prev_hash = v.head();
    let mut buf = [0u8; 512];
    let n = env.write_signed(&keys, &mut buf).unwrap();
    let mut n2 = vec![Node::EMPTY; 64];
    assert_eq!(v.push(parse(&buf[..n], &mut n2).unwrap().root(), &resolver), Err(Error::Binding("session_id")));
    // Unknown sender.
    let mut env =
        Envelope::new("negotiate.open", "m1", "ses_9", "2026-03-21T14:31:00Z", Party::new("mallory"), body.root());
    env.prev_hash = GENESIS_HASH;
    let n = env.write_signed(&keys, &mut buf).unwrap();
    let mut n3 = vec![Node::EMPTY; 64];
    assert_eq!(
        TranscriptVerifier::new().push(parse(&buf[..n], &mut n3).unwrap().root(), &resolver),
        Err(Error::UnknownKey)
    );
}

#[test]
fn write_signed_reports_needed_length() {
    let mut bn = [Node::EMPTY; 4];
    let body = parse(b"{\"a\":1}", &mut bn).unwrap();
    let env = Envelope::new("negotiate.offer", "m", "s", "t", Party::new("a"), body.root());
    let key = KeyPair::from_seed(&SEED_A);
    let mut big = [0u8; 512];
    let n = env.write_signed(&key, &mut big).unwrap();
    let mut small = [0u8; 40];
    assert_eq!(env.write_signed(&key, &mut small), Err(Error::BufferTooSmall { needed: n }));
    let mut exact = vec![0u8; n];
    assert_eq!(env.write_signed(&key, &mut exact), Ok(n));
    assert_eq!(&exact[..], &big[..n]);
}

#[test]
fn sign_object_reports_the_signed_length() {
    let key = KeyPair::from_seed(&SEED_A);
    for text in [&br#"{"a": 1, "signature": "old"}"#[..], b"{}", b"{\"signature\": 1}"] {
        let mut nodes = [Node::EMPTY; 8];
        let doc = parse(text, &mut nodes).unwrap();
        let mut big = [0u8; 256];
        let n = sign_object(doc.root(), &key, &mut big).unwrap();
        for len in [0, 1, n - 1] {
            let mut small = vec![0u8; len];
            assert_eq!(sign_object(doc.root(), &key, &mut small), Err(Error::BufferTooSmall { needed: n }), "{len}");
        }
    }
}

#[test]
fn sign_object_round_trip_and_replacement() {
    let key = KeyPair::from_seed(&SEED_A);
    let mut nodes = [Node::EMPTY; 16];
    let doc =
        parse(br#"{"z": [1, {"signature": "nested stays"}], "signature": "stale", "a": "x"}"#, &mut nodes).unwrap();
    let mut out = [0u8; 256];
    let n = sign_object(doc.root(), &key, &mut out).unwrap();
    let mut n2 = [Node::EMPTY; 16];
    let signed = parse(&out[..n], &mut n2).unwrap();
    assert!(!signed.root().get("signature").unwrap().is_str("stale"));
    assert!(signed.root().pointer("/z/1/signature").unwrap().is_str("nested stays"));
    verify_signed_object(signed.root(), &key.public_key()).unwrap();
    let other = KeyPair::from_seed(&SEED_B).public_key();
    assert_eq!(verify_signed_object(signed.root(), &other), Err(Error::Signature));
}

#[test]
fn conformance_chain_vector_hashes_match() {
    // The three expected message hashes of pos-synthetic-message-chain.
    let Some(text) = crate::test_fixtures::read("../conformance/vectors/positive/pos-synthetic-message-chain.json")
    else {
        return;
    };
    let mut nodes = vec![Node::EMPTY; text.len() / 2 + 2];
    let doc = parse(&text, &mut nodes).unwrap();
    let r = doc.root();
    let keys = KeyMap(r.pointer("/context/public_keys_b64url").unwrap());
    let v = verify_transcript(r.pointer("/input/messages").unwrap(), &keys).unwrap();
    let expected: Vec<_> = r.pointer("/context/expected_message_hashes").unwrap().elements().collect();
    assert_eq!(v.count(), 3);
    assert!(expected[2].is_str(v.head().to_prefixed().as_str()));
    for (m, e) in r.pointer("/input/messages").unwrap().elements().zip(expected) {
        assert!(e.is_str(message_hash(m).to_prefixed().as_str()));
    }
}

/// Messages checked on their own, in any order, then accepted in order: the verdicts and
/// head of one push at a time, and the first failure in push's order (link, session, key,
/// signature).
#[test]
fn checked_in_any_order_then_accepted_in_order_is_push() {
    let msgs = chain(6, "ses_1");
    let checked: Vec<Checked> = msgs
        .iter()
        .rev()
        .map(|m| {
            let mut nodes = vec![Node::EMPTY; 128];
            Checked::new(parse(m, &mut nodes).unwrap().root(), &resolver)
        })
        .collect();
    let mut v = TranscriptVerifier::new();
    for c in checked.iter().rev() {
        v.accept(c).unwrap();
    }
    assert_eq!(v, push_all(&msgs).unwrap());
    // Accepting out of order breaks the link.
    let mut w = TranscriptVerifier::new();
    assert_eq!(w.accept(&checked[0]), Err(Error::Binding(crate::error::detail::PREV_HASH)));
    assert_eq!(w, TranscriptVerifier::new());

    // Second message with a wrong link, an unknown sender and a bad signature at once: the link.
    let text = String::from_utf8(msgs[1].clone()).unwrap();
    let tip = text.split("\"prev_hash\":\"").nth(1).unwrap().split('"').next().unwrap().to_string();
    let other = text.replace(&tip, &GENESIS_HASH.to_prefixed()).replace("agent_b", "nobody");
    let mut nodes = vec![Node::EMPTY; 128];
    let c = Checked::new(parse(other.as_bytes(), &mut nodes).unwrap().root(), &resolver);
    let mut first = TranscriptVerifier::new();
    let mut n1 = vec![Node::EMPTY; 128];
    first.push(parse(&msgs[0], &mut n1).unwrap().root(), &resolver).unwrap();
    let try_accept = |c: &Checked| {
        let mut f = first;
        f.accept(c)
    };
    assert_eq!(try_accept(&c), Err(Error::Binding(crate::error::detail::PREV_HASH)));
    // With the link right, the unknown sender.
    let unknown = text.replace("agent_b", "nobody");
    let mut n2 = vec![Node::EMPTY; 128];
    let c2 = Checked::new(parse(unknown.as_bytes(), &mut n2).unwrap().root(), &resolver);
    assert_eq!(try_accept(&c2), Err(Error::UnknownKey));
    // A prev_hash in another spelling (upper-case hex) names no digest.
    let upper = text.replace(&tip, &tip.to_uppercase().replace("SHA256:", "sha256:"));
    let mut n3 = vec![Node::EMPTY; 128];
    let c3 = Checked::new(parse(upper.as_bytes(), &mut n3).unwrap().root(), &resolver);
    assert_eq!(try_accept(&c3), Err(Error::Binding(crate::error::detail::PREV_HASH)));
    // A session other than the first message's.
    let moved = text.replace("ses_1", "ses_2");
    let mut n4 = vec![Node::EMPTY; 128];
    let c4 = Checked::new(parse(moved.as_bytes(), &mut n4).unwrap().root(), &resolver);
    assert_eq!(try_accept(&c4), Err(Error::Binding(crate::error::detail::SESSION_ID)));
}
