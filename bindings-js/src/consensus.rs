//! Consensus venue primitives (`concordia_core::consensus`): revision and Markdown
//! digests, the invitation summary (never a secret), room commands with their
//! `Idempotency-Key`, and `CONSENSUS.md` artifact verification. Actions and outcomes are
//! the venue's wire words (`agree`, `change_request`, `reached`, `no_consensus`, ...).

use concordia_core::consensus::artifact;
use concordia_core::consensus::command::{Action, Command};
use concordia_core::consensus::digest as cdigest;
use concordia_core::consensus::room::{Room, FULL_CAPACITY};
use concordia_core::consensus::Outcome;
use concordia_core::json::{Node, Options};
use concordia_host::consensus::{apply_wire, check_invitation, new_room, room_outcome};
use wasm_bindgen::prelude::*;

use crate::errors::JsResult;
use crate::util::{elements, string, timestamp, utf8, whole, Obj};

fn with_revision(json: &str, f: impl FnOnce(concordia_core::json::Value<'_>) -> JsResult<String>) -> JsResult<String> {
    let mut nodes = concordia_host::Nodes::new();
    // RFC 8785's number domain, as the venue (JavaScript) reads it.
    let doc = nodes.parse_with(json.as_bytes(), &Options::rfc8785())?;
    f(doc.root())
}

/// The revision digest (64 lowercase hex) of `canonicalRevision` given as JSON text.
///
/// # Errors
/// `InputError` for malformed JSON.
#[wasm_bindgen(js_name = consensusRevisionDigest)]
pub fn consensus_revision_digest(canonical_revision_json: &str) -> JsResult<String> {
    with_revision(canonical_revision_json, |v| Ok(cdigest::revision_digest(v)?.to_hex().as_str().to_string()))
}

/// Checks `canonicalRevision` against the venue's `revisionDigest` (64 lowercase hex, or
/// `sha256:` and those digits); returns the digest.
///
/// # Errors
/// `DigestError` when it differs, `InputError` for malformed input.
#[wasm_bindgen(js_name = consensusVerifyRevision)]
pub fn consensus_verify_revision(canonical_revision_json: &str, expected: &str) -> JsResult<String> {
    with_revision(canonical_revision_json, |v| Ok(cdigest::verify_revision(v, expected)?.to_hex().as_str().to_string()))
}

/// The Markdown digest: 64 lowercase hex of SHA-256 over the exact UTF-8 bytes.
#[wasm_bindgen(js_name = consensusMarkdownDigest)]
pub fn consensus_markdown_digest(markdown: &str) -> String {
    cdigest::markdown_digest(markdown.as_bytes()).to_hex().as_str().to_string()
}

/// Checks Markdown against the venue's `markdownDigest`; returns the digest.
///
/// # Errors
/// `DigestError` when it differs, `InputError` for a malformed digest.
#[wasm_bindgen(js_name = consensusVerifyMarkdown)]
pub fn consensus_verify_markdown(markdown: &str, expected: &str) -> JsResult<String> {
    Ok(cdigest::verify_markdown(markdown.as_bytes(), expected)?.to_hex().as_str().to_string())
}

fn summary(email: String, origin: Option<String>, strict: bool) -> JsResult<JsValue> {
    // The copy of the email (it holds the fragment secret and the email proof) is erased
    // when dropped; the core erases its own parse buffers.
    let email = concordia_host::zeroize::Zeroizing::new(email);
    let checked = check_invitation(email.as_bytes(), origin.as_deref())?;
    let inv = if strict { checked.strict()? } else { checked.invitation };
    let c = inv.checks();
    let checks = Obj::new()
        .set("https", c.https)
        .set("origin", c.origin)
        .set("noQuery", c.no_query)
        .set("uuids", c.uuids)
        .set("secret", c.secret);
    Ok(Obj::new()
        .set("invitationId", inv.id())
        .set("exchangeHref", inv.exchange_href())
        .set("checks", checks.build())
        .set("valid", c.all())
        .build())
}

/// Reads the `CONSENSUS INVITATION V1` block of a plain-text email and reports its checks
/// against `origin` (default `https://consensus.md`): `{invitationId, exchangeHref,
/// checks: {https, origin, noQuery, uuids, secret}, valid}`. The fragment secret and the
/// email proof never cross the boundary; an `exchangeHref` that failed `noQuery` is
/// redacted (`?<redacted>`, `#<redacted>`). Failed URL checks are in the summary, not errors.
///
/// # Errors
/// `SchemaError` without the block, `LimitError` for an oversized email, `InputError` for
/// a malformed origin.
#[wasm_bindgen(js_name = consensusParseInvitation)]
pub fn consensus_parse_invitation(email: String, origin: Option<String>) -> JsResult<JsValue> {
    summary(email, origin, false)
}

/// As `consensus_parse_invitation`, but fails with the first failed check (`BindingError`
/// for scheme, origin and UUIDs, `PrivacyError` for a query string, `InputError` for the
/// fragment secret).
///
/// # Errors
/// As described.
#[wasm_bindgen(js_name = consensusValidateInvitation)]
pub fn consensus_validate_invitation(email: String, origin: Option<String>) -> JsResult<JsValue> {
    summary(email, origin, true)
}

fn command(c: &Command<'_>) -> JsResult<JsValue> {
    let wire = concordia_host::write_vec(256, |buf| c.wire_to_slice(buf))?;
    #[allow(clippy::cast_precision_loss)] // revisions are at most 2^53 - 1
    Ok(Obj::new()
        .set("action", c.action().as_str())
        .set("revision", c.revision() as f64)
        .set("wireBody", utf8(wire))
        .set("idempotencyKey", c.idempotency_key().as_str())
        .build())
}

/// Builds and validates a room command: `{action, revision, wireBody, idempotencyKey}`.
/// Advisory actions (`comment`, `question`, `change_request`) need a body of 1 to 4000
/// characters, terminal ones (`agree`, `disagree`, `abstain`) an empty body; `revision` is
/// 1 to 2^53 - 1; `digest` is 64 hex digits, optionally `sha256:`-prefixed.
///
/// # Errors
/// `SchemaError` for an unknown action, a body or revision that does not suit,
/// `InputError` for a malformed digest.
#[wasm_bindgen(js_name = consensusBuildCommand)]
pub fn consensus_build_command(action: &str, body: &str, revision: f64, digest: &str) -> JsResult<JsValue> {
    let action = Action::parse(action)?;
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)] // checked by `whole`
    let revision =
        whole(&JsValue::from_f64(revision), 9_007_199_254_740_991.0, "revision must be a whole number")? as u64;
    command(&Command::new(action, body, revision, digest)?)
}

/// Reads and validates a received wire body (exactly `action`, `body`, `revision`,
/// `digest`).
///
/// # Errors
/// `SchemaError` for a body of another shape, `LimitError` for an oversized one.
#[wasm_bindgen(js_name = consensusParseCommand)]
pub fn consensus_parse_command(wire_json: &str) -> JsResult<JsValue> {
    let mut nodes = vec![Node::EMPTY; 16];
    command(&Command::parse_wire(wire_json.as_bytes(), &mut nodes)?)
}

/// Verifies `CONSENSUS.md` bytes against its `Content-Digest` (RFC 9530) and
/// `X-Consensus-SHA256` headers and the round's outcome (`pending`, `reached`,
/// `disagreed`, `no_consensus`, `expired`; only `reached` has an artifact); returns the
/// 64-hex digest.
///
/// # Errors
/// `DigestError`, `TransitionError`, `SchemaError` or `InputError`.
#[wasm_bindgen(js_name = consensusVerifyArtifact)]
pub fn consensus_verify_artifact(
    bytes: &[u8],
    content_digest: &str,
    x_consensus_sha256: &str,
    outcome: &str,
) -> JsResult<String> {
    let outcome = Outcome::parse(outcome)?;
    Ok(artifact::verify_artifact(bytes, content_digest, x_consensus_sha256, outcome)?.to_hex().as_str().to_string())
}

/// Loads a room document (`{revision, digest, deadline, roster, events}` JSON text), runs
/// each event through the core's room model (`concordia_host::consensus::room_outcome`) and
/// reports `{outcome, accepted, refused: [{index, status, reason, message}]}` at `now`, as
/// `concordia consensus outcome` does.
///
/// # Errors
/// `SchemaError` / `InputError` for a document that does not load.
#[wasm_bindgen(js_name = consensusRoomOutcome)]
pub fn consensus_room_outcome(room_json: &str, now: &JsValue) -> JsResult<JsValue> {
    let r = room_outcome(room_json.as_bytes(), timestamp(now)?)?;
    let refused: js_sys::Array = r
        .refused
        .iter()
        .map(|(i, f)| {
            #[allow(clippy::cast_precision_loss)]
            Obj::new()
                .set("index", *i as f64)
                .set("status", f.status())
                .set("reason", f.reason())
                .set("message", f.to_string())
                .build()
        })
        .collect();
    #[allow(clippy::cast_precision_loss)]
    Ok(Obj::new().set("outcome", r.outcome.as_str()).set("accepted", r.accepted as f64).set("refused", refused).build())
}

/// A live room, the venue's state machine (`concordia_core::consensus::room::Room`, through
/// `concordia_host::consensus::{new_room, apply_wire}` as every surface): one locked
/// revision, a deadline, a roster of 2 to 8 participants, commands applied one by one.
#[wasm_bindgen]
pub struct ConsensusRoom {
    inner: Box<Room<FULL_CAPACITY>>,
}

#[wasm_bindgen]
impl ConsensusRoom {
    /// A pending room for `revision` (a whole number >= 1) with `digest` (64 hex,
    /// optionally `sha256:`-prefixed), closing at `deadline` (a `Date`), with `roster`
    /// (`[{id, kind: "human" | "agent"}]`).
    ///
    /// # Errors
    /// `InputError` for a malformed argument, `SchemaError` / `LimitError` for a roster the
    /// room refuses (no human, a repeated id, more than 8 participants).
    #[wasm_bindgen(constructor)]
    pub fn new(revision: f64, digest: &str, deadline: &JsValue, roster: &JsValue) -> JsResult<ConsensusRoom> {
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)] // checked by `whole`
        let revision =
            whole(&JsValue::from_f64(revision), 9_007_199_254_740_991.0, "revision must be a whole number")? as u64;
        let what = "a roster entry is {id, kind: \"human\" | \"agent\"}";
        let entries: Vec<(String, String)> = elements(roster, "roster must be an array")?
            .iter()
            .map(|p| Ok((string(p, "id", what)?, string(p, "kind", what)?)))
            .collect::<JsResult<_>>()?;
        let members: Vec<(&str, &str)> = entries.iter().map(|(id, kind)| (id.as_str(), kind.as_str())).collect();
        Ok(ConsensusRoom { inner: new_room(revision, digest, timestamp(deadline)?, &members)? })
    }

    /// Applies a command's wire body (from `consensusBuildCommand`) from `participant` at
    /// `now` with its `Idempotency-Key` (`undefined`: the command's derived key), as the
    /// venue answers: `{status, event, outcome, refused}` — 201 a new event, 200 an exact
    /// replay (with the event's index), or a 400/404/409 refusal (`event` undefined,
    /// `refused` its text, e.g. `409 stale_digest`), which changes nothing.
    ///
    /// # Errors
    /// `InputError` for a malformed `now`.
    pub fn apply(
        &mut self,
        participant: &str,
        wire_json: &str,
        idempotency_key: Option<String>,
        now: &JsValue,
    ) -> JsResult<JsValue> {
        let a =
            apply_wire(&mut self.inner, participant, wire_json.as_bytes(), idempotency_key.as_deref(), timestamp(now)?);
        let o = Obj::new().set("status", a.status);
        #[allow(clippy::cast_precision_loss)]
        let o = match (a.event, a.refusal) {
            (Some(e), _) => o.set("event", e as f64),
            (None, Some(r)) => o.set("refused", r.to_string()),
            (None, None) => o,
        };
        Ok(o.set("outcome", a.outcome.as_str()).build())
    }

    /// The outcome at `now` (a pending round at or past its deadline reads as `expired`).
    ///
    /// # Errors
    /// `InputError` for a malformed `now`.
    pub fn outcome(&self, now: &JsValue) -> JsResult<String> {
        Ok(self.inner.outcome(timestamp(now)?).as_str().to_string())
    }

    /// Events in the log.
    #[wasm_bindgen(js_name = eventCount)]
    #[allow(clippy::cast_precision_loss)]
    pub fn event_count(&self) -> f64 {
        self.inner.events().len() as f64
    }
}
