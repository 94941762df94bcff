//! Revision, Markdown and command digests.
//!
//! * The **revision digest** is the lowercase hex SHA-256 of `canonicalRevision` written as
//!   RFC 8785 canonical JSON: members sorted recursively by UTF-16 code units (JavaScript's
//!   default sort), array order kept, no insignificant whitespace, ECMAScript number
//!   formatting, UTF-8. That is exactly what a JavaScript venue produces with sorted keys
//!   and `JSON.stringify`. [`revision_digest_json`] reads numbers in RFC 8785's domain
//!   (integers beyond 2^53 become the nearest double, as in JavaScript); `-0` is refused,
//!   as everywhere in this crate.
//! * The **Markdown digest** is SHA-256 over the exact bytes: no newline normalization,
//!   trimming or appended newline.
//! * A **command digest** is 64 hex digits, optionally prefixed `sha256:`. Normalization
//!   strips the prefix only; the result is then compared case-exactly with the lowercase
//!   revision digest, so an uppercase spelling never matches.

use core::fmt;

use crate::digest::{Digest, Sha256Sink};
use crate::error::{Error, Result};
use crate::json::{self, Node, Options, Value};

/// The revision digest of a parsed `canonicalRevision` value.
///
/// # Errors
/// Only what the canonical writer refuses (none for values from [`json::parse`]).
pub fn revision_digest(value: Value<'_>) -> Result<Digest> {
    let mut sink = Sha256Sink::new();
    crate::jcs::write(value, &mut sink)?;
    Ok(sink.finish())
}

/// Parses `canonical_revision` (JSON text) with RFC 8785's number domain and returns its
/// revision digest. `nodes` needs at most `len / 2 + 2` entries.
///
/// # Errors
/// [`Error::Json`] / [`Error::Limit`] from the reader.
pub fn revision_digest_json(canonical_revision: &[u8], nodes: &mut [Node]) -> Result<Digest> {
    let doc = json::parse_with(canonical_revision, nodes, &Options::rfc8785())?;
    revision_digest(doc.root())
}

/// Checks a parsed `canonicalRevision` against the `revisionDigest` the venue returned
/// (64 lowercase hex digits, or `sha256:` and those digits).
///
/// # Errors
/// [`Error::Encoding`] for a malformed expected digest, [`Error::Digest`] on mismatch.
pub fn verify_revision(value: Value<'_>, expected: &str) -> Result<Digest> {
    let expected = HexDigest::normalize(expected)?;
    let actual = revision_digest(value)?;
    if expected.matches(&actual) {
        Ok(actual)
    } else {
        Err(Error::Digest("revision digest"))
    }
}

/// The Markdown digest: SHA-256 over the exact bytes of the Markdown string.
#[must_use]
pub fn markdown_digest(markdown: &[u8]) -> Digest {
    crate::digest::sha256(markdown)
}

/// Checks Markdown bytes against the `markdownDigest` the venue returned.
///
/// # Errors
/// [`Error::Encoding`] for a malformed expected digest, [`Error::Digest`] on mismatch.
pub fn verify_markdown(markdown: &[u8], expected: &str) -> Result<Digest> {
    let expected = HexDigest::normalize(expected)?;
    let actual = markdown_digest(markdown);
    if expected.matches(&actual) {
        Ok(actual)
    } else {
        Err(Error::Digest("markdown digest"))
    }
}

/// A command digest after normalization: exactly 64 ASCII hex digits, in the case the
/// sender wrote them.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct HexDigest([u8; 64]);

impl HexDigest {
    /// The `sha256:` prefix a command digest may carry.
    pub const PREFIX: &'static str = "sha256:";

    /// Strips an optional `sha256:` prefix and requires 64 hex digits (either case; the
    /// case is kept and matters in [`HexDigest::matches`]).
    ///
    /// # Errors
    /// [`Error::Encoding`]`("command digest")` for anything else.
    pub fn normalize(text: &str) -> Result<HexDigest> {
        let hex = text.strip_prefix(Self::PREFIX).unwrap_or(text);
        let mut out = [0u8; 64];
        if hex.len() != 64 || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(Error::Encoding("command digest"));
        }
        out.copy_from_slice(hex.as_bytes());
        Ok(HexDigest(out))
    }

    /// The lowercase form of a digest.
    #[must_use]
    pub fn of(digest: &Digest) -> HexDigest {
        let mut out = [0u8; 64];
        let _ = crate::encoding::encode_hex(digest.as_bytes(), &mut out);
        HexDigest(out)
    }

    /// The 64 digits.
    #[must_use]
    pub fn as_str(&self) -> &str {
        core::str::from_utf8(&self.0).unwrap_or_default()
    }

    /// Case-exact comparison with the lowercase hex of `digest`.
    #[must_use]
    pub fn matches(&self, digest: &Digest) -> bool {
        *self == HexDigest::of(digest)
    }
}

impl fmt::Debug for HexDigest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "HexDigest({})", self.as_str())
    }
}

impl fmt::Display for HexDigest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}
