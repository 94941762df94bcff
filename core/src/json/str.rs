//! JSON string contents as they appear in the input, decoded lazily.

use core::cmp::Ordering;

use crate::error::{Error, Result};

/// The contents of a JSON string, still in its escaped input form.
///
/// Strings come only from the reader, which has already validated every escape, so
/// decoding cannot fail. Comparison and equality are on the decoded value.
#[derive(Clone, Copy, Debug)]
pub struct Str<'a> {
    pub(crate) raw: &'a str,
    pub(crate) escaped: bool,
}

impl<'a> Str<'a> {
    /// A string whose value is `text` as it is (no escapes are read in it): how a host
    /// walker's member names reach a [`crate::preimage::Preimage`] rule.
    #[must_use]
    pub const fn decoded(text: &'a str) -> Self {
        Str { raw: text, escaped: false }
    }

    /// The raw text between the quotes, escapes included.
    #[must_use]
    pub fn raw(&self) -> &'a str {
        self.raw
    }

    /// True when the raw text holds at least one backslash escape.
    #[must_use]
    pub fn has_escapes(&self) -> bool {
        self.escaped
    }

    /// The decoded value without copying, when the string has no escapes.
    #[must_use]
    pub fn as_plain(&self) -> Option<&'a str> {
        if self.escaped {
            None
        } else {
            Some(self.raw)
        }
    }

    /// The decoded characters.
    #[must_use]
    pub fn chars(&self) -> Chars<'a> {
        Chars { rest: self.raw.as_bytes(), plain: self.raw.chars(), escaped: self.escaped }
    }

    /// The decoded value as UTF-16 code units (RFC 8785 sorts member names by these).
    #[must_use]
    pub fn units(&self) -> Units<'a> {
        Units { chars: self.chars(), low: None }
    }

    /// The length of the decoded value in UTF-8 bytes.
    #[must_use]
    pub fn decoded_len(&self) -> usize {
        if self.escaped {
            self.chars().map(char::len_utf8).sum()
        } else {
            self.raw.len()
        }
    }

    /// Decodes into `buf` and returns the decoded text.
    ///
    /// # Errors
    /// [`Error::BufferTooSmall`] when `buf` is shorter than [`Str::decoded_len`].
    pub fn decode_into<'b>(&self, buf: &'b mut [u8]) -> Result<&'b str> {
        let needed = self.decoded_len();
        let Some(out) = buf.get_mut(..needed) else {
            return Err(Error::BufferTooSmall { needed });
        };
        let mut n = 0;
        for c in self.chars() {
            let w = c.len_utf8();
            if let Some(dst) = out.get_mut(n..n + w) {
                c.encode_utf8(dst);
            }
            n += w;
        }
        core::str::from_utf8(out).map_err(|_| Error::InvalidArgument("decoded string"))
    }

    /// True when the decoded value equals `s`.
    #[must_use]
    pub fn eq_str(&self, s: &str) -> bool {
        if self.escaped {
            self.chars().eq(s.chars())
        } else {
            self.raw == s
        }
    }

    /// Compares decoded values by UTF-16 code units, the order of RFC 8785 §3.2.3.
    #[must_use]
    pub fn cmp_utf16(&self, other: &Str<'_>) -> Ordering {
        if !self.escaped && !other.escaped {
            cmp_utf8_as_utf16(self.raw.as_bytes(), other.raw.as_bytes())
        } else {
            self.units().cmp(other.units())
        }
    }

    /// Compares the decoded value with `s` by UTF-16 code units.
    #[must_use]
    pub fn cmp_utf16_str(&self, s: &str) -> Ordering {
        if self.escaped {
            self.units().cmp(s.encode_utf16())
        } else {
            cmp_utf8_as_utf16(self.raw.as_bytes(), s.as_bytes())
        }
    }
}

impl PartialEq for Str<'_> {
    fn eq(&self, other: &Self) -> bool {
        if !self.escaped && !other.escaped {
            self.raw == other.raw
        } else {
            self.chars().eq(other.chars())
        }
    }
}

impl Eq for Str<'_> {}

/// Orders two UTF-8 strings as their UTF-16 encodings would be ordered.
///
/// UTF-8 byte order is code point order, which agrees with UTF-16 order except that
/// supplementary characters (4-byte UTF-8, surrogate pairs in UTF-16) sort before
/// U+E000..U+FFFF (UTF-8 lead bytes 0xEE and 0xEF) in UTF-16. Since both strings share
/// every byte before the first difference, the first differing bytes are either two lead
/// bytes or continuation bytes of characters with the same lead byte; only the first case
/// can need the correction.
#[inline]
pub fn cmp_utf8_as_utf16(a: &[u8], b: &[u8]) -> Ordering {
    let n = a.len().min(b.len());
    // The first difference: eight bytes at a time, then byte by byte.
    let mut i = 0;
    while i + 8 <= n {
        let (Some(x), Some(y)) = (word(a, i), word(b, i)) else { break };
        if x != y {
            // Little-endian words: the lowest differing byte is the first in the text.
            i += (x ^ y).trailing_zeros() as usize / 8;
            break;
        }
        i += 8;
    }
    while i < n && a.get(i) == b.get(i) {
        i += 1;
    }
    if i >= n {
        return a.len().cmp(&b.len());
    }
    let x = a.get(i).copied().unwrap_or(0);
    let y = b.get(i).copied().unwrap_or(0);
    utf16_weight(x).cmp(&utf16_weight(y))
}

/// Bytes `i..i + 8` of `s` as a little-endian word.
#[inline(always)]
fn word(s: &[u8], i: usize) -> Option<u64> {
    s.get(i..i + 8).and_then(|w| <[u8; 8]>::try_from(w).ok()).map(u64::from_le_bytes)
}

#[inline]
fn utf16_weight(lead: u8) -> u16 {
    // Place 4-byte lead bytes (0xF0..=0xF4), in their own order, between 0xED and 0xEE.
    if lead >= 0xF0 {
        0xED * 8 + 1 + u16::from(lead - 0xF0)
    } else {
        u16::from(lead) * 8
    }
}

/// Iterator over the decoded characters of a [`Str`].
#[derive(Clone, Debug)]
pub struct Chars<'a> {
    rest: &'a [u8],
    plain: core::str::Chars<'a>,
    /// Whether backslashes start escapes (false for [`Str::decoded`] text).
    escaped: bool,
}

impl Iterator for Chars<'_> {
    type Item = char;

    #[inline]
    fn next(&mut self) -> Option<char> {
        // `plain` and `rest` always point at the same position.
        let c = self.plain.next()?;
        if c != '\\' || !self.escaped {
            self.rest = self.rest.get(c.len_utf8()..).unwrap_or(&[]);
            return Some(c);
        }
        let (decoded, used) = decode_escape(self.rest);
        self.rest = self.rest.get(used..).unwrap_or(&[]);
        for _ in 1..used {
            self.plain.next();
        }
        Some(decoded)
    }
}

/// Decodes the escape at the start of `s` (which begins with a backslash); returns the
/// character and the number of bytes used. Input was validated by the reader; anything
/// else decodes to U+FFFD rather than panicking.
pub(crate) fn decode_escape(s: &[u8]) -> (char, usize) {
    let c = match s.get(1) {
        Some(b'"') => '"',
        Some(b'\\') => '\\',
        Some(b'/') => '/',
        Some(b'b') => '\u{8}',
        Some(b'f') => '\u{c}',
        Some(b'n') => '\n',
        Some(b'r') => '\r',
        Some(b't') => '\t',
        Some(b'u') => {
            let hi = hex4(s.get(2..6));
            if let Some(hi @ 0xD800..=0xDBFF) = hi {
                if let Some(lo @ 0xDC00..=0xDFFF) = hex4(s.get(8..12)) {
                    let cp = 0x10000 + ((u32::from(hi) - 0xD800) << 10) + (u32::from(lo) - 0xDC00);
                    return (char::from_u32(cp).unwrap_or('\u{FFFD}'), 12);
                }
                return ('\u{FFFD}', 6);
            }
            return (hi.and_then(|u| char::from_u32(u32::from(u))).unwrap_or('\u{FFFD}'), 6);
        }
        _ => '\u{FFFD}',
    };
    (c, 2)
}

fn hex4(s: Option<&[u8]>) -> Option<u16> {
    let mut v = 0u16;
    for &b in s? {
        let d = match b {
            b'0'..=b'9' => b - b'0',
            b'a'..=b'f' => b - b'a' + 10,
            b'A'..=b'F' => b - b'A' + 10,
            _ => return None,
        };
        v = (v << 4) | u16::from(d);
    }
    Some(v)
}

/// Iterator over the decoded UTF-16 code units of a [`Str`].
#[derive(Clone, Debug)]
pub struct Units<'a> {
    chars: Chars<'a>,
    low: Option<u16>,
}

impl Iterator for Units<'_> {
    type Item = u16;

    #[inline]
    fn next(&mut self) -> Option<u16> {
        if let Some(l) = self.low.take() {
            return Some(l);
        }
        let c = self.chars.next()?;
        let mut buf = [0u16; 2];
        let units = c.encode_utf16(&mut buf);
        if let [hi, lo] = units {
            self.low = Some(*lo);
            Some(*hi)
        } else {
            units.first().copied()
        }
    }
}
