//! The streaming transcript verifier (SPEC §9.3): one message at a time, constant state;
//! and a transcript file verified one message at a time (the host layer's
//! `verify_transcript_reader`, as `concordia chain verify`).

use concordia_core::message::TranscriptVerifier;
use concordia_core::Error;
use concordia_host::{verify_transcript_reader, KeyMap as HostKeyMap, Nodes, TranscriptFailure, TranscriptFormat};

use crate::boundary::{
    bytes_in, bytes_out, copy_out, guard, handle_free, handle_mut, handle_new, out_ref, parse, Fail, FfiResult, NULL,
};
use crate::{concordia_result, CONCORDIA_DIGEST_TEXT_LEN};

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
pub extern "C" fn concordia_transcript_verifier_new(
    keys_json: *const u8,
    keys_len: usize,
    out: *mut *mut concordia_transcript_verifier,
) -> concordia_result {
    guard(|| {
        let out = out_ref(out)?;
        *out = std::ptr::null_mut();
        if keys_json.is_null() {
            return Err(NULL);
        }
        let keys = bytes_in(keys_json, keys_len)?;
        // Parsed once: every push looks keys up in the map.
        let keys = HostKeyMap::from_json(keys)?;
        let v = concordia_transcript_verifier {
            keys,
            message_nodes: Nodes::new(),
            verifier: TranscriptVerifier::new(),
            finished: false,
        };
        handle_new(v, out);
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
pub extern "C" fn concordia_transcript_verifier_push(
    v: *mut concordia_transcript_verifier,
    message: *const u8,
    message_len: usize,
) -> concordia_result {
    guard(|| {
        let v = handle_mut(v)?;
        if message.is_null() {
            return Err(NULL);
        }
        let message = bytes_in(message, message_len)?;
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
pub extern "C" fn concordia_transcript_verifier_finish(
    v: *mut concordia_transcript_verifier,
    count: *mut u64,
    head: *mut u8,
    head_cap: usize,
    head_len: *mut usize,
) -> concordia_result {
    guard(|| {
        let head_len = out_ref(head_len)?;
        *head_len = 0;
        let count = out_ref(count)?;
        let v = handle_mut(v)?;
        let head = bytes_out(head, head_cap)?;
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
pub extern "C" fn concordia_transcript_verifier_free(v: *mut concordia_transcript_verifier) {
    handle_free(v);
}

/// How a transcript file is laid out, for concordia_verify_transcript_file.
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum concordia_transcript_format {
    /// A JSON array of messages (read one message at a time), or an object whose
    /// `messages` member is that array (read whole).
    CONCORDIA_TRANSCRIPT_ARRAY = 0,
    /// JSON Lines: one message per line; blank lines are skipped.
    CONCORDIA_TRANSCRIPT_LINES = 1,
}

/// The file at `path` (bytes; UTF-8 where the platform's paths are not bytes).
fn open_path(path: &[u8]) -> FfiResult<std::fs::File> {
    if path.is_empty() {
        return Err(Fail::Core(Error::InvalidArgument("empty path")));
    }
    #[cfg(unix)]
    let path = std::path::Path::new(<std::ffi::OsStr as std::os::unix::ffi::OsStrExt>::from_bytes(path));
    #[cfg(not(unix))]
    let path = std::path::Path::new(
        std::str::from_utf8(path).map_err(|_| Fail::Core(Error::InvalidArgument("path is not valid UTF-8")))?,
    );
    std::fs::File::open(path).map_err(|_| Fail::Code(concordia_result::CONCORDIA_IO))
}

/// Verifies the transcript in the file at `path` (`path_len` bytes, not NUL-terminated)
/// one message at a time: memory is bounded by the largest message, whatever the
/// transcript's length. `format` is a concordia_transcript_format: a JSON array of
/// messages (or an object whose `messages` member is one, read whole), or JSON Lines.
/// `keys_json` maps each `agent_id` to its base64url Ed25519 public key. `max_input`
/// refuses files longer than that many bytes (CONCORDIA_LIMIT_SIZE); 0 means no cap.
///
/// On success: `*out_count` is the number of messages (0 for an empty transcript, which
/// verifies with the genesis head) and `head` receives the chain head (`sha256:<hex>`,
/// CONCORDIA_DIGEST_TEXT_LEN bytes; a smaller `head_cap` is CONCORDIA_BUFFER_TOO_SMALL
/// before the file is read). `*out_failed_index` is UINT64_MAX.
///
/// When message `i` fails a protocol check (CONCORDIA_BINDING, CONCORDIA_SCHEMA,
/// CONCORDIA_UNKNOWN_KEY, CONCORDIA_SIGNATURE, ...): `*out_failed_index` is `i` and
/// `*out_count` the `i` messages before it. A transcript that is malformed after a failing
/// message is still a 2xx code (the whole file's verdict). Other failures leave
/// `*out_failed_index` at UINT64_MAX: a 2xx code for malformed JSON (the absolute byte
/// offset in the file is in concordia_last_error_offset), CONCORDIA_SCHEMA when the file is
/// not a transcript, CONCORDIA_LIMIT_SIZE over `max_input`, CONCORDIA_LIMIT_MEMORY,
/// CONCORDIA_IO when the file cannot be opened or read, CONCORDIA_INVALID_ARGUMENT for an
/// unknown `format` or an empty path.
///
/// # Safety
/// `path` must be valid for `path_len` bytes of reads, `keys_json` for `keys_len`;
/// `out_count` and `out_failed_index` for one `uint64_t` write each; `head` for `head_cap`
/// bytes of writes; `head_len` for one `size_t`.
#[allow(clippy::too_many_arguments)]
#[no_mangle]
pub extern "C" fn concordia_verify_transcript_file(
    path: *const u8,
    path_len: usize,
    keys_json: *const u8,
    keys_len: usize,
    format: u32,
    max_input: u64,
    out_count: *mut u64,
    head: *mut u8,
    head_cap: usize,
    head_len: *mut usize,
    out_failed_index: *mut u64,
) -> concordia_result {
    guard(|| {
        let head_len = out_ref(head_len)?;
        *head_len = 0;
        let out_count = out_ref(out_count)?;
        *out_count = 0;
        let out_failed_index = out_ref(out_failed_index)?;
        *out_failed_index = u64::MAX;
        let head = bytes_out(head, head_cap)?;
        if path.is_null() || keys_json.is_null() {
            return Err(NULL);
        }
        let path = bytes_in(path, path_len)?;
        let keys = bytes_in(keys_json, keys_len)?;
        let format = match format {
            0 => TranscriptFormat::Array,
            1 => TranscriptFormat::Lines,
            _ => return Err(Fail::Core(Error::InvalidArgument("unknown transcript format"))),
        };
        if head.len() < CONCORDIA_DIGEST_TEXT_LEN {
            *head_len = CONCORDIA_DIGEST_TEXT_LEN;
            return Err(Fail::Core(Error::BufferTooSmall { needed: CONCORDIA_DIGEST_TEXT_LEN }));
        }
        let keys = HostKeyMap::from_json(keys)?;
        let file = open_path(path)?;
        let cap = (max_input > 0).then_some(max_input);
        match verify_transcript_reader(file, &keys, format, cap) {
            Ok(summary) => {
                *out_count = summary.count;
                copy_out(summary.head.to_prefixed().as_bytes(), head, head_len)
            }
            Err(failure) => {
                if let TranscriptFailure::Message { index, .. } = failure {
                    *out_failed_index = index;
                    *out_count = index;
                }
                Err(failure.error().map_or(Fail::Code(concordia_result::CONCORDIA_IO), Fail::Core))
            }
        }
    })
}
