//! `concordia_rs.aip`: AIP as `concordia aip ...` offers it (`concordia_core::aip`):
//! handles in their four spellings, DID Documents (read, route selection, write), key
//! pairs that read and write the CLI's key files (`concordia_host::aip::KeyFile`), sealed
//! envelopes (seal, verify, open with the addressee, freshness and replay checks),
//! `eddsa-jcs-2022` credentials, and the trust score and ranking.
//!
//! Conversion only: the rules are the core's; the module supplies OS randomness (HPKE
//! ephemeral keys, message ids, key generation) and the clock, maps errors through
//! [`crate::errors`], and runs the work on bytes with the GIL released.

use concordia_core::aip::did::{self, DidDocument as CoreDidDocument, Route, RouteMode};
use concordia_core::aip::envelope::{self, Envelope, Header};
use concordia_core::aip::handle::{self, Handle as CoreHandle};
use concordia_core::aip::hpke::X25519SecretKey;
use concordia_core::aip::{trust, vc};
use concordia_core::sign::KeyPair as CoreKeyPair;
use concordia_core::sink::SliceSink;
use concordia_core::{did_key, Error};
use concordia_host::aip::{
    default_endpoint, default_type, open_envelope, Addressee, Delivery, Freshness, KeyFile, OpenPolicy, REPLAY,
};
use concordia_host::vc::{verify_credential_proof, VcArgs, VcTime};
use concordia_host::{canonical, write_vec, Nodes};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList, PyString};

use crate::aip_replay::ReplayWindow;
use crate::errors::{core, new_err, Exc};
use crate::input::{doc_text, loads, register_submodule, time_arg};
use crate::keys::{key_pair_of, KeyPair};
use crate::random::os_random;
use concordia_host::zeroize::Zeroizing;

const MODULE: &str = "concordia_rs.aip";

/// The key file text as a `str` (its Rust copies erased when dropped; the `str` is the
/// caller's to keep secret).
fn key_file_text(text: &[u8]) -> concordia_core::Result<String> {
    let s = std::str::from_utf8(text).map_err(|_| Error::Encoding("key file"))?;
    let mut out = String::with_capacity(s.len() + 1);
    out.push_str(s);
    Ok(out)
}

// --------------------------------------------------------------------------- handles

/// An agent handle in every spelling AIP uses.
#[pyclass(module = "concordia_rs.aip", frozen, eq, hash)]
#[derive(Clone, PartialEq, Eq, Hash)]
struct Handle {
    inner: CoreHandle,
}

#[pymethods]
impl Handle {
    /// The handle of `name` at `domain`, checked against the handle grammar.
    #[new]
    fn new(name: &str, domain: &str) -> PyResult<Self> {
        Ok(Handle { inner: core(CoreHandle::new(name, domain))? })
    }
    /// The agent name.
    #[getter]
    fn name(&self) -> &str {
        self.inner.name()
    }
    /// The registry domain.
    #[getter]
    fn domain(&self) -> &str {
        self.inner.domain()
    }
    /// `name#domain`.
    #[getter]
    fn handle(&self) -> String {
        self.inner.handle().as_str().to_owned()
    }
    /// `name%23domain` (the URL form).
    #[getter]
    fn url_form(&self) -> String {
        self.inner.url_form().as_str().to_owned()
    }
    /// `@name@domain`.
    #[getter]
    fn at_form(&self) -> String {
        self.inner.at_form().as_str().to_owned()
    }
    /// `did:aip:<domain>:<name>`.
    #[getter]
    fn did(&self) -> String {
        self.inner.did().as_str().to_owned()
    }
    fn __str__(&self) -> String {
        self.handle()
    }
    fn __repr__(&self) -> String {
        format!("Handle({:?})", self.handle())
    }
}

/// `parse_handle(text) -> Handle`: a handle written `name#domain`, `name%23domain`,
/// `@name@domain` or `did:aip:<domain>:<name>` (as `concordia aip handle`).
#[pyfunction]
fn parse_handle(text: &str) -> PyResult<Handle> {
    Ok(Handle { inner: core(handle::parse_any(text))? })
}

// --------------------------------------------------------------------------- DID Documents

fn mode_str(m: RouteMode) -> &'static str {
    match m {
        RouteMode::Direct => "direct",
        RouteMode::Relay => "relay",
    }
}

/// The DID Document subset AIP reads.
#[pyclass(module = "concordia_rs.aip", frozen, get_all)]
struct DidDocument {
    /// `id`, a `did:aip`.
    id: String,
    /// The handle `id` names.
    subject: Handle,
    /// `route_mode`: `"direct"` or `"relay"`.
    route_mode: &'static str,
    /// `endpoint`.
    endpoint: String,
    /// The 32-byte Ed25519 keys of `verificationMethod`, in document order.
    signing_keys: Vec<Py<PyBytes>>,
    /// The 32-byte X25519 keys of `keyAgreement`, in document order.
    agreement_keys: Vec<Py<PyBytes>>,
}

#[pymethods]
impl DidDocument {
    fn __repr__(&self) -> String {
        format!("DidDocument(id={:?}, route_mode={:?}, endpoint={:?})", self.id, self.route_mode, self.endpoint)
    }
}

/// Runs `f` on the DID Document of `text` (parsed with the one policy).
fn with_did_doc<T>(
    text: &[u8],
    f: impl FnOnce(&CoreDidDocument<'_>) -> concordia_core::Result<T>,
) -> concordia_core::Result<T> {
    let mut nodes = Nodes::new();
    let doc = nodes.parse(text)?;
    f(&did::document_from_value(doc.root())?)
}

/// `parse_did_document(doc) -> DidDocument`: reads the AIP subset of a DID Document (a
/// dict or its JSON text: the file `concordia aip keygen --doc` writes).
#[pyfunction]
fn parse_did_document(py: Python<'_>, doc: &Bound<'_, PyAny>) -> PyResult<DidDocument> {
    let text = doc_text(doc)?;
    type Parts = (String, CoreHandle, RouteMode, String, Vec<[u8; 32]>, Vec<[u8; 32]>);
    let (id, subject, mode, endpoint, sk, ak): Parts = core(py.detach(|| {
        with_did_doc(&text, |d| {
            Ok((
                d.id.to_owned(),
                d.subject,
                d.route_mode,
                d.endpoint.to_owned(),
                d.signing_keys.iter().map(|k| *k.as_bytes()).collect(),
                d.agreement_keys.iter().map(|k| k.0).collect(),
            ))
        })
    }))?;
    Ok(DidDocument {
        id,
        subject: Handle { inner: subject },
        route_mode: mode_str(mode),
        endpoint,
        signing_keys: sk.iter().map(|k| PyBytes::new(py, k).unbind()).collect(),
        agreement_keys: ak.iter().map(|k| PyBytes::new(py, k).unbind()).collect(),
    })
}

/// `select_route(doc, endpoint_reachable) -> (kind, endpoint)`: how to deliver to the
/// document's subject: `("direct", endpoint)` when its route mode is `direct` and the
/// caller found the endpoint reachable; else `("relay", endpoint)` with the relay the
/// document names, or `("relay", None)` (the sender's own hub relays by domain).
#[pyfunction]
fn select_route(
    py: Python<'_>,
    doc: &Bound<'_, PyAny>,
    endpoint_reachable: bool,
) -> PyResult<(&'static str, Option<String>)> {
    let text = doc_text(doc)?;
    core(py.detach(|| {
        with_did_doc(&text, |d| {
            Ok(match did::select_route(d, endpoint_reachable) {
                Route::Direct(e) => ("direct", Some(e.to_owned())),
                Route::Relay(e) => ("relay", e.map(str::to_owned)),
            })
        })
    }))
}

// --------------------------------------------------------------------------- keys

/// An AIP agent's keys: Ed25519 (signs envelopes and credentials) and X25519 (opens
/// sealed bodies), with the agent's `did:aip` when known. Reads and writes the key files
/// of `concordia aip keygen`. `repr` shows public keys only.
#[pyclass(module = "concordia_rs.aip", frozen)]
#[derive(Clone)]
pub struct AipKeyPair {
    inner: KeyFile,
}

fn did_arg(did: Option<String>) -> PyResult<Option<String>> {
    if let Some(d) = &did {
        core(did::parse_did(d))?;
    }
    Ok(did)
}

/// A 32-byte secret argument, its copy erased when dropped.
fn seed_arg(b: &[u8], what: &'static str) -> PyResult<Zeroizing<[u8; 32]>> {
    let s: [u8; 32] =
        b.try_into().map_err(|_| new_err(Exc::InvalidArgument, format!("{what} must be 32 bytes"), Some("input")))?;
    Ok(Zeroizing::new(s))
}

#[pymethods]
impl AipKeyPair {
    /// New keys from OS randomness (an Ed25519 seed, and 32 more bytes for the X25519 key
    /// pair of RFC 9180 `DeriveKeyPair`), as `concordia aip keygen` makes them.
    #[staticmethod]
    #[pyo3(signature = (did = None))]
    fn generate(did: Option<String>) -> PyResult<Self> {
        let (ed, ikm) = (os_random()?, os_random()?);
        Ok(AipKeyPair { inner: core(KeyFile::from_random(&ed, &ikm, did_arg(did)?))? })
    }

    /// The keys `concordia aip keygen --seed <hex of seed>` makes (for tests and examples
    /// only: both keys come from one 32-byte seed).
    #[staticmethod]
    #[pyo3(signature = (seed, did = None))]
    fn from_seed(seed: &[u8], did: Option<String>) -> PyResult<Self> {
        let seed = seed_arg(seed, "seed")?;
        Ok(AipKeyPair { inner: core(KeyFile::from_seed(&seed, did_arg(did)?))? })
    }

    /// The keys of a 32-byte Ed25519 seed and a 32-byte X25519 private key.
    #[staticmethod]
    #[pyo3(signature = (ed25519_seed, x25519_secret, did = None))]
    fn from_seeds(ed25519_seed: &[u8], x25519_secret: &[u8], did: Option<String>) -> PyResult<Self> {
        let ed = CoreKeyPair::from_seed(&*seed_arg(ed25519_seed, "ed25519_seed")?);
        let x = X25519SecretKey(*seed_arg(x25519_secret, "x25519_secret")?);
        Ok(AipKeyPair { inner: KeyFile { did: did_arg(did)?, ed, x: Some(x) } })
    }

    /// The keys of a key file (a dict or its JSON text), as `concordia aip seal --key`
    /// and `aip open --key` read it.
    #[staticmethod]
    fn from_key_file(key_file: &Bound<'_, PyAny>) -> PyResult<Self> {
        let text = Zeroizing::new(doc_text(key_file)?);
        Ok(AipKeyPair { inner: core(KeyFile::from_json(&text))? })
    }

    /// The key file's JSON text, exactly as `concordia aip keygen` prints it (with the
    /// final newline). It holds both secrets.
    fn key_file_json(&self) -> PyResult<String> {
        let mut text = core(self.inner.to_json().and_then(|t| key_file_text(&t)))?;
        text.push('\n');
        Ok(text)
    }

    /// The key file as a dict (it holds both secrets).
    fn to_key_file<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        loads(py, &core(self.inner.to_json())?)
    }

    /// This agent's DID Document (a dict) for `did` (default: the key pair's own), as
    /// `concordia aip keygen --doc` writes it. `endpoint` defaults to
    /// `https://hub.<domain>/relay/<name>`.
    #[pyo3(signature = (did = None, *, route_mode = "relay", endpoint = None))]
    fn did_document<'py>(
        &self,
        py: Python<'py>,
        did: Option<&str>,
        route_mode: &str,
        endpoint: Option<&str>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let did = did
            .or(self.inner.did.as_deref())
            .ok_or_else(|| new_err(Exc::InvalidArgument, "did_document needs a did", Some("input")))?;
        let subject = core(did::parse_did(did))?;
        let mode = match route_mode {
            "direct" => RouteMode::Direct,
            "relay" => RouteMode::Relay,
            other => {
                return Err(new_err(
                    Exc::InvalidArgument,
                    format!("route_mode must be \"direct\" or \"relay\", not {other:?}"),
                    Some("input"),
                ))
            }
        };
        let endpoint = endpoint.map(str::to_owned).unwrap_or_else(|| default_endpoint(&subject));
        let x = self.inner.x.as_ref().map(X25519SecretKey::public_key);
        let x = x.ok_or_else(|| new_err(Exc::InvalidArgument, "no X25519 key", Some("input")))?;
        let ed = self.inner.ed.public_key();
        let out = core(write_vec(512, |buf| {
            let mut sink = SliceSink::new(buf);
            did::write_document(&subject, mode, &endpoint, &ed, &x, &mut sink)?;
            sink.finish()
        }))?;
        loads(py, &out)
    }

    /// The `did:aip` of the key file, if any.
    #[getter]
    fn did(&self) -> Option<String> {
        self.inner.did.clone()
    }
    /// The Ed25519 key's `did:key` (a credential issuer).
    #[getter]
    fn did_key(&self) -> String {
        did_key::encode(&self.inner.ed.public_key()).as_str().to_owned()
    }
    /// The 32-byte Ed25519 public key.
    #[getter]
    fn ed25519_public_key<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, self.inner.ed.public_key().as_bytes())
    }
    /// The 32-byte X25519 public key (`None` for a key file without the X25519 secret).
    #[getter]
    fn x25519_public_key<'py>(&self, py: Python<'py>) -> Option<Bound<'py, PyBytes>> {
        self.inner.x.as_ref().map(|x| PyBytes::new(py, &x.public_key().0))
    }
    /// The 32-byte Ed25519 seed. Keep it secret.
    fn ed25519_seed<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, &*self.inner.ed.seed())
    }
    /// The 32-byte X25519 private key (`None` without one). Keep it secret.
    fn x25519_secret<'py>(&self, py: Python<'py>) -> Option<Bound<'py, PyBytes>> {
        self.inner.x.as_ref().map(|x| PyBytes::new(py, &x.0))
    }
    /// The Ed25519 half as a `concordia_rs.KeyPair` (to sign objects or issue credentials).
    #[getter]
    fn signing_key(&self) -> KeyPair {
        KeyPair { inner: self.inner.ed.clone() }
    }
    fn __repr__(&self) -> String {
        match &self.inner.did {
            Some(d) => format!("AipKeyPair(did={d:?}, did_key={:?})", self.did_key()),
            None => format!("AipKeyPair(did=None, did_key={:?})", self.did_key()),
        }
    }
}

/// The keys of an `AipKeyPair` or of a key file (dict or JSON text).
fn key_file_of(obj: &Bound<'_, PyAny>) -> PyResult<KeyFile> {
    if let Ok(k) = obj.cast::<AipKeyPair>() {
        return Ok(k.get().inner.clone());
    }
    core(KeyFile::from_json(&concordia_host::zeroize::Zeroizing::new(doc_text(obj)?)))
}

/// An Ed25519 key pair: an `AipKeyPair`, a key file, or any `concordia_rs.KeyPair` form.
fn signer_of(obj: &Bound<'_, PyAny>) -> PyResult<CoreKeyPair> {
    if obj.cast::<AipKeyPair>().is_ok() || obj.cast::<PyDict>().is_ok() || obj.cast::<PyString>().is_ok() {
        return Ok(key_file_of(obj)?.ed);
    }
    key_pair_of(obj)
}

/// `new_message_id() -> str`: a lowercase UUID v4 from OS randomness.
#[pyfunction]
fn new_message_id() -> PyResult<String> {
    let r = os_random()?;
    let mut b = [0u8; 16];
    b.copy_from_slice(&r[..16]);
    let id = core(concordia_host::uuid_v4(b))?;
    core(envelope::parse_uuid_v4(&id))?;
    Ok(id)
}

// --------------------------------------------------------------------------- envelopes

fn header_dict<'py>(py: Python<'py>, h: &OwnedHeader) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("id", &h.0)?;
    d.set_item("from", &h.1)?;
    d.set_item("to", &h.2)?;
    d.set_item("type", &h.3)?;
    d.set_item("created_at", &h.4)?;
    Ok(d)
}

/// (id, from, to, type, created_at)
type OwnedHeader = (String, String, String, String, String);

fn owned(h: &Header<'_>) -> OwnedHeader {
    (h.id.to_owned(), h.from.to_owned(), h.to.to_owned(), h.kind.to_owned(), h.created_at.to_owned())
}

fn with_envelope<T>(
    text: &[u8],
    f: impl FnOnce(&Envelope<'_>) -> concordia_core::Result<T>,
) -> concordia_core::Result<T> {
    let mut nodes = Nodes::new();
    let doc = nodes.parse(text)?;
    f(&envelope::from_value(doc.root())?)
}

/// `seal(message, *, recipient_doc, sender_key, type=None, id=None, created_at=None) ->
/// dict`: the signed envelope of `message` (a dict or its JSON text, sealed in canonical
/// form) to the first X25519 key of the recipient's DID Document, from the key file's
/// `did`, as `concordia aip seal` writes it. `type` defaults to the message's own `type`
/// (else `aip.message`), `id` to a new UUID v4, `created_at` to the clock (RFC 3339).
#[pyfunction]
#[pyo3(signature = (message, *, recipient_doc, sender_key, r#type = None, id = None, created_at = None))]
#[allow(clippy::too_many_arguments)]
fn seal<'py>(
    py: Python<'py>,
    message: &Bound<'py, PyAny>,
    recipient_doc: &Bound<'py, PyAny>,
    sender_key: &Bound<'py, PyAny>,
    r#type: Option<String>,
    id: Option<String>,
    created_at: Option<String>,
) -> PyResult<Bound<'py, PyAny>> {
    let sender = key_file_of(sender_key)?;
    let from = sender
        .did
        .clone()
        .ok_or_else(|| new_err(Exc::InvalidArgument, "sender_key has no did (make it with a did)", Some("input")))?;
    let doc = doc_text(recipient_doc)?;
    let msg = doc_text(message)?;
    let id = match id {
        Some(i) => i,
        None => new_message_id()?,
    };
    let created_at = match created_at {
        Some(c) => c,
        None => {
            let mut buf = [0u8; 20];
            core(crate::now_ts(py)?.format_rfc3339(&mut buf).map(str::to_owned))?
        }
    };
    let ikm = os_random()?;
    let out = py.detach(|| {
        let mut mnodes = Nodes::new();
        let m = mnodes.parse(&msg)?;
        let body = canonical(m.root())?;
        let kind = r#type.clone().unwrap_or_else(|| default_type(m.root()));
        with_did_doc(&doc, |rdoc| {
            let recipient = rdoc
                .agreement_keys
                .first()
                .ok_or(Error::Schema("recipient DID Document has no X25519 keyAgreement key"))?;
            let header = Header { id: &id, from: &from, to: rdoc.id, kind: &kind, created_at: &created_at };
            header.check()?;
            write_vec(body.len() * 4 / 3 + 2048, |buf| envelope::seal(&header, recipient, &body, &ikm, &sender.ed, buf))
        })
    });
    drop(ikm);
    loads(py, &core(out)?)
}

/// `parse_envelope(envelope) -> dict`: checks an envelope's shape (the seven members,
/// each well-formed) without its signature or body; returns its header `{"id", "from",
/// "to", "type", "created_at"}`.
#[pyfunction]
fn parse_envelope<'py>(py: Python<'py>, envelope: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyDict>> {
    let text = doc_text(envelope)?;
    let h = core(py.detach(|| with_envelope(&text, |e| Ok(owned(&e.header)))))?;
    header_dict(py, &h)
}

/// `verify_envelope(envelope, *, sender_doc) -> dict`: `from` must be the sender DID
/// Document's `id` and the signature must verify under one of its Ed25519 keys; returns
/// the header.
#[pyfunction]
#[pyo3(signature = (envelope, *, sender_doc))]
fn verify_envelope<'py>(
    py: Python<'py>,
    envelope: &Bound<'py, PyAny>,
    sender_doc: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyDict>> {
    let text = doc_text(envelope)?;
    let sdoc = doc_text(sender_doc)?;
    let h = core(py.detach(|| {
        with_did_doc(&sdoc, |d| {
            with_envelope(&text, |e| {
                e.verify_from(d)?;
                Ok(owned(&e.header))
            })
        })
    }))?;
    header_dict(py, &h)
}

/// `open(envelope, *, recipient_key, sender_doc, now=None, window=None, recipient_did=None,
/// any_recipient=False, skip_freshness=False) -> dict`: the body of an envelope, as
/// `concordia aip open` prints it, after every check of the one composition
/// (`concordia_host::aip::open_envelope`), in its order: the signature under the sender's
/// DID Document, the addressee (`to` must be `recipient_did`, else the key file's `did`;
/// without either, `InvalidArgumentError` unless `any_recipient=True` skips the check by
/// name), the body opens with the recipient's X25519 key; then freshness at `now` (Unix
/// seconds or RFC 3339; default the operating system's clock; `skip_freshness=True` skips
/// it by name): `created_at` within the replay window's bounds (at most `MAX_FUTURE_SKEW`
/// ahead, at most `WINDOW` old: docs/limits.md); with a `ReplayWindow`, also
/// that the id was not opened with it before (`ReplayError`; the window remembers only
/// envelopes that passed every other check).
#[pyfunction]
#[pyo3(signature = (envelope, *, recipient_key, sender_doc, now = None, window = None, recipient_did = None, any_recipient = false, skip_freshness = false))]
#[allow(clippy::too_many_arguments)]
fn open<'py>(
    py: Python<'py>,
    envelope: &Bound<'py, PyAny>,
    recipient_key: &Bound<'py, PyAny>,
    sender_doc: &Bound<'py, PyAny>,
    now: Option<&Bound<'py, PyAny>>,
    window: Option<&Bound<'py, ReplayWindow>>,
    recipient_did: Option<String>,
    any_recipient: bool,
    skip_freshness: bool,
) -> PyResult<Bound<'py, PyAny>> {
    let me = key_file_of(recipient_key)?;
    let secret =
        me.x.clone()
            .ok_or_else(|| new_err(Exc::InvalidArgument, "recipient_key has no x25519_secret_hex", Some("input")))?;
    let freshness = match now.filter(|t| !t.is_none()) {
        _ if skip_freshness => Freshness::Unchecked,
        None => Freshness::Clock,
        Some(t) => Freshness::At(time_arg(py, Some(t), envelope::parse_rfc3339)?),
    };
    let addressee = core(Addressee::from_args(recipient_did.as_deref(), me.did.as_deref(), any_recipient))?;
    let text = doc_text(envelope)?;
    let sdoc = doc_text(sender_doc)?;
    let mut guard = window.map(|w| w.borrow_mut());
    let window = guard.as_deref_mut().map(|w| &mut w.inner);
    let policy = OpenPolicy { freshness, addressee, window };
    let opened = py.detach(move || {
        open_envelope(&text, &sdoc, &secret, policy).map(|o| match o.delivery {
            Delivery::Fresh(body) => Ok(body),
            Delivery::Duplicate => Err(format!("envelope {}: {REPLAY}", o.header.id)),
        })
    });
    match core(opened.map_err(Error::from))? {
        Ok(body) => loads(py, &body),
        Err(m) => Err(new_err(Exc::Replay, m, Some("replay"))),
    }
}

// --------------------------------------------------------------------------- credentials

/// `vc_issue(credential, *, key, created=None) -> dict`: the credential (a dict or its
/// JSON text, without `proof`, whose `issuer` is the key's `did:key`) with an
/// `eddsa-jcs-2022` proof, as `concordia aip vc issue` writes it. `key` is an
/// `AipKeyPair`, a key file, or a `concordia_rs.KeyPair`; `created` an RFC 3339 time.
#[pyfunction]
#[pyo3(signature = (credential, *, key, created = None))]
fn vc_issue<'py>(
    py: Python<'py>,
    credential: &Bound<'py, PyAny>,
    key: &Bound<'py, PyAny>,
    created: Option<String>,
) -> PyResult<Bound<'py, PyAny>> {
    let kp = signer_of(key)?;
    let text = doc_text(credential)?;
    let out = core(py.detach(|| {
        let mut nodes = Nodes::new();
        let doc = nodes.parse(&text)?;
        write_vec(text.len() * 2 + 1024, |buf| vc::issue(doc.root(), &kp, created.as_deref(), buf))
    }))?;
    loads(py, &out)
}

fn strings(obj: Option<&Bound<'_, PyAny>>, what: &str) -> PyResult<Option<Vec<String>>> {
    let Some(obj) = obj.filter(|o| !o.is_none()) else { return Ok(None) };
    if obj.cast::<PyString>().is_ok() {
        return Err(PyTypeError::new_err(format!("{what} must be an iterable of str, not a str")));
    }
    let mut out = Vec::new();
    for item in obj.try_iter()? {
        out.push(item?.extract::<String>().map_err(|_| PyTypeError::new_err(format!("{what} must hold str")))?);
    }
    Ok(Some(out))
}

/// `vc_verify(credential, *, anchors=None, revoked=None, now=None, check_time=True,
/// domain=None, challenge=None) -> dict`: verifies the proof (the `did:key` resolved
/// locally), that its key is the issuer's, the issuer among `anchors` (None: any), the
/// credential `id` (decoded) not in `revoked`, the validity period and the proof's
/// `created`/`expires` at `now` (default the OS clock; `check_time=False` skips them), and
/// that the proof carries `domain`/`challenge` when given: the one composition of every
/// surface (`concordia_host::vc::verify_credential`, as `concordia aip vc verify`); returns
/// `{"verified": True, "issuer", "subject"}`.
#[pyfunction]
#[pyo3(signature = (credential, *, anchors = None, revoked = None, now = None, check_time = true, domain = None, challenge = None))]
#[allow(clippy::too_many_arguments)]
fn vc_verify<'py>(
    py: Python<'py>,
    credential: &Bound<'py, PyAny>,
    anchors: Option<&Bound<'py, PyAny>>,
    revoked: Option<&Bound<'py, PyAny>>,
    now: Option<&Bound<'py, PyAny>>,
    check_time: bool,
    domain: Option<String>,
    challenge: Option<String>,
) -> PyResult<Bound<'py, PyDict>> {
    let anchors = strings(anchors, "anchors")?;
    let revoked = strings(revoked, "revoked")?.unwrap_or_default();
    let now = now.filter(|n| !n.is_none());
    let now = now.map(|t| time_arg(py, Some(t), envelope::parse_rfc3339)).transpose()?;
    let args = VcArgs { anchors, revoked, domain, challenge, time: core(VcTime::from_args(now, check_time))? };
    let text = doc_text(credential)?;
    let (issuer, subject) = core(py.detach(|| {
        let mut nodes = Nodes::new();
        let v = args.verify(&text, &mut nodes)?;
        Ok((v.issuer.to_owned(), v.subject.map(str::to_owned)))
    }))?;
    let d = PyDict::new(py);
    d.set_item("verified", true)?;
    d.set_item("issuer", issuer)?;
    d.set_item("subject", subject)?;
    Ok(d)
}

/// `vc_verify_proof(credential) -> dict`: the `eddsa-jcs-2022` proof alone (its `did:key`
/// signature), without the issuer binding (`concordia aip vc verify --proof-only`);
/// returns `{"verified": True, "verification_method", "public_key"}`.
#[pyfunction]
fn vc_verify_proof<'py>(py: Python<'py>, credential: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyDict>> {
    let text = doc_text(credential)?;
    let (method, key) = core(py.detach(|| {
        let mut nodes = Nodes::new();
        let v = verify_credential_proof(&text, &mut nodes)?;
        Ok((v.verification_method.to_owned(), *v.key.as_bytes()))
    }))?;
    let d = PyDict::new(py);
    d.set_item("verified", true)?;
    d.set_item("verification_method", method)?;
    d.set_item("public_key", PyBytes::new(py, &key))?;
    Ok(d)
}

// --------------------------------------------------------------------------- trust

fn event_of(e: &Bound<'_, PyAny>) -> PyResult<trust::Event> {
    match e.extract::<String>().as_deref() {
        Ok("success") => Ok(trust::Event::Success),
        Ok("failure") => Ok(trust::Event::Failure),
        Ok("revocation") => Ok(trust::Event::Revocation),
        _ => Err(new_err(
            Exc::InvalidArgument,
            "a trust event is \"success\", \"failure\" or \"revocation\"",
            Some("input"),
        )),
    }
}

/// `trust_ceiling(subject, edges, anchors) -> float`: 1 for an anchor, else the best over
/// non-revoked credential paths from an anchor (at most 4 hops) of 0.5 per hop; 0 without
/// one. `edges` holds `(issuer, subject)` or `(issuer, subject, revoked)` tuples.
#[pyfunction]
fn trust_ceiling(subject: &str, edges: &Bound<'_, PyAny>, anchors: &Bound<'_, PyAny>) -> PyResult<f64> {
    let mut owned: Vec<(String, String, bool)> = Vec::new();
    for e in edges.try_iter()? {
        let e = e?;
        let t = match e.extract::<(String, String, bool)>() {
            Ok(t) => t,
            Err(_) => {
                let (i, s): (String, String) = e
                    .extract()
                    .map_err(|_| PyTypeError::new_err("an edge is (issuer, subject) or (issuer, subject, revoked)"))?;
                (i, s, false)
            }
        };
        owned.push(t);
    }
    let anchors = strings(Some(anchors), "anchors")?.unwrap_or_default();
    let edges: Vec<trust::Edge<'_>> =
        owned.iter().map(|(i, s, r)| trust::Edge { issuer: i, subject: s, revoked: *r }).collect();
    let anchors: Vec<&str> = anchors.iter().map(String::as_str).collect();
    core(trust::credential_ceiling(subject, &edges, &anchors))
}

/// `trust_update(score, ceiling, event) -> float`: one event (`"success"` closes 5% of the
/// gap to the ceiling, `"failure"` halves the score, `"revocation"` zeroes it).
#[pyfunction]
fn trust_update(score: f64, ceiling: f64, event: &Bound<'_, PyAny>) -> PyResult<f64> {
    Ok(trust::update(score, ceiling, event_of(event)?))
}

/// `trust_score(ceiling, history) -> float`: the score of a history of events, from 0.
#[pyfunction]
fn trust_score(ceiling: f64, history: &Bound<'_, PyAny>) -> PyResult<f64> {
    let mut events = Vec::new();
    for e in history.try_iter()? {
        events.push(event_of(&e?)?);
    }
    Ok(trust::score(ceiling, events))
}

/// `rrf(semantic_rank=None, fts_rank=None) -> float`: Reciprocal Rank Fusion,
/// `1/(60 + semantic_rank) + 1/(60 + fts_rank)`; a missing rank adds 0; ranks start at 1.
#[pyfunction]
#[pyo3(signature = (semantic_rank = None, fts_rank = None))]
fn rrf(semantic_rank: Option<&Bound<'_, PyAny>>, fts_rank: Option<&Bound<'_, PyAny>>) -> PyResult<f64> {
    core(trust::rrf(rank_arg(semantic_rank)?, rank_arg(fts_rank)?))
}

/// `final_score(rrf, trust_score) -> float`: `rrf * (1 + 0.3 * trust_score)`.
#[pyfunction]
fn final_score(rrf: f64, trust_score: f64) -> PyResult<f64> {
    core(trust::final_score(rrf, trust_score))
}

fn rank_arg(v: Option<&Bound<'_, PyAny>>) -> PyResult<Option<u32>> {
    let Some(v) = v.filter(|v| !v.is_none()) else { return Ok(None) };
    let bad = || new_err(Exc::InvalidArgument, "ranks must be integers from 1, or None", Some("input"));
    if v.cast::<pyo3::types::PyBool>().is_ok() || v.cast::<pyo3::types::PyInt>().is_err() {
        return Err(bad());
    }
    match v.extract::<u32>() {
        Ok(r) if r >= 1 => Ok(Some(r)),
        _ => Err(bad()),
    }
}

/// `rank(results) -> list[dict]`: results (`{"semantic_rank", "fts_rank",
/// "trust_score", ...}` dicts) ordered by final score, descending (ties: higher RRF, then
/// input order), each a copy with `"rrf"` and `"final"` added, as `concordia aip rank`.
#[pyfunction]
fn rank<'py>(py: Python<'py>, results: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyList>> {
    let items: Vec<Bound<'py, PyAny>> = results.try_iter()?.collect::<PyResult<_>>()?;
    let mut cands = Vec::with_capacity(items.len());
    for it in &items {
        let get = |k: &str| it.get_item(k).ok();
        let trust_score = get("trust_score")
            .filter(|v| v.cast::<pyo3::types::PyBool>().is_err())
            .and_then(|v| v.extract::<f64>().ok())
            .ok_or_else(|| new_err(Exc::InvalidArgument, "every result needs a numeric trust_score", Some("input")))?;
        cands.push(trust::Candidate {
            semantic_rank: rank_arg(get("semantic_rank").as_ref())?,
            fts_rank: rank_arg(get("fts_rank").as_ref())?,
            trust_score,
        });
    }
    let mut ranked = vec![trust::Ranked::default(); cands.len()];
    let n = core(trust::rank(&cands, &mut ranked))?;
    let out = PyList::empty(py);
    for r in ranked.iter().take(n) {
        let item = items.get(r.index).ok_or_else(|| PyTypeError::new_err("ranking returned an unknown result"))?;
        let d = PyDict::new(py);
        for kv in item.call_method0("items")?.try_iter()? {
            let (k, v): (Bound<'py, PyAny>, Bound<'py, PyAny>) = kv?.extract()?;
            d.set_item(k, v)?;
        }
        d.set_item("rrf", r.rrf)?;
        d.set_item("final", r.final_score)?;
        out.append(d)?;
    }
    Ok(out)
}

/// Builds `concordia_rs.aip` and registers it.
pub fn register(parent: &Bound<'_, PyModule>) -> PyResult<()> {
    let m = PyModule::new(parent.py(), MODULE)?;
    m.add_class::<Handle>()?;
    m.add_class::<DidDocument>()?;
    m.add_class::<AipKeyPair>()?;
    m.add("ReplayWindow", parent.py().get_type::<ReplayWindow>())?;
    m.add_function(wrap_pyfunction!(parse_handle, &m)?)?;
    m.add_function(wrap_pyfunction!(parse_did_document, &m)?)?;
    m.add_function(wrap_pyfunction!(select_route, &m)?)?;
    m.add_function(wrap_pyfunction!(new_message_id, &m)?)?;
    m.add_function(wrap_pyfunction!(seal, &m)?)?;
    m.add_function(wrap_pyfunction!(parse_envelope, &m)?)?;
    m.add_function(wrap_pyfunction!(verify_envelope, &m)?)?;
    m.add_function(wrap_pyfunction!(open, &m)?)?;
    m.add_function(wrap_pyfunction!(vc_issue, &m)?)?;
    m.add_function(wrap_pyfunction!(vc_verify, &m)?)?;
    m.add_function(wrap_pyfunction!(vc_verify_proof, &m)?)?;
    m.add_function(wrap_pyfunction!(trust_ceiling, &m)?)?;
    m.add_function(wrap_pyfunction!(trust_update, &m)?)?;
    m.add_function(wrap_pyfunction!(trust_score, &m)?)?;
    m.add_function(wrap_pyfunction!(rrf, &m)?)?;
    m.add_function(wrap_pyfunction!(final_score, &m)?)?;
    m.add_function(wrap_pyfunction!(rank, &m)?)?;
    register_submodule(parent, &m, "aip")
}
