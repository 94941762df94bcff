//! Reputation Attestation profiles: party signatures (`attestation-v1`) and
//! countersignatures (`attestation-countersign-v1`).

use super::{check_canonical_sha256, member, object, schema};
use crate::attestation::{verify_countersignatures, verify_party_signatures};
use crate::error::{Error, Result};
use crate::json::{Kind, Value};
use crate::preimage::Countersign;
use crate::schema::SchemaId;

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
    if context.get("forbid_raw_deal_terms").is_some_and(super::decision_records::truthy)
        && crate::privacy::contains_raw_term(input)
    {
        return Err(Error::Privacy("raw deal terms"));
    }
    schema(SchemaId::Attestation, input)?;
    let input = object(Some(input), "attestation must be an object")?;
    let keys = context.get("public_keys_b64url").ok_or(Error::UnknownKey)?;
    verify_party_signatures(input, keys)?;
    if let Some(expected) = context.get("expected_verified_parties").filter(|e| !e.is_null()) {
        if !same_party_set(input, expected) {
            return Err(Error::Binding("expected_verified_parties"));
        }
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
