//! The boundary every export goes through, and the only code of this crate that turns a C
//! caller's raw pointers into Rust references: panic catching, the thread-local last error,
//! the mapping of `core::Error` onto result codes, caller buffers, and the audited pointer
//! conversions.
//!
//! # The pointer rule
//!
//! The exports are `extern "C" fn`s whose contract is the header's (each export's `Safety`
//! paragraph in include/concordia.h; ffi-c/README.md, "Safety", says why they are not
//! `unsafe extern "C" fn`). The conversions below are safe functions, each with the one
//! `unsafe` block it needs and a `// SAFETY:` comment that names the part of the header's
//! contract that makes it sound. They are sound under one crate-wide invariant, which a
//! reviewer checks at each call site in place of an `unsafe` block there:
//!
//! * every raw pointer given to a conversion is an argument an export received from its C
//!   caller (or a field of a struct received so), unchanged, or NULL: the crate makes no
//!   other raw pointer of its own than the handles of [`handle_new`], which go to C;
//! * a reference a conversion returns does not outlive the export's call (its lifetime `'a`
//!   is the call's: nothing stores one in an object that outlives the call).
//!
//! `tests/unsafe_boundary.rs` fails when `unsafe` appears in any other source file.
//!
//! | C argument | conversion | NULL |
//! |---|---|---|
//! | `(const T *ptr, size_t len)` | [`slice_in`], [`bytes_in`], [`str_in`] | allowed with len 0 |
//! | `const T *` struct, required / optional | [`in_ref`] / [`opt_in`] | NULL_ARGUMENT / `None` |
//! | `T *` out-parameter, required / optional | [`out_ref`] / [`opt_out`] | NULL_ARGUMENT / `None` |
//! | `(uint8_t *out, size_t out_cap)` | [`bytes_out`], [`slice_out`], then [`copy_out`], [`store_len`], [`write_sized`] | allowed with cap 0 (size query) |
//! | opaque object | [`handle_ref`], [`handle_mut`], [`handle_new`], [`handle_free`] | NULL_ARGUMENT (free: ignored) |

use std::cell::Cell;
use std::panic::{catch_unwind, AssertUnwindSafe};

use concordia_core::json::Doc;
use concordia_core::Error;
use concordia_host::Nodes;

use crate::concordia_str;
use crate::result::{code_of, concordia_result};

/// Why an export failed: a core error (kept for the last-error getters) or a code of the
/// wrapper's own (NULL, unknown profile, object state).
#[derive(Clone, Copy, Debug)]
pub(crate) enum Fail {
    Core(Error),
    Code(concordia_result),
}

impl From<Error> for Fail {
    fn from(e: Error) -> Self {
        Fail::Core(e)
    }
}

pub(crate) type FfiResult<T = ()> = Result<T, Fail>;

pub(crate) const NULL: Fail = Fail::Code(concordia_result::CONCORDIA_NULL_ARGUMENT);

thread_local! {
    /// The core error behind the last failed export on this thread (`None` after a
    /// success or a wrapper-only failure).
    static LAST_ERROR: Cell<Option<Error>> = const { Cell::new(None) };
}

/// The last recorded core error of this thread.
pub(crate) fn last_error() -> Option<Error> {
    LAST_ERROR.with(Cell::get)
}

/// Runs the body of an export: catches any panic (CONCORDIA_PANIC), records the last
/// error of this thread, and turns the outcome into a result code.
pub(crate) fn guard(body: impl FnOnce() -> FfiResult) -> concordia_result {
    let outcome = catch_unwind(AssertUnwindSafe(body));
    let (code, last) = match outcome {
        Ok(Ok(())) => (concordia_result::CONCORDIA_OK, None),
        Ok(Err(Fail::Core(e))) => (code_of(&e), Some(e)),
        Ok(Err(Fail::Code(c))) => (c, None),
        Err(_) => (concordia_result::CONCORDIA_PANIC, None),
    };
    LAST_ERROR.with(|l| l.set(last));
    code
}

/// Like [`guard`], but leaves the last error untouched (for the getters of it).
pub(crate) fn guard_quiet(body: impl FnOnce() -> FfiResult) -> concordia_result {
    match catch_unwind(AssertUnwindSafe(body)) {
        Ok(Ok(())) => concordia_result::CONCORDIA_OK,
        Ok(Err(Fail::Core(e))) => code_of(&e),
        Ok(Err(Fail::Code(c))) => c,
        Err(_) => concordia_result::CONCORDIA_PANIC,
    }
}

/// An input array of `count` elements: `ptr` may be NULL only when `count` is 0.
///
/// Returns CONCORDIA_NULL_ARGUMENT for NULL with `count` > 0 and CONCORDIA_INVALID_ARGUMENT
/// for an array beyond `isize::MAX` bytes.
pub(crate) fn slice_in<'a, T: Copy>(ptr: *const T, count: usize) -> FfiResult<&'a [T]> {
    if count == 0 {
        return Ok(&[]);
    }
    if ptr.is_null() {
        return Err(NULL);
    }
    if count.checked_mul(std::mem::size_of::<T>()).is_none_or(|n| n > isize::MAX as usize) {
        return Err(Fail::Core(Error::InvalidArgument("length beyond isize::MAX")));
    }
    // SAFETY: the header's contract for every (pointer, length) input: a non-NULL pointer
    // is valid (aligned, initialized) for reads of `count` elements for the whole call and
    // not written during it; `ptr` is non-NULL and the size fits an isize (checked above).
    Ok(unsafe { std::slice::from_raw_parts(ptr, count) })
}

/// An input byte range: `ptr` may be NULL only when `len` is 0 ([`slice_in`] of bytes).
pub(crate) fn bytes_in<'a>(ptr: *const u8, len: usize) -> FfiResult<&'a [u8]> {
    slice_in(ptr, len)
}

/// An input UTF-8 text: `ptr` may be NULL only when `len` is 0.
///
/// Returns CONCORDIA_INVALID_ARGUMENT for text that is not UTF-8.
pub(crate) fn str_in<'a>(ptr: *const u8, len: usize) -> FfiResult<&'a str> {
    std::str::from_utf8(bytes_in(ptr, len)?).map_err(|_| Fail::Core(Error::InvalidArgument("text is not valid UTF-8")))
}

impl concordia_str {
    /// Required text ([`str_in`]): NULL is allowed only with a length of 0.
    pub(crate) fn text<'a>(self) -> FfiResult<&'a str> {
        str_in(self.ptr, self.len)
    }

    /// Required text that refuses NULL even with a length of 0.
    pub(crate) fn required_text<'a>(self) -> FfiResult<&'a str> {
        if self.ptr.is_null() {
            return Err(NULL);
        }
        self.text()
    }

    /// Optional text: `None` when `ptr` is NULL (its length ignored).
    pub(crate) fn opt_text<'a>(self) -> FfiResult<Option<&'a str>> {
        if self.ptr.is_null() {
            return Ok(None);
        }
        self.text().map(Some)
    }
}

/// A required input struct (`const T *`): NULL is CONCORDIA_NULL_ARGUMENT.
pub(crate) fn in_ref<'a, T: Copy>(ptr: *const T) -> FfiResult<&'a T> {
    opt_in(ptr).ok_or(NULL)
}

/// An optional input struct (`const T *`): `None` for NULL.
pub(crate) fn opt_in<'a, T: Copy>(ptr: *const T) -> Option<&'a T> {
    // SAFETY: the header's contract for struct inputs: a non-NULL pointer points to an
    // initialized, aligned `T` that is valid and not written for the whole call.
    unsafe { ptr.as_ref() }
}

/// A required out-parameter (`T *`): NULL is CONCORDIA_NULL_ARGUMENT.
pub(crate) fn out_ref<'a, T: Copy>(ptr: *mut T) -> FfiResult<&'a mut T> {
    opt_out(ptr).ok_or(NULL)
}

/// An optional out-parameter (`T *`, "NULL: not wanted"): `None` for NULL.
pub(crate) fn opt_out<'a, T: Copy>(ptr: *mut T) -> Option<&'a mut T> {
    // SAFETY: the header's contract for out-parameters: a non-NULL pointer is valid and
    // aligned for a write of one `T` for the whole call and aliases no other argument of
    // it. `T: Copy`: nothing of the caller's old value is dropped by an assignment, and the
    // exports only assign through the reference, never read what the caller left.
    unsafe { ptr.as_mut() }
}

/// An output array of `cap` elements: `ptr` may be NULL only when `cap` is 0 (a size query).
///
/// Returns CONCORDIA_NULL_ARGUMENT for NULL with `cap` > 0 and CONCORDIA_INVALID_ARGUMENT
/// for an array beyond `isize::MAX` bytes.
pub(crate) fn slice_out<'a, T: Copy>(ptr: *mut T, cap: usize) -> FfiResult<&'a mut [T]> {
    if ptr.is_null() {
        return if cap == 0 { Ok(&mut []) } else { Err(NULL) };
    }
    if cap.checked_mul(std::mem::size_of::<T>()).is_none_or(|n| n > isize::MAX as usize) {
        return Err(Fail::Core(Error::InvalidArgument("length beyond isize::MAX")));
    }
    // SAFETY: the header's contract for every output buffer: a non-NULL pointer is valid
    // and aligned for writes of `cap` elements for the whole call and overlaps no input of
    // it; `ptr` is non-NULL and the size fits an isize (checked above). `T: Copy`, and
    // the exports only write through the slice, never read what the caller left in it.
    Ok(unsafe { std::slice::from_raw_parts_mut(ptr, cap) })
}

/// An output byte buffer ([`slice_out`] of bytes); fill it with [`copy_out`],
/// [`store_len`] or [`write_sized`], which never write past `cap`.
pub(crate) fn bytes_out<'a>(ptr: *mut u8, cap: usize) -> FfiResult<&'a mut [u8]> {
    slice_out(ptr, cap)
}

/// An opaque object this library hands to C as the pointer of a `Box` ([`handle_new`]) and
/// takes back in its `_free` ([`handle_free`]). Only these types may cross as handles.
pub(crate) trait Handle {}

impl Handle for crate::concordia_keypair {}
impl Handle for crate::concordia_es256_keypair {}
impl Handle for crate::concordia_aip_keypair {}
impl Handle for crate::concordia_aip_replay_window {}
impl Handle for crate::concordia_transcript_verifier {}
impl Handle for crate::concordia_session {}
impl Handle for crate::concordia_consensus_room {}

/// A handle to read (`const T *`): NULL is CONCORDIA_NULL_ARGUMENT.
pub(crate) fn handle_ref<'a, T: Handle>(ptr: *const T) -> FfiResult<&'a T> {
    // SAFETY: the header's contract for objects: a non-NULL handle came from
    // [`handle_new`] (a live `Box<T>`) and is not freed during the call; a shared object
    // (the key pairs) is only read by concurrent calls.
    unsafe { ptr.as_ref() }.ok_or(NULL)
}

/// A handle to change (`T *`): NULL is CONCORDIA_NULL_ARGUMENT.
pub(crate) fn handle_mut<'a, T: Handle>(ptr: *mut T) -> FfiResult<&'a mut T> {
    // SAFETY: the header's contract for objects: a non-NULL handle came from
    // [`handle_new`] (a live `Box<T>`), is not freed during the call, and an object that
    // changes is used by one thread and one call at a time, so this is the only reference.
    unsafe { ptr.as_mut() }.ok_or(NULL)
}

/// Boxes a new object and stores its handle in the caller's out-parameter.
pub(crate) fn handle_new<T: Handle>(value: T, out: &mut *mut T) {
    *out = Box::into_raw(Box::new(value));
}

/// The body of every `_free`: releases the object behind a handle (NULL is ignored), its
/// `Drop` included (which erases secrets), without unwinding into C.
pub(crate) fn handle_free<T: Handle>(ptr: *mut T) {
    if ptr.is_null() {
        return;
    }
    let _ = guard_quiet(|| {
        // SAFETY: the header's contract for `_free`: a non-NULL handle came from
        // [`handle_new`] (`Box::into_raw`), has not been freed, is freed once, and no other
        // call uses it now or later.
        drop(unsafe { Box::from_raw(ptr) });
        Ok(())
    });
}

/// Stores the outcome of a length-returning core call: the length on success, the needed
/// length on `BufferTooSmall`, 0 otherwise.
pub(crate) fn store_len(result: Result<usize, Error>, out_len: &mut usize) -> FfiResult {
    match result {
        Ok(n) => {
            *out_len = n;
            Ok(())
        }
        Err(e) => {
            *out_len = match e {
                Error::BufferTooSmall { needed } => needed,
                _ => 0,
            };
            Err(Fail::Core(e))
        }
    }
}

/// Copies `src` into the caller's buffer (or reports the needed length).
pub(crate) fn copy_out(src: &[u8], out: &mut [u8], out_len: &mut usize) -> FfiResult {
    let r = match out.get_mut(..src.len()) {
        Some(dst) => {
            dst.copy_from_slice(src);
            Ok(src.len())
        }
        None => Err(Error::BufferTooSmall { needed: src.len() }),
    };
    store_len(r, out_len)
}

/// Calls a core writer that reports `BufferTooSmall { needed }` and, when the caller's
/// buffer is too small, asks it again with a scratch buffer of the reported size until the
/// reported size fits, so that the length handed back is the exact final length even for
/// writers that stop at an intermediate pass (a size query costs a second call).
pub(crate) fn write_sized(
    out: &mut [u8],
    out_len: &mut usize,
    mut write: impl FnMut(&mut [u8]) -> Result<usize, Error>,
) -> FfiResult {
    let mut result = write(out);
    let mut scratch: Vec<u8> = Vec::new();
    // Two passes suffice for every core writer; the bound keeps the work finite.
    for _ in 0..4 {
        match result {
            Err(Error::BufferTooSmall { needed }) if needed > scratch.len() => {
                scratch.resize(needed, 0);
                result = match write(&mut scratch) {
                    // A writer whose final length fits after all: write it for real.
                    Ok(n) if n <= out.len() => write(out),
                    Ok(n) => Err(Error::BufferTooSmall { needed: n }),
                    Err(e) => Err(e),
                };
            }
            _ => break,
        }
    }
    store_len(result, out_len)
}

/// A node buffer for one input, sized to the text when it parses (the host layer's
/// policy: one counting pass, never the worst case up front; allocation failure is
/// `CONCORDIA_LIMIT_MEMORY`).
pub(crate) fn nodes_for(_input: &[u8]) -> Nodes {
    Nodes::new()
}

/// Parses `input` under the one policy of every surface ([`concordia_host::options`]).
pub(crate) fn parse<'a>(input: &'a [u8], nodes: &'a mut Nodes) -> Result<Doc<'a>, Error> {
    nodes.parse(input)
}
