//! The independent RFC 8785 oracle of `jcs_differential`.
//!
//! Nothing here comes from the core: `serde_json` (with `float_roundtrip`, so decimal to
//! double conversion is correctly rounded) parses, member names are sorted by UTF-16 code
//! units (RFC 8785 §3.2.3), numbers are written by `ryu-js` (ECMAScript
//! `Number::toString`, RFC 8785 §3.2.2.3) and strings with the minimal escapes of
//! RFC 8785 §3.2.2.2.

use concordia_core::error::{Limit, Syntax};
use concordia_core::Error;
use serde_json::Value;

/// The oracle's canonical form of `input`, or `None` when `serde_json` rejects it.
pub fn canonicalize(input: &[u8]) -> Option<Vec<u8>> {
    let v: Value = serde_json::from_slice(input).ok()?;
    let mut out = Vec::with_capacity(input.len());
    write(&v, &mut out);
    Some(out)
}

fn write(v: &Value, out: &mut Vec<u8>) {
    match v {
        Value::Null => out.extend_from_slice(b"null"),
        Value::Bool(true) => out.extend_from_slice(b"true"),
        Value::Bool(false) => out.extend_from_slice(b"false"),
        Value::Number(n) => {
            // u64 / i64 / f64 as serde_json holds them; `as f64` rounds to nearest, as
            // reading the decimal literal does.
            let f = n.as_f64().unwrap_or(f64::NAN);
            let mut buf = ryu_js::Buffer::new();
            out.extend_from_slice(buf.format(f).as_bytes());
        }
        Value::String(s) => write_str(s, out),
        Value::Array(a) => {
            out.push(b'[');
            for (i, e) in a.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                write(e, out);
            }
            out.push(b']');
        }
        Value::Object(m) => {
            let mut members: Vec<(&String, &Value)> = m.iter().collect();
            members.sort_by(|a, b| a.0.encode_utf16().cmp(b.0.encode_utf16()));
            out.push(b'{');
            for (i, (k, e)) in members.into_iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                write_str(k, out);
                out.push(b':');
                write(e, out);
            }
            out.push(b'}');
        }
    }
}

fn write_str(s: &str, out: &mut Vec<u8>) {
    out.push(b'"');
    for c in s.chars() {
        match c {
            '"' => out.extend_from_slice(b"\\\""),
            '\\' => out.extend_from_slice(b"\\\\"),
            '\u{8}' => out.extend_from_slice(b"\\b"),
            '\t' => out.extend_from_slice(b"\\t"),
            '\n' => out.extend_from_slice(b"\\n"),
            '\u{c}' => out.extend_from_slice(b"\\f"),
            '\r' => out.extend_from_slice(b"\\r"),
            c if (c as u32) < 0x20 => out.extend_from_slice(format!("\\u{:04x}", c as u32).as_bytes()),
            c => {
                let mut b = [0u8; 4];
                out.extend_from_slice(c.encode_utf8(&mut b).as_bytes());
            }
        }
    }
    out.push(b'"');
}

/// The deepest container nesting in `input`, counted over brackets outside strings
/// (exact for any text `serde_json` accepts).
pub fn max_depth(input: &[u8]) -> usize {
    let (mut depth, mut max, mut in_str, mut esc) = (0usize, 0usize, false, false);
    for &b in input {
        if in_str {
            match (esc, b) {
                (true, _) => esc = false,
                (false, b'\\') => esc = true,
                (false, b'"') => in_str = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' => in_str = true,
            b'[' | b'{' => {
                depth += 1;
                max = max.max(depth);
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    max
}

/// True when the core rejecting a text that `serde_json` accepts is one of the core's
/// documented policies (json.rs module docs): duplicate names (serde_json keeps the last),
/// negative zero, integer literals beyond 2^53 - 1 that are not their own ECMAScript form,
/// a byte order mark, lone surrogates, and the nesting bound.
pub fn documented_rejection(e: &Error) -> bool {
    matches!(
        e,
        Error::Json {
            kind: Syntax::DuplicateKey
                | Syntax::NegativeZero
                | Syntax::UnsafeInteger
                | Syntax::ByteOrderMark
                | Syntax::LoneSurrogate,
            ..
        } | Error::Limit { kind: Limit::Depth, .. }
    )
}
