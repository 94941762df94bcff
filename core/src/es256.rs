//! ES256: ECDSA over P-256 with SHA-256, as the reference SDK signs and verifies it
//! (`concordia.signing`, `ES256KeyPair`, `sign_message(..., alg="ES256")`).
//!
//! The SDK's rules, and ours:
//!
//! * The preimage is the same as for Ed25519 (the canonical form without the top-level
//!   `signature`); ECDSA hashes it with SHA-256.
//! * A signature is the ASN.1 DER `SEQUENCE { INTEGER r, INTEGER s }`, written as padded
//!   URL-safe base64 in the message. DER is read strictly ([`Signature::from_der`]): one
//!   tag and length form, minimal positive integers, nothing after the sequence, as
//!   `cryptography`'s `decode_dss_signature` reads it.
//! * `0 < r < n` and `0 < s <= n / 2` (low S): the SDK normalizes `s` when it signs and
//!   refuses a high `s` when it verifies, because `(r, n - s)` would be a second valid
//!   signature and a transcript hashes the signature text.
//! * A public key is a SEC1 / X9.62 point on P-256 (the SDK emits it uncompressed, 65 bytes,
//!   in padded URL-safe base64); the identity and points off the curve are refused.
//! * Signing is deterministic (RFC 6979 with SHA-256, p256's), then normalized to low S.
//!   The SDK signs with OpenSSL's random nonces, so its signatures differ from ours byte for
//!   byte; each verifies the other's. `cryptography`'s own deterministic mode
//!   (`ECDSA(SHA256(), deterministic_signing=True)`), normalized to low S, gives the same
//!   bytes as ours (`bindings-python/tests/test_es256.py`).
//!
//! The curve arithmetic, the verification equation and RFC 6979 are RustCrypto's `p256`; this
//! module adds only the SDK's encoding rules (DER framing, base64 text, low S). It is compiled
//! with the `es256` feature (on by default; the `small` embedded build leaves it out).
//!
//! ```
//! # fn main() -> Result<(), concordia_core::Error> {
//! use concordia_core::es256::{verify, KeyPair, Signature};
//!
//! let kp = KeyPair::from_scalar(&[7u8; 32])?;
//! let sig = kp.sign(b"{\"offer\":1}");
//! let text = sig.to_b64url();
//! assert_eq!(verify(&kp.public_key(), b"{\"offer\":1}", &Signature::from_b64url(&text)?), Ok(()));
//! # Ok(())
//! # }
//! ```

use core::fmt;

use p256::ecdsa::signature::hazmat::{PrehashSigner, PrehashVerifier};
use p256::ecdsa::{SigningKey, VerifyingKey};

use zeroize::Zeroizing;

use crate::digest::Sha256Sink;
use crate::encoding::{self, ascii_string};
use crate::error::detail::{ES256_PRIVATE_KEY, ES256_PUBLIC_KEY, SIGNATURE_ENCODING};
use crate::error::{Error, Result};
use crate::sink::Sink;

/// The order `n` of the P-256 group, big-endian (SEC 2 §2.4.2).
pub const ORDER: [u8; 32] = [
    0xff, 0xff, 0xff, 0xff, 0x00, 0x00, 0x00, 0x00, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xbc, 0xe6, 0xfa,
    0xad, 0xa7, 0x17, 0x9e, 0x84, 0xf3, 0xb9, 0xca, 0xc2, 0xfc, 0x63, 0x25, 0x51,
];

/// `floor(n / 2)`, the largest low `s` (the SDK's `P256_HALF_ORDER`), big-endian.
pub const HALF_ORDER: [u8; 32] = [
    0x7f, 0xff, 0xff, 0xff, 0x80, 0x00, 0x00, 0x00, 0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xde, 0x73, 0x7d,
    0x56, 0xd3, 0x8b, 0xcf, 0x42, 0x79, 0xdc, 0xe5, 0x61, 0x7e, 0x31, 0x92, 0xa8,
];

/// An ES256 public key: a point of P-256 other than the identity.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct PublicKey(VerifyingKey);

impl PublicKey {
    /// Length of the uncompressed SEC1 / X9.62 encoding (`04 || x || y`).
    pub const UNCOMPRESSED_BYTES: usize = 65;
    /// Length of the compressed encoding (`02` or `03`, then `x`).
    pub const COMPRESSED_BYTES: usize = 33;

    /// Reads a SEC1 / X9.62 point, uncompressed (65 bytes, `04`) or compressed (33 bytes,
    /// `02`/`03`), as `cryptography`'s `EllipticCurvePublicKey.from_encoded_point` does (the
    /// SDK's reading of an ES256 key). Coordinates must be below the field prime and the
    /// point on the curve; the identity has no encoding here.
    ///
    /// # Errors
    /// `Encoding(detail::ES256_PUBLIC_KEY)` for any other bytes.
    pub fn from_sec1(bytes: &[u8]) -> Result<Self> {
        let shape_ok = match bytes {
            [0x04, rest @ ..] => rest.len() == 64,
            [0x02 | 0x03, rest @ ..] => rest.len() == 32,
            _ => false,
        };
        if !shape_ok {
            return Err(Error::Encoding(ES256_PUBLIC_KEY));
        }
        VerifyingKey::from_sec1_bytes(bytes).map(PublicKey).map_err(|_| Error::Encoding(ES256_PUBLIC_KEY))
    }

    /// Reads a public key from base64 text of its SEC1 bytes, as the reference SDK reads key
    /// text (`ES256KeyPair.public_key_b64()` emits padded URL-safe base64): URL-safe or
    /// standard alphabet (never both), padding optional, canonical trailing bits.
    ///
    /// # Errors
    /// `Encoding` for malformed base64; `Encoding(detail::ES256_PUBLIC_KEY)` when the bytes
    /// are not a point ([`PublicKey::from_sec1`]).
    pub fn from_b64(text: &str) -> Result<Self> {
        let mut buf = [0u8; Self::UNCOMPRESSED_BYTES];
        match encoding::decode_base64_any(text.as_bytes(), &mut buf) {
            Ok(n) => Self::from_sec1(buf.get(..n).unwrap_or_default()),
            Err(Error::BufferTooSmall { .. }) => Err(Error::Encoding(ES256_PUBLIC_KEY)),
            Err(e) => Err(e),
        }
    }

    /// The uncompressed encoding `04 || x || y` (the SDK's `public_key_bytes()`).
    #[must_use]
    pub fn to_uncompressed(&self) -> [u8; 65] {
        let point = self.0.to_sec1_point(false);
        let mut out = [0u8; 65];
        if let Some(bytes) = point.as_bytes().get(..65) {
            out.copy_from_slice(bytes);
        }
        out
    }

    /// The padded URL-safe base64 of the uncompressed point (88 characters), as the SDK's
    /// `ES256KeyPair.public_key_b64()` emits it.
    #[must_use]
    pub fn to_b64url(&self) -> heapless::String<88> {
        let mut buf = [0u8; 88];
        let n = encoding::encode_base64url(&self.to_uncompressed(), &mut buf).unwrap_or(0);
        ascii_string(buf.get(..n).unwrap_or_default())
    }
}

impl fmt::Debug for PublicKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "es256::PublicKey({})", self.to_b64url())
    }
}

/// An ES256 signature whose scalars passed the SDK's checks: `0 < r < n`, `0 < s <= n / 2`.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct Signature {
    r: [u8; 32],
    s: [u8; 32],
}

impl Signature {
    /// The longest DER form: `30 46 02 21 00 r 02 21 00 s`.
    pub const MAX_DER_BYTES: usize = 72;
    /// The longest text form: padded base64 of [`Signature::MAX_DER_BYTES`].
    pub const MAX_B64_BYTES: usize = 96;

    /// A signature from its big-endian scalars.
    ///
    /// # Errors
    /// [`Error::Signature`] when `r` or `s` is zero or at least `n`, or `s` is high
    /// (`s > n / 2`).
    pub fn from_scalars(r: &[u8; 32], s: &[u8; 32]) -> Result<Self> {
        let in_range = |x: &[u8; 32]| x.iter().any(|&b| b != 0) && x < &ORDER;
        if !in_range(r) || !in_range(s) || s > &HALF_ORDER {
            return Err(Error::Signature);
        }
        Ok(Signature { r: *r, s: *s })
    }

    /// Reads the ASN.1 DER form strictly: `30 L 02 Lr r 02 Ls s` and nothing else, with
    /// short-form lengths that match the content exactly, and each integer positive and
    /// minimal (no leading `00` unless the next byte has its top bit set; no top bit on
    /// the first byte). Then the scalar checks of [`Signature::from_scalars`].
    ///
    /// # Errors
    /// `Encoding(detail::SIGNATURE_ENCODING)` for bytes that are not that DER form, or an
    /// integer wider than 32 bytes (then `>= n`); [`Error::Signature`] for a zero, an
    /// out-of-range or a high scalar.
    pub fn from_der(der: &[u8]) -> Result<Self> {
        let (r, s) = der_scalars(der).ok_or(Error::Encoding(SIGNATURE_ENCODING))?;
        Self::from_scalars(&r, &s)
    }

    /// Reads a Concordia ES256 signature text: the padded URL-safe base64 of the DER form,
    /// the one spelling the SDK's `sign_message` emits. Any other text of the same bytes
    /// (unpadded, standard alphabet, whitespace, non-zero trailing bits) is refused, as for
    /// Ed25519 (`docs/adr/0004-verification-policy.md`).
    ///
    /// # Errors
    /// `Encoding(detail::SIGNATURE_ENCODING)` for a text that is not that spelling of a
    /// strict DER signature; [`Error::Signature`] for the scalar checks.
    pub fn from_b64url(text: &str) -> Result<Self> {
        let mut buf = [0u8; Self::MAX_DER_BYTES];
        let n = encoding::decode_base64url_padded(text.as_bytes(), &mut buf)
            .map_err(|_| Error::Encoding(SIGNATURE_ENCODING))?;
        Self::from_der(buf.get(..n).unwrap_or_default())
    }

    /// The big-endian `r`.
    #[must_use]
    pub const fn r(&self) -> &[u8; 32] {
        &self.r
    }

    /// The big-endian `s` (always low).
    #[must_use]
    pub const fn s(&self) -> &[u8; 32] {
        &self.s
    }

    /// Writes the DER form into `out` and returns its length (at most
    /// [`Signature::MAX_DER_BYTES`]).
    pub fn to_der(&self, out: &mut [u8; Self::MAX_DER_BYTES]) -> usize {
        let mut n = 2;
        for x in [&self.r, &self.s] {
            let skip = x.iter().take_while(|&&b| b == 0).count();
            let mag = x.get(skip..).unwrap_or_default();
            let pad = mag.first().is_some_and(|&b| b & 0x80 != 0);
            let len = mag.len() + usize::from(pad);
            // `len` is at most 33 and `n` at most 37 here: every index below is in bounds.
            out[n] = 0x02;
            out[n + 1] = len as u8;
            n += 2;
            if pad {
                out[n] = 0;
                n += 1;
            }
            out[n..n + mag.len()].copy_from_slice(mag);
            n += mag.len();
        }
        out[0] = 0x30;
        out[1] = (n - 2) as u8;
        n
    }

    /// The padded URL-safe base64 of the DER form, as the SDK's `sign_message` emits it.
    #[must_use]
    pub fn to_b64url(&self) -> heapless::String<96> {
        let mut der = [0u8; Self::MAX_DER_BYTES];
        let n = self.to_der(&mut der);
        let mut buf = [0u8; Self::MAX_B64_BYTES];
        let m = encoding::encode_base64url(der.get(..n).unwrap_or_default(), &mut buf).unwrap_or(0);
        ascii_string(buf.get(..m).unwrap_or_default())
    }

    fn to_p256(self) -> Result<p256::ecdsa::Signature> {
        p256::ecdsa::Signature::from_scalars(self.r, self.s).map_err(|_| Error::Signature)
    }
}

impl fmt::Debug for Signature {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "es256::Signature({})", self.to_b64url())
    }
}

/// The scalars of a strict DER signature (`30 L 02 Lr r 02 Ls s`, as
/// [`Signature::from_der`] reads it), before any range or low-S check. `None` for any other
/// bytes.
pub(crate) fn der_scalars(der: &[u8]) -> Option<([u8; 32], [u8; 32])> {
    let [0x30, len, body @ ..] = der else { return None };
    if *len >= 0x80 || usize::from(*len) != body.len() {
        return None;
    }
    let (r, rest) = der_integer(body)?;
    let (s, rest) = der_integer(rest)?;
    rest.is_empty().then_some((r, s))
}

/// `n - s` when `s` is high (`s > n / 2`) and below `n`, else `s` unchanged (a zero or
/// out-of-range `s` is left for [`Signature::from_scalars`] to refuse).
pub(crate) fn low_s(s: &[u8; 32]) -> [u8; 32] {
    if s <= &HALF_ORDER || s >= &ORDER {
        return *s;
    }
    // Big-endian subtraction `ORDER - s`, with borrow; no underflow since s < ORDER.
    let mut out = [0u8; 32];
    let mut borrow = 0u16;
    for i in (0..32).rev() {
        let a = u16::from(ORDER[i]);
        let b = u16::from(s[i]) + borrow;
        let (d, br) = if a >= b { (a - b, 0) } else { (a + 256 - b, 1) };
        out[i] = d as u8;
        borrow = br;
    }
    out
}

/// One DER INTEGER at the start of `input`, as a 32-byte big-endian magnitude, and the rest.
/// `None` unless it is a short-form, non-empty, positive, minimal integer of at most 32
/// bytes of magnitude.
fn der_integer(input: &[u8]) -> Option<([u8; 32], &[u8])> {
    let [0x02, len, rest @ ..] = input else { return None };
    let len = usize::from(*len);
    if len == 0 || len >= 0x80 || len > rest.len() {
        return None;
    }
    let (content, rest) = rest.split_at(len);
    let mag = match content {
        [first, ..] if first & 0x80 != 0 => return None,      // negative
        [0, second, ..] if second & 0x80 == 0 => return None, // non-minimal
        [0, mag @ ..] if !mag.is_empty() => mag,
        _ => content,
    };
    if mag.len() > 32 {
        return None;
    }
    let mut out = [0u8; 32];
    out.get_mut(32 - mag.len()..)?.copy_from_slice(mag);
    Some((out, rest))
}

/// An ES256 signing key: a P-256 private scalar `d`, `0 < d < n`.
///
/// `Debug` shows only the public key; p256 erases the scalar when the key is dropped.
#[derive(Clone)]
pub struct KeyPair(SigningKey);

impl KeyPair {
    /// Length of the private scalar in bytes.
    pub const SCALAR_BYTES: usize = 32;

    /// The key pair of a big-endian private scalar (`cryptography`'s
    /// `private_numbers().private_value`, `derive_private_key`). To generate a key, draw 32
    /// random bytes and draw again in the rare case (about 2^-32) that they are refused.
    ///
    /// # Errors
    /// `InvalidArgument(detail::ES256_PRIVATE_KEY)` when the scalar is zero or at least `n`.
    pub fn from_scalar(d: &[u8; 32]) -> Result<Self> {
        SigningKey::from_slice(d).map(KeyPair).map_err(|_| Error::InvalidArgument(ES256_PRIVATE_KEY))
    }

    /// The public key `d·G`.
    #[must_use]
    pub fn public_key(&self) -> PublicKey {
        PublicKey(*self.0.verifying_key())
    }

    /// A copy of the big-endian private scalar, erased when the returned [`Zeroizing`] is
    /// dropped (it dereferences to `[u8; 32]`).
    #[must_use]
    pub fn scalar(&self) -> Zeroizing<[u8; 32]> {
        let bytes = Zeroizing::new(self.0.to_bytes());
        let mut out = Zeroizing::new([0u8; 32]);
        out.copy_from_slice(&bytes);
        out
    }

    /// Signs `msg`: SHA-256, a deterministic RFC 6979 nonce, then low S.
    #[must_use]
    pub fn sign(&self, msg: &[u8]) -> Signature {
        let mut h = Sha256Sink::new();
        h.update(msg);
        self.sign_digest(&h.finish().0)
    }

    /// Signs a SHA-256 digest computed by the caller (for example with a
    /// [`Sha256Sink`] fed by the canonical writer), as [`KeyPair::sign`] does.
    #[must_use]
    pub fn sign_digest(&self, digest: &[u8; 32]) -> Signature {
        // RFC 6979 never yields a zero `r` or `s` for a valid key (it draws another nonce),
        // so signing cannot fail; an all-zero value that could never verify stands in
        // should it ever (fail closed rather than panic).
        let Ok(sig): core::result::Result<p256::ecdsa::Signature, _> = self.0.sign_prehash(digest) else {
            return Signature { r: [0; 32], s: [0; 32] };
        };
        let sig = sig.normalize_s();
        let (r, s) = sig.split_bytes();
        Signature { r: r.into(), s: s.into() }
    }
}

impl fmt::Debug for KeyPair {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("es256::KeyPair").field("public_key", &self.public_key()).finish_non_exhaustive()
    }
}

/// Verifies `sig` over `msg` under `pk` (SHA-256, then the ECDSA equation).
///
/// # Errors
/// [`Error::Signature`] when it does not verify.
pub fn verify(pk: &PublicKey, msg: &[u8], sig: &Signature) -> Result<()> {
    let mut sink = VerifySink::new(pk, sig);
    sink.hash.update(msg);
    sink.finish()
}

/// A [`Sink`] that verifies an ES256 signature over the bytes written to it (one SHA-256
/// state: O(1) in the message), so a signature over canonical JSON is checked while the
/// canonical form is streamed.
pub struct VerifySink {
    key: PublicKey,
    sig: Signature,
    hash: Sha256Sink,
}

impl VerifySink {
    /// Starts verifying `sig` under `pk`. (The key and the scalars were checked when they
    /// were read, so nothing can fail before the message is.)
    #[must_use]
    pub fn new(pk: &PublicKey, sig: &Signature) -> Self {
        VerifySink { key: *pk, sig: *sig, hash: Sha256Sink::new() }
    }

    /// Checks the signature over everything written.
    ///
    /// # Errors
    /// [`Error::Signature`] when it does not match.
    pub fn finish(self) -> Result<()> {
        let digest = self.hash.finish();
        let sig = self.sig.to_p256()?;
        self.key.0.verify_prehash(&digest.0, &sig).map_err(|_| Error::Signature)
    }
}

impl Sink for VerifySink {
    #[inline]
    fn write(&mut self, bytes: &[u8]) -> Result<()> {
        self.hash.update(bytes);
        Ok(())
    }
}

impl fmt::Debug for VerifySink {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("es256::VerifySink").field("key", &self.key).finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests;
