//! `receipt-bundle-v1`: a ReceiptBundle, an agent's signed collection of attestations.
//!
//! Checks, in the contract's order: `receipt_bundle.schema.json`; the optional expected
//! digest of the signable form; the Ed25519 `agent_signature` (bare base64url string) over
//! the signable form. The signable form is every top-level member except `agent_signature`
//! and the version marker `concordia_receipt_bundle` ([`RECEIPT_BUNDLE_SIGNABLE`]); a schema-valid change
//! of the version marker therefore keeps the signature valid (a tolerated lane of the
//! contract's D2 decision).

use super::VerifyOptions;
use crate::digest::Digest;
use crate::error::Result;
use crate::json::Value;
use crate::preimage::Without;
use crate::schema::SchemaId;
use crate::sign::PublicKey;

/// The preimage rule of the signable bundle form.
pub const RECEIPT_BUNDLE_SIGNABLE: Without<'static> = Without(&["agent_signature", "concordia_receipt_bundle"]);

/// SHA-256 over the signable form of a ReceiptBundle ([`RECEIPT_BUNDLE_SIGNABLE`]).
#[must_use]
pub fn receipt_bundle_digest(bundle: Value<'_>) -> Digest {
    crate::digest::sha256_jcs_with(bundle, &RECEIPT_BUNDLE_SIGNABLE)
}

/// Verifies a ReceiptBundle: `receipt_bundle.schema.json`, then the Ed25519
/// `agent_signature` under `key` (the key of `agent_id`) over the signable form.
///
/// # Errors
/// [`crate::Error::Schema`] when the bundle does not conform, [`crate::Error::Signature`]
/// when the signature is malformed or does not verify.
pub fn verify_receipt_bundle(bundle: Value<'_>, key: &PublicKey) -> Result<()> {
    super::schema(SchemaId::ReceiptBundle, bundle)?;
    let sig = super::signature(super::member(bundle, "agent_signature"))?;
    super::verify_preimage(bundle, &RECEIPT_BUNDLE_SIGNABLE, key, &sig)
}

/// `receipt-bundle-v1`.
pub(crate) fn receipt_bundle(input: Value<'_>, context: Value<'_>, _opts: &VerifyOptions) -> Result<()> {
    super::schema(SchemaId::ReceiptBundle, input)?;
    super::cmpc::check_canonical(input, &RECEIPT_BUNDLE_SIGNABLE, context)?;
    let key = super::public_key(context.get("public_key_b64url"))?;
    let sig = super::signature(super::member(input, "agent_signature"))?;
    super::verify_preimage(input, &RECEIPT_BUNDLE_SIGNABLE, &key, &sig)
}
