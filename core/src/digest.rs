//! SHA-256 record identity: `sha256:<64 lowercase hex>`.
//!
//! A [`Digest`] is 32 bytes. Its text form, used for `prev_hash`, record ids and bindings,
//! is the prefix `sha256:` followed by exactly 64 lowercase hex digits; the parsers accept
//! that spelling and nothing else (no uppercase, no whitespace, no other algorithm).
//! [`Sha256Sink`] hashes a stream of bytes, so the canonical form of a JSON value can be
//! digested without ever being stored.

use core::fmt;

use sha2::Digest as _;

use crate::encoding::{self, ascii_string};
use crate::error::{Error, Result};
use crate::sink::Sink;

/// A SHA-256 digest.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Digest(pub [u8; 32]);

/// The all-zero digest that stands for "no previous record" at the start of a chain:
/// `sha256:0000…0000`.
pub const GENESIS: Digest = Digest::GENESIS;

impl Digest {
    /// The all-zero digest (see [`GENESIS`]).
    pub const GENESIS: Digest = Digest([0; 32]);

    /// The algorithm prefix of the text form.
    pub const PREFIX: &'static str = "sha256:";

    /// The raw 32 bytes.
    #[must_use]
    pub const fn as_bytes(&self) -> &[u8; 32] {
        &self.0
    }

    /// The 64 lowercase hex digits.
    #[must_use]
    pub fn to_hex(&self) -> heapless::String<64> {
        let mut buf = [0u8; 64];
        let n = encoding::encode_hex(&self.0, &mut buf).unwrap_or(0);
        ascii_string(buf.get(..n).unwrap_or_default())
    }

    /// The text form `sha256:<64 lowercase hex>` (71 characters).
    #[must_use]
    pub fn to_prefixed(&self) -> heapless::String<71> {
        let mut buf = [0u8; 71];
        let (prefix, hex) = buf.split_at_mut(Self::PREFIX.len());
        prefix.copy_from_slice(Self::PREFIX.as_bytes());
        let n = encoding::encode_hex(&self.0, hex).unwrap_or(0);
        ascii_string(buf.get(..Self::PREFIX.len() + n).unwrap_or_default())
    }

    /// Parses exactly 64 lowercase hex digits.
    ///
    /// # Errors
    /// [`Error::Encoding`]`("sha256 digest")` for anything else.
    pub fn parse_hex(text: &str) -> Result<Digest> {
        let mut out = [0u8; 32];
        match encoding::decode_hex_lower(text.as_bytes(), &mut out) {
            Ok(32) => Ok(Digest(out)),
            _ => Err(Error::Encoding("sha256 digest")),
        }
    }

    /// Parses the text form: `sha256:` followed by exactly 64 lowercase hex digits.
    ///
    /// # Errors
    /// [`Error::Encoding`]`("sha256 digest")` for anything else.
    pub fn parse_prefixed(text: &str) -> Result<Digest> {
        text.strip_prefix(Self::PREFIX).ok_or(Error::Encoding("sha256 digest")).and_then(Self::parse_hex)
    }
}

impl fmt::Display for Digest {
    /// Writes the text form `sha256:<hex>`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_prefixed())
    }
}

impl fmt::Debug for Digest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Digest({})", self.to_prefixed())
    }
}

/// A [`Sink`] that computes the SHA-256 digest of the bytes written to it.
#[derive(Clone, Default)]
pub struct Sha256Sink {
    hasher: sha2::Sha256,
}

impl Sha256Sink {
    /// An empty hash state.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds bytes (the infallible form of [`Sink::write`]).
    #[inline]
    pub fn update(&mut self, bytes: &[u8]) {
        self.hasher.update(bytes);
    }

    /// The digest of everything written.
    #[must_use]
    pub fn finish(self) -> Digest {
        Digest(self.hasher.finalize().into())
    }
}

impl Sink for Sha256Sink {
    #[inline]
    fn write(&mut self, bytes: &[u8]) -> Result<()> {
        self.hasher.update(bytes);
        Ok(())
    }
}

impl fmt::Debug for Sha256Sink {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Sha256Sink").finish_non_exhaustive()
    }
}

/// The SHA-256 digest of `bytes`.
#[must_use]
pub fn sha256(bytes: &[u8]) -> Digest {
    Digest(sha2::Sha256::digest(bytes).into())
}

// =======================================================================================
// Digests of canonical JSON (added by the lead once `json` and `jcs` exist).
// Nothing above this line depends on those modules.
// =======================================================================================

/// `SHA256-JCS(value)`: SHA-256 over the canonical form of `value`, streamed (no buffer).
#[must_use]
pub fn sha256_jcs(value: crate::json::Value<'_>) -> Digest {
    sha256_jcs_with(value, &crate::preimage::Whole)
}

/// SHA-256 over the canonical form of `value` with members dropped by `rule`.
#[must_use]
pub fn sha256_jcs_with<P: crate::preimage::Preimage + ?Sized>(value: crate::json::Value<'_>, rule: &P) -> Digest {
    let mut sink = Sha256Sink::new();
    // Hashing never fails, so neither does writing into the hasher.
    let _ = crate::jcs::write_with(value, rule, &mut sink);
    sink.finish()
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;
    use std::format;

    const EMPTY: &str = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";
    const ABC: &str = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";
    // FIPS 180-2 appendix B.2 (two-block message).
    const ABC448: &str = "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1";
    const MSG448: &[u8] = b"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";

    #[test]
    fn fips180_vectors() {
        assert_eq!(sha256(b"").to_hex().as_str(), EMPTY);
        assert_eq!(sha256(b"abc").to_hex().as_str(), ABC);
        assert_eq!(sha256(MSG448).to_hex().as_str(), ABC448);
        let mut sink = Sha256Sink::new();
        for chunk in MSG448.chunks(5) {
            sink.write(chunk).unwrap();
        }
        assert_eq!(sink.finish(), sha256(MSG448));
        let mut sink = Sha256Sink::new();
        sink.update(b"a");
        sink.update(b"bc");
        assert_eq!(sink.finish().to_hex().as_str(), ABC);
        assert_eq!(Sha256Sink::new().finish().to_hex().as_str(), EMPTY);
    }

    #[test]
    fn text_forms() {
        let d = sha256(b"abc");
        let prefixed = format!("sha256:{ABC}");
        assert_eq!(d.to_prefixed().as_str(), prefixed);
        assert_eq!(format!("{d}"), prefixed);
        assert_eq!(format!("{d:?}"), format!("Digest({prefixed})"));
        assert_eq!(Digest::parse_prefixed(&prefixed), Ok(d));
        assert_eq!(Digest::parse_hex(ABC), Ok(d));
        let zeros = format!("sha256:{}", "0".repeat(64));
        assert_eq!(GENESIS.to_prefixed().as_str(), zeros);
        assert_eq!(Digest::parse_prefixed(&zeros), Ok(GENESIS));
        assert_eq!(Digest::GENESIS, Digest([0; 32]));
    }

    #[test]
    fn parse_rejects_other_spellings() {
        let upper = format!("sha256:{}", ABC.to_uppercase());
        let bad = [
            upper.as_str(),
            ABC,
            "sha256:",
            "",
            &format!("SHA256:{ABC}"),
            &format!("sha256: {ABC}"),
            &format!("sha256:{ABC} "),
            &format!("sha256:{ABC}00"),
            &format!("sha256:{}", &ABC[..63]),
            &format!("sha512:{ABC}"),
            &format!("sha256:{}g", &ABC[..63]),
            &format!("sha256:{}é", &ABC[..62]),
        ];
        for text in bad {
            assert_eq!(Digest::parse_prefixed(text), Err(Error::Encoding("sha256 digest")), "{text}");
        }
        assert!(Digest::parse_hex(&ABC.to_uppercase()).is_err());
        assert!(Digest::parse_hex(&prefixed_abc()).is_err());
        assert!(Digest::parse_hex(&ABC[..62]).is_err());
    }

    fn prefixed_abc() -> std::string::String {
        format!("sha256:{ABC}")
    }
}
