//! The room: a fixed-capacity unanimity state machine a venue or a test can run.
//!
//! A [`Room`] holds one locked revision (number and digest), a deadline, a roster of 2 to
//! 8 participants and an append-only event log of at most `E` events. [`Room::apply`]
//! checks, in this order:
//!
//! 1. the `Idempotency-Key` syntax (400);
//! 2. the participant is on the roster, else the generic not-found (404);
//! 3. the key was used before by this participant: the same normalized command is an
//!    exact replay (200, nothing changes), different bytes are a conflict (409);
//! 4. the round is closed (409 `closed`; 409 `expired` after expiry);
//! 5. `now` is at or past the deadline: the round becomes `expired` (409 `expired`);
//! 6. the revision and digest match the locked revision, case-exactly (409 `stale_digest`);
//! 7. a terminal action from a participant who already decided (409 `duplicate_decision`);
//! 8. the participant's 100 stored events for this revision (409 `event_limit`);
//! 9. the log's capacity `E` (409 `capacity`).
//!
//! A new event is 201. Outcome: `reached` when every participant agreed, `disagreed` at
//! the first `disagree`, `no_consensus` at the first `abstain`, `expired` when the deadline
//! passes while pending, otherwise `pending`. Terminal decisions are irreversible. Reads
//! ([`Room::outcome`]) never change state; only [`Room::refresh`] and `apply` persist the
//! deterministic deadline expiry. A refused command changes nothing else.
//!
//! Idempotency keys and commands are stored as SHA-256 digests, never as text.

use core::fmt;

use crate::digest::{sha256, Digest};
use crate::error::{Error, Result};
use crate::time::Timestamp;

use super::command::{validate_idempotency_key, Action, Command};
use super::Outcome;

mod json;
pub use self::json::{events, load, EventRecord, ESCAPED};

/// Smallest roster.
pub const MIN_ROSTER: usize = 2;
/// Largest roster (one initiator plus seven invitees).
pub const MAX_ROSTER: usize = 8;
/// Stored events per participant per revision.
pub const MAX_EVENTS_PER_PARTICIPANT: u16 = 100;
/// Longest participant id (bytes).
pub const MAX_ID: usize = 64;
/// An event log that can never fill before the per-participant limits do.
pub const FULL_CAPACITY: usize = MAX_ROSTER * MAX_EVENTS_PER_PARTICIPANT as usize;

/// A participant's kind.
#[non_exhaustive]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ParticipantKind {
    /// A human participant.
    Human,
    /// An invited (AgentMail) agent.
    Agent,
}

impl ParticipantKind {
    /// Every kind.
    pub const ALL: [ParticipantKind; 2] = [ParticipantKind::Human, ParticipantKind::Agent];

    /// The wire word: `human` or `agent`.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            ParticipantKind::Human => "human",
            ParticipantKind::Agent => "agent",
        }
    }

    /// Parses `human` or `agent`.
    ///
    /// # Errors
    /// [`Error::Schema`]`("participant kind")` otherwise.
    pub fn parse(s: &str) -> Result<Self> {
        ParticipantKind::ALL.into_iter().find(|k| k.as_str() == s).ok_or(Error::Schema("participant kind"))
    }
}

/// One roster entry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Participant {
    id: heapless::String<MAX_ID>,
    kind: ParticipantKind,
}

impl Participant {
    /// The participant id.
    #[must_use]
    pub fn id(&self) -> &str {
        &self.id
    }

    /// The participant kind.
    #[must_use]
    pub fn kind(&self) -> ParticipantKind {
        self.kind
    }
}

/// The roster: 2 to 8 participants with distinct ids, at least one human (the initiator).
#[derive(Clone, Debug, Default)]
pub struct Roster {
    members: heapless::Vec<Participant, MAX_ROSTER>,
}

impl Roster {
    /// An empty roster.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a participant.
    ///
    /// # Errors
    /// [`Error::Schema`] for an empty, overlong (over [`MAX_ID`]), control-character or
    /// duplicate id; [`Error::Limit`] beyond [`MAX_ROSTER`].
    pub fn push(&mut self, id: &str, kind: ParticipantKind) -> Result<()> {
        if id.is_empty() || id.len() > MAX_ID || id.chars().any(char::is_control) {
            return Err(Error::Schema("participant id"));
        }
        if self.members.iter().any(|p| p.id == id) {
            return Err(Error::Schema("duplicate participant id"));
        }
        let mut s = heapless::String::new();
        s.push_str(id).map_err(|_| Error::Schema("participant id"))?;
        self.members
            .push(Participant { id: s, kind })
            .map_err(|_| Error::Limit { kind: crate::error::Limit::Capacity, offset: 0 })
    }

    /// The participants in order.
    #[must_use]
    pub fn members(&self) -> &[Participant] {
        &self.members
    }

    fn index(&self, id: &str) -> Option<usize> {
        self.members.iter().position(|p| p.id == id)
    }
}

/// One stored event.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Event {
    /// Index of the participant in the roster.
    pub participant: u8,
    /// The action.
    pub action: Action,
    /// When the room accepted it (the caller's `now`).
    pub at: Timestamp,
    /// SHA-256 of the `Idempotency-Key`.
    pub key: Digest,
    /// SHA-256 of the normalized command.
    pub command: Digest,
}

/// A successful [`Room::apply`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Applied {
    /// 201 for a new event, 200 for an exact replay.
    pub status: u16,
    /// Index of the (new or original) event in the log.
    pub event: usize,
    /// The outcome after the command.
    pub outcome: Outcome,
}

/// Why [`Room::apply`] refused a command.
#[non_exhaustive]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Refusal {
    /// 400: a malformed command or `Idempotency-Key`.
    BadRequest(Error),
    /// 404: generic not-found (unknown participant); says nothing more.
    NotFound,
    /// 409: the round already has a terminal outcome.
    Closed,
    /// 409: the deadline has passed.
    Expired,
    /// 409: the command names another revision or digest.
    StaleDigest,
    /// 409: the participant already made a terminal decision.
    DuplicateDecision,
    /// 409: the participant already stored 100 events for this revision.
    EventLimit,
    /// 409: the key was used before for different normalized bytes.
    IdempotencyConflict,
    /// 409: the room's fixed event log is full.
    Capacity,
}

impl Refusal {
    /// The HTTP status: 400, 404 or 409.
    #[must_use]
    pub const fn status(&self) -> u16 {
        match self {
            Refusal::BadRequest(_) => 400,
            Refusal::NotFound => 404,
            _ => 409,
        }
    }

    /// A stable reason word.
    #[must_use]
    pub const fn reason(&self) -> &'static str {
        match self {
            Refusal::BadRequest(_) => "bad_request",
            Refusal::NotFound => "not_found",
            Refusal::Closed => "closed",
            Refusal::Expired => "expired",
            Refusal::StaleDigest => "stale_digest",
            Refusal::DuplicateDecision => "duplicate_decision",
            Refusal::EventLimit => "event_limit",
            Refusal::IdempotencyConflict => "idempotency_conflict",
            Refusal::Capacity => "capacity",
        }
    }
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Refusal::BadRequest(e) => write!(f, "400 bad_request: {e}"),
            r => write!(f, "{} {}", r.status(), r.reason()),
        }
    }
}

impl From<Refusal> for Error {
    fn from(r: Refusal) -> Error {
        match r {
            Refusal::BadRequest(e) => e,
            Refusal::NotFound => Error::UnknownKey,
            Refusal::Expired => Error::Temporal("round expired"),
            Refusal::StaleDigest => Error::Digest("stale revision digest"),
            Refusal::EventLimit | Refusal::Capacity => Error::Limit { kind: crate::error::Limit::Capacity, offset: 0 },
            Refusal::IdempotencyConflict => Error::Binding("idempotency key reused"),
            Refusal::Closed => Error::Transition("round closed"),
            Refusal::DuplicateDecision => Error::Transition("duplicate terminal decision"),
        }
    }
}

/// A room with an event log of capacity `E` ([`FULL_CAPACITY`] never fills early).
#[derive(Clone, Debug)]
pub struct Room<const E: usize> {
    revision: u64,
    digest: Digest,
    deadline: Timestamp,
    roster: Roster,
    events: heapless::Vec<Event, E>,
    counts: [u16; MAX_ROSTER],
    decisions: [Option<Action>; MAX_ROSTER],
    outcome: Outcome,
}

impl<const E: usize> Room<E> {
    /// A pending room for `revision` (≥ 1) with `digest`, closing at `deadline`.
    ///
    /// # Errors
    /// [`Error::Schema`] for a roster outside 2..=8, without a human, or a revision of 0.
    pub fn new(revision: u64, digest: Digest, deadline: Timestamp, roster: Roster) -> Result<Self> {
        let n = roster.members.len();
        if !(MIN_ROSTER..=MAX_ROSTER).contains(&n) {
            return Err(Error::Schema("roster must have 2 to 8 participants"));
        }
        if !roster.members.iter().any(|p| p.kind == ParticipantKind::Human) {
            return Err(Error::Schema("roster needs a human initiator"));
        }
        if revision == 0 {
            return Err(Error::Schema("revision"));
        }
        Ok(Room {
            revision,
            digest,
            deadline,
            roster,
            events: heapless::Vec::new(),
            counts: [0; MAX_ROSTER],
            decisions: [None; MAX_ROSTER],
            outcome: Outcome::Pending,
        })
    }

    /// Applies a command from `participant` with `key` at `now` (see the module docs).
    ///
    /// # Errors
    /// A [`Refusal`] with its HTTP status.
    pub fn apply(
        &mut self,
        participant: &str,
        cmd: &Command<'_>,
        key: &str,
        now: Timestamp,
    ) -> core::result::Result<Applied, Refusal> {
        validate_idempotency_key(key).map_err(Refusal::BadRequest)?;
        let p = self.roster.index(participant).ok_or(Refusal::NotFound)?;
        let key_digest = sha256(key.as_bytes());
        let command = cmd.normalized_digest();
        let seen = self.events.iter().enumerate().find(|(_, e)| usize::from(e.participant) == p && e.key == key_digest);
        if let Some((i, e)) = seen {
            return if e.command == command {
                Ok(Applied { status: 200, event: i, outcome: self.outcome })
            } else {
                Err(Refusal::IdempotencyConflict)
            };
        }
        match self.outcome {
            Outcome::Pending => {}
            Outcome::Expired => return Err(Refusal::Expired),
            _ => return Err(Refusal::Closed),
        }
        if self.refresh(now) == Outcome::Expired {
            return Err(Refusal::Expired);
        }
        if cmd.revision() != self.revision || !cmd.digest().matches(&self.digest) {
            return Err(Refusal::StaleDigest);
        }
        let action = cmd.action();
        let decided = self.decisions.get(p).copied().flatten();
        if action.is_terminal() && decided.is_some() {
            return Err(Refusal::DuplicateDecision);
        }
        let count = self.counts.get(p).copied().unwrap_or(u16::MAX);
        if count >= MAX_EVENTS_PER_PARTICIPANT {
            return Err(Refusal::EventLimit);
        }
        let participant = u8::try_from(p).map_err(|_| Refusal::NotFound)?;
        let event = Event { participant, action, at: now, key: key_digest, command };
        self.events.push(event).map_err(|_| Refusal::Capacity)?;
        if let Some(c) = self.counts.get_mut(p) {
            *c = count + 1;
        }
        if action.is_terminal() {
            if let Some(d) = self.decisions.get_mut(p) {
                *d = Some(action);
            }
            self.outcome = match action {
                Action::Disagree => Outcome::Disagreed,
                Action::Abstain => Outcome::NoConsensus,
                _ if self.all_agreed() => Outcome::Reached,
                _ => Outcome::Pending,
            };
        }
        Ok(Applied { status: 201, event: self.events.len() - 1, outcome: self.outcome })
    }

    fn all_agreed(&self) -> bool {
        self.decisions.iter().take(self.roster.members.len()).all(|d| *d == Some(Action::Agree))
    }

    /// The outcome as seen at `now`, without changing state: a pending round at or past
    /// its deadline reads as `expired`.
    #[must_use]
    pub fn outcome(&self, now: Timestamp) -> Outcome {
        match self.outcome {
            Outcome::Pending if now >= self.deadline => Outcome::Expired,
            o => o,
        }
    }

    /// Persists the deterministic deadline expiry (what an authenticated room read may do)
    /// and returns the outcome.
    pub fn refresh(&mut self, now: Timestamp) -> Outcome {
        self.outcome = self.outcome(now);
        self.outcome
    }

    /// The locked revision number.
    #[must_use]
    pub fn revision(&self) -> u64 {
        self.revision
    }

    /// The locked revision digest.
    #[must_use]
    pub fn digest(&self) -> &Digest {
        &self.digest
    }

    /// The deadline.
    #[must_use]
    pub fn deadline(&self) -> Timestamp {
        self.deadline
    }

    /// The roster.
    #[must_use]
    pub fn roster(&self) -> &Roster {
        &self.roster
    }

    /// The append-only event log.
    #[must_use]
    pub fn events(&self) -> &[Event] {
        &self.events
    }

    /// The terminal decision of the participant at `index`, if any.
    #[must_use]
    pub fn decision(&self, index: usize) -> Option<Action> {
        self.decisions.get(index).copied().flatten()
    }
}
