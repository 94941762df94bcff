//! # concordia-core
//!
//! The allocation-free core of the Concordia agent-negotiation protocol.
//!
//! * [`json`]: a strict RFC 8259 / I-JSON reader into a caller-provided node buffer.
//! * [`jcs`]: the RFC 8785 canonical writer, into a buffer or any [`sink::Sink`].
//! * [`digest`]: `sha256:<hex>` record identity over canonical JSON.
//! * [`sign`]: Ed25519 keys, signatures and base64url forms.
//! * [`preimage`]: the three signature-preimage rules of SPEC §9.2.1 as streaming filters.
//! * [`message`]: the signed message envelope and the hash-chained transcript.
//! * [`session`]: the negotiation state machine (SPEC §5); [`offer`]: offers (§6).
//! * [`profiles`]: the 22 conformance verification profiles; [`schema`]: their JSON
//!   Schema checks; [`time`]: timestamps as the contract reads them.
//! * `serde` (feature `serde`): canonical form, digest, signatures and zero-copy reading of
//!   serde types, with no allocator.
//!
//! The crate builds in parts: the JSON layer, digests, Ed25519, messages, sessions and
//! offers are always there; the features `aip`, `consensus`, `es256`, `schema`,
//! `attestation` and `profiles` (all in `default`) each add one part that nothing
//! always-on needs, with the dependencies only that part uses (core/README.md has the
//! table). With `default-features = false` a user of canonical JSON and Ed25519 compiles
//! little more than `sha2`, the Ed25519 crates, `heapless` and `ryu-js`.
//!
//! The crate is `#![no_std]`, never allocates, forbids `unsafe`, reads no clock and no
//! randomness, and bounds its work on any input.
//!
//! ```
//! # fn main() -> Result<(), concordia_core::Error> {
//! use concordia_core::{json, jcs, digest};
//!
//! let mut nodes = [json::Node::EMPTY; 32];
//! let doc = json::parse(br#"{"b": 1.50, "a": [true, "\u00e9"]}"#, &mut nodes)?;
//! let mut out = [0u8; 64];
//! let n = jcs::write_to_slice(doc.root(), &mut out)?;
//! assert_eq!(&out[..n], "{\"a\":[true,\"é\"],\"b\":1.5}".as_bytes());
//! let id = digest::sha256_jcs(doc.root());
//! assert!(id.to_prefixed().as_str().starts_with("sha256:"));
//! # Ok(())
//! # }
//! ```
#![no_std]
#![forbid(unsafe_code)]
#![warn(missing_docs)]
#![cfg_attr(not(test), deny(clippy::unwrap_used, clippy::expect_used, clippy::panic))]
// The crate README (crates.io page) is checked as a doctest.
#![cfg_attr(doctest, doc = include_str!("../README.md"))]

#[cfg(test)]
extern crate std;
#[cfg(test)]
mod test_fixtures;

// The modules by layer, lowest first; a module imports only from its own layer or the
// ones above it in this list (ARCHITECTURE.md has the picture). `profiles` is a leaf:
// nothing else imports it.

// Foundation: the one error type and the byte sinks every writer and digest goes through.
pub mod error;
pub mod sink;

// Codecs: text encodings of bytes, Python `re` character classes, contract timestamps.
pub mod encoding;
pub mod pyre;
pub mod time;

// JSON: the strict reader, ECMAScript numbers, the RFC 8785 writer, the signature-preimage
// filters.
pub mod jcs;
pub mod json;
pub mod number;
pub mod preimage;

// Crypto: record digests, Ed25519, ES256, `did:key` multikeys; and serde types in
// canonical form, digested and signed (feature `serde`).
pub mod did_key;
pub mod digest;
#[cfg(feature = "es256")]
pub mod es256;
#[cfg(feature = "serde")]
pub mod serde;
pub mod sign;
pub mod signer;

// Record kernel: readers and rules shared by several kinds of record (key and signature
// readers, digest comparison, timestamps, the version gate), the raw-deal-term detectors
// and the JSON Schema engine.
pub mod privacy;
pub mod record;
#[cfg(feature = "schema")]
pub mod schema;

// Protocol modules: messages and transcripts, the session state machine, offers,
// attestations, Consensus venue primitives, AIP.
#[cfg(feature = "aip")]
pub mod aip;
#[cfg(feature = "attestation")]
pub mod attestation;
#[cfg(feature = "consensus")]
pub mod consensus;
pub mod message;
pub mod offer;
pub mod session;

// Profiles: the 22 conformance verification profiles, composed from everything above.
#[cfg(feature = "profiles")]
pub mod profiles;

pub use error::{Class, Error, Result};
/// The `zeroize` crate the core erases secrets with (re-exported so that every host uses
/// the same version for the copies it holds: `concordia_core::zeroize::Zeroizing`).
pub use zeroize;
