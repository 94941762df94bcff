//! Arguments of the `consensus` and `aip` submodules: documents given as dicts or JSON
//! text (exactly the files the CLI reads), times given as Unix seconds or RFC 3339, and
//! results handed back as Python values. Conversion only; every rule is the core's.

use concordia_core::time::Timestamp;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyString};

use crate::errors::{core, new_err, Exc};
use crate::{now_ts, timestamp_of};

/// JSON text of a document argument: `str` or `bytes` (or `bytearray`) as given (a file's
/// content), anything else written by Python's `json` (a dict, a list: the same document
/// as its JSON text). A value `json` cannot write is an `InvalidArgumentError`.
pub fn doc_text(obj: &Bound<'_, PyAny>) -> PyResult<Vec<u8>> {
    if let Ok(b) = obj.cast::<PyBytes>() {
        return Ok(b.as_bytes().to_vec());
    }
    if let Ok(s) = obj.cast::<PyString>() {
        return utf8_of(s);
    }
    if let Ok(b) = obj.cast::<pyo3::types::PyByteArray>() {
        return Ok(b.to_vec());
    }
    let py = obj.py();
    let kwargs = pyo3::types::PyDict::new(py);
    kwargs.set_item("ensure_ascii", false)?;
    kwargs.set_item("allow_nan", false)?;
    let text = py
        .import("json")?
        .call_method("dumps", (obj,), Some(&kwargs))
        .map_err(|e| new_err(Exc::InvalidArgument, format!("not a JSON document: {}", e.value(py)), Some("input")))?;
    utf8_of(text.cast::<PyString>()?)
}

/// The UTF-8 bytes of a `str`; one with a lone surrogate (not UTF-8, so no JSON text) is
/// an `InvalidArgumentError`.
fn utf8_of(s: &Bound<'_, PyString>) -> PyResult<Vec<u8>> {
    match s.to_cow() {
        Ok(t) => Ok(t.as_bytes().to_vec()),
        Err(_) => Err(new_err(Exc::InvalidArgument, "text with a lone surrogate is not UTF-8", Some("input"))),
    }
}

/// Bytes of a `str` (UTF-8) or bytes-like argument.
pub fn bytes_arg(obj: &Bound<'_, PyAny>, what: &str) -> PyResult<Vec<u8>> {
    if let Ok(s) = obj.cast::<PyString>() {
        return utf8_of(s);
    }
    if let Ok(b) = obj.cast::<PyBytes>() {
        return Ok(b.as_bytes().to_vec());
    }
    if let Ok(b) = obj.cast::<pyo3::types::PyByteArray>() {
        return Ok(b.to_vec());
    }
    Err(pyo3::exceptions::PyTypeError::new_err(format!("{what} must be str or bytes")))
}

/// A time argument: `None` (the clock), Unix seconds (int or float) or text read by
/// `parse` (the core's reader of the surface: RFC 3339 for AIP, the contract's date-time
/// rule for Consensus, as the CLI's `--now`).
pub fn time_arg(
    py: Python<'_>,
    t: Option<&Bound<'_, PyAny>>,
    parse: fn(&str) -> concordia_core::Result<Timestamp>,
) -> PyResult<Timestamp> {
    match t.filter(|t| !t.is_none()) {
        None => now_ts(py),
        Some(t) => match t.cast::<PyString>() {
            Ok(s) => core(parse(&s.to_cow()?)),
            Err(_) => match t.extract::<f64>() {
                Ok(secs) if t.cast::<pyo3::types::PyBool>().is_err() => timestamp_of(secs),
                _ => Err(pyo3::exceptions::PyTypeError::new_err(
                    "a time is Unix seconds (int or float) or RFC 3339 text",
                )),
            },
        },
    }
}

/// A Python value of JSON text the core wrote (`json.loads`).
pub fn loads<'py>(py: Python<'py>, text: &[u8]) -> PyResult<Bound<'py, PyAny>> {
    py.import("json")?.call_method1("loads", (PyBytes::new(py, text),))
}

/// Registers `module` as `concordia_rs.<name>` (importable: `import concordia_rs.<name>`).
pub fn register_submodule(parent: &Bound<'_, PyModule>, module: &Bound<'_, PyModule>, name: &str) -> PyResult<()> {
    let py = parent.py();
    // sys.modules holds it (as an attribute of the native module it would be one more
    // public name there; `concordia_rs/__init__.py` binds it on the package).
    py.import("sys")?.getattr("modules")?.set_item(format!("concordia_rs.{name}"), module)
}
