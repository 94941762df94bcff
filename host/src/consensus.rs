//! A Consensus room log replayed to its outcome: the room document `concordia consensus
//! outcome` reads (`{revision, digest, deadline, roster, events}`), each event run through
//! the core's room model ([`Room::apply`]) in order, for every host that offers it.
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
use concordia_core::consensus::room::{
    self, Applied, EventRecord, ParticipantKind, Refusal, Room, Roster, FULL_CAPACITY,
};
use concordia_core::digest::Digest;
use concordia_core::json::{Node, Value};
use concordia_core::time::Timestamp;
use concordia_core::Result;

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

/// Applies a received command wire body (`{"action","body","revision","digest"}` JSON text)
/// from `participant` at `now`, with its `Idempotency-Key` (`None`: the command's derived
/// key), as the venue does: a malformed body is a `400` refusal.
///
/// # Errors
/// The room's [`Refusal`]; a refused command changes nothing.
pub fn apply_wire<const E: usize>(
    room: &mut Room<E>,
    participant: &str,
    wire: &[u8],
    key: Option<&str>,
    now: Timestamp,
) -> core::result::Result<Applied, Refusal> {
    let mut nodes = [Node::EMPTY; 16];
    let cmd = Command::parse_wire(wire, &mut nodes).map_err(Refusal::BadRequest)?;
    let derived = cmd.idempotency_key();
    room.apply(participant, &cmd, key.unwrap_or(derived.as_str()), now)
}
