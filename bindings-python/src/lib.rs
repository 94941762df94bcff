//! # concordia-py
//!
//! The native module `concordia_rs._native` of the `concordia-rs` wheel: the reference
//! SDK's hot functions (canonical JSON, hashing, signing, verification, chains) and the
//! core's session, attestation, profile and transcript checks, for CPython 3.10+ (abi3).
//!
//! No protocol logic lives here: Python values are converted to canonical JSON by
//! [`canon`] (with the core's string, number and key-order rules), and everything else is
//! a call into `concordia-core`. Errors map onto Python through the one conversion in
//! [`errors`].
#![deny(clippy::undocumented_unsafe_blocks)]

use std::cell::RefCell;
use std::sync::{Mutex, PoisonError, TryLockError};

use concordia_core::attestation::{self, Params, SetBinding, Validity};
use concordia_core::digest::{self, Digest};
use concordia_core::json::{Options, Str, Value};
use concordia_core::message::{self, Checked, KeyResolver, GENESIS_HASH};
use concordia_core::preimage::{Countersign, Whole, WithoutSignature};
use concordia_core::profiles::{self, Profile, VerifyOptions};
use concordia_core::session::{self as core_session, Role, State, Timing};
use concordia_core::sign::{self, PublicKey as CorePublicKey, Signature};
use concordia_core::time::Timestamp;
use concordia_core::{jcs, Error};
use pyo3::exceptions::{PyAttributeError, PyTypeError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList, PyString};

pub mod aip;
pub mod aip_replay;
pub mod bench;
pub mod canon;
pub mod consensus;
pub mod errors;
pub mod es256;
pub mod input;
pub mod keys;
pub mod random;

use concordia_host::{par, write_vec, KeyMap, Nodes, VecRefSink};
use errors::{core, new_err, CoreError, Exc};
use keys::{key_pair_of, public_key_of, KeyPair, PublicKey};

/// Parses `bytes` into this thread's node buffer (the host layer's `Nodes`, sized to
/// the text), then runs `f`.
fn with_doc<T>(bytes: &[u8], options: &Options, f: impl FnOnce(Value<'_>) -> PyResult<T>) -> PyResult<T> {
    thread_local! {
        static NODES: RefCell<Nodes> = const { RefCell::new(Nodes::new()) };
    }
    // Taken out for the call: a nested `with_doc` (from `f`) gets a buffer of its own.
    let mut nodes = NODES.with(|n| n.take());
    let r = match nodes.parse_with(bytes, options) {
        Ok(doc) => f(doc.root()),
        Err(e) => Err(CoreError(e).into()),
    };
    nodes.shrink_to(1 << 20);
    NODES.with(|n| n.replace(nodes));
    r
}

/// JSON text of a Python argument: `bytes`/`str` are taken as JSON text, anything else is
/// canonicalized. Either way it is then read with the core's one policy (`Options::default()`).
fn json_text(obj: &Bound<'_, PyAny>) -> PyResult<Vec<u8>> {
    if let Ok(b) = obj.cast::<PyBytes>() {
        return Ok(b.as_bytes().to_vec());
    }
    if let Ok(s) = obj.cast::<PyString>() {
        return Ok(s.to_cow()?.as_bytes().to_vec());
    }
    canon::to_vec(obj, &Whole)
}

fn require_items(data: &Bound<'_, PyAny>) -> PyResult<()> {
    if data.cast::<PyDict>().is_ok() || data.hasattr("items")? {
        return Ok(());
    }
    Err(PyAttributeError::new_err(format!(
        "'{}' object has no attribute 'items'",
        data.get_type().name().map(|n| n.to_string()).unwrap_or_default()
    )))
}

/// `canonical_json(data) -> bytes`: RFC 8785 canonical JSON of a Python value.
#[pyfunction]
fn canonical_json<'py>(py: Python<'py>, data: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyBytes>> {
    canon::with_canonical(data, &Whole, |out| Ok(PyBytes::new(py, out)))
}

/// `canonicalize_jcs(data) -> bytes`: the same serializer under its RFC name.
#[pyfunction]
fn canonicalize_jcs<'py>(py: Python<'py>, data: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyBytes>> {
    canonical_json(py, data)
}

/// `compute_hash(message) -> "sha256:<hex>"` over the canonical form.
#[pyfunction]
fn compute_hash(message: &Bound<'_, PyAny>) -> PyResult<String> {
    canon::with_canonical(message, &Whole, |out| Ok(digest::sha256(out).to_prefixed().as_str().to_owned()))
}

/// `sign_message(data, key_pair, alg="EdDSA") -> str`: the padded base64url signature over
/// the canonical form of `data` without its top-level `signature`: Ed25519 (64 bytes), or
/// with `alg="ES256"` ECDSA P-256 (DER, low S, RFC 6979), as the SDK's `sign_message`.
#[pyfunction]
#[pyo3(signature = (data, key_pair, alg = "EdDSA"))]
fn sign_message(data: &Bound<'_, PyAny>, key_pair: &Bound<'_, PyAny>, alg: &str) -> PyResult<String> {
    require_items(data)?;
    let alg = sign::Alg::from_name(alg)
        .map_err(|_| new_err(Exc::InvalidArgument, format!("Unsupported algorithm: {alg}"), Some("input")))?;
    match alg {
        sign::Alg::EdDsa => {
            let kp = key_pair_of(key_pair)?;
            canon::with_canonical(data, &WithoutSignature, |pre| Ok(kp.sign(pre).to_b64url().as_str().to_owned()))
        }
        sign::Alg::Es256 => {
            let kp = es256::key_pair_of(key_pair)?;
            canon::with_canonical(data, &WithoutSignature, |pre| Ok(kp.sign(pre).to_b64url().as_str().to_owned()))
        }
    }
}

/// An SDK `AgentIdentity.to_dict()`: a mapping of `agent_id` and optionally
/// `principal_id`, both str, and nothing else (what the core's envelope `Party` writes).
fn party_fields(obj: &Bound<'_, PyAny>, what: &str) -> PyResult<(String, Option<String>)> {
    let bad = || {
        new_err(
            Exc::InvalidArgument,
            format!("{what} must be {{\"agent_id\": str, \"principal_id\": str}} (principal_id optional)"),
            Some("input"),
        )
    };
    let mut agent_id = None;
    let mut principal_id = None;
    for item in obj.call_method0("items")?.try_iter()? {
        let (k, v): (String, Bound<'_, PyAny>) = item?.extract().map_err(|_| bad())?;
        let v: String = v.extract().map_err(|_| bad())?;
        match k.as_str() {
            "agent_id" => agent_id = Some(v),
            "principal_id" => principal_id = Some(v),
            _ => return Err(bad()),
        }
    }
    Ok((agent_id.ok_or_else(bad)?, principal_id))
}

/// `sign_envelope(*, message_type, message_id, session_id, timestamp, sender, body, key_pair,
/// prev_hash, recipients=None, in_reply_to=None, reasoning=None, ttl=None) -> str`: the
/// signature of a message envelope, written and signed by the core's
/// `message::Envelope`, so that its field rules (a `prev_hash` digest, parties of
/// `agent_id` and `principal_id`, a `ttl` from 0 to 2^53 - 1, the body's depth and
/// numbers) are the core's. `build_envelope` puts it on the dict it builds member for member
/// as the SDK does.
#[pyfunction]
#[pyo3(signature = (*, message_type, message_id, session_id, timestamp, sender, body, key_pair, prev_hash, recipients = None, in_reply_to = None, reasoning = None, ttl = None))]
#[allow(clippy::too_many_arguments)]
fn sign_envelope(
    message_type: &str,
    message_id: &str,
    session_id: &str,
    timestamp: &str,
    sender: &Bound<'_, PyAny>,
    body: &Bound<'_, PyAny>,
    key_pair: &Bound<'_, PyAny>,
    prev_hash: &str,
    recipients: Option<&Bound<'_, PyAny>>,
    in_reply_to: Option<&str>,
    reasoning: Option<&str>,
    ttl: Option<&Bound<'_, PyAny>>,
) -> PyResult<String> {
    let ttl = match ttl.filter(|t| !t.is_none()) {
        None => None,
        Some(t) => {
            let bad = || new_err(Exc::InvalidArgument, "ttl must be an integer from 0 to 2^53 - 1", Some("input"));
            if t.cast::<pyo3::types::PyBool>().is_ok() || t.cast::<pyo3::types::PyInt>().is_err() {
                return Err(bad());
            }
            Some(t.extract::<u64>().map_err(|_| bad())?)
        }
    };
    let kp = key_pair_of(key_pair)?;
    let prev = core(digest::Digest::parse_prefixed(prev_hash))?;
    let from = party_fields(sender, "sender")?;
    let mut to_fields = Vec::new();
    if let Some(rs) = recipients.filter(|r| !r.is_none()) {
        for r in rs.try_iter()? {
            to_fields.push(party_fields(&r?, "a recipient")?);
        }
    }
    fn party((a, p): &(String, Option<String>)) -> message::Party<'_> {
        message::Party { agent_id: a, principal_id: p.as_deref() }
    }
    let to: Vec<message::Party<'_>> = to_fields.iter().map(party).collect();
    let body_text = canon::to_vec(body, &Whole)?;
    let mut body_nodes = Nodes::new();
    let body_doc = core(body_nodes.parse(&body_text))?;
    let mut env =
        message::Envelope::new(message_type, message_id, session_id, timestamp, party(&from), body_doc.root());
    env.prev_hash = prev;
    env.to = &to;
    env.in_reply_to = in_reply_to;
    env.reasoning = reasoning;
    env.ttl = ttl;
    let out = core(write_vec(body_text.len() + 1024, |buf| env.write_signed(&kp, buf)))?;
    let mut nodes = Nodes::new();
    let signed = core(nodes.parse(&out))?;
    signed
        .root()
        .get("signature")
        .and_then(|s| s.as_plain_str())
        .map(str::to_owned)
        .ok_or_else(|| new_err(Exc::Concordia, "the core's envelope has no signature", None))
}

/// `verify_signature(data, signature, public_key, alg="EdDSA") -> bool`; never raises for
/// bad input (as the SDK), only for a `data` without `items()`. With `alg="ES256"` the key
/// is an ES256 one (`ES256PublicKey`, a `cryptography` P-256 key, X9.62 bytes or their
/// base64) and the signature the padded base64url of strict DER with low S.
#[pyfunction]
#[pyo3(signature = (data, signature, public_key, alg = "EdDSA"))]
fn verify_signature(
    data: &Bound<'_, PyAny>,
    signature: &Bound<'_, PyAny>,
    public_key: &Bound<'_, PyAny>,
    alg: &str,
) -> PyResult<bool> {
    require_items(data)?;
    let Ok(alg) = sign::Alg::from_name(alg) else { return Ok(false) };
    let text = if let Ok(s) = signature.cast::<PyString>() {
        match s.to_cow() {
            Ok(t) => t.into_owned(),
            Err(_) => return Ok(false),
        }
    } else if let Ok(b) = signature.cast::<PyBytes>() {
        match std::str::from_utf8(b.as_bytes()) {
            Ok(t) => t.to_owned(),
            Err(_) => return Ok(false),
        }
    } else {
        return Ok(false);
    };
    match alg {
        sign::Alg::EdDsa => {
            let Ok(Some(key)) = keys::prepared_key_of(public_key) else { return Ok(false) };
            let Ok(sig) = Signature::from_b64url(&text) else { return Ok(false) };
            // A key that is not a valid point fails here, after the data's own errors.
            Ok(canon::with_canonical(data, &WithoutSignature, |pre| {
                Ok(key.is_ok_and(|key| sign::verify_prepared(&key, pre, &sig).is_ok()))
            })
            .unwrap_or(false))
        }
        sign::Alg::Es256 => {
            let Ok(Some(pk)) = es256::public_key_of(public_key) else { return Ok(false) };
            let Ok(sig) = concordia_core::es256::Signature::from_b64url(&text) else { return Ok(false) };
            Ok(canon::with_canonical(data, &WithoutSignature, |pre| {
                Ok(concordia_core::es256::verify(&pk, pre, &sig).is_ok())
            })
            .unwrap_or(false))
        }
    }
}

/// `validate_chain(messages) -> bool`: each `prev_hash` is the hash of the message before
/// it, the first is the genesis hash: the core's chain identity
/// (`message::message_hash`) and link rule (`message::check_link`), in the SDK's
/// order (a message is canonicalized only when the next one's link needs its hash, after
/// its own link was checked; the last one never).
#[pyfunction]
fn validate_chain(messages: &Bound<'_, PyAny>) -> PyResult<bool> {
    if !messages.is_truthy()? {
        return Ok(true);
    }
    let n = messages.len()?;
    let mut expected = GENESIS_HASH;
    let mut text = Vec::with_capacity(1024);
    let mut nodes = Nodes::new();
    for i in 0..n {
        let m = messages.get_item(i)?;
        if i > 0 {
            text.clear();
            canon::write(&messages.get_item(i - 1)?, &Whole, &mut text)?;
            expected = message::message_hash(core(nodes.parse(&text))?.root());
        }
        let prev = m.call_method1("get", ("prev_hash",))?;
        if !links_to(&prev, &expected, &mut nodes)? {
            return Ok(false);
        }
    }
    Ok(true)
}

/// Whether a message's `prev_hash` (any Python value, as the SDK's `msg.get` returns it)
/// names `expected` by `message::check_link`. Only its own member is canonicalized, so a
/// message the SDK would not serialize here raises nothing here either.
fn links_to(prev: &Bound<'_, PyAny>, expected: &digest::Digest, nodes: &mut Nodes) -> PyResult<bool> {
    let Ok(prev) = prev.cast::<PyString>() else { return Ok(false) };
    let member = PyDict::new(prev.py());
    member.set_item("prev_hash", prev)?;
    // A str that is not UTF-8 (a lone surrogate) names no digest.
    let Ok(text) = canon::to_vec(member.as_any(), &Whole) else { return Ok(false) };
    let doc = core(nodes.parse(&text))?;
    Ok(message::check_link(doc.root(), expected).is_ok())
}

/// `countersign_attestation(attestation, key_pair) -> str`: the issuance countersignature
/// (every `signature` member and the top-level `countersignatures` left out).
#[pyfunction]
fn countersign_attestation(attestation: &Bound<'_, PyAny>, key_pair: &Bound<'_, PyAny>) -> PyResult<String> {
    let kp = key_pair_of(key_pair)?;
    let text = canon::to_vec(attestation, &Whole)?;
    with_doc(&text, &Options::default(), |root| {
        let mut out = Vec::with_capacity(text.len());
        core(jcs::write_with(root, &Countersign, &mut VecRefSink(&mut out)))?;
        Ok(kp.sign(&out).to_b64url().as_str().to_owned())
    })
}

/// JSON object text `{"agent_id": "<b64url>"}` from a mapping of agent ids to keys.
fn keys_json(public_keys: &Bound<'_, PyAny>) -> PyResult<Vec<u8>> {
    let d = PyDict::new(public_keys.py());
    let items = public_keys.call_method0("items")?;
    for item in items.try_iter()? {
        let (k, v): (Bound<'_, PyAny>, Bound<'_, PyAny>) = item?.extract()?;
        if let Some(pk) = public_key_of(&v)? {
            d.set_item(k, pk.to_b64url().as_str())?;
        }
    }
    canon::to_vec(d.as_any(), &Whole)
}

/// What `verify_attestation` found.
#[pyclass(module = "concordia_rs", frozen, get_all)]
#[derive(Clone)]
struct AttestationResult {
    /// Every check passed.
    valid: bool,
    /// Why not, empty when valid.
    errors: Vec<String>,
    /// Party signatures that verified.
    verified_parties: usize,
    /// Countersignatures that verified.
    countersignatures: usize,
    /// `bound`, `unchecked`, `legacy_set_unbound` or `error`.
    set_binding_state: String,
    /// The conformance reason class of the failure, if any.
    reason_class: Option<String>,
}

#[pymethods]
impl AttestationResult {
    fn __bool__(&self) -> bool {
        self.valid
    }
    fn __repr__(&self) -> String {
        format!(
            "AttestationResult(valid={}, errors={:?}, set_binding_state={:?})",
            self.valid, self.errors, self.set_binding_state
        )
    }
}

/// `verify_attestation(attestation, public_keys, transcript=None)`: schema, every party
/// signature, every countersignature and, with a transcript, the set binding. Fails closed:
/// returns a result with `valid=False` instead of raising.
#[pyfunction]
#[pyo3(signature = (attestation, public_keys, transcript = None))]
fn verify_attestation(
    attestation: &Bound<'_, PyAny>,
    public_keys: &Bound<'_, PyAny>,
    transcript: Option<&Bound<'_, PyAny>>,
) -> AttestationResult {
    let fail = |e: String, class: Option<String>| AttestationResult {
        valid: false,
        errors: vec![e],
        verified_parties: 0,
        countersignatures: 0,
        set_binding_state: "error".into(),
        reason_class: class,
    };
    type Texts = (Vec<u8>, Vec<u8>, Option<Vec<u8>>);
    let prepared = (|| -> PyResult<Texts> {
        let a = json_text(attestation)?;
        let k = keys_json(public_keys)?;
        let t = match transcript {
            Some(t) if !t.is_none() => Some(json_text(t)?),
            _ => None,
        };
        Ok((a, k, t))
    })();
    let (a, k, t) = match prepared {
        Ok(x) => x,
        Err(e) => return fail(format!("attestation verification failed closed: {e}"), Some("input".into())),
    };
    let opts = Options::default();
    let r: PyResult<Result<attestation::Verified, Error>> = with_doc(&a, &opts, |att| {
        let mut key_nodes = Nodes::new();
        let keys = core(key_nodes.parse_with(&k, &opts))?;
        match &t {
            None => Ok(attestation::verify(att, keys.root(), None)),
            Some(t) => {
                let mut t_nodes = Nodes::new();
                let tr = core(t_nodes.parse_with(t, &opts))?;
                Ok(attestation::verify(att, keys.root(), Some(tr.root())))
            }
        }
    });
    match r {
        Ok(Ok(v)) => AttestationResult {
            valid: true,
            errors: vec![],
            verified_parties: v.parties,
            countersignatures: v.countersignatures,
            set_binding_state: match v.binding {
                SetBinding::Bound => "bound",
                SetBinding::Unchecked => "unchecked",
                SetBinding::LegacyUnbound => "legacy_set_unbound",
            }
            .into(),
            reason_class: None,
        },
        Ok(Err(e)) => fail(e.to_string(), Some(e.class().as_str().into())),
        Err(e) => fail(format!("attestation verification failed closed: {e}"), Some("input".into())),
    }
}

/// `verify_profile(name, input, context)`: one of the 22 conformance profiles. `input` and
/// `context` are JSON text (`bytes`/`str`) or Python values. Returns `None` on accept and
/// raises the mapped error (with `reason_class`) on reject.
#[pyfunction]
#[pyo3(signature = (name, input, context, now = None))]
fn verify_profile(name: &str, input: &Bound<'_, PyAny>, context: &Bound<'_, PyAny>, now: Option<f64>) -> PyResult<()> {
    let profile = Profile::from_name(name)
        .ok_or_else(|| new_err(Exc::InvalidArgument, format!("unknown verification profile: {name}"), Some("input")))?;
    let i = json_text(input)?;
    let c = json_text(context)?;
    let mut vo = VerifyOptions::default();
    if let Some(t) = now {
        vo.now = Some(timestamp_of(t)?);
    }
    with_doc(&i, &Options::default(), |iv| {
        let mut c_nodes = Nodes::new();
        let cv = core(c_nodes.parse_with(&c, &Options::default()))?;
        core(profiles::verify_profile(profile, iv, cv.root(), &vo))
    })
}

/// The names of the 22 profiles.
#[pyfunction]
fn profile_names() -> Vec<&'static str> {
    Profile::ALL.iter().map(|p| p.name()).collect()
}

/// A Unix time in seconds as Python's `datetime.fromtimestamp` reads it: microseconds,
/// rounded half to even (so that durations match a `datetime` clock's exactly).
pub(crate) fn timestamp_of(t: f64) -> PyResult<Timestamp> {
    if !t.is_finite() || t.abs() >= 9.2e18 {
        return Err(new_err(Exc::InvalidArgument, "time must be finite", Some("input")));
    }
    let mut secs = t.trunc();
    let mut micros = ((t - secs) * 1e6).round_ties_even();
    if micros >= 1e6 {
        micros -= 1e6;
        secs += 1.0;
    } else if micros < 0.0 {
        micros += 1e6;
        secs -= 1.0;
    }
    core(Timestamp::from_unix_nanos(secs as i64, (micros as u32).min(999_999) * 1000))
}

pub(crate) fn now_ts(py: Python<'_>) -> PyResult<Timestamp> {
    let t: f64 = py.import("time")?.call_method0("time")?.extract()?;
    timestamp_of(t)
}

/// The host layer's `KeyMap` of a Python mapping of agent ids to keys (any key form),
/// read once.
pub(crate) fn owned_keys(public_keys: Option<&Bound<'_, PyAny>>) -> PyResult<KeyMap> {
    let mut map = KeyMap::default();
    if let Some(m) = public_keys.filter(|m| !m.is_none()) {
        for item in m.call_method0("items")?.try_iter()? {
            let (k, pk): (String, Bound<'_, PyAny>) = item?.extract()?;
            let key = public_key_of(&pk)?
                .ok_or_else(|| PyTypeError::new_err(format!("public key for {k:?} is not an Ed25519 key")))?;
            map.insert(&k, key);
        }
    }
    Ok(map)
}

/// Streaming transcript verification (prev_hash links, one session, every signature) in
/// constant memory.
///
/// Thread-safe: one verifier may be shared by threads. A message is parsed and checked on
/// its own (signature, hash) without a lock; only the step that links it to the chain
/// runs under the verifier's internal lock, which is never held while Python code runs
/// (a thread that has to wait for it waits with the GIL released). Concurrent pushes never
/// fail for being concurrent; the chain's order is the order in which they are accepted.
#[pyclass(module = "concordia_rs", frozen)]
struct TranscriptVerifier {
    state: Mutex<message::TranscriptVerifier>,
    keys: KeyMap,
}

/// One message checked on its own (`Checked::new`), or the error that kept it from
/// being read.
type CheckedText = Result<Checked, Error>;

fn check_text(nodes: &mut Nodes, text: &[u8], keys: &KeyMap) -> CheckedText {
    nodes.parse(text).map(|doc| Checked::new(doc.root(), keys))
}

impl TranscriptVerifier {
    /// Accepts `checked` in order under the lock; the count accepted and the head after
    /// them, or the first failure with its index.
    fn accept_all(&self, py: Python<'_>, checked: &[CheckedText]) -> Result<(usize, Digest), (usize, Error)> {
        let run = |state: &mut message::TranscriptVerifier| {
            for (i, c) in checked.iter().enumerate() {
                c.and_then(|c| state.accept(&c)).map_err(|e| (i, e))?;
            }
            Ok((checked.len(), state.head()))
        };
        match self.state.try_lock() {
            Ok(mut state) => run(&mut state),
            // The state is changed only after every check passed: a panic cannot leave it
            // half-changed, so a poisoned lock's state is sound.
            Err(TryLockError::Poisoned(p)) => run(&mut p.into_inner()),
            Err(TryLockError::WouldBlock) => {
                py.detach(|| run(&mut self.state.lock().unwrap_or_else(PoisonError::into_inner)))
            }
        }
    }

    fn snapshot(&self) -> message::TranscriptVerifier {
        *self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// The exception of a transcript failure, with `index` set.
fn indexed_error(py: Python<'_>, index: usize, e: Error) -> PyErr {
    let err = core::<()>(Err(e)).err().unwrap_or_else(|| new_err(Exc::Concordia, "transcript", None));
    let _ = err.value(py).setattr("index", index);
    err
}

#[pymethods]
impl TranscriptVerifier {
    /// `public_keys`: mapping of agent id to key (PublicKey, cryptography key, bytes or b64).
    #[new]
    #[pyo3(signature = (public_keys))]
    fn new(public_keys: &Bound<'_, PyAny>) -> PyResult<Self> {
        Ok(TranscriptVerifier {
            state: Mutex::new(message::TranscriptVerifier::new()),
            keys: owned_keys(Some(public_keys))?,
        })
    }

    /// Checks the next message (a dict, or JSON text) and returns its hash. A message that
    /// fails leaves the verifier unchanged.
    fn push(&self, py: Python<'_>, message: &Bound<'_, PyAny>) -> PyResult<String> {
        let text = json_text(message)?;
        let checked = with_doc(&text, &Options::default(), |v| Ok(Checked::new(v, &self.keys)))?;
        match self.accept_all(py, &[Ok(checked)]) {
            Ok((_, head)) => Ok(head.to_prefixed().as_str().to_owned()),
            Err((_, e)) => Err(CoreError(e).into()),
        }
    }

    /// Checks messages (dicts, or JSON text as `bytes`/`str`) in order and returns how many
    /// were accepted in this call. The signatures and hashes are checked with the GIL
    /// released on every core (order preserved), then the messages are linked in order.
    /// Stops at the first failure and raises it with `index` set (the messages before it
    /// stay accepted).
    fn push_many(&self, py: Python<'_>, messages: &Bound<'_, PyAny>) -> PyResult<usize> {
        let mut texts = Vec::new();
        let mut failed = None;
        for (i, m) in messages.try_iter()?.enumerate() {
            match m.and_then(|m| json_text(&m)) {
                Ok(t) => texts.push(t),
                Err(e) => {
                    let _ = e.value(py).setattr("index", i);
                    failed = Some(e);
                    break;
                }
            }
        }
        let keys = &self.keys;
        let checked = py.detach(|| par::map(&texts, |nodes: &mut Nodes, t| check_text(nodes, t, keys)));
        let (n, _) = self.accept_all(py, &checked).map_err(|(i, e)| indexed_error(py, i, e))?;
        match failed {
            Some(e) => Err(e),
            None => Ok(n),
        }
    }

    /// Messages accepted so far.
    #[getter]
    fn count(&self) -> u64 {
        self.snapshot().count()
    }

    /// Hash of the last accepted message (the genesis hash before the first).
    #[getter]
    fn head(&self) -> String {
        self.snapshot().head().to_prefixed().as_str().to_owned()
    }
}

/// `verify_many(messages, public_keys) -> list[bool]`: whether each message's signature
/// verifies under its sender's key (`from.agent_id` looked up in `public_keys`, a mapping
/// of agent ids to keys in any form the SDK takes), in order: a loop of
/// `verify_signature(m, m["signature"], public_keys[m["from"]["agent_id"]])`, `False`
/// wherever that would fail or raise. Messages are dicts or JSON text (`bytes`/`str`);
/// keys that are not Ed25519 keys verify nothing. The signatures are checked with the GIL
/// released on every core.
#[pyfunction]
fn verify_many(py: Python<'_>, messages: &Bound<'_, PyAny>, public_keys: &Bound<'_, PyAny>) -> PyResult<Vec<bool>> {
    let mut keys = KeyMap::default();
    for item in public_keys.call_method0("items")?.try_iter()? {
        let (k, v): (Bound<'_, PyAny>, Bound<'_, PyAny>) = item?.extract()?;
        let Ok(id) = k.extract::<String>() else { continue };
        if let Ok(Some(key)) = public_key_of(&v) {
            keys.insert(&id, key);
        }
    }
    let mut texts = Vec::new();
    for m in messages.try_iter()? {
        texts.push(json_text(&m?).ok());
    }
    Ok(py.detach(|| {
        par::map(&texts, |nodes: &mut Nodes, t: &Option<Vec<u8>>| {
            t.as_deref()
                .is_some_and(|t| nodes.parse(t).is_ok_and(|doc| message::verify_from_sender(doc.root(), &keys).is_ok()))
        })
    }))
}

/// `verify_transcript(transcript_json, public_keys) -> (count, head)`: a whole transcript
/// held as a JSON array text, verified with the GIL released.
#[pyfunction]
fn verify_transcript(
    py: Python<'_>,
    transcript_json: &[u8],
    public_keys: &Bound<'_, PyAny>,
) -> PyResult<(u64, String)> {
    let keys = owned_keys(Some(public_keys))?;
    let r = py.detach(|| {
        // A transcript's array is a level of its own: each message gets the whole policy.
        let mut nodes = Nodes::new();
        let doc = nodes.parse_transcript(transcript_json).map_err(|e| (0usize, e))?;
        message::verify_transcript(doc.root(), &keys).map(|v| (v.count(), v.head()))
    });
    match r {
        Ok((n, h)) => Ok((n, h.to_prefixed().as_str().to_owned())),
        Err((i, e)) => {
            let err = core::<()>(Err(e)).err().unwrap_or_else(|| new_err(Exc::Concordia, "transcript", None));
            let _ = err.value(py).setattr("index", i);
            Err(err)
        }
    }
}

/// `verify_transcript_file(path, public_keys, *, lines=False, max_input=None) -> (count,
/// head)`: a transcript file (a JSON array of messages, or JSON Lines with `lines=True`)
/// verified one message at a time, with memory bounded by the largest message (the host
/// layer's `verify_transcript_reader`, the same the CLI's `chain verify` uses), GIL
/// released. A failing message raises its exception with `index` set; an unreadable file
/// `OSError`; input beyond `max_input` bytes or memory `LimitError`/`MemoryError`.
#[pyfunction]
#[pyo3(signature = (path, public_keys, *, lines = false, max_input = None))]
fn verify_transcript_file(
    py: Python<'_>,
    path: std::path::PathBuf,
    public_keys: &Bound<'_, PyAny>,
    lines: bool,
    max_input: Option<u64>,
) -> PyResult<(u64, String)> {
    use concordia_host::{verify_transcript_reader, ReadError, TranscriptFailure, TranscriptFormat};
    let keys = owned_keys(Some(public_keys))?;
    let format = if lines { TranscriptFormat::Lines } else { TranscriptFormat::Array };
    let r = py.detach(|| {
        let file = std::fs::File::open(&path).map_err(|e| TranscriptFailure::Read(ReadError::Io(e)))?;
        verify_transcript_reader(std::io::BufReader::new(file), &keys, format, max_input)
    });
    match r {
        Ok(s) => Ok((s.count, s.head.to_prefixed().as_str().to_owned())),
        Err(TranscriptFailure::Read(ReadError::Io(e))) => Err(e.into()),
        Err(failure) => {
            let index = match &failure {
                TranscriptFailure::Message { index, .. } => Some(*index),
                _ => None,
            };
            let err = match failure.error() {
                Some(e) => {
                    core::<()>(Err(e)).err().unwrap_or_else(|| new_err(Exc::Concordia, failure.to_string(), None))
                }
                None => new_err(Exc::Concordia, failure.to_string(), None),
            };
            if let Some(i) = index {
                let _ = err.value(py).setattr("index", i);
            }
            Err(err)
        }
    }
}

fn enum_value(obj: &Bound<'_, PyAny>) -> PyResult<String> {
    if let Ok(s) = obj.cast::<PyString>() {
        return Ok(s.to_cow()?.into_owned());
    }
    obj.getattr("value")?.extract()
}

fn role_of(obj: &Bound<'_, PyAny>) -> PyResult<Role> {
    let role = enum_value(obj)?;
    Role::parse(&role).map_err(|_| new_err(Exc::InvalidArgument, format!("unknown party role: {role}"), Some("input")))
}

type CoreSession = concordia_host::HostSession;

/// A negotiation session (SPEC §5) over the core's state machine: up to 8 parties.
#[pyclass(module = "concordia_rs")]
struct Session {
    inner: CoreSession,
    transcript: Py<PyList>,
}

/// An SDK `TimingConfig` (or a dict of its fields): any number or `None` per field, as the
/// SDK takes them, read by the core's `Timing::from_real`; absent fields keep the defaults.
fn timing_of(timing: Option<&Bound<'_, PyAny>>) -> PyResult<Timing> {
    let d = Timing::default();
    let Some(obj) = timing.filter(|o| !o.is_none()) else { return Ok(d) };
    let get = |name: &str, default: u32| -> PyResult<Option<f64>> {
        let v = if let Ok(dict) = obj.cast::<PyDict>() { dict.get_item(name)? } else { obj.getattr(name).ok() };
        match v {
            None => Ok(Some(f64::from(default))),
            Some(v) if v.is_none() => Ok(None),
            Some(v) => match v.call_method0("__float__") {
                Ok(f) => Ok(Some(f.extract::<f64>()?)),
                // An int too large for a double.
                Err(e) if e.is_instance_of::<pyo3::exceptions::PyOverflowError>(v.py()) => {
                    Ok(Some(if v.lt(0)? { f64::NEG_INFINITY } else { f64::INFINITY }))
                }
                Err(_) => Err(PyTypeError::new_err(format!("TimingConfig.{name} must be a number or None"))),
            },
        }
    };
    Ok(Timing::from_real(
        get("session_ttl", d.session_ttl)?,
        get("offer_ttl", d.offer_ttl)?,
        get("max_rounds", d.max_rounds)?,
    ))
}

/// Calls a Python resolver for the key of an agent; remembers the first Python error.
struct PyResolver<'a, 'py> {
    f: Option<&'a Bound<'py, PyAny>>,
    err: RefCell<Option<PyErr>>,
}

impl KeyResolver for PyResolver<'_, '_> {
    fn resolve(&self, agent_id: Str<'_>) -> Option<CorePublicKey> {
        let f = self.f?;
        let id: String = agent_id.chars().collect();
        match f.call1((id,)).and_then(|k| if k.is_none() { Ok(None) } else { public_key_of(&k) }) {
            Ok(k) => k,
            Err(e) => {
                self.err.borrow_mut().get_or_insert(e);
                None
            }
        }
    }
}

#[pymethods]
impl Session {
    /// A new session in PROPOSED. `timing` is an SDK `TimingConfig` or a dict with
    /// `session_ttl`, `offer_ttl`, `max_rounds`; `created_at` defaults to now (Unix seconds).
    #[new]
    #[pyo3(signature = (session_id = None, timing = None, created_at = None))]
    fn new(
        py: Python<'_>,
        session_id: Option<String>,
        timing: Option<&Bound<'_, PyAny>>,
        created_at: Option<f64>,
    ) -> PyResult<Self> {
        let id = match session_id {
            Some(s) if !s.is_empty() => s,
            _ => {
                let hex: String = py.import("uuid")?.call_method0("uuid4")?.getattr("hex")?.extract()?;
                format!("ses_{}", hex.get(..8).unwrap_or(""))
            }
        };
        let created = match created_at {
            Some(t) => timestamp_of(t)?,
            None => now_ts(py)?,
        };
        Ok(Session {
            inner: core(CoreSession::new(&id, timing_of(timing)?, created))?,
            transcript: PyList::empty(py).unbind(),
        })
    }

    /// Registers a party; `role` is an SDK `PartyRole` or its value; `public_key` any key form.
    #[pyo3(signature = (agent_id, role, public_key = None))]
    fn add_party(
        &mut self,
        agent_id: &str,
        role: &Bound<'_, PyAny>,
        public_key: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<()> {
        let key = match public_key.filter(|k| !k.is_none()) {
            Some(k) => Some(public_key_of(k)?.ok_or_else(|| PyTypeError::new_err("public_key is not an Ed25519 key"))?),
            None => None,
        };
        core(self.inner.add_party(agent_id, role_of(role)?, key))
    }

    /// Applies a signed message; returns the new state's value (`"active"`, ...). Raises
    /// `InvalidSignatureError`, `SessionBindingError`, `ChainIntegrityError`,
    /// `InvalidTransitionError`, `MaxRoundsExceededError`, `SchemaError`, `TemporalError`.
    ///
    /// Keys, as the reference SDK: a `public_key_resolver` is the only source of the
    /// sender's key (`None` from it rejects, even for a party registered with a key; a key
    /// it returns replaces the registered one). Without a resolver, the keys registered
    /// with `add_party` are used.
    #[pyo3(signature = (message, public_key_resolver = None, now = None))]
    fn apply_message(
        &mut self,
        py: Python<'_>,
        message: &Bound<'_, PyAny>,
        public_key_resolver: Option<&Bound<'_, PyAny>>,
        now: Option<f64>,
    ) -> PyResult<&'static str> {
        // A message canonical JSON cannot represent cannot verify: the SDK's
        // InvalidSignatureError (UnverifiableMessageError here).
        let text = canon::to_vec(message, &Whole).map_err(|e| errors::unverifiable(py, e))?;
        let now = match now {
            Some(t) => timestamp_of(t)?,
            None => now_ts(py)?,
        };
        let resolver = PyResolver { f: public_key_resolver.filter(|f| !f.is_none()), err: RefCell::new(None) };
        let keys = resolver.f.is_some().then_some(&resolver);
        let inner = &mut self.inner;
        let state = with_doc(&text, &Options::default(), |v| {
            let r = concordia_host::session::apply_message(inner, v, keys, now);
            if let Some(e) = resolver.err.borrow_mut().take() {
                return Err(e);
            }
            core(r)
        })?;
        self.transcript.bind(py).append(message)?;
        Ok(state.as_str())
    }

    /// PROPOSED or ACTIVE becomes EXPIRED.
    #[pyo3(signature = (now = None))]
    fn expire(&mut self, py: Python<'_>, now: Option<f64>) -> PyResult<()> {
        let now = match now {
            Some(t) => timestamp_of(t)?,
            None => now_ts(py)?,
        };
        core(self.inner.expire(now))
    }

    /// REJECTED or EXPIRED becomes DORMANT.
    fn make_dormant(&mut self) -> PyResult<()> {
        core(self.inner.make_dormant())
    }

    /// The session id.
    #[getter]
    fn session_id(&self) -> String {
        self.inner.id().to_owned()
    }
    /// The state's value.
    #[getter]
    fn state(&self) -> &'static str {
        self.inner.state().as_str()
    }
    /// AGREED, REJECTED or EXPIRED.
    #[getter]
    fn is_terminal(&self) -> bool {
        self.inner.state().is_terminal()
    }
    /// Offers and counters applied.
    #[getter]
    fn round_count(&self) -> u32 {
        self.inner.round_count()
    }
    /// Messages applied.
    #[getter]
    fn message_count(&self) -> u64 {
        self.inner.message_count()
    }
    /// The applied messages, as given.
    #[getter]
    fn transcript(&self, py: Python<'_>) -> Py<PyList> {
        self.transcript.clone_ref(py)
    }
    /// Hash of the last applied message (the next `prev_hash`).
    #[getter]
    fn prev_hash(&self) -> String {
        self.inner.tip().to_prefixed().as_str().to_owned()
    }
    /// The legacy whole-transcript hash.
    #[getter]
    fn transcript_hash(&self) -> String {
        self.inner.transcript_hash().to_prefixed().as_str().to_owned()
    }
    /// Whether `make_dormant` flagged the session reactivatable.
    #[getter]
    fn reactivatable(&self) -> bool {
        self.inner.is_reactivatable()
    }
    /// `{agent_id: role}` in registration order.
    #[getter]
    fn parties<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        for p in self.inner.parties() {
            d.set_item(p.agent_id(), p.role().as_str())?;
        }
        Ok(d)
    }
    /// Whole seconds from creation to conclusion (or to now).
    #[pyo3(signature = (now = None))]
    fn duration_seconds(&self, py: Python<'_>, now: Option<f64>) -> PyResult<u64> {
        let now = match now {
            Some(t) => timestamp_of(t)?,
            None => now_ts(py)?,
        };
        Ok(self.inner.duration_seconds(now))
    }
    /// The behaviour record of an agent (a party, or a sender who is not one), as the
    /// attestation carries it; an empty record for anyone else.
    fn get_behavior<'py>(&self, py: Python<'py>, agent_id: &str) -> PyResult<Bound<'py, PyAny>> {
        let mut out = Vec::new();
        if let Some(b) = self.inner.behavior(agent_id) {
            core(attestation::write_behavior(b, &mut VecRefSink(&mut out)))?;
        } else {
            let empty = core_session::Behavior::<32>::new();
            core(attestation::write_behavior(&empty, &mut VecRefSink(&mut out)))?;
        }
        py.import("json")?.call_method1("loads", (PyBytes::new(py, &out),))
    }
    fn __repr__(&self) -> String {
        format!("Session(session_id={:?}, state={:?})", self.inner.id(), self.inner.state().as_str())
    }
}

struct PySigner(Vec<(String, concordia_core::sign::KeyPair)>);

impl attestation::Signer for PySigner {
    fn key_pair(&self, agent_id: &str) -> Option<&concordia_core::sign::KeyPair> {
        self.0.iter().find(|(id, _)| id == agent_id).map(|(_, k)| k)
    }
}

/// JSON text of a caller's value as Python's `json` writes it (ints stay ints, floats
/// floats, so that the core reads `3.0` as the SDK's `isinstance(x, int)` does); a value
/// `json` cannot write is a `ValueError`, as the SDK's checks raise.
fn data_json(obj: &Bound<'_, PyAny>) -> PyResult<Vec<u8>> {
    let text =
        obj.py().import("json")?.call_method1("dumps", (obj,)).map_err(|e| {
            new_err(Exc::InvalidArgument, format!("not JSON data: {}", e.value(obj.py())), Some("input"))
        })?;
    Ok(text.extract::<String>()?.into_bytes())
}

/// Runs `f` with the parsed document of `text`, or with `None`.
fn with_optional_doc<T>(text: Option<&[u8]>, f: impl FnOnce(Option<Value<'_>>) -> PyResult<T>) -> PyResult<T> {
    match text {
        Some(t) => with_doc(t, &Options::default(), |v| f(Some(v))),
        None => f(None),
    }
}

/// `generate_attestation(session, key_pairs, ...)`: the signed, countersigned reputation
/// attestation (version 0.5.0) of a concluded `Session`, as a dict.
#[pyfunction]
#[pyo3(signature = (session, key_pairs, *, category = None, value_range = None, resolution_mechanism = None, references = None, validity_temporal = None, now = None))]
#[allow(clippy::too_many_arguments)]
fn generate_attestation<'py>(
    py: Python<'py>,
    session: PyRef<'py, Session>,
    key_pairs: &Bound<'py, PyAny>,
    category: Option<String>,
    value_range: Option<String>,
    resolution_mechanism: Option<&Bound<'py, PyAny>>,
    references: Option<&Bound<'py, PyAny>>,
    validity_temporal: Option<&Bound<'py, PyAny>>,
    now: Option<f64>,
) -> PyResult<Bound<'py, PyAny>> {
    // references and validity_temporal are read, checked and written by the core
    // (attestation::Extras) with the SDK's rules.
    let refs_text = references.filter(|r| !r.is_none()).map(data_json).transpose()?;
    let vt_text = validity_temporal.filter(|v| !v.is_none()).map(data_json).transpose()?;
    let mut signer = PySigner(Vec::new());
    for item in key_pairs.call_method0("items")?.try_iter()? {
        let (k, kp): (String, Bound<'_, PyAny>) = item?.extract()?;
        signer.0.push((k, key_pair_of(&kp)?));
    }
    let now = match now {
        Some(t) => timestamp_of(t)?,
        None => now_ts(py)?,
    };
    // Version 0.5.0 requires a window; by default 90 days from issuance (a caller's
    // validity_temporal replaces it).
    let validity = Validity::Absolute { from: now, until: core(now.add_seconds(90 * 86_400))? };
    let mechanism = match resolution_mechanism.filter(|m| !m.is_none()) {
        Some(m) => enum_value(m)?,
        None => "direct".to_owned(),
    };
    let id_hex: String = py.import("uuid")?.call_method0("uuid4")?.getattr("hex")?.extract()?;
    let attestation_id = format!("att_{}", id_hex.get(..8).unwrap_or(""));
    let params = Params {
        attestation_id: &attestation_id,
        now,
        validity,
        category: category.as_deref().filter(|c| !c.is_empty()),
        value_range: value_range.as_deref().filter(|v| !v.is_empty()),
        resolution_mechanism: &mechanism,
    };
    let out = with_optional_doc(refs_text.as_deref(), |references| {
        with_optional_doc(vt_text.as_deref(), |validity_temporal| {
            let extras = attestation::Extras { references, validity_temporal };
            core(write_vec(4096, |buf| attestation::generate_with(&session.inner, &params, &extras, &signer, buf)))
        })
    })?;
    py.import("json")?.call_method1("loads", (PyBytes::new(py, &out),))
}

/// The genesis `prev_hash`.
fn genesis() -> String {
    GENESIS_HASH.to_prefixed().as_str().to_owned()
}

/// Session states, for callers comparing `Session.state`.
fn states() -> Vec<&'static str> {
    [State::Proposed, State::Active, State::Agreed, State::Rejected, State::Expired, State::Dormant]
        .iter()
        .map(|s| s.as_str())
        .collect()
}

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    errors::register(m)?;
    aip_replay::register(m)?;
    consensus::register(m)?;
    aip::register(m)?;
    m.add("GENESIS_HASH", genesis())?;
    m.add("PROTOCOL_VERSION", message::PROTOCOL_VERSION)?;
    m.add("ATTESTATION_VERSION", attestation::ATTESTATION_VERSION)?;
    m.add("SESSION_STATES", states())?;
    m.add("MAX_DEPTH", canon::MAX_DEPTH)?;
    m.add_class::<KeyPair>()?;
    m.add_class::<PublicKey>()?;
    m.add_class::<es256::Es256KeyPair>()?;
    m.add_class::<es256::Es256PublicKey>()?;
    m.add_class::<Session>()?;
    m.add_class::<TranscriptVerifier>()?;
    m.add_class::<AttestationResult>()?;
    m.add_function(wrap_pyfunction!(canonical_json, m)?)?;
    m.add_function(wrap_pyfunction!(canonicalize_jcs, m)?)?;
    m.add_function(wrap_pyfunction!(compute_hash, m)?)?;
    m.add_function(wrap_pyfunction!(sign_message, m)?)?;
    m.add_function(wrap_pyfunction!(sign_envelope, m)?)?;
    m.add_function(wrap_pyfunction!(verify_signature, m)?)?;
    m.add_function(wrap_pyfunction!(validate_chain, m)?)?;
    m.add_function(wrap_pyfunction!(keys::public_key_from_b64url, m)?)?;
    m.add_function(wrap_pyfunction!(countersign_attestation, m)?)?;
    m.add_function(wrap_pyfunction!(verify_attestation, m)?)?;
    m.add_function(wrap_pyfunction!(verify_profile, m)?)?;
    m.add_function(wrap_pyfunction!(profile_names, m)?)?;
    m.add_function(wrap_pyfunction!(verify_transcript, m)?)?;
    m.add_function(wrap_pyfunction!(verify_many, m)?)?;
    m.add_function(wrap_pyfunction!(bench::_core_time, m)?)?;
    m.add_function(wrap_pyfunction!(verify_transcript_file, m)?)?;
    m.add_function(wrap_pyfunction!(generate_attestation, m)?)?;
    Ok(())
}
