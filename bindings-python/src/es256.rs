//! ES256 key material: `ES256KeyPair`, `ES256PublicKey`, and conversion from the reference
//! SDK's `ES256KeyPair` and `cryptography`'s P-256 keys. Every rule (DER, low S, points,
//! scalars) is the core's `es256` module; this file only converts Python objects.

use concordia_core::es256::{self, KeyPair as CoreKeyPair, PublicKey as CorePublicKey, Signature};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyString};

use crate::errors::{core, CoreError};

/// An ECDSA P-256 key pair for ES256 (the reference SDK's `ES256KeyPair`): signatures are
/// DER, low S and deterministic (RFC 6979).
#[pyclass(name = "ES256KeyPair", module = "concordia_rs", frozen)]
#[derive(Clone)]
pub struct Es256KeyPair {
    pub(crate) inner: CoreKeyPair,
}

#[pymethods]
impl Es256KeyPair {
    /// A fresh key pair from OS randomness (drawn in Rust, not through `os.urandom`; a
    /// draw outside `1..n` is drawn again).
    #[staticmethod]
    fn generate() -> PyResult<Self> {
        loop {
            // Erased when dropped.
            let d = crate::random::os_random()?;
            if let Ok(inner) = CoreKeyPair::from_scalar(&d) {
                return Ok(Es256KeyPair { inner });
            }
        }
    }

    /// The key pair of a 32-byte big-endian private scalar (`0 < d < n`), as
    /// `private_scalar_bytes()` returns it; `cryptography`'s `private_value` in bytes.
    #[staticmethod]
    fn from_private_scalar(data: &[u8]) -> PyResult<Self> {
        let d: [u8; 32] = data.try_into().map_err(|_| {
            PyErr::from(CoreError(concordia_core::Error::InvalidArgument(
                concordia_core::error::detail::ES256_PRIVATE_KEY,
            )))
        })?;
        let d = concordia_host::zeroize::Zeroizing::new(d);
        Ok(Es256KeyPair { inner: core(CoreKeyPair::from_scalar(&d))? })
    }

    /// The key pair held by a reference SDK `ES256KeyPair` (or a `cryptography` P-256
    /// private key).
    #[staticmethod]
    fn from_sdk(obj: &Bound<'_, PyAny>) -> PyResult<Self> {
        Ok(Es256KeyPair { inner: key_pair_of(obj)? })
    }

    /// The uncompressed X9.62 public key, 65 bytes (the SDK's `public_key_bytes()`).
    fn public_key_bytes<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, &self.inner.public_key().to_uncompressed())
    }

    /// The public key as padded URL-safe base64 (the SDK's `public_key_b64()`).
    fn public_key_b64(&self) -> String {
        self.inner.public_key().to_b64url().as_str().to_owned()
    }

    /// The verifier material for this key, in the shape of `KeyPair.verification_material()`.
    fn verification_material<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        crate::keys::verification_material(py, concordia_core::sign::Alg::Es256, &self.public_key_b64())
    }

    /// The 32-byte big-endian private scalar.
    fn private_scalar_bytes<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, &*self.inner.scalar())
    }

    /// The public key.
    #[getter]
    fn public_key(&self) -> Es256PublicKey {
        Es256PublicKey { inner: self.inner.public_key() }
    }

    /// Signs raw bytes (SHA-256, RFC 6979, low S); returns the DER signature.
    fn sign<'py>(&self, py: Python<'py>, data: &[u8]) -> Bound<'py, PyBytes> {
        PyBytes::new(py, &der(&self.inner.sign(data)))
    }

    fn __repr__(&self) -> String {
        format!("ES256KeyPair(public_key={:?})", self.public_key_b64())
    }
}

/// An ES256 public key: a P-256 point (not the identity, on the curve).
#[pyclass(name = "ES256PublicKey", module = "concordia_rs", frozen, eq)]
#[derive(Clone, PartialEq, Eq)]
pub struct Es256PublicKey {
    pub(crate) inner: CorePublicKey,
}

#[pymethods]
impl Es256PublicKey {
    /// A public key from its X9.62 bytes (65 uncompressed or 33 compressed).
    #[staticmethod]
    fn from_bytes(data: &[u8]) -> PyResult<Self> {
        Ok(Es256PublicKey { inner: core(CorePublicKey::from_sec1(data))? })
    }

    /// A public key from base64 text of its X9.62 bytes (padded or not, URL-safe or
    /// standard).
    #[staticmethod]
    fn from_b64(text: &str) -> PyResult<Self> {
        Ok(Es256PublicKey { inner: core(CorePublicKey::from_b64(text.trim()))? })
    }

    /// The uncompressed X9.62 bytes (65).
    fn public_bytes<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, &self.inner.to_uncompressed())
    }

    /// Padded URL-safe base64 of the uncompressed point.
    fn to_b64url(&self) -> String {
        self.inner.to_b64url().as_str().to_owned()
    }

    /// Verifies a DER signature over raw bytes (strict DER, low S); raises
    /// `InvalidSignatureError` (or `SignatureEncodingError` for bytes that are not DER).
    fn verify(&self, signature: &[u8], data: &[u8]) -> PyResult<()> {
        let sig = core(Signature::from_der(signature))?;
        core(es256::verify(&self.inner, data, &sig))
    }

    fn __hash__(&self) -> u64 {
        use std::hash::{Hash, Hasher};
        let mut h = std::collections::hash_map::DefaultHasher::new();
        self.inner.to_uncompressed().hash(&mut h);
        h.finish()
    }

    fn __repr__(&self) -> String {
        format!("ES256PublicKey({:?})", self.to_b64url())
    }
}

fn der(sig: &Signature) -> Vec<u8> {
    let mut buf = [0u8; Signature::MAX_DER_BYTES];
    let n = sig.to_der(&mut buf);
    buf[..n].to_vec()
}

/// Whether `obj` is a `cryptography` elliptic-curve key (private or public, by `class`) on
/// P-256.
fn is_p256(obj: &Bound<'_, PyAny>, class: &str) -> PyResult<bool> {
    let py = obj.py();
    let Ok(m) = py.import("cryptography.hazmat.primitives.asymmetric.ec") else { return Ok(false) };
    if !obj.is_instance(&m.getattr(class)?)? {
        return Ok(false);
    }
    let name: String = obj.getattr("curve")?.getattr("name")?.extract()?;
    Ok(name == "secp256r1")
}

/// The ES256 key pair held by `obj`: a concordia_rs `ES256KeyPair`, an SDK `ES256KeyPair`
/// (`.private_key`), or a `cryptography` P-256 `EllipticCurvePrivateKey`.
///
/// # Errors
/// `TypeError` ("ES256 requires an ES256KeyPair", the SDK's message) for anything else.
pub fn key_pair_of(obj: &Bound<'_, PyAny>) -> PyResult<CoreKeyPair> {
    if let Ok(kp) = obj.cast::<Es256KeyPair>() {
        return Ok(kp.get().inner.clone());
    }
    let private = match obj.getattr("private_key") {
        Ok(p) if !p.is_callable() => p,
        _ => obj.clone(),
    };
    if is_p256(&private, "EllipticCurvePrivateKey")? {
        let value = private.call_method0("private_numbers")?.getattr("private_value")?;
        let bytes: Vec<u8> = value.call_method1("to_bytes", (32, "big"))?.extract()?;
        if let Ok(d) = <[u8; 32]>::try_from(bytes.as_slice()) {
            return core(CoreKeyPair::from_scalar(&d));
        }
    }
    Err(PyTypeError::new_err("ES256 requires an ES256KeyPair"))
}

/// The ES256 public key held by `obj`: an `Es256PublicKey`, a `cryptography` P-256
/// `EllipticCurvePublicKey`, X9.62 bytes, or base64 text of them. `None` for anything else
/// (the SDK's `verify_signature` answers `False` then).
pub fn public_key_of(obj: &Bound<'_, PyAny>) -> PyResult<Option<CorePublicKey>> {
    if let Ok(pk) = obj.cast::<Es256PublicKey>() {
        return Ok(Some(pk.get().inner));
    }
    if let Ok(b) = obj.cast::<PyBytes>() {
        return Ok(CorePublicKey::from_sec1(b.as_bytes()).ok());
    }
    if let Ok(s) = obj.cast::<PyString>() {
        return Ok(CorePublicKey::from_b64(s.to_cow()?.trim()).ok());
    }
    if is_p256(obj, "EllipticCurvePublicKey")? {
        let py = obj.py();
        let ser = py.import("cryptography.hazmat.primitives.serialization")?;
        let raw = obj.call_method1(
            "public_bytes",
            (ser.getattr("Encoding")?.getattr("X962")?, ser.getattr("PublicFormat")?.getattr("UncompressedPoint")?),
        )?;
        if let Ok(b) = raw.cast::<PyBytes>() {
            return Ok(CorePublicKey::from_sec1(b.as_bytes()).ok());
        }
    }
    Ok(None)
}
