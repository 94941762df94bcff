//! AIP, the Agent Interaction Protocol: addressing, sealed envelopes, replay protection,
//! verifiable credentials and trust-weighted ranking, without allocation.
//!
//! Concordia SPEC §9.4 names end-to-end payload encryption as planned; this module
//! provides it as the AIP envelope.
//!
//! * [`handle`]: human handles `name#domain`, their URL form `name%23domain` and the
//!   `@name@domain` spelling.
//! * [`did`]: `did:aip:<domain>:<name>` identifiers, the DID Document subset AIP reads
//!   (route mode, endpoint, Ed25519 and X25519 keys) and route selection.
//! * [`envelope`]: the signed envelope `{id, from, to, type, created_at, encrypted_body,
//!   sig}`, built and signed into a caller buffer, parsed and verified in place.
//! * [`hpke`]: the body sealing, RFC 9180 HPKE base mode with DHKEM(X25519,
//!   HKDF-SHA256), HKDF-SHA256 and ChaCha20Poly1305 (the `hpke` crate).
//! * [`replay`]: a fixed-capacity replay window for at-least-once relay delivery.
//! * [`vc`]: W3C Verifiable Credentials with `eddsa-jcs-2022` Data Integrity proofs.
//! * [`trust`]: the trust score update rule and Reciprocal Rank Fusion.
//!
//! Like the rest of the core, nothing here reads a clock or a random source: `now`, the
//! HPKE ephemeral key material and every secret key are inputs.
//!
//! ```
//! # fn main() -> Result<(), concordia_core::Error> {
//! use concordia_core::aip::{handle::Handle, did};
//!
//! let h = Handle::parse("alice#aigentix.org")?;
//! assert_eq!(h.url_form().as_str(), "alice%23aigentix.org");
//! assert_eq!(h.did().as_str(), "did:aip:aigentix.org:alice");
//! assert_eq!(did::parse_did("did:aip:aigentix.org:alice")?, h);
//! assert_eq!(Handle::parse("alice%23aigentix.org")?, h);
//! assert_eq!(Handle::parse("@alice@aigentix.org")?, h);
//! # Ok(())
//! # }
//! ```

pub mod did;
pub mod envelope;
pub mod handle;
pub mod hpke;
pub mod replay;
pub mod trust;
pub mod vc;

#[cfg(test)]
mod tests;
