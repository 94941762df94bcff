//! `competence-proof-v1`: a CompetenceProof with its Merkle inclusion proofs.
//!
//! A CompetenceProof commits to a set of attestations through a Merkle root and reveals some
//! of them, each with an inclusion proof. The checks, in the contract's order:
//!
//! 1. the required members are present;
//! 2. `claims.total_negotiations` equals `attestation_count` (as JSON values, with the
//!    reference runner's Python equality: `2 == 2.0`, `true == 1`);
//! 3. every revealed attestation has a Merkle proof with its `attestation_id` (the last one,
//!    when several share an id) that verifies against `attestation_merkle_root`
//!    ([`verify_merkle_inclusion`]); a miss is a [`Error::Binding`] failure;
//! 4. the signable form, every top-level member except `agent_signature` and the version
//!    marker `concordia_competence_proof` ([`COMPETENCE_PROOF_SIGNABLE`]), matches the optional expected
//!    digest and carries the Ed25519 `agent_signature`.
//!
//! The Merkle tree is the SDK's: leaves and nodes are *lowercase hex text*; a leaf is
//! `hex(SHA-256(attestation_id))` and a parent `hex(SHA-256(left_hex || right_hex))` over
//! the UTF-8 of the concatenated hex strings. Nothing is buffered: each step streams the
//! two halves into the hasher.

use super::VerifyOptions;
use crate::digest::{Digest, Sha256Sink};
use crate::error::{Error, Limit, Result};
use crate::json::{Kind, Str, Value};
use crate::preimage::Without;
use crate::sign::PublicKey;

/// The preimage rule of the signable proof form (`to_dict_for_signing()`).
pub const COMPETENCE_PROOF_SIGNABLE: Without<'static> = Without(&["agent_signature", "concordia_competence_proof"]);

/// The members every CompetenceProof must carry.
pub const COMPETENCE_PROOF_REQUIRED_FIELDS: [&str; 9] = [
    "proof_id",
    "agent_id",
    "created_at",
    "claims",
    "attestation_merkle_root",
    "attestation_count",
    "merkle_proofs",
    "revealed_attestations",
    "agent_signature",
];

/// Work bound of the Merkle checks: proof-list entries scanned plus hash steps, summed over
/// all revealed attestations. The matching is a linear scan per revealed attestation (no
/// heap for an index), so this keeps hostile inputs from making it quadratic without end.
pub const MAX_MERKLE_WORK: usize = 1 << 22;

/// Feeds the UTF-8 bytes of a JSON string's decoded value into `h`.
fn feed_str(h: &mut Sha256Sink, s: Str<'_>) {
    if let Some(plain) = s.as_plain() {
        h.update(plain.as_bytes());
    } else {
        let mut buf = [0u8; 4];
        for c in s.chars() {
            h.update(c.encode_utf8(&mut buf).as_bytes());
        }
    }
}

/// The proof's `index` as the SDK reads it: absent means 0; a Python `int` (an integer
/// literal, or a boolean) is used as is; anything else fails the proof.
fn proof_index(proof: Value<'_>) -> Option<i64> {
    match proof.get("index") {
        None => Some(0),
        Some(v) => match v.kind() {
            Kind::True => Some(1),
            Kind::False => Some(0),
            Kind::Number if v.is_integer_literal() => v.as_i64(),
            _ => None,
        },
    }
}

/// Verifies one Merkle inclusion proof, as the SDK's `verify_merkle_proof`: start from
/// `hex(SHA-256(attestation_id))`; for each sibling in `proof.proof` (default `[]`), hash
/// `current || sibling` when the index (default 0) is even and `sibling || current` when
/// odd, then halve the index (floor); the proof holds when the final hex equals `root`.
/// An empty `root`, a non-integer index, a non-array `proof` or a non-string sibling fail.
#[must_use]
pub fn verify_merkle_inclusion(attestation_id: Str<'_>, proof: Value<'_>, root: Str<'_>) -> bool {
    let mut budget = usize::MAX;
    merkle(attestation_id, proof, root, &mut budget).unwrap_or(false)
}

/// [`verify_merkle_inclusion`] charging each hash step to `budget`.
fn merkle(attestation_id: Str<'_>, proof: Value<'_>, root: Str<'_>, budget: &mut usize) -> Result<bool> {
    if root.raw().is_empty() {
        return Ok(false);
    }
    let mut leaf = Sha256Sink::new();
    feed_str(&mut leaf, attestation_id);
    let mut current = leaf.finish();
    let Some(mut index) = proof_index(proof) else {
        return Ok(false);
    };
    let siblings = match proof.get("proof") {
        None => None,
        Some(list) if list.kind() == Kind::Array => Some(list),
        Some(_) => return Ok(false),
    };
    for sibling in siblings.iter().flat_map(|list| list.elements()) {
        charge(budget, 1)?;
        let Some(sibling) = sibling.as_str() else {
            return Ok(false);
        };
        let hex = current.to_hex();
        let mut h = Sha256Sink::new();
        if index.rem_euclid(2) == 0 {
            h.update(hex.as_bytes());
            feed_str(&mut h, sibling);
        } else {
            feed_str(&mut h, sibling);
            h.update(hex.as_bytes());
        }
        current = h.finish();
        index = index.div_euclid(2);
    }
    Ok(root.eq_str(current.to_hex().as_str()))
}

fn charge(budget: &mut usize, units: usize) -> Result<()> {
    *budget = budget.checked_sub(units).ok_or(Error::Limit { kind: Limit::Capacity, offset: 0 })?;
    Ok(())
}

/// Python `==` between two JSON values as the reference runner compares them (`None` for a
/// missing member, which equals `null`): numbers by value, booleans as 0 and 1 against
/// numbers, everything else structurally.
fn py_eq(a: Option<Value<'_>>, b: Option<Value<'_>>) -> bool {
    fn num(v: Value<'_>) -> Option<f64> {
        match v.kind() {
            Kind::True => Some(1.0),
            Kind::False => Some(0.0),
            Kind::Number => v.as_f64(),
            _ => None,
        }
    }
    match (a, b) {
        (None, None) => true,
        (None, Some(v)) | (Some(v), None) => v.is_null(),
        (Some(a), Some(b)) => match (num(a), num(b)) {
            (Some(x), Some(y)) => x == y,
            (None, None) => a.equals(&b),
            _ => false,
        },
    }
}

/// Steps 1–3: the structural, count and Merkle checks.
fn check_structure(proof: Value<'_>) -> Result<()> {
    let proof = super::object(Some(proof), "competence proof must be an object")?;
    if COMPETENCE_PROOF_REQUIRED_FIELDS.iter().any(|f| proof.get(f).is_none()) {
        return Err(Error::Schema("competence proof is missing a required field"));
    }
    let claims = super::object(proof.get("claims"), "competence proof claims")?;
    if !py_eq(claims.get("total_negotiations"), proof.get("attestation_count")) {
        return Err(Error::Binding("claims.total_negotiations != attestation_count"));
    }
    let root = proof.get("attestation_merkle_root").and_then(|v| v.as_str());
    let proofs = proof.get("merkle_proofs").filter(|v| v.kind() == Kind::Array);
    let revealed = proof.get("revealed_attestations").filter(|v| v.kind() == Kind::Array);
    let (Some(root), Some(proofs), Some(revealed)) = (root, proofs, revealed) else {
        return Err(Error::Schema("competence proof Merkle fields are malformed"));
    };
    for item in proofs.elements() {
        if item.kind() != Kind::Object || item.get("attestation_id").and_then(|v| v.as_str()).is_none() {
            return Err(Error::Schema("competence proof Merkle proof has no attestation_id"));
        }
    }
    let mut budget = MAX_MERKLE_WORK;
    for item in revealed.elements() {
        let id = super::object(Some(item), "revealed attestation must be an object")?
            .get("attestation_id")
            .and_then(|v| v.as_str())
            .ok_or(Error::Schema("revealed attestation has no attestation_id"))?;
        charge(&mut budget, proofs.len())?;
        // Later proofs with the same id replace earlier ones, as in the SDK's dict.
        let matching = proofs
            .elements()
            .filter(|p| p.get("attestation_id").and_then(|v| v.as_str()).is_some_and(|pid| pid == id))
            .last()
            .ok_or(Error::Binding("revealed attestation has no Merkle proof"))?;
        if !merkle(id, matching, root, &mut budget)? {
            return Err(Error::Binding("Merkle inclusion proof does not reach attestation_merkle_root"));
        }
    }
    Ok(())
}

/// SHA-256 over the signable form of a CompetenceProof ([`COMPETENCE_PROOF_SIGNABLE`]).
#[must_use]
pub fn competence_proof_digest(proof: Value<'_>) -> Digest {
    crate::digest::sha256_jcs_with(proof, &COMPETENCE_PROOF_SIGNABLE)
}

/// Verifies a CompetenceProof: required members, the attestation count, every revealed
/// attestation's Merkle inclusion, and the Ed25519 `agent_signature` under `key` (the key
/// of `agent_id`) over the signable form.
///
/// # Errors
/// [`Error::Schema`] for missing or mistyped members, [`Error::Binding`] for a count
/// mismatch or a failed inclusion proof, [`Error::Signature`] for the signature,
/// [`Error::Limit`] past [`MAX_MERKLE_WORK`].
pub fn verify_competence_proof(proof: Value<'_>, key: &PublicKey) -> Result<()> {
    check_structure(proof)?;
    let sig = super::signature(proof.get("agent_signature"))?;
    super::verify_preimage(proof, &COMPETENCE_PROOF_SIGNABLE, key, &sig)
}

/// `competence-proof-v1`.
pub(crate) fn competence_proof(input: Value<'_>, context: Value<'_>, _opts: &VerifyOptions) -> Result<()> {
    check_structure(input)?;
    super::cmpc::check_canonical(input, &COMPETENCE_PROOF_SIGNABLE, context)?;
    let key = super::public_key(context.get("public_key_b64url"))?;
    let sig = super::signature(input.get("agent_signature"))?;
    super::verify_preimage(input, &COMPETENCE_PROOF_SIGNABLE, &key, &sig)
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;
    use crate::json::{self, Node};
    use std::format;
    use std::string::String;
    use std::vec;

    fn hex(s: &str) -> String {
        String::from(crate::digest::sha256(s.as_bytes()).to_hex().as_str())
    }

    fn check(id: &str, proof: &str, root: &str) -> bool {
        let text = format!(r#"{{"id":{id:?},"proof":{proof},"root":{root:?}}}"#);
        let mut nodes = vec![Node::EMPTY; text.len()];
        let doc = json::parse(text.as_bytes(), &mut nodes).unwrap();
        let v = doc.root();
        verify_merkle_inclusion(
            v.get("id").unwrap().as_str().unwrap(),
            v.get("proof").unwrap(),
            v.get("root").unwrap().as_str().unwrap(),
        )
    }

    #[test]
    fn merkle_ordering_follows_the_index_parity() {
        let (a, b, c, d) = (hex("a"), hex("b"), hex("c"), hex("d"));
        let ab = hex(&format!("{a}{b}"));
        let cd = hex(&format!("{c}{d}"));
        let root = hex(&format!("{ab}{cd}"));
        assert!(check("a", &format!(r#"{{"index":0,"proof":["{b}","{cd}"]}}"#), &root));
        assert!(check("b", &format!(r#"{{"index":1,"proof":["{a}","{cd}"]}}"#), &root));
        assert!(check("c", &format!(r#"{{"index":2,"proof":["{d}","{ab}"]}}"#), &root));
        assert!(check("d", &format!(r#"{{"index":3,"proof":["{c}","{ab}"]}}"#), &root));
        assert!(!check("d", &format!(r#"{{"index":2,"proof":["{c}","{ab}"]}}"#), &root));
        // Booleans are Python ints; floats are not.
        assert!(check("b", &format!(r#"{{"index":true,"proof":["{a}","{cd}"]}}"#), &root));
        assert!(!check("a", &format!(r#"{{"index":0.0,"proof":["{b}","{cd}"]}}"#), &root));
        // Defaults: no index is 0, no proof is a single-leaf tree.
        assert!(check("a", &format!(r#"{{"proof":["{b}","{cd}"]}}"#), &root));
        assert!(check("a", "{}", &a));
        assert!(!check("a", "{}", ""));
        assert!(!check("a", r#"{"proof":"x"}"#, &a));
        assert!(!check("a", r#"{"proof":[1]}"#, &a));
        // Negative indexes use Python's floor semantics: -1 stays odd forever.
        let ba = hex(&format!("{b}{a}"));
        let top = hex(&format!("{cd}{ba}"));
        assert!(check("a", &format!(r#"{{"index":-1,"proof":["{b}","{cd}"]}}"#), &top));
        // Escaped siblings hash their decoded UTF-8.
        let e = hex(&format!("{a}é"));
        assert!(check("a", r#"{"proof":["\u00e9"]}"#, &e));
    }

    #[test]
    fn python_equality() {
        let text = r#"{"a":2,"b":2.0,"t":true,"one":1,"n":null,"s":"2","l":[1],"m":[1.0]}"#;
        let mut nodes = vec![Node::EMPTY; 64];
        let doc = json::parse(text.as_bytes(), &mut nodes).unwrap();
        let v = doc.root();
        let g = |k: &str| v.get(k);
        assert!(py_eq(g("a"), g("b")));
        assert!(py_eq(g("t"), g("one")));
        assert!(py_eq(g("n"), None));
        assert!(py_eq(None, None));
        assert!(!py_eq(g("a"), g("s")));
        assert!(!py_eq(g("a"), None));
        assert!(py_eq(g("l"), g("m")));
    }
}
