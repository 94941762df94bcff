//! The 22 verification profiles of the Concordia conformance contract.
//!
//! Each profile takes the parsed `input` record and the vector's `context` object (the
//! extra public data the profile needs: keys, expected digests, `now`) and decides accept
//! (`Ok(())`) or reject (an [`Error`] whose [`Error::class`] is the contract's reason
//! class). Everything is checked straight from the parsed tape: preimages are streamed
//! through [`crate::jcs::write_with`] into the SHA-256 or Ed25519 verifier, so no profile
//! allocates or copies the record.
//!
//! [`verify_profile`] dispatches on a [`Profile`]; the typed entry points
//! (`verify_approval_receipt`, `verify_revocation_record`, ...) are the same checks under
//! record names.

use crate::error::{Error, Result};
use crate::json::{Kind, Value};
use crate::preimage::Preimage;
use crate::time::Timestamp;

mod agent_profile;
mod attestation;
mod cmpc;
mod competence_proof;
mod decision_records;
mod message_chain;
mod receipt_bundle;
mod signed;

/// The party-signature check of an Attestation (now [`crate::attestation::verify_party_signatures`]).
pub use crate::attestation::{verify_countersignatures, verify_party_signatures as verify_attestation};
pub use agent_profile::{
    agent_profile_canonical_len, agent_profile_digest, verify_agent_profile, write_agent_profile_canonical,
    AGENT_PROFILE_CANONICAL_FIELDS,
};
pub use attestation::verify_attestation_countersign;
pub use cmpc::{
    chain_session_transition_allowed, check_chain_session_transition, verify_atomic_activation_proof,
    verify_chain_session, verify_chain_session_transition, verify_closure_predicate, verify_conditional_commitment,
    verify_unwind_record, ChainSessionState, MAX_DIGEST_CHECKS,
};
pub use competence_proof::{
    competence_proof_digest, verify_competence_proof, verify_merkle_inclusion, COMPETENCE_PROOF_REQUIRED_FIELDS,
    COMPETENCE_PROOF_SIGNABLE, MAX_MERKLE_WORK,
};
pub use decision_records::{
    verify_approval_receipt, verify_cascade_decision, verify_decision_object, verify_fulfillment_attestation,
    verify_offer_binding, verify_revocation_record,
};
pub use message_chain::verify_message_chain;
pub use receipt_bundle::{receipt_bundle_digest, verify_receipt_bundle, RECEIPT_BUNDLE_SIGNABLE};
pub use signed::{verify_cosign, verify_delegation_chain, verify_mandate, verify_predicate};

/// A verification profile of the conformance contract, named as in the contract.
#[non_exhaustive]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Profile {
    /// `decision-object-v1`: SHA-256 of the decision object equals the expected id.
    DecisionObject,
    /// `offer-binding-v1`: explicit digest and JSON-pointer equality checks.
    OfferBinding,
    /// `receipt-v1`: ApprovalReceipt.
    Receipt,
    /// `revocation-v1`: RevocationRecord.
    Revocation,
    /// `cascade-decision-v1`: CascadeDecisionRecord.
    CascadeDecision,
    /// `fulfillment-attestation-v1`: FulfillmentAttestation.
    FulfillmentAttestation,
    /// `attestation-v1`: reputation Attestation party signatures.
    Attestation,
    /// `attestation-countersign-v1`: Attestation countersignatures.
    AttestationCountersign,
    /// `predicate-v1`: signed Predicate.
    Predicate,
    /// `mandate-v1`: signed Mandate.
    Mandate,
    /// `delegation-chain-v1`: Mandate with a delegation chain.
    DelegationChain,
    /// `cosign-v1`: counterparty co-signed receipt.
    Cosign,
    /// `conditional-commitment-v1`: CMPC ConditionalCommitment.
    ConditionalCommitment,
    /// `atomic-activation-proof-v1`: CMPC AtomicActivationProof.
    AtomicActivationProof,
    /// `unwind-record-v1`: CMPC UnwindRecord.
    UnwindRecord,
    /// `closure-predicate-v1`: CMPC ClosurePredicate.
    ClosurePredicate,
    /// `chain-session-v1`: CMPC ChainSession.
    ChainSession,
    /// `chain-session-transition-v1`: CMPC ChainSession transition table.
    ChainSessionTransition,
    /// `agent-profile-v1`: AgentProfile.
    AgentProfile,
    /// `competence-proof-v1`: CompetenceProof with Merkle inclusion proofs.
    CompetenceProof,
    /// `receipt-bundle-v1`: ReceiptBundle.
    ReceiptBundle,
    /// `message-chain-v1`: hash-chained session messages, optionally with a set-bound receipt.
    MessageChain,
}

impl Profile {
    /// Every profile, in the contract's order.
    pub const ALL: &'static [Profile] = &[
        Profile::DecisionObject,
        Profile::OfferBinding,
        Profile::Receipt,
        Profile::Revocation,
        Profile::CascadeDecision,
        Profile::FulfillmentAttestation,
        Profile::Attestation,
        Profile::AttestationCountersign,
        Profile::Predicate,
        Profile::Mandate,
        Profile::DelegationChain,
        Profile::Cosign,
        Profile::ConditionalCommitment,
        Profile::AtomicActivationProof,
        Profile::UnwindRecord,
        Profile::ClosurePredicate,
        Profile::ChainSession,
        Profile::ChainSessionTransition,
        Profile::AgentProfile,
        Profile::CompetenceProof,
        Profile::ReceiptBundle,
        Profile::MessageChain,
    ];

    /// The contract name, e.g. `"receipt-v1"`.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Profile::DecisionObject => "decision-object-v1",
            Profile::OfferBinding => "offer-binding-v1",
            Profile::Receipt => "receipt-v1",
            Profile::Revocation => "revocation-v1",
            Profile::CascadeDecision => "cascade-decision-v1",
            Profile::FulfillmentAttestation => "fulfillment-attestation-v1",
            Profile::Attestation => "attestation-v1",
            Profile::AttestationCountersign => "attestation-countersign-v1",
            Profile::Predicate => "predicate-v1",
            Profile::Mandate => "mandate-v1",
            Profile::DelegationChain => "delegation-chain-v1",
            Profile::Cosign => "cosign-v1",
            Profile::ConditionalCommitment => "conditional-commitment-v1",
            Profile::AtomicActivationProof => "atomic-activation-proof-v1",
            Profile::UnwindRecord => "unwind-record-v1",
            Profile::ClosurePredicate => "closure-predicate-v1",
            Profile::ChainSession => "chain-session-v1",
            Profile::ChainSessionTransition => "chain-session-transition-v1",
            Profile::AgentProfile => "agent-profile-v1",
            Profile::CompetenceProof => "competence-proof-v1",
            Profile::ReceiptBundle => "receipt-bundle-v1",
            Profile::MessageChain => "message-chain-v1",
        }
    }

    /// The profile with contract name `name`, if any.
    #[must_use]
    pub fn from_name(name: &str) -> Option<Profile> {
        Profile::ALL.iter().copied().find(|p| p.name() == name)
    }
}

impl core::fmt::Display for Profile {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(self.name())
    }
}

/// A deliberately weakened check, for proving that the conformance canaries discriminate.
///
/// Test-only: the type always exists so that runners can name it, but it has an effect
/// only in builds with the `__test-regressions-weakens-checks` feature, which no production
/// build enables and no workspace member turns on, not even for its tests (see
/// [`VerifyOptions::with_regression`]); a release build with the feature does not compile.
/// Each variant weakens exactly the check the reference runner weakens.
#[non_exhaustive]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Regression {
    /// Phase 1 signatures cover the record including its signature (`preimage-includes-signature`).
    PreimageIncludesSignature,
    /// The cascade decision record is not schema-validated (`schema-skipped`).
    SchemaSkipped,
    /// The cascade `decision_id` is not recomputed (`decision-id-not-recomputed`).
    DecisionIdNotRecomputed,
    /// Message-chain `prev_hash` links are not walked (`skip-linkage-walk`).
    SkipLinkageWalk,
    /// The message-chain receipt set-binding is not checked (`receipt-set-unchecked`).
    ReceiptSetUnchecked,
}

impl Regression {
    /// Every regression.
    pub const ALL: &'static [Regression] = &[
        Regression::PreimageIncludesSignature,
        Regression::SchemaSkipped,
        Regression::DecisionIdNotRecomputed,
        Regression::SkipLinkageWalk,
        Regression::ReceiptSetUnchecked,
    ];

    /// The `RUNNER_REGRESS` name of this regression.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Regression::PreimageIncludesSignature => "preimage-includes-signature",
            Regression::SchemaSkipped => "schema-skipped",
            Regression::DecisionIdNotRecomputed => "decision-id-not-recomputed",
            Regression::SkipLinkageWalk => "skip-linkage-walk",
            Regression::ReceiptSetUnchecked => "receipt-set-unchecked",
        }
    }

    /// The regression named `name` (a `RUNNER_REGRESS` value), if any.
    #[must_use]
    pub fn from_name(name: &str) -> Option<Regression> {
        Regression::ALL.iter().copied().find(|r| r.name() == name)
    }
}

// The weakened checks never ship: an optimized build (no debug assertions: `--release`,
// what a package or firmware is built with) refuses the feature outright.
#[cfg(all(feature = "__test-regressions-weakens-checks", not(debug_assertions)))]
compile_error!(
    "the `__test-regressions-weakens-checks` feature of concordia-core weakens verification \
     checks on purpose and is for the conformance canary tests only; it cannot be enabled in \
     a release build"
);

/// Options for a profile check.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct VerifyOptions {
    /// The current time for temporal checks. When `None`, profiles that need a clock read
    /// `context.now`; the core never reads a clock itself.
    pub now: Option<Timestamp>,
    /// A deliberately weakened check (test-only).
    #[cfg(feature = "__test-regressions-weakens-checks")]
    pub regression: Option<Regression>,
}

impl VerifyOptions {
    /// These options with one check deliberately weakened (test-only).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when the crate was built without `__test-regressions-weakens-checks`.
    pub fn with_regression(self, regression: Regression) -> Result<Self> {
        #[cfg(feature = "__test-regressions-weakens-checks")]
        {
            Ok(VerifyOptions { regression: Some(regression), ..self })
        }
        #[cfg(not(feature = "__test-regressions-weakens-checks"))]
        {
            let _ = regression;
            Err(Error::InvalidArgument("built without the __test-regressions-weakens-checks feature"))
        }
    }

    /// Whether regression `r` is active (always `false` without `__test-regressions-weakens-checks`).
    #[inline]
    pub(crate) fn regressed(&self, r: Regression) -> bool {
        #[cfg(feature = "__test-regressions-weakens-checks")]
        {
            self.regression == Some(r)
        }
        #[cfg(not(feature = "__test-regressions-weakens-checks"))]
        {
            let _ = r;
            false
        }
    }
}

/// Checks `input` against `profile`, with `context` the vector's context object.
///
/// # Errors
/// The first failed check of the profile, as an [`Error`] whose [`Error::class`] is the
/// contract's reason class.
pub fn verify_profile(profile: Profile, input: Value<'_>, context: Value<'_>, opts: &VerifyOptions) -> Result<()> {
    if context.kind() != Kind::Object {
        return Err(Error::Schema("context must be an object"));
    }
    match profile {
        Profile::DecisionObject => decision_records::verify_decision_object(input, context),
        Profile::OfferBinding => decision_records::verify_offer_binding(input, context),
        Profile::Receipt => decision_records::receipt(input, context, opts),
        Profile::Revocation => decision_records::revocation(input, context, opts),
        Profile::CascadeDecision => decision_records::cascade(input, context, opts),
        Profile::FulfillmentAttestation => decision_records::fulfillment(input, context, opts),
        Profile::Attestation => attestation::attestation(input, context),
        Profile::AttestationCountersign => attestation::countersign(input, context),
        Profile::Predicate => signed::predicate(input, context, opts),
        Profile::Mandate => signed::mandate(input, context, opts),
        Profile::DelegationChain => signed::delegation_chain(input, context, opts),
        Profile::Cosign => signed::verify_cosign(input, context),
        Profile::ConditionalCommitment => cmpc::conditional_commitment(input, context, opts),
        Profile::AtomicActivationProof => cmpc::atomic_activation_proof(input, context, opts),
        Profile::UnwindRecord => cmpc::unwind_record(input, context, opts),
        Profile::ClosurePredicate => cmpc::closure_predicate(input, context, opts),
        Profile::ChainSession => cmpc::chain_session(input, context, opts),
        Profile::ChainSessionTransition => cmpc::chain_session_transition(input, context, opts),
        Profile::AgentProfile => agent_profile::agent_profile(input, context, opts),
        Profile::CompetenceProof => competence_proof::competence_proof(input, context, opts),
        Profile::ReceiptBundle => receipt_bundle::receipt_bundle(input, context, opts),
        Profile::MessageChain => message_chain::verify(input, context, opts),
    }
}

// ---------------------------------------------------------------------------------------
// Shared helpers of the profiles.
// ---------------------------------------------------------------------------------------

// The record readers the profiles share with the protocol modules live in `crate::record`.
pub(crate) use crate::record::{
    bare_signature, cosign_signature, digest_equals, lookup, member, object, public_key, signature, timestamp,
    verify_preimage,
};

/// The optional `context.canonical_sha256` check over `value` under `rule`.
pub(crate) fn check_canonical_sha256<P: Preimage + ?Sized>(
    value: Value<'_>,
    rule: &P,
    context: Value<'_>,
) -> Result<()> {
    match context.get("canonical_sha256").filter(|e| !e.is_null()) {
        None => Ok(()),
        Some(expected) => {
            if digest_equals(&crate::digest::sha256_jcs_with(value, rule), Some(expected)) {
                Ok(())
            } else {
                Err(Error::Digest("canonical_sha256"))
            }
        }
    }
}

/// The current time: the caller's, or `context.now`.
pub(crate) fn now(context: Value<'_>, opts: &VerifyOptions) -> Result<Timestamp> {
    match opts.now {
        Some(t) => Ok(t),
        None => timestamp(context.get("now"), "now"),
    }
}

/// Whether `record.references[]` holds an object with `relationship == relationship`,
/// a `type` among `types` (when given) and an `id` equal to `id` (when given).
pub(crate) fn has_reference(
    record: Value<'_>,
    relationship: &str,
    types: Option<&[&str]>,
    id: Option<Value<'_>>,
) -> bool {
    let Some(refs) = member(record, "references").filter(|r| r.kind() == Kind::Array) else {
        return false;
    };
    refs.elements().filter(|r| r.kind() == Kind::Object).any(|r| {
        r.get("relationship").is_some_and(|v| v.is_str(relationship))
            && types.is_none_or(|ts| r.get("type").is_some_and(|t| ts.iter().any(|x| t.is_str(x))))
            && id.is_none_or(|want| r.get("id").is_some_and(|got| got.equals(&want)))
    })
}

/// Resolves a contract object reference: `"input"` or `"context.<name>[.<name>...]"`.
pub(crate) fn resolve_object<'a>(name: Option<Value<'_>>, input: Value<'a>, context: Value<'a>) -> Result<Value<'a>> {
    let name = name.and_then(|n| n.as_plain_str()).ok_or(Error::Binding("object reference"))?;
    if name == "input" {
        return Ok(input);
    }
    let path = name.strip_prefix("context.").ok_or(Error::Binding("object reference"))?;
    let mut cur = context;
    for part in path.split('.') {
        cur = member(cur, part).ok_or(Error::Binding("missing context object"))?;
    }
    Ok(cur)
}

/// Resolves a `{"object": .., "pointer": ..}` comparison side.
pub(crate) fn resolve_side<'a>(side: Option<Value<'_>>, input: Value<'a>, context: Value<'a>) -> Result<Value<'a>> {
    let side = object(side, "comparison side")?;
    let root = resolve_object(side.get("object"), input, context)?;
    let pointer = side.get("pointer").and_then(|p| p.as_str()).ok_or(Error::Binding("pointer"))?;
    let mut buf = [0u8; 256];
    let pointer = pointer.decode_into(&mut buf).map_err(|_| Error::Binding("pointer"))?;
    root.pointer(pointer).ok_or(Error::Binding("pointer missing"))
}

/// Requires `record.algorithm == alg` (the bare-string signature envelope).
pub(crate) fn require_algorithm(record: Value<'_>, alg: &str) -> Result<()> {
    if member(record, "algorithm").is_some_and(|a| a.is_str(alg)) {
        Ok(())
    } else {
        Err(Error::Signature)
    }
}

/// The schema check, skippable only by the `schema-skipped` regression where allowed.
pub(crate) fn schema(id: crate::schema::SchemaId, value: Value<'_>) -> Result<()> {
    crate::schema::validate(id, value).map_err(|e| match e {
        Error::Schema(_) => e,
        _ => Error::Schema("schema"),
    })
}

/// Without the test-only feature (every normal build, `cargo test --workspace` included:
/// no workspace member enables it), no check can be weakened.
#[cfg(all(test, not(feature = "__test-regressions-weakens-checks")))]
mod normal_build_tests {
    use super::{Regression, VerifyOptions};
    use crate::error::Error;

    #[test]
    fn a_normal_build_refuses_every_regression() {
        for &r in Regression::ALL {
            assert!(matches!(VerifyOptions::default().with_regression(r), Err(Error::InvalidArgument(_))), "{r:?}");
            assert!(!VerifyOptions::default().regressed(r), "{r:?}");
        }
    }
}
