//! Decision records (the contract's "Phase 1" profiles): decision object, offer binding,
//! ApprovalReceipt, RevocationRecord,
//! CascadeDecisionRecord and FulfillmentAttestation.

use super::{
    has_reference, member, now, object, public_key, resolve_object, resolve_side, schema, signature, timestamp,
    Regression, VerifyOptions,
};
use crate::digest::{sha256_jcs, sha256_jcs_with, Sha256Sink};
use crate::error::{Error, Result};
use crate::json::{Kind, Str, Value};
use crate::preimage::{Without, WithoutSignature};
use crate::schema::SchemaId;
use crate::sign::{KeyPair, PublicKey, Signature, VerifySink};
use crate::sink::{Sink, SliceSink};

/// Largest FulfillmentAttestation preimage that `context.signature_b64url` re-signing
/// handles (Ed25519 signing reads the message twice, so it needs the bytes in memory).
pub const MAX_RESIGN_PREIMAGE: usize = 8192;

/// `decision-object-v1`: `SHA256-JCS(input)` equals `context.expected_decision_id`.
///
/// # Errors
/// [`Error::Digest`] on mismatch.
pub fn verify_decision_object(input: Value<'_>, context: Value<'_>) -> Result<()> {
    if super::digest_equals(&sha256_jcs(input), member(context, "expected_decision_id")) {
        Ok(())
    } else {
        Err(Error::Digest("expected_decision_id"))
    }
}

/// `offer-binding-v1`: every check of `context.checks` (`jcs-sha256`,
/// `jcs-sha256-pointer`, `json-pointer-equal`) passes.
///
/// # Errors
/// [`Error::Digest`] for a `jcs-sha256` mismatch, [`Error::Binding`] for a committed
/// (`jcs-sha256-pointer`) digest mismatch, an unequal pointer pair or an unresolvable
/// reference, [`Error::Schema`] for a malformed check list.
pub fn verify_offer_binding(input: Value<'_>, context: Value<'_>) -> Result<()> {
    let checks = member(context, "checks").filter(|c| c.kind() == Kind::Array && !c.is_empty());
    let checks = checks.ok_or(Error::Schema("context.checks"))?;
    for check in checks.elements() {
        let check = object(Some(check), "offer-binding check")?;
        let kind = check.get("kind");
        if kind.is_some_and(|k| k.is_str("jcs-sha256")) {
            let source = resolve_object(check.get("source"), input, context)?;
            if !super::digest_equals(&sha256_jcs(source), check.get("expected")) {
                return Err(Error::Digest("jcs-sha256"));
            }
        } else if kind.is_some_and(|k| k.is_str("jcs-sha256-pointer")) {
            let source = resolve_object(check.get("source"), input, context)?;
            let target = resolve_side(check.get("target"), input, context)?;
            if !super::digest_equals(&sha256_jcs(source), Some(target)) {
                return Err(Error::Binding("jcs-sha256-pointer"));
            }
        } else if kind.is_some_and(|k| k.is_str("json-pointer-equal")) {
            let left = resolve_side(check.get("left"), input, context)?;
            let right = resolve_side(check.get("right"), input, context)?;
            if !left.equals(&right) {
                return Err(Error::Binding("json-pointer-equal"));
            }
        } else {
            return Err(Error::Schema("unknown check kind"));
        }
    }
    Ok(())
}

/// The dict signature envelope `{"alg": alg, "value": ..}`: returns the signature.
fn envelope(input: Value<'_>, alg: &str) -> Result<Signature> {
    let sig = member(input, "signature").filter(|s| s.kind() == Kind::Object).ok_or(Error::Signature)?;
    if !sig.get("alg").is_some_and(|a| a.is_str(alg)) {
        return Err(Error::Signature);
    }
    signature(sig.get("value"))
}

/// Writes the Phase 1 signature preimage (`JCS(input without /signature)`) into `sink`;
/// under the `preimage-includes-signature` regression, the record with its signature
/// (and `signature.value` replaced by `context.signature_preimage_value` when present).
fn write_signed_preimage<S: Sink + ?Sized>(
    input: Value<'_>,
    context: Value<'_>,
    opts: &VerifyOptions,
    sink: &mut S,
) -> Result<()> {
    if opts.regressed(Regression::PreimageIncludesSignature) {
        return write_regressed_preimage(input, context, sink);
    }
    crate::jcs::write_with(input, &WithoutSignature, sink)
}

/// The test-only regressed preimage; small fixed buffers, test inputs only.
fn write_regressed_preimage<S: Sink + ?Sized>(input: Value<'_>, context: Value<'_>, sink: &mut S) -> Result<()> {
    let Some(replacement) = member(context, "signature_preimage_value") else {
        return crate::jcs::write(input, sink);
    };
    let sig = member(input, "signature").filter(|s| s.kind() == Kind::Object).ok_or(Error::Signature)?;
    let mut value_buf = [0u8; 512];
    let n = crate::jcs::write_to_slice(replacement, &mut value_buf)?;
    let mut sig_buf = [0u8; 1024];
    let mut sig_sink = SliceSink::new(&mut sig_buf);
    crate::jcs::write_inserting(
        sig,
        &Without(&["value"]),
        Some(("value", value_buf.get(..n).unwrap_or(&[]))),
        &mut sig_sink,
    )?;
    let m = sig_sink.finish()?;
    crate::jcs::write_inserting(input, &WithoutSignature, Some(("signature", sig_buf.get(..m).unwrap_or(&[]))), sink)
}

fn verify_phase1_signature(
    input: Value<'_>,
    context: Value<'_>,
    opts: &VerifyOptions,
    key: &PublicKey,
    sig: &Signature,
) -> Result<()> {
    let mut sink = VerifySink::new(key, sig).map_err(|_| Error::Signature)?;
    write_signed_preimage(input, context, opts, &mut sink)?;
    sink.finish().map_err(|_| Error::Signature)
}

pub(super) fn receipt(input: Value<'_>, context: Value<'_>, opts: &VerifyOptions) -> Result<()> {
    schema(SchemaId::ApprovalReceipt, input)?;
    if !has_reference(input, "approves", Some(&["negotiation_session", "a2cn:negotiation_session"]), None) {
        return Err(Error::Binding("approves reference"));
    }
    let sig = envelope(input, "Ed25519")?;
    let keys = member(context, "public_keys_b64url").filter(|k| k.kind() == Kind::Object).ok_or(Error::UnknownKey)?;
    let key = public_key(keys.get("issuer"))?;
    verify_phase1_signature(input, context, opts, &key, &sig)?;
    let expires = timestamp(member(input, "expires_at"), "expires_at")?;
    if expires < now(context, opts)? {
        return Err(Error::Temporal("receipt expired"));
    }
    let scope = object(member(input, "scope"), "scope")?;
    let offer = member(context, "offer").ok_or(Error::Digest("offer missing"))?;
    if super::digest_equals(&sha256_jcs(offer), scope.get("offer_hash")) {
        Ok(())
    } else {
        Err(Error::Digest("offer_hash"))
    }
}

/// `receipt-v1`: an ApprovalReceipt (schema, `approves` reference, Ed25519 signature by
/// `context.public_keys_b64url.issuer`, not expired at `now`, bound to `context.offer`).
///
/// # Errors
/// The first failing check, classed as the contract states.
pub fn verify_approval_receipt(input: Value<'_>, context: Value<'_>, opts: &VerifyOptions) -> Result<()> {
    receipt(input, context, opts)
}

pub(super) fn revocation(input: Value<'_>, context: Value<'_>, opts: &VerifyOptions) -> Result<()> {
    schema(SchemaId::RevocationRecord, input)?;
    let input = object(Some(input), "revocation must be an object")?;
    if !has_reference(input, "revokes", None, input.get("revoked_artifact_id")) {
        return Err(Error::Binding("revokes reference"));
    }
    let sig = envelope(input, "EdDSA")?;
    let keys = member(context, "public_keys_b64url").filter(|k| k.kind() == Kind::Object).ok_or(Error::UnknownKey)?;
    let key = public_key(keys.get("issuer"))?;
    verify_phase1_signature(input, context, opts, &key, &sig)
}

/// `revocation-v1`: a RevocationRecord (schema, `revokes` reference to
/// `revoked_artifact_id`, EdDSA signature by `context.public_keys_b64url.issuer`).
///
/// # Errors
/// The first failing check, classed as the contract states.
pub fn verify_revocation_record(input: Value<'_>, context: Value<'_>, opts: &VerifyOptions) -> Result<()> {
    revocation(input, context, opts)
}

/// Whether `expected` is the string `"sha256:" + claimed`.
fn is_prefixed(expected: Str<'_>, claimed: Str<'_>) -> bool {
    let mut e = expected.chars();
    for p in "sha256:".chars() {
        if e.next() != Some(p) {
            return false;
        }
    }
    e.eq(claimed.chars())
}

pub(super) fn cascade(input: Value<'_>, context: Value<'_>, opts: &VerifyOptions) -> Result<()> {
    if !opts.regressed(Regression::SchemaSkipped) {
        schema(SchemaId::CascadeDecisionRecord, input)?;
    }
    let input = object(Some(input), "cascade decision must be an object")?;
    const PREIMAGE: Without<'static> = Without(&["decision_id", "signature"]);
    let claimed = input.get("decision_id").and_then(|d| d.as_str()).ok_or(Error::Schema("decision_id"))?;
    if !opts.regressed(Regression::DecisionIdNotRecomputed) {
        let d = sha256_jcs_with(input, &PREIMAGE);
        if !claimed.eq_str(d.to_hex().as_str()) {
            return Err(Error::Digest("decision_id"));
        }
    }
    if let Some(expected) = context.get("expected_decision_id").filter(|e| !e.is_null()) {
        if !expected.as_str().is_some_and(|e| is_prefixed(e, claimed)) {
            return Err(Error::Digest("expected_decision_id"));
        }
    }
    let sig = envelope(input, "EdDSA")?;
    let keys = member(context, "public_keys_b64url").filter(|k| k.kind() == Kind::Object).ok_or(Error::UnknownKey)?;
    let key = public_key(keys.get("issuer"))?;
    if opts.regressed(Regression::DecisionIdNotRecomputed) {
        super::verify_preimage(input, &WithoutSignature, &key, &sig)
    } else {
        super::verify_preimage(input, &PREIMAGE, &key, &sig)
    }
}

/// `cascade-decision-v1`: a CascadeDecisionRecord (schema, recomputed `decision_id`,
/// optional `context.expected_decision_id`, EdDSA signature over the record without
/// `decision_id` and `signature`).
///
/// # Errors
/// The first failing check, classed as the contract states.
pub fn verify_cascade_decision(input: Value<'_>, context: Value<'_>, opts: &VerifyOptions) -> Result<()> {
    cascade(input, context, opts)
}

/// Python `a.get(k) != b[k]` for JSON values, with a missing member read as `null`.
fn same_or_both_null(a: Option<Value<'_>>, b: Value<'_>) -> bool {
    match a {
        Some(a) => a.equals(&b),
        None => b.is_null(),
    }
}

pub(super) fn fulfillment(input: Value<'_>, context: Value<'_>, opts: &VerifyOptions) -> Result<()> {
    schema(SchemaId::FulfillmentAttestation, input)?;
    let input = object(Some(input), "fulfillment attestation must be an object")?;
    if !has_reference(input, "fulfills", None, input.get("agreement_attestation_id")) {
        return Err(Error::Binding("fulfills reference"));
    }
    let sig = envelope(input, "Ed25519")?;
    let key = public_key(context.get("public_key_b64url"))?;
    verify_phase1_signature(input, context, opts, &key, &sig)?;
    if let Some(expected) = context.get("canonical_sha256").filter(|e| !e.is_null()) {
        let mut sink = Sha256Sink::new();
        write_signed_preimage(input, context, opts, &mut sink)?;
        if !super::digest_equals(&sink.finish(), Some(expected)) {
            return Err(Error::Digest("canonical_sha256"));
        }
    }
    if let Some(seed) = context.get("seed_ed25519_ascii").filter(|s| !s.is_null()) {
        check_seed(input, context, opts, seed)?;
    }
    let join = match context.get("join_keys") {
        None => None,
        Some(j) if j.kind() == Kind::Object => Some(j),
        Some(_) => return Err(Error::Schema("join_keys must be an object")),
    };
    if let Some(join) = join {
        for k in ["charge_ref", "action_ref"] {
            if let Some(want) = join.get(k) {
                if !same_or_both_null(input.get(k), want) {
                    return Err(Error::Binding("join key"));
                }
            }
        }
    }
    if context.get("forbid_raw_deal_terms").is_some_and(|f| truthy(f)) && crate::privacy::contains_raw_term(input) {
        return Err(Error::Privacy("raw deal terms"));
    }
    Ok(())
}

/// Python truthiness of a JSON value.
pub(crate) fn truthy(v: Value<'_>) -> bool {
    match v.kind() {
        Kind::Null | Kind::False => false,
        Kind::True => true,
        Kind::Number => v.as_f64().is_some_and(|f| f != 0.0),
        Kind::String | Kind::Array | Kind::Object => !v.is_empty(),
    }
}

/// Checks 6 and 7 of `fulfillment-attestation-v1`: the public test seed re-derives the
/// key and, when `context.signature_b64url` is given, re-signs to the same signature.
fn check_seed(input: Value<'_>, context: Value<'_>, opts: &VerifyOptions, seed: Value<'_>) -> Result<()> {
    let seed = seed.as_str().ok_or(Error::Signature)?;
    let mut buf = [0u8; 33];
    let bytes = seed.decode_into(&mut buf).map_err(|_| Error::Signature)?.as_bytes();
    let seed: [u8; 32] = bytes.try_into().map_err(|_| Error::Signature)?;
    let pair = KeyPair::from_seed(&seed);
    if !context.get("public_key_b64url").is_some_and(|k| k.is_str(pair.public_key().to_b64url().as_str())) {
        return Err(Error::Signature);
    }
    let Some(expected) = context.get("signature_b64url").filter(|s| !s.is_null()) else {
        return Ok(());
    };
    let mut pre = [0u8; MAX_RESIGN_PREIMAGE];
    let mut sink = SliceSink::new(&mut pre);
    write_signed_preimage(input, context, opts, &mut sink)?;
    let n = sink.finish().map_err(|_| Error::limit(crate::error::Limit::Size, 0))?;
    let derived = pair.sign(pre.get(..n).ok_or(Error::limit(crate::error::Limit::Size, 0))?).to_b64url();
    let recorded = member(input, "signature").and_then(|s| member(s, "value"));
    if expected.is_str(derived.as_str()) && recorded.is_some_and(|r| r.is_str(derived.as_str())) {
        Ok(())
    } else {
        Err(Error::Signature)
    }
}

/// `fulfillment-attestation-v1`: a FulfillmentAttestation (schema, `fulfills`
/// reference, Ed25519 signature, optional digest, seed, join-key and raw-deal-term checks).
///
/// # Errors
/// The first failing check, classed as the contract states.
pub fn verify_fulfillment_attestation(input: Value<'_>, context: Value<'_>, opts: &VerifyOptions) -> Result<()> {
    fulfillment(input, context, opts)
}
