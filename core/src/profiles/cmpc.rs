//! The CMPC bilateral set (conditional multi-party commitments): six profiles of the
//! conformance contract and the ChainSession state machine.
//!
//! | profile | record | checks |
//! |---|---|---|
//! | `conditional-commitment-v1` | ConditionalCommitment | schema, `algorithm == "EdDSA"`, digest, Ed25519 |
//! | `atomic-activation-proof-v1` | AtomicActivationProof | schema, `algorithm == "EdDSA"`, digest, Ed25519 |
//! | `unwind-record-v1` | UnwindRecord | schema, `algorithm == "EdDSA"`, digest, Ed25519 |
//! | `closure-predicate-v1` | ClosurePredicate | schema, digest, committed digest checks (no signature) |
//! | `chain-session-v1` | ChainSession | schema, digest over the whole record |
//! | `chain-session-transition-v1` | ChainSession + target state | schema, transition table, preconditions |
//!
//! The three signed records use the bare-string envelope
//! `{"algorithm": "EdDSA", "signature": "<base64url>"}`; the preimage is the canonical form
//! of the record without its top-level `signature`, streamed from the parsed input into the
//! verifier.
//!
//! The ChainSession table ([`ChainSessionState::legal_targets`]):
//!
//! | from | legal targets |
//! |---|---|
//! | `PROPOSED` | `OPEN` |
//! | `OPEN` | `ACTIVATED`, `DISSOLVED`, `EXPIRED` |
//! | `ACTIVATED`, `DISSOLVED`, `EXPIRED` | none |
//!
//! with the preconditions of [`check_chain_session_transition`].

use super::VerifyOptions;
use crate::digest::{self, Digest};
use crate::error::{Error, Result};
use crate::json::{Kind, Str, Value};
use crate::preimage::{Whole, WithoutSignature};
use crate::schema::SchemaId;
use crate::sign::PublicKey;
use crate::time::{self, Timestamp};

/// The most `context.digest_checks` entries one closure-predicate check evaluates. Each
/// entry hashes a whole source object, so the bound keeps the work linear in the input.
pub const MAX_DIGEST_CHECKS: usize = 64;

// ---------------------------------------------------------------------------------------
// The three bare-signed records.
// ---------------------------------------------------------------------------------------

/// Schema, algorithm and signature of a bare-signed CMPC record under `key`.
fn bare_signed(id: SchemaId, record: Value<'_>, key: &PublicKey) -> Result<()> {
    super::schema(id, record)?;
    super::require_algorithm(record, "EdDSA")?;
    let sig = super::bare_signature(record)?;
    super::verify_preimage(record, &WithoutSignature, key, &sig)
}

/// The contract's bare-signed schema-object profile: schema, algorithm, optional
/// `context.canonical_sha256`, then Ed25519 under `context.public_key_b64url`.
fn bare_signed_profile(id: SchemaId, input: Value<'_>, context: Value<'_>) -> Result<()> {
    super::schema(id, input)?;
    super::require_algorithm(input, "EdDSA")?;
    check_canonical(input, &WithoutSignature, context)?;
    let key = super::public_key(context.get("public_key_b64url"))?;
    let sig = super::bare_signature(input)?;
    super::verify_preimage(input, &WithoutSignature, &key, &sig)
}

/// The optional `context.canonical_sha256` check. A `null` value counts as absent, as in
/// the reference runner (`context.get(..) is not None`).
pub(super) fn check_canonical<P: crate::preimage::Preimage + ?Sized>(
    value: Value<'_>,
    rule: &P,
    context: Value<'_>,
) -> Result<()> {
    match context.get("canonical_sha256") {
        None => Ok(()),
        Some(expected) if expected.is_null() => Ok(()),
        Some(expected) => {
            if super::digest_equals(&digest::sha256_jcs_with(value, rule), Some(expected)) {
                Ok(())
            } else {
                Err(Error::Digest("canonical_sha256"))
            }
        }
    }
}

/// Verifies a ConditionalCommitment: `conditional_commitment.schema.json`,
/// `algorithm == "EdDSA"`, and the Ed25519 `signature` under `key` over the canonical
/// record without `signature`.
///
/// # Errors
/// [`Error::Schema`] for a record that does not conform, [`Error::Signature`] when the
/// algorithm is not EdDSA or the signature does not verify.
pub fn verify_conditional_commitment(record: Value<'_>, key: &PublicKey) -> Result<()> {
    bare_signed(SchemaId::ConditionalCommitment, record, key)
}

/// Verifies an AtomicActivationProof, as [`verify_conditional_commitment`] does under
/// `atomic_activation_proof.schema.json`.
///
/// # Errors
/// As [`verify_conditional_commitment`].
pub fn verify_atomic_activation_proof(record: Value<'_>, key: &PublicKey) -> Result<()> {
    bare_signed(SchemaId::AtomicActivationProof, record, key)
}

/// Verifies an UnwindRecord, as [`verify_conditional_commitment`] does under
/// `unwind_record.schema.json`.
///
/// # Errors
/// As [`verify_conditional_commitment`].
pub fn verify_unwind_record(record: Value<'_>, key: &PublicKey) -> Result<()> {
    bare_signed(SchemaId::UnwindRecord, record, key)
}

/// `conditional-commitment-v1`.
pub(crate) fn conditional_commitment(input: Value<'_>, context: Value<'_>, _opts: &VerifyOptions) -> Result<()> {
    bare_signed_profile(SchemaId::ConditionalCommitment, input, context)
}

/// `atomic-activation-proof-v1`.
pub(crate) fn atomic_activation_proof(input: Value<'_>, context: Value<'_>, _opts: &VerifyOptions) -> Result<()> {
    bare_signed_profile(SchemaId::AtomicActivationProof, input, context)
}

/// `unwind-record-v1`.
pub(crate) fn unwind_record(input: Value<'_>, context: Value<'_>, _opts: &VerifyOptions) -> Result<()> {
    bare_signed_profile(SchemaId::UnwindRecord, input, context)
}

// ---------------------------------------------------------------------------------------
// ClosurePredicate and ChainSession: schema plus digests, no signature.
// ---------------------------------------------------------------------------------------

/// Checks a ClosurePredicate against `closure_predicate.schema.json` and returns its
/// canonical digest (over the record without `signature`).
///
/// The record's `signature` member is required by the schema but is neither verified nor
/// committed: the contract defines no ClosurePredicate signer.
///
/// # Errors
/// [`Error::Schema`] when the record does not conform.
pub fn verify_closure_predicate(record: Value<'_>) -> Result<Digest> {
    super::schema(SchemaId::ClosurePredicate, record)?;
    Ok(digest::sha256_jcs_with(record, &WithoutSignature))
}

/// Checks a ChainSession against `chain_session.schema.json` and returns its canonical
/// digest (over the whole record: a ChainSession carries no signature).
///
/// # Errors
/// [`Error::Schema`] when the record does not conform.
pub fn verify_chain_session(session: Value<'_>) -> Result<Digest> {
    super::schema(SchemaId::ChainSession, session)?;
    Ok(digest::sha256_jcs(session))
}

/// `closure-predicate-v1`.
pub(crate) fn closure_predicate(input: Value<'_>, context: Value<'_>, _opts: &VerifyOptions) -> Result<()> {
    super::schema(SchemaId::ClosurePredicate, input)?;
    check_canonical(input, &WithoutSignature, context)?;
    digest_checks(input, context)
}

/// The committed digest checks of `context.digest_checks` (absent means none; any other
/// non-array value rejects). Each entry `{"kind": "jcs-sha256-pointer", "source": <object
/// reference>, "target": {"object": .., "pointer": ..}}` requires the target to be the
/// string `SHA256-JCS(source)`.
fn digest_checks(input: Value<'_>, context: Value<'_>) -> Result<()> {
    let Some(checks) = context.get("digest_checks") else {
        return Ok(());
    };
    if checks.kind() != Kind::Array {
        return Err(Error::Schema("digest_checks must be an array"));
    }
    if checks.len() > MAX_DIGEST_CHECKS {
        return Err(Error::Limit { kind: crate::error::Limit::Capacity, offset: checks.offset() });
    }
    for check in checks.elements() {
        if check.kind() != Kind::Object {
            return Err(Error::Schema("digest check must be an object"));
        }
        if !check.get("kind").is_some_and(|k| k.is_str("jcs-sha256-pointer")) {
            return Err(Error::Schema("unknown digest check kind"));
        }
        let source = super::resolve_object(check.get("source"), input, context)?;
        let target = super::resolve_side(check.get("target"), input, context)?;
        if !super::digest_equals(&digest::sha256_jcs(source), Some(target)) {
            return Err(Error::Digest("committed digest"));
        }
    }
    Ok(())
}

/// `chain-session-v1`.
pub(crate) fn chain_session(input: Value<'_>, context: Value<'_>, _opts: &VerifyOptions) -> Result<()> {
    super::schema(SchemaId::ChainSession, input)?;
    check_canonical(input, &Whole, context)
}

// ---------------------------------------------------------------------------------------
// The ChainSession state machine.
// ---------------------------------------------------------------------------------------

/// The `state` of a ChainSession.
#[non_exhaustive]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ChainSessionState {
    /// `PROPOSED`: participants are committing.
    Proposed,
    /// `OPEN`: every participant has committed; waiting for activation or dissolution.
    Open,
    /// `ACTIVATED`: the closure predicate held before the deadline (terminal).
    Activated,
    /// `DISSOLVED`: unwound by an UnwindRecord (terminal).
    Dissolved,
    /// `EXPIRED`: the activation deadline passed without activation (terminal).
    Expired,
}

impl ChainSessionState {
    /// Every state, in the order of the contract's table.
    pub const ALL: [ChainSessionState; 5] = [
        ChainSessionState::Proposed,
        ChainSessionState::Open,
        ChainSessionState::Activated,
        ChainSessionState::Dissolved,
        ChainSessionState::Expired,
    ];

    /// The wire name, e.g. `"OPEN"`.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            ChainSessionState::Proposed => "PROPOSED",
            ChainSessionState::Open => "OPEN",
            ChainSessionState::Activated => "ACTIVATED",
            ChainSessionState::Dissolved => "DISSOLVED",
            ChainSessionState::Expired => "EXPIRED",
        }
    }

    /// The state with wire name `name` (exact, case-sensitive).
    #[must_use]
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|s| s.as_str() == name)
    }

    /// The state named by a JSON string value.
    #[must_use]
    pub fn from_value(value: Value<'_>) -> Option<Self> {
        let s = value.as_str()?;
        Self::from_str(s)
    }

    fn from_str(s: Str<'_>) -> Option<Self> {
        Self::ALL.into_iter().find(|st| s.eq_str(st.as_str()))
    }

    /// The states this one may move to, per the contract's table.
    #[must_use]
    pub const fn legal_targets(self) -> &'static [ChainSessionState] {
        match self {
            ChainSessionState::Proposed => &[ChainSessionState::Open],
            ChainSessionState::Open => {
                &[ChainSessionState::Activated, ChainSessionState::Dissolved, ChainSessionState::Expired]
            }
            ChainSessionState::Activated | ChainSessionState::Dissolved | ChainSessionState::Expired => &[],
        }
    }

    /// True for the states with no way out.
    #[must_use]
    pub const fn is_terminal(self) -> bool {
        self.legal_targets().is_empty()
    }
}

impl core::fmt::Display for ChainSessionState {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Whether the table allows `from -> to` (preconditions aside).
#[must_use]
pub fn chain_session_transition_allowed(from: ChainSessionState, to: ChainSessionState) -> bool {
    from.legal_targets().contains(&to)
}

/// Checks that `session` (a ChainSession object, not schema-checked here) may move to
/// `target` at `now`, and returns the state it moves from.
///
/// After the table ([`chain_session_transition_allowed`]), the preconditions:
///
/// 1. `PROPOSED -> OPEN`: `commitments` and `participants` are arrays of equal length;
/// 2. `OPEN -> ACTIVATED`: `activation_proof_id` is a string and `now < activation_deadline`;
/// 3. `OPEN -> DISSOLVED`: `unwind_record_id` is a string;
/// 4. `OPEN -> EXPIRED`: `now >= activation_deadline` and `activation_proof_id` is null or
///    absent.
///
/// `activation_deadline` is read as the reference runner reads it: a timestamp without an
/// offset is taken as UTC.
///
/// # Errors
/// [`Error::Schema`] when `state` is missing or not a known state,
/// [`Error::Transition`] when the table or a precondition forbids the move,
/// [`Error::Temporal`] when `activation_deadline` is needed and is not a timestamp.
pub fn check_chain_session_transition(
    session: Value<'_>,
    target: ChainSessionState,
    now: Timestamp,
) -> Result<ChainSessionState> {
    use ChainSessionState as S;
    let from = super::member(session, "state")
        .and_then(ChainSessionState::from_value)
        .ok_or(Error::Schema("chain session state"))?;
    if !chain_session_transition_allowed(from, target) {
        return Err(Error::Transition("not in the chain-session transition table"));
    }
    let is_string = |key: &str| super::member(session, key).is_some_and(|v| v.kind() == Kind::String);
    let holds = match (from, target) {
        (S::Proposed, S::Open) => {
            let commitments = super::member(session, "commitments").filter(|v| v.kind() == Kind::Array);
            let participants = super::member(session, "participants").filter(|v| v.kind() == Kind::Array);
            matches!((commitments, participants), (Some(c), Some(p)) if c.len() == p.len())
        }
        (S::Open, S::Activated) => {
            let deadline = deadline(session)?;
            is_string("activation_proof_id") && now < deadline
        }
        (S::Open, S::Dissolved) => is_string("unwind_record_id"),
        (S::Open, S::Expired) => {
            let deadline = deadline(session)?;
            now >= deadline && super::member(session, "activation_proof_id").is_none_or(|v| v.is_null())
        }
        _ => true,
    };
    if holds {
        Ok(from)
    } else {
        Err(Error::Transition("chain-session transition precondition"))
    }
}

/// Schema-checks `session` against `chain_session.schema.json`, then
/// [`check_chain_session_transition`].
///
/// # Errors
/// [`Error::Schema`] for a session that does not conform, then as
/// [`check_chain_session_transition`].
pub fn verify_chain_session_transition(
    session: Value<'_>,
    target: ChainSessionState,
    now: Timestamp,
) -> Result<ChainSessionState> {
    super::schema(SchemaId::ChainSession, session)?;
    check_chain_session_transition(session, target, now)
}

fn deadline(session: Value<'_>) -> Result<Timestamp> {
    let s = super::member(session, "activation_deadline")
        .and_then(|v| v.as_str())
        .ok_or(Error::Temporal("activation_deadline"))?;
    timestamp_assume_utc(s).ok_or(Error::Temporal("activation_deadline"))
}

/// Reads a timestamp as the reference runner's `parse_datetime` does (a text without an
/// offset is UTC), see [`time::parse_datetime_assume_utc`]. A string with escapes is
/// decoded into a 256-byte stack buffer first; a longer one is refused.
pub(super) fn timestamp_assume_utc(s: Str<'_>) -> Option<Timestamp> {
    if let Some(plain) = s.as_plain() {
        return time::parse_datetime_assume_utc(plain).ok();
    }
    let mut buf = [0u8; 256];
    let text = s.decode_into(&mut buf).ok()?;
    time::parse_datetime_assume_utc(text).ok()
}

/// `chain-session-transition-v1`: `input` is `{"initial_session": {..},
/// "attempt_transition": "<STATE>", "transition_now": "<timestamp>", "expected": ..}`;
/// the inner `expected` is informational and never read.
pub(crate) fn chain_session_transition(input: Value<'_>, _context: Value<'_>, _opts: &VerifyOptions) -> Result<()> {
    let session = super::member(input, "initial_session").filter(|v| v.kind() == Kind::Object);
    let target = super::member(input, "attempt_transition").and_then(|v| v.as_str());
    let now = super::member(input, "transition_now").and_then(|v| v.as_str());
    let (Some(session), Some(target), Some(now)) = (session, target, now) else {
        return Err(Error::Schema("transition input"));
    };
    super::schema(SchemaId::ChainSession, session)?;
    let now = timestamp_assume_utc(now).ok_or(Error::Temporal("transition_now"))?;
    if super::member(session, "state").and_then(|v| v.as_str()).is_none() {
        return Err(Error::Schema("chain session state"));
    }
    // A target outside the five states is in no legal-target set.
    let target =
        ChainSessionState::from_str(target).ok_or(Error::Transition("not in the chain-session transition table"))?;
    check_chain_session_transition(session, target, now).map(|_| ())
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;
    use crate::json::{self, Node};
    use std::collections::BTreeMap;
    use std::string::{String, ToString};
    use std::vec::Vec;
    use std::{format, println, vec};

    fn with_doc<R>(text: &str, f: impl FnOnce(Value<'_>) -> R) -> R {
        let mut nodes = vec![Node::EMPTY; text.len() / 2 + 2];
        let doc = json::parse(text.as_bytes(), &mut nodes).unwrap();
        f(doc.root())
    }

    fn ts(s: &str) -> Timestamp {
        time::parse_datetime(s).unwrap()
    }

    const SESSION: &str = r#"{"state":"OPEN","activation_deadline":"2026-05-18T13:00:00+00:00",
        "activation_proof_id":null,"unwind_record_id":null,
        "commitments":["urn:concordia:commitment:a"],"participants":["did:a","did:b"]}"#;

    #[test]
    fn transition_table() {
        use ChainSessionState as S;
        let legal = [(S::Proposed, S::Open), (S::Open, S::Activated), (S::Open, S::Dissolved), (S::Open, S::Expired)];
        for from in S::ALL {
            for to in S::ALL {
                assert_eq!(chain_session_transition_allowed(from, to), legal.contains(&(from, to)), "{from} -> {to}");
            }
            assert_eq!(S::from_name(from.as_str()), Some(from));
        }
        assert!(S::Activated.is_terminal() && S::Dissolved.is_terminal() && S::Expired.is_terminal());
        assert!(!S::Proposed.is_terminal() && !S::Open.is_terminal());
        assert_eq!(S::from_name("open"), None);
    }

    #[test]
    fn transition_preconditions() {
        use ChainSessionState as S;
        let before = ts("2026-05-18T12:00:00Z");
        let after = ts("2026-05-18T13:00:00Z");
        let run = |text: &str, to: S, now: Timestamp| with_doc(text, |v| check_chain_session_transition(v, to, now));
        // OPEN -> ACTIVATED needs a proof id and now < deadline.
        assert!(matches!(run(SESSION, S::Activated, before), Err(Error::Transition(_))));
        let proved = SESSION
            .replace(r#""activation_proof_id":null"#, r#""activation_proof_id":"urn:concordia:activation-proof:1""#);
        assert_eq!(run(&proved, S::Activated, before), Ok(S::Open));
        assert!(matches!(run(&proved, S::Activated, after), Err(Error::Transition(_))));
        // OPEN -> EXPIRED needs now >= deadline and no proof id.
        assert_eq!(run(SESSION, S::Expired, after), Ok(S::Open));
        assert!(matches!(run(SESSION, S::Expired, before), Err(Error::Transition(_))));
        assert!(matches!(run(&proved, S::Expired, after), Err(Error::Transition(_))));
        // OPEN -> DISSOLVED needs an unwind record id.
        assert!(matches!(run(SESSION, S::Dissolved, before), Err(Error::Transition(_))));
        let unwound = SESSION.replace(r#""unwind_record_id":null"#, r#""unwind_record_id":"urn:concordia:unwind:1""#);
        assert_eq!(run(&unwound, S::Dissolved, before), Ok(S::Open));
        // PROPOSED -> OPEN needs one commitment per participant.
        let proposed = SESSION.replace(r#""state":"OPEN""#, r#""state":"PROPOSED""#);
        assert!(matches!(run(&proposed, S::Open, before), Err(Error::Transition(_))));
        let full = proposed.replace(
            r#"["urn:concordia:commitment:a"]"#,
            r#"["urn:concordia:commitment:a","urn:concordia:commitment:b"]"#,
        );
        assert_eq!(run(&full, S::Open, before), Ok(S::Proposed));
        assert!(matches!(run(&full, S::Expired, after), Err(Error::Transition(_))));
        // A deadline that is not a timestamp is a temporal failure; a naive one is UTC.
        let bad = SESSION.replace("2026-05-18T13:00:00+00:00", "2026-05-18Tnoon");
        assert!(matches!(run(&bad, S::Expired, after), Err(Error::Temporal(_))));
        let naive = SESSION.replace("2026-05-18T13:00:00+00:00", "2026-05-18T13:00:00");
        assert_eq!(run(&naive, S::Expired, after), Ok(S::Open));
        assert!(matches!(run(&naive, S::Expired, before), Err(Error::Transition(_))));
    }

    #[test]
    fn naive_timestamps_are_utc() {
        with_doc(
            r#"["2026-05-18T12:00:00","2026-05-18T12:00:00Z","2026-05-18","x","2026-05-18T12:00:00\u005a"]"#,
            |v| {
                let t = |i: usize| timestamp_assume_utc(v.at(i).unwrap().as_str().unwrap());
                assert_eq!(t(0), Some(ts("2026-05-18T12:00:00Z")));
                assert_eq!(t(1), Some(ts("2026-05-18T12:00:00Z")));
                assert_eq!(t(2), Some(ts("2026-05-18T00:00:00Z")));
                assert_eq!(t(3), None);
                assert_eq!(t(4), Some(ts("2026-05-18T12:00:00Z")));
            },
        );
    }

    /// The nine profiles of this part, through the public dispatcher.
    fn dispatch(name: &str, input: Value<'_>, context: Value<'_>) -> Option<Result<()>> {
        use super::super::Profile as P;
        const NINE: [P; 9] = [
            P::ConditionalCommitment,
            P::AtomicActivationProof,
            P::UnwindRecord,
            P::ClosurePredicate,
            P::ChainSession,
            P::ChainSessionTransition,
            P::AgentProfile,
            P::CompetenceProof,
            P::ReceiptBundle,
        ];
        let profile = P::from_name(name).filter(|p| NINE.contains(p))?;
        Some(super::super::verify_profile(profile, input, context, &VerifyOptions::default()))
    }

    /// Every vector of the nine profiles: the verdict must match `expected`; reason-class
    /// agreement is counted and printed (`--nocapture`), and asserted.
    #[test]
    fn conformance_vectors_of_the_cmpc_and_long_tail_profiles() {
        if !crate::test_fixtures::dir_present("../conformance/vectors") {
            return;
        }
        let root = crate::test_fixtures::path("../conformance/vectors");
        // profile -> (vectors, verdict ok, rejections, class agreed)
        let mut stats: BTreeMap<String, [usize; 4]> = BTreeMap::new();
        let mut failures = Vec::new();
        for dir in ["positive", "mutation", "canary"] {
            let mut paths: Vec<_> = std::fs::read_dir(root.join(dir)).unwrap().map(|e| e.unwrap().path()).collect();
            paths.sort();
            for path in paths {
                let text = std::fs::read_to_string(&path).unwrap();
                let mut nodes = vec![Node::EMPTY; text.len() / 2 + 2];
                let doc = json::parse(text.as_bytes(), &mut nodes).unwrap();
                let v = doc.root();
                let profile = v.get("verification_profile").unwrap().as_plain_str().unwrap();
                let Some(got) = dispatch(profile, v.get("input").unwrap(), v.get("context").unwrap()) else {
                    continue;
                };
                let id = v.get("id").unwrap().as_plain_str().unwrap();
                let expected = v.get("expected").unwrap().as_plain_str().unwrap();
                let class = v.get("expected_reason_class").and_then(|c| c.as_plain_str());
                let s = stats.entry(profile.to_string()).or_default();
                s[0] += 1;
                let verdict = if got.is_ok() { "accept" } else { "reject" };
                if verdict == expected {
                    s[1] += 1;
                } else {
                    failures.push(format!("[FAIL] {id} expected={expected} got={verdict} ({got:?})"));
                }
                if let Err(e) = got {
                    s[2] += 1;
                    if Some(e.class().as_str()) == class {
                        s[3] += 1;
                    } else if expected == "reject" {
                        failures.push(format!("[CLASS] {id} expected={class:?} got={} ({e:?})", e.class()));
                    }
                }
            }
        }
        for (p, [n, ok, rej, agreed]) in &stats {
            println!("{p}: {ok}/{n} verdicts, {agreed}/{rej} reason classes");
        }
        for f in &failures {
            println!("{f}");
        }
        assert_eq!(stats.len(), 9);
        assert!(failures.is_empty(), "{} failures", failures.len());
    }
}
