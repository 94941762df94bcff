//! Text encodings of binary values: base64 / base64url, hex and base58btc.
//!
//! Every function writes into a caller buffer and returns the number of bytes written.
//! When the buffer is too small nothing useful is written and the result is
//! [`Error::BufferTooSmall`] with the full length the output needs. When a decoder fails,
//! the contents of the output buffer are unspecified.
//!
//! Decoders are strict: they accept exactly one spelling of each value.
//!
//! * base64: only the characters of the chosen alphabet; `=` padding is optional but, when
//!   present, must be complete and at the end; an input length of `4k + 1` is rejected; the
//!   unused low bits of the last character must be zero (RFC 4648 §3.5 canonical form), so
//!   `"QQ"` decodes but `"QR"` does not. No whitespace is skipped. (Python's
//!   `base64.b64decode` ignores the trailing bits; such non-canonical texts are the only
//!   ones the reference SDK accepts and this module refuses.)
//! * hex: an even number of digits; [`decode_hex`] accepts both cases,
//!   [`decode_hex_lower`] only lowercase.
//! * base58btc: the Bitcoin alphabet, payloads of at most [`BASE58_MAX_BYTES`] bytes and
//!   texts of at most [`BASE58_MAX_CHARS`] characters, so the quadratic conversion does
//!   bounded work.

use crate::error::{Error, Limit, Result};

const B64_URL: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
const B64_STD: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
const B58: &[u8; 58] = b"123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";
const HEX_LOWER: &[u8; 16] = b"0123456789abcdef";
const INVALID: u8 = 0xFF;

const fn reverse_table(alphabet: &[u8]) -> [u8; 256] {
    let mut table = [INVALID; 256];
    let mut i = 0;
    while i < alphabet.len() {
        table[alphabet[i] as usize] = i as u8;
        i += 1;
    }
    table
}

const B64_URL_REV: [u8; 256] = reverse_table(B64_URL);
const B64_STD_REV: [u8; 256] = reverse_table(B64_STD);
const B58_REV: [u8; 256] = reverse_table(B58);

/// Copies ASCII bytes into a fixed-capacity string (callers size `N` to fit).
pub(crate) fn ascii_string<const N: usize>(bytes: &[u8]) -> heapless::String<N> {
    let mut s = heapless::String::new();
    for &b in bytes {
        if s.push(char::from(b)).is_err() {
            break;
        }
    }
    s
}

/// The first `needed` bytes of `out`, or [`Error::BufferTooSmall`].
fn prefix(out: &mut [u8], needed: usize) -> Result<&mut [u8]> {
    out.get_mut(..needed).ok_or(Error::BufferTooSmall { needed })
}

// ---------------------------------------------------------------------------------------
// base64
// ---------------------------------------------------------------------------------------

/// The length of the base64 text for `n` bytes, with or without `=` padding.
///
/// Saturates at `usize::MAX` for lengths that no slice can have.
#[must_use]
pub const fn encoded_len(n: usize, padded: bool) -> usize {
    let tail = match n % 3 {
        0 => 0,
        _ if padded => 4,
        r => r + 1,
    };
    (n / 3).saturating_mul(4).saturating_add(tail)
}

fn encode_base64_with(input: &[u8], out: &mut [u8], alphabet: &[u8; 64], padded: bool) -> Result<usize> {
    let needed = encoded_len(input.len(), padded);
    let out = prefix(out, needed)?;
    let sym = |v: u32| alphabet[(v & 63) as usize];
    let chunks = input.chunks_exact(3);
    let rest = chunks.remainder();
    for (src, d) in chunks.zip(out.chunks_exact_mut(4)) {
        let v = u32::from(src[0]) << 16 | u32::from(src[1]) << 8 | u32::from(src[2]);
        d.copy_from_slice(&[sym(v >> 18), sym(v >> 12), sym(v >> 6), sym(v)]);
    }
    let (enc, used) = match *rest {
        [a] => {
            let v = u32::from(a) << 16;
            ([sym(v >> 18), sym(v >> 12), b'=', b'='], 2)
        }
        [a, b] => {
            let v = u32::from(a) << 16 | u32::from(b) << 8;
            ([sym(v >> 18), sym(v >> 12), sym(v >> 6), b'='], 3)
        }
        _ => return Ok(needed),
    };
    let n = if padded { 4 } else { used };
    let start = input.len() / 3 * 4;
    if let (Some(d), Some(s)) = (out.get_mut(start..), enc.get(..n)) {
        d.copy_from_slice(s);
    }
    Ok(needed)
}

/// Encodes `input` as URL-safe base64 with `=` padding (Python's
/// `base64.urlsafe_b64encode`, the form the reference SDK emits for keys and signatures).
///
/// # Errors
/// [`Error::BufferTooSmall`] when `out` is shorter than [`encoded_len`]`(input.len(), true)`.
pub fn encode_base64url(input: &[u8], out: &mut [u8]) -> Result<usize> {
    encode_base64_with(input, out, B64_URL, true)
}

/// Encodes `input` as URL-safe base64 without padding (RFC 4648 §5 with §3.2 omitted).
///
/// # Errors
/// [`Error::BufferTooSmall`] when `out` is shorter than [`encoded_len`]`(input.len(), false)`.
pub fn encode_base64url_nopad(input: &[u8], out: &mut [u8]) -> Result<usize> {
    encode_base64_with(input, out, B64_URL, false)
}

/// Encodes `input` as standard base64 (`+/`) with `=` padding (RFC 4648 §4).
///
/// # Errors
/// [`Error::BufferTooSmall`] when `out` is shorter than [`encoded_len`]`(input.len(), true)`.
pub fn encode_base64(input: &[u8], out: &mut [u8]) -> Result<usize> {
    encode_base64_with(input, out, B64_STD, true)
}

/// Splits off valid padding and returns the data characters and the decoded length.
fn base64_shape(input: &[u8]) -> Result<(&[u8], usize)> {
    let pad = input.iter().rev().take_while(|&&c| c == b'=').count();
    let data = input.get(..input.len() - pad).unwrap_or_default();
    let rem = data.len() % 4;
    let ok = match pad {
        0 => rem != 1,
        1 => rem == 3 && input.len().is_multiple_of(4),
        2 => rem == 2 && input.len().is_multiple_of(4),
        _ => false,
    };
    if !ok {
        let what = if pad == 0 { "base64 length" } else { "base64 padding" };
        return Err(Error::Encoding(what));
    }
    let tail = if rem == 0 { 0 } else { rem - 1 };
    Ok((data, data.len() / 4 * 3 + tail))
}

fn decode_base64_with(input: &[u8], out: &mut [u8], rev: &[u8; 256]) -> Result<usize> {
    let (data, needed) = base64_shape(input)?;
    let out = prefix(out, needed)?;
    let val = |c: u8| match rev[usize::from(c)] {
        INVALID => Err(Error::Encoding("base64 character")),
        v => Ok(u32::from(v)),
    };
    let mut chunks = data.chunks_exact(4);
    let mut dst = out.chunks_exact_mut(3);
    for (s, d) in (&mut chunks).zip(&mut dst) {
        let v = val(s[0])? << 18 | val(s[1])? << 12 | val(s[2])? << 6 | val(s[3])?;
        d.copy_from_slice(&[(v >> 16) as u8, (v >> 8) as u8, v as u8]);
    }
    let d = dst.into_remainder();
    match (chunks.remainder(), d) {
        ([a, b], [x]) => {
            let (a, b) = (val(*a)?, val(*b)?);
            if b & 0x0F != 0 {
                return Err(Error::Encoding("base64 trailing bits"));
            }
            *x = (a << 2 | b >> 4) as u8;
        }
        ([a, b, c], [x, y]) => {
            let v = val(*a)? << 18 | val(*b)? << 12 | val(*c)? << 6;
            if v & 0xFF != 0 {
                return Err(Error::Encoding("base64 trailing bits"));
            }
            *x = (v >> 16) as u8;
            *y = (v >> 8) as u8;
        }
        ([], []) => {}
        _ => return Err(Error::Encoding("base64 length")),
    }
    Ok(needed)
}

/// Decodes URL-safe base64 (`-_`), padded or not, into `out`.
///
/// # Errors
/// [`Error::Encoding`] for a character outside the alphabet (including `+`, `/` and
/// whitespace), a length of `4k + 1`, incorrect padding, or non-zero trailing bits;
/// [`Error::BufferTooSmall`] when the decoded bytes do not fit.
pub fn decode_base64url(input: &[u8], out: &mut [u8]) -> Result<usize> {
    decode_base64_with(input, out, &B64_URL_REV)
}

/// Decodes URL-safe base64 that carries its complete `=` padding (a length of `4k`), the
/// one spelling Python's `base64.urlsafe_b64encode` emits and `urlsafe_b64decode` requires
/// (Concordia signatures). Otherwise as strict as [`decode_base64url`].
///
/// # Errors
/// As [`decode_base64url`], and [`Error::Encoding`] (`"base64 padding"`) when the padding
/// is missing.
pub fn decode_base64url_padded(input: &[u8], out: &mut [u8]) -> Result<usize> {
    if !input.len().is_multiple_of(4) {
        return Err(Error::Encoding("base64 padding"));
    }
    decode_base64_with(input, out, &B64_URL_REV)
}

/// Decodes URL-safe base64 without `=` padding (RFC 4648 §5 with §3.2 omitted, as JWS and
/// AIP write it). Otherwise as strict as [`decode_base64url`].
///
/// # Errors
/// As [`decode_base64url`], and [`Error::Encoding`] (`"base64 padding"`) for any `=`.
pub fn decode_base64url_nopad(input: &[u8], out: &mut [u8]) -> Result<usize> {
    if input.contains(&b'=') {
        return Err(Error::Encoding("base64 padding"));
    }
    decode_base64_with(input, out, &B64_URL_REV)
}

/// Decodes standard base64 (`+/`), padded or not, into `out`; as strict as
/// [`decode_base64url`].
///
/// # Errors
/// As [`decode_base64url`].
pub fn decode_base64(input: &[u8], out: &mut [u8]) -> Result<usize> {
    decode_base64_with(input, out, &B64_STD_REV)
}

/// Decodes base64 in either alphabet, as the reference SDK's `public_key_from_b64url`
/// does: URL-safe first, then standard. A text that uses characters of both alphabets
/// (`-` or `_` together with `+` or `/`) is rejected.
///
/// # Errors
/// As [`decode_base64url`], and [`Error::Encoding`] for a mixed-alphabet text.
pub fn decode_base64_any(input: &[u8], out: &mut [u8]) -> Result<usize> {
    let url = input.iter().any(|&c| c == b'-' || c == b'_');
    let std = input.iter().any(|&c| c == b'+' || c == b'/');
    match (url, std) {
        (true, true) => Err(Error::Encoding("base64 mixed alphabets")),
        (_, false) => decode_base64_with(input, out, &B64_URL_REV),
        (false, true) => decode_base64_with(input, out, &B64_STD_REV),
    }
}

// ---------------------------------------------------------------------------------------
// hex
// ---------------------------------------------------------------------------------------

/// Encodes `input` as lowercase hex (two characters per byte).
///
/// # Errors
/// [`Error::BufferTooSmall`] when `out` is shorter than `2 * input.len()`.
pub fn encode_hex(input: &[u8], out: &mut [u8]) -> Result<usize> {
    let needed = input.len().saturating_mul(2);
    let out = prefix(out, needed)?;
    for (&b, d) in input.iter().zip(out.chunks_exact_mut(2)) {
        d.copy_from_slice(&[HEX_LOWER[usize::from(b >> 4)], HEX_LOWER[usize::from(b & 15)]]);
    }
    Ok(needed)
}

/// The value of one hex digit, either case (`\u` escapes, `%XX`, hex texts).
#[inline]
pub(crate) fn hex_digit(c: u8) -> Option<u8> {
    match c {
        b'0'..=b'9' => Some(c - b'0'),
        b'a'..=b'f' => Some(c - b'a' + 10),
        b'A'..=b'F' => Some(c - b'A' + 10),
        _ => None,
    }
}

fn hex_val(c: u8, upper_ok: bool) -> Result<u8> {
    match hex_digit(c) {
        Some(v) if upper_ok || !c.is_ascii_uppercase() => Ok(v),
        _ => Err(Error::Encoding("hex character")),
    }
}

fn decode_hex_with(input: &[u8], out: &mut [u8], upper_ok: bool) -> Result<usize> {
    if !input.len().is_multiple_of(2) {
        return Err(Error::Encoding("hex length"));
    }
    let needed = input.len() / 2;
    let out = prefix(out, needed)?;
    for (pair, d) in input.chunks_exact(2).zip(out.iter_mut()) {
        *d = hex_val(pair[0], upper_ok)? << 4 | hex_val(pair[1], upper_ok)?;
    }
    Ok(needed)
}

/// Decodes hex digits of either case into `out`.
///
/// # Errors
/// [`Error::Encoding`] for an odd length or a non-hex character;
/// [`Error::BufferTooSmall`] when `out` is shorter than `input.len() / 2`.
pub fn decode_hex(input: &[u8], out: &mut [u8]) -> Result<usize> {
    decode_hex_with(input, out, true)
}

/// Decodes lowercase hex digits only (the canonical form of digests) into `out`.
///
/// # Errors
/// As [`decode_hex`], and [`Error::Encoding`] for an uppercase digit.
pub fn decode_hex_lower(input: &[u8], out: &mut [u8]) -> Result<usize> {
    decode_hex_with(input, out, false)
}

// ---------------------------------------------------------------------------------------
// base58btc
// ---------------------------------------------------------------------------------------

/// The largest payload [`encode_base58`] accepts, in bytes.
pub const BASE58_MAX_BYTES: usize = 128;

/// The longest text [`decode_base58`] accepts, in characters: the length of the base58
/// form of a [`BASE58_MAX_BYTES`]-byte payload with no leading zero bytes.
pub const BASE58_MAX_CHARS: usize = 175;

/// Encodes `input` in base58btc (Bitcoin alphabet); each leading zero byte becomes one
/// leading `1`. Work is quadratic in the input length, which is bounded.
///
/// # Errors
/// [`Error::Limit`] (`Size`) for an input longer than [`BASE58_MAX_BYTES`];
/// [`Error::BufferTooSmall`] when the text does not fit in `out`.
pub fn encode_base58(input: &[u8], out: &mut [u8]) -> Result<usize> {
    if input.len() > BASE58_MAX_BYTES {
        return Err(Error::limit(Limit::Size, BASE58_MAX_BYTES));
    }
    let zeros = input.iter().take_while(|&&b| b == 0).count();
    // Little-endian base-58 digits of the value after the leading zeros.
    let mut digits = [0u8; BASE58_MAX_CHARS];
    let mut len = 0usize;
    for &b in input.get(zeros..).unwrap_or_default() {
        let mut carry = u32::from(b);
        for d in digits.iter_mut().take(len) {
            carry += u32::from(*d) << 8;
            *d = (carry % 58) as u8;
            carry /= 58;
        }
        while carry > 0 {
            let slot = digits.get_mut(len).ok_or(Error::limit(Limit::Size, 0))?;
            *slot = (carry % 58) as u8;
            len += 1;
            carry /= 58;
        }
    }
    let needed = zeros + len;
    let out = prefix(out, needed)?;
    let (ones, rest) = out.split_at_mut(zeros);
    ones.fill(b'1');
    for (o, &d) in rest.iter_mut().zip(digits.iter().take(len).rev()) {
        *o = B58[usize::from(d)];
    }
    Ok(needed)
}

/// Decodes base58btc (Bitcoin alphabet) into `out`; each leading `1` becomes one leading
/// zero byte. The empty text decodes to zero bytes.
///
/// # Errors
/// [`Error::Limit`] (`Size`) for a text longer than [`BASE58_MAX_CHARS`];
/// [`Error::Encoding`] for a character outside the alphabet (`0`, `O`, `I`, `l`, ...);
/// [`Error::BufferTooSmall`] when the decoded bytes do not fit.
pub fn decode_base58(input: &[u8], out: &mut [u8]) -> Result<usize> {
    if input.len() > BASE58_MAX_CHARS {
        return Err(Error::limit(Limit::Size, BASE58_MAX_CHARS));
    }
    let zeros = input.iter().take_while(|&&c| c == b'1').count();
    // Little-endian base-256 bytes of the value; 175 digits need at most 129 bytes.
    let mut bytes = [0u8; BASE58_MAX_CHARS];
    let mut len = 0usize;
    for &c in input.get(zeros..).unwrap_or_default() {
        let v = B58_REV[usize::from(c)];
        if v == INVALID {
            return Err(Error::Encoding("base58 character"));
        }
        let mut carry = u32::from(v);
        for b in bytes.iter_mut().take(len) {
            carry += u32::from(*b) * 58;
            *b = carry as u8;
            carry >>= 8;
        }
        while carry > 0 {
            let slot = bytes.get_mut(len).ok_or(Error::limit(Limit::Size, 0))?;
            *slot = carry as u8;
            len += 1;
            carry >>= 8;
        }
    }
    let needed = zeros + len;
    let out = prefix(out, needed)?;
    let (z, rest) = out.split_at_mut(zeros);
    z.fill(0);
    for (o, &b) in rest.iter_mut().zip(bytes.iter().take(len).rev()) {
        *o = b;
    }
    Ok(needed)
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;
    use std::vec::Vec;

    type Codec = fn(&[u8], &mut [u8]) -> Result<usize>;

    fn run(f: Codec, input: &[u8]) -> Result<Vec<u8>> {
        let mut buf = [0u8; 256];
        let n = f(input, &mut buf)?;
        Ok(buf[..n].to_vec())
    }

    fn ok(f: Codec, input: &[u8]) -> Vec<u8> {
        run(f, input).unwrap()
    }

    // RFC 4648 §10 (the alphabet-independent vectors).
    #[rustfmt::skip]
    const RFC4648: [(&str, &str); 7] = [
        ("", ""), ("f", "Zg=="), ("fo", "Zm8="), ("foo", "Zm9v"),
        ("foob", "Zm9vYg=="), ("fooba", "Zm9vYmE="), ("foobar", "Zm9vYmFy"),
    ];

    #[test]
    fn base64_rfc4648_vectors() {
        for (plain, b64) in RFC4648 {
            let (plain, nopad) = (plain.as_bytes(), b64.trim_end_matches('='));
            assert_eq!(ok(encode_base64url, plain), b64.as_bytes());
            assert_eq!(ok(encode_base64, plain), b64.as_bytes());
            assert_eq!(ok(encode_base64url_nopad, plain), nopad.as_bytes());
            assert_eq!(encoded_len(plain.len(), true), b64.len());
            assert_eq!(encoded_len(plain.len(), false), nopad.len());
            for text in [b64, nopad] {
                for f in [decode_base64url, decode_base64, decode_base64_any] {
                    assert_eq!(ok(f, text.as_bytes()), plain);
                }
            }
        }
    }

    #[test]
    fn base64_alphabets() {
        let raw = [0xfb, 0xff, 0xbf];
        assert_eq!(ok(encode_base64url, &raw), b"-_-_");
        assert_eq!(ok(encode_base64, &raw), b"+/+/");
        assert_eq!(ok(decode_base64_any, b"-_-_"), raw);
        assert_eq!(ok(decode_base64_any, b"+/+/"), raw);
        let mixed = Err(Error::Encoding("base64 mixed alphabets"));
        assert_eq!(run(decode_base64_any, b"-/+_"), mixed);
        assert!(run(decode_base64url, b"+/+/").is_err());
        assert!(run(decode_base64, b"-_-_").is_err());
    }

    #[test]
    fn base64_rejects_non_canonical() {
        let bad = "Z Zm9vY Zg= Zg=== Zm8== = == ==== Zg==Zg== Zm=v Zh== Zh Zm9= Zm9 Zm9v* é";
        for b in bad.split(' ').map(str::as_bytes).chain([&b"Zm9v\n"[..], b" Zm9v", b"Zm\0"]) {
            assert!(matches!(run(decode_base64url, b), Err(Error::Encoding(_))), "{b:?}");
        }
        // The last character of "Zm8" has its unused low bits clear, that of "Zm9" does not.
        assert_eq!(ok(decode_base64url, b"Zm8"), b"fo");
    }

    #[test]
    fn buffer_too_small_reports_needed() {
        let mut small = [0u8; 3];
        let needed = |n| Err(Error::BufferTooSmall { needed: n });
        assert_eq!(encode_base64url(b"foob", &mut small), needed(8));
        assert_eq!(decode_base64url(b"Zm9vYg", &mut small), needed(4));
        assert_eq!(encode_hex(b"ab", &mut small), needed(4));
        assert_eq!(decode_hex(b"00112233", &mut small), needed(4));
        assert_eq!(encode_base58(b"Hello", &mut small), needed(7));
        assert_eq!(decode_base58(b"2NEpo7TZRRrLZSi2U", &mut small), needed(12));
    }

    #[test]
    fn base64_round_trip_all_lengths() {
        let data: Vec<u8> = (0..190u8).map(|i| i.wrapping_mul(167).wrapping_add(13)).collect();
        let pairs: [(Codec, Codec); 3] = [
            (encode_base64url, decode_base64url),
            (encode_base64url_nopad, decode_base64url),
            (encode_base64, decode_base64_any),
        ];
        for n in 0..=data.len() {
            for (e, d) in pairs {
                assert_eq!(ok(d, &ok(e, &data[..n])), &data[..n]);
            }
        }
    }

    #[test]
    fn hex() {
        let raw = [0x00, 0x9a, 0xff];
        assert_eq!(ok(encode_hex, &raw), b"009aff");
        assert_eq!(ok(decode_hex, b"009AfF"), raw);
        assert_eq!(ok(decode_hex_lower, b"009aff"), raw);
        assert_eq!(ok(decode_hex, b""), b"");
        let bad_char = Err(Error::Encoding("hex character"));
        assert_eq!(run(decode_hex_lower, b"009Aff"), bad_char);
        assert_eq!(run(decode_hex, b"0g"), bad_char);
        assert_eq!(run(decode_hex, b"009"), Err(Error::Encoding("hex length")));
    }

    // draft-msporny-base58-03 §5, and Bitcoin address / single-digit vectors.
    #[rustfmt::skip]
    const B58_VECTORS: [(&[u8], &str); 8] = [
        (b"", ""), (b"\0", "1"), (b"\0\0", "11"), (b"\x3a", "21"),
        (b"Hello World!", "2NEpo7TZRRrLZSi2U"),
        (b"\0\0\x28\x7f\xb4\xcd", "11233QC4"),
        (b"The quick brown fox jumps over the lazy dog.",
         "USm3fpXnKG5EUBx2ndxBDMPVciP5hGey2Jh4NDv6gmeo1LkMeiKrLJUUBk6Z"),
        (b"\x00\x01\x09\x66\x77\x60\x06\x95\x3d\x55\x67\x43\x9e\x5e\x39\xf8\x6a\x0d\x27\x3b\xee\xd6\x19\x67\xf6",
         "16UwLL9Risc3QfPqBUvKofHmBQ7wMtjvM"),
    ];

    #[test]
    fn base58_vectors() {
        for (raw, text) in B58_VECTORS {
            assert_eq!(ok(encode_base58, raw), text.as_bytes(), "{text}");
            assert_eq!(ok(decode_base58, text.as_bytes()), raw, "{text}");
        }
        for bad in ["0", "O", "I", "l", "2NEpo7TZRRrLZSi2U ", "+", "1\0"] {
            assert_eq!(run(decode_base58, bad.as_bytes()), Err(Error::Encoding("base58 character")));
        }
    }

    #[test]
    fn base58_bounds() {
        let mut text = [0u8; 256];
        let max = [0xffu8; BASE58_MAX_BYTES];
        let n = encode_base58(&max, &mut text).unwrap();
        assert_eq!(n, BASE58_MAX_CHARS);
        assert_eq!(ok(decode_base58, &text[..n]), max);
        let over = [1u8; BASE58_MAX_BYTES + 1];
        let limit = Err(Error::limit(Limit::Size, BASE58_MAX_BYTES));
        assert_eq!(encode_base58(&over, &mut text), limit);
        assert_eq!(ok(encode_base58, &[0; BASE58_MAX_BYTES]), [b'1'; BASE58_MAX_BYTES]);
        // The largest value in bounds decodes to 129 bytes.
        assert_eq!(decode_base58(&[b'z'; BASE58_MAX_CHARS], &mut text), Ok(129));
        let long = [b'1'; BASE58_MAX_CHARS + 1];
        assert!(matches!(decode_base58(&long, &mut text), Err(Error::Limit { .. })));
        let data: Vec<u8> = (0..BASE58_MAX_BYTES as u8).map(|i| i.wrapping_mul(89)).collect();
        for n in 0..data.len() {
            assert_eq!(ok(decode_base58, &ok(encode_base58, &data[..n])), &data[..n]);
        }
    }
}
