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
//! The crate is `#![no_std]`, never allocates, forbids `unsafe`, reads no clock and no
//! randomness, and bounds its work on any input.
//!
//! ```
//! use concordia_core::{json, jcs, digest};
//!
//! let mut nodes = [json::Node::EMPTY; 32];
//! let doc = json::parse(br#"{"b": 1.50, "a": [true, "\u00e9"]}"#, &mut nodes).unwrap();
//! let mut out = [0u8; 64];
//! let n = jcs::write_to_slice(doc.root(), &mut out).unwrap();
//! assert_eq!(&out[..n], "{\"a\":[true,\"é\"],\"b\":1.5}".as_bytes());
//! let id = digest::sha256_jcs(doc.root());
//! assert!(id.to_prefixed().as_str().starts_with("sha256:"));
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

pub mod aip;
pub mod attestation;
pub mod consensus;
pub mod did_key;
pub mod digest;
pub mod encoding;
pub mod error;
#[cfg(feature = "es256")]
pub mod es256;
pub mod jcs;
pub mod json;
pub mod message;
pub mod number;
pub mod offer;
pub mod preimage;
pub mod privacy;
pub mod profiles;
pub mod pyre;
pub mod record;
pub mod schema;
#[cfg(feature = "serde")]
pub mod serde;
pub mod session;
pub mod sign;
pub mod sink;
pub mod time;

pub use error::{Class, Error, Result};
/// The `zeroize` crate the core erases secrets with (re-exported so that every host uses
/// the same version for the copies it holds: `concordia_core::zeroize::Zeroizing`).
pub use zeroize;
