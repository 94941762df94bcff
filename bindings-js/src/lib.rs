//! # concordia-wasm
//!
//! The WebAssembly bindings of `concordia-core` behind the npm package `concordia-rs`
//! (`bindings-js/`): built for `wasm32-unknown-unknown` by `bindings-js/build.sh` and
//! turned into ES module glue by a `wasm-bindgen-cli` of exactly this crate's
//! `wasm-bindgen` version. The names mirror the UniFFI bindings (`ffi-uniffi/`) in
//! camelCase.
//!
//! Like every wrapper of the core, this crate holds no protocol logic: each export
//! converts JavaScript values into core types, owns the buffers the core writes into
//! (through `concordia-host`), calls the core and maps its error onto one JavaScript
//! error (see [`errors`]).
//!
//! * JSON: [`canonicalize`], [`hash`].
//! * Keys: [`keys::KeyPair`], [`keys::verify_signature`], [`keys::verify_detached`].
//! * Protocol: [`verify_profile`], [`transcript::TranscriptVerifier`],
//!   [`transcript::verify_transcript`], [`session::Session`],
//!   [`attestation::generate_attestation`], [`attestation::verify_attestation`].
//! * Consensus: [`consensus`]. AIP: [`aip`].
//!
//! Times cross the boundary as JavaScript `Date`s (or milliseconds since the epoch);
//! randomness comes from WebCrypto (`crypto.getRandomValues`) through getrandom.
#![deny(unsafe_code)]
#![warn(missing_docs)]

pub mod aip;
pub mod attestation;
pub mod consensus;
pub mod errors;
pub mod es256;
pub mod keys;
pub mod session;
pub mod transcript;
mod util;

use concordia_core::profiles::{self, Profile, VerifyOptions};
use concordia_core::{digest, jcs, Error};
use wasm_bindgen::prelude::*;

use crate::errors::JsResult;
use crate::util::utf8;

/// The library version (`0.1.0`).
#[wasm_bindgen]
pub fn version() -> String {
    env!("CARGO_PKG_VERSION").to_string()
}

/// The RFC 8785 canonical form of the JSON text `json`, read strictly (RFC 8259 + I-JSON:
/// no duplicate names, no lone surrogates, no `-0`, no integers beyond 2^53 - 1).
///
/// # Errors
/// `InputError` (malformed JSON, with `offset`), `LimitError` (depth).
#[wasm_bindgen]
pub fn canonicalize(json: &str) -> JsResult<String> {
    let mut nodes = concordia_host::Nodes::new();
    let doc = nodes.parse(json.as_bytes())?;
    // The canonical form is never longer than the input.
    Ok(utf8(concordia_host::write_vec(json.len(), |buf| jcs::write_to_slice(doc.root(), buf))?))
}

/// `sha256:<64 lowercase hex>` of the canonical form of `json`: a record's identity and a
/// message's chain hash.
///
/// # Errors
/// As `canonicalize`.
#[wasm_bindgen]
pub fn hash(json: &str) -> JsResult<String> {
    let mut nodes = concordia_host::Nodes::new();
    let doc = nodes.parse(json.as_bytes())?;
    Ok(digest::sha256_jcs(doc.root()).to_prefixed().as_str().to_string())
}

/// Checks the record `input` (JSON text) under the conformance profile named `name` (e.g.
/// `receipt-v1`; see `profile_names`) with `context`, the vector's context object (JSON
/// text). Returns when the record is accepted; a rejection's `class` is the contract's
/// reason class.
///
/// # Errors
/// The core's error for the rejection; `InputError` for an unknown profile name.
#[wasm_bindgen(js_name = verifyProfile)]
pub fn verify_profile(name: &str, input: &str, context: &str) -> JsResult<()> {
    let profile = Profile::from_name(name).ok_or(Error::InvalidArgument("unknown verification profile"))?;
    let (mut input_nodes, mut context_nodes) = (concordia_host::Nodes::new(), concordia_host::Nodes::new());
    let input = input_nodes.parse(input.as_bytes())?;
    let context = context_nodes.parse(context.as_bytes())?;
    profiles::verify_profile(profile, input.root(), context.root(), &VerifyOptions::default())?;
    Ok(())
}

/// The names of the 22 verification profiles, in the contract's order.
#[wasm_bindgen(js_name = profileNames)]
pub fn profile_names() -> Vec<String> {
    Profile::ALL.iter().map(|p| p.name().to_string()).collect()
}
