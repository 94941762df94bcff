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

use concordia_core::consensus::room::{self, EventRecord, Refusal, Room, FULL_CAPACITY};
use concordia_core::json::Value;
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
