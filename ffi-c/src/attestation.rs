//! Reputation attestations (SPEC §9.6): generate from a concluded session, verify.

use concordia_core::attestation::{self, Params, SetBinding, Signer, Validity};
use concordia_core::json::Kind;
use concordia_core::sign::KeyPair;
use concordia_core::time::Timestamp;
use concordia_core::Error;

use crate::boundary::{
    bytes_in, bytes_out, guard, in_ref, nodes_for, opt_out, out_ref, parse, slice_in, write_sized, Fail, FfiResult,
    NULL,
};
use crate::keys::keypair_ref;
use crate::session::{concordia_session, session_ref};
use crate::{concordia_keypair, concordia_result, concordia_str};

/// The mode of an attestation's `validity_temporal` window (§9.7.3).
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum concordia_validity_mode {
    /// Valid from `validity_from` until `validity_until`.
    CONCORDIA_VALIDITY_ABSOLUTE = 0,
    /// Valid for `validity_duration_seconds` after `validity_from`.
    CONCORDIA_VALIDITY_RELATIVE = 1,
    /// Valid during any `validity_duration_seconds` window within
    /// [`validity_from`, `validity_until`].
    CONCORDIA_VALIDITY_WINDOW = 2,
}

/// What the caller supplies besides the session (times are Unix seconds).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct concordia_attestation_params {
    /// `attestation_id` (the library has no randomness; e.g. `att_<8 hex>`).
    pub attestation_id: concordia_str,
    /// `timestamp`: issuance time.
    pub now: i64,
    /// A concordia_validity_mode value.
    pub validity_mode: u32,
    /// Absolute `from`, relative `from`, or window `start`.
    pub validity_from: i64,
    /// Absolute `until` or window `end` (ignored for relative).
    pub validity_until: i64,
    /// Relative or window duration (ignored for absolute).
    pub validity_duration_seconds: u32,
    /// `meta.category`, e.g. `electronics.cameras`; `ptr` NULL when absent.
    pub category: concordia_str,
    /// `meta.value_range`, e.g. `1000-5000_USD`; `ptr` NULL when absent.
    pub value_range: concordia_str,
    /// `outcome.resolution_mechanism`: `direct`, `split`, `foa`, `tradeoff`,
    /// `escalation` or `none`.
    pub resolution_mechanism: concordia_str,
}

/// A party's signing key for concordia_attestation_generate.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct concordia_signer {
    /// The party's `agent_id`.
    pub agent_id: concordia_str,
    /// Its key pair.
    pub keypair: *const concordia_keypair,
}

struct Signers<'a>(Vec<(&'a str, &'a KeyPair)>);

impl Signer for Signers<'_> {
    fn key_pair(&self, agent_id: &str) -> Option<&KeyPair> {
        self.0.iter().find(|(id, _)| *id == agent_id).map(|(_, k)| *k)
    }
}

/// Generates the signed, countersigned attestation of the concluded session `s` into
/// `out` (canonical JSON). Each party whose key is among the `signer_count` `signers`
/// signs its record and countersigns; the others get `"signature": ""`.
///
/// Returns CONCORDIA_TRANSITION when the session is not AGREED, REJECTED or EXPIRED;
/// CONCORDIA_INVALID_ARGUMENT for an empty transcript, a malformed category, value range,
/// resolution mechanism, validity window or mode; CONCORDIA_PRIVACY when a text would carry
/// raw deal terms; CONCORDIA_BUFFER_TOO_SMALL with the needed length.
///
/// # Safety
/// `s` must be a live session; `params` valid for reads with texts valid for their
/// lengths; `signers` valid for `signer_count` entries whose key pairs are live; `out`
/// valid for `out_cap` bytes of writes; `out_len` for one `size_t`.
#[no_mangle]
pub extern "C" fn concordia_attestation_generate(
    s: *const concordia_session,
    params: *const concordia_attestation_params,
    signers: *const concordia_signer,
    signer_count: usize,
    out: *mut u8,
    out_cap: usize,
    out_len: *mut usize,
) -> concordia_result {
    guard(|| {
        let out_len = out_ref(out_len)?;
        *out_len = 0;
        let s: &concordia_session = session_ref(s)?;
        let p = in_ref(params)?;
        let raw = slice_in(signers, signer_count)?;
        let signers = Signers(
            raw.iter()
                .map(|sg| -> FfiResult<(&str, &KeyPair)> { Ok((sg.agent_id.text()?, keypair_ref(sg.keypair)?)) })
                .collect::<FfiResult<Vec<_>>>()?,
        );
        let out = bytes_out(out, out_cap)?;
        let (from, until) = (Timestamp::from_unix(p.validity_from), Timestamp::from_unix(p.validity_until));
        let validity = match p.validity_mode {
            0 => Validity::Absolute { from, until },
            1 => Validity::Relative { from, duration_seconds: p.validity_duration_seconds },
            2 => Validity::Window { start: from, end: until, duration_seconds: p.validity_duration_seconds },
            _ => return Err(Fail::Core(Error::InvalidArgument("unknown validity mode"))),
        };
        let (attestation_id, category, value_range, resolution_mechanism) = (
            p.attestation_id.text()?,
            p.category.opt_text()?,
            p.value_range.opt_text()?,
            p.resolution_mechanism.text()?,
        );
        let params = Params {
            attestation_id,
            now: Timestamp::from_unix(p.now),
            validity,
            category,
            value_range,
            resolution_mechanism,
        };
        write_sized(out, out_len, |buf| attestation::generate(&s.session, &params, &signers, buf))
    })
}

/// How an attestation binds its transcript (§9.6.5b).
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum concordia_set_binding {
    /// Version 0.3.0 or later, and the transcript given matches `chain_head` and
    /// `message_count`.
    CONCORDIA_SET_BINDING_BOUND = 0,
    /// Version 0.3.0 or later, but no transcript was given.
    CONCORDIA_SET_BINDING_UNCHECKED = 1,
    /// Below 0.3.0: not credited as bound.
    CONCORDIA_SET_BINDING_LEGACY_UNBOUND = 2,
}

/// What concordia_attestation_verify established.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct concordia_attestation_verified {
    /// Party signatures that verified.
    pub parties: usize,
    /// Countersignatures that verified.
    pub countersignatures: usize,
    /// The set binding.
    pub binding: concordia_set_binding,
}

/// Verifies an attestation: its schema, every party signature, every countersignature
/// and, when `transcript_json` is given (a JSON array of the session's messages; NULL with
/// length 0 for none), that the transcript verifies under the same keys and is the one
/// the attestation binds (`message_count`, `chain_head`). `keys_json` maps each
/// `agent_id` to its base64url public key. `result` (NULL: not wanted) receives the
/// counts and the binding state.
///
/// Returns CONCORDIA_SCHEMA, CONCORDIA_UNKNOWN_KEY, CONCORDIA_SIGNATURE, CONCORDIA_BINDING
/// (`message_count`, `chain_head`, or a transcript link), or a 2xx code.
///
/// # Safety
/// Each JSON pointer must be valid for its length; `result` NULL or valid for one write.
#[no_mangle]
pub extern "C" fn concordia_attestation_verify(
    attestation_json: *const u8,
    attestation_len: usize,
    keys_json: *const u8,
    keys_len: usize,
    transcript_json: *const u8,
    transcript_len: usize,
    result: *mut concordia_attestation_verified,
) -> concordia_result {
    guard(|| {
        if attestation_json.is_null() || keys_json.is_null() {
            return Err(NULL);
        }
        let att = bytes_in(attestation_json, attestation_len)?;
        let keys = bytes_in(keys_json, keys_len)?;
        let transcript = bytes_in(transcript_json, transcript_len)?;
        let (mut an, mut kn, mut tn) = (nodes_for(att), nodes_for(keys), nodes_for(transcript));
        let att = parse(att, &mut an)?;
        let keys = parse(keys, &mut kn)?;
        if keys.root().kind() != Kind::Object {
            return Err(Fail::Core(Error::Schema("keys must be an object of agent_id to public key")));
        }
        let transcript = if transcript_json.is_null() { None } else { Some(tn.parse_transcript(transcript)?.root()) };
        let v = attestation::verify(att.root(), keys.root(), transcript)?;
        if let Some(r) = opt_out(result) {
            *r = concordia_attestation_verified {
                parties: v.parties,
                countersignatures: v.countersignatures,
                binding: match v.binding {
                    SetBinding::Bound => concordia_set_binding::CONCORDIA_SET_BINDING_BOUND,
                    SetBinding::Unchecked => concordia_set_binding::CONCORDIA_SET_BINDING_UNCHECKED,
                    SetBinding::LegacyUnbound => concordia_set_binding::CONCORDIA_SET_BINDING_LEGACY_UNBOUND,
                },
            };
        }
        Ok(())
    })
}
