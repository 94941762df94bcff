//! JSON documents: canonical form, digest, top-level signatures, message envelopes.

use concordia_core::digest::{self, Digest};
use concordia_core::jcs;
use concordia_core::message::{self, Envelope, Party};

use crate::boundary::{
    bytes_in, bytes_out, copy_out, guard, in_ref, nodes_for, out_ref, parse, slice_in, store_len, write_sized, Fail,
    NULL,
};
use crate::keys::{keypair_ref, public_key_in};
use crate::{concordia_keypair, concordia_result, concordia_str};

/// Writes the RFC 8785 canonical form of the JSON text `json` into `out`.
///
/// The input is read strictly (RFC 8259 + I-JSON: UTF-8, no duplicate names, no lone
/// surrogates, no `-0`, no integers beyond 2^53 - 1); a 2xx code reports malformed input,
/// with the byte offset from concordia_last_error_offset. The canonical form is never
/// longer than the input.
///
/// # Safety
/// `json` must be valid for `json_len` bytes of reads; `out` for `out_cap` bytes of
/// writes (not overlapping `json`); `out_len` for one `size_t`.
#[no_mangle]
pub extern "C" fn concordia_canonicalize(
    json: *const u8,
    json_len: usize,
    out: *mut u8,
    out_cap: usize,
    out_len: *mut usize,
) -> concordia_result {
    guard(|| {
        let out_len = out_ref(out_len)?;
        *out_len = 0;
        let input = bytes_in(json, json_len)?;
        let out = bytes_out(out, out_cap)?;
        let mut nodes = nodes_for(input);
        let doc = parse(input, &mut nodes)?;
        store_len(jcs::write_to_slice(doc.root(), out), out_len)
    })
}

/// Writes `sha256:<64 lowercase hex>` (71 bytes, not NUL-terminated) of the canonical
/// form of `json` into `out`: a record's identity, and a message's chain hash (signature
/// included).
///
/// # Safety
/// As concordia_canonicalize.
#[no_mangle]
pub extern "C" fn concordia_hash(
    json: *const u8,
    json_len: usize,
    out: *mut u8,
    out_cap: usize,
    out_len: *mut usize,
) -> concordia_result {
    guard(|| {
        let out_len = out_ref(out_len)?;
        *out_len = 0;
        let input = bytes_in(json, json_len)?;
        let out = bytes_out(out, out_cap)?;
        let mut nodes = nodes_for(input);
        let doc = parse(input, &mut nodes)?;
        copy_out(digest::sha256_jcs(doc.root()).to_prefixed().as_bytes(), out, out_len)
    })
}

/// Signs the JSON object `json` under the top-level signature rule (SPEC §9.2 rule 1:
/// the preimage is the canonical object without its top-level `signature`) and writes the
/// signed object, canonical, with `signature` (padded base64url) replaced or added.
///
/// Returns CONCORDIA_SCHEMA when `json` is not an object.
///
/// # Safety
/// `kp` must be a live key pair; otherwise as concordia_canonicalize.
#[no_mangle]
pub extern "C" fn concordia_sign_object(
    kp: *const concordia_keypair,
    json: *const u8,
    json_len: usize,
    out: *mut u8,
    out_cap: usize,
    out_len: *mut usize,
) -> concordia_result {
    guard(|| {
        let out_len = out_ref(out_len)?;
        *out_len = 0;
        let kp = keypair_ref(kp)?;
        let input = bytes_in(json, json_len)?;
        let out = bytes_out(out, out_cap)?;
        let mut nodes = nodes_for(input);
        let doc = parse(input, &mut nodes)?;
        write_sized(out, out_len, |buf| message::sign_object(doc.root(), kp, buf))
    })
}

/// Verifies the top-level `signature` of the JSON object `json` under the 32-byte
/// Ed25519 public key `public_key` (SPEC §9.2 rule 1). CONCORDIA_OK means it verifies.
///
/// Returns CONCORDIA_SIGNATURE when it does not, CONCORDIA_SCHEMA when there is no string
/// `signature` or `json` is not an object, CONCORDIA_ENCODING when the signature is not
/// base64url of 64 bytes, CONCORDIA_INVALID_ARGUMENT when `public_key_len` is not 32.
///
/// # Safety
/// `json` must be valid for `json_len` bytes of reads; `public_key` for `public_key_len`.
#[no_mangle]
pub extern "C" fn concordia_verify_object(
    json: *const u8,
    json_len: usize,
    public_key: *const u8,
    public_key_len: usize,
) -> concordia_result {
    guard(|| {
        let pk = public_key_in(public_key, public_key_len)?;
        let input = bytes_in(json, json_len)?;
        let mut nodes = nodes_for(input);
        let doc = parse(input, &mut nodes)?;
        message::verify_signed_object(doc.root(), &pk)?;
        Ok(())
    })
}

/// An agent as it appears in an envelope's `from` and `to`.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct concordia_party {
    /// `agent_id` (required).
    pub agent_id: concordia_str,
    /// `principal_id`; `ptr` NULL when absent.
    pub principal_id: concordia_str,
}

/// The fields of a message envelope (SPEC §4.1), for concordia_envelope_sign. Every text is
/// UTF-8 by pointer and length; optional texts are absent when their `ptr` is NULL.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct concordia_envelope {
    /// `concordia` protocol version; absent: the core's default ("0.1.0").
    pub concordia: concordia_str,
    /// `type`, e.g. `negotiate.offer`.
    pub message_type: concordia_str,
    /// `id`.
    pub id: concordia_str,
    /// `session_id`.
    pub session_id: concordia_str,
    /// `timestamp`, ISO 8601 UTC (the library reads no clock).
    pub timestamp: concordia_str,
    /// `from`.
    pub from: concordia_party,
    /// `to`: `to_count` parties (NULL when 0); omitted from the message when empty.
    pub to: *const concordia_party,
    /// Number of parties in `to`.
    pub to_count: usize,
    /// `prev_hash` as `sha256:<hex>`; absent: the genesis hash (first message).
    pub prev_hash: concordia_str,
    /// `body`: JSON text (an object in practice), written canonical.
    pub body_json: concordia_str,
    /// `in_reply_to`; omitted when absent or empty.
    pub in_reply_to: concordia_str,
    /// `reasoning`; omitted when absent or empty.
    pub reasoning: concordia_str,
    /// `ttl` in seconds, written only when `has_ttl` is non-zero.
    pub ttl: u64,
    /// Non-zero when `ttl` is present.
    pub has_ttl: u8,
}

/// Builds the envelope `env`, signs it with `kp` (top-level signature rule) and writes the
/// signed message, canonical, into `out`. Optional members are omitted exactly as the
/// reference SDK's `build_envelope` omits them.
///
/// Returns a 2xx code for a malformed `body_json`, CONCORDIA_ENCODING for a malformed
/// `prev_hash`, CONCORDIA_INVALID_ARGUMENT for non-UTF-8 text or a `ttl` beyond 2^53 - 1.
///
/// # Safety
/// `kp` must be a live key pair; `env` must point to an envelope whose texts are valid for
/// their lengths and whose `to` holds `to_count` parties; `out` valid for `out_cap` bytes
/// of writes; `out_len` for one `size_t`.
#[no_mangle]
pub extern "C" fn concordia_envelope_sign(
    kp: *const concordia_keypair,
    env: *const concordia_envelope,
    out: *mut u8,
    out_cap: usize,
    out_len: *mut usize,
) -> concordia_result {
    guard(|| {
        let out_len = out_ref(out_len)?;
        *out_len = 0;
        let kp = keypair_ref(kp)?;
        let env = in_ref(env)?;
        let out = bytes_out(out, out_cap)?;
        let party = |p: &concordia_party| -> Result<Party<'_>, Fail> {
            let agent_id = p.agent_id.text()?;
            let principal_id = p.principal_id.opt_text()?;
            Ok(Party { agent_id, principal_id })
        };
        let to_raw = slice_in(env.to, env.to_count)?;
        let to = to_raw.iter().map(&party).collect::<Result<Vec<_>, _>>()?;
        let body = bytes_in(env.body_json.ptr, env.body_json.len)?;
        if env.body_json.ptr.is_null() {
            return Err(NULL);
        }
        let mut nodes = nodes_for(body);
        let body = parse(body, &mut nodes)?;
        let (message_type, id, session_id, timestamp) =
            (env.message_type.text()?, env.id.text()?, env.session_id.text()?, env.timestamp.text()?);
        let mut e = Envelope::new(message_type, id, session_id, timestamp, party(&env.from)?, body.root());
        if let Some(v) = env.concordia.opt_text()? {
            e.concordia = v;
        }
        e.to = &to;
        if let Some(h) = env.prev_hash.opt_text()? {
            e.prev_hash = Digest::parse_prefixed(h)?;
        }
        e.in_reply_to = env.in_reply_to.opt_text()?;
        e.reasoning = env.reasoning.opt_text()?;
        e.ttl = (env.has_ttl != 0).then_some(env.ttl);
        write_sized(out, out_len, |buf| e.write_signed(kp, buf))
    })
}
