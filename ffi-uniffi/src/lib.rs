//! # concordia-uniffi
//!
//! UniFFI bindings of `concordia-core` for mobile wallets: Swift (`bindings-swift/`, an
//! XCFramework package), Kotlin (`ffi-uniffi/bindings/kotlin/`, with the `.so` files of
//! cargo-ndk) and, for CI, Python. Proc-macro mode (no UDL); `uniffi.toml` names the
//! Swift module and the Kotlin package.
//!
//! Like every wrapper of the core, this crate contains no protocol logic: each export
//! converts foreign types into core types, owns the buffers the core writes into, calls
//! the core and maps its error onto one flat error enum per domain ([`errors`]).
//!
//! * JSON: [`canonicalize`], [`hash`].
//! * Keys: [`keys::KeyPair`] (generate, from seed, public key, sign, sign object, sign
//!   envelope), [`keys::verify_signature`], [`keys::verify_detached`].
//! * Protocol: [`profiles::verify_profile`], [`transcript::TranscriptVerifier`],
//!   [`transcript::verify_transcript_file`],
//!   [`session::Session`], [`attestation::generate_attestation`],
//!   [`attestation::verify_attestation`].
//! * Consensus: [`consensus`] (revision and Markdown digests, invitation summary, room
//!   commands and their idempotency key, a room log replayed to its outcome, artifact
//!   verification).
//! * AIP: [`aip`] (handles and `did:aip`, DID Documents and route selection,
//!   [`aip::AipKeyPair`] and the CLI's key files, sealed envelopes (opened with the
//!   CLI's addressee, freshness and replay checks), [`aip::AipReplayWindow`],
//!   `eddsa-jcs-2022` credentials, trust score and ranking).
//!
//! Times cross the boundary as the foreign platform's timestamp type (Swift `Date`,
//! Kotlin `java.time.Instant`, Python `datetime`); the core reads no clock.
#![deny(unsafe_code)]
#![warn(missing_docs)]

uniffi::setup_scaffolding!();

pub mod aip;
pub mod attestation;
pub mod consensus;
pub mod errors;
pub mod es256;
pub mod keys;
pub mod profiles;
pub mod session;
pub mod transcript;
mod util;

use concordia_core::{digest, jcs};

pub use errors::{AipError, ConsensusError, JsonError, ProtocolError, SignatureError};

/// The library version (`0.1.0`).
#[uniffi::export]
pub fn version() -> String {
    env!("CARGO_PKG_VERSION").to_string()
}

/// The RFC 8785 canonical form of the JSON text `json`. The input is read strictly
/// (RFC 8259 + I-JSON: no duplicate names, no lone surrogates, no `-0`, no integers
/// beyond 2^53 - 1).
#[uniffi::export]
pub fn canonicalize(json: String) -> Result<String, JsonError> {
    let mut nodes = concordia_host::Nodes::new();
    let doc = util::parse(json.as_bytes(), &mut nodes)?;
    // The canonical form is never longer than the input.
    Ok(util::utf8(util::write_vec(json.len(), |buf| jcs::write_to_slice(doc.root(), buf))?))
}

/// `sha256:<64 lowercase hex>` of the canonical form of `json`: a record's identity, and
/// a message's chain hash (signature included).
#[uniffi::export]
pub fn hash(json: String) -> Result<String, JsonError> {
    let mut nodes = concordia_host::Nodes::new();
    let doc = util::parse(json.as_bytes(), &mut nodes)?;
    Ok(digest::sha256_jcs(doc.root()).to_prefixed().as_str().to_string())
}
