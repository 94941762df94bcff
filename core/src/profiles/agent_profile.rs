//! `agent-profile-v1`: the signed AgentCapabilityProfile.
//!
//! The signature covers an *enumerated and filtered* canonical form, the SDK's
//! `AgentCapabilityProfile.to_canonical_dict()`:
//!
//! * top level: exactly [`AGENT_PROFILE_CANONICAL_FIELDS`], all required; `signature` and
//!   the store-local `verified` are allowed but excluded; any other key rejects;
//! * `capabilities`, `negotiation_profile`, `location`, `trust_signals.sovereignty`:
//!   closed objects (an unknown key rejects), copied whole, `null` members kept;
//! * `endpoints`: closed, `null` members dropped;
//! * `trust_signals`: unknown keys *ignored* (the #149 / #151 forward-compatibility lane)
//!   and `null` members dropped;
//! * `trust_signals.reputation[]`: each assertion an object whose unknown keys are ignored
//!   and `null` members dropped; `provider` is required.
//!
//! No Preimage rule can say this (it depends on the parent object and on member values),
//! so [`write_agent_profile_canonical`] is a small writer of its own: it walks the parsed
//! record, skips what the form leaves out, and hands every kept value to the RFC 8785
//! writer. Nothing is copied; the digest and the signature check stream the form.

use super::VerifyOptions;
use crate::digest::{Digest, Sha256Sink};
use crate::error::{Error, Result};
use crate::jcs;
use crate::json::{Kind, Str, Value};
use crate::sign::{PublicKey, VerifySink};
use crate::sink::{CountSink, Sink};

/// The signed top-level fields, in the order of `to_canonical_dict()` (and of the
/// contract's `context.canonical_fields`).
pub const AGENT_PROFILE_CANONICAL_FIELDS: [&str; 12] = [
    "type",
    "version",
    "agent_id",
    "name",
    "description",
    "capabilities",
    "negotiation_profile",
    "trust_signals",
    "endpoints",
    "location",
    "ttl",
    "updated_at",
];

/// The same fields in RFC 8785 order (UTF-16 code units; all ASCII here).
const SORTED_FIELDS: [&str; 12] = [
    "agent_id",
    "capabilities",
    "description",
    "endpoints",
    "location",
    "name",
    "negotiation_profile",
    "trust_signals",
    "ttl",
    "type",
    "updated_at",
    "version",
];

const CAPABILITY_FIELDS: &[&str] =
    &["categories", "offer_types", "resolution_methods", "max_concurrent_sessions", "languages", "currencies"];
const NEGOTIATION_FIELDS: &[&str] =
    &["style", "avg_rounds_to_agreement", "agreement_rate", "avg_session_duration_seconds", "concession_pattern"];
const TRUST_SIGNAL_FIELDS: &[&str] = &[
    "verascore_did",
    "verascore_tier",
    "verascore_composite",
    "sovereignty",
    "concordia_sessions_completed",
    "attestation_count",
    "concordia_preferred",
    "reputation",
];
const SOVEREIGNTY_FIELDS: &[&str] = &["L1", "L2", "L3", "L4"];
const REPUTATION_FIELDS: &[&str] = &["provider", "subject_did", "tier", "composite"];
const ENDPOINT_FIELDS: &[&str] = &["negotiate", "a2a_card", "mcp_manifest"];
const LOCATION_FIELDS: &[&str] = &["regions", "jurisdictions"];

/// The name in `set` equal to `key`, if any.
fn known(key: Str<'_>, set: &[&'static str]) -> Option<&'static str> {
    set.iter().copied().find(|f| key.eq_str(f))
}

/// `value` as an object whose every key is in `set`.
fn closed<'a>(value: Option<Value<'a>>, set: &[&'static str], what: &'static str) -> Result<Value<'a>> {
    let v = super::object(value, what)?;
    if v.members().all(|(k, _)| known(k, set).is_some()) {
        Ok(v)
    } else {
        Err(Error::Schema("agent profile contains an unknown signed-form key"))
    }
}

/// The kept members of a filtered object: known names with non-null values.
fn kept<'a>(obj: Value<'a>, set: &'static [&'static str]) -> impl Iterator<Item = (&'static str, Value<'a>)> {
    obj.sorted_members().filter_map(move |(k, v)| Some((known(k, set)?, v))).filter(|(_, v)| !v.is_null())
}

/// Writes `{name: value, ...}` from `members` (already in canonical order).
fn write_object<'a, S: Sink + ?Sized>(
    members: impl Iterator<Item = (&'static str, Value<'a>)>,
    sink: &mut S,
) -> Result<()> {
    sink.write(b"{")?;
    for (i, (name, value)) in members.enumerate() {
        if i > 0 {
            sink.write(b",")?;
        }
        jcs::write_plain_str(name, sink)?;
        sink.write(b":")?;
        jcs::write(value, sink)?;
    }
    sink.write(b"}")
}

/// A checked AgentProfile: every structural rule of the canonical form holds.
#[derive(Clone, Copy, Debug)]
struct Checked<'a> {
    profile: Value<'a>,
    trust_signals: Value<'a>,
}

fn check(profile: Value<'_>) -> Result<Checked<'_>> {
    let profile = super::object(Some(profile), "agent profile must be an object")?;
    for (k, _) in profile.members() {
        if known(k, &AGENT_PROFILE_CANONICAL_FIELDS).is_none() && !k.eq_str("signature") && !k.eq_str("verified") {
            return Err(Error::Schema("agent profile top-level key is unknown"));
        }
    }
    closed(profile.get("capabilities"), CAPABILITY_FIELDS, "agent profile capabilities")?;
    closed(profile.get("negotiation_profile"), NEGOTIATION_FIELDS, "agent profile negotiation_profile")?;
    let trust_signals = super::object(profile.get("trust_signals"), "agent profile trust_signals")?;
    for (name, value) in kept(trust_signals, TRUST_SIGNAL_FIELDS) {
        match name {
            "sovereignty" => {
                closed(Some(value), SOVEREIGNTY_FIELDS, "agent profile sovereignty")?;
            }
            "reputation" => {
                if value.kind() != Kind::Array {
                    return Err(Error::Schema("agent profile reputation must be an array"));
                }
                for assertion in value.elements() {
                    let assertion = super::object(Some(assertion), "agent profile reputation assertion")?;
                    if !kept(assertion, REPUTATION_FIELDS).any(|(n, _)| n == "provider") {
                        return Err(Error::Schema("agent profile reputation assertion is missing provider"));
                    }
                }
            }
            _ => {}
        }
    }
    closed(profile.get("endpoints"), ENDPOINT_FIELDS, "agent profile endpoints")?;
    closed(profile.get("location"), LOCATION_FIELDS, "agent profile location")?;
    if AGENT_PROFILE_CANONICAL_FIELDS.iter().any(|f| profile.get(f).is_none()) {
        return Err(Error::Schema("agent profile signed canonical field is missing"));
    }
    Ok(Checked { profile, trust_signals })
}

impl Checked<'_> {
    fn write<S: Sink + ?Sized>(&self, sink: &mut S) -> Result<()> {
        sink.write(b"{")?;
        for (i, name) in SORTED_FIELDS.iter().enumerate() {
            if i > 0 {
                sink.write(b",")?;
            }
            jcs::write_plain_str(name, sink)?;
            sink.write(b":")?;
            match *name {
                "trust_signals" => self.write_trust_signals(sink)?,
                "endpoints" => {
                    let endpoints = self.profile.get(name).ok_or(Error::Schema("agent profile endpoints"))?;
                    write_object(kept(endpoints, ENDPOINT_FIELDS), sink)?;
                }
                _ => {
                    let value = self.profile.get(name).ok_or(Error::Schema("agent profile signed canonical field"))?;
                    jcs::write(value, sink)?;
                }
            }
        }
        sink.write(b"}")
    }

    fn write_trust_signals<S: Sink + ?Sized>(&self, sink: &mut S) -> Result<()> {
        sink.write(b"{")?;
        for (i, (name, value)) in kept(self.trust_signals, TRUST_SIGNAL_FIELDS).enumerate() {
            if i > 0 {
                sink.write(b",")?;
            }
            jcs::write_plain_str(name, sink)?;
            sink.write(b":")?;
            if name == "reputation" {
                sink.write(b"[")?;
                for (j, assertion) in value.elements().enumerate() {
                    if j > 0 {
                        sink.write(b",")?;
                    }
                    write_object(kept(assertion, REPUTATION_FIELDS), sink)?;
                }
                sink.write(b"]")?;
            } else {
                jcs::write(value, sink)?;
            }
        }
        sink.write(b"}")
    }
}

/// Writes the signed canonical form of an AgentProfile (RFC 8785 bytes of
/// `to_canonical_dict()`) into `sink`: the top-level
/// fields of [`AGENT_PROFILE_CANONICAL_FIELDS`] (`signature` and `verified` excluded, any
/// other key rejected); `capabilities`, `negotiation_profile`, `location` and
/// `trust_signals.sovereignty` as closed objects; `endpoints` closed with `null` members
/// dropped; `trust_signals` and each `trust_signals.reputation[]` assertion with unknown
/// keys ignored and `null` members dropped (an assertion needs a `provider`).
///
/// # Errors
/// [`Error::Schema`] when the profile breaks a rule of the form (unknown top-level or
/// closed-object key, missing field, wrong container type, reputation assertion without
/// `provider`); otherwise only the sink's own errors. Nothing is written when the profile
/// is rejected.
pub fn write_agent_profile_canonical<S: Sink + ?Sized>(profile: Value<'_>, sink: &mut S) -> Result<()> {
    check(profile)?.write(sink)
}

/// The length of the signed canonical form of an AgentProfile.
///
/// # Errors
/// As [`write_agent_profile_canonical`].
pub fn agent_profile_canonical_len(profile: Value<'_>) -> Result<usize> {
    let mut count = CountSink::default();
    write_agent_profile_canonical(profile, &mut count)?;
    Ok(count.0)
}

/// SHA-256 over the signed canonical form of an AgentProfile.
///
/// # Errors
/// As [`write_agent_profile_canonical`].
pub fn agent_profile_digest(profile: Value<'_>) -> Result<Digest> {
    let checked = check(profile)?;
    let mut sink = Sha256Sink::new();
    checked.write(&mut sink)?;
    Ok(sink.finish())
}

fn verify_checked(checked: &Checked<'_>, key: &PublicKey) -> Result<()> {
    let sig = super::signature(checked.profile.get("signature"))?;
    let mut sink = VerifySink::new(key, &sig).map_err(|_| Error::Signature)?;
    checked.write(&mut sink)?;
    sink.finish().map_err(|_| Error::Signature)
}

/// Verifies an AgentProfile: the canonical-form rules, then the Ed25519 `signature`
/// (bare base64url string) under `key` over the canonical form.
///
/// # Errors
/// [`Error::Schema`] as [`write_agent_profile_canonical`]; [`Error::Signature`] when the
/// signature is missing, malformed or does not verify.
pub fn verify_agent_profile(profile: Value<'_>, key: &PublicKey) -> Result<()> {
    verify_checked(&check(profile)?, key)
}

/// `agent-profile-v1`.
pub(crate) fn agent_profile(input: Value<'_>, context: Value<'_>, _opts: &VerifyOptions) -> Result<()> {
    let fields_ok = context.get("canonical_fields").is_some_and(|list| {
        list.kind() == Kind::Array
            && list.len() == AGENT_PROFILE_CANONICAL_FIELDS.len()
            && list.elements().zip(AGENT_PROFILE_CANONICAL_FIELDS).all(|(v, f)| v.is_str(f))
    });
    if !fields_ok {
        return Err(Error::Schema("context.canonical_fields is not the AgentProfile field list"));
    }
    let checked = check(input)?;
    if let Some(expected) = context.get("canonical_sha256").filter(|v| !v.is_null()) {
        let mut sink = Sha256Sink::new();
        checked.write(&mut sink)?;
        if !super::digest_equals(&sink.finish(), Some(expected)) {
            return Err(Error::Digest("canonical_sha256"));
        }
    }
    let key = super::public_key(context.get("public_key_b64url"))?;
    verify_checked(&checked, &key)
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;
    use crate::json::{self, Node};
    use std::vec;
    use std::vec::Vec;

    fn with_doc<R>(text: &str, f: impl FnOnce(Value<'_>) -> R) -> R {
        let mut nodes = vec![Node::EMPTY; text.len() / 2 + 2];
        let doc = json::parse(text.as_bytes(), &mut nodes).unwrap();
        f(doc.root())
    }

    fn canonical(text: &str) -> Result<std::string::String> {
        with_doc(text, |v| {
            let n = agent_profile_canonical_len(v)?;
            let mut out: Vec<u8> = vec![0; n];
            let mut sink = crate::sink::SliceSink::new(&mut out);
            write_agent_profile_canonical(v, &mut sink)?;
            assert_eq!(sink.finish()?, n);
            Ok(std::string::String::from_utf8(out).unwrap())
        })
    }

    const BASE: &str = r#"{"type":"t","version":"1","agent_id":"a","name":"n","description":null,
        "capabilities":{"languages":null},"negotiation_profile":{},
        "trust_signals":{"zz":1,"verascore_did":null,"attestation_count":2,
            "sovereignty":{"L1":null},
            "reputation":[{"provider":"p","tier":null,"extra":[1]}]},
        "endpoints":{"negotiate":null,"a2a_card":"c"},"location":{"regions":[]},
        "ttl":1.0,"updated_at":"u","verified":true,"signature":"s"}"#;

    #[test]
    fn sorted_fields_are_the_canonical_fields_in_jcs_order() {
        let mut v = AGENT_PROFILE_CANONICAL_FIELDS;
        v.sort_unstable();
        assert_eq!(v, SORTED_FIELDS);
    }

    #[test]
    fn canonical_form_filters_as_the_sdk_does() {
        assert_eq!(
            canonical(BASE).unwrap(),
            concat!(
                r#"{"agent_id":"a","capabilities":{"languages":null},"description":null,"#,
                r#""endpoints":{"a2a_card":"c"},"location":{"regions":[]},"name":"n","negotiation_profile":{},"#,
                r#""trust_signals":{"attestation_count":2,"reputation":[{"provider":"p"}],"sovereignty":{"L1":null}},"#,
                r#""ttl":1,"type":"t","updated_at":"u","version":"1"}"#
            )
        );
    }

    #[test]
    fn closed_objects_and_required_fields_reject() {
        for (from, to) in [
            (r#""verified":true"#, r#""verified":true,"extra":1"#),
            (r#""capabilities":{"languages":null}"#, r#""capabilities":{"x":null}"#),
            (r#""negotiation_profile":{}"#, r#""negotiation_profile":[]"#),
            (r#""sovereignty":{"L1":null}"#, r#""sovereignty":{"L5":null}"#),
            (r#""sovereignty":{"L1":null}"#, r#""sovereignty":3"#),
            (r#"{"provider":"p""#, r#"{"provider":null"#),
            (r#""reputation":["#, r#""reputation":[1,"#),
            (r#""endpoints":{"negotiate":null"#, r#""endpoints":{"other":null"#),
            (r#""location":{"regions":[]}"#, r#""location":{"x":[]}"#),
            (r#""ttl":1.0,"#, ""),
            (r#""type":"t","#, ""),
        ] {
            let text = BASE.replacen(from, to, 1);
            assert_ne!(text, BASE, "{from}");
            assert!(matches!(canonical(&text), Err(Error::Schema(_))), "{to}");
        }
    }

    #[test]
    fn tolerated_lanes_do_not_change_the_form() {
        let base = canonical(BASE).unwrap();
        for (from, to) in [
            (r#""zz":1"#, r#""zz":{"deep":[1,2]},"yy":null"#),
            (r#""verascore_did":null,"#, ""),
            (r#""sovereignty":{"L1":null}"#, r#""sovereignty":null"#),
            (r#""extra":[1]"#, r#""extra":[2],"more":"x""#),
            (r#""verified":true,"#, ""),
            (r#""verified":true"#, r#""verified":"anything""#),
            (r#""negotiate":null,"#, ""),
        ] {
            let text = BASE.replacen(from, to, 1);
            assert_ne!(text, BASE, "{from}");
            let got = canonical(&text).unwrap();
            if from.contains("sovereignty") {
                assert_eq!(got, base.replace(r#","sovereignty":{"L1":null}"#, ""));
            } else {
                assert_eq!(got, base, "{to}");
            }
        }
    }

    #[test]
    fn signs_and_verifies_over_the_canonical_form() {
        let kp = crate::sign::KeyPair::from_seed(&[7; 32]);
        let form = canonical(BASE).unwrap();
        let sig = kp.sign(form.as_bytes()).to_b64url();
        let signed = BASE.replace(r#""signature":"s""#, &std::format!(r#""signature":"{sig}""#));
        with_doc(&signed, |v| {
            verify_agent_profile(v, &kp.public_key()).unwrap();
            assert_eq!(agent_profile_digest(v).unwrap(), crate::digest::sha256(form.as_bytes()));
        });
        let other = crate::sign::KeyPair::from_seed(&[8; 32]);
        with_doc(&signed, |v| assert_eq!(verify_agent_profile(v, &other.public_key()), Err(Error::Signature)));
        let unsigned = BASE.replace(r#","signature":"s""#, "");
        with_doc(&unsigned, |v| assert_eq!(verify_agent_profile(v, &kp.public_key()), Err(Error::Signature)));
    }
}
