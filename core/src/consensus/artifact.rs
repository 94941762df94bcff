//! Verifying a downloaded `CONSENSUS.md` against `Content-Digest` and `X-Consensus-SHA256`.
//!
//! `Content-Digest` (RFC 9530 §2) is a Structured Field Dictionary (RFC 8941 / RFC 9651
//! §3.2) whose keys name algorithms and whose values are Byte Sequences.
//! [`parse_content_digest`] parses the whole dictionary strictly and without allocating
//! (members, inner lists, parameters, and every bare item type but RFC 9651's Display
//! String, which is refused), ignores algorithms other than `sha-256`, and requires the
//! `sha-256` member to be a Byte Sequence of 32 bytes. A dictionary naming `sha-256` twice
//! is refused as ambiguous (RFC 8941 would keep the last one).
//!
//! [`verify_artifact`] accepts the bytes only when both headers match their SHA-256 and the
//! round's outcome is `reached`.

use crate::digest::{sha256, Digest};
use crate::error::{Error, Result};

use super::Outcome;

const BAD: Error = Error::Encoding("content-digest field");

/// A cursor over the field value.
struct Cursor<'a> {
    s: &'a [u8],
    i: usize,
}

impl<'a> Cursor<'a> {
    fn peek(&self) -> Option<u8> {
        self.s.get(self.i).copied()
    }

    fn bump(&mut self) -> Option<u8> {
        let c = self.peek()?;
        self.i += 1;
        Some(c)
    }

    fn eat(&mut self, c: u8) -> bool {
        if self.peek() == Some(c) {
            self.i += 1;
            true
        } else {
            false
        }
    }

    fn skip(&mut self, ows: bool) {
        while matches!(self.peek(), Some(b' ')) || (ows && self.peek() == Some(b'\t')) {
            self.i += 1;
        }
    }

    /// `key = ( lcalpha / "*" ) *( lcalpha / DIGIT / "_" / "-" / "." / "*" )`
    fn key(&mut self) -> Result<&'a [u8]> {
        let start = self.i;
        match self.peek() {
            Some(c) if c.is_ascii_lowercase() || c == b'*' => self.i += 1,
            _ => return Err(BAD),
        }
        while matches!(self.peek(), Some(c) if c.is_ascii_lowercase() || c.is_ascii_digit() || matches!(c, b'_' | b'-' | b'.' | b'*'))
        {
            self.i += 1;
        }
        self.s.get(start..self.i).ok_or(BAD)
    }

    fn number(&mut self) -> Result<()> {
        self.eat(b'-');
        let (mut int, mut frac, mut dot) = (0usize, 0usize, false);
        while let Some(c) = self.peek() {
            if c.is_ascii_digit() {
                if dot {
                    frac += 1
                } else {
                    int += 1
                }
            } else if c == b'.' && !dot {
                dot = true;
            } else {
                break;
            }
            self.i += 1;
        }
        let ok = int >= 1 && if dot { int <= 12 && (1..=3).contains(&frac) } else { int <= 15 };
        if ok {
            Ok(())
        } else {
            Err(BAD)
        }
    }

    /// A bare item; returns the byte sequence's base64 text when it is one.
    fn bare_item(&mut self) -> Result<Option<&'a [u8]>> {
        match self.peek().ok_or(BAD)? {
            b'-' | b'0'..=b'9' => self.number()?,
            b'"' => {
                self.i += 1;
                loop {
                    match self.bump().ok_or(BAD)? {
                        b'"' => break,
                        b'\\' => {
                            if !matches!(self.bump(), Some(b'"' | b'\\')) {
                                return Err(BAD);
                            }
                        }
                        0x20..=0x7e => {}
                        _ => return Err(BAD),
                    }
                }
            }
            b'*' | b'A'..=b'Z' | b'a'..=b'z' => {
                self.i += 1;
                while matches!(self.peek(), Some(c) if is_tchar(c) || c == b':' || c == b'/') {
                    self.i += 1;
                }
            }
            b':' => {
                self.i += 1;
                let start = self.i;
                while matches!(self.peek(), Some(c) if c.is_ascii_alphanumeric() || matches!(c, b'+' | b'/' | b'=')) {
                    self.i += 1;
                }
                let text = self.s.get(start..self.i).ok_or(BAD)?;
                if !self.eat(b':') {
                    return Err(BAD);
                }
                return Ok(Some(text));
            }
            b'?' => {
                self.i += 1;
                if !matches!(self.bump(), Some(b'0' | b'1')) {
                    return Err(BAD);
                }
            }
            b'@' => {
                self.i += 1;
                let start = self.i;
                self.number()?;
                if self.s.get(start..self.i).is_some_and(|t| t.contains(&b'.')) {
                    return Err(BAD);
                }
            }
            _ => return Err(BAD),
        }
        Ok(None)
    }

    fn parameters(&mut self) -> Result<()> {
        while self.eat(b';') {
            self.skip(false);
            self.key()?;
            if self.eat(b'=') {
                self.bare_item()?;
            }
        }
        Ok(())
    }

    /// An item or inner list with parameters; returns the byte sequence of a plain item.
    fn member_value(&mut self) -> Result<Option<&'a [u8]>> {
        if self.eat(b'(') {
            loop {
                self.skip(false);
                if self.eat(b')') {
                    break;
                }
                self.bare_item()?;
                self.parameters()?;
                if !matches!(self.peek(), Some(b' ' | b')')) {
                    return Err(BAD);
                }
            }
            self.parameters()?;
            return Ok(None);
        }
        let bytes = self.bare_item()?;
        self.parameters()?;
        Ok(bytes)
    }
}

fn is_tchar(c: u8) -> bool {
    c.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&c)
}

/// Parses a `Content-Digest` field value and returns its `sha-256` digest, or `None`
/// when the dictionary has no `sha-256` member.
///
/// # Errors
/// [`Error::Encoding`]`("content-digest field")` for a value that is not a valid
/// dictionary, a `sha-256` member that is not a 32-byte Byte Sequence, or two `sha-256`
/// members.
pub fn parse_content_digest(field: &str) -> Result<Option<Digest>> {
    let mut c = Cursor { s: field.as_bytes(), i: 0 };
    c.skip(false);
    let mut found = None;
    if c.peek().is_none() {
        return Ok(None);
    }
    loop {
        let key = c.key()?;
        let value = if c.eat(b'=') {
            let is_item = c.peek() != Some(b'(');
            c.member_value()?.filter(|_| is_item)
        } else {
            c.parameters()?;
            None
        };
        if key == b"sha-256" {
            let text = value.ok_or(BAD)?;
            let mut out = [0u8; 33];
            let d = match crate::encoding::decode_base64(text, &mut out) {
                Ok(32) => out.get(..32).and_then(|b| <[u8; 32]>::try_from(b).ok()).ok_or(BAD)?,
                _ => return Err(BAD),
            };
            if found.replace(Digest(d)).is_some() {
                return Err(BAD);
            }
        }
        c.skip(true);
        if c.peek().is_none() {
            return Ok(found);
        }
        if !c.eat(b',') {
            return Err(BAD);
        }
        c.skip(true);
        if c.peek().is_none() {
            return Err(BAD);
        }
    }
}

/// Writes the `Content-Digest` value `sha-256=:<base64>:` for `digest` into `out`.
///
/// # Errors
/// [`Error::BufferTooSmall`] when `out` is shorter than 54 bytes.
pub fn write_content_digest(digest: &Digest, out: &mut [u8]) -> Result<usize> {
    const LEN: usize = 9 + 44 + 1;
    let dst = out.get_mut(..LEN).ok_or(Error::BufferTooSmall { needed: LEN })?;
    let (head, rest) = dst.split_at_mut(9);
    head.copy_from_slice(b"sha-256=:");
    let (b64, tail) = rest.split_at_mut(44);
    crate::encoding::encode_base64(digest.as_bytes(), b64)?;
    tail.copy_from_slice(b":");
    Ok(LEN)
}

/// Verifies artifact bytes against both headers and the round's outcome.
///
/// # Errors
/// [`Error::Transition`] unless `outcome` is `reached`; [`Error::Encoding`] for a
/// malformed `Content-Digest`, or an `X-Consensus-SHA256` that is not 64 lowercase hex
/// digits; [`Error::Schema`] when `Content-Digest` has no `sha-256`; [`Error::Digest`]
/// when either header differs from the bytes' SHA-256.
pub fn verify_artifact(
    bytes: &[u8],
    content_digest: &str,
    x_consensus_sha256: &str,
    outcome: Outcome,
) -> Result<Digest> {
    if outcome != Outcome::Reached {
        return Err(Error::Transition("artifact exists only for outcome reached"));
    }
    let from_field = parse_content_digest(content_digest)?.ok_or(Error::Schema("content-digest has no sha-256"))?;
    let from_hex = Digest::parse_hex(x_consensus_sha256).map_err(|_| Error::Encoding("x-consensus-sha256"))?;
    let actual = sha256(bytes);
    if from_field != actual {
        return Err(Error::Digest("content-digest"));
    }
    if from_hex != actual {
        return Err(Error::Digest("x-consensus-sha256"));
    }
    Ok(actual)
}
