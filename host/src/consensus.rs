//! The Consensus compositions of every surface (CLI, C and Go, Python, UniFFI, JS), each
//! written once: a command applied to a live room as the venue answers it ([`apply_wire`]:
//! the derived key by default, a malformed body a `400`, the outcome after a refusal), a
//! room log replayed to its outcome ([`replay_room`], [`room_outcome`]) and an invitation
//! email checked ([`check_invitation`]: the default origin, every check, the first failure).
//!
//! A room log is the room document `concordia consensus outcome` reads (`{revision, digest,
//! deadline, roster, events}`), each event run through the core's room model
//! ([`Room::apply`]) in order.
//!
//! An event the room refuses is recorded with its [`Refusal`] (and changes nothing); an
//! event that is not a well-formed event record is refused as `400 bad_request`. An event
//! without an `idempotency_key` uses its command's derived key.
//!
//! ```
//! use concordia_core::time::parse_datetime;
//! use concordia_host::{consensus::replay_room, Nodes};
//!
//! let log = br#"{"revision":1,"digest":"0000000000000000000000000000000000000000000000000000000000000000",
//!   "deadline":"2030-01-01T00:00:00Z",
//!   "roster":[{"id":"ana","kind":"human"},{"id":"bot","kind":"agent"}],"events":[]}"#;
//! let mut nodes = Nodes::new();
//! let doc = nodes.parse(log).unwrap();
//! let replay = replay_room(doc.root()).unwrap();
//! assert!(replay.refused.is_empty());
//! assert_eq!(replay.room.outcome(parse_datetime("2029-01-01T00:00:00Z").unwrap()).as_str(), "pending");
//! ```

use concordia_core::consensus::command::Command;
use concordia_core::consensus::digest::HexDigest;
use concordia_core::consensus::invitation::{Invitation, Origin};
use concordia_core::consensus::room::{self, EventRecord, ParticipantKind, Refusal, Room, Roster, FULL_CAPACITY};
use concordia_core::consensus::Outcome;
use concordia_core::digest::Digest;
use concordia_core::json::{Node, Value};
use concordia_core::time::Timestamp;
use concordia_core::{Error, Result};

use crate::Nodes;

/// A room after its log was replayed.
#[derive(Debug)]
pub struct RoomReplay {
    /// The room (on the heap: its fixed event log is large).
    pub room: Box<Room<FULL_CAPACITY>>,
    /// The events the room refused: their index in the log and why.
    pub refused: Vec<(usize, Refusal)>,
}

/// Loads a room document and applies each of its events in order.
///
/// # Errors
/// The core's errors for a room document that does not load (members, revision, digest,
/// deadline, roster) or whose `events` is not an array. Refused events are not errors.
pub fn replay_room(doc: Value<'_>) -> Result<RoomReplay> {
    let mut room: Box<Room<FULL_CAPACITY>> = Box::new(room::load(doc)?);
    let mut refused = Vec::new();
    for (i, ev) in room::events(doc)?.enumerate() {
        let rec = match EventRecord::from_value(ev) {
            Ok(r) => r,
            Err(e) => {
                refused.push((i, Refusal::BadRequest(e)));
                continue;
            }
        };
        let derived = rec.command.idempotency_key();
        let key = rec.key.unwrap_or(derived.as_str());
        if let Err(refusal) = room.apply(rec.participant, &rec.command, key, rec.at) {
            refused.push((i, refusal));
        }
    }
    Ok(RoomReplay { room, refused })
}

/// A pending room for `revision` with `digest` (64 hex, optionally `sha256:`-prefixed),
/// closing at `deadline`, with the `roster` of `(id, kind)` (`"human"` or `"agent"`), on
/// the heap.
///
/// # Errors
/// The core's: [`concordia_core::Error::Schema`] for a roster outside 2..=8, without a
/// human, with a bad or repeated id or kind, or a revision of 0;
/// [`concordia_core::Error::Encoding`] for a malformed digest.
pub fn new_room(
    revision: u64,
    digest: &str,
    deadline: Timestamp,
    roster: &[(&str, &str)],
) -> Result<Box<Room<FULL_CAPACITY>>> {
    let digest = Digest::parse_hex(HexDigest::normalize(digest)?.as_str())?;
    let mut members = Roster::new();
    for (id, kind) in roster {
        members.push(id, ParticipantKind::parse(kind)?)?;
    }
    Ok(Box::new(Room::new(revision, digest, deadline, members)?))
}

/// What the venue answers to one command, accepted or refused: every surface reports these
/// four fields, so the outcome after a refusal is decided here once (the room's outcome at
/// `now`: a refused command changes nothing, but a pending round past its deadline reads as
/// expired).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RoomAnswer {
    /// 201 a new event, 200 an exact replay; on a refusal its status (400, 404, 409).
    pub status: u16,
    /// The index of the new (or replayed) event; `None` on a refusal.
    pub event: Option<usize>,
    /// The outcome after the call.
    pub outcome: Outcome,
    /// `None`, or why the room refused the command.
    pub refusal: Option<Refusal>,
}

impl RoomAnswer {
    /// The refusal as the core's error (for surfaces whose results are error codes), or
    /// `Ok` for an accepted command.
    ///
    /// # Errors
    /// `Error::from(refusal)`: a malformed command keeps its own error.
    pub fn result(&self) -> Result<()> {
        self.refusal.map_or(Ok(()), |r| Err(r.into()))
    }
}

/// Applies a received command wire body (`{"action","body","revision","digest"}` JSON text)
/// from `participant` at `now`, with its `Idempotency-Key` (`None`: the command's derived
/// key), as the venue does: a malformed body is a `400` refusal, and a refused command
/// changes nothing.
pub fn apply_wire<const E: usize>(
    room: &mut Room<E>,
    participant: &str,
    wire: &[u8],
    key: Option<&str>,
    now: Timestamp,
) -> RoomAnswer {
    let mut nodes = [Node::EMPTY; 16];
    let applied = Command::parse_wire(wire, &mut nodes).map_err(Refusal::BadRequest).and_then(|cmd| {
        let derived = cmd.idempotency_key();
        room.apply(participant, &cmd, key.unwrap_or(derived.as_str()), now)
    });
    match applied {
        Ok(a) => RoomAnswer { status: a.status, event: Some(a.event), outcome: a.outcome, refusal: None },
        Err(r) => RoomAnswer { status: r.status(), event: None, outcome: room.outcome(now), refusal: Some(r) },
    }
}

/// A room log replayed and read at an instant: what `concordia consensus outcome` and every
/// surface's room-outcome call report.
#[derive(Debug)]
pub struct RoomOutcome {
    /// The outcome at `now`.
    pub outcome: Outcome,
    /// Events in the room's log (an exact replay of an event adds none).
    pub accepted: usize,
    /// The events the room refused: their index in the log and why.
    pub refused: Vec<(usize, Refusal)>,
}

/// Parses a room document under the one parsing policy, replays it ([`replay_room`]) and
/// reads its outcome at `now`.
///
/// # Errors
/// The parser's errors, then as [`replay_room`].
pub fn room_outcome(doc: &[u8], now: Timestamp) -> Result<RoomOutcome> {
    let mut nodes = Nodes::new();
    let doc = nodes.parse(doc)?;
    room_outcome_of(doc.root(), now)
}

/// [`room_outcome`] of a parsed room document.
///
/// # Errors
/// As [`replay_room`].
pub fn room_outcome_of(doc: Value<'_>, now: Timestamp) -> Result<RoomOutcome> {
    let r = replay_room(doc)?;
    Ok(RoomOutcome { outcome: r.room.outcome(now), accepted: r.room.events().len(), refused: r.refused })
}

/// An invitation email read against an origin: the invitation (its checks included) and
/// the first failed check, if any.
#[derive(Debug)]
pub struct InvitationCheck {
    /// The invitation; its secrets never leave it but through the core's request builders.
    pub invitation: Invitation,
    /// The first failed check as the core's error
    /// ([`Checks::result`](concordia_core::consensus::invitation::Checks::result)): `Binding`
    /// for scheme, origin and UUIDs, `Privacy` for a query string, `Encoding` for the
    /// fragment secret.
    pub failed: Option<Error>,
}

impl InvitationCheck {
    /// The invitation when every check passed.
    ///
    /// # Errors
    /// The first failed check.
    pub fn strict(self) -> Result<Invitation> {
        self.failed.map_or(Ok(self.invitation), Err)
    }
}

/// The one composition of "check an invitation" for every surface: reads the `CONSENSUS
/// INVITATION V1` block of a plain-text email against `origin` (`None`: the default origin
/// `https://consensus.md`) and runs every check. A surface that reports the checks shows
/// [`InvitationCheck::invitation`]; one that requires them calls
/// [`InvitationCheck::strict`].
///
/// # Errors
/// [`Error::InvalidArgument`] for a malformed origin (checked before the email is read);
/// the core's errors for an email without a well-formed block (`Schema`, `Limit`, the
/// parser's).
pub fn check_invitation(email: &[u8], origin: Option<&str>) -> Result<InvitationCheck> {
    let origin = origin.map_or(Ok(Origin::DEFAULT), Origin::new)?;
    let invitation = Invitation::parse(email, &origin)?;
    let failed = invitation.checks().result().err();
    Ok(InvitationCheck { invitation, failed })
}

#[cfg(test)]
mod tests {
    use concordia_core::time::parse_datetime;

    use super::*;

    const DIGEST: &str = "a39a0a21abf129e36aac6299298167f0f0ee3f6dbca6bbecc8079ec894131099";

    fn wire(action: &str) -> String {
        format!(r#"{{"action":"{action}","body":"","digest":"{DIGEST}","revision":1}}"#)
    }

    #[test]
    fn a_refusal_reports_the_rooms_outcome_at_now_and_adds_no_event() {
        let deadline = parse_datetime("2026-09-10T00:00:00Z").unwrap();
        let mut room = new_room(1, DIGEST, deadline, &[("dana", "human"), ("bot", "agent")]).unwrap();
        let before = parse_datetime("2026-09-06T00:00:00Z").unwrap();
        let a = apply_wire(&mut room, "dana", wire("agree").as_bytes(), None, before);
        assert_eq!((a.status, a.event, a.outcome, a.refusal), (201, Some(0), Outcome::Pending, None));
        let a = apply_wire(&mut room, "bot", b"{", None, before);
        assert_eq!((a.status, a.event, a.outcome), (400, None, Outcome::Pending));
        assert_eq!(a.result().unwrap_err().class().as_str(), "input");
        // A malformed body at the deadline: refused, and the answer's outcome is the
        // room's at that instant.
        let a = apply_wire(&mut room, "bot", b"{", None, deadline);
        assert_eq!((a.status, a.outcome), (400, Outcome::Expired));
        let a = apply_wire(&mut room, "bot", wire("agree").as_bytes(), None, deadline);
        assert_eq!((a.status, a.event, a.outcome, a.refusal), (409, None, Outcome::Expired, Some(Refusal::Expired)));
        assert_eq!(a.result().unwrap_err().class().as_str(), "temporal");
        assert_eq!(room.events().len(), 1);
    }

    #[test]
    fn an_invitation_check_keeps_the_checks_and_strict_gives_the_first_failure() {
        let email = include_bytes!("../../examples/consensus/email.txt");
        let ok = check_invitation(email, None).unwrap();
        assert!(ok.failed.is_none() && ok.invitation.checks().all());
        assert!(check_invitation(email, Some("https://consensus.md")).unwrap().strict().is_ok());
        let other = check_invitation(email, Some("https://staging.consensus.md")).unwrap();
        assert!(!other.invitation.checks().origin);
        assert_eq!(other.strict().unwrap_err().class().as_str(), "binding");
        assert_eq!(check_invitation(email, Some("http://consensus.md")).unwrap_err(), Error::InvalidArgument("origin"));
    }
}
