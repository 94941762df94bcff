//! `message-chain-v1`: hash-chained session messages, with the receipt set-binding.
//!
//! Per the contract the checks run in three passes over the array: first the whole
//! `prev_hash` linkage walk, then every message signature, then the optional hash list and
//! receipt checks. Each pass streams the messages from the parsed tape; the only state is
//! one digest.

use super::{bare_signature, object, public_key, schema, signature, verify_preimage, Regression, VerifyOptions};
use crate::digest::Digest;
use crate::error::{Error, Result};
use crate::json::{Kind, Value};
use crate::message::{message_hash, GENESIS_HASH};
use crate::preimage::{Countersign, WithoutSignature};
use crate::schema::SchemaId;

/// Python `x != n` for a JSON value and a count (`true == 1`, `2.0 == 2`).
fn equals_count(v: Value<'_>, n: usize) -> bool {
    match v.kind() {
        Kind::Number => v.as_f64().is_some_and(|f| f == n as f64),
        Kind::True => n == 1,
        Kind::False => n == 0,
        _ => false,
    }
}

fn is_hash(v: Option<Value<'_>>, d: &Digest) -> bool {
    v.is_some_and(|v| v.is_str(d.to_prefixed().as_str()))
}

pub(super) fn verify(input: Value<'_>, context: Value<'_>, opts: &VerifyOptions) -> Result<()> {
    let input = object(Some(input), "message chain input must be an object")?;
    let has_receipt = input.get("receipt").is_some();
    if input.get("messages").is_none() || input.len() != 1 + usize::from(has_receipt) {
        return Err(Error::Schema("message chain input must hold only messages and receipt"));
    }
    let messages = input.get("messages").filter(|m| m.kind() == Kind::Array && !m.is_empty());
    let messages = messages.ok_or(Error::Schema("messages"))?;
    if let Some(n) = context.get("expected_message_count").filter(|n| !n.is_null()) {
        if !equals_count(n, messages.len()) {
            return Err(Error::Binding("expected_message_count"));
        }
    }
    if messages.elements().any(|m| m.kind() != Kind::Object) {
        return Err(Error::Schema(crate::error::detail::MESSAGE_NOT_OBJECT));
    }
    // Pass 1: the linkage walk.
    if !opts.regressed(Regression::SkipLinkageWalk) {
        let mut expected = GENESIS_HASH;
        for m in messages.elements() {
            // The one link rule (`message::check_link`); the contract classes every
            // linkage failure, a missing `prev_hash` included, as binding.
            crate::message::check_link(m, &expected).map_err(|_| Error::Binding(crate::error::detail::PREV_HASH))?;
            expected = message_hash(m);
        }
    }
    // Pass 2: signatures.
    let keys = context.get("public_keys_b64url").filter(|k| k.kind() == Kind::Object).ok_or(Error::UnknownKey)?;
    for m in messages.elements() {
        let from = object(m.get("from"), "from")?;
        let agent =
            from.get("agent_id").and_then(|a| a.as_str()).ok_or(Error::Schema(crate::error::detail::SENDER_MISSING))?;
        let key = super::lookup(keys, agent);
        let key = public_key(key)?;
        verify_preimage(m, &WithoutSignature, &key, &signature(m.get("signature"))?)?;
    }
    // Pass 3: hash list and receipt.
    if let Some(hashes) = context.get("expected_message_hashes").filter(|h| !h.is_null()) {
        let ok = hashes.kind() == Kind::Array
            && hashes.len() == messages.len()
            && hashes.elements().zip(messages.elements()).all(|(h, m)| is_hash(Some(h), &message_hash(m)));
        if !ok {
            return Err(Error::Binding("expected_message_hashes"));
        }
    }
    if !opts.regressed(Regression::ReceiptSetUnchecked) {
        if let Some(receipt) = input.get("receipt") {
            verify_receipt_binding(receipt, messages, keys)?;
        }
    }
    Ok(())
}

/// Checks a v0.3.0 receipt against the presented messages: schema, version, party
/// signatures and countersignatures under `keys`, `message_count` and `chain_head`.
fn verify_receipt_binding(receipt: Value<'_>, messages: Value<'_>, keys: Value<'_>) -> Result<()> {
    let receipt = object(Some(receipt), "receipt must be an object")?;
    schema(SchemaId::Attestation, receipt)?;
    let fields = match crate::attestation::set_binding_fields(receipt) {
        Ok(Some(f)) => f,
        Ok(None) => return Err(Error::Binding("receipt is legacy set-unbound")),
        Err(Error::Schema("chain_head")) => return Err(Error::Schema("receipt chain_head")),
        Err(_) => return Err(Error::Schema("receipt message_count")),
    };
    let parties = receipt.get("parties").filter(|p| p.kind() == Kind::Array).ok_or(Error::Schema("parties"))?;
    let sigs = receipt.get("countersignatures").filter(|c| c.kind() == Kind::Object);
    let sigs = sigs.ok_or(Error::Schema("countersignatures"))?;
    for party in parties.elements() {
        let party = object(Some(party), "receipt party")?;
        let agent = party.get("agent_id").and_then(|a| a.as_str()).filter(|a| !a.raw().is_empty());
        let agent = agent.ok_or(Error::Schema("receipt party agent_id"))?;
        let key = public_key(super::lookup(keys, agent).filter(|k| k.kind() == Kind::String))?;
        verify_preimage(party, &WithoutSignature, &key, &bare_signature(party)?)?;
        let counter = super::lookup(sigs, agent).filter(|s| s.kind() == Kind::String).ok_or(Error::Signature)?;
        verify_preimage(receipt, &Countersign, &key, &signature(Some(counter))?)?;
    }
    let last = messages.at(messages.len().saturating_sub(1)).ok_or(Error::Schema("messages"))?;
    fields.check(messages.len() as u64, &message_hash(last)).map_err(|e| match e {
        Error::Binding("chain_head") => Error::Binding("receipt chain_head"),
        _ => Error::Binding("receipt message_count"),
    })?;
    Ok(())
}

/// `message-chain-v1`: `input` is `{"messages": [...]}` or `{"messages": [...],
/// "receipt": {...}}`; `context` carries `public_keys_b64url` and the optional
/// `expected_message_count` / `expected_message_hashes`.
///
/// # Errors
/// [`Error::Binding`] for a broken link, count, hash list or receipt binding;
/// [`Error::Signature`] / [`Error::UnknownKey`] for signatures; [`Error::Schema`] for shape.
pub fn verify_message_chain(input: Value<'_>, context: Value<'_>, opts: &VerifyOptions) -> Result<()> {
    verify(input, context, opts)
}
