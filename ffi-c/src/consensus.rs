//! Consensus venue primitives (`concordia_core::consensus`): revision and Markdown digests,
//! the invitation check (never a secret), room commands with their `Idempotency-Key`, the
//! room model and its outcome, and `CONSENSUS.md` artifact verification.
//!
//! As everywhere in this crate, the rules are the core's: this file converts C arguments,
//! parses through concordia-host and maps results.

use concordia_core::consensus::artifact;
use concordia_core::consensus::command::{Action, Command};
use concordia_core::consensus::digest as cdigest;
use concordia_core::consensus::invitation::MAX_URL;
use concordia_core::consensus::room::{ParticipantKind, Room, FULL_CAPACITY};
use concordia_core::consensus::Outcome;
use concordia_core::digest::Digest;
use concordia_core::json::{Node, Options};
use concordia_core::time::Timestamp;
use concordia_core::Error;
use concordia_host::Nodes;

use crate::boundary::{
    bytes_in, bytes_out, copy_out, guard, handle_free, handle_mut, handle_new, opt_out, out_ref, slice_in, Fail,
    FfiResult, NULL,
};
use crate::{concordia_result, concordia_str};

/// Length of a Consensus digest as text: 64 lowercase hex digits, no prefix.
pub const CONCORDIA_CONSENSUS_DIGEST_HEX_LEN: usize = 64;
/// Length of a derived `Idempotency-Key` (`cns1:` and 43 base64url characters).
pub const CONCORDIA_CONSENSUS_IDEMPOTENCY_KEY_LEN: usize = 48;
/// Length of an invitation id (a UUID).
pub const CONCORDIA_CONSENSUS_INVITATION_ID_LEN: usize = 36;
/// Longest invitation URL the core reads (the capacity of `exchange_href`).
pub const CONCORDIA_CONSENSUS_MAX_URL: usize = 512;
const _: () = assert!(CONCORDIA_CONSENSUS_MAX_URL == MAX_URL);

/// A room action (`action` of a command).
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum concordia_consensus_action {
    /// Advisory comment (needs a body).
    CONCORDIA_CONSENSUS_COMMENT = 0,
    /// Advisory question (needs a body).
    CONCORDIA_CONSENSUS_QUESTION = 1,
    /// Advisory change request (needs a body).
    CONCORDIA_CONSENSUS_CHANGE_REQUEST = 2,
    /// Terminal: agree to the revision (empty body).
    CONCORDIA_CONSENSUS_AGREE = 3,
    /// Terminal: disagree (empty body).
    CONCORDIA_CONSENSUS_DISAGREE = 4,
    /// Terminal: abstain (empty body).
    CONCORDIA_CONSENSUS_ABSTAIN = 5,
}

/// The outcome of a round.
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum concordia_consensus_outcome {
    /// No terminal condition yet.
    CONCORDIA_CONSENSUS_PENDING = 0,
    /// Every participant agreed to the same revision.
    CONCORDIA_CONSENSUS_REACHED = 1,
    /// A participant disagreed.
    CONCORDIA_CONSENSUS_DISAGREED = 2,
    /// A participant abstained.
    CONCORDIA_CONSENSUS_NO_CONSENSUS = 3,
    /// The deadline passed while the round was pending.
    CONCORDIA_CONSENSUS_EXPIRED = 4,
}

/// The kind of a room participant.
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum concordia_consensus_participant_kind {
    /// A human participant (a room needs at least one, the initiator).
    CONCORDIA_CONSENSUS_HUMAN = 0,
    /// An invited agent.
    CONCORDIA_CONSENSUS_AGENT = 1,
}

// The kinds' values are their index in the core's `ParticipantKind::ALL`.
const _: () = assert!(
    matches!(
        ParticipantKind::ALL[concordia_consensus_participant_kind::CONCORDIA_CONSENSUS_HUMAN as usize],
        ParticipantKind::Human
    ) && matches!(
        ParticipantKind::ALL[concordia_consensus_participant_kind::CONCORDIA_CONSENSUS_AGENT as usize],
        ParticipantKind::Agent
    )
);

fn action_in(v: u32) -> FfiResult<Action> {
    usize::try_from(v)
        .ok()
        .and_then(|i| Action::ALL.get(i).copied())
        .ok_or(Fail::Core(Error::InvalidArgument("unknown consensus action")))
}

fn action_out(a: Action) -> concordia_consensus_action {
    match a {
        Action::Comment => concordia_consensus_action::CONCORDIA_CONSENSUS_COMMENT,
        Action::Question => concordia_consensus_action::CONCORDIA_CONSENSUS_QUESTION,
        Action::ChangeRequest => concordia_consensus_action::CONCORDIA_CONSENSUS_CHANGE_REQUEST,
        Action::Agree => concordia_consensus_action::CONCORDIA_CONSENSUS_AGREE,
        Action::Disagree => concordia_consensus_action::CONCORDIA_CONSENSUS_DISAGREE,
        Action::Abstain => concordia_consensus_action::CONCORDIA_CONSENSUS_ABSTAIN,
    }
}

const OUTCOMES: [(Outcome, concordia_consensus_outcome); 5] = [
    (Outcome::Pending, concordia_consensus_outcome::CONCORDIA_CONSENSUS_PENDING),
    (Outcome::Reached, concordia_consensus_outcome::CONCORDIA_CONSENSUS_REACHED),
    (Outcome::Disagreed, concordia_consensus_outcome::CONCORDIA_CONSENSUS_DISAGREED),
    (Outcome::NoConsensus, concordia_consensus_outcome::CONCORDIA_CONSENSUS_NO_CONSENSUS),
    (Outcome::Expired, concordia_consensus_outcome::CONCORDIA_CONSENSUS_EXPIRED),
];

fn outcome_in(v: u32) -> FfiResult<Outcome> {
    OUTCOMES
        .iter()
        .find(|(_, c)| *c as u32 == v)
        .map(|(o, _)| *o)
        .ok_or(Fail::Core(Error::InvalidArgument("unknown consensus outcome")))
}

fn outcome_out(o: Outcome) -> FfiResult<concordia_consensus_outcome> {
    // `Outcome` is #[non_exhaustive]: an outcome a newer core adds is an internal error here.
    OUTCOMES.iter().find(|(x, _)| *x == o).map(|(_, c)| *c).ok_or(Fail::Code(concordia_result::CONCORDIA_INTERNAL))
}

fn hex_out(d: &Digest, out: &mut [u8], out_len: &mut usize) -> FfiResult {
    copy_out(d.to_hex().as_str().as_bytes(), out, out_len)
}

/// Parses a `canonicalRevision` JSON text as the venue (JavaScript) reads it: the RFC 8785
/// number domain.
fn with_revision<T>(input: &[u8], f: impl FnOnce(concordia_core::json::Value<'_>) -> Result<T, Error>) -> FfiResult<T> {
    let mut nodes = Nodes::new();
    let doc = nodes.parse_with(input, &Options::rfc8785())?;
    Ok(f(doc.root())?)
}

/// Writes the revision digest of `canonicalRevision` (the JSON text `json`, read with the
/// RFC 8785 number domain the venue uses) as 64 lowercase hex digits into `out`.
///
/// Returns a 2xx code for malformed JSON.
///
/// # Safety
/// `json` must be valid for `json_len` bytes of reads; `out` for `out_cap` bytes of
/// writes; `out_len` for one `size_t`.
#[no_mangle]
pub extern "C" fn concordia_consensus_revision_digest(
    json: *const u8,
    json_len: usize,
    out: *mut u8,
    out_cap: usize,
    out_len: *mut usize,
) -> concordia_result {
    guard(|| {
        let out_len = out_ref(out_len)?;
        *out_len = 0;
        let input = bytes_in(json, json_len)?;
        let out = bytes_out(out, out_cap)?;
        let d = with_revision(input, cdigest::revision_digest)?;
        hex_out(&d, out, out_len)
    })
}

/// Checks `canonicalRevision` (the JSON text `json`) against the venue's `revisionDigest`
/// `expected` (64 lowercase hex digits, or `sha256:` and those digits).
///
/// Returns CONCORDIA_DIGEST when it differs, CONCORDIA_ENCODING for a malformed
/// `expected`, a 2xx code for malformed JSON.
///
/// # Safety
/// `json` must be valid for `json_len` bytes of reads; `expected.ptr` for `expected.len`.
#[no_mangle]
pub extern "C" fn concordia_consensus_verify_revision(
    json: *const u8,
    json_len: usize,
    expected: concordia_str,
) -> concordia_result {
    guard(|| {
        let input = bytes_in(json, json_len)?;
        let expected = expected.text()?;
        with_revision(input, |v| cdigest::verify_revision(v, expected))?;
        Ok(())
    })
}

/// Writes the Markdown digest (SHA-256 over the exact bytes of `markdown`) as 64 lowercase
/// hex digits into `out`.
///
/// # Safety
/// `markdown` must be valid for `markdown_len` bytes of reads; `out` for `out_cap` bytes
/// of writes; `out_len` for one `size_t`.
#[no_mangle]
pub extern "C" fn concordia_consensus_markdown_digest(
    markdown: *const u8,
    markdown_len: usize,
    out: *mut u8,
    out_cap: usize,
    out_len: *mut usize,
) -> concordia_result {
    guard(|| {
        let out_len = out_ref(out_len)?;
        *out_len = 0;
        let input = bytes_in(markdown, markdown_len)?;
        let out = bytes_out(out, out_cap)?;
        hex_out(&cdigest::markdown_digest(input), out, out_len)
    })
}

/// Checks Markdown bytes against the venue's `markdownDigest` `expected` (64 lowercase hex
/// digits, optionally `sha256:`-prefixed).
///
/// Returns CONCORDIA_DIGEST when it differs, CONCORDIA_ENCODING for a malformed `expected`.
///
/// # Safety
/// `markdown` must be valid for `markdown_len` bytes of reads; `expected.ptr` for
/// `expected.len`.
#[no_mangle]
pub extern "C" fn concordia_consensus_verify_markdown(
    markdown: *const u8,
    markdown_len: usize,
    expected: concordia_str,
) -> concordia_result {
    guard(|| {
        let input = bytes_in(markdown, markdown_len)?;
        let expected = expected.text()?;
        cdigest::verify_markdown(input, expected)?;
        Ok(())
    })
}

/// What an invitation email holds, without its secrets (the fragment secret and the email
/// proof never cross the boundary). Each check is 1 when it passed, 0 when it failed.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct concordia_consensus_invitation {
    /// Both URLs use HTTPS.
    pub https: u8,
    /// Both URLs have exactly the given origin.
    pub origin: u8,
    /// No query string in either URL, no fragment in the exchange URL.
    pub no_query: u8,
    /// Envelope, invite-path and exchange-path UUIDs are identical.
    pub uuids: u8,
    /// The invite fragment is `secret=<valid base64url>`.
    pub secret: u8,
    /// Every check passed.
    pub valid: u8,
    /// The envelope `invitation_id` (a UUID, not NUL-terminated).
    pub invitation_id: [u8; CONCORDIA_CONSENSUS_INVITATION_ID_LEN],
    /// `agent_exchange.href`, `exchange_href_len` bytes; redacted (`?<redacted>`,
    /// `#<redacted>`) when it failed `no_query`, as its query or fragment may carry a secret.
    pub exchange_href: [u8; CONCORDIA_CONSENSUS_MAX_URL],
    /// Length of `exchange_href`.
    pub exchange_href_len: usize,
}

/// Reads the `CONSENSUS INVITATION V1` block of a plain-text email and checks it against
/// `origin` (NULL `ptr`: `https://consensus.md`). When the block parses, `*info` receives
/// the id, the exchange URL and every check, and the call returns CONCORDIA_OK when every
/// check passed, else the first failed check's code: CONCORDIA_BINDING (scheme, origin,
/// UUIDs), CONCORDIA_PRIVACY (a query string), CONCORDIA_ENCODING (the fragment secret).
///
/// Returns CONCORDIA_SCHEMA for missing markers or a block of the wrong shape, a 2xx code
/// for malformed JSON in the block, CONCORDIA_LIMIT_SIZE for an email over 256 KiB,
/// CONCORDIA_INVALID_ARGUMENT for a malformed `origin`; then `*info` is zeroed.
///
/// # Safety
/// `email` must be valid for `email_len` bytes of reads; `origin.ptr` NULL or valid for
/// `origin.len`; `info` valid for one write.
#[no_mangle]
pub extern "C" fn concordia_consensus_invitation_check(
    email: *const u8,
    email_len: usize,
    origin: concordia_str,
    info: *mut concordia_consensus_invitation,
) -> concordia_result {
    guard(|| {
        let info = out_ref(info)?;
        *info = concordia_consensus_invitation {
            https: 0,
            origin: 0,
            no_query: 0,
            uuids: 0,
            secret: 0,
            valid: 0,
            invitation_id: [0; CONCORDIA_CONSENSUS_INVITATION_ID_LEN],
            exchange_href: [0; CONCORDIA_CONSENSUS_MAX_URL],
            exchange_href_len: 0,
        };
        if email.is_null() {
            return Err(NULL);
        }
        let email = bytes_in(email, email_len)?;
        let origin = origin.opt_text()?;
        let checked = concordia_host::consensus::check_invitation(email, origin)?;
        let inv = &checked.invitation;
        let (id, href) = (inv.id().as_bytes(), inv.exchange_href().as_bytes());
        let id_dst = info.invitation_id.get_mut(..id.len()).ok_or(Fail::Code(concordia_result::CONCORDIA_INTERNAL))?;
        id_dst.copy_from_slice(id);
        let href_dst =
            info.exchange_href.get_mut(..href.len()).ok_or(Fail::Code(concordia_result::CONCORDIA_INTERNAL))?;
        href_dst.copy_from_slice(href);
        info.exchange_href_len = href.len();
        let c = inv.checks();
        info.https = c.https.into();
        info.origin = c.origin.into();
        info.no_query = c.no_query.into();
        info.uuids = c.uuids.into();
        info.secret = c.secret.into();
        info.valid = c.all().into();
        Ok(checked.strict().map(drop)?)
    })
}

/// A validated room command: what concordia_consensus_command_build and
/// concordia_consensus_command_parse report besides the wire body.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct concordia_consensus_command {
    /// The action.
    pub action: concordia_consensus_action,
    /// The revision number (1 to 2^53 - 1).
    pub revision: u64,
    /// The revision digest, 64 lowercase hex digits (normalized: no `sha256:` prefix).
    pub digest: [u8; CONCORDIA_CONSENSUS_DIGEST_HEX_LEN],
    /// The stable `Idempotency-Key` of this exact command (`cns1:` + 43 characters).
    pub idempotency_key: [u8; CONCORDIA_CONSENSUS_IDEMPOTENCY_KEY_LEN],
}

fn command_info(c: &Command<'_>) -> FfiResult<concordia_consensus_command> {
    let internal = Fail::Code(concordia_result::CONCORDIA_INTERNAL);
    let digest: [u8; CONCORDIA_CONSENSUS_DIGEST_HEX_LEN] =
        c.digest().as_str().as_bytes().try_into().map_err(|_| internal)?;
    let key = c.idempotency_key();
    let idempotency_key: [u8; CONCORDIA_CONSENSUS_IDEMPOTENCY_KEY_LEN] =
        key.as_str().as_bytes().try_into().map_err(|_| internal)?;
    Ok(concordia_consensus_command { action: action_out(c.action()), revision: c.revision(), digest, idempotency_key })
}

/// Builds and validates a room command and writes its wire body (canonical JSON
/// `{"action","body","digest","revision"}`) into `out`; `*info` (NULL: not wanted) receives
/// the action, revision, normalized digest and the command's `Idempotency-Key`.
///
/// `action` is a concordia_consensus_action; advisory actions need a `body` of 1 to 4000
/// characters, terminal ones an empty body (NULL `ptr` with length 0); `revision` is 1 to
/// 2^53 - 1; `digest` is 64 hex digits, optionally `sha256:`-prefixed.
///
/// Returns CONCORDIA_SCHEMA for a body or revision the action does not allow,
/// CONCORDIA_ENCODING for a malformed digest, CONCORDIA_INVALID_ARGUMENT for an unknown
/// action.
///
/// # Safety
/// Each text must be valid for its length; `info` NULL or valid for one write; `out` valid
/// for `out_cap` bytes of writes; `out_len` for one `size_t`.
#[no_mangle]
pub extern "C" fn concordia_consensus_command_build(
    action: u32,
    body: concordia_str,
    revision: u64,
    digest: concordia_str,
    info: *mut concordia_consensus_command,
    out: *mut u8,
    out_cap: usize,
    out_len: *mut usize,
) -> concordia_result {
    guard(|| {
        let out_len = out_ref(out_len)?;
        *out_len = 0;
        let out = bytes_out(out, out_cap)?;
        let (body, digest) = (body.text()?, digest.text()?);
        let cmd = Command::new(action_in(action)?, body, revision, digest)?;
        let meta = command_info(&cmd)?;
        if let Some(i) = opt_out(info) {
            *i = meta;
        }
        let wire = concordia_host::write_vec(256, |buf| cmd.wire_to_slice(buf))?;
        copy_out(&wire, out, out_len)
    })
}

/// Reads and validates a received wire body (exactly `action`, `body`, `revision`,
/// `digest`) and writes what it says into `*info`.
///
/// Returns CONCORDIA_SCHEMA for a member missing, extra or not allowed with its action, a
/// 2xx code for malformed JSON, CONCORDIA_ENCODING for a malformed digest.
///
/// # Safety
/// `wire` must be valid for `wire_len` bytes of reads; `info` for one write.
#[no_mangle]
pub extern "C" fn concordia_consensus_command_parse(
    wire: *const u8,
    wire_len: usize,
    info: *mut concordia_consensus_command,
) -> concordia_result {
    guard(|| {
        let info = out_ref(info)?;
        if wire.is_null() {
            return Err(NULL);
        }
        let wire = bytes_in(wire, wire_len)?;
        let mut nodes = vec![Node::EMPTY; 16];
        let cmd = Command::parse_wire(wire, &mut nodes)?;
        *info = command_info(&cmd)?;
        Ok(())
    })
}

/// A room (opaque): one locked revision, a deadline, a roster of 2 to 8 participants and
/// an append-only event log (800 events, so the per-participant limits always come
/// first). Create with concordia_consensus_room_new, release with
/// concordia_consensus_room_free.
///
/// Thread safety: not synchronized; use from one thread at a time (it may move between
/// threads).
pub struct concordia_consensus_room(Box<Room<FULL_CAPACITY>>);

/// One roster entry for concordia_consensus_room_new.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct concordia_consensus_participant {
    /// The participant id (1 to 64 bytes, no control characters, unique).
    pub id: concordia_str,
    /// A concordia_consensus_participant_kind value.
    pub kind: u32,
}

/// Creates a pending room for `revision` (>= 1) with `digest` (64 hex digits, optionally
/// `sha256:`-prefixed), closing at `deadline` (Unix seconds), with the `roster_count`
/// participants of `roster`. The new object is stored in `*out` (NULL on failure).
///
/// Returns CONCORDIA_SCHEMA for a roster outside 2..=8 participants, without a human, with
/// a bad or repeated id, or a revision of 0; CONCORDIA_ENCODING for a malformed digest;
/// CONCORDIA_INVALID_ARGUMENT for an unknown participant kind.
///
/// # Safety
/// `digest.ptr` must be valid for `digest.len` bytes; `roster` valid for `roster_count`
/// entries whose ids are valid for their lengths; `out` for one pointer write.
#[no_mangle]
pub extern "C" fn concordia_consensus_room_new(
    revision: u64,
    digest: concordia_str,
    deadline: i64,
    roster: *const concordia_consensus_participant,
    roster_count: usize,
    out: *mut *mut concordia_consensus_room,
) -> concordia_result {
    guard(|| {
        let out = out_ref(out)?;
        *out = std::ptr::null_mut();
        let digest = digest.text()?;
        let entries = slice_in(roster, roster_count)?;
        let mut members = Vec::with_capacity(entries.len());
        for p in entries {
            let kind = usize::try_from(p.kind).ok().and_then(|k| ParticipantKind::ALL.get(k));
            let kind = kind.ok_or(Fail::Core(Error::InvalidArgument("unknown participant kind")))?;
            members.push((p.id.text()?, kind.as_str()));
        }
        let room = concordia_host::consensus::new_room(revision, digest, Timestamp::from_unix(deadline), &members)?;
        handle_new(concordia_consensus_room(room), out);
        Ok(())
    })
}

/// A caller's room handle, to change.
fn room_mut<'a>(room: *mut concordia_consensus_room) -> FfiResult<&'a mut Room<FULL_CAPACITY>> {
    handle_mut(room).map(|r| &mut *r.0)
}

/// What concordia_consensus_room_apply did.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct concordia_consensus_applied {
    /// The venue's HTTP status: 201 a new event, 200 an exact replay; on a refusal 400
    /// (malformed key), 404 (unknown participant) or 409 (closed, expired, stale digest,
    /// duplicate decision, event limit, idempotency conflict, capacity).
    pub status: u32,
    /// Index of the new (or replayed) event in the log (0 on a refusal).
    pub event: usize,
    /// The outcome after the call.
    pub outcome: concordia_consensus_outcome,
}

/// Applies a command (its wire body `wire`) from `participant` at `now` (Unix seconds)
/// with the `Idempotency-Key` `key` (NULL `ptr`: the command's derived key), following the
/// room rules of the core. `*applied` receives the status and the outcome, on a refusal
/// too.
///
/// Returns CONCORDIA_OK for 201 and 200; a refusal's code: CONCORDIA_SCHEMA (400, a
/// malformed key or command), CONCORDIA_UNKNOWN_KEY (404), CONCORDIA_TRANSITION (409
/// closed or duplicate decision), CONCORDIA_TEMPORAL (409 expired), CONCORDIA_DIGEST (409
/// stale digest), CONCORDIA_BINDING (409 idempotency conflict), CONCORDIA_LIMIT_CAPACITY
/// (409 event limit); a 2xx code for malformed JSON. A refused command changes nothing.
///
/// # Safety
/// `room` must be a live room; `participant.ptr` and `key.ptr` valid for their lengths;
/// `wire` for `wire_len` bytes of reads; `applied` for one write.
#[no_mangle]
pub extern "C" fn concordia_consensus_room_apply(
    room: *mut concordia_consensus_room,
    participant: concordia_str,
    wire: *const u8,
    wire_len: usize,
    key: concordia_str,
    now: i64,
    applied: *mut concordia_consensus_applied,
) -> concordia_result {
    guard(|| {
        let applied = out_ref(applied)?;
        let room = room_mut(room)?;
        let now = Timestamp::from_unix(now);
        *applied = concordia_consensus_applied { status: 0, event: 0, outcome: outcome_out(room.outcome(now))? };
        if wire.is_null() {
            return Err(NULL);
        }
        let (participant, key) = (participant.text()?, key.opt_text()?);
        let wire = bytes_in(wire, wire_len)?;
        let a = concordia_host::consensus::apply_wire(room, participant, wire, key, now);
        *applied = concordia_consensus_applied {
            status: a.status.into(),
            event: a.event.unwrap_or(0),
            outcome: outcome_out(a.outcome)?,
        };
        Ok(a.result()?)
    })
}

/// Writes the outcome of the round as seen at `now` (Unix seconds) into `*outcome`,
/// without changing the room (a pending round at or past its deadline reads as expired).
///
/// # Safety
/// `room` must be a live room; `outcome` valid for one write.
#[no_mangle]
pub extern "C" fn concordia_consensus_room_outcome(
    room: *mut concordia_consensus_room,
    now: i64,
    outcome: *mut concordia_consensus_outcome,
) -> concordia_result {
    guard(|| {
        let outcome = out_ref(outcome)?;
        let room = room_mut(room)?;
        *outcome = outcome_out(room.outcome(Timestamp::from_unix(now)))?;
        Ok(())
    })
}

/// Releases a room. NULL is ignored.
///
/// # Safety
/// `room` must be NULL or a room from this library that has not been freed.
#[no_mangle]
pub extern "C" fn concordia_consensus_room_free(room: *mut concordia_consensus_room) {
    handle_free(room);
}

/// Writes the wire word of a concordia_consensus_outcome (`pending`, `reached`,
/// `disagreed`, `no_consensus`, `expired`) into `out`.
///
/// Returns CONCORDIA_INVALID_ARGUMENT for an unknown value.
///
/// # Safety
/// `out` must be valid for `out_cap` bytes of writes; `out_len` for one `size_t`.
#[no_mangle]
pub extern "C" fn concordia_consensus_outcome_name(
    outcome: u32,
    out: *mut u8,
    out_cap: usize,
    out_len: *mut usize,
) -> concordia_result {
    guard(|| {
        let out_len = out_ref(out_len)?;
        *out_len = 0;
        let out = bytes_out(out, out_cap)?;
        copy_out(outcome_in(outcome)?.as_str().as_bytes(), out, out_len)
    })
}

/// Verifies `CONSENSUS.md` bytes against its `Content-Digest` header (RFC 9530,
/// `sha-256=:<base64>:`), its `X-Consensus-SHA256` header (64 hex digits) and the round's
/// `outcome` (a concordia_consensus_outcome; only a reached round has an artifact).
///
/// Returns CONCORDIA_DIGEST when a header does not match the bytes or the headers differ,
/// CONCORDIA_TRANSITION for an outcome other than reached, CONCORDIA_ENCODING or
/// CONCORDIA_SCHEMA for a malformed header, CONCORDIA_INVALID_ARGUMENT for an unknown
/// outcome.
///
/// # Safety
/// `bytes` must be valid for `bytes_len` bytes of reads; each text for its length.
#[no_mangle]
pub extern "C" fn concordia_consensus_verify_artifact(
    bytes: *const u8,
    bytes_len: usize,
    content_digest: concordia_str,
    x_consensus_sha256: concordia_str,
    outcome: u32,
) -> concordia_result {
    guard(|| {
        let bytes = bytes_in(bytes, bytes_len)?;
        let (field, hex) = (content_digest.text()?, x_consensus_sha256.text()?);
        artifact::verify_artifact(bytes, field, hex, outcome_in(outcome)?)?;
        Ok(())
    })
}
