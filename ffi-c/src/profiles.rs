//! The 22 verification profiles of the conformance contract.

use concordia_core::profiles::{verify_profile, Profile, VerifyOptions};

use crate::boundary::{bytes_in, bytes_out, copy_out, guard, nodes_for, out_ref, parse, Fail, NULL};
use crate::{concordia_result, concordia_str};

/// Checks the record `input_json` under the conformance profile named `profile` (e.g.
/// `receipt-v1`, `message-chain-v1`; see concordia_profile_name) with `context_json`, the
/// vector's context object (keys, expected digests, `now`; the library reads no clock).
///
/// Returns CONCORDIA_OK when the record is accepted; when it is rejected, a code whose
/// class (concordia_result_class) is the contract's reason class: 3xx `signature`, 400
/// `schema`, 401 `digest`, 402 `binding`, 403 `temporal`, 404 `privacy`, 405/406
/// `transition`; a 2xx code for malformed JSON. CONCORDIA_UNKNOWN_PROFILE for a name that
/// is not a profile.
///
/// # Safety
/// `profile.ptr` must be valid for `profile.len` bytes; `input_json` for `input_len`;
/// `context_json` for `context_len`.
#[no_mangle]
pub extern "C" fn concordia_verify_profile(
    profile: concordia_str,
    input_json: *const u8,
    input_len: usize,
    context_json: *const u8,
    context_len: usize,
) -> concordia_result {
    guard(|| {
        if profile.ptr.is_null() || input_json.is_null() || context_json.is_null() {
            return Err(NULL);
        }
        let name = profile.text()?;
        let profile = Profile::from_name(name).ok_or(Fail::Code(concordia_result::CONCORDIA_UNKNOWN_PROFILE))?;
        let input = bytes_in(input_json, input_len)?;
        let context = bytes_in(context_json, context_len)?;
        let (mut input_nodes, mut context_nodes) = (nodes_for(input), nodes_for(context));
        let input = parse(input, &mut input_nodes)?;
        let context = parse(context, &mut context_nodes)?;
        verify_profile(profile, input.root(), context.root(), &VerifyOptions::default())?;
        Ok(())
    })
}

/// Writes the name of profile number `index` (0 to CONCORDIA_PROFILE_COUNT - 1, in the
/// contract's order) into `out` (not NUL-terminated).
///
/// Returns CONCORDIA_INVALID_ARGUMENT for an index past the last profile.
///
/// # Safety
/// `out` must be valid for `out_cap` bytes of writes; `out_len` for one `size_t`.
#[no_mangle]
pub extern "C" fn concordia_profile_name(
    index: usize,
    out: *mut u8,
    out_cap: usize,
    out_len: *mut usize,
) -> concordia_result {
    guard(|| {
        let out_len = out_ref(out_len)?;
        *out_len = 0;
        let out = bytes_out(out, out_cap)?;
        let p = Profile::ALL
            .get(index)
            .ok_or(Fail::Core(concordia_core::Error::InvalidArgument("profile index out of range")))?;
        copy_out(p.name().as_bytes(), out, out_len)
    })
}
