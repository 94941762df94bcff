//! Python values to RFC 8785 canonical JSON, walking the objects directly.
//!
//! The walk mirrors the reference SDK's `canonical_json` value by value: `None`, `bool`,
//! `int` (any size, printed exactly as `str(int)` prints it, as the SDK does), `float`
//! (ECMAScript form; NaN, infinities and -0.0 rejected), `str` (lone surrogates rejected),
//! `list` and `tuple`, `dict` with `str` keys (subclasses of each included). Anything else
//! raises `TypeError`. All output formatting is the core's: [`jcs::write_plain_str`] for
//! strings, [`NumberBuf`] for doubles, [`cmp_utf8_as_utf16`] for member order.
//!
//! When a value is rejected, the error raised is the one the SDK raises first: its
//! special-float pre-scan runs over the whole value before serialization, so a
//! NaN/infinity/-0.0 anywhere wins over any other problem.
//!
//! Two rules come from the core, so that a dict and its JSON text get one verdict on every
//! path (sign, hash, verify, sessions, transcripts): nesting is bounded by the core's
//! [`DEFAULT_MAX_DEPTH`] containers, as the reader counts them, and an integer is written
//! only when [`integer_literal_value`] accepts its literal (beyond 2^53 - 1, only the
//! ECMAScript form of its double). Both refusals raise `CanonicalizationError` (a
//! `ValueError`) where the SDK would have serialized the value: stricter, never more lenient.
//!
//! A dict that changes size while it is walked (a callback such as an int subclass's
//! `__str__` mutating it) raises `RuntimeError`, as CPython's own dict iteration does; the
//! walk never lets Python code run while it iterates a dict, so nothing here can panic.

use std::borrow::Cow;
use std::sync::atomic::{AtomicU8, Ordering};

use concordia_core::error::Limit;
use concordia_core::jcs::{write_plain_str, NumberBuf};
use concordia_core::json::{cmp_utf8_as_utf16, integer_literal_value, DEFAULT_MAX_DEPTH, MAX_SAFE_INTEGER};
use concordia_core::sink::Sink;
use concordia_core::Error;
use pyo3::exceptions::{PyRuntimeError, PyTypeError, PyUnicodeEncodeError};
use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};

use crate::errors::{new_err, Exc};

/// Deepest nesting of containers (dicts, lists, tuples) the walk accepts: the core's
/// policy, [`DEFAULT_MAX_DEPTH`], counted as the JSON reader counts it (128 nested
/// containers are accepted, 129 refused), so a value and its JSON text agree.
pub const MAX_DEPTH: usize = DEFAULT_MAX_DEPTH as usize;

/// The error for a container nested deeper than [`MAX_DEPTH`].
fn depth_error() -> PyErr {
    let e = Error::Limit { kind: Limit::Depth, offset: 0 };
    new_err(
        Exc::Canonicalization,
        format!("Cannot canonicalize a value nested deeper than {MAX_DEPTH} containers ({})", Limit::Depth),
        Some(e.class().as_str()),
    )
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

/// A `Vec<u8>` as a core [`Sink`].
pub struct VecSink<'a>(pub &'a mut Vec<u8>);

impl Sink for VecSink<'_> {
    #[inline]
    fn write(&mut self, bytes: &[u8]) -> concordia_core::Result<()> {
        self.0.extend_from_slice(bytes);
        Ok(())
    }
}

// PyUnicode_AsUTF8AndSize is in the stable ABI from CPython 3.10; pyo3 hides it for an
// abi3-py39 build, so it is declared here and only called on 3.10 or later.
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
        Ok((i, _)) => PyUnicodeEncodeError::new_err(("utf-16-be", s.clone().unbind(), i, i + 1, "surrogates not allowed")),
        Err(e) => e,
    }
}

fn type_name(obj: &Bound<'_, PyAny>) -> String {
    obj.get_type().name().map(|n| n.to_string()).unwrap_or_else(|_| "object".into())
}

/// Scans like the SDK's `_check_no_special_floats`: dict values, list and tuple items, down
/// to [`MAX_DEPTH`] containers (deeper, the walk's own depth error stands). Runs no Python
/// code.
pub fn check_special_floats(obj: &Bound<'_, PyAny>, depth: usize) -> PyResult<()> {
    if depth > MAX_DEPTH {
        return Ok(());
    }
    if let Ok(f) = obj.cast::<PyFloat>() {
        let v = f.value();
        if v.is_nan() || v.is_infinite() {
            let shown = if v.is_nan() { "nan" } else if v > 0.0 { "inf" } else { "-inf" };
            return Err(new_err(Exc::Canonicalization, format!("Cannot serialize special float: {shown}"), Some("input")));
        }
        if v == 0.0 && v.is_sign_negative() {
            return Err(new_err(Exc::Canonicalization, "Cannot serialize negative zero (-0.0)", Some("input")));
        }
    } else if let Ok(d) = obj.cast::<PyDict>() {
        for (_, v) in items(d) {
            check_special_floats(&v, depth + 1)?;
        }
    } else if let Ok(l) = obj.cast::<PyList>() {
        for v in l.iter() {
            check_special_floats(&v, depth + 1)?;
        }
    } else if let Ok(t) = obj.cast::<PyTuple>() {
        for v in t.iter() {
            check_special_floats(&v, depth + 1)?;
        }
    }
    Ok(())
}

/// Appends the canonical JSON of `obj` to `out`. At the top level, a member named `skip`
/// (the SDK's `{k: v for k, v in data.items() if k != "signature"}`) is left out.
///
/// # Errors
/// `ValueError` subclasses for special floats and lone surrogates (the same error the SDK
/// raises first), and for nesting beyond [`MAX_DEPTH`] and integers the core's number
/// policy refuses; `TypeError` for other types; `RuntimeError` for a dict changed during
/// the walk.
pub fn write(obj: &Bound<'_, PyAny>, skip: Option<&str>, out: &mut Vec<u8>) -> PyResult<()> {
    let start = out.len();
    let r = Walker { out, nb: NumberBuf::new() }.value(obj, 0, skip);
    if let Err(e) = r {
        out.truncate(start);
        // The SDK scans the whole value for special floats before serializing anything.
        let scan = match (skip, obj.cast::<PyDict>()) {
            (Some(k), Ok(d)) => items(d)
                .into_iter()
                .filter(|(key, _)| !key.cast::<PyString>().is_ok_and(|s| utf8(s).is_some_and(|t| t == k)))
                .try_for_each(|(_, v)| check_special_floats(&v, 1)),
            _ => check_special_floats(obj, 0),
        };
        scan?;
        return Err(e);
    }
    Ok(())
}

/// The canonical JSON of `obj` as a new buffer.
pub fn to_vec(obj: &Bound<'_, PyAny>, skip: Option<&str>) -> PyResult<Vec<u8>> {
    let mut out = Vec::with_capacity(256);
    write(obj, skip, &mut out)?;
    Ok(out)
}

struct Walker<'o> {
    out: &'o mut Vec<u8>,
    nb: NumberBuf,
}

impl Walker<'_> {
    /// `depth`: the containers around `obj`.
    fn value(&mut self, obj: &Bound<'_, PyAny>, depth: usize, skip: Option<&str>) -> PyResult<()> {
        let p = obj.as_ptr();
        // Exact built-in types first: one type-pointer comparison each; each
        // `cast_unchecked` follows the check that makes it valid.
        if exact(p, ffi::PyUnicode_CheckExact) {
            // SAFETY: `obj` is exactly a `str` (checked just above).
            return self.string(unsafe { obj.cast_unchecked::<PyString>() });
        }
        if exact(p, ffi::PyDict_CheckExact) {
            // SAFETY: `obj` is exactly a `dict` (checked just above).
            return self.dict(unsafe { obj.cast_unchecked::<PyDict>() }, depth, skip);
        }
        if exact(p, ffi::PyLong_CheckExact) {
            // SAFETY: `obj` is exactly an `int` (checked just above).
            return self.int(unsafe { obj.cast_unchecked::<PyInt>() });
        }
        if exact(p, ffi::PyList_CheckExact) {
            // SAFETY: `obj` is exactly a `list` (checked just above).
            return self.list(unsafe { obj.cast_unchecked::<PyList>() }, depth);
        }
        if obj.is_none() {
            self.out.extend_from_slice(b"null");
            return Ok(());
        }
        if exact(p, ffi::PyBool_Check) {
            self.out.extend_from_slice(if obj.is_truthy()? { b"true" } else { b"false" });
            return Ok(());
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
            self.list(l, depth)
        } else if let Ok(t) = obj.cast::<PyTuple>() {
            if depth >= MAX_DEPTH {
                return Err(depth_error());
            }
            self.out.push(b'[');
            for (i, v) in t.iter().enumerate() {
                if i > 0 {
                    self.out.push(b',');
                }
                self.value(&v, depth + 1, None)?;
            }
            self.out.push(b']');
            Ok(())
        } else if let Ok(d) = obj.cast::<PyDict>() {
            self.dict(d, depth, skip)
        } else {
            Err(PyTypeError::new_err(format!("Cannot canonicalize type: {}", type_name(obj))))
        }
    }

    fn string(&mut self, s: &Bound<'_, PyString>) -> PyResult<()> {
        let text = utf8(s).ok_or_else(|| surrogate_value_error(s))?;
        let _ = write_plain_str(&text, &mut VecSink(self.out));
        Ok(())
    }

    fn float(&mut self, f: &Bound<'_, PyFloat>) -> PyResult<()> {
        let v = f.value();
        if !v.is_finite() || (v == 0.0 && v.is_sign_negative()) {
            return check_special_floats(f.as_any(), 0);
        }
        let text = self.nb.format(v);
        self.out.extend_from_slice(text.as_bytes());
        Ok(())
    }

    fn list(&mut self, l: &Bound<'_, PyList>, depth: usize) -> PyResult<()> {
        if depth >= MAX_DEPTH {
            return Err(depth_error());
        }
        self.out.push(b'[');
        for (i, v) in l.iter().enumerate() {
            if i > 0 {
                self.out.push(b',');
            }
            self.value(&v, depth + 1, None)?;
        }
        self.out.push(b']');
        Ok(())
    }

    fn int(&mut self, i: &Bound<'_, PyInt>) -> PyResult<()> {
        if exact(i.as_ptr(), ffi::PyLong_CheckExact) {
            let mut overflow: std::os::raw::c_int = 0;
            // SAFETY: `i` is a live int object and the GIL is held; the call reports
            // overflow through `overflow` instead of raising.
            let v = unsafe { ffi::PyLong_AsLongLongAndOverflow(i.as_ptr(), &mut overflow) };
            if overflow == 0 && !(v == -1 && PyErr::occurred(i.py())) && v.unsigned_abs() <= MAX_SAFE_INTEGER {
                write_i64(v, self.out);
                return Ok(());
            }
            let _ = PyErr::take(i.py());
        }
        // Big ints and int subclasses: what the SDK writes, `str(value)`, if the core's
        // number policy accepts that literal (the JSON reader asks the same function).
        let s = i.str()?;
        let text = utf8(&s).ok_or_else(|| PyTypeError::new_err("int __str__ is not text"))?;
        if integer_literal_value(&text).is_none() {
            return Err(new_err(
                Exc::Canonicalization,
                format!(
                    "Cannot canonicalize integer {}: beyond 2^53 - 1 and not the ECMAScript form of a double \
                     (carry it as a string)",
                    text.get(..40).unwrap_or(&text)
                ),
                Some("input"),
            ));
        }
        self.out.extend_from_slice(text.as_bytes());
        Ok(())
    }

    fn dict(&mut self, d: &Bound<'_, PyDict>, depth: usize, skip: Option<&str>) -> PyResult<()> {
        if depth >= MAX_DEPTH {
            return Err(depth_error());
        }
        // Keys first, in insertion order, as the SDK's sort key function sees them: the
        // first key that is not a str, or holds a lone surrogate, raises. The loop runs no
        // Python code (pyo3's iterator panics if the dict changes under it).
        let n = d.len();
        let mut keys: Vec<Bound<'_, PyString>> = Vec::with_capacity(n);
        let mut vals: Vec<Bound<'_, PyAny>> = Vec::with_capacity(n);
        let mut bad_key: Option<Bound<'_, PyAny>> = None;
        for (k, v) in d.iter() {
            match k.cast_into::<PyString>() {
                Ok(ks) => {
                    keys.push(ks);
                    vals.push(v);
                }
                Err(e) => {
                    bad_key = Some(e.into_inner());
                    break;
                }
            }
        }
        let mut entries: Vec<(Cow<'_, str>, usize)> = Vec::with_capacity(n);
        for (i, k) in keys.iter().enumerate() {
            let text = utf8(k).ok_or_else(|| surrogate_key_error(k))?;
            if skip.is_some_and(|s| s == text) {
                continue;
            }
            entries.push((text, i));
        }
        if let Some(k) = bad_key {
            return Err(new_err(
                Exc::NonStringKey,
                format!("'{}' object has no attribute 'encode'", type_name(&k)),
                Some("input"),
            ));
        }
        entries.sort_unstable_by(|a, b| cmp_utf8_as_utf16(a.0.as_bytes(), b.0.as_bytes()));
        self.out.push(b'{');
        for (j, (k, i)) in entries.iter().enumerate() {
            if j > 0 {
                self.out.push(b',');
            }
            let _ = write_plain_str(k, &mut VecSink(self.out));
            self.out.push(b':');
            if let Some(v) = vals.get(*i) {
                self.value(v, depth + 1, None)?;
            }
            // A value's callback (an int subclass's `__str__`) may have changed the dict.
            if d.len() != n {
                return Err(changed_size());
            }
        }
        self.out.push(b'}');
        Ok(())
    }
}

/// Runs one of CPython's type-check macros on `p`.
#[inline]
fn exact(p: *mut ffi::PyObject, check: unsafe fn(*mut ffi::PyObject) -> std::os::raw::c_int) -> bool {
    // SAFETY: every caller passes a live object borrowed from a `Bound` while holding the
    // GIL, and `check` is a `Py*_Check*` macro, which only reads the object's type pointer.
    unsafe { check(p) != 0 }
}

fn write_i64(v: i64, out: &mut Vec<u8>) {
    let mut buf = [0u8; 20];
    let mut i = buf.len();
    let mut u = v.unsigned_abs();
    loop {
        i -= 1;
        if let Some(slot) = buf.get_mut(i) {
            *slot = b'0' + (u % 10) as u8;
        }
        u /= 10;
        if u == 0 {
            break;
        }
    }
    if v < 0 {
        out.push(b'-');
    }
    out.extend_from_slice(buf.get(i..).unwrap_or(&[]));
}
