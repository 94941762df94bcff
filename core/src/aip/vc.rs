//! W3C Verifiable Credentials secured with Data Integrity proofs of the `eddsa-jcs-2022`
//! cryptosuite (W3C "Data Integrity EdDSA Cryptosuites v1.0"), keys as `did:key` Ed25519
//! multikeys.
//!
//! Proof creation, as the cryptosuite specifies it:
//!
//! 1. proof configuration: `type` = `DataIntegrityProof`, `cryptosuite` =
//!    `eddsa-jcs-2022`, `verificationMethod` = `did:key:z6Mk..#z6Mk..`, `proofPurpose`
//!    (`assertionMethod`), optional `created`, and `@context` copied from the credential
//!    when it has one;
//! 2. `hashData = SHA-256(JCS(proofConfig)) || SHA-256(JCS(credential without proof))`
//!    (64 bytes, proof configuration hash first);
//! 3. `proofValue` = `z` + base58btc of the Ed25519 signature over `hashData`, added to the
//!    proof configuration, which becomes the credential's `proof`.
//!
//! Verification recomputes `hashData` with `proofConfig` = the proof without
//! `proofValue`. Where the specification lets a credential's `@context` extend the proof's
//! (the proof's list a prefix of the credential's), this implementation requires them to
//! be equal, and rejects otherwise (fail closed). One proof (an object), not proof sets.
//! Beyond the signature, [`verify`] checks that the verification method's DID is the
//! `issuer`, that the issuer is a caller-supplied trust anchor, that the credential `id`
//! is not in the caller's revocation list, the validity period against `now`
//! (`validFrom`/`validUntil`, and the VC 1.1 `issuanceDate`/`expirationDate`), and the
//! proof's own options (Data Integrity §2.1): a proof past its `expires`, or `created`
//! more than [`MAX_FUTURE_SKEW`] seconds after `now`, is refused; a proof whose `expires`
//! is before its `created` is refused even without `now` ([`verify_proof`] checks that
//! too); and a caller may require a `domain` and a `challenge`.
//!
//! **Domain and challenge.** When [`VerifyOptions::domain`] is set, the proof's `domain`
//! (a string, or an array of strings: Data Integrity's "unordered set") must contain it;
//! when [`VerifyOptions::challenge`] is set, the proof's `challenge` must equal it; both
//! compared decoded, both [`Error::Binding`] otherwise. A proof that carries a `domain` or
//! `challenge` the caller did not ask for is accepted: Data Integrity's verification
//! algorithm raises `INVALID_DOMAIN_ERROR` / `INVALID_CHALLENGE_ERROR` only "if
//! options.domain [or challenge] is set" and does not match, and the members are signed,
//! so they cannot be added or changed without breaking the proof.
//!
//! **Decoded strings.** Every string this module compares or returns is read decoded, or
//! refused when it is written with JSON escapes: revocation compares the decoded `id`
//! with each revoked id (`"urn:uuid:\u0030..."` is `"urn:uuid:0..."`); the members
//! returned as borrowed text ([`Verified::issuer`], [`Verified::subject`],
//! [`ProofVerified::verification_method`]) and `proofValue` are refused with an
//! [`Error::Schema`] naming the member when they hold an escape, never read as absent;
//! dates are decoded into a stack buffer before they are parsed.

use crate::digest::{self, Sha256Sink};
use crate::encoding;
use crate::error::{Error, Result};
use crate::jcs;
use crate::json::{Kind, Value};
use crate::preimage::Without;
use crate::sign::{self, KeyPair, PublicKey, Signature};
use crate::sink::{CountSink, Sink, SliceSink};
use crate::time::Timestamp;

use super::envelope::{parse_rfc3339, MAX_CREATED_AT};
pub use super::replay::MAX_FUTURE_SKEW;

/// The cryptosuite name.
pub const CRYPTOSUITE: &str = "eddsa-jcs-2022";
/// The proof type.
pub const PROOF_TYPE: &str = "DataIntegrityProof";
/// The proof purpose of credentials.
pub const ASSERTION_METHOD: &str = "assertionMethod";

/// The `did:key` verification method of `key`: `did:key:z6Mk..#z6Mk..`.
#[must_use]
pub fn verification_method(key: &PublicKey) -> heapless::String<130> {
    let did = crate::did_key::encode(key);
    let mut s = heapless::String::new();
    let _ = s.push_str(&did);
    let _ = s.push('#');
    let _ = s.push_str(did.get(crate::did_key::PREFIX.len()..).unwrap_or(""));
    s
}

fn key_of_method(vm: &str) -> Result<PublicKey> {
    let (did, fragment) = vm.split_once('#').ok_or(Error::Schema("verificationMethod must be did:key:..#.."))?;
    if did.get(crate::did_key::PREFIX.len()..) != Some(fragment) {
        return Err(Error::Schema("verificationMethod fragment must be the did:key multikey"));
    }
    crate::did_key::decode(did)
}

/// The text of a string member that is returned borrowed: a string without escapes.
/// `not_string` for any other value, `escaped` (naming the member) for a string written
/// with a JSON escape: never `None`, so that an escaped spelling cannot read as absent.
fn unescaped<'a>(v: Value<'a>, not_string: &'static str, escaped: &'static str) -> Result<&'a str> {
    let s = v.as_str().ok_or(Error::Schema(not_string))?;
    s.as_plain().ok_or(Error::Schema(escaped))
}

fn issuer_of(doc: Value<'_>) -> Result<&str> {
    let v = doc.get("issuer").ok_or(Error::Schema("issuer missing"))?;
    let v = if v.kind() == Kind::Object { v.get("id").ok_or(Error::Schema("issuer.id missing"))? } else { v };
    unescaped(v, "issuer must be a string or an object with an id", "issuer must be written without JSON escapes")
}

struct ProofFields<'a> {
    context: Option<Value<'a>>,
    created: Option<&'a str>,
    purpose: &'a str,
    method: &'a str,
}

fn write_proof<S: Sink + ?Sized>(f: &ProofFields<'_>, proof_value: Option<&str>, sink: &mut S) -> Result<()> {
    sink.write(b"{")?;
    if let Some(ctx) = f.context {
        sink.write(b"\"@context\":")?;
        jcs::write(ctx, sink)?;
        sink.write(b",")?;
    }
    if let Some(c) = f.created {
        sink.write(b"\"created\":")?;
        jcs::write_plain_str(c, sink)?;
        sink.write(b",")?;
    }
    sink.write(b"\"cryptosuite\":\"eddsa-jcs-2022\",\"proofPurpose\":")?;
    jcs::write_plain_str(f.purpose, sink)?;
    if let Some(pv) = proof_value {
        sink.write(b",\"proofValue\":")?;
        jcs::write_plain_str(pv, sink)?;
    }
    sink.write(b",\"type\":\"DataIntegrityProof\",\"verificationMethod\":")?;
    jcs::write_plain_str(f.method, sink)?;
    sink.write(b"}")
}

fn hash_data(config_hash: &digest::Digest, doc: Value<'_>) -> [u8; 64] {
    let doc_hash = digest::sha256_jcs_with(doc, &Without(&["proof"]));
    let mut data = [0u8; 64];
    data[..32].copy_from_slice(config_hash.as_bytes());
    data[32..].copy_from_slice(doc_hash.as_bytes());
    data
}

/// Adds an `eddsa-jcs-2022` proof to `credential` (an object without `proof`, whose
/// `issuer` is the did:key of `key`) and writes the secured credential, canonical, into
/// `out`. `created` is an optional RFC 3339 timestamp for the proof.
///
/// # Errors
/// [`Error::Schema`] when `credential` is not an object, already has a `proof`, or has
/// no `issuer`; [`Error::InvalidArgument`] when the issuer is not the key's did:key;
/// [`Error::BufferTooSmall`] with the length needed.
pub fn issue(credential: Value<'_>, key: &KeyPair, created: Option<&str>, out: &mut [u8]) -> Result<usize> {
    if credential.kind() != Kind::Object {
        return Err(Error::Schema("credential must be an object"));
    }
    if credential.get("proof").is_some() {
        return Err(Error::Schema("credential already has a proof"));
    }
    let did = crate::did_key::encode(&key.public_key());
    if issuer_of(credential)? != did.as_str() {
        return Err(Error::InvalidArgument("issuer must be the signing key's did:key"));
    }
    if let Some(c) = created {
        parse_rfc3339(c)?;
    }
    let method = verification_method(&key.public_key());
    let fields =
        ProofFields { context: credential.get("@context"), created, purpose: ASSERTION_METHOD, method: &method };
    let mut h = Sha256Sink::new();
    write_proof(&fields, None, &mut h)?;
    let data = hash_data(&h.finish(), credential);
    let sig = key.sign(&data);
    let mut pv_buf = [0u8; 100];
    pv_buf[0] = b'z';
    let n = encoding::encode_base58(sig.as_bytes(), &mut pv_buf[1..])?;
    let pv = core::str::from_utf8(pv_buf.get(..n + 1).unwrap_or(&[])).unwrap_or("");
    let mut count = CountSink::default();
    write_proof(&fields, Some(pv), &mut count)?;
    let proof_len = count.0;
    let mut body = CountSink::default();
    jcs::write_inserting(credential, &Without(&["proof"]), Some(("proof", &[])), &mut body)?;
    let total = body.0 + proof_len;
    if out.len() < total + proof_len {
        return Err(Error::BufferTooSmall { needed: total + proof_len });
    }
    let (main, tail) = out.split_at_mut(out.len() - proof_len);
    let mut ps = SliceSink::new(tail);
    write_proof(&fields, Some(pv), &mut ps)?;
    ps.finish()?;
    let mut sink = SliceSink::new(main);
    jcs::write_inserting(credential, &Without(&["proof"]), Some(("proof", &*tail)), &mut sink)?;
    sink.finish()
}

/// What a verification needs besides the credential.
#[derive(Clone, Copy, Debug, Default)]
pub struct VerifyOptions<'a> {
    /// Check the validity period and the proof's `created`/`expires` at this instant
    /// (`None`: not checked; hosts pass their clock, see `concordia_host::vc`).
    pub now: Option<Timestamp>,
    /// Accept only these issuer DIDs (`None`: any issuer whose signature verifies),
    /// compared with the issuer as written (an escaped issuer is refused).
    pub anchors: Option<&'a [&'a str]>,
    /// Credential `id`s that have been revoked, compared with the decoded `id`.
    pub revoked: &'a [&'a str],
    /// Require the proof's `domain` to be (or, for an array, to contain) this value.
    pub domain: Option<&'a str>,
    /// Require the proof's `challenge` to be this value.
    pub challenge: Option<&'a str>,
}

/// A verified credential.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Verified<'a> {
    /// The issuer DID.
    pub issuer: &'a str,
    /// `credentialSubject.id`, when present.
    pub subject: Option<&'a str>,
    /// The key that signed.
    pub key: PublicKey,
}

/// An RFC 3339 date member, decoded (escapes and all) into a stack buffer and parsed.
fn time_of(doc: Value<'_>, name: &str, not_string: &'static str) -> Result<Option<Timestamp>> {
    let Some(v) = doc.get(name) else { return Ok(None) };
    let s = v.as_str().ok_or(Error::Schema(not_string))?;
    let mut buf = [0u8; MAX_CREATED_AT];
    // A decoded text longer than the buffer is longer than any date parse_rfc3339 accepts.
    let text = match s.as_plain() {
        Some(t) => t,
        None => s.decode_into(&mut buf).map_err(|_| Error::Schema(not_string))?,
    };
    parse_rfc3339(text).map(Some)
}

/// The proof's `created` and `expires`, and the one rule that needs no clock: a proof
/// cannot expire before it was created.
fn proof_times(proof: Value<'_>) -> Result<(Option<Timestamp>, Option<Timestamp>)> {
    let created = time_of(proof, "created", "proof created must be a date-time string")?;
    let expires = time_of(proof, "expires", "proof expires must be a date-time string")?;
    if let (Some(c), Some(e)) = (created, expires) {
        if e < c {
            return Err(Error::Temporal("proof expires before it was created"));
        }
    }
    Ok((created, expires))
}

/// `domain` is a string or an array of strings; true when it is or contains `want`.
fn domain_matches(v: Value<'_>, want: &str) -> bool {
    match v.kind() {
        Kind::Array => v.elements().any(|d| d.is_str(want)),
        _ => v.is_str(want),
    }
}

/// A credential whose Data Integrity proof verified, its issuer not checked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ProofVerified<'a> {
    /// The proof's `verificationMethod` (`did:key:z6Mk..#z6Mk..`).
    pub verification_method: &'a str,
    /// The key that signed (the verification method's).
    pub key: PublicKey,
}

/// Verifies only the `eddsa-jcs-2022` Data Integrity proof of `credential`: the proof's
/// shape, its `verificationMethod` (a did:key) and the signature over `hashData`. Nothing
/// else: not that the signer is the `issuer` (the issuer binding), nor anchors,
/// revocation or the validity period; [`verify`] does those on top of this. For
/// credentials whose issuer is resolved some other way (W3C's test vectors name an https
/// issuer), and reported as such.
///
/// # Errors
/// As [`verify`], less the binding and temporal checks.
pub fn verify_proof(credential: Value<'_>) -> Result<ProofVerified<'_>> {
    if credential.kind() != Kind::Object {
        return Err(Error::Schema("credential must be an object"));
    }
    let proof = credential.get("proof").ok_or(Error::Schema("proof missing"))?;
    if proof.kind() != Kind::Object {
        return Err(Error::Schema("proof must be one object (proof sets are not supported)"));
    }
    if !proof.get("type").is_some_and(|v| v.is_str(PROOF_TYPE))
        || !proof.get("cryptosuite").is_some_and(|v| v.is_str(CRYPTOSUITE))
    {
        return Err(Error::Schema("proof must be a DataIntegrityProof with cryptosuite eddsa-jcs-2022"));
    }
    if !proof.get("proofPurpose").is_some_and(|v| v.is_str(ASSERTION_METHOD)) {
        return Err(Error::Schema("proofPurpose must be assertionMethod"));
    }
    if let Some(pctx) = proof.get("@context") {
        if !credential.get("@context").is_some_and(|c| c.equals(&pctx)) {
            return Err(Error::Schema("proof @context must equal the credential @context"));
        }
    }
    proof_times(proof)?;
    let verification_method = unescaped(
        proof.get("verificationMethod").ok_or(Error::Schema("verificationMethod"))?,
        "verificationMethod",
        "verificationMethod must be written without JSON escapes",
    )?;
    let key = key_of_method(verification_method)?;
    let pv = unescaped(
        proof.get("proofValue").ok_or(Error::Schema("proofValue"))?,
        "proofValue",
        "proofValue must be written without JSON escapes",
    )?;
    let b58 = pv.strip_prefix('z').ok_or(Error::Encoding("proofValue must be multibase base58btc"))?;
    let mut sig = [0u8; 80];
    if b58.len() > 100 {
        return Err(Error::Encoding("proofValue length"));
    }
    let n = encoding::decode_base58(b58.as_bytes(), &mut sig).map_err(|_| Error::Encoding("proofValue base58btc"))?;
    let sig = Signature::from_bytes(sig.get(..n).unwrap_or(&[]))?;
    let config_hash = digest::sha256_jcs_with(proof, &Without(&["proofValue"]));
    sign::verify(&key, &hash_data(&config_hash, credential), &sig)?;
    Ok(ProofVerified { verification_method, key })
}

/// Verifies the `eddsa-jcs-2022` proof of `credential` ([`verify_proof`]) and the checks
/// listed in the module documentation.
///
/// # Errors
/// [`Error::Schema`] for a malformed credential or proof (an `issuer`,
/// `credentialSubject.id`, `verificationMethod` or `proofValue` written with JSON escapes
/// included, the message naming the member); [`Error::Encoding`] for a bad key or
/// `proofValue`; [`Error::Signature`] when the proof does not verify (any change to any
/// member); [`Error::Binding`] when the signer is not the issuer, the issuer is not an
/// anchor, the credential is revoked, or a required `domain`/`challenge` is missing or
/// different; [`Error::Temporal`] outside the validity period, for a proof past its
/// `expires`, created more than [`MAX_FUTURE_SKEW`] seconds after `now`, or expiring
/// before it was created.
pub fn verify<'a>(credential: Value<'a>, opts: &VerifyOptions<'_>) -> Result<Verified<'a>> {
    let key = verify_proof(credential)?.key;
    let issuer = issuer_of(credential)?;
    if crate::did_key::decode(issuer).ok() != Some(key) {
        return Err(Error::Binding("the proof's key is not the issuer's"));
    }
    if let Some(anchors) = opts.anchors {
        if !anchors.contains(&issuer) {
            return Err(Error::Binding("issuer is not a trust anchor"));
        }
    }
    if let Some(id) = credential.get("id") {
        let id = id.as_str().ok_or(Error::Schema("credential id must be a string"))?;
        if opts.revoked.iter().any(|r| id.eq_str(r)) {
            return Err(Error::Binding("credential is revoked"));
        }
    }
    // verify_proof has checked that the proof is an object.
    let proof = credential.get("proof").ok_or(Error::Schema("proof missing"))?;
    if let Some(want) = opts.domain {
        if !proof.get("domain").is_some_and(|d| domain_matches(d, want)) {
            return Err(Error::Binding("proof domain is missing or not the required one"));
        }
    }
    if let Some(want) = opts.challenge {
        if !proof.get("challenge").is_some_and(|c| c.is_str(want)) {
            return Err(Error::Binding("proof challenge is missing or not the required one"));
        }
    }
    let (created, expires) = proof_times(proof)?;
    const NOT_DATE: &str = "validity dates must be date-time strings";
    let from = time_of(credential, "validFrom", NOT_DATE)?.or(time_of(credential, "issuanceDate", NOT_DATE)?);
    let until = time_of(credential, "validUntil", NOT_DATE)?.or(time_of(credential, "expirationDate", NOT_DATE)?);
    if let Some(now) = opts.now {
        if from.is_some_and(|f| now < f) {
            return Err(Error::Temporal("credential is not yet valid"));
        }
        if until.is_some_and(|u| now > u) {
            return Err(Error::Temporal("credential has expired"));
        }
        if expires.is_some_and(|e| now > e) {
            return Err(Error::Temporal("proof has expired"));
        }
        if created.is_some_and(|c| now.add_seconds(MAX_FUTURE_SKEW).is_ok_and(|latest| c > latest)) {
            return Err(Error::Temporal("proof created in the future"));
        }
    }
    let subject = match credential.get("credentialSubject").and_then(|s| s.get("id")) {
        None => None,
        Some(v) => Some(unescaped(
            v,
            "credentialSubject.id must be a string",
            "credentialSubject.id must be written without JSON escapes",
        )?),
    };
    Ok(Verified { issuer, subject, key })
}
