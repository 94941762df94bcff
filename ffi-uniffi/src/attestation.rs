//! Reputation attestations (SPEC §9.6): generate from a concluded session, verify.

use std::sync::Arc;
use std::time::SystemTime;

use concordia_core::attestation::{
    self, Params, SetBinding as CoreSetBinding, Signer as CoreSigner, Validity as CoreValidity,
};
use concordia_core::sign::KeyPair as CoreKeyPair;

use crate::errors::ProtocolError;
use crate::keys::KeyPair;
use crate::session::Session;
use crate::util::{parse, parse_keys, timestamp, utf8, write_vec};

/// The attestation's `validity_temporal` window (§9.7.3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, uniffi::Enum)]
pub enum Validity {
    /// Valid from `from` until `until`.
    Absolute {
        /// Start.
        from: SystemTime,
        /// End.
        until: SystemTime,
    },
    /// Valid for `duration_seconds` after `from`.
    Relative {
        /// Anchor.
        from: SystemTime,
        /// Length in seconds (at least 1).
        duration_seconds: u32,
    },
    /// Valid during any `duration_seconds` window within `[start, end]`.
    Window {
        /// Earliest start.
        start: SystemTime,
        /// Latest end.
        end: SystemTime,
        /// Window length in seconds (at least 1).
        duration_seconds: u32,
    },
}

/// What the caller supplies besides the session.
#[derive(Debug, Clone, PartialEq, Eq, uniffi::Record)]
pub struct AttestationParams {
    /// `attestation_id` (the library has no randomness; e.g. `att_<8 hex>`).
    pub attestation_id: String,
    /// `timestamp`: issuance time.
    pub now: SystemTime,
    /// `validity_temporal`.
    pub validity: Validity,
    /// `outcome.resolution_mechanism`: `direct`, `split`, `foa`, `tradeoff`, `escalation`
    /// or `none`.
    #[uniffi(default = "direct")]
    pub resolution_mechanism: String,
    /// `meta.category`, a dotted lowercase path such as `electronics.cameras`.
    #[uniffi(default = None)]
    pub category: Option<String>,
    /// `meta.value_range`, a bucket such as `1000-5000_USD`.
    #[uniffi(default = None)]
    pub value_range: Option<String>,
}

/// A party's signing key for `generate_attestation`.
#[derive(Debug, Clone, uniffi::Record)]
pub struct Signer {
    /// The party's `agent_id`.
    pub agent_id: String,
    /// Its key pair.
    pub key_pair: Arc<KeyPair>,
}

struct Signers<'a>(&'a [Signer]);

impl CoreSigner for Signers<'_> {
    fn key_pair(&self, agent_id: &str) -> Option<&CoreKeyPair> {
        self.0.iter().find(|s| s.agent_id == agent_id).map(|s| &s.key_pair.0)
    }
}

/// Generates the signed, countersigned attestation of the concluded session `session`
/// (canonical JSON). Each party whose key is among `signers` signs its record and
/// countersigns; the others get `"signature": ""`.
#[uniffi::export]
pub fn generate_attestation(
    session: Arc<Session>,
    params: AttestationParams,
    signers: Vec<Signer>,
) -> Result<String, ProtocolError> {
    let validity = match params.validity {
        Validity::Absolute { from, until } => {
            CoreValidity::Absolute { from: timestamp(from)?, until: timestamp(until)? }
        }
        Validity::Relative { from, duration_seconds } => {
            CoreValidity::Relative { from: timestamp(from)?, duration_seconds }
        }
        Validity::Window { start, end, duration_seconds } => {
            CoreValidity::Window { start: timestamp(start)?, end: timestamp(end)?, duration_seconds }
        }
    };
    let p = Params {
        attestation_id: &params.attestation_id,
        now: timestamp(params.now)?,
        validity,
        category: params.category.as_deref(),
        value_range: params.value_range.as_deref(),
        resolution_mechanism: &params.resolution_mechanism,
    };
    let signers = Signers(&signers);
    let s = session.lock();
    Ok(utf8(write_vec(4096, |buf| attestation::generate(&s, &p, &signers, buf))?))
}

/// How an attestation binds its transcript (§9.6.5b).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, uniffi::Enum)]
pub enum SetBinding {
    /// Version 0.3.0 or later, and the transcript given matches `chain_head` and
    /// `message_count`.
    Bound,
    /// Version 0.3.0 or later, but no transcript was given.
    Unchecked,
    /// Below 0.3.0: not credited as bound.
    LegacyUnbound,
}

/// What `verify_attestation` established.
#[derive(Debug, Clone, Copy, PartialEq, Eq, uniffi::Record)]
pub struct AttestationVerified {
    /// Party signatures that verified.
    pub parties: u32,
    /// Countersignatures that verified.
    pub countersignatures: u32,
    /// The set binding.
    pub binding: SetBinding,
}

/// Verifies an attestation: its schema, every party signature, every countersignature
/// and, given `transcript_json` (a JSON array of the session's messages), that the
/// transcript verifies under the same keys and is the one the attestation binds
/// (`message_count`, `chain_head`). `keys_json` maps each `agent_id` to its base64url key.
#[uniffi::export(default(transcript_json = None))]
pub fn verify_attestation(
    attestation_json: String,
    keys_json: String,
    transcript_json: Option<String>,
) -> Result<AttestationVerified, ProtocolError> {
    let (mut an, mut kn, mut tn) =
        (concordia_host::Nodes::new(), concordia_host::Nodes::new(), concordia_host::Nodes::new());
    let att = parse(attestation_json.as_bytes(), &mut an)?;
    let keys = parse_keys(keys_json.as_bytes(), &mut kn)?;
    let transcript = match &transcript_json {
        Some(t) => Some(tn.parse_transcript(t.as_bytes())?.root()),
        None => None,
    };
    let v = attestation::verify(att.root(), keys.root(), transcript)?;
    let count = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
    Ok(AttestationVerified {
        parties: count(v.parties),
        countersignatures: count(v.countersignatures),
        binding: match v.binding {
            CoreSetBinding::Bound => SetBinding::Bound,
            CoreSetBinding::Unchecked => SetBinding::Unchecked,
            CoreSetBinding::LegacyUnbound => SetBinding::LegacyUnbound,
        },
    })
}
