//! The streaming transcript verifier (SPEC §9.3): one message at a time, constant state.

use concordia_core::message::TranscriptVerifier;
use concordia_host::{KeyMap as HostKeyMap, Nodes};

use crate::boundary::{bytes_in, bytes_out, copy_out, guard, guard_quiet, out_ref, parse, Fail, FfiResult, NULL};
use crate::concordia_result;

/// A transcript verifier (opaque): checks a hash-chained transcript one message at a time
/// (each message's `prev_hash` links the previous message's hash, the `session_id` stays
/// the same, the sender's key is in the key map, the signature verifies). It owns a copy of
/// the key map and its parse buffers, which grow to the largest message pushed.
///
/// Thread safety: not synchronized; use from one thread at a time (it may move between
/// threads).
pub struct concordia_transcript_verifier {
    keys: HostKeyMap,
    message_nodes: Nodes,
    verifier: TranscriptVerifier,
    finished: bool,
}

/// # Safety
/// A non-NULL `v` must be a live verifier, not used elsewhere during the call.
unsafe fn verifier_mut<'a>(v: *mut concordia_transcript_verifier) -> FfiResult<&'a mut concordia_transcript_verifier> {
    // SAFETY: by this function's contract.
    unsafe { v.as_mut() }.ok_or(NULL)
}

/// Creates a verifier for one transcript. `keys_json` is a JSON object mapping each
/// `agent_id` to its base64url Ed25519 public key (the `keys.json` of `concordia demo`);
/// it is copied. The new object is stored in `*out` (NULL on failure) and is released with
/// concordia_transcript_verifier_free.
///
/// Returns a 2xx code for malformed `keys_json`, CONCORDIA_SCHEMA when it is not an object.
///
/// # Safety
/// `keys_json` must be valid for `keys_len` bytes of reads; `out` for one pointer write.
#[no_mangle]
pub unsafe extern "C" fn concordia_transcript_verifier_new(
    keys_json: *const u8,
    keys_len: usize,
    out: *mut *mut concordia_transcript_verifier,
) -> concordia_result {
    guard(|| {
        // SAFETY: caller contract above.
        let out = unsafe { out_ref(out) }?;
        *out = std::ptr::null_mut();
        if keys_json.is_null() {
            return Err(NULL);
        }
        // SAFETY: caller contract above.
        let keys = unsafe { bytes_in(keys_json, keys_len) }?;
        // Parsed once: every push looks keys up in the map.
        let keys = HostKeyMap::from_json(keys)?;
        let v = concordia_transcript_verifier {
            keys,
            message_nodes: Nodes::new(),
            verifier: TranscriptVerifier::new(),
            finished: false,
        };
        *out = Box::into_raw(Box::new(v));
        Ok(())
    })
}

/// Checks the next message (its JSON text) and, when it passes, advances the verifier. A
/// message that fails leaves the verifier unchanged, so a caller may report it and go on.
///
/// Returns CONCORDIA_BINDING for a broken `prev_hash` link or another `session_id`,
/// CONCORDIA_SCHEMA for a missing member, CONCORDIA_UNKNOWN_KEY for a sender without a
/// key, CONCORDIA_SIGNATURE or CONCORDIA_ENCODING for a bad signature, a 2xx code for
/// malformed JSON, CONCORDIA_INVALID_STATE after concordia_transcript_verifier_finish.
///
/// # Safety
/// `v` must be a live verifier; `message` valid for `message_len` bytes of reads.
#[no_mangle]
pub unsafe extern "C" fn concordia_transcript_verifier_push(
    v: *mut concordia_transcript_verifier,
    message: *const u8,
    message_len: usize,
) -> concordia_result {
    guard(|| {
        // SAFETY: caller contract above.
        let v = unsafe { verifier_mut(v) }?;
        if message.is_null() {
            return Err(NULL);
        }
        // SAFETY: caller contract above.
        let message = unsafe { bytes_in(message, message_len) }?;
        if v.finished {
            return Err(Fail::Code(concordia_result::CONCORDIA_INVALID_STATE));
        }
        let msg = parse(message, &mut v.message_nodes)?;
        v.verifier.push(msg.root(), &v.keys)?;
        Ok(())
    })
}

/// Ends the transcript: writes the number of accepted messages to `*count` and the chain
/// head (the last accepted message's hash, `sha256:<hex>`, 71 bytes; the genesis hash when
/// none) into `head`. Later pushes return CONCORDIA_INVALID_STATE; finish may be called
/// again (e.g. after CONCORDIA_BUFFER_TOO_SMALL).
///
/// # Safety
/// `v` must be a live verifier; `count` valid for one `uint64_t` write; `head` for
/// `head_cap` bytes of writes; `head_len` for one `size_t`.
#[no_mangle]
pub unsafe extern "C" fn concordia_transcript_verifier_finish(
    v: *mut concordia_transcript_verifier,
    count: *mut u64,
    head: *mut u8,
    head_cap: usize,
    head_len: *mut usize,
) -> concordia_result {
    guard(|| {
        // SAFETY: caller contract above.
        let head_len = unsafe { out_ref(head_len) }?;
        *head_len = 0;
        // SAFETY: caller contract above.
        let count = unsafe { out_ref(count) }?;
        // SAFETY: caller contract above.
        let v = unsafe { verifier_mut(v) }?;
        // SAFETY: caller contract above.
        let head = unsafe { bytes_out(head, head_cap) }?;
        v.finished = true;
        *count = v.verifier.count();
        copy_out(v.verifier.head().to_prefixed().as_bytes(), head, head_len)
    })
}

/// Releases a verifier. NULL is ignored.
///
/// # Safety
/// `v` must be NULL or a verifier from this library that has not been freed.
#[no_mangle]
pub unsafe extern "C" fn concordia_transcript_verifier_free(v: *mut concordia_transcript_verifier) {
    if v.is_null() {
        return;
    }
    let _ = guard_quiet(|| {
        // SAFETY: `v` came from Box::into_raw in this library and is freed once (contract).
        drop(unsafe { Box::from_raw(v) });
        Ok(())
    });
}
