//! `concordia_rs.consensus`: the Consensus venue primitives of
//! `concordia_core::consensus`, as `concordia consensus ...` offers them: revision and
//! Markdown digests, the invitation block of an email (never showing its secret), room
//! commands with their `Idempotency-Key`, a room log replayed to its outcome
//! (`concordia_host::consensus::replay_room`) and `CONSENSUS.md` artifact verification.
//!
//! Conversion only: the rules are the core's, errors map through [`crate::errors`], and
//! the work on bytes runs with the GIL released.

use concordia_core::consensus::artifact;
use concordia_core::consensus::command::{Action, Command as CoreCommand};
use concordia_core::consensus::credential::Authorization;
use concordia_core::consensus::digest as cdigest;
use concordia_core::consensus::invitation::{ExchangeRequest, Invitation as CoreInvitation};
use concordia_core::consensus::{Outcome, DEFAULT_ORIGIN};
use concordia_core::json::{Node, Options};
use concordia_core::time::parse_datetime;
use concordia_core::Error;
use concordia_host::{write_vec, Nodes};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};

use crate::errors::{core, new_err, Exc};
use crate::input::{bytes_arg, doc_text, register_submodule, time_arg};

const MODULE: &str = "concordia_rs.consensus";

/// Parses revision text as the venue (JavaScript) reads it: RFC 8785's number domain.
fn with_revision<T: Send>(
    py: Python<'_>,
    revision: &Bound<'_, PyAny>,
    f: impl FnOnce(concordia_core::json::Value<'_>) -> concordia_core::Result<T> + Send,
) -> PyResult<T> {
    let text = doc_text(revision)?;
    core(py.detach(|| {
        let mut nodes = Nodes::new();
        let doc = nodes.parse_with(&text, &Options::rfc8785())?;
        f(doc.root())
    }))
}

/// `revision_digest(revision) -> str`: 64 lowercase hex of SHA-256 over the RFC 8785 form
/// of `canonicalRevision` (a dict or list, or its JSON text), as `concordia consensus
/// digest` prints it.
#[pyfunction]
fn revision_digest(py: Python<'_>, revision: &Bound<'_, PyAny>) -> PyResult<String> {
    with_revision(py, revision, |v| Ok(cdigest::revision_digest(v)?.to_hex().as_str().to_owned()))
}

/// `verify_revision(revision, expected) -> str`: checks a revision against the venue's
/// `revisionDigest` (64 hex, or `sha256:` and 64 hex); returns the digest. Raises
/// `DigestError` when it differs, `EncodingError` for a malformed `expected`.
#[pyfunction]
fn verify_revision(py: Python<'_>, revision: &Bound<'_, PyAny>, expected: &str) -> PyResult<String> {
    with_revision(py, revision, |v| Ok(cdigest::verify_revision(v, expected)?.to_hex().as_str().to_owned()))
}

/// `markdown_digest(markdown) -> str`: 64 lowercase hex of SHA-256 over the exact bytes
/// (a `str` is taken as UTF-8).
#[pyfunction]
fn markdown_digest(py: Python<'_>, markdown: &Bound<'_, PyAny>) -> PyResult<String> {
    let bytes = bytes_arg(markdown, "markdown")?;
    Ok(py.detach(|| cdigest::markdown_digest(&bytes).to_hex().as_str().to_owned()))
}

/// `verify_markdown(markdown, expected) -> str`: checks Markdown against the venue's
/// `markdownDigest`; returns the digest (`DigestError` when it differs).
#[pyfunction]
fn verify_markdown(py: Python<'_>, markdown: &Bound<'_, PyAny>, expected: &str) -> PyResult<String> {
    let bytes = bytes_arg(markdown, "markdown")?;
    core(py.detach(|| Ok(cdigest::verify_markdown(&bytes, expected)?.to_hex().as_str().to_owned())))
}

/// The `CONSENSUS INVITATION V1` block of an email. Its fragment secret and email proof
/// never appear in `repr` or `str`: only `exchange_request()` and `claim_body()` use
/// them, and only when every check passed.
#[pyclass(module = "concordia_rs.consensus", frozen)]
struct Invitation {
    inner: CoreInvitation,
}

#[pymethods]
impl Invitation {
    /// The envelope's `invitation_id` (a UUID).
    #[getter]
    fn invitation_id(&self) -> &str {
        self.inner.id()
    }
    /// `agent_exchange.href`; redacted (`?<redacted>`, `#<redacted>`) when it failed the
    /// `no_query` check, as its query or fragment may carry a secret.
    #[getter]
    fn exchange_href(&self) -> &str {
        self.inner.exchange_href()
    }
    /// Whether every check passed.
    #[getter]
    fn valid(&self) -> bool {
        self.inner.checks().all()
    }
    /// `{"https", "origin", "no_query", "uuids", "secret"}` to whether each check passed.
    #[getter]
    fn checks<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        for (name, ok) in self.inner.checks().named() {
            d.set_item(name, ok)?;
        }
        Ok(d)
    }
    /// The exchange request: `{"method": "POST", "url", "headers": {"Authorization",
    /// "Content-Type"}, "body": b"{}"}`. The `Authorization` value carries the fragment
    /// secret: send it, never log it. Raises the first failed check.
    fn exchange_request<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let req = core(self.inner.exchange_request())?;
        let auth = core(write_vec(req.authorization.value_len(), |b| req.authorization.write_value(b)))?;
        let headers = PyDict::new(py);
        headers.set_item(Authorization::NAME, String::from_utf8_lossy(&auth))?;
        headers.set_item("Content-Type", ExchangeRequest::CONTENT_TYPE)?;
        let d = PyDict::new(py);
        d.set_item("method", ExchangeRequest::METHOD)?;
        d.set_item("url", req.url)?;
        d.set_item("headers", headers)?;
        d.set_item("body", PyBytes::new(py, ExchangeRequest::BODY))?;
        Ok(d)
    }
    /// The claim request body `{"emailProof", "inbox", "runtimeEndpoint"}` (canonical JSON
    /// bytes; it carries the email proof). `runtime_endpoint` is empty or an `https` URL.
    /// Raises the first failed check.
    #[pyo3(signature = (inbox, runtime_endpoint = ""))]
    fn claim_body<'py>(&self, py: Python<'py>, inbox: &str, runtime_endpoint: &str) -> PyResult<Bound<'py, PyBytes>> {
        let proof = core(self.inner.email_proof())?;
        let out = core(write_vec(512, |b| proof.write_claim_body(inbox, runtime_endpoint, b)))?;
        Ok(PyBytes::new(py, &out))
    }
    fn __repr__(&self) -> String {
        format!(
            "Invitation(invitation_id={:?}, exchange_href={:?}, valid={})",
            self.inner.id(),
            self.inner.exchange_href(),
            if self.inner.checks().all() { "True" } else { "False" }
        )
    }
}

fn invitation(py: Python<'_>, email: &Bound<'_, PyAny>, origin: Option<&str>, strict: bool) -> PyResult<Invitation> {
    // The copy of the email (it holds the fragment secret and the email proof) is erased
    // when dropped; the core erases its own parse buffers.
    let bytes = concordia_host::zeroize::Zeroizing::new(bytes_arg(email, "email")?);
    let inner = core(py.detach(|| {
        let checked = concordia_host::consensus::check_invitation(&bytes, origin)?;
        if strict {
            checked.strict()
        } else {
            Ok(checked.invitation)
        }
    }))?;
    Ok(Invitation { inner })
}

/// `parse_invitation(email, *, origin=None) -> Invitation`: reads the invitation block of
/// a plain-text email (str or bytes) and runs its checks against `origin` (default
/// `https://consensus.md`); failed URL checks show in `checks` and `valid`, as
/// `concordia consensus invitation` prints them.
#[pyfunction]
#[pyo3(signature = (email, *, origin = None))]
fn parse_invitation(py: Python<'_>, email: &Bound<'_, PyAny>, origin: Option<&str>) -> PyResult<Invitation> {
    invitation(py, email, origin, false)
}

/// `validate_invitation(email, *, origin=None) -> Invitation`: as `parse_invitation`, but
/// raises the first failed check (`BindingError` for scheme, origin and UUIDs,
/// `PrivacyError` for a query string, `EncodingError` for the fragment secret).
#[pyfunction]
#[pyo3(signature = (email, *, origin = None))]
fn validate_invitation(py: Python<'_>, email: &Bound<'_, PyAny>, origin: Option<&str>) -> PyResult<Invitation> {
    invitation(py, email, origin, true)
}

/// A validated room command.
#[pyclass(module = "concordia_rs.consensus", frozen, get_all)]
struct Command {
    /// The action's wire word (`agree`, `comment`, ...).
    action: String,
    /// The body text (empty for terminal actions).
    body: String,
    /// The revision number.
    revision: u64,
    /// The revision digest, 64 lowercase hex.
    digest: String,
    /// The wire body: canonical JSON `{"action","body","digest","revision"}`.
    wire_body: String,
    /// The stable `Idempotency-Key` (`cns1:` and 43 base64url characters).
    idempotency_key: String,
}

#[pymethods]
impl Command {
    /// `{"body": <wire body>, "idempotency_key": key}`, as `concordia consensus command`
    /// prints it.
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        d.set_item("body", crate::input::loads(py, self.wire_body.as_bytes())?)?;
        d.set_item("idempotency_key", &self.idempotency_key)?;
        Ok(d)
    }
    fn __repr__(&self) -> String {
        format!(
            "Command(action={:?}, revision={}, digest={:?}, idempotency_key={:?})",
            self.action, self.revision, self.digest, self.idempotency_key
        )
    }
}

fn command_of(c: &CoreCommand<'_>) -> concordia_core::Result<Command> {
    let wire = write_vec(256, |buf| c.wire_to_slice(buf))?;
    Ok(Command {
        action: c.action().as_str().to_owned(),
        body: c.body_chars().collect(),
        revision: c.revision(),
        digest: c.digest().as_str().to_owned(),
        wire_body: String::from_utf8(wire).map_err(|_| Error::Encoding("wire body"))?,
        idempotency_key: c.idempotency_key().as_str().to_owned(),
    })
}

/// `build_command(action, body, revision, digest) -> Command`: a room command checked by
/// the core (advisory actions need a body of 1 to 4000 characters, terminal ones an empty
/// body; `revision` 1 to 2^53 - 1; `digest` 64 hex, optionally `sha256:`-prefixed).
#[pyfunction]
fn build_command(py: Python<'_>, action: &str, body: &str, revision: u64, digest: &str) -> PyResult<Command> {
    let action = Action::parse(action).map_err(|_| {
        let words: Vec<&str> = Action::ALL.iter().map(|a| a.as_str()).collect();
        new_err(
            Exc::InvalidArgument,
            format!("unknown action {action:?} (allowed: {})", words.join(", ")),
            Some("input"),
        )
    })?;
    core(py.detach(|| command_of(&CoreCommand::new(action, body, revision, digest)?)))
}

/// `parse_command(wire) -> Command`: reads a received wire body (a dict or its JSON text:
/// exactly `action`, `body`, `revision`, `digest`).
#[pyfunction]
fn parse_command(py: Python<'_>, wire: &Bound<'_, PyAny>) -> PyResult<Command> {
    let text = doc_text(wire)?;
    core(py.detach(|| {
        let mut nodes = vec![Node::EMPTY; 16];
        command_of(&CoreCommand::parse_wire(&text, &mut nodes)?)
    }))
}

/// A room log replayed to its outcome.
#[pyclass(module = "concordia_rs.consensus", frozen, get_all)]
struct RoomOutcome {
    /// The outcome word at `now`: `pending`, `reached`, `disagreed`, `no_consensus` or
    /// `expired`.
    outcome: String,
    /// Events the room accepted.
    accepted: usize,
    /// Events the room refused: `(index, status, reason, message)`, e.g.
    /// `(3, 409, "stale_digest", "409 stale_digest")`.
    refused: Vec<(usize, u16, String, String)>,
}

#[pymethods]
impl RoomOutcome {
    fn __repr__(&self) -> String {
        format!("RoomOutcome(outcome={:?}, accepted={}, refused={:?})", self.outcome, self.accepted, self.refused)
    }
}

/// `room_outcome(room, *, now=None) -> RoomOutcome`: loads a room document (`{revision,
/// digest, deadline, roster, events}`, a dict or its JSON text), runs each event through
/// the core's room model and reports the outcome at `now` (Unix seconds or a date-time
/// with offset; default the clock) with every refused event, as `concordia consensus
/// outcome` does.
#[pyfunction]
#[pyo3(signature = (room, *, now = None))]
fn room_outcome(py: Python<'_>, room: &Bound<'_, PyAny>, now: Option<&Bound<'_, PyAny>>) -> PyResult<RoomOutcome> {
    let now = time_arg(py, now, parse_datetime)?;
    let text = doc_text(room)?;
    core(py.detach(|| {
        let r = concordia_host::consensus::room_outcome(&text, now)?;
        Ok(RoomOutcome {
            outcome: r.outcome.as_str().to_owned(),
            accepted: r.accepted,
            refused: r.refused.iter().map(|(i, f)| (*i, f.status(), f.reason().to_owned(), f.to_string())).collect(),
        })
    }))
}

/// A live room (the venue's state machine): one locked revision, a deadline and a roster
/// of 2 to 8 participants, commands applied one by one as the venue does (`201` a new
/// event, `200` an exact replay, `400` / `404` / `409` refusals that change nothing).
#[pyclass(module = "concordia_rs.consensus")]
struct Room {
    inner: Box<concordia_core::consensus::room::Room<{ concordia_core::consensus::room::FULL_CAPACITY }>>,
}

#[pymethods]
impl Room {
    /// `Room(revision, digest, deadline, roster)`: `digest` 64 hex (optionally
    /// `sha256:`-prefixed), `deadline` Unix seconds or a date-time with offset, `roster`
    /// `(id, "human" | "agent")` pairs with at least one human.
    #[new]
    fn new(
        py: Python<'_>,
        revision: u64,
        digest: &str,
        deadline: &Bound<'_, PyAny>,
        roster: Vec<(String, String)>,
    ) -> PyResult<Self> {
        let deadline = time_arg(py, Some(deadline), parse_datetime)?;
        let members: Vec<(&str, &str)> = roster.iter().map(|(i, k)| (i.as_str(), k.as_str())).collect();
        Ok(Room { inner: core(concordia_host::consensus::new_room(revision, digest, deadline, &members))? })
    }

    /// `apply(participant, command, *, idempotency_key=None, now=None) -> dict`: applies a
    /// command (a `Command`, a wire body dict or its JSON text) from `participant` at `now`
    /// (default the clock); returns `{"status", "event", "outcome", "refused"}` where
    /// `refused` is `None` or the refusal (`"409 stale_digest"`), as the venue answers.
    #[pyo3(signature = (participant, command, *, idempotency_key = None, now = None))]
    fn apply<'py>(
        &mut self,
        py: Python<'py>,
        participant: &str,
        command: &Bound<'py, PyAny>,
        idempotency_key: Option<&str>,
        now: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyDict>> {
        let now = time_arg(py, now, parse_datetime)?;
        let wire = match command.cast::<Command>() {
            Ok(c) => c.get().wire_body.clone().into_bytes(),
            Err(_) => doc_text(command)?,
        };
        let a = concordia_host::consensus::apply_wire(&mut self.inner, participant, &wire, idempotency_key, now);
        let d = PyDict::new(py);
        d.set_item("status", a.status)?;
        d.set_item("event", a.event)?;
        d.set_item("outcome", a.outcome.as_str())?;
        d.set_item("refused", a.refusal.map(|r| r.to_string()))?;
        Ok(d)
    }

    /// `outcome(now=None) -> str`: the round's outcome at `now` (a pending round at or past
    /// its deadline reads as `expired`), without changing the room.
    #[pyo3(signature = (now = None))]
    fn outcome(&self, py: Python<'_>, now: Option<&Bound<'_, PyAny>>) -> PyResult<&'static str> {
        Ok(self.inner.outcome(time_arg(py, now, parse_datetime)?).as_str())
    }

    /// Events in the log.
    fn __len__(&self) -> usize {
        self.inner.events().len()
    }

    fn __repr__(&self) -> String {
        format!("Room(revision={}, events={})", self.inner.revision(), self.inner.events().len())
    }
}

/// `verify_artifact(artifact, *, content_digest, x_consensus_sha256, outcome="reached")
/// -> str`: checks `CONSENSUS.md` bytes against its `Content-Digest` (RFC 9530,
/// `sha-256=:<base64>:`) and `X-Consensus-SHA256` headers and the round's outcome (only a
/// reached round has an artifact); returns the 64-hex digest.
#[pyfunction]
#[pyo3(signature = (artifact, *, content_digest, x_consensus_sha256, outcome = "reached"))]
fn verify_artifact(
    py: Python<'_>,
    artifact: &Bound<'_, PyAny>,
    content_digest: &str,
    x_consensus_sha256: &str,
    outcome: &str,
) -> PyResult<String> {
    let outcome = Outcome::parse(outcome).map_err(|_| {
        new_err(
            Exc::InvalidArgument,
            format!("unknown outcome {outcome:?} (allowed: {})", outcome_words().join(", ")),
            Some("input"),
        )
    })?;
    let bytes = bytes_arg(artifact, "artifact")?;
    core(py.detach(|| {
        Ok(artifact::verify_artifact(&bytes, content_digest, x_consensus_sha256, outcome)?.to_hex().as_str().to_owned())
    }))
}

fn outcome_words() -> [&'static str; 5] {
    Outcome::ALL.map(Outcome::as_str)
}

/// Builds `concordia_rs.consensus` and registers it.
pub fn register(parent: &Bound<'_, PyModule>) -> PyResult<()> {
    let m = PyModule::new(parent.py(), MODULE)?;
    m.add("DEFAULT_ORIGIN", DEFAULT_ORIGIN)?;
    m.add("ACTIONS", Action::ALL.iter().map(|a| a.as_str()).collect::<Vec<_>>())?;
    m.add("OUTCOMES", outcome_words().to_vec())?;
    m.add_class::<Invitation>()?;
    m.add_class::<Command>()?;
    m.add_class::<RoomOutcome>()?;
    m.add_class::<Room>()?;
    m.add_function(wrap_pyfunction!(revision_digest, &m)?)?;
    m.add_function(wrap_pyfunction!(verify_revision, &m)?)?;
    m.add_function(wrap_pyfunction!(markdown_digest, &m)?)?;
    m.add_function(wrap_pyfunction!(verify_markdown, &m)?)?;
    m.add_function(wrap_pyfunction!(parse_invitation, &m)?)?;
    m.add_function(wrap_pyfunction!(validate_invitation, &m)?)?;
    m.add_function(wrap_pyfunction!(build_command, &m)?)?;
    m.add_function(wrap_pyfunction!(parse_command, &m)?)?;
    m.add_function(wrap_pyfunction!(room_outcome, &m)?)?;
    m.add_function(wrap_pyfunction!(verify_artifact, &m)?)?;
    register_submodule(parent, &m, "consensus")
}
