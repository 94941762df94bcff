//! Caller-supplied attestation members given as JSON, checked and normalized with the
//! reference SDK's rules: `validity_temporal` (`_validate_validity_temporal`, the caller's
//! timestamp texts kept as given) and `references` (SPEC §11.5, `_validate_reference`).

use crate::error::{Error, Result};
use crate::json::{Kind, Str, Value};
use crate::sink::{CountSink, Sink};
use crate::time::{self, Timestamp};

use super::Validity;

/// Most entries in `references`.
pub const MAX_REFERENCES: usize = 32;
/// Longest `type` of a reference, in characters.
pub const MAX_REFERENCE_TYPE_LENGTH: usize = 64;
/// Longest `relationship` of a reference, in characters.
pub const MAX_REFERENCE_RELATIONSHIP_LENGTH: usize = 64;
/// Longest `id` of a reference, in characters.
pub const MAX_REFERENCE_ID_LENGTH: usize = 256;
/// Longest `version`, `signed_at` or `signer_did` of a reference, in characters.
pub const MAX_REFERENCE_OPTIONAL_STRING_LENGTH: usize = 256;
/// Largest canonical form of a reference's `extensions`, in bytes.
pub const MAX_REFERENCE_EXTENSIONS_BYTES: usize = 2048;
/// Deepest nesting of a reference's `extensions` (the object itself is depth 1).
pub const MAX_REFERENCE_EXTENSIONS_DEPTH: usize = 8;
/// Most values in a reference's `extensions` (the object itself included).
pub const MAX_REFERENCE_EXTENSIONS_NODES: usize = 256;

/// The one rule for a validity window, typed or read from JSON: `until` (`end`) strictly
/// after `from` (`start`), a duration of at least one second, and a window's duration no
/// longer than the window (the SDK's `duration > (end - start).total_seconds()`).
pub(super) fn check_validity(v: &Validity) -> Result<()> {
    match *v {
        Validity::Absolute { from, until } if until <= from => {
            Err(Error::InvalidArgument("validity until must be after from"))
        }
        Validity::Window { start, end, .. } if end <= start => {
            Err(Error::InvalidArgument("validity end must be after start"))
        }
        Validity::Relative { duration_seconds: 0, .. } | Validity::Window { duration_seconds: 0, .. } => {
            Err(Error::InvalidArgument("validity duration must be at least 1"))
        }
        Validity::Window { start, end, duration_seconds } => check_span(start, end, u64::from(duration_seconds)),
        _ => Ok(()),
    }
}

fn check_span(start: Timestamp, end: Timestamp, duration: u64) -> Result<()> {
    let fits = i64::try_from(duration).ok().and_then(|d| start.add_seconds(d).ok()).is_some_and(|t| t <= end);
    if fits {
        Ok(())
    } else {
        Err(Error::InvalidArgument("validity duration exceeds the window"))
    }
}

/// Reads a `validity_temporal` object with the SDK's rules: `mode` one of `absolute`
/// (`from`, `until`), `relative` (`from`, `duration_seconds`) or `window` (`start`, `end`,
/// `duration_seconds`); timestamps as Python's `datetime.fromisoformat` reads them (a
/// trailing `Z` is UTC, a text without an offset is UTC); durations integers of at least
/// 1 (a window's no longer than the window); `until` after `from`, `end` after `start`.
/// Members other than these are ignored (and left out of the record).
///
/// # Errors
/// [`Error::InvalidArgument`] for anything else (the SDK's `ValueError`).
pub fn validity_from_json(vt: Value<'_>) -> Result<Validity> {
    if vt.kind() != Kind::Object {
        return Err(Error::InvalidArgument("validity_temporal must be an object"));
    }
    let mode = vt.get("mode").and_then(|m| m.as_str());
    let field = |name: &str| vt.get(name).ok_or(Error::InvalidArgument("validity_temporal member missing"));
    let ts = |name: &str| -> Result<Timestamp> { timestamp(field(name)?) };
    let duration = |v: Value<'_>| -> Result<u64> {
        let d = v.is_integer_literal().then(|| v.as_i64()).flatten().and_then(|d| u64::try_from(d).ok());
        d.filter(|&d| d >= 1).ok_or(Error::InvalidArgument("validity duration_seconds must be a positive integer"))
    };
    let v = if mode.is_some_and(|m| m.eq_str("absolute")) {
        Validity::Absolute { from: ts("from")?, until: ts("until")? }
    } else if mode.is_some_and(|m| m.eq_str("relative")) {
        let from = ts("from")?;
        let d = duration(field("duration_seconds")?)?;
        Validity::Relative {
            from,
            duration_seconds: u32::try_from(d)
                .map_err(|_| Error::InvalidArgument("validity duration_seconds beyond 2^32 - 1"))?,
        }
    } else if mode.is_some_and(|m| m.eq_str("window")) {
        let (start, end) = (ts("start")?, ts("end")?);
        if end <= start {
            return Err(Error::InvalidArgument("validity end must be after start"));
        }
        let d = duration(field("duration_seconds")?)?;
        check_span(start, end, d)?;
        Validity::Window {
            start,
            end,
            duration_seconds: u32::try_from(d)
                .map_err(|_| Error::InvalidArgument("validity duration_seconds beyond 2^32 - 1"))?,
        }
    } else {
        return Err(Error::InvalidArgument("validity_temporal mode must be absolute, relative or window"));
    };
    check_validity(&v)?;
    Ok(v)
}

fn timestamp(v: Value<'_>) -> Result<Timestamp> {
    let s = v.as_str().ok_or(Error::InvalidArgument("validity timestamp must be a string"))?;
    let mut buf = [0u8; 256];
    let text = s.decode_into(&mut buf).map_err(|_| Error::InvalidArgument("validity timestamp"))?;
    time::parse_datetime_assume_utc(text).map_err(|_| Error::InvalidArgument("validity timestamp is not ISO 8601"))
}

/// Writes the normalized `validity_temporal` of a checked object: `mode` and that mode's
/// members only, each value as the caller wrote it (canonical).
pub(super) fn write_validity_json<S: Sink + ?Sized>(vt: Value<'_>, s: &mut S) -> Result<()> {
    let mode = vt.get("mode").and_then(|m| m.as_str());
    let names: &[&str] = if mode.is_some_and(|m| m.eq_str("absolute")) {
        &["from", "mode", "until"]
    } else if mode.is_some_and(|m| m.eq_str("relative")) {
        &["duration_seconds", "from", "mode"]
    } else {
        &["duration_seconds", "end", "mode", "start"]
    };
    write_members(vt, names, s)
}

/// `{"name":value,...}` for the members of `obj` among `names` (given in canonical order).
fn write_members<S: Sink + ?Sized>(obj: Value<'_>, names: &[&str], s: &mut S) -> Result<()> {
    s.write(b"{")?;
    let mut first = true;
    for name in names {
        if let Some(v) = obj.get(name) {
            s.write(if first { b"\"" } else { b",\"" })?;
            s.write(name.as_bytes())?;
            s.write(b"\":")?;
            crate::jcs::write(v, s)?;
            first = false;
        }
    }
    s.write(b"}")
}

/// Python truthiness, as the SDK's `if references:` reads it.
fn truthy(v: Value<'_>) -> bool {
    match v.kind() {
        Kind::Null | Kind::False => false,
        Kind::True => true,
        Kind::Number => v.as_f64().is_some_and(|f| f != 0.0),
        Kind::String => v.as_str().is_some_and(|s| !s.raw().is_empty()),
        Kind::Array | Kind::Object => !v.is_empty(),
    }
}

/// The reference entries to write: `None` when `references` is absent or falsy (the SDK
/// writes `[]`).
fn entries(refs: Option<Value<'_>>) -> Option<Value<'_>> {
    refs.filter(|r| truthy(*r))
}

/// Checks `references` with the SDK's rules (SPEC §11.5.6, and the SDK's L3 caps): an array
/// of at most [`MAX_REFERENCES`] objects, each with `type`, `id` and `relationship`,
/// optionally `version`, `signed_at`, `signer_did` (non-empty strings within their caps and
/// without Python `\s` whitespace) and `extensions` (an object at most
/// [`MAX_REFERENCE_EXTENSIONS_DEPTH`] deep, of at most [`MAX_REFERENCE_EXTENSIONS_NODES`]
/// values and [`MAX_REFERENCE_EXTENSIONS_BYTES`] canonical bytes). Unknown `type` and
/// `relationship` values are kept (§11.5.8); other members are dropped. Absent or falsy
/// `references` is no references.
///
/// # Errors
/// [`Error::InvalidArgument`] (the SDK's `ValueError`).
pub fn check_references(refs: Option<Value<'_>>) -> Result<()> {
    let Some(refs) = entries(refs) else { return Ok(()) };
    if refs.kind() != Kind::Array {
        return Err(Error::InvalidArgument("references must be a list"));
    }
    if refs.len() > MAX_REFERENCES {
        return Err(Error::InvalidArgument("references exceeds 32 entries"));
    }
    for r in refs.elements() {
        if r.kind() != Kind::Object {
            return Err(Error::InvalidArgument("reference must be an object"));
        }
        for (name, cap, required) in [
            ("type", MAX_REFERENCE_TYPE_LENGTH, true),
            ("id", MAX_REFERENCE_ID_LENGTH, true),
            ("relationship", MAX_REFERENCE_RELATIONSHIP_LENGTH, true),
            ("version", MAX_REFERENCE_OPTIONAL_STRING_LENGTH, false),
            ("signed_at", MAX_REFERENCE_OPTIONAL_STRING_LENGTH, false),
            ("signer_did", MAX_REFERENCE_OPTIONAL_STRING_LENGTH, false),
        ] {
            match r.get(name) {
                None if required => return Err(Error::InvalidArgument("reference misses type, id or relationship")),
                Some(v) if !v.as_str().is_some_and(|s| identifier(s, cap)) => {
                    return Err(Error::InvalidArgument(
                        "reference strings must be non-empty, short and without whitespace",
                    ));
                }
                _ => {}
            }
        }
        if let Some(ext) = r.get("extensions") {
            if ext.kind() != Kind::Object {
                return Err(Error::InvalidArgument("reference extensions must be an object"));
            }
            let mut nodes = 1;
            structure(ext, 1, &mut nodes)?;
            let mut count = CountSink::default();
            crate::jcs::write(ext, &mut count)?;
            if count.0 > MAX_REFERENCE_EXTENSIONS_BYTES {
                return Err(Error::InvalidArgument("reference extensions exceed 2048 canonical bytes"));
            }
        }
    }
    Ok(())
}

fn identifier(s: Str<'_>, cap: usize) -> bool {
    let mut n = 0;
    for c in s.chars() {
        if crate::pyre::is_space(c) {
            return false;
        }
        n += 1;
    }
    n > 0 && n <= cap
}

/// The SDK's `_check_extensions_structure`: every value below `v` (at `depth`) counted,
/// none deeper than the cap.
fn structure(v: Value<'_>, depth: usize, nodes: &mut usize) -> Result<()> {
    let children = v.members().map(|(_, c)| c).chain(v.elements());
    for child in children {
        if depth + 1 > MAX_REFERENCE_EXTENSIONS_DEPTH {
            return Err(Error::InvalidArgument("reference extensions nested too deep"));
        }
        *nodes += 1;
        if *nodes > MAX_REFERENCE_EXTENSIONS_NODES {
            return Err(Error::InvalidArgument("reference extensions have too many values"));
        }
        structure(child, depth + 1, nodes)?;
    }
    Ok(())
}

/// Writes the normalized `references` array (`[]` when there are none).
pub(super) fn write_references<S: Sink + ?Sized>(refs: Option<Value<'_>>, s: &mut S) -> Result<()> {
    s.write(b"[")?;
    for (i, r) in entries(refs).map(|r| r.elements()).into_iter().flatten().enumerate() {
        if i > 0 {
            s.write(b",")?;
        }
        write_members(r, &["extensions", "id", "relationship", "signed_at", "signer_did", "type", "version"], s)?;
    }
    s.write(b"]")
}
