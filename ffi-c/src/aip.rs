//! AIP, the Agent Interaction Protocol (`concordia_core::aip`): handles and `did:aip`
//! identifiers, DID Documents and route selection, AIP key pairs (Ed25519 + X25519),
//! sealed envelopes (seal, verify, open with addressee and freshness checks),
//! `eddsa-jcs-2022` Verifiable Credentials, trust scores and ranking.
//!
//! The rules are the core's: this file converts C arguments, parses through
//! concordia-host, supplies operating system randomness (key generation, the HPKE
//! ephemeral key material, message ids) and maps results. The replay window (duplicate
//! detection) is an object of its own, not in this file.
//!
//! Texts that a call finds inside one of its inputs (a DID Document's `id`, an envelope's
//! header fields, a credential's issuer) are reported as a [`concordia_span`] into that
//! input, not copied.

use concordia_core::aip::did::{self, Route, RouteMode, MAX_KEYS};
use concordia_core::aip::envelope::{self, Envelope, Header};
use concordia_core::aip::handle::{self, Handle};
use concordia_core::aip::hpke::{self, X25519SecretKey};
use concordia_core::aip::{trust, vc};
use concordia_core::sign::KeyPair;
use concordia_core::sink::SliceSink;
use concordia_core::time::Timestamp;
use concordia_core::{did_key, encoding, jcs, Error};
use concordia_host::aip::{open_envelope, Addressee, Delivery, Freshness, OpenPolicy};
use concordia_host::vc::{verify_credential, VcPolicy, VcTime};
use concordia_host::HostReplayWindow;
use concordia_host::Nodes;

use crate::aip_replay::{concordia_aip_replay_window, window_mut};
use crate::boundary::{
    bytes_in, bytes_out, copy_out, guard, handle_free, handle_new, handle_ref, in_ref, opt_in, opt_out, out_ref,
    slice_in, slice_out, store_len, Fail, FfiResult, NULL,
};
use crate::keys::keypair_ref;
use crate::{concordia_keypair, concordia_result, concordia_str};

/// Most keys of each kind (Ed25519, X25519) a DID Document may list.
pub const CONCORDIA_AIP_MAX_KEYS: usize = 4;
const _: () = assert!(CONCORDIA_AIP_MAX_KEYS == MAX_KEYS);
/// Length of an AIP message id (a lowercase UUID v4).
pub const CONCORDIA_AIP_MESSAGE_ID_LEN: usize = 36;

fn internal() -> Fail {
    Fail::Code(concordia_result::CONCORDIA_INTERNAL)
}

/// 32 bytes from the operating system, erased when dropped.
fn os_random() -> FfiResult<concordia_host::zeroize::Zeroizing<[u8; 32]>> {
    let mut b = concordia_host::zeroize::Zeroizing::new([0u8; 32]);
    getrandom::fill(&mut *b).map_err(|_| Fail::Code(concordia_result::CONCORDIA_RANDOMNESS_UNAVAILABLE))?;
    Ok(b)
}

/// A part of one of a call's inputs: bytes `[offset, offset + len)` of it.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct concordia_span {
    /// Offset of the first byte in the input.
    pub offset: usize,
    /// Length in bytes.
    pub len: usize,
}

/// The span of `part`, a text the core found inside `input`.
fn span(input: &[u8], part: &str) -> FfiResult<concordia_span> {
    let (base, at) = (input.as_ptr() as usize, part.as_ptr() as usize);
    let offset = at.checked_sub(base).filter(|o| o.checked_add(part.len()).is_some_and(|end| end <= input.len()));
    offset.map(|offset| concordia_span { offset, len: part.len() }).ok_or_else(internal)
}

// --------------------------------------------------------------------------- handles

/// Which spelling of a handle concordia_aip_handle writes.
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum concordia_aip_handle_form {
    /// `name#domain`.
    CONCORDIA_AIP_HANDLE = 0,
    /// The URL form `name%23domain`.
    CONCORDIA_AIP_HANDLE_URL_FORM = 1,
    /// `@name@domain`.
    CONCORDIA_AIP_HANDLE_AT_FORM = 2,
    /// `did:aip:<domain>:<name>`.
    CONCORDIA_AIP_HANDLE_DID = 3,
    /// The agent name alone.
    CONCORDIA_AIP_HANDLE_NAME = 4,
    /// The registry domain alone.
    CONCORDIA_AIP_HANDLE_DOMAIN = 5,
}

fn handle_out(h: &Handle, form: u32, out: &mut [u8], out_len: &mut usize) -> FfiResult {
    match form {
        0 => copy_out(h.handle().as_bytes(), out, out_len),
        1 => copy_out(h.url_form().as_bytes(), out, out_len),
        2 => copy_out(h.at_form().as_bytes(), out, out_len),
        3 => copy_out(h.did().as_bytes(), out, out_len),
        4 => copy_out(h.name().as_bytes(), out, out_len),
        5 => copy_out(h.domain().as_bytes(), out, out_len),
        _ => Err(Fail::Core(Error::InvalidArgument("unknown handle form"))),
    }
}

/// Parses a handle written `name#domain`, `name%23domain`, `@name@domain` or
/// `did:aip:<domain>:<name>` and writes it in the spelling `form` (a
/// concordia_aip_handle_form) into `out`.
///
/// Returns CONCORDIA_INVALID_ARGUMENT (or CONCORDIA_SCHEMA) for text that is not a handle
/// and for an unknown `form`.
///
/// # Safety
/// `text.ptr` must be valid for `text.len` bytes; `out` for `out_cap` bytes of writes;
/// `out_len` for one `size_t`.
#[no_mangle]
pub extern "C" fn concordia_aip_handle(
    text: concordia_str,
    form: u32,
    out: *mut u8,
    out_cap: usize,
    out_len: *mut usize,
) -> concordia_result {
    guard(|| {
        let out_len = out_ref(out_len)?;
        *out_len = 0;
        let out = bytes_out(out, out_cap)?;
        let h = handle::parse_any(text.text()?)?;
        handle_out(&h, form, out, out_len)
    })
}

/// The handle of `name` at `domain`, checked against the handle grammar, written in the
/// spelling `form` (a concordia_aip_handle_form) into `out`.
///
/// # Safety
/// As concordia_aip_handle.
#[no_mangle]
pub extern "C" fn concordia_aip_handle_of(
    name: concordia_str,
    domain: concordia_str,
    form: u32,
    out: *mut u8,
    out_cap: usize,
    out_len: *mut usize,
) -> concordia_result {
    guard(|| {
        let out_len = out_ref(out_len)?;
        *out_len = 0;
        let out = bytes_out(out, out_cap)?;
        let h = Handle::new(name.text()?, domain.text()?)?;
        handle_out(&h, form, out, out_len)
    })
}

// --------------------------------------------------------------------------- DID Documents

/// How messages reach an agent (`route_mode`).
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum concordia_aip_route_mode {
    /// HTTP POST to the agent's endpoint.
    CONCORDIA_AIP_ROUTE_DIRECT = 0,
    /// A relay hub's durable stream.
    CONCORDIA_AIP_ROUTE_RELAY = 1,
}

fn mode_out(m: RouteMode) -> concordia_aip_route_mode {
    match m {
        RouteMode::Direct => concordia_aip_route_mode::CONCORDIA_AIP_ROUTE_DIRECT,
        RouteMode::Relay => concordia_aip_route_mode::CONCORDIA_AIP_ROUTE_RELAY,
    }
}

fn mode_in(v: u32) -> FfiResult<RouteMode> {
    match v {
        0 => Ok(RouteMode::Direct),
        1 => Ok(RouteMode::Relay),
        _ => Err(Fail::Core(Error::InvalidArgument("unknown route mode"))),
    }
}

/// The AIP subset of a DID Document, as concordia_aip_did_document_parse reads it.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct concordia_aip_did_document {
    /// `id` (a `did:aip` DID), in the document text.
    pub id: concordia_span,
    /// `endpoint`, in the document text.
    pub endpoint: concordia_span,
    /// `route_mode`.
    pub route_mode: concordia_aip_route_mode,
    /// Number of Ed25519 `verificationMethod` keys (at least 1).
    pub signing_key_count: usize,
    /// The Ed25519 keys, in document order.
    pub signing_keys: [[u8; 32]; CONCORDIA_AIP_MAX_KEYS],
    /// Number of X25519 `keyAgreement` keys.
    pub agreement_key_count: usize,
    /// The X25519 keys, in document order.
    pub agreement_keys: [[u8; 32]; CONCORDIA_AIP_MAX_KEYS],
}

fn with_document<T>(input: &[u8], f: impl FnOnce(&did::DidDocument<'_>) -> FfiResult<T>) -> FfiResult<T> {
    let mut nodes = Nodes::new();
    let doc = nodes.parse(input)?;
    f(&did::document_from_value(doc.root())?)
}

/// Reads the AIP subset of a DID Document (JSON text): `id`, `route_mode`, `endpoint`, the
/// Ed25519 `verificationMethod` and X25519 `keyAgreement` multikeys, into `*info`.
///
/// Returns CONCORDIA_SCHEMA for a missing or ill-typed member, CONCORDIA_INVALID_ARGUMENT
/// for an `id` that is not `did:aip`, CONCORDIA_ENCODING for a malformed multikey,
/// CONCORDIA_LIMIT_CAPACITY for more than 4 keys of a kind, a 2xx code for malformed JSON.
///
/// # Safety
/// `doc` must be valid for `doc_len` bytes of reads; `info` for one write.
#[no_mangle]
pub extern "C" fn concordia_aip_did_document_parse(
    doc: *const u8,
    doc_len: usize,
    info: *mut concordia_aip_did_document,
) -> concordia_result {
    guard(|| {
        let info = out_ref(info)?;
        if doc.is_null() {
            return Err(NULL);
        }
        let input = bytes_in(doc, doc_len)?;
        *info = with_document(input, |d| {
            let mut r = concordia_aip_did_document {
                id: span(input, d.id)?,
                endpoint: span(input, d.endpoint)?,
                route_mode: mode_out(d.route_mode),
                signing_key_count: d.signing_keys.len(),
                signing_keys: [[0; 32]; CONCORDIA_AIP_MAX_KEYS],
                agreement_key_count: d.agreement_keys.len(),
                agreement_keys: [[0; 32]; CONCORDIA_AIP_MAX_KEYS],
            };
            for (dst, k) in r.signing_keys.iter_mut().zip(&d.signing_keys) {
                *dst = *k.as_bytes();
            }
            for (dst, k) in r.agreement_keys.iter_mut().zip(&d.agreement_keys) {
                *dst = k.0;
            }
            Ok(r)
        })?;
        Ok(())
    })
}

/// Where to deliver, as decided by concordia_aip_select_route.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct concordia_aip_route {
    /// Direct (POST to `endpoint`) or relay.
    pub mode: concordia_aip_route_mode,
    /// 1 when `endpoint` names where to deliver: always for direct; for relay only when
    /// the document's own route mode is relay (0: the sender's hub relays by domain).
    pub has_endpoint: u8,
    /// The endpoint, in the document text.
    pub endpoint: concordia_span,
}

/// Chooses how to deliver to the subject of a DID Document: direct when its route mode is
/// `direct` and the caller found the endpoint reachable (`endpoint_reachable` non-zero),
/// relay otherwise. Errors as concordia_aip_did_document_parse.
///
/// # Safety
/// `doc` must be valid for `doc_len` bytes of reads; `route` for one write.
#[no_mangle]
pub extern "C" fn concordia_aip_select_route(
    doc: *const u8,
    doc_len: usize,
    endpoint_reachable: u8,
    route: *mut concordia_aip_route,
) -> concordia_result {
    guard(|| {
        let route = out_ref(route)?;
        if doc.is_null() {
            return Err(NULL);
        }
        let input = bytes_in(doc, doc_len)?;
        *route = with_document(input, |d| {
            Ok(match did::select_route(d, endpoint_reachable != 0) {
                Route::Direct(e) => concordia_aip_route {
                    mode: concordia_aip_route_mode::CONCORDIA_AIP_ROUTE_DIRECT,
                    has_endpoint: 1,
                    endpoint: span(input, e)?,
                },
                Route::Relay(e) => concordia_aip_route {
                    mode: concordia_aip_route_mode::CONCORDIA_AIP_ROUTE_RELAY,
                    has_endpoint: e.is_some().into(),
                    endpoint: e.map(|e| span(input, e)).transpose()?.unwrap_or_default(),
                },
            })
        })?;
        Ok(())
    })
}

// --------------------------------------------------------------------------- keys

/// An AIP agent's key pair (opaque): Ed25519 (signs envelopes and credentials) and X25519
/// (opens sealed bodies). Create with concordia_aip_keypair_generate or
/// concordia_aip_keypair_from_seeds; release with concordia_aip_keypair_free, which
/// overwrites both secrets (each secret type erases itself when dropped).
///
/// Thread safety: immutable once created; may be shared by threads.
pub struct concordia_aip_keypair {
    ed: KeyPair,
    x: X25519SecretKey,
}

#[cfg(test)]
#[path = "aip_secret_tests.rs"]
mod secret_tests;

fn aip_keypair_ref<'a>(kp: *const concordia_aip_keypair) -> FfiResult<&'a concordia_aip_keypair> {
    handle_ref(kp)
}

/// Generates an AIP key pair from operating system randomness (an Ed25519 seed, and the
/// X25519 key pair RFC 9180 `DeriveKeyPair` makes of 32 more random bytes) and stores a
/// new object in `*out` (NULL on failure). Export the secrets with
/// concordia_aip_keypair_export to keep the key.
///
/// Returns CONCORDIA_RANDOMNESS_UNAVAILABLE when the OS generator fails.
///
/// # Safety
/// `out` must be valid for one pointer write.
#[no_mangle]
pub extern "C" fn concordia_aip_keypair_generate(out: *mut *mut concordia_aip_keypair) -> concordia_result {
    guard(|| {
        let out = out_ref(out)?;
        *out = std::ptr::null_mut();
        let (ed_seed, ikm) = (os_random()?, os_random()?);
        let ed = KeyPair::from_seed(&ed_seed);
        let (x, _) = hpke::derive_keypair(&*ikm);
        handle_new(concordia_aip_keypair { ed, x }, out);
        Ok(())
    })
}

/// The AIP key pair of a 32-byte Ed25519 seed and a 32-byte X25519 private key (the
/// `ed25519_seed_hex` and `x25519_secret_hex` of a `concordia aip keygen` key file),
/// stored as a new object in `*out` (NULL on failure).
///
/// Returns CONCORDIA_INVALID_ARGUMENT when a length is not 32.
///
/// # Safety
/// `ed25519_seed` must be valid for `ed25519_seed_len` bytes; `x25519_secret` for
/// `x25519_secret_len`; `out` for one pointer write.
#[no_mangle]
pub extern "C" fn concordia_aip_keypair_from_seeds(
    ed25519_seed: *const u8,
    ed25519_seed_len: usize,
    x25519_secret: *const u8,
    x25519_secret_len: usize,
    out: *mut *mut concordia_aip_keypair,
) -> concordia_result {
    guard(|| {
        let out = out_ref(out)?;
        *out = std::ptr::null_mut();
        if ed25519_seed.is_null() || x25519_secret.is_null() {
            return Err(NULL);
        }
        let ed = bytes_in(ed25519_seed, ed25519_seed_len)?;
        let x = bytes_in(x25519_secret, x25519_secret_len)?;
        let ed: &[u8; 32] =
            ed.try_into().map_err(|_| Fail::Core(Error::InvalidArgument("Ed25519 seed must be 32 bytes")))?;
        let x = X25519SecretKey(
            x.try_into().map_err(|_| Fail::Core(Error::InvalidArgument("X25519 secret key must be 32 bytes")))?,
        );
        handle_new(concordia_aip_keypair { ed: KeyPair::from_seed(ed), x }, out);
        Ok(())
    })
}

/// Releases an AIP key pair and overwrites its secrets. NULL is ignored.
///
/// # Safety
/// `kp` must be NULL or an AIP key pair from this library that has not been freed, and no
/// other thread may be using it.
#[no_mangle]
pub extern "C" fn concordia_aip_keypair_free(kp: *mut concordia_aip_keypair) {
    handle_free(kp);
}

/// What concordia_aip_keypair_export writes.
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum concordia_aip_key_part {
    /// The 32-byte Ed25519 public key.
    CONCORDIA_AIP_ED25519_PUBLIC_KEY = 0,
    /// The 32-byte X25519 public key.
    CONCORDIA_AIP_X25519_PUBLIC_KEY = 1,
    /// The 32-byte Ed25519 seed (secret).
    CONCORDIA_AIP_ED25519_SEED = 2,
    /// The 32-byte X25519 private key (secret).
    CONCORDIA_AIP_X25519_SECRET = 3,
    /// The Ed25519 public key as a multikey (`z6Mk...`), a `verificationMethod`'s
    /// `publicKeyMultibase`.
    CONCORDIA_AIP_ED25519_MULTIBASE = 4,
    /// The X25519 public key as a multikey (`z6LS...`), a `keyAgreement`'s
    /// `publicKeyMultibase`.
    CONCORDIA_AIP_X25519_MULTIBASE = 5,
    /// The Ed25519 key's `did:key` (a credential issuer).
    CONCORDIA_AIP_DID_KEY = 6,
}

/// Writes one part of an AIP key pair (a concordia_aip_key_part) into `out`. The secrets
/// (seed, X25519 private key) are the caller's to keep secret.
///
/// Returns CONCORDIA_INVALID_ARGUMENT for an unknown `part`.
///
/// # Safety
/// `kp` must be a live AIP key pair; `out` valid for `out_cap` bytes of writes; `out_len`
/// for one `size_t`.
#[no_mangle]
pub extern "C" fn concordia_aip_keypair_export(
    kp: *const concordia_aip_keypair,
    part: u32,
    out: *mut u8,
    out_cap: usize,
    out_len: *mut usize,
) -> concordia_result {
    guard(|| {
        let out_len = out_ref(out_len)?;
        *out_len = 0;
        let kp = aip_keypair_ref(kp)?;
        let out = bytes_out(out, out_cap)?;
        let (ed, x) = (kp.ed.public_key(), kp.x.public_key());
        match part {
            0 => copy_out(ed.as_bytes(), out, out_len),
            1 => copy_out(&x.0, out, out_len),
            2 => {
                // A Zeroizing copy, erased when dropped.
                copy_out(&*kp.ed.seed(), out, out_len)
            }
            3 => copy_out(&kp.x.0, out, out_len),
            4 => copy_out(did::encode_multikey(ed.as_bytes(), did_key::ED25519_MULTICODEC).as_bytes(), out, out_len),
            5 => copy_out(did::encode_multikey(&x.0, did::X25519_MULTICODEC).as_bytes(), out, out_len),
            6 => copy_out(did_key::encode(&ed).as_bytes(), out, out_len),
            _ => Err(Fail::Core(Error::InvalidArgument("unknown key part"))),
        }
    })
}

/// Writes this key pair's DID Document for `did` (a `did:aip`) in RFC 8785 form into
/// `out`: the subset concordia_aip_did_document_parse reads, the Ed25519 key as
/// `<did>#key-1` and the X25519 key as `<did>#x25519-1`. `route_mode` is a
/// concordia_aip_route_mode; `endpoint` an `https`, `http` or `wss` URL.
///
/// Returns CONCORDIA_INVALID_ARGUMENT for a `did` that is not `did:aip` or an unknown
/// route mode, CONCORDIA_SCHEMA for a malformed endpoint.
///
/// # Safety
/// `kp` must be a live AIP key pair; each text valid for its length; `out` valid for
/// `out_cap` bytes of writes; `out_len` for one `size_t`.
#[no_mangle]
pub extern "C" fn concordia_aip_keypair_did_document(
    kp: *const concordia_aip_keypair,
    did: concordia_str,
    route_mode: u32,
    endpoint: concordia_str,
    out: *mut u8,
    out_cap: usize,
    out_len: *mut usize,
) -> concordia_result {
    guard(|| {
        let out_len = out_ref(out_len)?;
        *out_len = 0;
        let kp = aip_keypair_ref(kp)?;
        let out = bytes_out(out, out_cap)?;
        let (did_text, endpoint) = (did.text()?, endpoint.text()?);
        let subject = did::parse_did(did_text)?;
        let mode = mode_in(route_mode)?;
        let (ed, x) = (kp.ed.public_key(), kp.x.public_key());
        let doc = concordia_host::write_vec(512, |buf| {
            let mut sink = SliceSink::new(buf);
            did::write_document(&subject, mode, endpoint, &ed, &x, &mut sink)?;
            sink.finish()
        })?;
        copy_out(&doc, out, out_len)
    })
}

/// Stores the Ed25519 half of an AIP key pair as a new concordia_keypair in `*out` (to
/// sign objects, or to issue credentials with concordia_aip_vc_issue); release it with
/// concordia_keypair_free.
///
/// # Safety
/// `kp` must be a live AIP key pair; `out` valid for one pointer write.
#[no_mangle]
pub extern "C" fn concordia_aip_keypair_signing_key(
    kp: *const concordia_aip_keypair,
    out: *mut *mut concordia_keypair,
) -> concordia_result {
    guard(|| {
        let out = out_ref(out)?;
        *out = std::ptr::null_mut();
        let kp = aip_keypair_ref(kp)?;
        handle_new(concordia_keypair(kp.ed.clone()), out);
        Ok(())
    })
}

/// Writes the `did:key` of an Ed25519 key pair (the `issuer` of the credentials it issues)
/// into `out`.
///
/// # Safety
/// `kp` must be a live key pair; `out` valid for `out_cap` bytes of writes; `out_len` for
/// one `size_t`.
#[no_mangle]
pub extern "C" fn concordia_aip_did_key(
    kp: *const concordia_keypair,
    out: *mut u8,
    out_cap: usize,
    out_len: *mut usize,
) -> concordia_result {
    guard(|| {
        let out_len = out_ref(out_len)?;
        *out_len = 0;
        let kp = keypair_ref(kp)?;
        let out = bytes_out(out, out_cap)?;
        copy_out(did_key::encode(&kp.public_key()).as_bytes(), out, out_len)
    })
}

// --------------------------------------------------------------------------- envelopes

/// Writes a new message id, a lowercase UUID v4 from operating system randomness (36
/// bytes), into `out`.
///
/// # Safety
/// `out` must be valid for `out_cap` bytes of writes; `out_len` for one `size_t`.
#[no_mangle]
pub extern "C" fn concordia_aip_new_message_id(out: *mut u8, out_cap: usize, out_len: *mut usize) -> concordia_result {
    guard(|| {
        let out_len = out_ref(out_len)?;
        *out_len = 0;
        let out = bytes_out(out, out_cap)?;
        let mut b = os_random()?;
        // RFC 9562 version 4 and variant bits; the core checks the result below.
        b[6] = (b[6] & 0x0f) | 0x40;
        b[8] = (b[8] & 0x3f) | 0x80;
        let mut hex = [0u8; 32];
        encoding::encode_hex(&b[..16], &mut hex)?;
        let mut id = [0u8; CONCORDIA_AIP_MESSAGE_ID_LEN];
        let mut at = 0;
        for (i, c) in hex.iter().enumerate() {
            if matches!(i, 8 | 12 | 16 | 20) {
                id[at] = b'-';
                at += 1;
            }
            id[at] = *c;
            at += 1;
        }
        envelope::parse_uuid_v4(std::str::from_utf8(&id).map_err(|_| internal())?)?;
        copy_out(&id, out, out_len)
    })
}

/// The header fields a sender chooses for concordia_aip_seal; `to` is the recipient
/// document's `id`.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct concordia_aip_seal_header {
    /// `id`: a lowercase UUID v4, unique per message (concordia_aip_new_message_id).
    pub id: concordia_str,
    /// `from`: the sender's `did:aip` (its DID Document lists the sender's Ed25519 key).
    pub from: concordia_str,
    /// `type`: 1 to 128 characters of `a-z 0-9 . _ -`, starting with a letter.
    pub message_type: concordia_str,
    /// `created_at`: RFC 3339, e.g. `2026-05-10T14:25:00Z` (the library reads no clock).
    pub created_at: concordia_str,
}

/// Seals `body_json` (written canonical) to the first X25519 `keyAgreement` key of the
/// recipient's DID Document, signs the envelope with `sender`'s Ed25519 key and writes it,
/// canonical JSON, into `out`. The HPKE ephemeral key material comes from the operating
/// system; a size query does not seal (the length depends only on the inputs' lengths).
///
/// Returns CONCORDIA_SCHEMA / CONCORDIA_INVALID_ARGUMENT for a malformed header field or a
/// recipient document without an X25519 key, a 2xx code for malformed JSON,
/// CONCORDIA_RANDOMNESS_UNAVAILABLE when the OS generator fails.
///
/// # Safety
/// `sender` must be a live AIP key pair; `header` valid for reads with texts valid for
/// their lengths; each JSON pointer valid for its length; `out` valid for `out_cap` bytes
/// of writes; `out_len` for one `size_t`.
#[no_mangle]
pub extern "C" fn concordia_aip_seal(
    sender: *const concordia_aip_keypair,
    recipient_doc: *const u8,
    recipient_doc_len: usize,
    header: *const concordia_aip_seal_header,
    body_json: *const u8,
    body_len: usize,
    out: *mut u8,
    out_cap: usize,
    out_len: *mut usize,
) -> concordia_result {
    guard(|| {
        let out_len = out_ref(out_len)?;
        *out_len = 0;
        let sender = aip_keypair_ref(sender)?;
        let h = in_ref(header)?;
        if recipient_doc.is_null() || body_json.is_null() {
            return Err(NULL);
        }
        let rdoc = bytes_in(recipient_doc, recipient_doc_len)?;
        let body = bytes_in(body_json, body_len)?;
        let out = bytes_out(out, out_cap)?;
        let (id, from, kind, created_at) = (h.id.text()?, h.from.text()?, h.message_type.text()?, h.created_at.text()?);
        let mut body_nodes = Nodes::new();
        let body_doc = body_nodes.parse(body)?;
        // The canonical form is never longer than the input.
        let body = concordia_host::write_vec(body.len(), |buf| jcs::write_to_slice(body_doc.root(), buf))?;
        with_document(rdoc, |d| {
            let recipient = d
                .agreement_keys
                .first()
                .ok_or(Fail::Core(Error::Schema("recipient DID Document has no X25519 keyAgreement key")))?;
            let header = Header { id, from, to: d.id, kind, created_at };
            // A buffer that is too short fails before anything is sealed or drawn.
            let need = match envelope::seal(&header, recipient, &body, &[0; 32], &sender.ed, &mut []) {
                Err(Error::BufferTooSmall { needed }) => needed,
                Err(e) => return Err(Fail::Core(e)),
                Ok(_) => 0,
            };
            if out.len() < need {
                *out_len = need;
                return Err(Fail::Core(Error::BufferTooSmall { needed: need }));
            }
            let ikm = os_random()?;
            *out_len = envelope::seal(&header, recipient, &body, &ikm, &sender.ed, out)?;
            Ok(())
        })
    })
}

/// The header of an envelope, each text a span of the envelope's JSON text.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct concordia_aip_header {
    /// `id`.
    pub id: concordia_span,
    /// `from`: the sender's `did:aip`.
    pub from: concordia_span,
    /// `to`: the recipient's `did:aip`.
    pub to: concordia_span,
    /// `type`.
    pub message_type: concordia_span,
    /// `created_at` (RFC 3339).
    pub created_at: concordia_span,
    /// `created_at` as Unix seconds (fractions dropped toward the past).
    pub created_at_unix: i64,
}

fn header_of(input: &[u8], h: &Header<'_>, created: Timestamp) -> FfiResult<concordia_aip_header> {
    Ok(concordia_aip_header {
        id: span(input, h.id)?,
        from: span(input, h.from)?,
        to: span(input, h.to)?,
        message_type: span(input, h.kind)?,
        created_at: span(input, h.created_at)?,
        created_at_unix: created.unix_seconds(),
    })
}

fn with_envelope<T>(input: &[u8], f: impl FnOnce(&Envelope<'_>) -> FfiResult<T>) -> FfiResult<T> {
    let mut nodes = Nodes::new();
    let doc = nodes.parse(input)?;
    f(&envelope::from_value(doc.root())?)
}

/// Checks an envelope's shape (exactly the seven members, each well-formed) without its
/// signature or body and writes its header into `*header`.
///
/// Returns CONCORDIA_SCHEMA naming the member that is missing, unknown or malformed (the
/// detail is in concordia_last_error_message), a 2xx code for malformed JSON.
///
/// # Safety
/// `envelope_json` must be valid for `envelope_len` bytes of reads; `header` for one write.
#[no_mangle]
pub extern "C" fn concordia_aip_envelope_parse(
    envelope_json: *const u8,
    envelope_len: usize,
    header: *mut concordia_aip_header,
) -> concordia_result {
    guard(|| {
        let header = out_ref(header)?;
        *header = concordia_aip_header::default();
        if envelope_json.is_null() {
            return Err(NULL);
        }
        let input = bytes_in(envelope_json, envelope_len)?;
        *header = with_envelope(input, |e| header_of(input, &e.header, e.created))?;
        Ok(())
    })
}

/// Verifies an envelope against the sender's DID Document: `from` must be its `id` and
/// `sig` must verify under one of its Ed25519 keys. `*header` (NULL: not wanted) receives
/// the header, spans of `envelope_json`.
///
/// Returns CONCORDIA_BINDING when `from` is another DID, CONCORDIA_SIGNATURE when no key
/// verifies, errors of concordia_aip_envelope_parse and concordia_aip_did_document_parse.
///
/// # Safety
/// Each JSON pointer must be valid for its length; `header` NULL or valid for one write.
#[no_mangle]
pub extern "C" fn concordia_aip_verify_envelope(
    sender_doc: *const u8,
    sender_doc_len: usize,
    envelope_json: *const u8,
    envelope_len: usize,
    header: *mut concordia_aip_header,
) -> concordia_result {
    guard(|| {
        if sender_doc.is_null() || envelope_json.is_null() {
            return Err(NULL);
        }
        let sdoc = bytes_in(sender_doc, sender_doc_len)?;
        let input = bytes_in(envelope_json, envelope_len)?;
        let h = with_document(sdoc, |d| {
            with_envelope(input, |e| {
                e.verify_from(d)?;
                header_of(input, &e.header, e.created)
            })
        })?;
        if let Some(out) = opt_out(header) {
            *out = h;
        }
        Ok(())
    })
}

/// When concordia_aip_open checks `created_at` (the `freshness` of
/// concordia_aip_open_checks): at most `MAX_FUTURE_SKEW` ahead of the recipient's clock and
/// at most `WINDOW` old (the core's constants, docs/limits.md).
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum concordia_aip_freshness {
    /// At the operating system's clock (the default: 0, a zeroed struct, NULL checks).
    CONCORDIA_AIP_FRESHNESS_CLOCK = 0,
    /// At `now` (Unix seconds).
    CONCORDIA_AIP_FRESHNESS_AT = 1,
    /// Not checked: opens envelopes of any age. Only by this name.
    CONCORDIA_AIP_FRESHNESS_UNCHECKED = 2,
}

/// Whom concordia_aip_open requires an envelope to be addressed to (the `addressee` of
/// concordia_aip_open_checks).
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum concordia_aip_addressee {
    /// `to` must be `recipient_did`, which must be given (the default: 0, a zeroed struct,
    /// NULL checks; without `recipient_did` the call returns CONCORDIA_INVALID_ARGUMENT).
    CONCORDIA_AIP_ADDRESSEE_REQUIRED = 0,
    /// Not checked: any `to` is accepted (`recipient_did` must be NULL). Only by this name.
    CONCORDIA_AIP_ADDRESSEE_UNCHECKED = 1,
}

/// The recipient's policy for concordia_aip_open. NULL, or a zeroed struct, is the safe
/// default: freshness at the operating system's clock and the addressee required (so
/// `recipient_did` must be set: with NULL checks every call returns
/// CONCORDIA_INVALID_ARGUMENT). Opting out is by name only.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct concordia_aip_open_checks {
    /// The recipient's own `did:aip`: the envelope's `to` must name it. Required with
    /// CONCORDIA_AIP_ADDRESSEE_REQUIRED (NULL `ptr`: CONCORDIA_INVALID_ARGUMENT).
    pub recipient_did: concordia_str,
    /// A concordia_aip_addressee (another value: CONCORDIA_INVALID_ARGUMENT).
    pub addressee: u32,
    /// A concordia_aip_freshness (another value: CONCORDIA_INVALID_ARGUMENT).
    pub freshness: u32,
    /// The recipient's clock, Unix seconds (read only with CONCORDIA_AIP_FRESHNESS_AT).
    pub now: i64,
    /// A replay window (NULL: none): an envelope whose id it has already seen is
    /// CONCORDIA_AIP_REPLAY; it remembers only envelopes that passed every other check.
    /// Not with CONCORDIA_AIP_FRESHNESS_UNCHECKED (CONCORDIA_INVALID_ARGUMENT).
    pub window: *mut concordia_aip_replay_window,
}

/// The host policy of `checks` (NULL: the default); `did` borrows `recipient_did`, `window`
/// is the checks' window.
fn policy_of<'a>(
    checks: Option<&concordia_aip_open_checks>,
    did: Option<&'a str>,
    window: Option<&'a mut HostReplayWindow>,
) -> FfiResult<OpenPolicy<'a>> {
    let Some(c) = checks else { return Ok(OpenPolicy::default()) };
    let bad = |what| Fail::Core(Error::InvalidArgument(what));
    let freshness = match c.freshness {
        x if x == concordia_aip_freshness::CONCORDIA_AIP_FRESHNESS_CLOCK as u32 => Freshness::Clock,
        x if x == concordia_aip_freshness::CONCORDIA_AIP_FRESHNESS_AT as u32 => {
            Freshness::At(Timestamp::from_unix(c.now))
        }
        x if x == concordia_aip_freshness::CONCORDIA_AIP_FRESHNESS_UNCHECKED as u32 => Freshness::Unchecked,
        _ => return Err(bad("unknown concordia_aip_freshness")),
    };
    let unchecked = match c.addressee {
        x if x == concordia_aip_addressee::CONCORDIA_AIP_ADDRESSEE_REQUIRED as u32 => false,
        x if x == concordia_aip_addressee::CONCORDIA_AIP_ADDRESSEE_UNCHECKED as u32 => true,
        _ => return Err(bad("unknown concordia_aip_addressee")),
    };
    let addressee = Addressee::from_args(did, None, unchecked)?;
    Ok(OpenPolicy { freshness, addressee, window })
}

/// Opens an envelope as its recipient (`concordia_host::aip::open_envelope`, the one
/// composition every surface calls), under the policy `checks` (NULL: the defaults, see
/// concordia_aip_open_checks), in this order: the signature under the sender's DID
/// Document (as concordia_aip_verify_envelope), the addressee, the body opens with
/// `recipient`'s X25519 key, then freshness. The body (as sealed: canonical JSON when
/// sealed by concordia_aip_seal) is written into `out`. `*header` (NULL: not wanted)
/// receives the header, spans of `envelope_json`. A size query opens the body once to
/// learn its length. With a window, `out_cap` must be at least `envelope_len` (the body is
/// always shorter than its envelope): a smaller buffer is CONCORDIA_BUFFER_TOO_SMALL with
/// `*out_len` = `envelope_len`, before anything is checked or remembered.
///
/// Returns CONCORDIA_INVALID_ARGUMENT for a missing (with the addressee required) or
/// malformed `recipient_did`, or an unknown enum value; CONCORDIA_BINDING when the
/// envelope is addressed to another agent (or `from` is not the sender document's `id`),
/// CONCORDIA_SIGNATURE when the signature does not verify or the body does not open (wrong
/// key, tampered body or header: also when the envelope is stale),
/// CONCORDIA_TEMPORAL when `created_at` is too old or too far ahead,
/// CONCORDIA_AIP_REPLAY when the window has already seen its id; errors of
/// concordia_aip_envelope_parse and concordia_aip_did_document_parse.
///
/// # Safety
/// `recipient` must be a live AIP key pair; `checks` NULL or valid for reads with a
/// `recipient_did` valid for its length and a `window` NULL or live (and not used by
/// another thread during the call); each JSON pointer valid for its length; `header`
/// NULL or valid for one write; `out` valid for `out_cap` bytes of writes; `out_len` for
/// one `size_t`.
#[no_mangle]
pub extern "C" fn concordia_aip_open(
    recipient: *const concordia_aip_keypair,
    checks: *const concordia_aip_open_checks,
    sender_doc: *const u8,
    sender_doc_len: usize,
    envelope_json: *const u8,
    envelope_len: usize,
    header: *mut concordia_aip_header,
    out: *mut u8,
    out_cap: usize,
    out_len: *mut usize,
) -> concordia_result {
    guard(|| {
        let out_len = out_ref(out_len)?;
        *out_len = 0;
        let recipient = aip_keypair_ref(recipient)?;
        let checks = opt_in(checks);
        if sender_doc.is_null() || envelope_json.is_null() {
            return Err(NULL);
        }
        let sdoc = bytes_in(sender_doc, sender_doc_len)?;
        let input = bytes_in(envelope_json, envelope_len)?;
        let out = bytes_out(out, out_cap)?;
        let (did, window) = match checks {
            Some(c) => {
                let did = c.recipient_did.opt_text()?;
                let window = if c.window.is_null() { None } else { Some(window_mut(c.window)?) };
                (did, window)
            }
            None => (None, None),
        };
        if window.is_some() && out.len() < input.len() {
            return store_len(Err(Error::BufferTooSmall { needed: input.len() }), out_len);
        }
        let opened = open_envelope(input, sdoc, &recipient.x, policy_of(checks, did, window)?).map_err(Error::from)?;
        let Delivery::Fresh(body) = opened.delivery else {
            return Err(Fail::Code(concordia_result::CONCORDIA_AIP_REPLAY));
        };
        if let Some(out) = opt_out(header) {
            *out = header_of(input, &opened.header, opened.created)?;
        }
        copy_out(&body, out, out_len)
    })
}

// --------------------------------------------------------------------------- credentials

/// Adds an `eddsa-jcs-2022` Data Integrity proof to `credential_json` (an object without
/// `proof` whose `issuer` is `kp`'s `did:key`, see concordia_aip_did_key) and writes the
/// secured credential, canonical JSON, into `out`. `created` (NULL `ptr`: none) is an RFC
/// 3339 time for the proof. (A size query signs once to learn the length.)
///
/// Returns CONCORDIA_SCHEMA when the credential is not an object, already has a proof or
/// has no issuer; CONCORDIA_INVALID_ARGUMENT when the issuer is not the key's `did:key`.
///
/// # Safety
/// `kp` must be a live key pair; `credential_json` valid for `credential_len` bytes;
/// `created.ptr` NULL or valid for `created.len`; `out` valid for `out_cap` bytes of
/// writes; `out_len` for one `size_t`.
#[no_mangle]
pub extern "C" fn concordia_aip_vc_issue(
    kp: *const concordia_keypair,
    credential_json: *const u8,
    credential_len: usize,
    created: concordia_str,
    out: *mut u8,
    out_cap: usize,
    out_len: *mut usize,
) -> concordia_result {
    guard(|| {
        let out_len = out_ref(out_len)?;
        *out_len = 0;
        let kp = keypair_ref(kp)?;
        if credential_json.is_null() {
            return Err(NULL);
        }
        let input = bytes_in(credential_json, credential_len)?;
        let created = created.opt_text()?;
        let out = bytes_out(out, out_cap)?;
        let mut nodes = Nodes::new();
        let doc = nodes.parse(input)?;
        // The core writes the proof at the end of the buffer first: it needs more room than
        // the result, so the result is written into owned memory and copied out.
        let secured = concordia_host::write_vec(input.len() * 2 + 1024, |buf| vc::issue(doc.root(), kp, created, buf))?;
        copy_out(&secured, out, out_len)
    })
}

/// When concordia_aip_vc_verify checks the validity period and the proof's
/// `created`/`expires` (the `time` member of concordia_aip_vc_options).
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum concordia_aip_vc_time {
    /// At the OS clock (the default: a zeroed or NULL options struct).
    CONCORDIA_AIP_VC_TIME_CLOCK = 0,
    /// At `now` (Unix seconds).
    CONCORDIA_AIP_VC_TIME_AT = 1,
    /// Not checked (only when asked for by name). A proof that expires before it was
    /// created is refused in every mode.
    CONCORDIA_AIP_VC_TIME_UNCHECKED = 2,
}

/// What concordia_aip_vc_verify checks besides the proof. A zeroed struct (or NULL) is the
/// default policy: the time at the OS clock, any issuer, nothing revoked, no domain or
/// challenge required.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct concordia_aip_vc_options {
    /// A concordia_aip_vc_time value (any other is CONCORDIA_INVALID_ARGUMENT).
    pub time: u32,
    /// Unix seconds (read only with CONCORDIA_AIP_VC_TIME_AT).
    pub now: i64,
    /// Non-zero: the issuer must be one of `anchors` (0: any issuer whose proof verifies).
    pub check_anchors: u8,
    /// Trusted issuer DIDs (`anchor_count` of them; NULL when 0).
    pub anchors: *const concordia_str,
    /// Number of `anchors`.
    pub anchor_count: usize,
    /// Revoked credential `id`s (`revoked_count` of them; NULL when 0), compared with the
    /// decoded `id`.
    pub revoked: *const concordia_str,
    /// Number of `revoked`.
    pub revoked_count: usize,
    /// The `domain` the proof must carry (NULL `ptr`: not required).
    pub domain: concordia_str,
    /// The `challenge` the proof must carry (NULL `ptr`: not required).
    pub challenge: concordia_str,
}

/// What concordia_aip_vc_verify established.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct concordia_aip_vc_verified {
    /// The issuer DID (a `did:key`), in the credential text.
    pub issuer: concordia_span,
    /// 1 when `credentialSubject.id` is present (written with escapes it is refused,
    /// CONCORDIA_SCHEMA).
    pub has_subject: u8,
    /// `credentialSubject.id`, in the credential text.
    pub subject: concordia_span,
    /// The Ed25519 public key that signed.
    pub public_key: [u8; 32],
}

/// `count` texts from an array of them.
fn texts<'a>(list: *const concordia_str, count: usize) -> FfiResult<Vec<&'a str>> {
    let raw = slice_in(list, count)?;
    raw.iter().map(|s| s.text()).collect()
}

/// Verifies the `eddsa-jcs-2022` proof of a credential (its `did:key` resolved locally),
/// that the signer is the `issuer`, and the `options` (NULL: the default policy, with the
/// time checked at the OS clock), as every surface's credential verify does (one
/// composition, `concordia_host::vc::verify_credential`). `*verified` (NULL: not wanted)
/// receives the issuer, subject and key.
///
/// Returns CONCORDIA_SIGNATURE when the proof does not verify (any change to any member),
/// CONCORDIA_BINDING when the signer is not the issuer, the issuer is not an anchor, the
/// credential is revoked (its `id` compared decoded) or a required domain/challenge is
/// missing or different, CONCORDIA_TEMPORAL outside the validity period, for a proof past
/// its `expires`, created more than `MAX_FUTURE_SKEW` after the time, or expiring before it was
/// created, CONCORDIA_SCHEMA or CONCORDIA_ENCODING for a malformed credential or proof
/// (an `issuer`, `credentialSubject.id`, `verificationMethod` or `proofValue` written
/// with JSON escapes included), CONCORDIA_INVALID_ARGUMENT for an unknown `time`.
///
/// # Safety
/// `credential_json` must be valid for `credential_len` bytes; `options` NULL or valid for
/// reads with arrays valid for their counts and texts for their lengths; `verified` NULL
/// or valid for one write.
#[no_mangle]
pub extern "C" fn concordia_aip_vc_verify(
    credential_json: *const u8,
    credential_len: usize,
    options: *const concordia_aip_vc_options,
    verified: *mut concordia_aip_vc_verified,
) -> concordia_result {
    guard(|| {
        let mut verified = opt_out(verified);
        if let Some(v) = verified.as_mut() {
            **v = concordia_aip_vc_verified::default();
        }
        if credential_json.is_null() {
            return Err(NULL);
        }
        let input = bytes_in(credential_json, credential_len)?;
        let o = opt_in(options);
        let (anchors, revoked, domain, challenge) = match o {
            Some(o) => (
                texts(o.anchors, o.anchor_count)?,
                texts(o.revoked, o.revoked_count)?,
                o.domain.opt_text()?,
                o.challenge.opt_text()?,
            ),
            None => (Vec::new(), Vec::new(), None, None),
        };
        let time = match o.map_or(0, |o| o.time) {
            0 => VcTime::Clock,
            1 => VcTime::At(Timestamp::from_unix(o.map_or(0, |o| o.now))),
            2 => VcTime::Unchecked,
            _ => return Err(Fail::Core(Error::InvalidArgument("unknown concordia_aip_vc_time"))),
        };
        let policy = VcPolicy {
            anchors: o.filter(|o| o.check_anchors != 0).map(|_| anchors.as_slice()),
            revoked: &revoked,
            domain,
            challenge,
            time,
        };
        let mut nodes = Nodes::new();
        let v = verify_credential(input, &mut nodes, &policy)?;
        if let Some(out) = verified {
            *out = concordia_aip_vc_verified {
                issuer: span(input, v.issuer)?,
                has_subject: v.subject.is_some().into(),
                subject: v.subject.map(|s| span(input, s)).transpose()?.unwrap_or_default(),
                public_key: *v.key.as_bytes(),
            };
        }
        Ok(())
    })
}

// --------------------------------------------------------------------------- trust

/// One verified credential of the trust graph: `issuer` vouches for `subject`.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct concordia_aip_edge {
    /// Issuer DID.
    pub issuer: concordia_str,
    /// Subject DID.
    pub subject: concordia_str,
    /// Non-zero when the credential has been revoked.
    pub revoked: u8,
}

/// An interaction outcome for the trust score.
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum concordia_aip_trust_event {
    /// A successful, valid interaction (closes 5% of the gap to the ceiling).
    CONCORDIA_AIP_TRUST_SUCCESS = 0,
    /// A failed interaction or a validation error (halves the score).
    CONCORDIA_AIP_TRUST_FAILURE = 1,
    /// A credential of the agent was revoked (zeroes the score).
    CONCORDIA_AIP_TRUST_REVOCATION = 2,
}

fn event_in(v: u32) -> FfiResult<trust::Event> {
    match v {
        0 => Ok(trust::Event::Success),
        1 => Ok(trust::Event::Failure),
        2 => Ok(trust::Event::Revocation),
        _ => Err(Fail::Core(Error::InvalidArgument("unknown trust event"))),
    }
}

/// Writes the credential ceiling of `subject` into `*out`: 1 for an anchor, else the best
/// over non-revoked credential paths from an anchor (at most 4 hops) of 0.5 per hop; 0
/// without a path.
///
/// Returns CONCORDIA_LIMIT_CAPACITY for more than 256 edges.
///
/// # Safety
/// `subject` and every text valid for its length; `edges` valid for `edge_count` entries;
/// `anchors` for `anchor_count` texts; `out` for one write.
#[no_mangle]
pub extern "C" fn concordia_aip_trust_ceiling(
    subject: concordia_str,
    edges: *const concordia_aip_edge,
    edge_count: usize,
    anchors: *const concordia_str,
    anchor_count: usize,
    out: *mut f64,
) -> concordia_result {
    guard(|| {
        let out = out_ref(out)?;
        *out = 0.0;
        let subject = subject.text()?;
        let raw = slice_in(edges, edge_count)?;
        let edges = raw
            .iter()
            .map(|e| -> FfiResult<trust::Edge<'_>> {
                let (issuer, subject) = (e.issuer.text()?, e.subject.text()?);
                Ok(trust::Edge { issuer, subject, revoked: e.revoked != 0 })
            })
            .collect::<FfiResult<Vec<_>>>()?;
        let anchors = texts(anchors, anchor_count)?;
        *out = trust::credential_ceiling(subject, &edges, &anchors)?;
        Ok(())
    })
}

/// Applies one event (a concordia_aip_trust_event) to a trust `score` under `ceiling` and
/// writes the new score into `*out`.
///
/// # Safety
/// `out` must be valid for one write.
#[no_mangle]
pub extern "C" fn concordia_aip_trust_update(score: f64, ceiling: f64, event: u32, out: *mut f64) -> concordia_result {
    guard(|| {
        let out = out_ref(out)?;
        *out = trust::update(score, ceiling, event_in(event)?);
        Ok(())
    })
}

/// Writes the trust score of a history of `event_count` events (concordia_aip_trust_event
/// values), folded from 0 under `ceiling`, into `*out`.
///
/// # Safety
/// `events` must be valid for `event_count` reads; `out` for one write.
#[no_mangle]
pub extern "C" fn concordia_aip_trust_score(
    ceiling: f64,
    events: *const u32,
    event_count: usize,
    out: *mut f64,
) -> concordia_result {
    guard(|| {
        let out = out_ref(out)?;
        *out = 0.0;
        let raw = slice_in(events, event_count)?;
        let history = raw.iter().map(|&e| event_in(e)).collect::<FfiResult<Vec<_>>>()?;
        *out = trust::score(ceiling, history);
        Ok(())
    })
}

fn rank_in(r: u32) -> Option<u32> {
    (r != 0).then_some(r)
}

/// Writes the Reciprocal Rank Fusion score `1 / (60 + semantic_rank) + 1 / (60 +
/// fts_rank)` into `*out`; ranks start at 1, and 0 means absent from that list (it
/// contributes 0).
///
/// # Safety
/// `out` must be valid for one write.
#[no_mangle]
pub extern "C" fn concordia_aip_rrf(semantic_rank: u32, fts_rank: u32, out: *mut f64) -> concordia_result {
    guard(|| {
        let out = out_ref(out)?;
        *out = trust::rrf(rank_in(semantic_rank), rank_in(fts_rank))?;
        Ok(())
    })
}

/// Writes the final score `rrf * (1 + 0.3 * trust_score)` into `*out`.
///
/// Returns CONCORDIA_INVALID_ARGUMENT for a `trust_score` outside [0, 1] or a bad `rrf`.
///
/// # Safety
/// `out` must be valid for one write.
#[no_mangle]
pub extern "C" fn concordia_aip_final_score(rrf: f64, trust_score: f64, out: *mut f64) -> concordia_result {
    guard(|| {
        let out = out_ref(out)?;
        *out = trust::final_score(rrf, trust_score)?;
        Ok(())
    })
}

/// One search result to rank.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct concordia_aip_candidate {
    /// Rank in the semantic list, from 1; 0 when absent there.
    pub semantic_rank: u32,
    /// Rank in the full-text list, from 1; 0 when absent there.
    pub fts_rank: u32,
    /// Trust score in [0, 1].
    pub trust_score: f64,
}

/// A ranked result.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct concordia_aip_ranked {
    /// Position of the candidate in the input array.
    pub index: usize,
    /// Its Reciprocal Rank Fusion score.
    pub rrf: f64,
    /// Its final score.
    pub final_score: f64,
}

/// Scores the `count` `candidates` and writes them ordered by final score, descending
/// (ties: higher RRF, then input order), into `out` (`out_cap` entries). `*out_len` is the
/// number written; CONCORDIA_BUFFER_TOO_SMALL with `*out_len` = `count` when `out_cap` is
/// smaller.
///
/// # Safety
/// `candidates` must be valid for `count` reads; `out` for `out_cap` writes; `out_len` for
/// one `size_t`.
#[no_mangle]
pub extern "C" fn concordia_aip_rank(
    candidates: *const concordia_aip_candidate,
    count: usize,
    out: *mut concordia_aip_ranked,
    out_cap: usize,
    out_len: *mut usize,
) -> concordia_result {
    guard(|| {
        let out_len = out_ref(out_len)?;
        *out_len = 0;
        let raw = slice_in(candidates, count)?;
        if out.is_null() && out_cap != 0 {
            return Err(NULL);
        }
        if out_cap < count {
            *out_len = count;
            return Err(Fail::Core(Error::BufferTooSmall { needed: count }));
        }
        let cands: Vec<trust::Candidate> = raw
            .iter()
            .map(|c| trust::Candidate {
                semantic_rank: rank_in(c.semantic_rank),
                fts_rank: rank_in(c.fts_rank),
                trust_score: c.trust_score,
            })
            .collect();
        let mut ranked = vec![trust::Ranked::default(); count];
        let n = trust::rank(&cands, &mut ranked)?;
        if n == 0 {
            return Ok(());
        }
        // n > 0: count > 0 and out_cap >= count >= n, and a NULL `out` with a capacity was
        // refused above.
        let dst = slice_out(out, n)?;
        for (d, r) in dst.iter_mut().zip(&ranked) {
            *d = concordia_aip_ranked { index: r.index, rrf: r.rrf, final_score: r.final_score };
        }
        *out_len = n;
        Ok(())
    })
}
