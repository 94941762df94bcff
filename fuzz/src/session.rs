//! The `session_apply` driver: arbitrary steps become signed messages (or the two
//! message-less transitions) applied to a `Session`, with invariants checked after each.
//!
//! Cast: `alice` (initiator) and `bob` (responder) are registered with their keys;
//! `carol` is not registered; the caller's resolver, the one source of keys for
//! `Session::apply`, knows all three; `mallory` has a key nobody knows.
//!
//! After every step:
//! * an error leaves the session exactly as it was (its `Debug` form and transcript hash);
//! * a success moves the state only along `session::transition` (message steps) or
//!   PROPOSED/ACTIVE -> EXPIRED, REJECTED/EXPIRED -> DORMANT (the two message-less steps),
//!   advances `message_count` by one, makes `tip` the message hash, counts a round exactly
//!   for offers and counters, and never exceeds `max_rounds`;
//! * a message from an unknown key, signed with the wrong key, altered after signing, for
//!   another session, with a stale `prev_hash`, of an unknown type, or not allowed by the
//!   transition table is rejected;
//! * a well-formed, in-time, allowed message that is neither a round nor an accept (no offer
//!   body or offer TTL to judge) from a known sender is accepted.

use arbitrary::{Arbitrary, Unstructured};
use concordia_core::digest::{sha256, Digest};
use concordia_core::json::{self, Node, Value};
use concordia_core::message::{self, Envelope, Party, GENESIS_HASH};
use concordia_core::session::{transition, MessageType, Role, Session, State, Timing};
use concordia_core::sign::{KeyPair, PublicKey};
use concordia_core::time::Timestamp;

const SESSION_ID: &str = "ses_fuzz";
const TIMING: Timing = Timing { session_ttl: 7_200, offer_ttl: 600, max_rounds: 4 };
const START: i64 = 1_774_103_400; // 2026-03-21T14:30:00Z

/// Who signs and sends a message.
#[derive(Arbitrary, Debug, Clone, Copy, PartialEq, Eq)]
pub enum Actor {
    /// Registered initiator.
    Alice,
    /// Registered responder.
    Bob,
    /// Unregistered, resolvable through the resolver.
    Carol,
    /// Unknown key.
    Mallory,
}

impl Actor {
    fn id(self) -> &'static str {
        match self {
            Actor::Alice => "alice",
            Actor::Bob => "bob",
            Actor::Carol => "carol",
            Actor::Mallory => "mallory",
        }
    }
    fn key(self) -> KeyPair {
        KeyPair::from_seed(&[self as u8 + 1; 32])
    }
    fn known(self) -> bool {
        self != Actor::Mallory
    }
}

/// How `prev_hash` is chosen.
#[derive(Arbitrary, Debug, Clone, Copy, PartialEq, Eq)]
pub enum Link {
    /// The session's tip (correct).
    Tip,
    /// The genesis hash.
    Genesis,
    /// The tip before the last accepted message.
    Previous,
    /// An unrelated digest.
    Garbage,
}

/// How the message is spoiled after signing, if at all.
#[derive(Arbitrary, Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tamper {
    /// Honest.
    None,
    /// Signed by another actor's key.
    WrongKey,
    /// The `id` is changed after signing.
    EditId,
    /// Sent for another session.
    OtherSession,
}

/// The message body.
#[derive(Arbitrary, Debug, Clone)]
pub enum Body {
    /// One of [`BODIES`].
    Canned(u8),
    /// Any bytes; `{}` when the core's reader rejects them.
    Raw(Vec<u8>),
}

/// Canned bodies: opening terms, the four offer kinds, a bad offer, an accept-session body.
pub const BODIES: [&str; 8] = [
    r#"{"terms":{"price":{"value":2050,"currency":"USD"},"delivery":{"value":"shipping"}}}"#,
    r#"{"accepted":true}"#,
    r#"{"terms":{"price":{"value":1900}},"open_terms":["delivery"],"complete":false}"#,
    r#"{"offer_id":"off_1","conditions":[{"if":{"delivery_method":"pickup"},"then":{"price":{"value":2000,"currency":"USD"}}}]}"#,
    r#"{"bundles":[{"bundle_id":"b1","label":"fast","terms":{"price":{"value":2100}}}],"select":"one"}"#,
    r#"{}"#,
    r#"{"terms":"not an object"}"#,
    r#"{"offer_id":"off_2","terms":{"price":{"value":1999}},"valid_until":"2026-03-21T15:30:00Z"}"#,
];

/// One step of a session run.
#[derive(Arbitrary, Debug, Clone)]
pub enum Step {
    /// Send a signed message.
    Send {
        /// Sender.
        from: Actor,
        /// Index into `MessageType::ALL`; 14 and above is an unknown type.
        ty: u8,
        /// `prev_hash` choice.
        link: Link,
        /// Spoiling.
        tamper: Tamper,
        /// Body.
        body: Body,
        /// Seconds (times 16) that pass before this message.
        wait: u8,
    },
    /// `Session::expire` after `wait * 16` seconds.
    Expire {
        /// Seconds (times 16) that pass first.
        wait: u8,
    },
    /// `Session::make_dormant`.
    MakeDormant,
}

/// Everything observable about a session, for "an error leaves it unchanged".
fn snapshot(s: &Session) -> (String, Digest) {
    (format!("{s:?}"), s.transcript_hash())
}

fn resolver(id: json::Str<'_>) -> Option<PublicKey> {
    [Actor::Alice, Actor::Bob, Actor::Carol].into_iter().find(|a| id.eq_str(a.id())).map(|a| a.key().public_key())
}

/// Runs a whole session from fuzz bytes.
///
/// # Panics
/// When an invariant does not hold (a finding).
pub fn run(data: &[u8]) {
    let mut u = Unstructured::new(data);
    let created = Timestamp::from_unix(START);
    let mut s: Session = Session::new(SESSION_ID, TIMING, created).expect("session");
    s.add_party("alice", Role::Initiator, Some(Actor::Alice.key().public_key())).expect("alice");
    s.add_party("bob", Role::Responder, Some(Actor::Bob.key().public_key())).expect("bob");
    let mut now = created;
    let mut previous_tip = GENESIS_HASH;
    let mut n = 0u32;
    while !u.is_empty() && n < 64 {
        let Ok(step) = Step::arbitrary(&mut u) else { break };
        n += 1;
        let state = s.state();
        let rounds = s.round_count();
        let messages = s.message_count();
        match step {
            Step::Expire { wait } => {
                now = now.add_seconds(i64::from(wait) * 16).expect("time");
                let r = checked(&mut s, |s| s.expire(now));
                assert_eq!(r.is_ok(), matches!(state, State::Proposed | State::Active), "expire from {state:?}: {r:?}");
                if r.is_ok() {
                    assert_eq!(s.state(), State::Expired);
                    assert_eq!(s.concluded_at(), Some(now));
                }
            }
            Step::MakeDormant => {
                let r = checked(&mut s, Session::make_dormant);
                assert_eq!(
                    r.is_ok(),
                    matches!(state, State::Rejected | State::Expired),
                    "dormant from {state:?}: {r:?}"
                );
                if r.is_ok() {
                    assert_eq!(s.state(), State::Dormant);
                    assert!(s.is_reactivatable());
                }
            }
            Step::Send { from, ty, link, tamper, ref body, wait } => {
                now = now.add_seconds(i64::from(wait) * 16).expect("time");
                let tip = s.tip();
                let prev = match link {
                    Link::Tip => tip,
                    Link::Genesis => GENESIS_HASH,
                    Link::Previous => previous_tip,
                    Link::Garbage => sha256(b"garbage"),
                };
                let ty = MessageType::ALL.get(usize::from(ty)).copied();
                let id = format!("msg_{n:04}");
                let body_bytes: Vec<u8> = match body {
                    Body::Canned(i) => BODIES[usize::from(*i) % BODIES.len()].as_bytes().to_vec(),
                    Body::Raw(b) => b.clone(),
                };
                let mut body_nodes = crate::nodes_for(&body_bytes);
                let mut empty_nodes = [Node::EMPTY; 2];
                let body_doc = match json::parse(&body_bytes, &mut body_nodes) {
                    Ok(d) => d,
                    Err(_) => json::parse(b"{}", &mut empty_nodes).expect("{}"),
                };
                let mut ts = [0u8; 32];
                let timestamp = now.format_rfc3339(&mut ts).expect("timestamp");
                let session_id = if tamper == Tamper::OtherSession { "ses_other" } else { SESSION_ID };
                let mut env = Envelope::new(
                    ty.map_or("negotiate.bogus", MessageType::as_str),
                    &id,
                    session_id,
                    timestamp,
                    Party::new(from.id()),
                    body_doc.root(),
                );
                env.prev_hash = prev;
                let signer = if tamper == Tamper::WrongKey {
                    if from == Actor::Alice { Actor::Bob } else { Actor::Alice }.key()
                } else {
                    from.key()
                };
                let mut out = vec![0u8; 1024 + 2 * body_bytes.len()];
                let len = match env.write_signed(&signer, &mut out) {
                    Err(concordia_core::Error::BufferTooSmall { needed }) => {
                        out = vec![0u8; needed];
                        env.write_signed(&signer, &mut out).expect("write_signed with the size it asked for")
                    }
                    r => r.expect("write_signed"),
                };
                out.truncate(len);
                if tamper == Tamper::EditId {
                    let needle = id.as_bytes();
                    if let Some(p) = out.windows(needle.len()).position(|w| w == needle) {
                        out[p + 3] = b'X'; // "msg_0001" -> "msgX0001"
                    }
                }
                let mut nodes = crate::nodes_for(&out);
                let msg = json::parse(&out, &mut nodes).expect("the core parses its own output");
                let msg: Value<'_> = msg.root();
                let r = checked(&mut s, |s| s.apply(msg, &resolver, now));
                let allowed = ty.and_then(|t| transition(state, t));
                // The SDK refuses a `negotiate.open` whose body is not an object (it reads
                // `body.get("terms")`), and so does the core: such a message is not sound.
                let open_body_ok = ty != Some(MessageType::Open) || body_doc.root().kind() == json::Kind::Object;
                let sound = from.known() && tamper == Tamper::None && prev == tip && allowed.is_some() && open_body_ok;
                if !sound {
                    assert!(r.is_err(), "accepted an unsound message: {step:?} in {state:?}");
                }
                let deadline = created.add_seconds(i64::from(TIMING.session_ttl)).expect("deadline");
                if let (true, Some(t)) = (sound, ty) {
                    if !t.is_round() && t != MessageType::Accept && now <= deadline {
                        assert!(r.is_ok(), "rejected a sound message: {step:?} in {state:?}: {r:?}");
                    }
                }
                if let Ok(next) = r {
                    {
                        let t = ty.expect("a known type");
                        assert_eq!(Some(next), allowed);
                        assert_eq!(s.state(), next);
                        assert_eq!(s.tip(), message::message_hash(msg));
                        assert_eq!(s.message_count(), messages + 1);
                        assert_eq!(s.round_count(), rounds + u32::from(t.is_round()));
                        assert!(s.round_count() <= TIMING.max_rounds);
                        if matches!(next, State::Agreed | State::Rejected) && next != state {
                            assert_eq!(s.concluded_at(), Some(now));
                        }
                        previous_tip = tip;
                    }
                }
            }
        }
    }
}

/// Runs one step and returns whether it succeeded; a failed step must leave `s` unchanged.
pub fn checked<T, E: std::fmt::Debug>(s: &mut Session, f: impl FnOnce(&mut Session) -> Result<T, E>) -> Result<T, E> {
    let before = snapshot(s);
    let r = f(s);
    if let Err(e) = &r {
        assert_eq!(snapshot(s), before, "a failed step changed the session: {e:?}");
    }
    r
}
