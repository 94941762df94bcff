//! Phase 2 A1 signed records: Predicate, Mandate, Mandate delegation chain and the
//! counterparty co-signed receipt.

use super::{
    bare_signature, check_canonical_sha256, member, now, object, public_key, require_algorithm, schema, timestamp,
    verify_preimage, VerifyOptions,
};
use crate::error::{Error, Result};
use crate::json::{Kind, Value};
use crate::preimage::{SignaturesRecursive, WithoutSignature};
use crate::schema::SchemaId;

pub(super) fn predicate(input: Value<'_>, context: Value<'_>, opts: &VerifyOptions) -> Result<()> {
    schema(SchemaId::Predicate, input)?;
    let input = object(Some(input), "predicate must be an object")?;
    require_algorithm(input, "EdDSA")?;
    check_canonical_sha256(input, &WithoutSignature, context)?;
    let key = public_key(context.get("public_key_b64url").filter(|k| k.kind() == Kind::String))?;
    verify_preimage(input, &WithoutSignature, &key, &bare_signature(input)?)?;
    if !input.get("status").is_some_and(|s| s.is_str("active")) {
        return Err(Error::Temporal("predicate is not active"));
    }
    let now = now(context, opts)?;
    if timestamp(input.get("expires_at"), "expires_at")? < now {
        return Err(Error::Temporal("predicate expired"));
    }
    Ok(())
}

/// `predicate-v1`: a signed Predicate (schema, `algorithm: EdDSA`, optional digest,
/// signature under `context.public_key_b64url`, active and not expired at `now`).
///
/// # Errors
/// The first failing check, classed as the contract states.
pub fn verify_predicate(input: Value<'_>, context: Value<'_>, opts: &VerifyOptions) -> Result<()> {
    predicate(input, context, opts)
}

/// `mandate-v1` checks 1 to 7 and the constraint-schema check of step 8.
fn mandate_common(input: Value<'_>, context: Value<'_>, opts: &VerifyOptions) -> Result<()> {
    schema(SchemaId::Mandate, input)?;
    let input = object(Some(input), "mandate must be an object")?;
    require_algorithm(input, "EdDSA")?;
    check_canonical_sha256(input, &WithoutSignature, context)?;
    let key = public_key(context.get("issuer_public_key_b64url").filter(|k| k.kind() == Kind::String))?;
    verify_preimage(input, &WithoutSignature, &key, &bare_signature(input)?)?;
    if input.get("status").is_some_and(|s| !s.is_str("active")) {
        return Err(Error::Temporal("mandate is not active"));
    }
    let validity = object(input.get("validity"), "validity")?;
    let now = now(context, opts)?;
    let mode = validity.get("mode");
    if mode.is_some_and(|m| m.is_str("windowed")) {
        if timestamp(validity.get("not_before"), "not_before")? > now {
            return Err(Error::Temporal("mandate not yet valid"));
        }
        if timestamp(validity.get("not_after"), "not_after")? < now {
            return Err(Error::Temporal("mandate expired"));
        }
    } else if mode.is_some_and(|m| m.is_str("sequence")) {
        let same = match (context.get("sequence_key"), validity.get("sequence_key")) {
            (Some(a), Some(b)) => a.equals(&b),
            (Some(a), None) | (None, Some(a)) => a.is_null(),
            (None, None) => true,
        };
        if !same {
            return Err(Error::Temporal("sequence_key"));
        }
    } else if mode.is_some_and(|m| m.is_str("state_bound")) {
        if context.get("state_active").is_none_or(|s| s.kind() != Kind::True) {
            return Err(Error::Temporal("state not active"));
        }
    } else {
        return Err(Error::Schema("validity mode"));
    }
    constraint_schema(input.get("constraints"))
}

/// Requires a JSON Schema object.
fn constraint_schema(schema: Option<Value<'_>>) -> Result<()> {
    let schema = object(schema, "constraints must be a schema object")?;
    crate::schema::check_schema(schema)
}

/// The action of `context.action`, `None` when absent or null.
fn action<'a>(context: Value<'a>) -> Option<Value<'a>> {
    context.get("action").filter(|a| !a.is_null())
}

pub(super) fn mandate(input: Value<'_>, context: Value<'_>, opts: &VerifyOptions) -> Result<()> {
    mandate_common(input, context, opts)?;
    if let (Some(action), Some(constraints)) = (action(context), member(input, "constraints")) {
        crate::schema::validate_with(constraints, action)?;
    }
    Ok(())
}

/// `mandate-v1`: a signed Mandate (schema, `algorithm: EdDSA`, optional digest, issuer
/// signature, status, validity mode at `now`, constraints a schema that `context.action`
/// satisfies).
///
/// # Errors
/// The first failing check, classed as the contract states.
pub fn verify_mandate(input: Value<'_>, context: Value<'_>, opts: &VerifyOptions) -> Result<()> {
    mandate(input, context, opts)
}

/// JSON Schema keywords whose presence makes a `scope_restriction` a schema.
const SCHEMA_KEYS: [&str; 25] = [
    "$schema",
    "$id",
    "$ref",
    "$defs",
    "type",
    "properties",
    "required",
    "additionalProperties",
    "items",
    "allOf",
    "anyOf",
    "oneOf",
    "not",
    "enum",
    "const",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "minLength",
    "maxLength",
    "pattern",
    "minItems",
    "maxItems",
    "format",
];

/// A scope restriction: a JSON Schema, or the `{"max_spend": n}` shorthand.
#[derive(Clone, Copy)]
enum Scope<'a> {
    Schema(Value<'a>),
    MaxSpend(f64),
}

fn scope_restriction(scope: Value<'_>) -> Result<Scope<'_>> {
    if scope.kind() != Kind::Object || scope.is_empty() {
        return Err(Error::Schema("scope_restriction"));
    }
    if scope.members().any(|(k, _)| SCHEMA_KEYS.iter().any(|s| k.eq_str(s))) {
        crate::schema::check_schema(scope)?;
        return Ok(Scope::Schema(scope));
    }
    if scope.len() == 1 {
        if let Some(max) = scope.get("max_spend") {
            // Python's `isinstance(x, int | float)` also admits booleans.
            let n = match max.kind() {
                Kind::Number => max.as_f64(),
                Kind::True => Some(1.0),
                Kind::False => Some(0.0),
                _ => None,
            };
            if let Some(n) = n {
                return Ok(Scope::MaxSpend(n));
            }
        }
    }
    Err(Error::Schema("scope_restriction"))
}

fn check_scope(scope: Scope<'_>, action: Value<'_>) -> Result<()> {
    match scope {
        Scope::Schema(s) => crate::schema::validate_with(s, action),
        Scope::MaxSpend(max) => {
            if action.kind() != Kind::Object {
                return Err(Error::Schema("action must be an object"));
            }
            match action.get("max_spend") {
                None => Ok(()),
                Some(v) if v.kind() == Kind::Number && v.as_f64().is_some_and(|x| x <= max) => Ok(()),
                Some(_) => Err(Error::Schema("max_spend")),
            }
        }
    }
}

pub(super) fn delegation_chain(input: Value<'_>, context: Value<'_>, opts: &VerifyOptions) -> Result<()> {
    mandate_common(input, context, opts)?;
    let chain = member(input, "delegation_chain").filter(|c| c.kind() == Kind::Array && !c.is_empty());
    let chain = chain.ok_or(Error::Binding("delegation_chain"))?;
    let keys = context.get("delegation_public_keys_b64url").filter(|k| k.kind() == Kind::Object);
    let keys = keys.ok_or(Error::UnknownKey)?;
    let same = |a: Option<Value<'_>>, b: Option<Value<'_>>| match (a, b) {
        (Some(a), Some(b)) => a.equals(&b),
        (Some(a), None) | (None, Some(a)) => a.is_null(),
        (None, None) => true,
    };
    let first = chain.at(0).filter(|l| l.kind() == Kind::Object);
    if !first.is_some_and(|l| same(l.get("delegator"), input.get("issuer"))) {
        return Err(Error::Binding("delegation chain root"));
    }
    let last = chain.at(chain.len().saturating_sub(1)).filter(|l| l.kind() == Kind::Object);
    if !last.is_some_and(|l| same(l.get("delegate"), input.get("subject"))) {
        return Err(Error::Binding("delegation chain tail"));
    }
    let mut previous: Option<Value<'_>> = None;
    for link in chain.elements() {
        let link = object(Some(link), "delegation link")?;
        if let Some(prev) = previous {
            if !same(link.get("delegator"), Some(prev)) {
                return Err(Error::Binding("delegation chain continuity"));
            }
        }
        let delegator = link.get("delegator").and_then(|d| d.as_str()).ok_or(Error::Schema("delegator"))?;
        let key = super::lookup(keys, delegator);
        let key = public_key(key.filter(|k| k.kind() == Kind::String))?;
        require_algorithm(link, "EdDSA")?;
        verify_preimage(link, &WithoutSignature, &key, &bare_signature(link)?)?;
        if let Some(scope) = link.get("scope_restriction") {
            scope_restriction(scope)?;
        }
        previous = link.get("delegate").filter(|d| !d.is_null());
    }
    if let Some(action) = action(context) {
        if let Some(constraints) = input.get("constraints") {
            crate::schema::validate_with(constraints, action)?;
        }
        for link in chain.elements() {
            if let Some(scope) = link.get("scope_restriction") {
                check_scope(scope_restriction(scope)?, action)?;
            }
        }
    }
    Ok(())
}

/// `delegation-chain-v1`: a Mandate whose delegation chain runs from its issuer to its
/// subject, every link signed by its delegator, and `context.action` within the composed
/// constraints.
///
/// # Errors
/// The first failing check, classed as the contract states.
pub fn verify_delegation_chain(input: Value<'_>, context: Value<'_>, opts: &VerifyOptions) -> Result<()> {
    delegation_chain(input, context, opts)
}

/// `cosign-v1`: the counterparty's `did:key` matches its key, differs from the publisher,
/// names exactly one party, whose signature verifies over `CosignJCS(input)`.
///
/// # Errors
/// The first failing check, classed as the contract states.
pub fn verify_cosign(input: Value<'_>, context: Value<'_>) -> Result<()> {
    let input = object(Some(input), "cosign receipt must be an object")?;
    let did = context.get("counterparty_did").and_then(|d| d.as_str());
    let publisher = context.get("publisher_did").and_then(|d| d.as_str());
    let key_text = context.get("counterparty_public_key_b64url").filter(|k| k.kind() == Kind::String);
    let (Some(did), Some(publisher), Some(key_text)) = (did, publisher, key_text) else {
        return Err(Error::Schema("cosign context"));
    };
    if did == publisher {
        return Err(Error::Binding("counterparty equals publisher"));
    }
    let key = public_key(Some(key_text)).map_err(|_| Error::Binding("counterparty key"))?;
    if !did.eq_str(crate::did_key::contract_did_key(&key).as_str()) {
        return Err(Error::Binding("did:key derivation"));
    }
    let parties = input.get("parties").filter(|p| p.kind() == Kind::Array).ok_or(Error::Schema("parties"))?;
    let is_counterparty = |p: &Value<'_>| {
        p.kind() == Kind::Object && p.get("agent_id").and_then(|a| a.as_str()).is_some_and(|a| a == did)
    };
    let mut matches = parties.elements().filter(is_counterparty);
    let (Some(party), None) = (matches.next(), matches.next()) else {
        return Err(Error::Binding("counterparty party entry"));
    };
    check_canonical_sha256(input, &SignaturesRecursive, context)?;
    // The cosign lane's own spelling: unpadded base64url, what the SDK's `cosign_receipt`
    // emits (`rstrip(b"=")`); the sign_message lane's padded form is refused here.
    let sig = super::cosign_signature(party.get("signature"))?;
    verify_preimage(input, &SignaturesRecursive, &key, &sig)
}
