//! The error enums of the bindings: one flat `uniffi::Error` per domain.
//!
//! "Flat" means the foreign side sees the variant and a message only (Swift
//! `case Schema(message: String)`, Kotlin `SchemaException(message)`, Python
//! `ProtocolError.Schema("...")`). The message is the core's `Display` text, which names
//! the rule that failed and, for malformed JSON, the byte offset. docs/adr/0003 explains the
//! choice. Every variant below is reachable from some export, and the Python-backend
//! tests trigger each one (except [`SignatureError::Randomness`] and
//! [`AipError::Randomness`], see there).

use std::fmt;

use concordia_core::{Class, Error};

/// Implements `Display` (the message) and `std::error::Error` for a flat error enum whose
/// variants all hold one `String`.
macro_rules! flat_error {
    ($name:ident { $($variant:ident),+ $(,)? }) => {
        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                match self {
                    $($name::$variant(m))|+ => f.write_str(m),
                }
            }
        }
        impl std::error::Error for $name {}
    };
}

/// Errors of the canonical JSON functions (`canonicalize`, `hash`).
#[derive(Debug, Clone, PartialEq, Eq, uniffi::Error)]
#[uniffi(flat_error)]
pub enum JsonError {
    /// The text is not strict JSON (RFC 8259 + I-JSON: duplicate names, lone surrogates,
    /// `-0`, integers beyond 2^53 - 1, ...). The message carries the byte offset.
    Syntax(String),
    /// Nesting deeper than the reader's depth limit, or an input too large to index.
    Limit(String),
}
flat_error!(JsonError { Syntax, Limit });

impl From<Error> for JsonError {
    fn from(e: Error) -> Self {
        let m = e.to_string();
        match e.class() {
            Class::Limit => JsonError::Limit(m),
            _ => JsonError::Syntax(m),
        }
    }
}

/// Errors of keys, signing and signature verification.
#[derive(Debug, Clone, PartialEq, Eq, uniffi::Error)]
#[uniffi(flat_error)]
pub enum SignatureError {
    /// The signature does not verify under the key (or the key is not a valid curve point).
    /// Deliberately without detail.
    InvalidSignature(String),
    /// A base64/base64url key or signature, or a `sha256:` hash, is malformed or has the
    /// wrong length.
    Encoding(String),
    /// The JSON is not an object, or lacks a string `signature`.
    Schema(String),
    /// The JSON text is malformed or exceeds a limit (message has the byte offset).
    Json(String),
    /// An argument is out of its domain (a seed that is not 32 bytes, a `ttl` beyond 2^53 - 1).
    InvalidArgument(String),
    /// The operating system's random generator failed (`KeyPair.generate` only).
    Randomness(String),
}
flat_error!(SignatureError { InvalidSignature, Encoding, Schema, Json, InvalidArgument, Randomness });

impl From<Error> for SignatureError {
    fn from(e: Error) -> Self {
        let m = e.to_string();
        match e {
            Error::Signature | Error::UnknownKey => SignatureError::InvalidSignature(m),
            Error::Encoding(_) => SignatureError::Encoding(m),
            Error::Schema(_) | Error::Shape { .. } => SignatureError::Schema(m),
            Error::Json { .. } | Error::Limit { .. } | Error::BufferTooSmall { .. } => SignatureError::Json(m),
            _ => SignatureError::InvalidArgument(m),
        }
    }
}

/// Errors of protocol verification (profiles, transcripts, sessions, attestations). The
/// variants are the core's reason classes (`Error::class()`), so `ProtocolError.Binding`
/// is what the conformance contract calls a `binding` rejection.
#[derive(Debug, Clone, PartialEq, Eq, uniffi::Error)]
#[uniffi(flat_error)]
pub enum ProtocolError {
    /// Unacceptable input before any protocol rule: malformed JSON, bad encoding, an
    /// argument out of its domain, an unknown profile name.
    Input(String),
    /// A bound was exceeded (nesting depth, a session's 8 parties, a schema step budget).
    Limit(String),
    /// The record does not have the required shape.
    Schema(String),
    /// A signature did not verify, or the signer's key is unknown.
    Signature(String),
    /// A recomputed digest differs from the recorded one.
    Digest(String),
    /// A record is not bound to what it claims (chain link, session id, set binding).
    Binding(String),
    /// A time or validity-window check failed (expired session or offer).
    Temporal(String),
    /// The record discloses raw deal terms where it must not.
    Privacy(String),
    /// The session's state machine does not allow this message (or `max_rounds` is reached).
    Transition(String),
}
flat_error!(ProtocolError { Input, Limit, Schema, Signature, Digest, Binding, Temporal, Privacy, Transition });

impl From<Error> for ProtocolError {
    fn from(e: Error) -> Self {
        let m = e.to_string();
        match e.class() {
            Class::Limit => ProtocolError::Limit(m),
            Class::Schema => ProtocolError::Schema(m),
            Class::Signature => ProtocolError::Signature(m),
            Class::Digest => ProtocolError::Digest(m),
            Class::Binding => ProtocolError::Binding(m),
            Class::Temporal => ProtocolError::Temporal(m),
            Class::Privacy => ProtocolError::Privacy(m),
            Class::Transition => ProtocolError::Transition(m),
            _ => ProtocolError::Input(m),
        }
    }
}

/// Errors of the Consensus venue primitives.
#[derive(Debug, Clone, PartialEq, Eq, uniffi::Error)]
#[uniffi(flat_error)]
pub enum ConsensusError {
    /// Malformed JSON, a malformed digest or `Content-Digest`, an invalid fragment secret.
    Input(String),
    /// An email, block or wire body over its size limit.
    Limit(String),
    /// Missing invitation markers, a block or command without the required shape, a body
    /// that does not suit the action, a revision out of range.
    Schema(String),
    /// A digest (revision, Markdown, artifact header) differs from the bytes.
    Digest(String),
    /// An invitation URL with the wrong scheme or origin, or differing UUIDs.
    Binding(String),
    /// An invitation URL with a query string.
    Privacy(String),
    /// An artifact for a round whose outcome is not `reached`.
    Transition(String),
}
flat_error!(ConsensusError { Input, Limit, Schema, Digest, Binding, Privacy, Transition });

impl From<Error> for ConsensusError {
    fn from(e: Error) -> Self {
        let m = e.to_string();
        match e.class() {
            Class::Limit => ConsensusError::Limit(m),
            Class::Schema => ConsensusError::Schema(m),
            Class::Digest => ConsensusError::Digest(m),
            Class::Binding => ConsensusError::Binding(m),
            Class::Privacy => ConsensusError::Privacy(m),
            Class::Transition => ConsensusError::Transition(m),
            _ => ConsensusError::Input(m),
        }
    }
}

/// Errors of AIP (`aip_*` functions, `AipKeyPair`, `AipReplayWindow`). Like
/// `ProtocolError`, the variants are the core's reason classes (those AIP can raise),
/// plus `AipError::Randomness` and `AipError::Replay`.
#[derive(Debug, Clone, PartialEq, Eq, uniffi::Error)]
#[uniffi(flat_error)]
pub enum AipError {
    /// Unacceptable input before any rule: malformed JSON, a bad handle or `did:aip`, a
    /// malformed multikey or base64url, a key or seed that is not 32 bytes, a rank of 0,
    /// a trust score outside `[0, 1]`, a replay window snapshot that is truncated, corrupt
    /// or of another version.
    Input(String),
    /// A fixed capacity is full: a replay window whose every slot holds an id still inside
    /// the window, more than 4 keys of a kind in a DID Document, more than 256 credential
    /// edges.
    Limit(String),
    /// A DID Document, envelope, credential or proof without the required shape (members,
    /// UUID v4 `id`, RFC 3339 times, `type` grammar, endpoint URL).
    Schema(String),
    /// An envelope or credential signature does not verify, or a sealed body does not open
    /// (wrong key, tampered body or header). Deliberately without detail.
    Signature(String),
    /// An envelope's `from` is not the sender document's `id`; a credential's signer is not
    /// its issuer, its issuer not a trust anchor, or it is revoked.
    Binding(String),
    /// A `created_at` outside the replay window (over `MAX_FUTURE_SKEW` ahead, over `WINDOW`
    /// old, or not after a cold start still in force); a credential not yet valid or expired.
    Temporal(String),
    /// The operating system's random generator failed (key generation, sealing, message
    /// ids).
    Randomness(String),
    /// `aip_open` with a replay window: an envelope whose id the window has
    /// already seen (a duplicate delivery or a replay; acknowledge it, do not process it
    /// again).
    Replay(String),
}
flat_error!(AipError { Input, Limit, Schema, Signature, Binding, Temporal, Randomness, Replay });

impl From<Error> for AipError {
    fn from(e: Error) -> Self {
        let m = e.to_string();
        match e.class() {
            Class::Limit => AipError::Limit(m),
            Class::Schema => AipError::Schema(m),
            Class::Signature => AipError::Signature(m),
            Class::Binding => AipError::Binding(m),
            Class::Temporal => AipError::Temporal(m),
            // Digest, privacy and transition rules are not part of AIP; a future class
            // lands here rather than in a panic.
            _ => AipError::Input(m),
        }
    }
}

/// Prefixes a protocol error's message with where it happened (e.g. `message 3: ...`).
pub(crate) fn with_context(e: ProtocolError, at: &str) -> ProtocolError {
    use ProtocolError as P;
    let wrap = |m: String| format!("{at}: {m}");
    match e {
        P::Input(m) => P::Input(wrap(m)),
        P::Limit(m) => P::Limit(wrap(m)),
        P::Schema(m) => P::Schema(wrap(m)),
        P::Signature(m) => P::Signature(wrap(m)),
        P::Digest(m) => P::Digest(wrap(m)),
        P::Binding(m) => P::Binding(wrap(m)),
        P::Temporal(m) => P::Temporal(wrap(m)),
        P::Privacy(m) => P::Privacy(wrap(m)),
        P::Transition(m) => P::Transition(wrap(m)),
    }
}
