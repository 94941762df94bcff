use super::{rev_digest, ts};
use crate::consensus::command::{Action, Command};
use crate::consensus::room::{self, ParticipantKind, Refusal, Room, Roster, FULL_CAPACITY, MAX_EVENTS_PER_PARTICIPANT};
use crate::consensus::Outcome;
use crate::json::{self, Node};
use crate::time::Timestamp;
use crate::Error;
#[allow(unused_imports)]
use std::{
    borrow::ToOwned,
    boxed::Box,
    format,
    string::{String, ToString},
    vec,
    vec::Vec,
};

const DEADLINE: &str = "2026-09-10T00:00:00Z";

fn roster(n: usize) -> Roster {
    let mut r = Roster::new();
    for i in 0..n {
        let kind = if i == 0 { ParticipantKind::Human } else { ParticipantKind::Agent };
        r.push(&format!("p{}", i + 1), kind).unwrap();
    }
    r
}

fn room<const E: usize>(n: usize) -> Room<E> {
    Room::new(1, rev_digest(), ts(DEADLINE), roster(n)).unwrap()
}

fn hex() -> String {
    rev_digest().to_hex().as_str().to_string()
}

fn t(minute: u32) -> Timestamp {
    ts(&format!("2026-09-06T12:{minute:02}:00Z"))
}

fn cmd(action: Action, body: &str) -> Command<'_> {
    // Leaked so the borrowed digest text outlives the command in these tests.
    Command::new(action, body, 1, Box::leak(hex().into_boxed_str())).unwrap()
}

fn apply<const E: usize>(r: &mut Room<E>, who: &str, c: &Command<'_>, now: Timestamp) -> Result<u16, Refusal> {
    r.apply(who, c, c.idempotency_key().as_str(), now).map(|a| a.status)
}

#[test]
fn created_replayed_conflict() {
    let mut r = room::<64>(3);
    let c = cmd(Action::Comment, "why?");
    assert_eq!(apply(&mut r, "p1", &c, t(0)), Ok(201));
    assert_eq!(apply(&mut r, "p1", &c, t(1)), Ok(200));
    assert_eq!(r.events().len(), 1);
    // The same key from another participant is that participant's own key.
    assert_eq!(apply(&mut r, "p2", &c, t(1)), Ok(201));
    let other = cmd(Action::Comment, "why not?");
    assert_eq!(r.apply("p1", &other, c.idempotency_key().as_str(), t(2)), Err(Refusal::IdempotencyConflict));
    assert_eq!(Refusal::IdempotencyConflict.status(), 409);
    // A caller-chosen key works the same way.
    assert_eq!(r.apply("p1", &other, "client-key-0001", t(2)).map(|a| a.status), Ok(201));
    assert_eq!(r.apply("p1", &other, "client-key-0001", t(3)).map(|a| (a.status, a.event)), Ok((200, 2)));
    assert_eq!(r.apply("p1", &c, "client-key-0001", t(3)), Err(Refusal::IdempotencyConflict));
    // The prefixed digest is the same normalized command: a replay.
    let prefixed =
        Command::new(Action::Comment, "why?", 1, Box::leak(format!("sha256:{}", hex()).into_boxed_str())).unwrap();
    assert_eq!(r.apply("p1", &prefixed, c.idempotency_key().as_str(), t(4)).map(|a| a.status), Ok(200));
    assert_eq!(r.events().len(), 3);
}

#[test]
fn bad_key_and_unknown_participant() {
    let mut r = room::<8>(2);
    let c = cmd(Action::Agree, "");
    let e = r.apply("p1", &c, "short", t(0)).unwrap_err();
    assert_eq!((e.status(), e), (400, Refusal::BadRequest(Error::Schema("idempotency key"))));
    let e = r.apply("p9", &c, "valid-key-1", t(0)).unwrap_err();
    assert_eq!((e.status(), e.reason()), (404, "not_found"));
    assert_eq!(format!("{e}"), "404 not_found");
    assert_eq!(r.apply("P1", &c, "valid-key-1", t(0)).unwrap_err(), Refusal::NotFound);
    assert!(r.events().is_empty());
}

#[test]
fn stale_digest_and_revision() {
    let mut r = room::<8>(2);
    let upper = Command::new(Action::Agree, "", 1, Box::leak(hex().to_ascii_uppercase().into_boxed_str())).unwrap();
    assert_eq!(apply(&mut r, "p1", &upper, t(0)), Err(Refusal::StaleDigest));
    let other = Command::new(Action::Agree, "", 1, Box::leak("ab".repeat(32).into_boxed_str())).unwrap();
    assert_eq!(apply(&mut r, "p1", &other, t(0)), Err(Refusal::StaleDigest));
    let rev2 = Command::new(Action::Agree, "", 2, Box::leak(hex().into_boxed_str())).unwrap();
    assert_eq!(apply(&mut r, "p1", &rev2, t(0)), Err(Refusal::StaleDigest));
    assert!(r.events().is_empty() && r.outcome(t(0)) == Outcome::Pending);
}

#[test]
fn terminal_decisions_are_irreversible() {
    let mut r = room::<16>(3);
    assert_eq!(apply(&mut r, "p1", &cmd(Action::Agree, ""), t(0)), Ok(201));
    assert_eq!(apply(&mut r, "p1", &cmd(Action::Disagree, ""), t(1)), Err(Refusal::DuplicateDecision));
    assert_eq!(apply(&mut r, "p1", &cmd(Action::Abstain, ""), t(1)), Err(Refusal::DuplicateDecision));
    // Advice after one's own decision is still advice, and changes nothing.
    assert_eq!(apply(&mut r, "p1", &cmd(Action::Comment, "fine by me"), t(2)), Ok(201));
    assert_eq!(r.decision(0), Some(Action::Agree));
    assert_eq!(apply(&mut r, "p2", &cmd(Action::Agree, ""), t(3)), Ok(201));
    assert_eq!(r.outcome(t(3)), Outcome::Pending);
    assert_eq!(r.apply("p3", &cmd(Action::Agree, ""), "k-agree-p3", t(4)).map(|a| a.outcome), Ok(Outcome::Reached));
    // Closed for everything new, but replays still answer 200.
    assert_eq!(apply(&mut r, "p3", &cmd(Action::Comment, "late"), t(5)), Err(Refusal::Closed));
    assert_eq!(r.apply("p3", &cmd(Action::Agree, ""), "k-agree-p3", t(5)).map(|a| a.status), Ok(200));
    assert_eq!(r.outcome(ts("2030-01-01T00:00:00Z")), Outcome::Reached);
}

#[test]
fn first_disagree_or_abstain_closes() {
    for (action, outcome) in [(Action::Disagree, Outcome::Disagreed), (Action::Abstain, Outcome::NoConsensus)] {
        let mut r = room::<16>(4);
        assert_eq!(apply(&mut r, "p1", &cmd(Action::Agree, ""), t(0)), Ok(201));
        assert_eq!(apply(&mut r, "p2", &cmd(action, ""), t(1)), Ok(201));
        assert_eq!(r.outcome(t(1)), outcome);
        for a in [Action::Agree, Action::Disagree, Action::Abstain, Action::Question] {
            let body = if a.is_terminal() { "" } else { "?" };
            assert_eq!(apply(&mut r, "p3", &cmd(a, body), t(2)), Err(Refusal::Closed));
        }
        assert_eq!(r.events().len(), 2);
    }
}

#[test]
fn deadline_expiry_is_deterministic_and_persisted_only_on_write_or_refresh() {
    let mut r = room::<16>(2);
    assert_eq!(apply(&mut r, "p1", &cmd(Action::Agree, ""), t(0)), Ok(201));
    let before = ts("2026-09-09T23:59:59Z");
    let at = ts(DEADLINE);
    assert_eq!(r.outcome(before), Outcome::Pending);
    assert_eq!(r.outcome(at), Outcome::Expired);
    // Reading did not change the state.
    assert_eq!(r.outcome(before), Outcome::Pending);
    assert_eq!(apply(&mut r, "p2", &cmd(Action::Agree, ""), at), Err(Refusal::Expired));
    // The write persisted the expiry: even an earlier clock now sees `expired`.
    assert_eq!(r.outcome(before), Outcome::Expired);
    assert_eq!(apply(&mut r, "p2", &cmd(Action::Agree, ""), before), Err(Refusal::Expired));
    // Replays still answer.
    assert_eq!(apply(&mut r, "p1", &cmd(Action::Agree, ""), before), Ok(200));
    let mut r2 = room::<16>(2);
    assert_eq!(r2.refresh(before), Outcome::Pending);
    assert_eq!(r2.refresh(at), Outcome::Expired);
    assert_eq!(r2.outcome(before), Outcome::Expired);
}

#[test]
fn hundred_events_per_participant() {
    let mut r: Box<Room<FULL_CAPACITY>> = Box::new(room(2));
    let bodies: Vec<String> = (0..=MAX_EVENTS_PER_PARTICIPANT).map(|i| format!("note {i}")).collect();
    for b in &bodies[..usize::from(MAX_EVENTS_PER_PARTICIPANT)] {
        assert_eq!(apply(&mut r, "p1", &cmd(Action::Comment, b), t(0)), Ok(201));
    }
    let last = cmd(Action::Comment, &bodies[100]);
    assert_eq!(apply(&mut r, "p1", &last, t(1)), Err(Refusal::EventLimit));
    assert_eq!(apply(&mut r, "p1", &cmd(Action::Agree, ""), t(1)), Err(Refusal::EventLimit));
    // Replays of stored events still answer 200; other participants are unaffected.
    assert_eq!(apply(&mut r, "p1", &cmd(Action::Comment, &bodies[0]), t(1)), Ok(200));
    assert_eq!(apply(&mut r, "p2", &last, t(1)), Ok(201));
    assert_eq!(r.events().len(), 101);
}

#[test]
fn fixed_capacity() {
    let mut r = room::<2>(2);
    assert_eq!(apply(&mut r, "p1", &cmd(Action::Comment, "a"), t(0)), Ok(201));
    assert_eq!(apply(&mut r, "p1", &cmd(Action::Comment, "b"), t(0)), Ok(201));
    assert_eq!(apply(&mut r, "p2", &cmd(Action::Comment, "c"), t(0)), Err(Refusal::Capacity));
    assert_eq!(Error::from(Refusal::Capacity).class(), crate::Class::Limit);
}

#[test]
fn roster_rules() {
    let d = rev_digest();
    let dl = ts(DEADLINE);
    assert!(Room::<8>::new(1, d, dl, roster(1)).is_err());
    assert!(Room::<8>::new(1, d, dl, roster(2)).is_ok());
    assert!(Room::<8>::new(1, d, dl, roster(8)).is_ok());
    let mut r = roster(8);
    assert!(matches!(r.push("p9", ParticipantKind::Agent), Err(Error::Limit { .. })));
    let mut agents = Roster::new();
    agents.push("a", ParticipantKind::Agent).unwrap();
    agents.push("b", ParticipantKind::Agent).unwrap();
    assert_eq!(Room::<8>::new(1, d, dl, agents).unwrap_err(), Error::Schema("roster needs a human initiator"));
    let mut dup = roster(2);
    assert_eq!(dup.push("p1", ParticipantKind::Agent), Err(Error::Schema("duplicate participant id")));
    assert!(
        dup.push("", ParticipantKind::Agent).is_err() && dup.push(&"x".repeat(65), ParticipantKind::Agent).is_err()
    );
    assert!(Room::<8>::new(0, d, dl, roster(2)).is_err());
}

#[test]
fn loads_room_json() {
    let h = hex();
    let text = format!(
        r#"{{"revision": 1, "digest": "sha256:{h}", "deadline": "{DEADLINE}",
        "roster": [{{"id": "p1", "kind": "human"}}, {{"id": "p2", "kind": "agent"}}],
        "events": [
          {{"participant": "p1", "action": "comment", "body": "ok?", "revision": 1, "digest": "{h}", "at": "2026-09-06T12:00:00Z"}},
          {{"participant": "p2", "action": "agree", "body": "", "revision": 1, "digest": "sha256:{h}", "idempotency_key": "p2-agree-1", "at": "2026-09-06T12:01:00Z"}}
        ]}}"#
    );
    let mut nodes = vec![Node::EMPTY; text.len() / 2 + 2];
    let doc = json::parse(text.as_bytes(), &mut nodes).unwrap();
    let mut r: Room<16> = room::load(doc.root()).unwrap();
    for e in room::events(doc.root()).unwrap() {
        let rec = room::EventRecord::from_value(e).unwrap();
        let key = rec.key.map_or_else(|| rec.command.idempotency_key().as_str().to_string(), str::to_string);
        assert_eq!(r.apply(rec.participant, &rec.command, &key, rec.at).map(|a| a.status), Ok(201));
    }
    assert_eq!(r.decision(1), Some(Action::Agree));
    let bad = text.replace("\"human\"", "\"robot\"");
    let mut nodes = vec![Node::EMPTY; bad.len() / 2 + 2];
    let doc = json::parse(bad.as_bytes(), &mut nodes).unwrap();
    assert_eq!(room::load::<16>(doc.root()).unwrap_err(), Error::Schema("participant kind"));
}

/// Issue 32, class 1: a room id, participant, idempotency key, action or date written with
/// a JSON escape is refused by name, never read as absent or compared as written.
#[test]
fn escaped_room_members_are_refused_by_name() {
    let h = hex();
    let text = format!(
        r#"{{"revision": 1, "digest": "{h}", "deadline": "{DEADLINE}",
        "roster": [{{"id": "p1", "kind": "human"}}, {{"id": "p2", "kind": "agent"}}],
        "events": [{{"participant": "p1", "action": "agree", "body": "", "revision": 1, "digest": "{h}", "idempotency_key": "k1", "at": "2026-09-06T12:00:00Z"}}]}}"#
    );
    let load = |t: &str| {
        let mut nodes = vec![Node::EMPTY; t.len()];
        let doc = json::parse(t.as_bytes(), &mut nodes).unwrap();
        room::load::<16>(doc.root()).map(|_| ())
    };
    let event = |t: &str| {
        let mut nodes = vec![Node::EMPTY; t.len()];
        let doc = json::parse(t.as_bytes(), &mut nodes).unwrap();
        let e = room::events(doc.root()).unwrap().next().unwrap();
        room::EventRecord::from_value(e).map(|r| (r.participant.to_string(), r.key.map(str::to_string)))
    };
    assert_eq!(load(&text), Ok(()));
    assert_eq!(event(&text), Ok(("p1".to_string(), Some("k1".to_string()))));
    let escaped = Error::Schema(room::ESCAPED);
    assert_eq!(load(&text.replacen("\"id\": \"p1\"", "\"id\": \"\\u00701\"", 1)).unwrap_err(), escaped);
    assert_eq!(load(&text.replacen("\"human\"", "\"hum\\u0061n\"", 1)).unwrap_err(), escaped);
    assert_eq!(
        event(&text.replacen("\"participant\": \"p1\"", "\"participant\": \"\\u00701\"", 1)).unwrap_err(),
        escaped
    );
    assert_eq!(event(&text.replacen("\"k1\"", "\"\\u006b1\"", 1)).unwrap_err(), escaped);
    assert_eq!(event(&text.replacen("\"at\": \"2026", "\"at\": \"\\u0032026", 1)).unwrap_err(), escaped);
    assert_eq!(
        event(&text.replacen("\"agree\"", "\"\\u0061gree\"", 1)).unwrap_err(),
        Error::Schema("action must be written without JSON escapes")
    );
    assert_eq!(
        event(&text.replacen(
            &format!("\"digest\": \"{h}\", \"idem"),
            &format!("\"digest\": \"\\u0030{}\", \"idem", &h[1..]),
            1
        ))
        .unwrap_err(),
        Error::Schema("digest must be written without JSON escapes")
    );
}
