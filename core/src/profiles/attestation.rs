//! Reputation Attestation profiles: party signatures (`attestation-v1`) and
//! countersignatures (`attestation-countersign-v1`).

use super::{bare_signature, check_canonical_sha256, member, object, public_key, schema, signature, verify_preimage};
use crate::error::{Error, Result};
use crate::json::{Kind, Value};
use crate::preimage::{Countersign, WithoutSignature};
use crate::schema::SchemaId;

/// Verifies every `parties[]` signature of an Attestation: each party object, without its
/// own `signature`, signed by the key `keys[agent_id]`. Returns the number of parties.
///
/// # Errors
/// [`Error::Schema`] for a malformed party, [`Error::UnknownKey`] when a party has no key,
/// [`Error::Signature`] when a signature does not verify.
pub fn verify_attestation(input: Value<'_>, keys: Value<'_>) -> Result<usize> {
    if keys.kind() != Kind::Object {
        return Err(Error::UnknownKey);
    }
    let parties = member(input, "parties").filter(|p| p.kind() == Kind::Array).ok_or(Error::Schema("parties"))?;
    for party in parties.elements() {
        let party = object(Some(party), "party must be an object")?;
        let agent = party.get("agent_id").and_then(|a| a.as_str()).filter(|a| !a.raw().is_empty());
        let agent = agent.ok_or(Error::Schema("party agent_id"))?;
        let key = super::lookup(keys, agent);
        let key = public_key(key.filter(|k| k.kind() == Kind::String))?;
        verify_preimage(party, &WithoutSignature, &key, &bare_signature(party)?)?;
    }
    Ok(parties.len())
}

/// Whether the multiset of `parties[].agent_id` equals the array `expected`.
fn same_party_set(input: Value<'_>, expected: Value<'_>) -> bool {
    let Some(parties) = member(input, "parties") else { return false };
    if expected.kind() != Kind::Array || expected.len() != parties.len() {
        return false;
    }
    // Quadratic in the number of parties, which the schema and the node buffer bound.
    expected.elements().all(|want| {
        want.kind() == Kind::String
            && expected.elements().filter(|e| e.equals(&want)).count()
                == parties.elements().filter(|p| p.get("agent_id").is_some_and(|a| a.equals(&want))).count()
    })
}

pub(super) fn attestation(input: Value<'_>, context: Value<'_>) -> Result<()> {
    if context.get("forbid_raw_deal_terms").is_some_and(super::phase1::truthy) && crate::privacy::contains_raw_term(input)
    {
        return Err(Error::Privacy("raw deal terms"));
    }
    schema(SchemaId::Attestation, input)?;
    let input = object(Some(input), "attestation must be an object")?;
    let keys = context.get("public_keys_b64url").ok_or(Error::UnknownKey)?;
    verify_attestation(input, keys)?;
    if let Some(expected) = context.get("expected_verified_parties").filter(|e| !e.is_null()) {
        if !same_party_set(input, expected) {
            return Err(Error::Binding("expected_verified_parties"));
        }
    }
    Ok(())
}

/// Verifies the countersignatures of an Attestation: for each agent id in the array
/// `countersigners`, `countersignatures[agent_id]` must verify under `keys[agent_id]` over
/// `CosignJCS(input without countersignatures)`.
///
/// # Errors
/// [`Error::Schema`] for malformed inputs (including an empty `countersigners`),
/// [`Error::UnknownKey`] for a missing key, [`Error::Signature`] for a missing or bad
/// countersignature.
pub fn verify_countersignatures(input: Value<'_>, keys: Value<'_>, countersigners: Value<'_>) -> Result<()> {
    if keys.kind() != Kind::Object {
        return Err(Error::UnknownKey);
    }
    if countersigners.kind() != Kind::Array || countersigners.is_empty() {
        return Err(Error::Schema("countersigners"));
    }
    let sigs = member(input, "countersignatures").filter(|c| c.kind() == Kind::Object);
    let sigs = sigs.ok_or(Error::Signature)?;
    for signer in countersigners.elements() {
        let signer = signer.as_str().ok_or(Error::Schema("countersigner"))?;
        let sig = super::lookup(sigs, signer).filter(|s| s.kind() == Kind::String).ok_or(Error::Signature)?;
        let key = super::lookup(keys, signer).filter(|k| k.kind() == Kind::String).ok_or(Error::UnknownKey)?;
        verify_preimage(input, &Countersign, &public_key(Some(key))?, &signature(Some(sig))?)?;
    }
    Ok(())
}

pub(super) fn countersign(input: Value<'_>, context: Value<'_>) -> Result<()> {
    schema(SchemaId::Attestation, input)?;
    let input = object(Some(input), "attestation must be an object")?;
    let keys = context.get("public_keys_b64url").filter(|k| k.kind() == Kind::Object).ok_or(Error::UnknownKey)?;
    let signers = context.get("countersigners").filter(|c| c.kind() == Kind::Array);
    let signers = signers.ok_or(Error::Schema("countersigners"))?;
    if member(input, "countersignatures").is_none_or(|c| c.kind() != Kind::Object) {
        return Err(Error::Signature);
    }
    check_canonical_sha256(input, &Countersign, context)?;
    verify_countersignatures(input, keys, signers)
}

/// `attestation-countersign-v1` as one call: schema, optional digest, countersignatures.
///
/// # Errors
/// The first failing check, classed as the contract states.
pub fn verify_attestation_countersign(input: Value<'_>, context: Value<'_>) -> Result<()> {
    countersign(input, context)
}
