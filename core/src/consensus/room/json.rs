//! A room and its event log as JSON (the CLI's `ROOM.json`, and test fixtures):
//!
//! ```json
//! {"revision": 1, "digest": "<hex>", "deadline": "<RFC 3339>",
//!  "roster": [{"id": "p1", "kind": "human"}, ...],
//!  "events": [{"participant": "p1", "action": "agree", "body": "", "revision": 1,
//!              "digest": "<hex or sha256:hex>", "idempotency_key": "...", "at": "<RFC 3339>"}]}
//! ```
//!
//! `idempotency_key` is optional; without it the key is the command's derived one.

use crate::digest::Digest;
use crate::error::{Error, Result};
use crate::json::{Elements, Kind, Value};
use crate::time::{parse_datetime, Timestamp};

use super::super::command::Command;
use super::super::digest::HexDigest;
use super::{ParticipantKind, Room, Roster};

/// Ids, kinds and dates are read as written: a string with a JSON escape is refused with
/// [`ESCAPED`], never read as absent or compared in its escaped form.
pub const ESCAPED: &str = "room ids, kinds, keys and dates must be written without JSON escapes";

fn unescaped<'a>(v: Value<'a>, key: &'static str) -> Result<&'a str> {
    v.as_str().ok_or(Error::Schema(key))?.as_plain().ok_or(Error::Schema(ESCAPED))
}

fn plain<'a>(v: Value<'a>, key: &'static str) -> Result<&'a str> {
    unescaped(v.get(key).ok_or(Error::Schema(key))?, key)
}

fn members_within(v: Value<'_>, allowed: &[&str], what: &'static str) -> Result<()> {
    if v.kind() != Kind::Object || v.members().any(|(k, _)| !allowed.iter().any(|a| k.eq_str(a))) {
        return Err(Error::Schema(what));
    }
    Ok(())
}

/// Builds the room described by `room` (its `events` are read with [`events`]).
///
/// # Errors
/// [`Error::Schema`] for a missing or mistyped member, [`Error::Temporal`] for a bad
/// deadline, [`Error::Encoding`] for a digest that is not 64 lowercase hex digits
/// (optionally `sha256:`-prefixed), and as [`Room::new`].
pub fn load<const E: usize>(room: Value<'_>) -> Result<Room<E>> {
    members_within(room, &["revision", "digest", "deadline", "roster", "events"], "room members")?;
    let revision = match room.get("revision").and_then(|r| r.as_i64()) {
        Some(n) if n > 0 => n as u64,
        _ => return Err(Error::Schema("revision")),
    };
    let hex = HexDigest::normalize(plain(room, "digest")?)?;
    let digest = Digest::parse_hex(hex.as_str())?;
    let deadline = parse_datetime(plain(room, "deadline")?)?;
    let list = room.get("roster").filter(|r| r.kind() == Kind::Array).ok_or(Error::Schema("roster"))?;
    let mut roster = Roster::new();
    for p in list.elements() {
        members_within(p, &["id", "kind"], "roster entry")?;
        roster.push(plain(p, "id")?, ParticipantKind::parse(plain(p, "kind")?)?)?;
    }
    Room::new(revision, digest, deadline, roster)
}

/// The `events` array of a room document (empty when absent).
///
/// # Errors
/// [`Error::Schema`] when `events` is present but not an array.
pub fn events<'a>(room: Value<'a>) -> Result<Elements<'a>> {
    match room.get("events") {
        None => Ok(room.elements()),
        Some(e) if e.kind() == Kind::Array => Ok(e.elements()),
        Some(_) => Err(Error::Schema("events")),
    }
}

/// One event of a room document.
#[derive(Clone, Copy, Debug)]
pub struct EventRecord<'a> {
    /// The participant id.
    pub participant: &'a str,
    /// The command.
    pub command: Command<'a>,
    /// The `Idempotency-Key` given, if any.
    pub key: Option<&'a str>,
    /// When it was submitted (the room's `now` for it).
    pub at: Timestamp,
}

impl<'a> EventRecord<'a> {
    /// Reads one event object.
    ///
    /// # Errors
    /// [`Error::Schema`] for missing or mistyped members, [`Error::Temporal`] for a bad
    /// `at`, and as [`Command::from_value`].
    pub fn from_value(v: Value<'a>) -> Result<Self> {
        members_within(
            v,
            &["participant", "action", "body", "revision", "digest", "idempotency_key", "at"],
            "event members",
        )?;
        let key = match v.get("idempotency_key") {
            None => None,
            Some(k) => Some(unescaped(k, "idempotency_key")?),
        };
        Ok(EventRecord {
            participant: plain(v, "participant")?,
            command: Command::from_fields(v)?,
            key,
            at: parse_datetime(plain(v, "at")?)?,
        })
    }
}
