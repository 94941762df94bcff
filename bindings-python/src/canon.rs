//! Python values to RFC 8785 canonical JSON: a walk over the objects that reports each
//! step to the core's event writer ([`events::Writer`]).
//!
//! The walk decides only what a Python value is, mirroring the reference SDK's
//! `canonical_json` value by value: `None`, `bool`, `int` (any size: a big one as
//! `str(int)`, as the SDK writes it), `float`, `str` (lone surrogates rejected), `list` and
//! `tuple`, `dict` with `str` keys (subclasses of each included). Anything else raises
//! `TypeError`. Everything the output is made of is the core's: separators, escapes,
//! number text and the number policy
//! ([`concordia_core::json::integer_literal_value`] for integers, finite and not `-0.0` for
//! floats), nesting bounded by [`concordia_core::json::DEFAULT_MAX_DEPTH`] containers as
//! the reader counts them, RFC 8785 member order (each dict's names sorted by
//! [`events::sort_members`], checked by the writer) and the preimage rule (a
//! [`Preimage`], such as [`concordia_core::preimage::WithoutSignature`] for a signature).
//! So a dict and its JSON text get one verdict on every path (sign, hash, verify,
//! sessions, transcripts); where the core refuses what the SDK would serialize (deep
//! nesting, unsafe integers) this raises `CanonicalizationError` (a `ValueError`):
//! stricter, never more lenient.
//!
//! When a value is rejected, the error raised is the one the SDK raises first: its
//! special-float pre-scan runs over the whole value before serialization, so a
//! NaN/infinity/-0.0 anywhere (in a member the rule keeps) wins over any other problem.
//!
//! A dict that changes size while it is walked (a callback such as an int subclass's
//! `__str__` mutating it) raises `RuntimeError`, as CPython's own dict iteration does; the
//! walk never lets Python code run while it iterates a dict, so nothing here can panic.
//!
//! **Two walks, one output.** Most values are made only of the exact built-in types
//! (`dict`, `list`, `tuple`, `str`, `int` within 64 bits, `float`, `bool`, `None`). Those
//! go through a fast walk ([`fast`]) that reads them through CPython's C API with borrowed
//! references (no reference counting, no pyo3 conversions, one reused member stack) and
//! writes through the same core [`Writer`]. It runs no Python code at all, so nothing can
//! change or free an object while it is read. Anything else (a subclass, an int beyond 64
//! bits, any value the writer refuses, a lone surrogate) makes it give up before any
//! Python code could run; its output is dropped and the full walk below runs from the
//! start, so every error and every subclass case is the full walk's.

use std::borrow::Cow;
use std::sync::atomic::{AtomicU8, Ordering};

use concordia_core::error::{Limit, Syntax};
use concordia_core::jcs::events::{self, Writer};
use concordia_core::json::Str;
use concordia_core::preimage::Preimage;
use concordia_core::Error;
use concordia_host::VecRefSink;
use pyo3::exceptions::{PyRuntimeError, PyTypeError, PyUnicodeEncodeError};
use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};

use crate::errors::{new_err, CoreError, Exc};

/// Deepest nesting of containers (dicts, lists, tuples) the walk accepts: the core
/// writer's, `concordia_core::json::DEFAULT_MAX_DEPTH` (that many nested containers are accepted,
/// one more is refused; docs/limits.md).
pub const MAX_DEPTH: usize = events::MAX_DEPTH;

/// The error for a container nested deeper than `MAX_DEPTH`.
fn depth_error() -> PyErr {
    let e = Error::Limit { kind: Limit::Depth, offset: 0 };
    new_err(
        Exc::Canonicalization,
        format!("Cannot canonicalize a value nested deeper than {MAX_DEPTH} containers ({})", Limit::Depth),
        Some(e.class().as_str()),
    )
}

/// A writer error that no value-specific message explains: depth, memory, the rest.
fn writer_error(e: Error) -> PyErr {
    match e {
        Error::Limit { kind: Limit::Depth, .. } => depth_error(),
        e => CoreError(e).into(),
    }
}

/// The error for a dict that changed size while it was walked (CPython's message).
fn changed_size() -> PyErr {
    PyRuntimeError::new_err("dictionary changed size during iteration")
}

/// The items of `d`, taken while no Python code runs (pyo3's dict iterator panics if the
/// dict changes under it; here it cannot).
fn items<'py>(d: &Bound<'py, PyDict>) -> Vec<(Bound<'py, PyAny>, Bound<'py, PyAny>)> {
    let mut out = Vec::with_capacity(d.len());
    out.extend(d.iter());
    out
}

// PyUnicode_AsUTF8AndSize, in the stable ABI from CPython 3.10 (the wheel's floor, abi3-py310):
// declared here as the dict walker uses it.
extern "C" {
    fn PyUnicode_AsUTF8AndSize(unicode: *mut ffi::PyObject, size: *mut ffi::Py_ssize_t) -> *const std::os::raw::c_char;
}

static HAS_UTF8_AND_SIZE: AtomicU8 = AtomicU8::new(0);

fn has_utf8_and_size(py: Python<'_>) -> bool {
    match HAS_UTF8_AND_SIZE.load(Ordering::Relaxed) {
        1 => true,
        2 => false,
        _ => {
            let yes = py.version_info() >= (3, 10);
            HAS_UTF8_AND_SIZE.store(if yes { 1 } else { 2 }, Ordering::Relaxed);
            yes
        }
    }
}

/// The UTF-8 text of a `str` (borrowed from the string's own cache on 3.10+), or `None`
/// when it holds a lone surrogate.
pub fn utf8<'a>(s: &'a Bound<'_, PyString>) -> Option<Cow<'a, str>> {
    let py = s.py();
    if has_utf8_and_size(py) {
        let mut size: ffi::Py_ssize_t = 0;
        // SAFETY: `s` is a live `str` object (the type is checked by `Bound<PyString>`) and
        // the GIL is held. CPython caches the UTF-8 form inside the string object, so the
        // returned buffer lives as long as `s`, which outlives `'a`.
        let ptr = unsafe { PyUnicode_AsUTF8AndSize(s.as_ptr(), &mut size) };
        if ptr.is_null() {
            // A lone surrogate: clear the UnicodeEncodeError, the caller raises its own.
            let _ = PyErr::take(py);
            return None;
        }
        let len = usize::try_from(size).ok()?;
        // SAFETY: CPython guarantees `ptr` points at `size` bytes of valid UTF-8 owned by `s`.
        let bytes = unsafe { std::slice::from_raw_parts(ptr.cast::<u8>(), len) };
        std::str::from_utf8(bytes).ok().map(Cow::Borrowed)
    } else {
        s.to_cow().ok()
    }
}

/// Index and code point of the first surrogate in `s` (error path only).
fn first_surrogate(s: &Bound<'_, PyString>) -> PyResult<(usize, u32)> {
    let ord = s.py().import("builtins")?.getattr("ord")?;
    for i in 0..s.len()? {
        let code: u32 = ord.call1((s.get_item(i)?,))?.extract()?;
        if (0xD800..=0xDFFF).contains(&code) {
            return Ok((i, code));
        }
    }
    Ok((0, 0xFFFD))
}

fn surrogate_value_error(s: &Bound<'_, PyString>) -> PyErr {
    match first_surrogate(s) {
        Ok((_, code)) => new_err(
            Exc::Canonicalization,
            format!(
                "Cannot canonicalize string with unpaired UTF-16 surrogate U+{code:04X}; surrogates are not \
                 serializable to UTF-8 and diverge across language implementations."
            ),
            Some("input"),
        ),
        Err(e) => e,
    }
}

fn surrogate_key_error(s: &Bound<'_, PyString>) -> PyErr {
    match first_surrogate(s) {
        Ok((i, _)) => {
            PyUnicodeEncodeError::new_err(("utf-16-be", s.clone().unbind(), i, i + 1, "surrogates not allowed"))
        }
        Err(e) => e,
    }
}

fn type_name(obj: &Bound<'_, PyAny>) -> String {
    obj.get_type().name().map(|n| n.to_string()).unwrap_or_else(|_| "object".into())
}

/// The SDK's error for a float the core refuses (NaN, an infinity, -0.0).
fn special_float_error(v: f64) -> PyErr {
    if v == 0.0 {
        return new_err(Exc::Canonicalization, "Cannot serialize negative zero (-0.0)", Some("input"));
    }
    let shown = if v.is_nan() {
        "nan"
    } else if v > 0.0 {
        "inf"
    } else {
        "-inf"
    };
    new_err(Exc::Canonicalization, format!("Cannot serialize special float: {shown}"), Some("input"))
}

/// The error for an integer the core's number policy refuses (`literal` is its decimal text).
fn unsafe_integer_error(literal: &str) -> PyErr {
    new_err(
        Exc::Canonicalization,
        format!(
            "Cannot canonicalize integer {}: beyond 2^53 - 1 and not the ECMAScript form of a double \
             (carry it as a string)",
            literal.get(..40).unwrap_or(literal)
        ),
        Some("input"),
    )
}

/// Scans like the SDK's `_check_no_special_floats`: dict values (of the members `rule`
/// keeps), list and tuple items, down to `MAX_DEPTH` containers (deeper, the walk's own
/// depth error stands); a float fails where the core's `events::check_double` refuses it.
/// `depth`: the containers around `obj`. Runs no Python code.
pub fn check_special_floats<P: Preimage + ?Sized>(obj: &Bound<'_, PyAny>, rule: &P, depth: usize) -> PyResult<()> {
    if depth > MAX_DEPTH {
        return Ok(());
    }
    if let Ok(f) = obj.cast::<PyFloat>() {
        let v = f.value();
        if events::check_double(v).is_err() {
            return Err(special_float_error(v));
        }
    } else if let Ok(d) = obj.cast::<PyDict>() {
        for (k, v) in items(d) {
            let dropped =
                k.cast::<PyString>().ok().and_then(utf8).is_some_and(|name| !rule.keep(depth + 1, Str::decoded(&name)));
            if !dropped {
                check_special_floats(&v, rule, depth + 1)?;
            }
        }
    } else if let Ok(l) = obj.cast::<PyList>() {
        for v in l.iter() {
            check_special_floats(&v, rule, depth + 1)?;
        }
    } else if let Ok(t) = obj.cast::<PyTuple>() {
        for v in t.iter() {
            check_special_floats(&v, rule, depth + 1)?;
        }
    }
    Ok(())
}

/// Appends the canonical JSON of `obj` under `rule` to `out` (the SDK's
/// `{k: v for k, v in data.items() if k != "signature"}` is
/// `concordia_core::preimage::WithoutSignature`).
///
/// # Errors
/// `ValueError` subclasses for special floats and lone surrogates (the same error the SDK
/// raises first), and for nesting beyond `MAX_DEPTH` and integers the core's number
/// policy refuses; `TypeError` for other types; `RuntimeError` for a dict changed during
/// the walk; `MemoryError` when the output cannot grow.
pub fn write<P: Preimage + ?Sized>(obj: &Bound<'_, PyAny>, rule: &P, out: &mut Vec<u8>) -> PyResult<()> {
    let start = out.len();
    if fast::write(obj, rule, out) {
        return Ok(());
    }
    out.truncate(start);
    let mut walker = Walker { w: Writer::new(VecRefSink(out), rule) };
    let r = walker.value(obj).and_then(|()| walker.w.finish().map(drop).map_err(writer_error));
    if let Err(e) = r {
        out.truncate(start);
        // The SDK scans the whole value for special floats before serializing anything.
        check_special_floats(obj, rule, 0)?;
        return Err(e);
    }
    Ok(())
}

/// The canonical JSON of `obj` under `rule` as a new buffer of exactly its length.
///
/// # Errors
/// As `write()`.
pub fn to_vec<P: Preimage + ?Sized>(obj: &Bound<'_, PyAny>, rule: &P) -> PyResult<Vec<u8>> {
    with_canonical(obj, rule, |text| Ok(text.to_vec()))
}

/// Runs `f` on the canonical JSON of `obj` under `rule`, written into this thread's reused
/// buffer (no allocation once the buffer has grown to the size of the values seen).
/// Re-entrant: a call made while the buffer is in use (from Python code that a value
/// runs) gets a buffer of its own.
///
/// # Errors
/// As `write()`, and whatever `f` returns.
pub fn with_canonical<P: Preimage + ?Sized, T>(
    obj: &Bound<'_, PyAny>,
    rule: &P,
    f: impl FnOnce(&[u8]) -> PyResult<T>,
) -> PyResult<T> {
    thread_local! {
        static OUT: std::cell::Cell<Vec<u8>> = const { std::cell::Cell::new(Vec::new()) };
    }
    let mut out = OUT.try_with(std::cell::Cell::take).unwrap_or_default();
    out.clear();
    let r = write(obj, rule, &mut out).and_then(|()| f(&out));
    // Kept for the next call, unless one value made it huge.
    if out.capacity() <= 1 << 20 {
        let _ = OUT.try_with(|c| c.set(out));
    }
    r
}

/// The walk: one event per Python value, into the core's writer.
struct Walker<'r, 'o, P: ?Sized> {
    w: Writer<'r, VecRefSink<'o>, P>,
}

impl<P: Preimage + ?Sized> Walker<'_, '_, P> {
    fn value(&mut self, obj: &Bound<'_, PyAny>) -> PyResult<()> {
        let p = obj.as_ptr();
        // Exact built-in types first: one type-pointer comparison each; each
        // `cast_unchecked` follows the check that makes it valid.
        if exact(p, ffi::PyUnicode_CheckExact) {
            // SAFETY: `obj` is exactly a `str` (checked just above).
            return self.string(unsafe { obj.cast_unchecked::<PyString>() });
        }
        if exact(p, ffi::PyDict_CheckExact) {
            // SAFETY: `obj` is exactly a `dict` (checked just above).
            return self.dict(unsafe { obj.cast_unchecked::<PyDict>() });
        }
        if exact(p, ffi::PyLong_CheckExact) {
            // SAFETY: `obj` is exactly an `int` (checked just above).
            return self.int(unsafe { obj.cast_unchecked::<PyInt>() });
        }
        if exact(p, ffi::PyList_CheckExact) {
            // SAFETY: `obj` is exactly a `list` (checked just above).
            return self.list(unsafe { obj.cast_unchecked::<PyList>() });
        }
        if obj.is_none() {
            return self.w.null().map_err(writer_error);
        }
        if exact(p, ffi::PyBool_Check) {
            return self.w.bool(obj.is_truthy()?).map_err(writer_error);
        }
        if exact(p, ffi::PyFloat_CheckExact) {
            // SAFETY: `obj` is exactly a `float` (checked just above).
            return self.float(unsafe { obj.cast_unchecked::<PyFloat>() });
        }
        // Subclasses, in the SDK's order: bool, int/float, str, list/tuple, dict.
        if let Ok(i) = obj.cast::<PyInt>() {
            self.int(i)
        } else if let Ok(f) = obj.cast::<PyFloat>() {
            self.float(f)
        } else if let Ok(s) = obj.cast::<PyString>() {
            self.string(s)
        } else if let Ok(l) = obj.cast::<PyList>() {
            self.list(l)
        } else if let Ok(t) = obj.cast::<PyTuple>() {
            self.w.begin_array().map_err(writer_error)?;
            for v in t.iter() {
                self.value(&v)?;
            }
            self.w.end_array().map_err(writer_error)
        } else if let Ok(d) = obj.cast::<PyDict>() {
            self.dict(d)
        } else {
            Err(PyTypeError::new_err(format!("Cannot canonicalize type: {}", type_name(obj))))
        }
    }

    fn string(&mut self, s: &Bound<'_, PyString>) -> PyResult<()> {
        let text = utf8(s).ok_or_else(|| surrogate_value_error(s))?;
        self.w.string(&text).map_err(writer_error)
    }

    fn float(&mut self, f: &Bound<'_, PyFloat>) -> PyResult<()> {
        let v = f.value();
        self.w.double(v).map_err(|e| match e {
            Error::Json { .. } => special_float_error(v),
            e => writer_error(e),
        })
    }

    fn list(&mut self, l: &Bound<'_, PyList>) -> PyResult<()> {
        self.w.begin_array().map_err(writer_error)?;
        for v in l.iter() {
            self.value(&v)?;
        }
        self.w.end_array().map_err(writer_error)
    }

    fn int(&mut self, i: &Bound<'_, PyInt>) -> PyResult<()> {
        if exact(i.as_ptr(), ffi::PyLong_CheckExact) {
            let mut overflow: std::os::raw::c_int = 0;
            // SAFETY: `i` is a live int object and the GIL is held; the call reports
            // overflow through `overflow` instead of raising.
            let v = unsafe { ffi::PyLong_AsLongLongAndOverflow(i.as_ptr(), &mut overflow) };
            if overflow == 0 && !(v == -1 && PyErr::occurred(i.py())) {
                return self.w.int(v).map_err(|e| match e {
                    Error::Json { kind: Syntax::UnsafeInteger, .. } => unsafe_integer_error(&v.to_string()),
                    e => writer_error(e),
                });
            }
            let _ = PyErr::take(i.py());
        }
        // Big ints and int subclasses: what the SDK writes, `str(value)`, if the core's
        // number policy accepts that literal.
        let s = i.str()?;
        let text = utf8(&s).ok_or_else(|| PyTypeError::new_err("int __str__ is not text"))?;
        self.w.integer(&text).map_err(|e| match e {
            Error::Json { kind: Syntax::UnsafeInteger, .. } => unsafe_integer_error(&text),
            e => writer_error(e),
        })
    }

    fn dict(&mut self, d: &Bound<'_, PyDict>) -> PyResult<()> {
        // The depth check comes first, as the container is entered.
        let mut object = self.w.begin_object().map_err(writer_error)?;
        // Keys first, in insertion order, as the SDK's sort key function sees them: the
        // first key that is not a str, or holds a lone surrogate, raises. The loop runs no
        // Python code (pyo3's iterator panics if the dict changes under it).
        let n = d.len();
        let mut items: Vec<(Bound<'_, PyString>, Bound<'_, PyAny>)> = Vec::with_capacity(n);
        let mut bad_key: Option<Bound<'_, PyAny>> = None;
        for (k, v) in d.iter() {
            match k.cast_into::<PyString>() {
                Ok(ks) => items.push((ks, v)),
                Err(e) => {
                    bad_key = Some(e.into_inner());
                    break;
                }
            }
        }
        let mut members: Vec<(Cow<'_, str>, &Bound<'_, PyAny>)> = Vec::with_capacity(items.len());
        for (k, v) in &items {
            members.push((utf8(k).ok_or_else(|| surrogate_key_error(k))?, v));
        }
        if let Some(k) = bad_key {
            return Err(new_err(
                Exc::NonStringKey,
                format!("'{}' object has no attribute 'encode'", type_name(&k)),
                Some("input"),
            ));
        }
        events::sort_members(&mut members, |m| &m.0);
        for (name, v) in &members {
            if !self.w.name(&mut object, name).map_err(writer_error)? {
                continue;
            }
            self.value(v)?;
            // A value's callback (an int subclass's `__str__`) may have changed the dict.
            if d.len() != n {
                return Err(changed_size());
            }
        }
        self.w.end_object(object).map_err(writer_error)
    }
}

/// Runs one of CPython's type-check macros on `p`.
#[inline]
fn exact(p: *mut ffi::PyObject, check: unsafe fn(*mut ffi::PyObject) -> std::os::raw::c_int) -> bool {
    // SAFETY: every caller passes a live object borrowed from a `Bound` while holding the
    // GIL, and `check` is a `Py*_Check*` macro, which only reads the object's type pointer.
    unsafe { check(p) != 0 }
}

/// The fast walk over exact built-in types; see the module docs.
///
/// **Why borrowed references are sound here.** The caller holds a strong reference to the
/// root and the GIL. Every object reached is owned by a container reachable from the root,
/// so it stays alive as long as nothing changes those containers. Nothing can: the walk
/// calls only C API functions that run no Python code on these exact types
/// (`PyDict_Next`, `PyList_Size`/`PyList_GetItem`, `PyTuple_Size`/`PyTuple_GetItem`,
/// `PyLong_AsLongLongAndOverflow`, `PyFloat_AsDouble`, `PyUnicode_AsUTF8AndSize`), and the
/// cyclic garbage collector, the one thing an allocation can start that runs Python code
/// (finalizers, weakref callbacks), is disabled for the walk. No other thread runs Python
/// code while this one holds the GIL and runs none. The UTF-8 text of a `str` is cached
/// inside the object, so it lives as long as the object.
///
/// At the first value it does not handle, or the first failed call, the walk stops
/// (`false`), touching no borrowed reference after that.
pub mod fast {
    use std::os::raw::{c_char, c_int};

    use concordia_core::jcs::events::{self, Object, Writer};
    use concordia_core::preimage::Preimage;
    use concordia_host::VecRefSink;
    use pyo3::ffi;
    use pyo3::prelude::*;

    use super::exact;

    // In the stable ABI from CPython 3.10, the wheel's floor (abi3-py310): a wheel that
    // declared 3.9 failed to import there (undefined symbol PyGC_Disable).
    extern "C" {
        fn PyUnicode_AsUTF8AndSize(unicode: *mut ffi::PyObject, size: *mut ffi::Py_ssize_t) -> *const c_char;
        fn PyGC_Disable() -> c_int;
        fn PyGC_Enable() -> c_int;
    }

    /// One member of a dict being written: its name (the key's cached UTF-8) and its value,
    /// both borrowed (see the module docs for why they stay valid).
    #[derive(Clone, Copy)]
    struct Member {
        name: *const u8,
        len: usize,
        value: *mut ffi::PyObject,
    }

    impl Member {
        /// # Safety
        /// `name`/`len` came from `PyUnicode_AsUTF8AndSize` on a key that is still alive.
        unsafe fn name<'a>(&self) -> &'a str {
            // SAFETY: per this function's contract the bytes are the UTF-8 cache of a live
            // `str`; CPython writes that cache with its strict UTF-8 encoder (a string it
            // cannot encode, one with a lone surrogate, fails instead), so they are valid
            // UTF-8 and stay in place while the string lives.
            unsafe { std::str::from_utf8_unchecked(std::slice::from_raw_parts(self.name, self.len)) }
        }
    }

    /// The walk gave up (an unhandled value, or any error): the caller runs the full walk.
    struct Stop;

    type Step = Result<(), Stop>;

    impl From<concordia_core::Error> for Stop {
        fn from(_: concordia_core::Error) -> Self {
            Stop
        }
    }

    struct Walk<'r, 'o, 'm, P: ?Sized> {
        w: Writer<'r, VecRefSink<'o>, P>,
        /// Members of the dicts being written, innermost last (one stack for the whole walk).
        members: &'m mut Vec<Member>,
    }

    /// Writes `obj` under `rule` onto the end of `out` if it is made only of exact
    /// built-in types the fast walk handles; `false` when it is not, or when anything
    /// fails (the caller discards what was written and runs the full walk).
    pub(super) fn write<P: Preimage + ?Sized>(obj: &Bound<'_, PyAny>, rule: &P, out: &mut Vec<u8>) -> bool {
        thread_local! {
            static MEMBERS: std::cell::Cell<Vec<Member>> = const { std::cell::Cell::new(Vec::new()) };
        }
        if !super::has_utf8_and_size(obj.py()) {
            return false;
        }
        let Ok(mut members) = MEMBERS.try_with(std::cell::Cell::take) else { return false };
        members.clear();
        // SAFETY: the GIL is held (`obj` is a `Bound`). Disabling the collector only sets
        // a flag; it is enabled again below, before any Python code can run.
        let was_enabled = unsafe { PyGC_Disable() } != 0;
        let mut walk = Walk { w: Writer::new(VecRefSink(out), rule), members: &mut members };
        // SAFETY: `obj` is alive (a `Bound` held by the caller), the GIL is held, and the
        // collector is disabled: the conditions of the module docs.
        let ok = unsafe { walk.value(obj.as_ptr()) }.is_ok() && walk.w.finish().is_ok();
        if was_enabled {
            // SAFETY: the GIL is held; this restores the collector's previous state.
            unsafe { PyGC_Enable() };
        }
        members.clear();
        if members.capacity() <= 4096 {
            let _ = MEMBERS.try_with(|c| c.set(members));
        }
        ok
    }

    impl<P: Preimage + ?Sized> Walk<'_, '_, '_, P> {
        /// # Safety
        /// `obj` is alive and stays so for the walk (module docs); the GIL is held and the
        /// collector disabled.
        unsafe fn value(&mut self, obj: *mut ffi::PyObject) -> Step {
            if exact(obj, ffi::PyUnicode_CheckExact) {
                // SAFETY: `obj` is a live exact `str` (this function's contract).
                let s = unsafe { utf8(obj) }?;
                return Ok(self.w.string(s)?);
            }
            if exact(obj, ffi::PyDict_CheckExact) {
                // SAFETY: `obj` is a live exact `dict` (this function's contract).
                return unsafe { self.dict(obj) };
            }
            if exact(obj, ffi::PyLong_CheckExact) {
                let mut overflow: c_int = 0;
                // SAFETY: `obj` is a live exact `int`: the call reads its digits and runs
                // no Python code (no `__index__` on an exact int).
                let v = unsafe { ffi::PyLong_AsLongLongAndOverflow(obj, &mut overflow) };
                if overflow != 0 || v == -1 && error_occurred() {
                    return Err(Stop);
                }
                return Ok(self.w.int(v)?);
            }
            if exact(obj, ffi::PyList_CheckExact) {
                self.w.begin_array()?;
                // SAFETY: `obj` is a live exact `list`.
                let n = unsafe { ffi::PyList_Size(obj) };
                for i in 0..n {
                    // SAFETY: `obj` is a live exact `list` and `i` is below its length,
                    // which cannot change (no Python code runs); the item is borrowed from
                    // the list, which keeps it alive.
                    let item = unsafe { ffi::PyList_GetItem(obj, i) };
                    if item.is_null() {
                        clear_error();
                        return Err(Stop);
                    }
                    // SAFETY: `item` is alive, owned by the list (this function's contract
                    // extends to it).
                    unsafe { self.value(item) }?;
                }
                return Ok(self.w.end_array()?);
            }
            // SAFETY: reads the address of the `None` singleton.
            if obj == unsafe { ffi::Py_None() } {
                return Ok(self.w.null()?);
            }
            if exact(obj, ffi::PyBool_Check) {
                // SAFETY: reads the address of the `True` singleton.
                return Ok(self.w.bool(obj == unsafe { ffi::Py_True() })?);
            }
            if exact(obj, ffi::PyFloat_CheckExact) {
                // SAFETY: `obj` is a live exact `float`: the call reads its value.
                let v = unsafe { ffi::PyFloat_AsDouble(obj) };
                return Ok(self.w.double(v)?);
            }
            if exact(obj, ffi::PyTuple_CheckExact) {
                self.w.begin_array()?;
                // SAFETY: `obj` is a live exact `tuple`.
                let n = unsafe { ffi::PyTuple_Size(obj) };
                for i in 0..n {
                    // SAFETY: `obj` is a live exact `tuple`, `i` below its length; the item
                    // is borrowed from the tuple, which keeps it alive.
                    let item = unsafe { ffi::PyTuple_GetItem(obj, i) };
                    if item.is_null() {
                        clear_error();
                        return Err(Stop);
                    }
                    // SAFETY: `item` is alive, owned by the tuple.
                    unsafe { self.value(item) }?;
                }
                return Ok(self.w.end_array()?);
            }
            Err(Stop)
        }

        /// # Safety
        /// As `Walk::value`, and `d` is an exact `dict`.
        unsafe fn dict(&mut self, d: *mut ffi::PyObject) -> Step {
            let mut object: Object<'_> = self.w.begin_object()?;
            let start = self.members.len();
            let mut pos: ffi::Py_ssize_t = 0;
            let mut k: *mut ffi::PyObject = std::ptr::null_mut();
            let mut v: *mut ffi::PyObject = std::ptr::null_mut();
            // SAFETY: `d` is a live exact dict; `PyDict_Next` hands out borrowed
            // references to its keys and values, which the dict keeps alive (it cannot
            // change: no Python code runs).
            while unsafe { ffi::PyDict_Next(d, &mut pos, &mut k, &mut v) } != 0 {
                if !exact(k, ffi::PyUnicode_CheckExact) {
                    return Err(Stop);
                }
                let mut len: ffi::Py_ssize_t = 0;
                // SAFETY: `k` is a live exact `str` owned by the dict.
                let name = unsafe { PyUnicode_AsUTF8AndSize(k, &mut len) };
                if name.is_null() {
                    clear_error();
                    return Err(Stop);
                }
                let len = usize::try_from(len).map_err(|_| Stop)?;
                self.members.push(Member { name: name.cast(), len, value: v });
            }
            let members = self.members.get_mut(start..).ok_or(Stop)?;
            // SAFETY: every member's name is the UTF-8 cache of a key of `d`, alive.
            events::sort_members(members, |m| unsafe { m.name() });
            for i in start..self.members.len() {
                let m = *self.members.get(i).ok_or(Stop)?;
                // SAFETY: as above: the key of `m` is alive for the whole walk.
                let name = unsafe { m.name() };
                if self.w.name(&mut object, name)? {
                    // SAFETY: the value is owned by `d`, alive (this function's contract).
                    unsafe { self.value(m.value) }?;
                }
            }
            self.members.truncate(start);
            Ok(self.w.end_object(object)?)
        }
    }

    /// The UTF-8 text of a live exact `str`, or `Stop` for a lone surrogate.
    ///
    /// # Safety
    /// `s` is a live `str` that stays alive for `'a`, the GIL is held and no Python code
    /// runs during `'a`.
    unsafe fn utf8<'a>(s: *mut ffi::PyObject) -> Result<&'a str, Stop> {
        let mut len: ffi::Py_ssize_t = 0;
        // SAFETY: `s` is a live `str` (this function's contract).
        let p = unsafe { PyUnicode_AsUTF8AndSize(s, &mut len) };
        if p.is_null() {
            clear_error();
            return Err(Stop);
        }
        let len = usize::try_from(len).map_err(|_| Stop)?;
        // SAFETY: on success CPython returns `len` bytes of its strict UTF-8 encoding of
        // `s`, cached inside `s`, which is alive for `'a`.
        Ok(unsafe { std::str::from_utf8_unchecked(std::slice::from_raw_parts(p.cast::<u8>(), len)) })
    }

    fn error_occurred() -> bool {
        // SAFETY: the GIL is held by every caller (inside the walk).
        !unsafe { ffi::PyErr_Occurred() }.is_null()
    }

    fn clear_error() {
        // SAFETY: the GIL is held by every caller (inside the walk); clearing an error
        // drops an exception object, whose C deallocator runs no Python code.
        unsafe { ffi::PyErr_Clear() }
    }
}
