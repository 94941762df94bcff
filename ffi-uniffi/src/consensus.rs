//! Consensus venue primitives (`concordia_core::consensus`): revision and Markdown
//! digests, the invitation summary (never a secret), room commands with their
//! `Idempotency-Key`, a room log replayed to its outcome, and `CONSENSUS.md` artifact
//! verification.

use std::time::SystemTime;

use concordia_core::consensus::artifact;
use concordia_core::consensus::command::{Action as CoreAction, Command};
use concordia_core::consensus::digest as cdigest;
use concordia_core::consensus::Outcome as CoreOutcome;
use concordia_core::json::{Node, Options};

use std::sync::{Arc, Mutex, PoisonError};

use concordia_core::consensus::room::{ParticipantKind, Room, FULL_CAPACITY};
use concordia_host::consensus::{apply_wire, check_invitation, new_room, room_outcome};

use crate::errors::ConsensusError;
use crate::util::{parse_with, timestamp, utf8, write_vec};

/// A room action.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, uniffi::Enum)]
pub enum ConsensusAction {
    /// Advisory comment (needs a body).
    Comment,
    /// Advisory question (needs a body).
    Question,
    /// Advisory change request (needs a body).
    ChangeRequest,
    /// Terminal: agree to the revision (empty body).
    Agree,
    /// Terminal: disagree (empty body).
    Disagree,
    /// Terminal: abstain (empty body).
    Abstain,
}

impl From<ConsensusAction> for CoreAction {
    fn from(a: ConsensusAction) -> Self {
        match a {
            ConsensusAction::Comment => CoreAction::Comment,
            ConsensusAction::Question => CoreAction::Question,
            ConsensusAction::ChangeRequest => CoreAction::ChangeRequest,
            ConsensusAction::Agree => CoreAction::Agree,
            ConsensusAction::Disagree => CoreAction::Disagree,
            ConsensusAction::Abstain => CoreAction::Abstain,
        }
    }
}

impl From<CoreAction> for ConsensusAction {
    fn from(a: CoreAction) -> Self {
        match a {
            CoreAction::Comment => ConsensusAction::Comment,
            CoreAction::Question => ConsensusAction::Question,
            CoreAction::ChangeRequest => ConsensusAction::ChangeRequest,
            CoreAction::Agree => ConsensusAction::Agree,
            CoreAction::Disagree => ConsensusAction::Disagree,
            CoreAction::Abstain => ConsensusAction::Abstain,
        }
    }
}

/// The outcome of a round.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, uniffi::Enum)]
pub enum ConsensusOutcome {
    /// No terminal condition yet.
    Pending,
    /// Every required participant agreed to the same revision.
    Reached,
    /// A participant disagreed.
    Disagreed,
    /// A participant abstained.
    NoConsensus,
    /// The shared deadline passed while pending.
    Expired,
}

impl From<ConsensusOutcome> for CoreOutcome {
    fn from(o: ConsensusOutcome) -> Self {
        match o {
            ConsensusOutcome::Pending => CoreOutcome::Pending,
            ConsensusOutcome::Reached => CoreOutcome::Reached,
            ConsensusOutcome::Disagreed => CoreOutcome::Disagreed,
            ConsensusOutcome::NoConsensus => CoreOutcome::NoConsensus,
            ConsensusOutcome::Expired => CoreOutcome::Expired,
        }
    }
}

fn parse_revision<T>(
    json: &str,
    f: impl FnOnce(concordia_core::json::Value<'_>) -> Result<T, ConsensusError>,
) -> Result<T, ConsensusError> {
    let mut nodes = concordia_host::Nodes::new();
    // RFC 8785's number domain, as the venue (JavaScript) reads it.
    let doc = parse_with(json.as_bytes(), &mut nodes, &Options::rfc8785())?;
    f(doc.root())
}

/// The revision digest (64 lowercase hex) of `canonicalRevision` given as JSON text.
#[uniffi::export]
pub fn consensus_revision_digest(canonical_revision_json: String) -> Result<String, ConsensusError> {
    parse_revision(&canonical_revision_json, |v| Ok(cdigest::revision_digest(v)?.to_hex().as_str().to_string()))
}

/// Checks `canonicalRevision` against the venue's `revisionDigest` (64 lowercase hex, or
/// `sha256:` and those digits); returns the digest.
#[uniffi::export]
pub fn consensus_verify_revision(canonical_revision_json: String, expected: String) -> Result<String, ConsensusError> {
    parse_revision(&canonical_revision_json, |v| {
        Ok(cdigest::verify_revision(v, &expected)?.to_hex().as_str().to_string())
    })
}

/// The Markdown digest: 64 lowercase hex of SHA-256 over the exact UTF-8 bytes.
#[uniffi::export]
pub fn consensus_markdown_digest(markdown: String) -> String {
    cdigest::markdown_digest(markdown.as_bytes()).to_hex().as_str().to_string()
}

/// Checks Markdown against the venue's `markdownDigest`; returns the digest.
#[uniffi::export]
pub fn consensus_verify_markdown(markdown: String, expected: String) -> Result<String, ConsensusError> {
    Ok(cdigest::verify_markdown(markdown.as_bytes(), &expected)?.to_hex().as_str().to_string())
}

/// The checks of an invitation and their results.
#[derive(Debug, Clone, Copy, PartialEq, Eq, uniffi::Record)]
pub struct InvitationChecks {
    /// Both URLs use HTTPS.
    pub https: bool,
    /// Both URLs have exactly the configured origin.
    pub origin: bool,
    /// No query string in either URL, no fragment in the exchange URL.
    pub no_query: bool,
    /// Envelope, invite-path and exchange-path UUIDs are identical.
    pub uuids: bool,
    /// The invite fragment is `secret=<valid base64url>`.
    pub secret: bool,
}

/// What an invitation email holds, without its secrets (the fragment secret and the
/// email proof never cross the boundary).
#[derive(Debug, Clone, PartialEq, Eq, uniffi::Record)]
pub struct InvitationSummary {
    /// The envelope `invitation_id` (a UUID).
    pub invitation_id: String,
    /// `agent_exchange.href`; redacted (`?<redacted>`, `#<redacted>`) when it failed the
    /// `no_query` check, as its query or fragment may carry a secret.
    pub exchange_href: String,
    /// The checks.
    pub checks: InvitationChecks,
    /// Whether every check passed.
    pub valid: bool,
}

fn summary(email: String, origin: Option<&str>, strict: bool) -> Result<InvitationSummary, ConsensusError> {
    // The copy of the email (it holds the fragment secret and the email proof) is erased
    // when dropped; the core erases its own parse buffers.
    let email = concordia_host::zeroize::Zeroizing::new(email);
    let checked = check_invitation(email.as_bytes(), origin)?;
    let inv = if strict { checked.strict()? } else { checked.invitation };
    let c = inv.checks();
    Ok(InvitationSummary {
        invitation_id: inv.id().to_string(),
        exchange_href: inv.exchange_href().to_string(),
        checks: InvitationChecks {
            https: c.https,
            origin: c.origin,
            no_query: c.no_query,
            uuids: c.uuids,
            secret: c.secret,
        },
        valid: c.all(),
    })
}

/// Reads the `CONSENSUS INVITATION V1` block of a plain-text email and reports its checks
/// against `origin` (`None`: `https://consensus.md`). Failed URL checks are reported in
/// the summary, not as errors; use `consensus_validate_invitation` to require them.
#[uniffi::export(default(origin = None))]
pub fn consensus_parse_invitation(email: String, origin: Option<String>) -> Result<InvitationSummary, ConsensusError> {
    summary(email, origin.as_deref(), false)
}

/// As `consensus_parse_invitation`, but fails with the first failed check
/// (`Binding` for scheme, origin and UUIDs, `Privacy` for a query string, `Input` for
/// the fragment secret).
#[uniffi::export(default(origin = None))]
pub fn consensus_validate_invitation(
    email: String,
    origin: Option<String>,
) -> Result<InvitationSummary, ConsensusError> {
    summary(email, origin.as_deref(), true)
}

/// A validated room command.
#[derive(Debug, Clone, PartialEq, Eq, uniffi::Record)]
pub struct ConsensusCommand {
    /// The action.
    pub action: ConsensusAction,
    /// The revision number.
    pub revision: u64,
    /// The wire body, canonical JSON `{"action","body","digest","revision"}`.
    pub wire_body: String,
    /// The stable `Idempotency-Key` (`cns1:` + 43 base64url characters).
    pub idempotency_key: String,
}

fn command_record(c: &Command<'_>) -> Result<ConsensusCommand, ConsensusError> {
    let wire = write_vec(256, |buf| c.wire_to_slice(buf))?;
    Ok(ConsensusCommand {
        action: c.action().into(),
        revision: c.revision(),
        wire_body: utf8(wire),
        idempotency_key: c.idempotency_key().as_str().to_string(),
    })
}

/// Builds and validates a room command: advisory actions need a body of 1 to 4000
/// characters, terminal ones an empty body; `revision` is 1 to 2^53 - 1; `digest` is 64
/// hex digits, optionally `sha256:`-prefixed.
#[uniffi::export]
pub fn consensus_build_command(
    action: ConsensusAction,
    body: String,
    revision: u64,
    digest: String,
) -> Result<ConsensusCommand, ConsensusError> {
    command_record(&Command::new(action.into(), &body, revision, &digest)?)
}

/// Reads and validates a received wire body (exactly `action`, `body`, `revision`,
/// `digest`).
#[uniffi::export]
pub fn consensus_parse_command(wire_json: String) -> Result<ConsensusCommand, ConsensusError> {
    let mut nodes = vec![Node::EMPTY; 16];
    command_record(&Command::parse_wire(wire_json.as_bytes(), &mut nodes)?)
}

/// Verifies `CONSENSUS.md` bytes against its `Content-Digest` (RFC 9530, `sha-256=:..:`)
/// and `X-Consensus-SHA256` headers and the round's outcome (only `Reached` has an
/// artifact); returns the 64-hex digest.
#[uniffi::export]
pub fn consensus_verify_artifact(
    bytes: Vec<u8>,
    content_digest: String,
    x_consensus_sha256: String,
    outcome: ConsensusOutcome,
) -> Result<String, ConsensusError> {
    Ok(artifact::verify_artifact(&bytes, &content_digest, &x_consensus_sha256, outcome.into())?
        .to_hex()
        .as_str()
        .to_string())
}

/// A room event the room refused.
#[derive(Debug, Clone, PartialEq, Eq, uniffi::Record)]
pub struct ConsensusRefusedEvent {
    /// Its index in the log's `events`.
    pub index: u64,
    /// The venue's HTTP status: 400, 404 or 409.
    pub status: u16,
    /// A stable reason word (`bad_request`, `not_found`, `closed`, `expired`,
    /// `stale_digest`, `duplicate_decision`, `event_limit`, `idempotency_conflict`,
    /// `capacity`).
    pub reason: String,
    /// The refusal as `concordia consensus outcome` reports it (`409 stale_digest`).
    pub message: String,
}

/// A room log replayed to its outcome.
#[derive(Debug, Clone, PartialEq, Eq, uniffi::Record)]
pub struct ConsensusRoomOutcome {
    /// The outcome at `now`.
    pub outcome: ConsensusOutcome,
    /// Events in the room's log (an exact replay of an event adds none).
    pub accepted: u64,
    /// The events the room refused, in log order.
    pub refused: Vec<ConsensusRefusedEvent>,
}

fn outcome_of(o: CoreOutcome) -> Result<ConsensusOutcome, ConsensusError> {
    Ok(match o {
        CoreOutcome::Pending => ConsensusOutcome::Pending,
        CoreOutcome::Reached => ConsensusOutcome::Reached,
        CoreOutcome::Disagreed => ConsensusOutcome::Disagreed,
        CoreOutcome::NoConsensus => ConsensusOutcome::NoConsensus,
        CoreOutcome::Expired => ConsensusOutcome::Expired,
        // The core's enum is non-exhaustive: a word this binding does not know yet.
        other => return Err(ConsensusError::Input(format!("outcome {} unknown to this binding", other.as_str()))),
    })
}

/// Loads a room document (`{revision, digest, deadline, roster, events}` JSON text), runs
/// each event through the core's room model (`concordia_host::consensus::replay_room`)
/// and reports the outcome at `now` with every refused event, as `concordia consensus
/// outcome` does.
#[uniffi::export]
pub fn consensus_room_outcome(room_json: String, now: SystemTime) -> Result<ConsensusRoomOutcome, ConsensusError> {
    let r = room_outcome(room_json.as_bytes(), timestamp(now)?)?;
    Ok(ConsensusRoomOutcome {
        outcome: outcome_of(r.outcome)?,
        accepted: r.accepted as u64,
        refused: r
            .refused
            .iter()
            .map(|(i, f)| ConsensusRefusedEvent {
                index: *i as u64,
                status: f.status(),
                reason: f.reason().to_string(),
                message: f.to_string(),
            })
            .collect(),
    })
}

/// The kind of a room participant.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, uniffi::Enum)]
pub enum ConsensusParticipantKind {
    /// A human (a room needs at least one, the initiator).
    Human,
    /// An invited agent.
    Agent,
}

/// One roster entry of a `ConsensusRoom`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, uniffi::Record)]
pub struct ConsensusParticipant {
    /// The participant id (1 to 64 bytes, no control characters, unique).
    pub id: String,
    /// Human or agent.
    pub kind: ConsensusParticipantKind,
}

/// What `ConsensusRoom::apply` did, as the venue answers.
#[derive(Debug, Clone, PartialEq, Eq, uniffi::Record)]
pub struct ConsensusApplied {
    /// 201 a new event, 200 an exact replay; on a refusal 400, 404 or 409.
    pub status: u16,
    /// Index of the new (or replayed) event in the log; `None` on a refusal.
    pub event: Option<u64>,
    /// The outcome after the call.
    pub outcome: ConsensusOutcome,
    /// `None`, or the refusal (`409 stale_digest`); a refused command changes nothing.
    pub refused: Option<String>,
}

/// A live room, the venue's state machine (`concordia_core::consensus::room::Room`): one
/// locked revision, a deadline, a roster of 2 to 8 participants, commands applied one by
/// one. Thread-safe.
#[derive(uniffi::Object)]
pub struct ConsensusRoom {
    inner: Mutex<Box<Room<FULL_CAPACITY>>>,
}

impl std::fmt::Debug for ConsensusRoom {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ConsensusRoom").field("events", &self.lock().events().len()).finish()
    }
}

impl ConsensusRoom {
    fn lock(&self) -> std::sync::MutexGuard<'_, Box<Room<FULL_CAPACITY>>> {
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

#[uniffi::export]
impl ConsensusRoom {
    /// A pending room for `revision` (>= 1) with `digest` (64 hex, optionally
    /// `sha256:`-prefixed), closing at `deadline`, with `roster`.
    #[uniffi::constructor]
    pub fn new(
        revision: u64,
        digest: String,
        deadline: SystemTime,
        roster: Vec<ConsensusParticipant>,
    ) -> Result<Arc<Self>, ConsensusError> {
        let members: Vec<(&str, &str)> = roster
            .iter()
            .map(|p| {
                let kind = match p.kind {
                    ConsensusParticipantKind::Human => ParticipantKind::Human.as_str(),
                    ConsensusParticipantKind::Agent => ParticipantKind::Agent.as_str(),
                };
                (p.id.as_str(), kind)
            })
            .collect();
        let room = new_room(revision, &digest, timestamp(deadline)?, &members)?;
        Ok(Arc::new(ConsensusRoom { inner: Mutex::new(room) }))
    }

    /// Applies a command's wire body (see `consensus_build_command`) from `participant`
    /// at `now` with its `Idempotency-Key` (`None`: the command's derived key).
    pub fn apply(
        &self,
        participant: String,
        wire_json: String,
        idempotency_key: Option<String>,
        now: SystemTime,
    ) -> Result<ConsensusApplied, ConsensusError> {
        let now = timestamp(now)?;
        let a = apply_wire(&mut self.lock(), &participant, wire_json.as_bytes(), idempotency_key.as_deref(), now);
        Ok(ConsensusApplied {
            status: a.status,
            event: a.event.map(|e| e as u64),
            outcome: outcome_of(a.outcome)?,
            refused: a.refusal.map(|r| r.to_string()),
        })
    }

    /// The outcome at `now` (a pending round at or past its deadline reads as expired).
    pub fn outcome(&self, now: SystemTime) -> Result<ConsensusOutcome, ConsensusError> {
        outcome_of(self.lock().outcome(timestamp(now)?))
    }

    /// Events in the log.
    pub fn event_count(&self) -> u64 {
        self.lock().events().len() as u64
    }
}
