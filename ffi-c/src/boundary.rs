//! The boundary every export goes through: panic catching, NULL checks, caller buffers,
//! the thread-local last error, and the mapping of `core::Error` onto result codes.

use std::cell::Cell;
use std::panic::{catch_unwind, AssertUnwindSafe};

use concordia_core::json::Doc;
use concordia_core::Error;
use concordia_host::Nodes;

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

/// An input byte range: `ptr` may be NULL only when `len` is 0.
///
/// # Safety
/// A non-NULL `ptr` must be valid for reads of `len` bytes for `'a`.
pub(crate) unsafe fn bytes_in<'a>(ptr: *const u8, len: usize) -> FfiResult<&'a [u8]> {
    if ptr.is_null() {
        return if len == 0 { Ok(&[]) } else { Err(NULL) };
    }
    if len > isize::MAX as usize {
        return Err(Fail::Core(Error::InvalidArgument("length beyond isize::MAX")));
    }
    // SAFETY: `ptr` is non-NULL and, by this function's contract, valid for `len` bytes
    // of reads for 'a; `len` fits an isize as checked above.
    Ok(unsafe { std::slice::from_raw_parts(ptr, len) })
}

/// An input UTF-8 text: `ptr` may be NULL only when `len` is 0.
///
/// # Safety
/// As [`bytes_in`].
pub(crate) unsafe fn str_in<'a>(ptr: *const u8, len: usize) -> FfiResult<&'a str> {
    // SAFETY: forwarded contract.
    let bytes = unsafe { bytes_in(ptr, len) }?;
    std::str::from_utf8(bytes).map_err(|_| Fail::Core(Error::InvalidArgument("text is not valid UTF-8")))
}

/// An output buffer: `ptr` may be NULL only when `cap` is 0 (a size query).
///
/// # Safety
/// A non-NULL `ptr` must be valid for writes of `cap` bytes for `'a`, and not alias any
/// input of the same call.
pub(crate) unsafe fn bytes_out<'a>(ptr: *mut u8, cap: usize) -> FfiResult<&'a mut [u8]> {
    if ptr.is_null() {
        return if cap == 0 { Ok(&mut []) } else { Err(NULL) };
    }
    if cap > isize::MAX as usize {
        return Err(Fail::Core(Error::InvalidArgument("length beyond isize::MAX")));
    }
    // SAFETY: `ptr` is non-NULL and, by this function's contract, valid for `cap` bytes of
    // writes for 'a with no other live reference; `cap` fits an isize as checked above.
    Ok(unsafe { std::slice::from_raw_parts_mut(ptr, cap) })
}

/// A required out-parameter.
///
/// # Safety
/// A non-NULL `ptr` must be valid for a write of `T` and suitably aligned.
pub(crate) unsafe fn out_ref<'a, T>(ptr: *mut T) -> FfiResult<&'a mut T> {
    // SAFETY: by this function's contract a non-NULL `ptr` is valid, aligned and unaliased.
    unsafe { ptr.as_mut() }.ok_or(NULL)
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
