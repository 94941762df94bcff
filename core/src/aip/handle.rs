//! Human-readable agent handles: `name#domain`, and the `did:aip:<domain>:<name>` identifier
//! each one maps to ([`parse_did`], [`Handle::did`]; the DID Document is read in
//! [`super::did`], which builds on this module, never the other way round).
//!
//! A handle names an agent at a registry domain (`alice#aigentix.org`). Because `#` starts
//! the fragment of a URL, a handle inside a URL is always percent-encoded:
//! `alice%23aigentix.org` (a server that received `/resolve/alice#aigentix.org` would see
//! only `/resolve/alice`). A newer public AIP draft writes handles as `@alice@aigentix.org`;
//! [`Handle::parse`] accepts all three spellings and every formatter writes one exact form.
//!
//! Grammar (lowercase only, so that one agent has exactly one spelling):
//!
//! * `name`: 1 to 64 characters from `a-z 0-9 . _ -`, first and last a letter or digit;
//! * `domain`: a DNS name of at most 253 characters, at least two labels separated by
//!   `.`, each label 1 to 63 characters from `a-z 0-9 -`, not starting or ending with `-`.
//!
//! The URL form is the RFC 3986 percent-encoding of the handle: only `#` needs encoding
//! (every other allowed character is unreserved), and it is written `%23`. When parsing,
//! every `%XX` escape (either hex case) is decoded exactly once before the grammar is
//! checked, so `%2523` (an encoded `%`) is rejected rather than decoded twice.

use core::fmt;

use crate::error::{Error, Result};

/// Longest `name`.
pub const MAX_NAME: usize = 64;
/// Longest `domain`.
pub const MAX_DOMAIN: usize = 253;
/// The `did:aip:` method prefix (also [`super::did::PREFIX`]).
pub const PREFIX: &str = "did:aip:";
/// Longest handle `name#domain`.
pub const MAX_HANDLE: usize = MAX_NAME + 1 + MAX_DOMAIN;
/// Longest URL form `name%23domain`.
pub const MAX_URL_FORM: usize = MAX_HANDLE + 2;
/// Longest `did:aip:<domain>:<name>`.
pub const MAX_DID: usize = PREFIX.len() + MAX_DOMAIN + 1 + MAX_NAME;
/// Longest text [`Handle::parse`] looks at (a fully percent-encoded handle).
pub const MAX_INPUT: usize = MAX_HANDLE * 3;

/// A valid handle: a name and a domain, held inline (no borrow of the input).
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Handle {
    buf: [u8; MAX_NAME + MAX_DOMAIN],
    name_len: u8,
    len: u16,
}

fn is_name_byte(b: u8) -> bool {
    b.is_ascii_lowercase() || b.is_ascii_digit() || matches!(b, b'.' | b'_' | b'-')
}

/// Checks the `name` grammar.
///
/// # Errors
/// [`Error::InvalidArgument`] naming the rule that failed.
pub fn check_name(name: &[u8]) -> Result<()> {
    if name.is_empty() || name.len() > MAX_NAME {
        return Err(Error::InvalidArgument("handle name must be 1 to 64 characters"));
    }
    if !name.iter().all(|&b| is_name_byte(b)) {
        return Err(Error::InvalidArgument("handle name allows only a-z 0-9 . _ -"));
    }
    let alnum = |b: Option<&u8>| b.is_some_and(|b| b.is_ascii_lowercase() || b.is_ascii_digit());
    if !alnum(name.first()) || !alnum(name.last()) {
        return Err(Error::InvalidArgument("handle name must start and end with a letter or digit"));
    }
    Ok(())
}

/// Checks the `domain` grammar (a lowercase DNS name with at least two labels).
///
/// # Errors
/// [`Error::InvalidArgument`] naming the rule that failed.
pub fn check_domain(domain: &[u8]) -> Result<()> {
    if domain.is_empty() || domain.len() > MAX_DOMAIN {
        return Err(Error::InvalidArgument("domain must be 1 to 253 characters"));
    }
    let mut labels = 0usize;
    for label in domain.split(|&b| b == b'.') {
        labels += 1;
        if label.is_empty() || label.len() > 63 {
            return Err(Error::InvalidArgument("domain labels must be 1 to 63 characters"));
        }
        if !label.iter().all(|&b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-') {
            return Err(Error::InvalidArgument("domain allows only a-z 0-9 - and ."));
        }
        if label.first() == Some(&b'-') || label.last() == Some(&b'-') {
            return Err(Error::InvalidArgument("domain labels must not start or end with -"));
        }
    }
    if labels < 2 {
        return Err(Error::InvalidArgument("domain needs at least two labels"));
    }
    Ok(())
}

/// Percent-decodes `input` (RFC 3986 `%XX`, either hex case) into `out`, once.
///
/// # Errors
/// [`Error::Encoding`] for a `%` not followed by two hex digits;
/// [`Error::BufferTooSmall`] when the decoded bytes do not fit.
pub fn percent_decode(input: &[u8], out: &mut [u8]) -> Result<usize> {
    let mut n = 0usize;
    let mut i = 0usize;
    while let Some(&b) = input.get(i) {
        let byte = if b == b'%' {
            let hi = input.get(i + 1).copied().and_then(crate::encoding::hex_digit);
            let lo = input.get(i + 2).copied().and_then(crate::encoding::hex_digit);
            match (hi, lo) {
                (Some(h), Some(l)) => {
                    i += 3;
                    h << 4 | l
                }
                _ => return Err(Error::Encoding("percent escape needs two hex digits")),
            }
        } else {
            i += 1;
            b
        };
        *out.get_mut(n).ok_or(Error::BufferTooSmall { needed: n + 1 })? = byte;
        n += 1;
    }
    Ok(n)
}

impl Handle {
    /// A handle from its two parts, checked.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when either part breaks the grammar.
    pub fn new(name: &str, domain: &str) -> Result<Handle> {
        check_name(name.as_bytes())?;
        check_domain(domain.as_bytes())?;
        let mut buf = [0u8; MAX_NAME + MAX_DOMAIN];
        let total = name.len() + domain.len();
        buf.get_mut(..name.len()).ok_or(Error::InvalidArgument("handle"))?.copy_from_slice(name.as_bytes());
        buf.get_mut(name.len()..total).ok_or(Error::InvalidArgument("handle"))?.copy_from_slice(domain.as_bytes());
        Ok(Handle { buf, name_len: name.len() as u8, len: total as u16 })
    }

    /// Parses `name#domain`, its URL form `name%23domain` (any percent-encoding of it) or
    /// `@name@domain`.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for a text that is not a handle,
    /// [`Error::Encoding`] for a malformed percent escape.
    pub fn parse(text: &str) -> Result<Handle> {
        if text.len() > MAX_INPUT {
            return Err(Error::InvalidArgument("handle too long"));
        }
        if let Some(rest) = text.strip_prefix('@') {
            let (name, domain) = rest.split_once('@').ok_or(Error::InvalidArgument("@name@domain expected"))?;
            return Handle::new(name, domain);
        }
        let mut buf = [0u8; MAX_INPUT];
        let n = percent_decode(text.as_bytes(), &mut buf).map_err(|e| match e {
            Error::BufferTooSmall { .. } => Error::InvalidArgument("handle too long"),
            e => e,
        })?;
        let decoded = core::str::from_utf8(buf.get(..n).unwrap_or(&[]))
            .map_err(|_| Error::InvalidArgument("handle is not ASCII"))?;
        let (name, domain) = decoded.split_once('#').ok_or(Error::InvalidArgument("handle needs name#domain"))?;
        Handle::new(name, domain)
    }

    /// The agent name (before `#`).
    #[must_use]
    pub fn name(&self) -> &str {
        let b = self.buf.get(..usize::from(self.name_len)).unwrap_or(&[]);
        core::str::from_utf8(b).unwrap_or("")
    }

    /// The registry domain (after `#`).
    #[must_use]
    pub fn domain(&self) -> &str {
        let b = self.buf.get(usize::from(self.name_len)..usize::from(self.len)).unwrap_or(&[]);
        core::str::from_utf8(b).unwrap_or("")
    }

    fn join<const N: usize>(&self, parts: &[&str]) -> heapless::String<N> {
        let mut s = heapless::String::new();
        for p in parts {
            // Capacities are the grammar's maxima, so pushing cannot fail.
            let _ = s.push_str(p);
        }
        s
    }

    /// `name#domain`.
    #[must_use]
    pub fn handle(&self) -> heapless::String<MAX_HANDLE> {
        self.join(&[self.name(), "#", self.domain()])
    }

    /// The URL form `name%23domain`.
    #[must_use]
    pub fn url_form(&self) -> heapless::String<MAX_URL_FORM> {
        self.join(&[self.name(), "%23", self.domain()])
    }

    /// The `@name@domain` spelling.
    #[must_use]
    pub fn at_form(&self) -> heapless::String<{ MAX_HANDLE + 1 }> {
        self.join(&["@", self.name(), "@", self.domain()])
    }

    /// The DID `did:aip:<domain>:<name>`.
    #[must_use]
    pub fn did(&self) -> heapless::String<MAX_DID> {
        self.join(&[PREFIX, self.domain(), ":", self.name()])
    }
}

impl fmt::Display for Handle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}#{}", self.name(), self.domain())
    }
}

impl fmt::Debug for Handle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Handle({self})")
    }
}

/// Parses `did:aip:<domain>:<name>` into the handle it names (also
/// [`super::did::parse_did`]).
///
/// # Errors
/// [`Error::InvalidArgument`] when the text is not such a DID.
pub fn parse_did(text: &str) -> Result<Handle> {
    if text.len() > MAX_DID {
        return Err(Error::InvalidArgument("did:aip too long"));
    }
    let rest = text.strip_prefix(PREFIX).ok_or(Error::InvalidArgument("did:aip:<domain>:<name> expected"))?;
    let (domain, name) = rest.split_once(':').ok_or(Error::InvalidArgument("did:aip:<domain>:<name> expected"))?;
    Handle::new(name, domain)
}

/// Parses any of the three handle spellings or a `did:aip` DID.
///
/// # Errors
/// As [`Handle::parse`] and [`parse_did`].
pub fn parse_any(text: &str) -> Result<Handle> {
    if text.starts_with("did:") {
        parse_did(text)
    } else {
        Handle::parse(text)
    }
}
