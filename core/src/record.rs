//! The record kernel: readers and rules shared by several kinds of record (messages,
//! attestations, receipts, the conformance profiles), each written once.
//!
//! * [`version_at_least`]: the protocol version gate (`concordia_attestation` and the like),
//!   as the reference SDK and runner read it;
//! * key and signature readers over JSON values, in the one accepted spelling of each lane
//!   (`signature`: padded base64url, the sign_message lane; `cosign_signature`: unpadded,
//!   the cosign lane), and the streamed signature check `verify_preimage`;
//! * small shape helpers (`object`, `member`, `lookup`) and `timestamp`.
//!
//! The conformance profiles (`crate::profiles`) use these; nothing here uses the profiles.
//! The crate-internal readers serve attestations and the profiles only: without the
//! `profiles` feature some (without `attestation` all but [`version_at_least`]) are unused.
#![cfg_attr(not(feature = "profiles"), allow(dead_code))]

use crate::digest::Digest;
use crate::error::{Error, Result};
use crate::json::{Kind, Str, Value};
use crate::preimage::Preimage;
use crate::privacy::digit_value;
use crate::sign::{PublicKey, Signature, VerifySink};
use crate::time::Timestamp;

/// Whether `v` is a version string `^\d+\.\d+\.\d+\Z` whose `(major, minor)` is at least
/// the one given, read as the reference SDK (`attestation._attestation_version_at_least`)
/// and runner do: Python's `re` `\d` matches every Unicode decimal digit and `int()` reads
/// them, so `"٠.٥.٠"` is version 0.5.0. Anything else (not a string, other shapes, no
/// digits) is "legacy": `false`, never an error. Escaped text is read decoded.
///
/// ```
/// # fn main() -> Result<(), concordia_core::Error> {
/// use concordia_core::{json, record::version_at_least};
///
/// let mut nodes = [json::Node::EMPTY; 4];
/// let doc = json::parse(br#"["0.3.0", "1.0", "\u0660.\u0665.\u0660"]"#, &mut nodes)?;
/// let v: Vec<_> = doc.root().elements().map(|v| version_at_least(Some(v), 0, 3)).collect();
/// assert_eq!(v, [true, false, true]);
/// # Ok(())
/// # }
/// ```
#[must_use]
pub fn version_at_least(v: Option<Value<'_>>, major: u64, minor: u64) -> bool {
    let Some(s) = v.and_then(|v| v.as_str()) else { return false };
    let mut parts = [0u64; 3];
    let mut idx = 0usize;
    let mut digits = 0usize;
    for c in s.chars() {
        if c == '.' {
            if digits == 0 || idx >= 2 {
                return false;
            }
            idx += 1;
            digits = 0;
        } else if let Some(d) = digit_value(c) {
            if let Some(p) = parts.get_mut(idx) {
                *p = p.saturating_mul(10).saturating_add(u64::from(d));
            }
            digits += 1;
        } else {
            return false;
        }
    }
    idx == 2 && digits > 0 && (parts[0], parts[1]) >= (major, minor)
}

/// `value` if it is an object, else a schema error naming `what`.
pub(crate) fn object<'a>(value: Option<Value<'a>>, what: &'static str) -> Result<Value<'a>> {
    match value {
        Some(v) if v.kind() == Kind::Object => Ok(v),
        _ => Err(Error::Schema(what)),
    }
}

/// The member of the object `map` whose (decoded) name equals `key`.
pub(crate) fn lookup<'a>(map: Value<'a>, key: Str<'_>) -> Option<Value<'a>> {
    if map.kind() != Kind::Object {
        return None;
    }
    map.sorted_members().find(|(k, _)| *k == key).map(|(_, v)| v)
}

/// The member `key` of `value` when `value` is an object.
pub(crate) fn member<'a>(value: Value<'a>, key: &str) -> Option<Value<'a>> {
    if value.kind() == Kind::Object {
        value.get(key)
    } else {
        None
    }
}

/// An Ed25519 public key held as a base64url string in `value`; missing or not a string
/// is [`Error::UnknownKey`].
pub(crate) fn public_key(value: Option<Value<'_>>) -> Result<PublicKey> {
    let s = value.and_then(|v| v.as_str()).ok_or(Error::UnknownKey)?;
    let mut buf = [0u8; 128];
    let text = s.decode_into(&mut buf).map_err(|_| Error::Signature)?;
    PublicKey::from_b64(text).map_err(|_| Error::Signature)
}

/// A counterparty co-signature (the SDK's cosign lane): unpadded base64url, 86 characters,
/// exactly what `cosign.cosign_receipt` emits; anything else is a signature failure.
pub(crate) fn cosign_signature(value: Option<Value<'_>>) -> Result<Signature> {
    let s = value.and_then(|v| v.as_str()).ok_or(Error::Signature)?;
    let mut buf = [0u8; 128];
    let text = s.decode_into(&mut buf).map_err(|_| Error::Signature)?;
    Signature::from_b64url_nopad(text).map_err(|_| Error::Signature)
}

/// An Ed25519 signature held as a base64url string in `value`, in its one spelling:
/// padded URL-safe base64, exactly what the SDK's `sign_message` (and every other signer
/// but the cosign lane) emits. Missing, not a string, another spelling or not 64 bytes is
/// a signature failure.
pub(crate) fn signature(value: Option<Value<'_>>) -> Result<Signature> {
    let s = value.and_then(|v| v.as_str()).ok_or(Error::Signature)?;
    let mut buf = [0u8; 128];
    let text = s.decode_into(&mut buf).map_err(|_| Error::Signature)?;
    Signature::from_b64url(text).map_err(|_| Error::Signature)
}

/// Verifies `sig` under `key` over the canonical form of `value` under `rule`, streamed.
pub(crate) fn verify_preimage<P: Preimage + ?Sized>(
    value: Value<'_>,
    rule: &P,
    key: &PublicKey,
    sig: &Signature,
) -> Result<()> {
    let mut sink = VerifySink::new(key, sig).map_err(|_| Error::Signature)?;
    crate::jcs::write_with(value, rule, &mut sink)?;
    sink.finish().map_err(|_| Error::Signature)
}

/// Whether `expected` is a string equal to `sha256:<hex of digest>`.
pub(crate) fn digest_equals(digest: &Digest, expected: Option<Value<'_>>) -> bool {
    expected.is_some_and(|e| e.is_str(digest.to_prefixed().as_str()))
}

/// Parses a timestamp held in a JSON string.
pub(crate) fn timestamp(value: Option<Value<'_>>, what: &'static str) -> Result<Timestamp> {
    let s = value.and_then(|v| v.as_str()).ok_or(Error::Temporal(what))?;
    let mut buf = [0u8; 64];
    let text = s.decode_into(&mut buf).map_err(|_| Error::Temporal(what))?;
    // Temporal checks read timestamps as the reference runner does: a text without an
    // offset is UTC. (Schema `format: date-time` checks stay strict.)
    crate::time::parse_datetime_assume_utc(text).map_err(|_| Error::Temporal(what))
}

/// The non-empty bare-string `signature` member of `record`.
pub(crate) fn bare_signature(record: Value<'_>) -> Result<Signature> {
    let s = member(record, "signature").filter(|s| s.as_str().is_some_and(|s| !s.raw().is_empty()));
    signature(s)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::json::{parse, Node};

    fn check(text: &str) -> bool {
        let mut nodes = [Node::EMPTY; 2];
        let doc = parse(text.as_bytes(), &mut nodes).unwrap();
        version_at_least(Some(doc.root()), 0, 3)
    }

    /// The SDK's `_SEMVER_RE.match(v)` and `(int(a), int(b)) >= (0, 3)`, case by case.
    #[test]
    fn matches_the_sdk_rule() {
        for (text, sdk) in [
            (r#""0.3.0""#, true),
            (r#""0.2.9""#, false),
            (r#""0.10.0""#, true),
            (r#""1.0.0""#, true),
            (r#""00.03.00""#, true),
            (r#""0.3""#, false),
            (r#""0.3.0.1""#, false),
            (r#""0.3.0 ""#, false),
            (r#""v0.3.0""#, false),
            (r#""0..3""#, false),
            (r#""""#, false),
            (r#""\u0660.\u0665.\u0660""#, true),  // Arabic-Indic digits: 0.5.0
            (r#""\u0966.\u0968.\u0967""#, false), // Devanagari 0.2.1
            (r#""99999999999999999999999.0.0""#, true),
            ("3", false),
            ("null", false),
        ] {
            assert_eq!(check(text), sdk, "{text}");
        }
    }
}
