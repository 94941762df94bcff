//! The exception hierarchy and the one mapping from [`concordia_core::Error`] onto it.
//!
//! Names match the reference SDK where they overlap (`InvalidSignatureError`,
//! `InvalidTransitionError`, `MaxRoundsExceededError`, `SessionBindingError`,
//! `ChainIntegrityError`). Every class derives from `ConcordiaError`; the classes for
//! errors the SDK reports as `ValueError` (malformed JSON, encodings, schema, digest,
//! temporal, privacy, invalid arguments, limits) also derive from `ValueError`. Every
//! instance carries `reason_class`, the conformance reason class of the core error.
//!
//! The classes are built at module initialisation with `type(name, bases, ns)` because some
//! need two bases, which `create_exception!` cannot express.

use concordia_core::error::Class;
use concordia_core::Error;
use pyo3::exceptions::{
    PyAttributeError, PyException, PyKeyError, PyMemoryError, PyRuntimeError, PyTypeError, PyValueError,
};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyDict, PyTuple, PyType};

/// Every exception class the module defines.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Exc {
    /// Base of all.
    Concordia,
    /// Malformed JSON text (ValueError).
    InvalidJson,
    /// A value that cannot be canonicalized: NaN, infinities, -0.0, lone surrogates (ValueError).
    Canonicalization,
    /// A dict key that is not a str (TypeError and AttributeError, as the SDK's sort raises).
    NonStringKey,
    /// A base64/hex text that does not decode (ValueError).
    Encoding,
    /// Missing or wrongly typed member (ValueError).
    Schema,
    /// Digest mismatch (ValueError).
    Digest,
    /// Base of the binding errors.
    Binding,
    /// `session_id` binding (SDK name).
    SessionBinding,
    /// `prev_hash` chain link (SDK name).
    ChainIntegrity,
    /// Signature, unknown key (SDK name).
    InvalidSignature,
    /// Transition not allowed (SDK name).
    InvalidTransition,
    /// Offer or counter beyond `max_rounds` (SDK name; subclass of InvalidTransitionError).
    MaxRoundsExceeded,
    /// Time window (ValueError).
    Temporal,
    /// Raw deal terms disclosed (ValueError).
    Privacy,
    /// Caller argument out of domain (ValueError).
    InvalidArgument,
    /// A bound was exceeded (ValueError).
    Limit,
    /// No signature, or no sender to verify it for (SchemaError and InvalidSignatureError).
    MissingSignature,
    /// A signature text that does not decode (EncodingError and InvalidSignatureError).
    SignatureEncoding,
    /// A message canonical JSON cannot represent, so no signature can verify it
    /// (CanonicalizationError and InvalidSignatureError).
    UnverifiableMessage,
    /// A message or member that is not an object where one is read (SchemaError and
    /// AttributeError, as the SDK's `.get` on it raises).
    MessageShape,
    /// A required member missing (SchemaError and KeyError, as the SDK's `msg["type"]`).
    MissingMember,
    /// An attestation of a session that has not concluded (InvalidTransitionError and
    /// ValueError, as the SDK raises).
    NotConcluded,
    /// Open `terms` without a length (SchemaError and TypeError, the SDK's `len()`).
    UnsizedTerms,
    /// An AIP envelope id already opened with the same replay window.
    Replay,
}

/// (class, name, bases as other classes or builtins, doc)
enum Base {
    Exc(Exc),
    Exception,
    ValueError,
    TypeError,
    AttributeError,
    KeyError,
}

const TABLE: [(Exc, &str, &[Base], &str); 25] = [
    (Exc::Concordia, "ConcordiaError", &[Base::Exception], "Base class of every concordia_rs error."),
    (Exc::InvalidJson, "InvalidJsonError", &[Base::Exc(Exc::Concordia), Base::ValueError], "Malformed JSON text."),
    (
        Exc::Canonicalization,
        "CanonicalizationError",
        &[Base::Exc(Exc::Concordia), Base::ValueError],
        "A value canonical JSON cannot represent (NaN, infinity, -0.0, lone surrogate).",
    ),
    (
        Exc::NonStringKey,
        "NonStringKeyError",
        &[Base::Exc(Exc::Concordia), Base::TypeError, Base::AttributeError],
        "A dict key that is not a str (the reference SDK raises AttributeError here).",
    ),
    (Exc::Encoding, "EncodingError", &[Base::Exc(Exc::Concordia), Base::ValueError], "Bad base64, base64url or hex text."),
    (Exc::Schema, "SchemaError", &[Base::Exc(Exc::Concordia), Base::ValueError], "A required member is missing or mistyped."),
    (Exc::Digest, "DigestError", &[Base::Exc(Exc::Concordia), Base::ValueError], "A recomputed digest does not match."),
    (Exc::Binding, "BindingError", &[Base::Exc(Exc::Concordia)], "A record is not bound to what it claims."),
    (Exc::SessionBinding, "SessionBindingError", &[Base::Exc(Exc::Binding)], "session_id does not match the session."),
    (Exc::ChainIntegrity, "ChainIntegrityError", &[Base::Exc(Exc::Binding)], "prev_hash does not chain to the tip."),
    (Exc::InvalidSignature, "InvalidSignatureError", &[Base::Exc(Exc::Concordia)], "Missing, unknown-key or invalid signature."),
    (Exc::InvalidTransition, "InvalidTransitionError", &[Base::Exc(Exc::Concordia)], "Not allowed in the current state."),
    (
        Exc::MaxRoundsExceeded,
        "MaxRoundsExceededError",
        &[Base::Exc(Exc::InvalidTransition)],
        "An offer or counter beyond max_rounds.",
    ),
    (Exc::Temporal, "TemporalError", &[Base::Exc(Exc::Concordia), Base::ValueError], "A time or validity check failed."),
    (Exc::Privacy, "PrivacyError", &[Base::Exc(Exc::Concordia), Base::ValueError], "Raw deal terms where they must not be."),
    (
        Exc::InvalidArgument,
        "InvalidArgumentError",
        &[Base::Exc(Exc::Concordia), Base::ValueError],
        "An argument out of its documented domain.",
    ),
    (Exc::Limit, "LimitError", &[Base::Exc(Exc::Concordia), Base::ValueError], "A size, depth or capacity bound was exceeded."),
    // Classes that are also the reference SDK's class for the same refusal (issue 25).
    (
        Exc::MissingSignature,
        "MissingSignatureError",
        &[Base::Exc(Exc::Schema), Base::Exc(Exc::InvalidSignature)],
        "No signature, or no sender identity to verify it (the SDK's InvalidSignatureError).",
    ),
    (
        Exc::SignatureEncoding,
        "SignatureEncodingError",
        &[Base::Exc(Exc::Encoding), Base::Exc(Exc::InvalidSignature)],
        "A signature text that does not decode (the SDK's InvalidSignatureError).",
    ),
    (
        Exc::UnverifiableMessage,
        "UnverifiableMessageError",
        &[Base::Exc(Exc::Canonicalization), Base::Exc(Exc::InvalidSignature)],
        "A message canonical JSON cannot represent (NaN, infinity, a non-str key...): its signature cannot verify (the SDK's InvalidSignatureError).",
    ),
    (
        Exc::MessageShape,
        "MessageShapeError",
        &[Base::Exc(Exc::Schema), Base::AttributeError],
        "A message, its from or an open body that is not an object (the SDK's AttributeError).",
    ),
    (
        Exc::MissingMember,
        "MissingMemberError",
        &[Base::Exc(Exc::Schema), Base::KeyError],
        "A required member is missing (the SDK's KeyError).",
    ),
    (
        Exc::NotConcluded,
        "NotConcludedError",
        &[Base::Exc(Exc::InvalidTransition), Base::ValueError],
        "An attestation of a session that has not concluded (the SDK's ValueError).",
    ),
    (
        Exc::UnsizedTerms,
        "UnsizedTermsError",
        &[Base::Exc(Exc::Schema), Base::TypeError],
        "The session was opened with terms that have no length (the SDK's TypeError).",
    ),
    (
        Exc::Replay,
        "ReplayError",
        &[Base::Exc(Exc::Concordia)],
        "An AIP envelope whose id was already opened with the same ReplayWindow (a duplicate delivery or a replay).",
    ),
];

static CLASSES: PyOnceLock<Vec<Py<PyType>>> = PyOnceLock::new();

fn index(e: Exc) -> usize {
    TABLE.iter().position(|(x, ..)| *x == e).unwrap_or(0)
}

fn build(py: Python<'_>) -> PyResult<Vec<Py<PyType>>> {
    let type_ = py.get_type::<PyType>();
    let mut out: Vec<Py<PyType>> = Vec::with_capacity(TABLE.len());
    for (_, name, bases, doc) in TABLE.iter() {
        let mut bs: Vec<Bound<'_, PyAny>> = Vec::new();
        for b in bases.iter() {
            let t = match b {
                Base::Exc(e) => out
                    .get(index(*e))
                    .map(|t| t.bind(py).clone().into_any())
                    .ok_or_else(|| PyTypeError::new_err("exception table order"))?,
                Base::Exception => py.get_type::<PyException>().into_any(),
                Base::ValueError => py.get_type::<PyValueError>().into_any(),
                Base::TypeError => py.get_type::<PyTypeError>().into_any(),
                Base::AttributeError => py.get_type::<PyAttributeError>().into_any(),
                Base::KeyError => py.get_type::<PyKeyError>().into_any(),
            };
            bs.push(t);
        }
        let ns = PyDict::new(py);
        ns.set_item("__module__", "concordia_rs")?;
        ns.set_item("__doc__", *doc)?;
        ns.set_item("reason_class", py.None())?;
        let cls = type_.call1((*name, PyTuple::new(py, bs)?, ns))?;
        out.push(cls.cast_into::<PyType>()?.unbind());
    }
    Ok(out)
}

/// The class object of `e`.
pub fn class(py: Python<'_>, e: Exc) -> PyResult<Bound<'_, PyType>> {
    let all = CLASSES.get_or_try_init(py, || build(py))?;
    all.get(index(e)).map(|t| t.bind(py).clone()).ok_or_else(|| PyTypeError::new_err("exception class"))
}

/// Adds every class to the module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    for (e, name, ..) in TABLE.iter() {
        m.add(*name, class(py, *e)?)?;
    }
    Ok(())
}

/// An instance of `e` with `message`, and `reason_class` set.
pub fn new_err(e: Exc, message: impl Into<String>, reason_class: Option<&str>) -> PyErr {
    let message = message.into();
    Python::attach(|py| {
        let made = class(py, e).and_then(|cls| {
            let inst = cls.call1((message.as_str(),))?;
            if let Some(rc) = reason_class {
                inst.setattr("reason_class", rc)?;
            }
            Ok(PyErr::from_value(inst))
        });
        made.unwrap_or_else(|err| err)
    })
}

/// The class a core error maps onto. The refusals the reference SDK reports with another
/// class (named by the core's `&'static str`, see `Session::apply`) get a class that is
/// also the SDK's.
pub fn exc_of(e: &Error) -> Exc {
    // The details are the core's named constants, the same the core's one SDK table
    // (`Error::sdk_exception`) reads: each class here is that SDK class or a subclass of it.
    use concordia_core::error::detail::{
        FROM_NOT_OBJECT, MESSAGE_NOT_OBJECT, NOT_CONCLUDED, OPEN_BODY_NOT_OBJECT, PREV_HASH, SENDER_MISSING,
        SESSION_ID, SIGNATURE_ENCODING, SIGNATURE_MISSING, SIGNATURE_NOT_STRING, TERMS_UNSIZED, TYPE_MISSING,
    };
    match e {
        Error::Schema(SIGNATURE_MISSING | SIGNATURE_NOT_STRING | SENDER_MISSING) => Exc::MissingSignature,
        Error::Encoding(SIGNATURE_ENCODING) => Exc::SignatureEncoding,
        Error::Schema(MESSAGE_NOT_OBJECT | FROM_NOT_OBJECT | OPEN_BODY_NOT_OBJECT) => Exc::MessageShape,
        Error::Schema(TYPE_MISSING) => Exc::MissingMember,
        Error::Schema(TERMS_UNSIZED) => Exc::UnsizedTerms,
        Error::Transition(NOT_CONCLUDED) => Exc::NotConcluded,
        Error::Json { .. } => Exc::InvalidJson,
        Error::Limit { .. } | Error::BufferTooSmall { .. } => Exc::Limit,
        Error::Encoding(_) => Exc::Encoding,
        Error::Signature | Error::UnknownKey => Exc::InvalidSignature,
        Error::Schema(_) | Error::Shape { .. } => Exc::Schema,
        Error::Digest(_) => Exc::Digest,
        Error::Binding(PREV_HASH) => Exc::ChainIntegrity,
        Error::Binding(SESSION_ID) => Exc::SessionBinding,
        Error::Binding(_) => Exc::Binding,
        Error::Temporal(_) => Exc::Temporal,
        Error::Privacy(_) => Exc::Privacy,
        Error::Transition(_) => Exc::InvalidTransition,
        Error::MaxRounds => Exc::MaxRoundsExceeded,
        Error::InvalidArgument(_) => Exc::InvalidArgument,
        _ => match e.class() {
            Class::Signature => Exc::InvalidSignature,
            Class::Transition => Exc::InvalidTransition,
            _ => Exc::Concordia,
        },
    }
}

/// Newtype so the crate can implement the conversion (orphan rule).
#[derive(Debug, Clone, Copy)]
pub struct CoreError(pub Error);

impl From<Error> for CoreError {
    fn from(e: Error) -> Self {
        CoreError(e)
    }
}

/// The one mapping of core errors onto Python exceptions.
impl From<CoreError> for PyErr {
    fn from(e: CoreError) -> PyErr {
        match e.0 {
            // The host could not allocate what the input needs: Python's own exception.
            Error::Limit { kind: concordia_core::error::Limit::Memory, .. } => PyMemoryError::new_err(e.0.to_string()),
            _ => new_err(exc_of(&e.0), e.0.to_string(), Some(e.0.class().as_str())),
        }
    }
}

/// A message that could not be canonicalized (any `ValueError` or `TypeError` from the
/// dict walker) as `UnverifiableMessageError`: the SDK's `verify_signature` returns False
/// on it, so the SDK raises `InvalidSignatureError`. Other errors pass through.
pub fn unverifiable(py: Python<'_>, err: PyErr) -> PyErr {
    let canonicalization = !err.is_instance_of::<PyRuntimeError>(py)
        && (err.is_instance_of::<PyValueError>(py) || err.is_instance_of::<PyTypeError>(py));
    if canonicalization {
        let e = new_err(Exc::UnverifiableMessage, err.value(py).to_string(), Some("signature"));
        e.set_cause(py, Some(err));
        e
    } else {
        err
    }
}

/// `Result` whose error converts into `PyErr` with `?`.
pub type CoreResult<T> = Result<T, CoreError>;

/// Maps a core result into a Python one.
pub fn core<T>(r: concordia_core::Result<T>) -> PyResult<T> {
    r.map_err(|e| PyErr::from(CoreError(e)))
}
