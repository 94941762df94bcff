//! RFC 8785 canonical JSON (JCS), written from a parsed tape into any [`Sink`].
//!
//! * member names in UTF-16 code unit order (already linked in that order by the reader);
//! * numbers in ECMAScript `Number::toString` form (RFC 8785 §3.2.2.3);
//! * strings with the minimal escapes: `\"`, `\\`, `\b`, `\f`, `\n`, `\r`, `\t`, `\u00XX`
//!   (lowercase hex) for the other control characters, every other character raw UTF-8;
//! * no whitespace.
//!
//! The writer never recurses and never buffers: a [`crate::digest::Sha256Sink`] hashes the
//! canonical form of a multi-megabyte document with no output buffer at all. Stretches of
//! the input that are already canonical (a sorted, compact object; a member name with its
//! colon and a plain value) reach the sink as one write each. A
//! [`Preimage`] rule drops members on the way, which is how signature preimages are made
//! without copying the input.
//!
//! ```
//! # fn main() -> Result<(), concordia_core::Error> {
//! use concordia_core::{json, jcs, preimage::WithoutSignature};
//!
//! let mut nodes = [json::Node::EMPTY; 16];
//! let doc = json::parse(br#"{"signature": "x", "n": 1e21, "s": "\u00e9\n"}"#, &mut nodes)?;
//! let mut out = [0u8; 64];
//! let n = jcs::write_to_slice_with(doc.root(), &WithoutSignature, &mut out)?;
//! assert_eq!(&out[..n], "{\"n\":1e+21,\"s\":\"é\\n\"}".as_bytes());
//! # Ok(())
//! # }
//! ```

use crate::error::Result;
use crate::json::walk::kept;
use crate::json::{decode_escape, Doc, Kind, Str, Value, NO_NODE};
use crate::preimage::{Preimage, Whole};
use crate::sink::{Sink, SliceSink};

pub mod events;

pub use crate::json::walk::{Event, Walk};
pub use crate::number::NumberBuf;

/// Writes the canonical form of `value` into `sink`.
///
/// # Errors
/// Only the sink's own errors.
pub fn write<S: Sink + ?Sized>(value: Value<'_>, sink: &mut S) -> Result<()> {
    write_with(value, &Whole, sink)
}

/// Writes the canonical form of `value`, with members dropped by `rule`, into `sink`.
///
/// # Errors
/// Only the sink's own errors.
pub fn write_with<P: Preimage + ?Sized, S: Sink + ?Sized>(value: Value<'_>, rule: &P, sink: &mut S) -> Result<()> {
    write_inserting(value, rule, None, sink)
}

/// Writes the canonical form of `value` with one extra top-level member: `(name, json)`
/// where `json` is already canonical JSON. A member of the same name in `value` must be
/// dropped by `rule` (as [`crate::preimage::WithoutSignature`] drops `signature`).
///
/// # Errors
/// Only the sink's own errors.
pub fn write_inserting<P: Preimage + ?Sized, S: Sink + ?Sized>(
    value: Value<'_>,
    rule: &P,
    extra: Option<(&str, &[u8])>,
    sink: &mut S,
) -> Result<()> {
    // With `small`, one copy of the writer serves every rule and sink (through `dyn`), so
    // that a firmware that hashes and verifies does not carry two.
    #[cfg(feature = "small")]
    {
        let mut sink = sink;
        write_traversal::<dyn Preimage, dyn Sink>(value, &rule, extra, &mut sink)
    }
    #[cfg(not(feature = "small"))]
    {
        write_traversal(value, rule, extra, sink)
    }
}

#[cfg_attr(feature = "small", inline(never))]
fn write_traversal<P: Preimage + ?Sized, S: Sink + ?Sized>(
    value: Value<'_>,
    rule: &P,
    extra: Option<(&str, &[u8])>,
    sink: &mut S,
) -> Result<()> {
    let doc = value.doc();
    let root = value.index();
    let mut out = Runs { src: doc.source().as_bytes(), start: 0, end: 0, sink };
    let mut extra = if value.kind() == Kind::Object { extra } else { None };
    // The traversal of `Walk`, without its events: `i` is the value to write next, `parent`
    // its container, `depth` the nesting of `parent` (1 inside the root container).
    let mut i = root;
    let mut parent = NO_NODE;
    let mut depth = 0usize;
    'value: loop {
        let n = doc.node(i);
        match n.kind() {
            Kind::Object => {
                out.source(n.start() as usize, n.start() as usize + 1)?;
                let first = if n.count() == 0 { NO_NODE } else { kept(doc, rule, depth + 1, n.first_sorted()) };
                if first != NO_NODE {
                    depth += 1;
                    parent = i;
                    i = out.key(doc, first, depth, &mut extra, false)?;
                    continue 'value;
                }
                out.close_object(&mut extra, i == root, false)?;
            }
            Kind::Array => {
                out.source(n.start() as usize, n.start() as usize + 1)?;
                if n.count() != 0 {
                    depth += 1;
                    parent = i;
                    i += 1;
                    continue 'value;
                }
                out.byte(b']')?;
            }
            Kind::String => {
                if n.is_escaped() {
                    out.flush()?;
                    write_str(doc.str_of(i), out.sink)?;
                } else {
                    // Quotes included: a string without escapes is canonical as written.
                    out.source(n.start() as usize - 1, n.end() as usize + 1)?;
                }
            }
            Kind::Number => {
                if n.is_canonical_number() {
                    out.source(n.start() as usize, n.end() as usize)?;
                } else {
                    out.flush()?;
                    write_number(n.number(), out.sink)?;
                }
            }
            Kind::Null | Kind::True | Kind::False => out.source(n.start() as usize, n.end() as usize)?,
        }
        // After the value at `i`: separators and closing brackets up to the next value.
        loop {
            if i == root {
                return out.flush();
            }
            let p = doc.node(parent);
            if p.kind() == Kind::Object {
                // The value's member name is the node just before it.
                let next = kept(doc, rule, depth, doc.node(i - 1).next_sorted());
                if next != NO_NODE {
                    i = out.key(doc, next, depth, &mut extra, true)?;
                    continue 'value;
                }
                out.close_object(&mut extra, parent == root, true)?;
            } else {
                let next = doc.node(i).skip(i);
                if next < p.end() {
                    out.byte(b',')?;
                    i = next;
                    continue 'value;
                }
                out.byte(b']')?;
            }
            i = parent;
            parent = if i == root { NO_NODE } else { p.parent() };
            depth -= 1;
        }
    }
}

/// Output in runs of the input: a piece that continues the input text where the pending run
/// ends extends the run, so canonical stretches of the input (a sorted, compact object; a
/// member name with its colon and value) reach the sink in one write.
struct Runs<'s, 'k, S: ?Sized> {
    src: &'s [u8],
    /// The pending run, `src[start..end]`; everything before it is already in the sink.
    start: usize,
    end: usize,
    sink: &'k mut S,
}

impl<S: Sink + ?Sized> Runs<'_, '_, S> {
    /// Writes the input bytes `src[s..e]`.
    #[inline]
    fn source(&mut self, s: usize, e: usize) -> Result<()> {
        if s != self.end {
            self.flush()?;
            self.start = s;
        }
        self.end = e;
        Ok(())
    }

    /// Writes one punctuation byte, from the input when it follows there.
    #[inline]
    fn byte(&mut self, c: u8) -> Result<()> {
        if self.src.get(self.end) == Some(&c) {
            self.end += 1;
            Ok(())
        } else {
            self.flush()?;
            self.sink.write(&[c])
        }
    }

    #[inline]
    fn flush(&mut self) -> Result<()> {
        if self.end > self.start {
            self.sink.write(self.src.get(self.start..self.end).unwrap_or(&[]))?;
        }
        self.start = self.end;
        Ok(())
    }

    /// Writes member name `key` (with a comma before it unless `first`) and its colon, and
    /// the pending extra member before it where it sorts; returns the member's value.
    fn key(
        &mut self,
        doc: Doc<'_>,
        key: u32,
        depth: usize,
        extra: &mut Option<(&str, &[u8])>,
        mut comma: bool,
    ) -> Result<u32> {
        if depth == 1 {
            if let Some((name, json)) = *extra {
                if doc.str_of(key).cmp_utf16_str(name).is_gt() {
                    self.member(name, json, comma)?;
                    *extra = None;
                    comma = true;
                }
            }
        }
        if comma {
            self.byte(b',')?;
        }
        let n = doc.node(key);
        if n.is_escaped() {
            self.flush()?;
            write_str(doc.str_of(key), self.sink)?;
        } else {
            self.source(n.start() as usize - 1, n.end() as usize + 1)?;
        }
        self.byte(b':')?;
        Ok(key + 1)
    }

    /// Writes `}`, after the pending extra member when closing the root object (it sorts
    /// after every name written so far); `comma` when the object already has a member.
    fn close_object(&mut self, extra: &mut Option<(&str, &[u8])>, at_root: bool, comma: bool) -> Result<()> {
        if at_root {
            if let Some((name, json)) = extra.take() {
                self.member(name, json, comma)?;
            }
        }
        self.byte(b'}')
    }

    fn member(&mut self, name: &str, json: &[u8], comma: bool) -> Result<()> {
        self.flush()?;
        write_member(name, json, comma, self.sink)
    }
}

fn write_member<S: Sink + ?Sized>(name: &str, json: &[u8], comma: bool, sink: &mut S) -> Result<()> {
    if comma {
        sink.write(b",")?;
    }
    write_plain_str(name, sink)?;
    sink.write(b":")?;
    sink.write(json)
}

/// Canonicalizes `value` into `out` and returns the length.
///
/// # Errors
/// [`crate::Error::BufferTooSmall`] with the full length when `out` is too short.
pub fn write_to_slice(value: Value<'_>, out: &mut [u8]) -> Result<usize> {
    write_to_slice_with(value, &Whole, out)
}

/// Canonicalizes `value` under `rule` into `out` and returns the length.
///
/// # Errors
/// [`crate::Error::BufferTooSmall`] with the full length when `out` is too short.
pub fn write_to_slice_with<P: Preimage + ?Sized>(value: Value<'_>, rule: &P, out: &mut [u8]) -> Result<usize> {
    let mut sink = SliceSink::new(out);
    write_with(value, rule, &mut sink)?;
    sink.finish()
}

/// Writes a double in ECMAScript `Number::toString` form. Negative zero is written `0`,
/// as ECMAScript does; non-finite values (which the reader never produces) as `null`.
///
/// # Errors
/// Only the sink's own errors.
pub fn write_number<S: Sink + ?Sized>(f: f64, sink: &mut S) -> Result<()> {
    let mut buf = NumberBuf::new();
    sink.write(buf.format_bytes(f))
}

static HEX: &[u8; 16] = b"0123456789abcdef";

/// Writes a decoded string value with RFC 8785 escaping, quotes included.
fn write_str<S: Sink + ?Sized>(s: Str<'_>, sink: &mut S) -> Result<()> {
    sink.write(b"\"")?;
    if !s.has_escapes() {
        // The reader guarantees no quote, backslash or control character here.
        sink.write(s.raw().as_bytes())?;
    } else {
        let bytes = s.raw().as_bytes();
        let mut run_start = 0;
        let mut i = 0;
        while i < bytes.len() {
            if bytes.get(i) != Some(&b'\\') {
                i += 1;
                continue;
            }
            sink.write(bytes.get(run_start..i).unwrap_or(&[]))?;
            let (c, used) = decode_escape(bytes.get(i..).unwrap_or(&[]));
            write_char(c, sink)?;
            i += used;
            run_start = i;
        }
        sink.write(bytes.get(run_start..).unwrap_or(&[]))?;
    }
    sink.write(b"\"")
}

fn write_char<S: Sink + ?Sized>(c: char, sink: &mut S) -> Result<()> {
    match u8::try_from(c) {
        Ok(b) if needs_escape(b) => {
            let (esc, n) = escape_byte(b);
            sink.write(esc.get(..n).unwrap_or_default())
        }
        _ => {
            let mut buf = [0u8; 4];
            sink.write(c.encode_utf8(&mut buf).as_bytes())
        }
    }
}

/// Whether RFC 8785 escapes the byte `b` in a string: below 0x20, `"` or `\`.
#[inline(always)]
pub(crate) fn needs_escape(b: u8) -> bool {
    b < 0x20 || b == b'"' || b == b'\\'
}

/// The RFC 8785 escape of a byte that [`needs_escape`]: the two-character form where JSON
/// has one (`\"`, `\\`, `\b`, `\f`, `\n`, `\r`, `\t`), else `\u00xx` in lowercase hex; and
/// its length.
#[inline]
pub(crate) fn escape_byte(b: u8) -> ([u8; 6], usize) {
    let short = match b {
        b'"' => b'"',
        b'\\' => b'\\',
        0x08 => b'b',
        0x0c => b'f',
        b'\n' => b'n',
        b'\r' => b'r',
        b'\t' => b't',
        _ => return ([b'\\', b'u', b'0', b'0', HEX[usize::from(b >> 4)], HEX[usize::from(b & 15)]], 6),
    };
    ([b'\\', short, 0, 0, 0, 0], 2)
}

/// Writes `s` as a JSON string with RFC 8785 escaping.
///
/// # Errors
/// Only the sink's own errors.
pub fn write_plain_str<S: Sink + ?Sized>(s: &str, sink: &mut S) -> Result<()> {
    let bytes = s.as_bytes();
    // Most text needs no escape: find the first byte that does, eight at a time, and
    // write the rest in one step when there is none.
    let Some(first) = first_escape(bytes) else {
        return sink.write_quoted(bytes);
    };
    sink.write(b"\"")?;
    let mut run_start = 0;
    let mut i = first;
    while let Some(&b) = bytes.get(i) {
        // Eight bytes at a time while none of them needs an escape (most text).
        if let Some(word) = bytes.get(i..i + 8).and_then(|w| <[u8; 8]>::try_from(w).ok()) {
            if !needs_escape8(u64::from_le_bytes(word)) {
                i += 8;
                continue;
            }
        }
        if needs_escape(b) {
            sink.write(bytes.get(run_start..i).unwrap_or(&[]))?;
            write_char(char::from(b), sink)?;
            run_start = i + 1;
        }
        i += 1;
    }
    sink.write(bytes.get(run_start..).unwrap_or(&[]))?;
    sink.write(b"\"")
}

/// The index of the first byte of `bytes` that [`write_plain_str`] escapes, if any.
#[inline]
fn first_escape(bytes: &[u8]) -> Option<usize> {
    let mut words = bytes.chunks_exact(8);
    let mut at = 0;
    for word in words.by_ref() {
        if let Ok(w) = <[u8; 8]>::try_from(word) {
            if needs_escape8(u64::from_le_bytes(w)) {
                break;
            }
        }
        at += 8;
    }
    let rest = bytes.get(at..).unwrap_or_default();
    if rest.len() < 8 && !needs_escape8(tail_word(bytes, rest)) {
        return None;
    }
    rest.iter().position(|&b| needs_escape(b)).map(|i| at + i)
}

/// A word holding every byte of `rest` (fewer than eight, the end of `bytes`) and nothing
/// that needs an escape besides: the last eight bytes of `bytes` when there are eight
/// (those before `rest` are known to need none), else `rest`'s bytes, some twice, padded
/// with spaces. Built from loads, not by copying into a buffer and reading it back (a
/// store-forwarding stall on every short string).
#[inline(always)]
fn tail_word(bytes: &[u8], rest: &[u8]) -> u64 {
    const SPACES: u64 = 0x2020_2020_2020_2020;
    if let Some(last) = bytes.last_chunk::<8>() {
        return u64::from_le_bytes(*last);
    }
    let n = rest.len();
    if let (Some(a), Some(b)) = (rest.first_chunk::<4>(), rest.last_chunk::<4>()) {
        return u64::from(u32::from_le_bytes(*a)) | u64::from(u32::from_le_bytes(*b)) << 32;
    }
    match (rest.first(), rest.get(n / 2), rest.last()) {
        (Some(&a), Some(&b), Some(&c)) => (SPACES & !0xFF_FFFF) | u64::from(a) | u64::from(b) << 8 | u64::from(c) << 16,
        _ => SPACES,
    }
}

/// Whether any of the eight bytes of `w` is below 0x20, `"` or `\\` (the bytes
/// [`write_plain_str`] escapes). Exact: no byte that needs an escape is missed, and none
/// that does not is reported (the classic "has a byte less than n" and "has a zero byte"
/// word tests, each exact as a whole-word answer).
#[inline(always)]
fn needs_escape8(w: u64) -> bool {
    escape_bits8(w) != 0
}

/// The high bit of each byte of `w` (eight bytes, little-endian) that is below 0x20, `"` or
/// `\\`, and possibly of bytes above such a byte (a borrow carries up); 0 exactly when no
/// byte needs an escape, and the lowest set bit always marks one that does.
#[inline(always)]
pub(crate) fn escape_bits8(w: u64) -> u64 {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let below_space = w.wrapping_sub(ONES * 0x20) & !w;
    let quote = w ^ (ONES * u64::from(b'"'));
    let backslash = w ^ (ONES * u64::from(b'\\'));
    let zero_quote = quote.wrapping_sub(ONES) & !quote;
    let zero_backslash = backslash.wrapping_sub(ONES) & !backslash;
    (below_space | zero_quote | zero_backslash) & HIGH
}

#[cfg(test)]
mod tests;
