//! Ed25519 key material: `KeyPair`, `PublicKey`, and conversion from the reference SDK's
//! `cryptography` objects (raw 32-byte keys, urlsafe base64 with padding).

use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::sync::{Mutex, OnceLock};

use concordia_core::sign::{self, KeyPair as CoreKeyPair, PreparedKey, PublicKey as CorePublicKey, Signature};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyString};

use crate::errors::{core, new_err, Exc};

/// An Ed25519 key pair (the reference SDK's `KeyPair`, byte-compatible).
#[pyclass(module = "concordia_rs", frozen)]
#[derive(Clone)]
pub struct KeyPair {
    pub(crate) inner: CoreKeyPair,
}

#[pymethods]
impl KeyPair {
    /// A fresh key pair from 32 bytes of OS randomness (drawn in Rust, not through
    /// `os.urandom`).
    #[staticmethod]
    fn generate() -> PyResult<Self> {
        Ok(KeyPair { inner: CoreKeyPair::from_seed(&*crate::random::os_random()?) })
    }

    /// The key pair of a raw 32-byte private key (seed), as `private_key_bytes()` returns.
    #[staticmethod]
    fn from_private_bytes(data: &[u8]) -> PyResult<Self> {
        let seed: [u8; 32] = data
            .try_into()
            .map_err(|_| new_err(Exc::InvalidArgument, "Ed25519 private key must be 32 bytes", Some("input")))?;
        let seed = concordia_host::zeroize::Zeroizing::new(seed);
        Ok(KeyPair { inner: CoreKeyPair::from_seed(&seed) })
    }

    /// The key pair held by a reference SDK `KeyPair` (or a `cryptography` private key).
    #[staticmethod]
    fn from_sdk(obj: &Bound<'_, PyAny>) -> PyResult<Self> {
        Ok(KeyPair { inner: key_pair_of(obj)? })
    }

    /// The raw 32-byte public key.
    fn public_key_bytes<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, self.inner.public_key().as_bytes())
    }

    /// The public key as padded URL-safe base64.
    fn public_key_b64(&self) -> String {
        self.inner.public_key().to_b64url().as_str().to_owned()
    }

    /// The verifier material the reference SDK publishes for this key.
    fn verification_material<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        verification_material(py, sign::Alg::EdDsa, &self.public_key_b64())
    }

    /// The raw 32-byte private key (seed).
    fn private_key_bytes<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, &*self.inner.seed())
    }

    /// The public key.
    #[getter]
    fn public_key(&self) -> PublicKey {
        PublicKey::new(self.inner.public_key())
    }

    /// Signs raw bytes; returns the 64-byte signature.
    fn sign<'py>(&self, py: Python<'py>, data: &[u8]) -> Bound<'py, PyBytes> {
        PyBytes::new(py, self.inner.sign(data).as_bytes())
    }

    fn __repr__(&self) -> String {
        format!("KeyPair(public_key={:?})", self.public_key_b64())
    }
}

/// An Ed25519 public key. Its point is checked and decoded on its first verification and
/// kept, so a key object that verifies many signatures decodes once (immutable otherwise;
/// safe to share between threads).
#[pyclass(module = "concordia_rs", frozen, eq, hash)]
#[derive(Clone)]
pub struct PublicKey {
    pub(crate) inner: CorePublicKey,
    prepared: OnceLock<concordia_core::Result<PreparedKey>>,
}

impl PublicKey {
    pub(crate) fn new(inner: CorePublicKey) -> Self {
        PublicKey { inner, prepared: OnceLock::new() }
    }

    /// The key checked and decoded (`CorePublicKey::prepare`), once per object.
    pub(crate) fn prepared(&self) -> concordia_core::Result<PreparedKey> {
        *self.prepared.get_or_init(|| self.inner.prepare())
    }
}

impl PartialEq for PublicKey {
    fn eq(&self, other: &Self) -> bool {
        self.inner == other.inner
    }
}

impl Eq for PublicKey {}

impl Hash for PublicKey {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.inner.hash(state);
    }
}

#[pymethods]
impl PublicKey {
    /// A public key from its raw 32 bytes.
    #[staticmethod]
    fn from_bytes(data: &[u8]) -> PyResult<Self> {
        Ok(PublicKey::new(core(CorePublicKey::from_bytes(data))?))
    }

    /// A public key from base64 text (padded or unpadded, URL-safe or standard).
    #[staticmethod]
    fn from_b64(text: &str) -> PyResult<Self> {
        Ok(PublicKey::new(core(CorePublicKey::from_b64(text.trim()))?))
    }

    /// The raw 32 bytes (the name `cryptography` uses).
    fn public_bytes_raw<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, self.inner.as_bytes())
    }

    /// Padded URL-safe base64.
    fn to_b64url(&self) -> String {
        self.inner.to_b64url().as_str().to_owned()
    }

    /// Verifies a raw 64-byte signature over raw bytes; raises `InvalidSignatureError`.
    fn verify(&self, signature: &[u8], data: &[u8]) -> PyResult<()> {
        let sig = core(Signature::from_bytes(signature))?;
        core(self.prepared().and_then(|key| sign::verify_prepared(&key, data, &sig)))
    }

    fn __repr__(&self) -> String {
        format!("PublicKey({:?})", self.to_b64url())
    }
}

/// `public_key_from_b64url`: the SDK's helper, returning a `PublicKey`.
#[pyfunction]
pub fn public_key_from_b64url(s: &Bound<'_, PyAny>) -> PyResult<PublicKey> {
    let text = s.cast::<PyString>().map_err(|_| PyTypeError::new_err("base64 public key must be a string"))?;
    PublicKey::from_b64(&text.to_cow()?)
}

/// Recently seen SDK private keys, so that signing with a `cryptography` key does not derive
/// the public key on every call. Bounded; cleared when full.
static SDK_KEYS: Mutex<Option<HashMap<[u8; 32], CoreKeyPair>>> = Mutex::new(None);
const SDK_KEY_CACHE: usize = 256;

fn from_seed_cached(seed: [u8; 32]) -> CoreKeyPair {
    let Ok(mut guard) = SDK_KEYS.lock() else {
        return CoreKeyPair::from_seed(&seed);
    };
    let map = guard.get_or_insert_with(HashMap::new);
    if let Some(kp) = map.get(&seed) {
        return kp.clone();
    }
    let kp = CoreKeyPair::from_seed(&seed);
    if map.len() >= SDK_KEY_CACHE {
        map.clear();
    }
    map.insert(seed, kp.clone());
    kp
}

/// The Ed25519 key pair held by `obj`: a concordia_rs `KeyPair`, an SDK `KeyPair`
/// (`.private_key`), or a `cryptography` `Ed25519PrivateKey`.
///
/// # Errors
/// `TypeError` ("EdDSA requires an Ed25519 KeyPair", the SDK's message) for anything else.
pub fn key_pair_of(obj: &Bound<'_, PyAny>) -> PyResult<CoreKeyPair> {
    if let Ok(kp) = obj.cast::<KeyPair>() {
        return Ok(kp.get().inner.clone());
    }
    let private = if obj.hasattr("private_bytes_raw")? {
        obj.clone()
    } else {
        obj.getattr("private_key").ok().unwrap_or_else(|| obj.clone())
    };
    if let Ok(raw) = private.call_method0("private_bytes_raw") {
        if let Ok(b) = raw.cast::<PyBytes>() {
            if let Ok(seed) = <[u8; 32]>::try_from(b.as_bytes()) {
                // Only Ed25519 private keys have a 32-byte raw form with this method.
                if is_ed25519_private(&private)? {
                    return Ok(from_seed_cached(seed));
                }
            }
        }
    }
    Err(PyTypeError::new_err("EdDSA requires an Ed25519 KeyPair"))
}

fn is_ed25519_private(obj: &Bound<'_, PyAny>) -> PyResult<bool> {
    let py = obj.py();
    match py.import("cryptography.hazmat.primitives.asymmetric.ed25519") {
        Ok(m) => obj.is_instance(&m.getattr("Ed25519PrivateKey")?),
        Err(_) => Ok(false),
    }
}

/// `public_key_of`, checked and decoded: a `PublicKey` object's kept form, any other
/// key's prepared for this call; `Some(Err(_))` for a key that is not a valid point.
pub fn prepared_key_of(obj: &Bound<'_, PyAny>) -> PyResult<Option<concordia_core::Result<PreparedKey>>> {
    if let Ok(pk) = obj.cast::<PublicKey>() {
        return Ok(Some(pk.get().prepared()));
    }
    Ok(public_key_of(obj)?.map(|k| k.prepare()))
}

/// The SDK's `verification_material()` dict for a key of `alg` (names from the core).
pub fn verification_material<'py>(
    py: Python<'py>,
    alg: sign::Alg,
    public_key_b64url: &str,
) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("key_type", alg.key_type())?;
    d.set_item("public_key_b64url", public_key_b64url)?;
    d.set_item("alg", alg.name())?;
    d.set_item("canonicalization", sign::CANONICALIZATION)?;
    d.set_item("preimage_rule", sign::PREIMAGE_RULE)?;
    Ok(d)
}

/// The Ed25519 public key held by `obj`: a `PublicKey`, a `cryptography`
/// `Ed25519PublicKey`, 32 raw bytes, or base64 text. `None` for anything else (the
/// SDK's `verify_signature` answers `False` for a non-Ed25519 key).
pub fn public_key_of(obj: &Bound<'_, PyAny>) -> PyResult<Option<CorePublicKey>> {
    if let Ok(pk) = obj.cast::<PublicKey>() {
        return Ok(Some(pk.get().inner));
    }
    if let Ok(b) = obj.cast::<PyBytes>() {
        return Ok(CorePublicKey::from_bytes(b.as_bytes()).ok());
    }
    if let Ok(s) = obj.cast::<PyString>() {
        return Ok(CorePublicKey::from_b64(s.to_cow()?.trim()).ok());
    }
    if let Ok(raw) = obj.call_method0("public_bytes_raw") {
        if let Ok(b) = raw.cast::<PyBytes>() {
            if b.as_bytes().len() == 32 && is_ed25519_public(obj)? {
                return Ok(CorePublicKey::from_bytes(b.as_bytes()).ok());
            }
        }
    }
    Ok(None)
}

fn is_ed25519_public(obj: &Bound<'_, PyAny>) -> PyResult<bool> {
    let py = obj.py();
    match py.import("cryptography.hazmat.primitives.asymmetric.ed25519") {
        Ok(m) => obj.is_instance(&m.getattr("Ed25519PublicKey")?),
        Err(_) => Ok(false),
    }
}
