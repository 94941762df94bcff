//! The negotiation session state machine (SPEC §5) as an opaque object.

use concordia_core::session::{Role, State, Timing};
use concordia_core::time::Timestamp;
use concordia_core::Error;
use concordia_host::session::SessionNodes;

use crate::boundary::{
    bytes_in, bytes_out, copy_out, guard, handle_free, handle_mut, handle_new, handle_ref, opt_in, opt_out, out_ref,
    Fail, FfiResult, NULL,
};
use crate::keys::public_key_in;
use crate::{concordia_result, concordia_str};

/// Parties a session holds (the host session type's; written out for cbindgen).
pub const CONCORDIA_SESSION_MAX_PARTIES: usize = 8;
/// Numeric terms remembered per party for concession tracking.
pub const CONCORDIA_SESSION_MAX_TERMS: usize = 32;
const _: () = assert!(
    CONCORDIA_SESSION_MAX_PARTIES == concordia_host::SESSION_MAX_PARTIES
        && CONCORDIA_SESSION_MAX_TERMS == concordia_host::SESSION_MAX_TERMS
);

/// The core session type behind the C object: the one every host uses.
type CoreSession = concordia_host::HostSession;

/// A negotiation session (opaque): state, counters, transcript tip and hash, up to 8
/// parties with their behaviour summaries. Fixed size (a few kilobytes) whatever the
/// number of messages. Released with concordia_session_free.
///
/// Thread safety: not synchronized; use from one thread at a time (it may move between
/// threads).
pub struct concordia_session {
    pub(crate) session: CoreSession,
    nodes: SessionNodes,
}

/// The six session states of SPEC §5.1.
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum concordia_state {
    /// `negotiate.open` sent.
    CONCORDIA_STATE_PROPOSED = 0,
    /// Offers flow.
    CONCORDIA_STATE_ACTIVE = 1,
    /// Terms accepted (terminal).
    CONCORDIA_STATE_AGREED = 2,
    /// Declined, rejected or withdrawn (terminal).
    CONCORDIA_STATE_REJECTED = 3,
    /// The TTL elapsed (terminal).
    CONCORDIA_STATE_EXPIRED = 4,
    /// Rejected or expired and flagged reactivatable.
    CONCORDIA_STATE_DORMANT = 5,
}

/// A party's role, for concordia_session_add_party.
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum concordia_role {
    /// `initiator`.
    CONCORDIA_ROLE_INITIATOR = 0,
    /// `responder`.
    CONCORDIA_ROLE_RESPONDER = 1,
    /// `mediator`.
    CONCORDIA_ROLE_MEDIATOR = 2,
    /// `witness`.
    CONCORDIA_ROLE_WITNESS = 3,
}

/// Timing parameters of SPEC §5.3, in seconds.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct concordia_timing {
    /// Maximum duration of the session (default: the core's `Timing::default()`).
    pub session_ttl: u32,
    /// Maximum time to answer an offer (default: the core's `Timing::default()`).
    pub offer_ttl: u32,
    /// Maximum number of offers and counters (default: the core's `Timing::default()`).
    pub max_rounds: u32,
}

// The roles' values are their index in the core's `Role::ALL`.
const _: () = assert!(
    matches!(Role::ALL[concordia_role::CONCORDIA_ROLE_INITIATOR as usize], Role::Initiator)
        && matches!(Role::ALL[concordia_role::CONCORDIA_ROLE_RESPONDER as usize], Role::Responder)
        && matches!(Role::ALL[concordia_role::CONCORDIA_ROLE_MEDIATOR as usize], Role::Mediator)
        && matches!(Role::ALL[concordia_role::CONCORDIA_ROLE_WITNESS as usize], Role::Witness)
);

fn state_code(s: State) -> concordia_state {
    match s {
        State::Proposed => concordia_state::CONCORDIA_STATE_PROPOSED,
        State::Active => concordia_state::CONCORDIA_STATE_ACTIVE,
        State::Agreed => concordia_state::CONCORDIA_STATE_AGREED,
        State::Rejected => concordia_state::CONCORDIA_STATE_REJECTED,
        State::Expired => concordia_state::CONCORDIA_STATE_EXPIRED,
        State::Dormant => concordia_state::CONCORDIA_STATE_DORMANT,
    }
}

/// A caller's session handle, to change.
pub(crate) fn session_mut<'a>(s: *mut concordia_session) -> FfiResult<&'a mut concordia_session> {
    handle_mut(s)
}

/// A caller's session handle, to read.
pub(crate) fn session_ref<'a>(s: *const concordia_session) -> FfiResult<&'a concordia_session> {
    handle_ref(s)
}

/// Writes the default timing (the core's `Timing::default()`, docs/limits.md) into `*out`.
///
/// # Safety
/// `out` must be valid for one `concordia_timing` write.
#[no_mangle]
pub extern "C" fn concordia_timing_default(out: *mut concordia_timing) -> concordia_result {
    guard(|| {
        let out = out_ref(out)?;
        let t = Timing::default();
        *out = concordia_timing { session_ttl: t.session_ttl, offer_ttl: t.offer_ttl, max_rounds: t.max_rounds };
        Ok(())
    })
}

/// Creates a session in PROPOSED with identifier `id`, created at `created_at` (Unix
/// seconds; the library reads no clock), with `timing` (NULL: the defaults). The object is
/// stored in `*out` (NULL on failure) and released with concordia_session_free.
///
/// Returns CONCORDIA_INVALID_ARGUMENT for an id longer than 128 bytes or not UTF-8.
///
/// # Safety
/// `id.ptr` must be valid for `id.len` bytes; `timing` NULL or valid for reads; `out`
/// valid for one pointer write.
#[no_mangle]
pub extern "C" fn concordia_session_new(
    id: concordia_str,
    created_at: i64,
    timing: *const concordia_timing,
    out: *mut *mut concordia_session,
) -> concordia_result {
    guard(|| {
        let out = out_ref(out)?;
        *out = std::ptr::null_mut();
        if id.ptr.is_null() {
            return Err(NULL);
        }
        let id = id.text()?;
        let timing = match opt_in(timing) {
            Some(t) => Timing { session_ttl: t.session_ttl, offer_ttl: t.offer_ttl, max_rounds: t.max_rounds },
            None => Timing::default(),
        };
        let session = CoreSession::new(id, timing, Timestamp::from_unix(created_at))?;
        handle_new(concordia_session { session, nodes: SessionNodes::default() }, out);
        Ok(())
    })
}

/// Registers a party with its role (a concordia_role value) and, optionally, its 32-byte
/// public key (`public_key` NULL: none), which concordia_session_apply uses when it is
/// given no `keys_json`. Registering an agent again updates its role and key.
///
/// Returns CONCORDIA_LIMIT_CAPACITY when 8 parties are registered,
/// CONCORDIA_INVALID_ARGUMENT for an unknown role, an id longer than 128 bytes, or a key
/// that is not 32 bytes.
///
/// # Safety
/// `s` must be a live session; `agent_id.ptr` valid for `agent_id.len` bytes; a non-NULL
/// `public_key` valid for `public_key_len` bytes.
#[no_mangle]
pub extern "C" fn concordia_session_add_party(
    s: *mut concordia_session,
    agent_id: concordia_str,
    role: u32,
    public_key: *const u8,
    public_key_len: usize,
) -> concordia_result {
    guard(|| {
        let s = session_mut(s)?;
        if agent_id.ptr.is_null() {
            return Err(NULL);
        }
        let agent_id = agent_id.text()?;
        let role = usize::try_from(role).ok().and_then(|r| Role::ALL.get(r).copied());
        let role = role.ok_or(Fail::Core(Error::InvalidArgument("unknown role")))?;
        let key = if public_key.is_null() { None } else { Some(public_key_in(public_key, public_key_len)?) };
        s.session.add_party(agent_id, role, key)?;
        Ok(())
    })
}

/// Applies one signed message (its JSON text) at time `now` (Unix seconds) and writes the
/// new state into `*state` (NULL: not wanted).
///
/// Keys: `keys_json` (a JSON object of `agent_id` to base64url key), when given, is the
/// only source of the sender's key, as the reference SDK's resolver: a sender it does not
/// map is refused (CONCORDIA_UNKNOWN_KEY) even if registered with a key, and the key it
/// maps replaces the registered one (a rotated key). With `keys_json` NULL (length 0), the
/// keys registered with `concordia_session_add_party` are used. The checks are the core's,
/// in the reference SDK's order; a message that fails any leaves the session
/// exactly as it was.
///
/// Returns CONCORDIA_SCHEMA, CONCORDIA_UNKNOWN_KEY, CONCORDIA_SIGNATURE,
/// CONCORDIA_BINDING (`session_id`, `prev_hash`), CONCORDIA_TEMPORAL (session or offer
/// expired), CONCORDIA_TRANSITION, CONCORDIA_MAX_ROUNDS, or a 2xx code.
///
/// # Safety
/// `s` must be a live session; `message` valid for `message_len` bytes; `keys_json` for
/// `keys_len` bytes; `state` NULL or valid for one write.
#[no_mangle]
pub extern "C" fn concordia_session_apply(
    s: *mut concordia_session,
    message: *const u8,
    message_len: usize,
    now: i64,
    keys_json: *const u8,
    keys_len: usize,
    state: *mut concordia_state,
) -> concordia_result {
    guard(|| {
        let s = session_mut(s)?;
        if message.is_null() {
            return Err(NULL);
        }
        let message = bytes_in(message, message_len)?;
        let keys = bytes_in(keys_json, keys_len)?;
        let keys = (!keys_json.is_null()).then_some(keys);
        let next = s.nodes.apply_text(&mut s.session, message, keys, Timestamp::from_unix(now))?;
        if let Some(st) = opt_out(state) {
            *st = state_code(next);
        }
        Ok(())
    })
}

/// Writes the session's current state into `*state`.
///
/// # Safety
/// `s` must be a live session; `state` valid for one write.
#[no_mangle]
pub extern "C" fn concordia_session_state(
    s: *const concordia_session,
    state: *mut concordia_state,
) -> concordia_result {
    guard(|| {
        let st = out_ref(state)?;
        let s = session_ref(s)?;
        *st = state_code(s.session.state());
        Ok(())
    })
}

/// Writes the number of offers and counters (`*rounds`) and of messages (`*messages`)
/// applied so far. Either pointer may be NULL when not wanted.
///
/// # Safety
/// `s` must be a live session; non-NULL outputs valid for one write each.
#[no_mangle]
pub extern "C" fn concordia_session_counts(
    s: *const concordia_session,
    rounds: *mut u32,
    messages: *mut u64,
) -> concordia_result {
    guard(|| {
        let s = session_ref(s)?;
        if let Some(r) = opt_out(rounds) {
            *r = s.session.round_count();
        }
        if let Some(m) = opt_out(messages) {
            *m = s.session.message_count();
        }
        Ok(())
    })
}

/// Writes the session's tip, `sha256:<hex>` (71 bytes): the hash of the last applied
/// message, which is the next message's `prev_hash` and the attestation's `chain_head`
/// (the genesis hash before the first message).
///
/// # Safety
/// `s` must be a live session; `out` valid for `out_cap` bytes; `out_len` for one write.
#[no_mangle]
pub extern "C" fn concordia_session_tip(
    s: *const concordia_session,
    out: *mut u8,
    out_cap: usize,
    out_len: *mut usize,
) -> concordia_result {
    guard(|| {
        let out_len = out_ref(out_len)?;
        *out_len = 0;
        let s = session_ref(s)?;
        let out = bytes_out(out, out_cap)?;
        copy_out(s.session.tip().to_prefixed().as_bytes(), out, out_len)
    })
}

/// Releases a session. NULL is ignored.
///
/// # Safety
/// `s` must be NULL or a session from this library that has not been freed.
#[no_mangle]
pub extern "C" fn concordia_session_free(s: *mut concordia_session) {
    handle_free(s);
}
