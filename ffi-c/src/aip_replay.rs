//! The AIP replay window (`concordia_core::aip::replay`) as an opaque object: duplicate
//! detection for at-least-once delivery, with snapshot and restore across restarts.
//!
//! The rules are the core's (messages remembered for `WINDOW` by sender and id;
//! `created_at` at most `MAX_FUTURE_SKEW` ahead of `now` and at most `WINDOW` old, values in
//! docs/limits.md; a refused check changes nothing, the
//! clock included; a snapshot that is missing or refused means a cold start; snapshots
//! optionally sealed with HMAC-SHA256 and a generation). This file converts arguments and
//! owns the window's storage (on the heap, through concordia-host).

use concordia_core::aip::envelope;
use concordia_core::aip::replay::{replay_key, Integrity, Verdict};
use concordia_core::time::Timestamp;
use concordia_host::replay::{new_window, HostReplayWindow};

use crate::boundary::{
    bytes_in, bytes_out, guard, handle_free, handle_mut, handle_new, handle_ref, opt_out, out_ref, store_len, FfiResult,
};
use crate::{concordia_result, concordia_str};

/// The most ids a window may be created for (16,777,216: 768 MiB of slots).
pub const CONCORDIA_AIP_REPLAY_MAX_CAPACITY: usize = 16_777_216;
// cbindgen needs the literal; the rule is the host's.
const _: () = assert!(CONCORDIA_AIP_REPLAY_MAX_CAPACITY == concordia_host::replay::MAX_CAPACITY);

/// A replay window: remembers up to its capacity of messages (sender and id) for `WINDOW`
/// (docs/limits.md).
/// Created with
/// concordia_aip_replay_window_new, released with concordia_aip_replay_window_free.
///
/// Thread safety: not synchronized; use from one thread at a time (it may move between
/// threads).
pub struct concordia_aip_replay_window {
    window: HostReplayWindow,
}

/// The outcome of an accepted replay check.
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum concordia_aip_verdict {
    /// First sighting: process the message.
    CONCORDIA_AIP_FRESH = 0,
    /// Already seen inside the window: acknowledge, do not process again.
    CONCORDIA_AIP_DUPLICATE = 1,
}

/// A caller's window handle, to change.
pub(crate) fn window_mut<'a>(w: *mut concordia_aip_replay_window) -> FfiResult<&'a mut HostReplayWindow> {
    handle_mut(w).map(|w| &mut w.window)
}

/// A caller's window handle, to read.
fn window_ref<'a>(w: *const concordia_aip_replay_window) -> FfiResult<&'a HostReplayWindow> {
    handle_ref(w).map(|w| &w.window)
}

/// Creates an empty window for `capacity` ids (1 to CONCORDIA_AIP_REPLAY_MAX_CAPACITY; 48
/// bytes each), stored in `*out` (NULL on failure).
///
/// Returns CONCORDIA_INVALID_ARGUMENT for a capacity out of range, CONCORDIA_LIMIT_MEMORY
/// when it cannot be allocated.
///
/// # Safety
/// `out` must be valid for one pointer write.
#[no_mangle]
pub extern "C" fn concordia_aip_replay_window_new(
    capacity: usize,
    out: *mut *mut concordia_aip_replay_window,
) -> concordia_result {
    guard(|| {
        let out = out_ref(out)?;
        *out = std::ptr::null_mut();
        let window = new_window(capacity)?;
        handle_new(concordia_aip_replay_window { window }, out);
        Ok(())
    })
}

/// Releases a window (NULL is ignored).
///
/// # Safety
/// `w` must be NULL or a window from concordia_aip_replay_window_new, not used afterwards.
#[no_mangle]
pub extern "C" fn concordia_aip_replay_window_free(w: *mut concordia_aip_replay_window) {
    handle_free(w);
}

/// Checks one delivery of the message `id` (a lowercase UUID v4) from the sender `from`
/// (its DID: the envelope's signed `from`) created at `created_at` (RFC 3339) against
/// `now` (Unix seconds) and writes the verdict: FRESH (remembered now) or DUPLICATE. Only
/// a copy from the same sender is a duplicate: another sender's envelope with the same id
/// is another message. A `now` earlier than one already seen counts as the latest seen.
///
/// Returns CONCORDIA_TEMPORAL when `created_at` is more than `MAX_FUTURE_SKEW` ahead of
/// `now`, more than `WINDOW` old, or not after a cold-start guard still in force;
/// CONCORDIA_LIMIT_CAPACITY when the message is new and every slot holds one still inside
/// the window; CONCORDIA_SCHEMA for an id or time that does not parse. A failed check
/// leaves the window unchanged, its clock included.
///
/// # Safety
/// `w` must be a live window; `from`, `id` and `created_at` valid for their lengths; `out`
/// for one write.
#[no_mangle]
pub extern "C" fn concordia_aip_replay_window_check(
    w: *mut concordia_aip_replay_window,
    from: concordia_str,
    id: concordia_str,
    created_at: concordia_str,
    now: i64,
    out: *mut concordia_aip_verdict,
) -> concordia_result {
    guard(|| {
        let out = out_ref(out)?;
        let w = window_mut(w)?;
        let from = from.required_text()?;
        let id = envelope::parse_uuid_v4(id.required_text()?)?;
        let created = envelope::parse_rfc3339(created_at.required_text()?)?;
        *out = match w.check(replay_key(from, id), created, Timestamp::from_unix(now))? {
            Verdict::Fresh => concordia_aip_verdict::CONCORDIA_AIP_FRESH,
            Verdict::Duplicate => concordia_aip_verdict::CONCORDIA_AIP_DUPLICATE,
        };
        Ok(())
    })
}

/// Writes 1 to `*out` when the message `id` (a lowercase UUID v4) from `from` (the
/// sender's DID) is remembered, else 0.
///
/// # Safety
/// `w` must be a live window; `from` and `id` valid for their lengths; `out` for one write.
#[no_mangle]
pub extern "C" fn concordia_aip_replay_window_contains(
    w: *const concordia_aip_replay_window,
    from: concordia_str,
    id: concordia_str,
    out: *mut u8,
) -> concordia_result {
    guard(|| {
        let out = out_ref(out)?;
        let w = window_ref(w)?;
        let from = from.required_text()?;
        let id = envelope::parse_uuid_v4(id.required_text()?)?;
        *out = u8::from(w.contains(replay_key(from, id)));
        Ok(())
    })
}

/// Writes the number of ids remembered and the capacity (either pointer may be NULL).
///
/// # Safety
/// `w` must be a live window; `len` and `capacity` NULL or valid for one write.
#[no_mangle]
pub extern "C" fn concordia_aip_replay_window_len(
    w: *const concordia_aip_replay_window,
    len: *mut usize,
    capacity: *mut usize,
) -> concordia_result {
    guard(|| {
        let w = window_ref(w)?;
        if let Some(l) = opt_out(len) {
            *l = w.len();
        }
        if let Some(c) = opt_out(capacity) {
            *c = w.capacity();
        }
        Ok(())
    })
}

/// The integrity arguments of a sealed snapshot: `key` NULL with `key_len` 0 is no MAC;
/// `owner` may be NULL only with `owner_len` 0.
fn integrity<'a>(
    key: *const u8,
    key_len: usize,
    owner: *const u8,
    owner_len: usize,
    min_generation: u64,
) -> FfiResult<Integrity<'a>> {
    let mac_key = if key.is_null() && key_len == 0 { None } else { Some(bytes_in(key, key_len)?) };
    let owner = bytes_in(owner, owner_len)?;
    Ok(Integrity { mac_key, owner, min_generation })
}

/// Writes the window's state (messages, their `created_at`, its clock, a cold-start guard,
/// the next generation) into `out` as versioned, checksummed bytes: 76 bytes plus 28 per
/// message remembered. `out = NULL, out_cap = 0` queries the length
/// (CONCORDIA_BUFFER_TOO_SMALL with `*out_len`). Every snapshot written is one generation
/// more (concordia_aip_replay_window_generation). Save it before acting on a FRESH
/// verdict, and give it to concordia_aip_replay_window_restore after a restart. The
/// checksum detects accidents, not tampering: see concordia_aip_replay_window_snapshot_sealed.
///
/// # Safety
/// `w` must be a live window; `out` valid for `out_cap` bytes of writes; `out_len` for one
/// write.
#[no_mangle]
pub extern "C" fn concordia_aip_replay_window_snapshot(
    w: *mut concordia_aip_replay_window,
    out: *mut u8,
    out_cap: usize,
    out_len: *mut usize,
) -> concordia_result {
    concordia_aip_replay_window_snapshot_sealed(w, std::ptr::null(), 0, std::ptr::null(), 0, out, out_cap, out_len)
}

/// As concordia_aip_replay_window_snapshot, sealed with HMAC-SHA256 under `mac_key`
/// (`mac_key_len` >= 16 bytes; keep it outside the snapshot's file) and bound to `owner`
/// (e.g. the recipient's DID; may be empty), so an edited snapshot, another key's or
/// another owner's does not restore. `mac_key = NULL, mac_key_len = 0`: the plain checksum
/// (then `owner_len` must be 0). CONCORDIA_INVALID_ARGUMENT for a short key or an owner
/// without a key.
///
/// # Safety
/// `w` must be a live window; `mac_key` and `owner` valid for their lengths (NULL only
/// with 0); `out` valid for `out_cap` bytes of writes; `out_len` for one write.
#[allow(clippy::too_many_arguments)]
#[no_mangle]
pub extern "C" fn concordia_aip_replay_window_snapshot_sealed(
    w: *mut concordia_aip_replay_window,
    mac_key: *const u8,
    mac_key_len: usize,
    owner: *const u8,
    owner_len: usize,
    out: *mut u8,
    out_cap: usize,
    out_len: *mut usize,
) -> concordia_result {
    guard(|| {
        let out_len = out_ref(out_len)?;
        *out_len = 0;
        let w = window_mut(w)?;
        let i = integrity(mac_key, mac_key_len, owner, owner_len, 0)?;
        let out = bytes_out(out, out_cap)?;
        store_len(w.snapshot_sealed(out, &i), out_len)
    })
}

/// Writes the generation of the last snapshot the window wrote or restored (0 before any).
/// Keep the value a snapshot was written with to pass as `min_generation` to
/// concordia_aip_replay_window_restore_sealed.
///
/// # Safety
/// `w` must be a live window; `out` valid for one write.
#[no_mangle]
pub extern "C" fn concordia_aip_replay_window_generation(
    w: *const concordia_aip_replay_window,
    out: *mut u64,
) -> concordia_result {
    guard(|| {
        let out = out_ref(out)?;
        *out = window_ref(w)?.generation();
        Ok(())
    })
}

/// Replaces the window's state with a snapshot from concordia_aip_replay_window_snapshot.
///
/// Fails closed: bytes that are truncated, corrupt or of another version, version 1
/// included (CONCORDIA_ENCODING), or hold more messages than the capacity
/// (CONCORDIA_LIMIT_CAPACITY), or are sealed with a MAC (CONCORDIA_BINDING), are refused,
/// and the window is then emptied and cold-started at `now` (Unix seconds; see
/// concordia_aip_replay_window_cold_start). A snapshot of a window that never accepted
/// anything restores as a cold start at `now`; otherwise `now` is not used on success.
///
/// # Safety
/// `w` must be a live window; `snapshot` valid for `snapshot_len` bytes (NULL only with
/// 0, which is refused as truncated).
#[no_mangle]
pub extern "C" fn concordia_aip_replay_window_restore(
    w: *mut concordia_aip_replay_window,
    snapshot: *const u8,
    snapshot_len: usize,
    now: i64,
) -> concordia_result {
    concordia_aip_replay_window_restore_sealed(
        w,
        snapshot,
        snapshot_len,
        now,
        std::ptr::null(),
        0,
        std::ptr::null(),
        0,
        0,
    )
}

/// As concordia_aip_replay_window_restore, checking the snapshot's HMAC-SHA256 under
/// `mac_key` and `owner` (as concordia_aip_replay_window_snapshot_sealed wrote it) and that
/// its generation is at least `min_generation` (0: any). An edited snapshot, another key's
/// or owner's, one without a MAC, or an older generation (rollback) is refused with
/// CONCORDIA_BINDING, fail closed as above; the window's generation is then at least
/// `min_generation`.
///
/// # Safety
/// As concordia_aip_replay_window_restore; `mac_key` and `owner` valid for their lengths
/// (NULL only with 0).
#[allow(clippy::too_many_arguments)]
#[no_mangle]
pub extern "C" fn concordia_aip_replay_window_restore_sealed(
    w: *mut concordia_aip_replay_window,
    snapshot: *const u8,
    snapshot_len: usize,
    now: i64,
    mac_key: *const u8,
    mac_key_len: usize,
    owner: *const u8,
    owner_len: usize,
    min_generation: u64,
) -> concordia_result {
    guard(|| {
        let w = window_mut(w)?;
        let bytes = bytes_in(snapshot, snapshot_len)?;
        let i = integrity(mac_key, mac_key_len, owner, owner_len, min_generation)?;
        Ok(w.restore_sealed(bytes, Timestamp::from_unix(now), &i)?)
    })
}

/// Forgets every message and starts cold at `now` (Unix seconds; call it when there is no
/// snapshot to restore): envelopes created at or before `now + MAX_FUTURE_SKEW` are
/// refused (CONCORDIA_TEMPORAL) until `now + WINDOW + MAX_FUTURE_SKEW` (docs/limits.md),
/// since the lost window may have accepted them (it took `created_at` up to
/// `MAX_FUTURE_SKEW` ahead of its clock). Genuine envelopes created in that time are
/// refused too: the availability cost of a lost store.
///
/// # Safety
/// `w` must be a live window.
#[no_mangle]
pub extern "C" fn concordia_aip_replay_window_cold_start(
    w: *mut concordia_aip_replay_window,
    now: i64,
) -> concordia_result {
    guard(|| {
        window_mut(w)?.cold_start(Timestamp::from_unix(now));
        Ok(())
    })
}

/// Drops the cold-start guard: the caller explicitly accepts that envelopes created before
/// the cold start may be replays.
///
/// # Safety
/// `w` must be a live window.
#[no_mangle]
pub extern "C" fn concordia_aip_replay_window_end_cold_start(w: *mut concordia_aip_replay_window) -> concordia_result {
    guard(|| {
        window_mut(w)?.end_cold_start();
        Ok(())
    })
}

/// Writes 1 to `*out` while a cold-start guard is in force, else 0.
///
/// # Safety
/// `w` must be a live window; `out` valid for one write.
#[no_mangle]
pub extern "C" fn concordia_aip_replay_window_is_cold_started(
    w: *const concordia_aip_replay_window,
    out: *mut u8,
) -> concordia_result {
    guard(|| {
        let out = out_ref(out)?;
        *out = u8::from(window_ref(w)?.cold_start_guard().is_some());
        Ok(())
    })
}
