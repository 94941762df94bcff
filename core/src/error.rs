//! The one error model of the core.
//!
//! Every fallible function in this crate returns [`Error`]: a small `Copy` value with no
//! heap data. Parse errors carry the byte offset at which the input stopped making sense.
//! Cryptographic failures carry no detail beyond [`Error::Signature`], so that an attacker
//! learns nothing from the error about why a forgery failed.
//!
//! [`Error::class`] maps every error onto the reason classes of the Concordia conformance
//! contract (`schema`, `signature`, `digest`, `binding`, `temporal`, `privacy`,
//! `transition`), plus `input` and `limit` for errors that arise before any protocol rule
//! is evaluated.

use core::fmt;

/// Why a JSON text was rejected by the strict reader.
#[non_exhaustive]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Syntax {
    /// The input ended in the middle of a value (or was empty).
    UnexpectedEnd,
    /// A byte that cannot start or continue the value at this point.
    UnexpectedByte,
    /// Bytes other than whitespace after the top-level value.
    TrailingBytes,
    /// The input is not valid UTF-8.
    InvalidUtf8,
    /// A raw control character (U+0000 to U+001F) inside a string.
    ControlCharacter,
    /// A backslash escape that RFC 8259 does not define, or a malformed `\u` escape.
    InvalidEscape,
    /// A `\u` escape of a UTF-16 surrogate that is not part of a valid pair.
    LoneSurrogate,
    /// A number that does not follow the RFC 8259 grammar (leading zeros, `NaN`, `.5`, ...).
    InvalidNumber,
    /// A number whose magnitude is too large for an IEEE-754 double.
    NumberOutOfRange,
    /// An integer literal beyond ±(2^53 - 1), which a double cannot represent exactly.
    UnsafeInteger,
    /// A number that evaluates to negative zero, which the Concordia SDKs refuse to sign.
    NegativeZero,
    /// An object member name that already occurred in the same object.
    DuplicateKey,
    /// A UTF-8 byte order mark at the start of the text.
    ByteOrderMark,
}

/// Which caller-set bound was exceeded.
#[non_exhaustive]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Limit {
    /// Containers nested deeper than the configured maximum depth.
    Depth,
    /// More values than the caller's node buffer holds.
    Nodes,
    /// An input larger than the core can index (4 GiB) or than a fixed-size field allows.
    Size,
    /// A fixed-capacity table (parties, keys, window entries) is full.
    Capacity,
    /// A bounded computation (JSON Schema evaluation) used up its step budget.
    Steps,
    /// A host could not allocate the memory an input needs (the core itself never
    /// allocates; hosts report exhaustion with this instead of aborting).
    Memory,
}

/// The reason classes of the conformance contract, plus `Input` and `Limit`.
#[non_exhaustive]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Class {
    /// The bytes are not acceptable input (malformed JSON, bad encoding).
    Input,
    /// A caller-set bound was exceeded; the input may be fine with more room.
    Limit,
    /// The record does not have the required shape.
    Schema,
    /// A signature did not verify.
    Signature,
    /// A recomputed digest does not match the recorded one.
    Digest,
    /// A record is not bound to what it claims (chain links, session, set-binding).
    Binding,
    /// A time or validity window check failed.
    Temporal,
    /// A record discloses what it must not (raw deal terms).
    Privacy,
    /// A state transition that the protocol's table does not allow.
    Transition,
}

impl Class {
    /// The lowercase name used by the conformance contract (`"schema"`, `"binding"`, ...).
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Class::Input => "input",
            Class::Limit => "limit",
            Class::Schema => "schema",
            Class::Signature => "signature",
            Class::Digest => "digest",
            Class::Binding => "binding",
            Class::Temporal => "temporal",
            Class::Privacy => "privacy",
            Class::Transition => "transition",
        }
    }
}

impl fmt::Display for Class {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// An error from the Concordia core.
///
/// The `&'static str` payloads name the field or rule that failed (for example
/// `"prev_hash"`); they never contain input data.
#[non_exhaustive]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Error {
    /// The JSON text is malformed; `offset` is the byte at which reading stopped.
    Json {
        /// What was wrong.
        kind: Syntax,
        /// Byte offset into the input.
        offset: usize,
    },
    /// A caller-set bound was exceeded; `offset` is where in the input, when known.
    Limit {
        /// Which bound.
        kind: Limit,
        /// Byte offset into the input (0 when not tied to a position).
        offset: usize,
    },
    /// The output buffer is too small; `needed` is the number of bytes the output requires.
    BufferTooSmall {
        /// The full length of the output.
        needed: usize,
    },
    /// A base64, base64url, base58 or hex text could not be decoded, or decoded to the
    /// wrong length.
    Encoding(&'static str),
    /// A signature did not verify (or a public key was not a valid curve point).
    Signature,
    /// The signer's public key could not be found (unknown sender or party).
    UnknownKey,
    /// A required member is missing or has the wrong JSON type.
    Schema(&'static str),
    /// The JSON is well-formed but a value does not have the shape the Rust type asks for
    /// (serde deserialization, `concordia_core::serde::from_slice`): a wrong type, value or length,
    /// a missing, unknown or duplicate field, an unknown variant, or a `Deserialize` impl's
    /// own refusal. Reason class `schema`.
    Shape {
        /// What was wrong (`"invalid type"`, `"unknown field"`, ...); for a missing field,
        /// the field's name.
        what: &'static str,
        /// Byte offset into the input: the offending value's first byte; for a missing
        /// field the object's `{`; for an unknown or duplicate field the opening quote of
        /// its name; for an unknown variant the opening quote of the variant's name.
        offset: usize,
    },
    /// A recomputed digest differs from the recorded one.
    Digest(&'static str),
    /// A binding between records does not hold (chain link, session id, receipt set).
    Binding(&'static str),
    /// A time check failed (expired, not yet valid, malformed timestamp ordering).
    Temporal(&'static str),
    /// The record discloses raw deal terms where it must not.
    Privacy(&'static str),
    /// The state machine does not allow this transition.
    Transition(&'static str),
    /// An offer or counter beyond the session's `max_rounds`.
    MaxRounds,
    /// An argument from the caller is out of its documented domain.
    InvalidArgument(&'static str),
    /// An external signer ([`crate::signer::Signer`]) failed or returned a signature that
    /// does not verify under its public key; nothing was signed.
    Signer(&'static str),
}

impl Error {
    /// The conformance reason class of this error.
    #[must_use]
    pub const fn class(&self) -> Class {
        match self {
            Error::Json { .. } | Error::Encoding(_) | Error::InvalidArgument(_) | Error::Signer(_) => Class::Input,
            Error::Limit { .. } | Error::BufferTooSmall { .. } => Class::Limit,
            Error::Signature | Error::UnknownKey => Class::Signature,
            Error::Schema(_) | Error::Shape { .. } => Class::Schema,
            Error::Digest(_) => Class::Digest,
            Error::Binding(_) => Class::Binding,
            Error::Temporal(_) => Class::Temporal,
            Error::Privacy(_) => Class::Privacy,
            Error::Transition(_) | Error::MaxRounds => Class::Transition,
        }
    }

    /// The byte offset into the input where the error was found, for parse, limit and
    /// shape errors.
    #[must_use]
    pub const fn offset(&self) -> Option<usize> {
        match self {
            Error::Json { offset, .. } | Error::Limit { offset, .. } | Error::Shape { offset, .. } => Some(*offset),
            _ => None,
        }
    }

    pub(crate) const fn json(kind: Syntax, offset: usize) -> Self {
        Error::Json { kind, offset }
    }

    pub(crate) const fn limit(kind: Limit, offset: usize) -> Self {
        Error::Limit { kind, offset }
    }
}

impl fmt::Display for Syntax {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Syntax::UnexpectedEnd => "unexpected end of input",
            Syntax::UnexpectedByte => "unexpected byte",
            Syntax::TrailingBytes => "trailing bytes after the JSON value",
            Syntax::InvalidUtf8 => "invalid UTF-8",
            Syntax::ControlCharacter => "raw control character in string",
            Syntax::InvalidEscape => "invalid escape sequence",
            Syntax::LoneSurrogate => "lone UTF-16 surrogate escape",
            Syntax::InvalidNumber => "invalid number",
            Syntax::NumberOutOfRange => "number out of the range of a double",
            Syntax::UnsafeInteger => "integer beyond the exact range of a double (2^53 - 1)",
            Syntax::NegativeZero => "negative zero is not allowed",
            Syntax::DuplicateKey => "duplicate member name",
            Syntax::ByteOrderMark => "byte order mark is not allowed",
        })
    }
}

impl fmt::Display for Limit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Limit::Depth => "nesting depth limit exceeded",
            Limit::Nodes => "node buffer is full",
            Limit::Size => "input too large",
            Limit::Capacity => "fixed capacity exceeded",
            Limit::Steps => "step budget exhausted",
            Limit::Memory => "not enough memory",
        })
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Json { kind, offset } => write!(f, "malformed JSON at byte {offset}: {kind}"),
            Error::Limit { kind, offset } => write!(f, "{kind} at byte {offset}"),
            Error::BufferTooSmall { needed } => {
                write!(f, "output buffer too small: {needed} bytes needed")
            }
            Error::Encoding(what) => write!(f, "invalid encoding: {what}"),
            Error::Signature => f.write_str("signature verification failed"),
            Error::UnknownKey => f.write_str("no public key is known for the signer"),
            Error::Schema(what) => write!(f, "schema check failed: {what}"),
            Error::Shape { what, offset } => write!(f, "schema check failed: {what} at byte {offset}"),
            Error::Digest(what) => write!(f, "digest mismatch: {what}"),
            Error::Binding(what) => write!(f, "binding check failed: {what}"),
            Error::Temporal(what) => write!(f, "temporal check failed: {what}"),
            Error::Privacy(what) => write!(f, "privacy check failed: {what}"),
            Error::Transition(what) => write!(f, "invalid transition: {what}"),
            Error::MaxRounds => f.write_str("max_rounds reached: no further offers or counters"),
            Error::InvalidArgument(what) => write!(f, "invalid argument: {what}"),
            Error::Signer(what) => write!(f, "signer error: {what}"),
        }
    }
}

impl core::error::Error for Error {}

/// Shorthand for `core::result::Result<T, Error>`.
pub type Result<T> = core::result::Result<T, Error>;

/// Named error details that hosts tell apart (to pick the reference SDK's exception class),
/// written once here and used by the code that raises them, so that a match on a detail is a
/// match on a constant, not on a copy of a string.
pub mod detail {
    /// `Schema`: a message without `signature` (SDK: `InvalidSignatureError`).
    pub const SIGNATURE_MISSING: &str = "signature missing";
    /// `Schema`: a `signature` that is not a string (SDK: `InvalidSignatureError`).
    pub const SIGNATURE_NOT_STRING: &str = "signature must be a string";
    /// `Encoding`: a signature text that is not the one spelling of 64 bytes (SDK:
    /// `InvalidSignatureError`; its `verify_signature` says False).
    pub const SIGNATURE_ENCODING: &str = "signature";
    /// `Schema`: no string `from.agent_id` (SDK: `InvalidSignatureError`).
    pub const SENDER_MISSING: &str = "from.agent_id";
    /// `Schema`: the message is not an object (SDK: `AttributeError`).
    pub const MESSAGE_NOT_OBJECT: &str = "message must be an object";
    /// `Schema`: `from` is not an object (SDK: `AttributeError`).
    pub const FROM_NOT_OBJECT: &str = "from must be an object";
    /// `Schema`: a `negotiate.open` body that is not an object (SDK: `AttributeError`).
    pub const OPEN_BODY_NOT_OBJECT: &str = "open body must be an object";
    /// `Schema`: a message without `type` (SDK: `KeyError`).
    pub const TYPE_MISSING: &str = "type missing";
    /// `Schema`: `terms` without a length (SDK: `TypeError`).
    pub const TERMS_UNSIZED: &str = "terms has no length";
    /// `Transition`: an attestation of a session that has not concluded (SDK: `ValueError`).
    pub const NOT_CONCLUDED: &str = "attestation needs a concluded session";
    /// `Binding`: `prev_hash` does not link to the previous message (SDK: `ChainIntegrityError`).
    pub const PREV_HASH: &str = "prev_hash";
    /// `Binding`: another session's `session_id` (SDK: `SessionBindingError`).
    pub const SESSION_ID: &str = "session_id";
    /// `Encoding`: bytes or text that are not a P-256 public key (SDK: `ValueError` from
    /// `EllipticCurvePublicKey.from_encoded_point`).
    pub const ES256_PUBLIC_KEY: &str = "ES256 public key";
    /// `InvalidArgument`: an ES256 private scalar that is zero or not below the group order
    /// (SDK: `ValueError` from `derive_private_key`).
    pub const ES256_PRIVATE_KEY: &str = "ES256 private key";
    /// `InvalidArgument`: a signature algorithm other than `EdDSA` and `ES256` (SDK:
    /// `ValueError` from `sign_message`; its `verify_signature` says False).
    pub const ALG: &str = "alg";
}

/// The reference SDK's exception class for an error, where the SDK raises one (its
/// `concordia.session` exceptions and the Python built-ins it lets through). The one table
/// every host uses: the CLI prints [`SdkException::name`], the Python binding raises a class
/// that is this one or a subclass of it.
#[non_exhaustive]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SdkException {
    /// `InvalidSignatureError`.
    InvalidSignature,
    /// `SessionBindingError`.
    SessionBinding,
    /// `ChainIntegrityError`.
    ChainIntegrity,
    /// `InvalidTransitionError`.
    InvalidTransition,
    /// `MaxRoundsExceededError` (a subclass of `InvalidTransitionError`).
    MaxRoundsExceeded,
    /// `KeyError`.
    KeyError,
    /// `AttributeError`.
    AttributeError,
    /// `TypeError`.
    TypeError,
    /// `ValueError`: everything else the SDK refuses, or where it has no class of its own.
    ValueError,
}

impl SdkException {
    /// The SDK's class name.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            SdkException::InvalidSignature => "InvalidSignatureError",
            SdkException::SessionBinding => "SessionBindingError",
            SdkException::ChainIntegrity => "ChainIntegrityError",
            SdkException::InvalidTransition => "InvalidTransitionError",
            SdkException::MaxRoundsExceeded => "MaxRoundsExceededError",
            SdkException::KeyError => "KeyError",
            SdkException::AttributeError => "AttributeError",
            SdkException::TypeError => "TypeError",
            SdkException::ValueError => "ValueError",
        }
    }
}

impl Error {
    /// The reference SDK's exception class for this error (see [`SdkException`]).
    #[must_use]
    pub fn sdk_exception(&self) -> SdkException {
        use detail::*;
        match *self {
            Error::Schema(SIGNATURE_MISSING | SIGNATURE_NOT_STRING | SENDER_MISSING) => SdkException::InvalidSignature,
            Error::Encoding(SIGNATURE_ENCODING) => SdkException::InvalidSignature,
            Error::Schema(MESSAGE_NOT_OBJECT | FROM_NOT_OBJECT | OPEN_BODY_NOT_OBJECT) => SdkException::AttributeError,
            Error::Schema(TYPE_MISSING) => SdkException::KeyError,
            Error::Schema(TERMS_UNSIZED) => SdkException::TypeError,
            Error::Transition(NOT_CONCLUDED) => SdkException::ValueError,
            Error::Binding(PREV_HASH) => SdkException::ChainIntegrity,
            Error::Binding(SESSION_ID) => SdkException::SessionBinding,
            Error::MaxRounds => SdkException::MaxRoundsExceeded,
            _ => match self.class() {
                Class::Signature => SdkException::InvalidSignature,
                Class::Binding => SdkException::ChainIntegrity,
                Class::Transition => SdkException::InvalidTransition,
                _ => SdkException::ValueError,
            },
        }
    }
}

#[cfg(test)]
mod sdk_exception_tests {
    use super::detail::*;
    use super::*;

    #[test]
    fn the_sdk_table() {
        for (e, sdk) in [
            (Error::Schema(SIGNATURE_MISSING), "InvalidSignatureError"),
            (Error::Schema(SIGNATURE_NOT_STRING), "InvalidSignatureError"),
            (Error::Schema(SENDER_MISSING), "InvalidSignatureError"),
            (Error::Signature, "InvalidSignatureError"),
            (Error::UnknownKey, "InvalidSignatureError"),
            (Error::Encoding(SIGNATURE_ENCODING), "InvalidSignatureError"),
            (Error::Encoding("hex character"), "ValueError"),
            (Error::Schema(MESSAGE_NOT_OBJECT), "AttributeError"),
            (Error::Schema(FROM_NOT_OBJECT), "AttributeError"),
            (Error::Schema(OPEN_BODY_NOT_OBJECT), "AttributeError"),
            (Error::Schema(TYPE_MISSING), "KeyError"),
            (Error::Schema(TERMS_UNSIZED), "TypeError"),
            (Error::Binding(PREV_HASH), "ChainIntegrityError"),
            (Error::Binding(SESSION_ID), "SessionBindingError"),
            (Error::Transition("x"), "InvalidTransitionError"),
            (Error::Transition(NOT_CONCLUDED), "ValueError"),
            (Error::MaxRounds, "MaxRoundsExceededError"),
            (Error::Schema("x"), "ValueError"),
            (Error::Shape { what: "invalid type", offset: 3 }, "ValueError"),
            (Error::Temporal("ttl"), "ValueError"),
            (Error::Encoding(ES256_PUBLIC_KEY), "ValueError"),
            (Error::InvalidArgument(ES256_PRIVATE_KEY), "ValueError"),
            (Error::InvalidArgument(ALG), "ValueError"),
        ] {
            assert_eq!(e.sdk_exception().name(), sdk, "{e:?}");
        }
    }
}
