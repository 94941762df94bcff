//! Ed25519 (RFC 8032, pure EdDSA) keys, signatures and their base64url forms.
//!
//! Signing is deterministic and uses no randomness: the same seed and message always give
//! the same 64 bytes, equal to those of RFC 8032 and of the reference SDK
//! (`cryptography`'s `Ed25519PrivateKey`). Signing uses ed25519-compact.
//!
//! Verification is **cofactorless and strict** (ed25519-dalek's streaming verifier with
//! curve25519-dalek's point checks): a signature `R || S` over `M` under `A` is accepted only
//! when
//!
//! * `S` is reduced (`S < L`),
//! * `A` is the canonical encoding of a curve point that does not have small order,
//! * `R` is the canonical encoding of a curve point that does not have small order (the
//!   small-order encodings are refused by their `y` before the equation; one that is not a
//!   point at all can never equal the encoding the equation computes), and
//! * the canonical encoding of `[S]B - [k]A`, with `k = SHA-512(R || A || M) mod L`, equals
//!   the 32 bytes of `R`.
//!
//! The last rule is OpenSSL's, and so the reference SDK's (`cryptography`); the others only
//! refuse signatures OpenSSL may accept but no honest signer makes (small-order and
//! non-canonical points). So every signature this module accepts, the SDK accepts too.
//! `docs/adr/0004-verification-policy.md` has the table of every edge class with both
//! verdicts, and `tests-py/verdict/` checks it against `cryptography` on every surface.
//!
//! [`PublicKey::from_bytes`] only checks the length, like the SDK's
//! `Ed25519PublicKey.from_public_bytes`, so records carrying a key can be parsed and
//! hashed whatever the key; [`PublicKey::validate`] applies the point checks on demand, and
//! [`verify`] always applies them.

use core::fmt;

use zeroize::Zeroizing;

use crate::encoding::{self, ascii_string};
use crate::error::{Error, Result};
use crate::sink::Sink;

/// An Ed25519 public key: the 32-byte compressed point encoding.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct PublicKey([u8; 32]);

impl PublicKey {
    /// Length of a public key in bytes.
    pub const BYTES: usize = 32;

    /// Wraps 32 raw bytes (no point validation; see [`PublicKey::validate`]).
    #[must_use]
    pub const fn from_array(bytes: [u8; 32]) -> Self {
        PublicKey(bytes)
    }

    /// Reads a raw public key (no point validation; see [`PublicKey::validate`]).
    ///
    /// # Errors
    /// [`Error::Encoding`] when `bytes` is not exactly 32 bytes long.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self> {
        <[u8; 32]>::try_from(bytes).map(PublicKey).map_err(|_| Error::Encoding("Ed25519 public key length"))
    }

    /// The raw 32 bytes.
    #[must_use]
    pub const fn as_bytes(&self) -> &[u8; 32] {
        &self.0
    }

    /// Checks that the key is the canonical encoding of a curve point that does not have
    /// small order, i.e. that it could verify a signature at all.
    ///
    /// # Errors
    /// [`Error::Signature`] otherwise.
    pub fn validate(&self) -> Result<()> {
        self.prepare().map(|_| ())
    }

    /// The key checked and decoded once, for verifying many signatures under it
    /// ([`PreparedKey`]): the encoding is canonical (`y < p`, no sign bit on `x = 0`) and
    /// the point does not have small order.
    ///
    /// # Errors
    /// [`Error::Signature`] otherwise (the refusal [`verify`] gives for such a key).
    pub fn prepare(&self) -> Result<PreparedKey> {
        if !canonical_y(&self.0) {
            return Err(Error::Signature);
        }
        match ed25519_dalek::VerifyingKey::from_bytes(&self.0) {
            Ok(key) if !key.is_weak() => Ok(PreparedKey(key)),
            _ => Err(Error::Signature),
        }
    }

    /// Reads a public key from base64 text, as the reference SDK's `public_key_from_b64url`
    /// does: URL-safe or standard alphabet (never both in one text), padding optional.
    /// Unlike the SDK it does not strip surrounding whitespace, and it requires canonical
    /// trailing bits (see [`crate::encoding`]).
    ///
    /// # Errors
    /// [`Error::Encoding`] for malformed base64 or a decoded length other than 32.
    pub fn from_b64(text: &str) -> Result<Self> {
        let mut buf = [0u8; 32];
        match encoding::decode_base64_any(text.as_bytes(), &mut buf) {
            Ok(32) => Ok(PublicKey(buf)),
            Ok(_) | Err(Error::BufferTooSmall { .. }) => Err(Error::Encoding("Ed25519 public key length")),
            Err(e) => Err(e),
        }
    }

    /// The padded URL-safe base64 form (44 characters), as the SDK's
    /// `KeyPair.public_key_b64()` emits it.
    #[must_use]
    pub fn to_b64url(&self) -> heapless::String<44> {
        let mut buf = [0u8; 44];
        let n = encoding::encode_base64url(&self.0, &mut buf).unwrap_or(0);
        ascii_string(buf.get(..n).unwrap_or_default())
    }
}

/// A public key that passed the point checks, with its point decoded: verifying under it
/// skips the decoding (a square root in the field, about a tenth of a verification), which
/// pays when one key verifies many signatures (a transcript's parties, a key map).
/// Verifications under a `PreparedKey` and under its [`PublicKey`] give the same verdicts.
///
/// ```
/// use concordia_core::sign::{self, KeyPair};
///
/// let kp = KeyPair::from_seed(&[7; 32]);
/// let key = kp.public_key().prepare()?;
/// let sig = kp.sign(b"offer");
/// assert!(sign::verify_prepared(&key, b"offer", &sig).is_ok());
/// assert!(sign::verify_prepared(&key, b"offer!", &sig).is_err());
/// # Ok::<(), concordia_core::Error>(())
/// ```
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct PreparedKey(ed25519_dalek::VerifyingKey);

impl PreparedKey {
    /// The key's 32-byte encoding.
    #[must_use]
    pub fn public_key(&self) -> PublicKey {
        PublicKey(self.0.to_bytes())
    }
}

impl fmt::Debug for PreparedKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("PreparedKey").field(&self.public_key()).finish()
    }
}

impl fmt::Debug for PublicKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "PublicKey({})", self.to_b64url())
    }
}

/// An Ed25519 signature: `R || S`, 64 bytes.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Signature([u8; 64]);

impl Signature {
    /// Length of a signature in bytes.
    pub const BYTES: usize = 64;

    /// Wraps 64 raw bytes.
    #[must_use]
    pub const fn from_array(bytes: [u8; 64]) -> Self {
        Signature(bytes)
    }

    /// Reads a raw signature.
    ///
    /// # Errors
    /// [`Error::Encoding`] when `bytes` is not exactly 64 bytes long.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self> {
        <[u8; 64]>::try_from(bytes).map(Signature).map_err(|_| Error::Encoding("Ed25519 signature length"))
    }

    /// The raw 64 bytes.
    #[must_use]
    pub const fn as_bytes(&self) -> &[u8; 64] {
        &self.0
    }

    /// Reads a Concordia signature: padded URL-safe base64, exactly the 88 characters the
    /// SDK's `sign_message` emits. This is the one accepted spelling: an unpadded, standard
    /// alphabet, whitespace-carrying or non-canonical-trailing-bits text of the same 64 bytes
    /// is refused, so nobody relaying a message can make a second accepted form of it (with
    /// another message hash). The SDK's `base64.urlsafe_b64decode` is more lenient (it drops
    /// characters outside the alphabet and ignores trailing bits); it refuses missing padding.
    ///
    /// # Errors
    /// [`Error::Encoding`] for any other text, or a decoded length other than 64.
    pub fn from_b64url(text: &str) -> Result<Self> {
        Self::decode_with(text, encoding::decode_base64url_padded)
    }

    /// Reads a signature in unpadded URL-safe base64 (86 characters), AIP's spelling of
    /// `sig`; the padded form is refused there.
    ///
    /// # Errors
    /// [`Error::Encoding`] for any other text, or a decoded length other than 64.
    pub fn from_b64url_nopad(text: &str) -> Result<Self> {
        Self::decode_with(text, encoding::decode_base64url_nopad)
    }

    fn decode_with(text: &str, decode: fn(&[u8], &mut [u8]) -> Result<usize>) -> Result<Self> {
        let mut buf = [0u8; 64];
        match decode(text.as_bytes(), &mut buf) {
            Ok(64) => Ok(Signature(buf)),
            Ok(_) | Err(Error::BufferTooSmall { .. }) => Err(Error::Encoding("Ed25519 signature length")),
            Err(e) => Err(e),
        }
    }

    /// The padded URL-safe base64 form (88 characters), as the SDK's `sign_message` emits it.
    #[must_use]
    pub fn to_b64url(&self) -> heapless::String<88> {
        let mut buf = [0u8; 88];
        let n = encoding::encode_base64url(&self.0, &mut buf).unwrap_or(0);
        ascii_string(buf.get(..n).unwrap_or_default())
    }
}

impl fmt::Debug for Signature {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Signature({})", self.to_b64url())
    }
}

/// The public key of the all-zero seed, which ed25519-compact refuses to derive
/// (RFC 8032 §5.1.5 applied to 32 zero bytes; checked against `cryptography` in the tests).
const ZERO_SEED_PUBLIC: [u8; 32] = [
    0x3b, 0x6a, 0x27, 0xbc, 0xce, 0xb6, 0xa4, 0x2d, 0x62, 0xa3, 0xa8, 0xd0, 0x2a, 0x6f, 0x0d, 0x73, 0x65, 0x32, 0x15,
    0x77, 0x1d, 0xe2, 0x43, 0xa6, 0x3a, 0xc0, 0x48, 0xa1, 0x8b, 0x59, 0xda, 0x29,
];

/// An Ed25519 signing key: the 32-byte seed and its public key.
///
/// `Debug` shows only the public key. The seed is held in an ed25519-compact `SecretKey`,
/// which overwrites it with volatile writes when dropped, and [`KeyPair::seed`] returns its
/// copy in a [`Zeroizing`] that erases itself when dropped (so does the working copy
/// [`KeyPair::from_seed`] makes). Bitwise copies the compiler leaves when the value is
/// moved are not erased: keep a key pair in one place.
#[derive(Clone)]
pub struct KeyPair {
    sk: ed25519_compact::SecretKey,
}

impl KeyPair {
    /// Length of a seed in bytes.
    pub const SEED_BYTES: usize = 32;

    /// Derives the key pair of a 32-byte seed (RFC 8032 §5.1.5). The seed is what the
    /// reference SDK calls the raw private key bytes (`Ed25519PrivateKey.from_private_bytes`).
    /// Every seed is accepted, including the all-zero seed.
    #[must_use]
    pub fn from_seed(seed: &[u8; 32]) -> Self {
        let public = if seed.iter().all(|&b| b == 0) {
            ZERO_SEED_PUBLIC
        } else {
            match ed25519_compact::KeyPair::try_from_seed(ed25519_compact::Seed::new(*seed)) {
                Ok(kp) => *kp.pk,
                // ed25519-compact 2.6 fails only for the all-zero seed, handled above. Were
                // it ever to fail here, the zero public key makes every signature fail to
                // verify (fail closed) rather than panic.
                Err(_) => [0u8; 32],
            }
        };
        let mut sk = Zeroizing::new([0u8; 64]);
        let (s, p) = sk.split_at_mut(32);
        s.copy_from_slice(seed);
        p.copy_from_slice(&public);
        KeyPair { sk: ed25519_compact::SecretKey::new(*sk) }
    }

    /// The public key.
    #[must_use]
    pub fn public_key(&self) -> PublicKey {
        PublicKey(*self.sk.public_key())
    }

    /// A copy of the 32-byte seed (the SDK's `private_key_bytes()`), erased when the
    /// returned [`Zeroizing`] is dropped (it dereferences to `[u8; 32]`).
    #[must_use]
    pub fn seed(&self) -> Zeroizing<[u8; 32]> {
        Zeroizing::new(*self.sk.seed())
    }

    /// Signs `msg` deterministically (pure Ed25519, no randomness).
    #[must_use]
    pub fn sign(&self, msg: &[u8]) -> Signature {
        Signature(*self.sk.sign(msg, None))
    }
}

impl fmt::Debug for KeyPair {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("KeyPair").field("public_key", &self.public_key()).finish_non_exhaustive()
    }
}

/// Whether a point encoding has a canonical `y`, i.e. `y < p = 2^255 - 19` (bit 255 is the
/// sign of `x`). curve25519-dalek reduces `y` modulo `p` when decoding, so 19 values of `y`
/// would otherwise have a second spelling. The sign bit on `x = 0` is the other
/// non-canonical form; it can only occur on the two points with `x = 0`, which have small
/// order and are refused as such.
fn canonical_y(enc: &[u8; 32]) -> bool {
    let (low, high) = (enc[0], enc[31] & 0x7f);
    !(high == 0x7f && enc[1..31].iter().all(|&b| b == 0xff) && low >= 0xed)
}

/// The `y` coordinates (little-endian, sign bit clear) of the eight points of small order:
/// `1` (the identity), `p - 1` (order 2), `0` (order 4, both `x`), and the two of order 8
/// (each with both `x`). A unit test derives them from curve25519-dalek's `EIGHT_TORSION`.
const SMALL_ORDER_Y: [[u8; 32]; 5] = [
    [1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
    [
        0xec, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
        0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f,
    ],
    [0; 32],
    [
        0xc7, 0x17, 0x6a, 0x70, 0x3d, 0x4d, 0xd8, 0x4f, 0xba, 0x3c, 0x0b, 0x76, 0x0d, 0x10, 0x67, 0x0f, 0x2a, 0x20,
        0x53, 0xfa, 0x2c, 0x39, 0xcc, 0xc6, 0x4e, 0xc7, 0xfd, 0x77, 0x92, 0xac, 0x03, 0x7a,
    ],
    [
        0x26, 0xe8, 0x95, 0x8f, 0xc2, 0xb2, 0x27, 0xb0, 0x45, 0xc3, 0xf4, 0x89, 0xf2, 0xef, 0x98, 0xf0, 0xd5, 0xdf,
        0xac, 0x05, 0xd3, 0xc6, 0x33, 0x39, 0xb1, 0x38, 0x02, 0x88, 0x6d, 0x53, 0xfc, 0x05,
    ],
];

/// Whether an encoding with a canonical `y` names a point of small order: its `y` is one of
/// [`SMALL_ORDER_Y`] (each of which decodes, with either sign bit, to such a point).
fn small_order_y(enc: &[u8; 32]) -> bool {
    let mut y = *enc;
    y[31] &= 0x7f;
    SMALL_ORDER_Y.contains(&y)
}

/// Checks `R` before the equation: a canonical encoding whose `y` is not that of a point
/// of small order. Whether `R` is a curve point at all is left to the equation, which
/// compares `R` with the encoding of a point it computes (always canonical and on the
/// curve), so an `R` that is not a point can never match; deciding it here would cost a
/// square root per verification for the same verdict.
fn check_r(enc: &[u8; 32]) -> Result<()> {
    if !canonical_y(enc) || small_order_y(enc) {
        return Err(Error::Signature);
    }
    Ok(())
}

/// Verifies `sig` over `msg` under `pk`, cofactorless and strict (see the module docs).
///
/// # Errors
/// [`Error::Signature`] on any failure: invalid, non-canonical or small-order key or `R`,
/// `S >= L`, or a signature that does not match.
pub fn verify(pk: &PublicKey, msg: &[u8], sig: &Signature) -> Result<()> {
    verify_prepared(&pk.prepare()?, msg, sig)
}

/// [`verify`] under a key checked and decoded beforehand.
///
/// # Errors
/// [`Error::Signature`] on any failure: non-canonical or small-order `R`, `S >= L`, or a
/// signature that does not match.
pub fn verify_prepared(key: &PreparedKey, msg: &[u8], sig: &Signature) -> Result<()> {
    let mut sink = VerifySink::with_key(key, sig)?;
    sink.state.update(msg);
    sink.finish()
}

/// A [`Sink`] that verifies a signature over the bytes written to it, so that a signature
/// over canonical JSON can be checked while the canonical form is streamed, with no
/// output buffer (the state is one SHA-512 context and the key: O(1) in the message).
pub struct VerifySink {
    state: ed25519_dalek::StreamVerifier,
}

impl VerifySink {
    /// Starts verifying `sig` under `pk`.
    ///
    /// # Errors
    /// [`Error::Signature`] at once when the key or the signature is malformed: a key that
    /// is not the canonical encoding of a point of large order, an `R` with a non-canonical
    /// `y` or the `y` of a point of small order, or `S >= L` (the checks [`verify`] applies
    /// before reading the message). An `R` that is not a point is refused by
    /// [`finish`](Self::finish).
    pub fn new(pk: &PublicKey, sig: &Signature) -> Result<Self> {
        Self::with_key(&pk.prepare()?, sig)
    }

    /// [`VerifySink::new`] under a key checked and decoded beforehand.
    ///
    /// # Errors
    /// [`Error::Signature`] at once for a non-canonical or small-order `R`, or `S >= L`.
    pub fn with_key(key: &PreparedKey, sig: &Signature) -> Result<Self> {
        let key = &key.0;
        let mut r = [0u8; 32];
        r.copy_from_slice(&sig.0[..32]);
        check_r(&r)?;
        // `verify_stream` refuses `S >= L`; the final comparison is of encodings,
        // `compress([S]B - [k]A) == R`, which is the cofactorless equation.
        key.verify_stream(&ed25519_dalek::Signature::from_bytes(&sig.0))
            .map(|state| VerifySink { state })
            .map_err(|_| Error::Signature)
    }

    /// Checks the signature over everything written.
    ///
    /// # Errors
    /// [`Error::Signature`] when it does not match.
    pub fn finish(self) -> Result<()> {
        self.state.finalize_and_verify().map_err(|_| Error::Signature)
    }
}

impl Sink for VerifySink {
    #[inline]
    fn write(&mut self, bytes: &[u8]) -> Result<()> {
        self.state.update(bytes);
        Ok(())
    }
}

impl fmt::Debug for VerifySink {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("VerifySink").finish_non_exhaustive()
    }
}

/// The canonicalization every signature preimage uses, as the SDK's
/// `verification_material()` names it.
pub const CANONICALIZATION: &str = "RFC8785-JCS";

/// The preimage rule of a Concordia signature (SPEC §9.2, rule 1), as the SDK's
/// `verification_material()` states it.
pub const PREIMAGE_RULE: &str = "object minus top-level 'signature'";

/// A signature algorithm of the reference SDK (`SUPPORTED_JWS_ALGORITHMS`): the `alg` its
/// `sign_message` and `verify_signature` take, and mandates and trust-evidence envelopes
/// carry (`algorithm`, `signature.alg`). Every surface reads the name with
/// [`Alg::from_name`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Alg {
    /// Ed25519 (this module), the SDK's default.
    #[default]
    EdDsa,
    /// ECDSA P-256 with SHA-256 (`crate::es256`, feature `es256`).
    Es256,
}

impl Alg {
    /// The SDK's name: `"EdDSA"` or `"ES256"`.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Alg::EdDsa => "EdDSA",
            Alg::Es256 => "ES256",
        }
    }

    /// The key type the SDK's `verification_material()` names: `"Ed25519"` or `"P-256"`.
    #[must_use]
    pub const fn key_type(self) -> &'static str {
        match self {
            Alg::EdDsa => "Ed25519",
            Alg::Es256 => "P-256",
        }
    }

    /// Reads the SDK's name, exactly (case-sensitive, as the SDK compares it).
    ///
    /// # Errors
    /// `InvalidArgument(detail::ALG)` for any other text.
    pub fn from_name(name: &str) -> Result<Self> {
        match name {
            "EdDSA" => Ok(Alg::EdDsa),
            "ES256" => Ok(Alg::Es256),
            _ => Err(Error::InvalidArgument(crate::error::detail::ALG)),
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;
    use std::format;
    use std::vec::Vec;

    fn hex<const N: usize>(s: &str) -> [u8; N] {
        let mut out = [0u8; N];
        assert_eq!(encoding::decode_hex_lower(s.as_bytes(), &mut out).unwrap(), N);
        out
    }

    fn hex_vec(s: &str) -> Vec<u8> {
        let mut out = std::vec![0u8; s.len() / 2];
        encoding::decode_hex_lower(s.as_bytes(), &mut out).unwrap();
        out
    }

    /// RFC 8032 §7.1: TEST 1, 2, 3 and TEST SHA(abc) (seed, public key, message, signature).
    const RFC8032: [(&str, &str, &str, &str); 4] = [
        ("9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60",
         "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a", "",
         "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b"),
        ("4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb",
         "3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c", "72",
         "92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da085ac1e43e15996e458f3613d0f11d8c387b2eaeb4302aeeb00d291612bb0c00"),
        ("c5aa8df43f9f837bedb7442f31dcb7b166d38535076f094b85ce3a2e0b4458f7",
         "fc51cd8e6218a1a38da47ed00230f0580816ed13ba3303ac5deb911548908025", "af82",
         "6291d657deec24024827e69c3abe01a30ce548a284743a445e3680d7db5ac3ac18ff9b538d16f290ae67f760984dc6594a7c15e9716ed28dc027beceea1ec40a"),
        ("833fe62409237b9d62ec77587520911e9a759cec1d19755b7da901b96dca3d42",
         "ec172b93ad5e563bf4932c70e1245034c35467ef2efd4d64ebf819683467e2bf",
         "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f",
         "dc2a4459e7369633a52b1bf277839a00201009a3efbf3ecb69bea2186c26b58909351fc9ac90b3ecfdfbc7c66431e0303dca179c138ac17ad9bef1177331a704"),
    ];

    #[test]
    fn rfc8032_vectors() {
        for (seed, pk, msg, sig) in RFC8032 {
            let kp = KeyPair::from_seed(&hex(seed));
            let msg = hex_vec(msg);
            assert_eq!(kp.public_key().as_bytes(), &hex::<32>(pk));
            assert_eq!(*kp.seed(), hex::<32>(seed));
            let s = kp.sign(&msg);
            assert_eq!(s.as_bytes(), &hex::<64>(sig));
            assert_eq!(verify(&kp.public_key(), &msg, &s), Ok(()));
            kp.public_key().validate().unwrap();
        }
    }

    #[test]
    fn tampering_fails() {
        for (seed, _, msg, _) in RFC8032 {
            let kp = KeyPair::from_seed(&hex(seed));
            let mut msg = hex_vec(msg);
            let sig = kp.sign(&msg);
            let pk = kp.public_key();
            for bit in [0usize, 7, 100, 255, 256, 300, 511] {
                let mut s = *sig.as_bytes();
                s[bit / 8] ^= 1 << (bit % 8);
                assert_eq!(verify(&pk, &msg, &Signature::from_array(s)), Err(Error::Signature));
                if bit < 256 {
                    let mut p = *pk.as_bytes();
                    p[bit / 8] ^= 1 << (bit % 8);
                    assert_eq!(verify(&PublicKey::from_array(p), &msg, &sig), Err(Error::Signature));
                }
            }
            msg.push(0);
            assert_eq!(verify(&pk, &msg, &sig), Err(Error::Signature));
            msg.pop();
            if let Some(b) = msg.first_mut() {
                *b ^= 0x80;
                assert_eq!(verify(&pk, &msg, &sig), Err(Error::Signature));
            }
        }
    }

    // Produced with the reference SDK (pip concordia-protocol==0.10.0, cryptography 50.0.2):
    //   sk = Ed25519PrivateKey.from_private_bytes(bytes(range(32)))
    //   kp = concordia.signing.KeyPair(private_key=sk, public_key=sk.public_key())
    //   msg = {"concordia": "interop", "n": 1, "text": "h\u00e9llo"}
    //   kp.public_key_b64(); sign_message(msg, kp)   # over canonical_json(msg) == INTEROP_MSG
    // and, for the long message, sk.sign(bytes((i * 7 + 3) % 256 for i in range(1023))).hex();
    // for the zero seed, Ed25519PrivateKey.from_private_bytes(bytes(32)) and .sign(b"").
    const INTEROP_MSG: &[u8] = "{\"concordia\":\"interop\",\"n\":1,\"text\":\"h\u{e9}llo\"}".as_bytes();
    const INTEROP_PK: &str = "A6EHv_POEL4dcN0Y50vAmWfk1jCbpQ1fHdyGZBJVMbg=";
    const INTEROP_SIG: &str =
        "ejW6-6WLv11xglQKmfaU7RBiEWNxxmwlgLDuJZMbMUYeymefO14HLa860rmBofeClYJzZAdGGH5Aa6t2Ym_BAw==";
    const LONG_SIG: &str = "2a9b2aaf45fc9eabf91b1f9abbb2736dd9ebb91f29d788ec6f38b4f9bf1e283b585f4dd6511d2684a0cd87e25da95d6c834e7c2ac121896199181467debd740e";

    #[test]
    fn python_sdk_interop() {
        let seed: [u8; 32] = core::array::from_fn(|i| i as u8);
        let kp = KeyPair::from_seed(&seed);
        assert_eq!(kp.public_key().to_b64url().as_str(), INTEROP_PK);
        let sig = kp.sign(INTEROP_MSG);
        assert_eq!(sig.to_b64url().as_str(), INTEROP_SIG);
        let pk = PublicKey::from_b64(INTEROP_PK).unwrap();
        assert_eq!(verify(&pk, INTEROP_MSG, &Signature::from_b64url(INTEROP_SIG).unwrap()), Ok(()));
        let long: Vec<u8> = (0..1023u32).map(|i| ((i * 7 + 3) % 256) as u8).collect();
        assert_eq!(kp.sign(&long).as_bytes(), &hex::<64>(LONG_SIG));
        let zero = KeyPair::from_seed(&[0; 32]);
        assert_eq!(
            zero.public_key().as_bytes(),
            &hex::<32>("3b6a27bcceb6a42d62a3a8d02a6f0d73653215771de243a63ac048a18b59da29")
        );
        assert_eq!(zero.sign(b"").as_bytes(), &hex::<64>("8f895b3cafe2c9506039d0e2a66382568004674fe8d237785092e40d6aaf483e4fc60168705f31f101596138ce21aa357c0d32a064f423dc3ee4aa3abf53f803"));
    }

    #[test]
    fn base64_forms() {
        let pk = PublicKey::from_b64(INTEROP_PK).unwrap();
        let bytes = *pk.as_bytes();
        // Unpadded and standard-alphabet spellings decode to the same key, as in the SDK.
        assert_eq!(PublicKey::from_b64(INTEROP_PK.trim_end_matches('=')), Ok(pk));
        let std_form: std::string::String = INTEROP_PK.replace('_', "/").replace('-', "+");
        assert_eq!(PublicKey::from_b64(&std_form), Ok(pk));
        assert!(PublicKey::from_b64("A6EHv_POEL4dcN0Y50vAmWfk1jCbpQ1fHdyGZBJVMb+=").is_err());
        assert_eq!(PublicKey::from_b64("AAAA"), Err(Error::Encoding("Ed25519 public key length")));
        assert_eq!(PublicKey::from_b64(&INTEROP_SIG[..60]), Err(Error::Encoding("Ed25519 public key length")));
        assert_eq!(PublicKey::from_bytes(&bytes[..31]), Err(Error::Encoding("Ed25519 public key length")));
        assert_eq!(PublicKey::from_bytes(&bytes), Ok(pk));
        let sig = Signature::from_b64url(INTEROP_SIG).unwrap();
        // One spelling: the padded form only (the SDK refuses the unpadded one too).
        let unpadded = INTEROP_SIG.trim_end_matches('=');
        assert_eq!(Signature::from_b64url(unpadded), Err(Error::Encoding("base64 padding")));
        assert_eq!(Signature::from_b64url_nopad(unpadded), Ok(sig));
        assert_eq!(Signature::from_b64url_nopad(INTEROP_SIG), Err(Error::Encoding("base64 padding")));
        for other in [
            INTEROP_SIG.replace('-', "+").replace('_', "/"),
            std::format!(" {INTEROP_SIG}"),
            std::format!("{}\n", INTEROP_SIG),
            INTEROP_SIG.replacen("==", "=", 1),
            std::format!("{INTEROP_SIG}=="),
        ] {
            assert!(Signature::from_b64url(&other).is_err(), "{other:?}");
        }
        assert_eq!(Signature::from_b64url(INTEROP_PK), Err(Error::Encoding("Ed25519 signature length")));
        assert_eq!(Signature::from_bytes(&sig.as_bytes()[..]), Ok(sig));
        assert!(Signature::from_bytes(&[0; 65]).is_err());
        assert_eq!(format!("{pk:?}"), format!("PublicKey({INTEROP_PK})"));
    }

    #[test]
    fn alg_names() {
        for alg in [Alg::EdDsa, Alg::Es256] {
            assert_eq!(Alg::from_name(alg.name()), Ok(alg));
        }
        for other in ["eddsa", "es256", "ES384", "", "EdDSA "] {
            assert_eq!(Alg::from_name(other), Err(Error::InvalidArgument(crate::error::detail::ALG)));
        }
        assert_eq!(Alg::default(), Alg::EdDsa);
    }

    #[test]
    fn debug_hides_seed() {
        let kp = KeyPair::from_seed(&[0x42; 32]);
        let dbg = format!("{kp:?}");
        assert!(dbg.contains("public_key"), "{dbg}");
        assert!(!dbg.contains("66, 66") && !dbg.contains("4242") && !dbg.contains("QkJC"), "{dbg}");
    }

    #[test]
    fn weak_and_non_canonical_keys() {
        let identity = PublicKey::from_array(hex("0100000000000000000000000000000000000000000000000000000000000000"));
        let non_canonical = PublicKey::from_array([0xff; 32]); // y >= p
        let sig = KeyPair::from_seed(&[7; 32]).sign(b"m");
        for pk in [identity, non_canonical, PublicKey::from_array([0; 32])] {
            assert_eq!(pk.validate(), Err(Error::Signature));
            assert_eq!(verify(&pk, b"m", &sig), Err(Error::Signature));
            assert!(VerifySink::new(&pk, &sig).is_err());
        }
        // S >= L is rejected before the message is read.
        let mut s = *sig.as_bytes();
        s[63] |= 0xf0;
        let pk = KeyPair::from_seed(&[7; 32]).public_key();
        assert!(VerifySink::new(&pk, &Signature::from_array(s)).is_err());
    }

    /// Raw Ed25519 arithmetic for crafting edge-case signatures (test code only, through
    /// curve25519-dalek's public API): returns `R || S` for nonce `r`, secret scalar `a`
    /// and the public key bytes `a_enc` that go into `k`, with `R = rB + t`.
    fn craft(r: u64, a: &Scalar, a_enc: &[u8; 32], t: &EdwardsPoint, msg: &[u8]) -> [u8; 64] {
        use sha2::Digest;
        let r = Scalar::from(r);
        let big_r = (EdwardsPoint::mul_base(&r) + t).compress();
        let mut h = sha2::Sha512::new();
        h.update(big_r.as_bytes());
        h.update(a_enc);
        h.update(msg);
        let k = Scalar::from_bytes_mod_order_wide(&h.finalize().into());
        let s = r + k * a;
        let mut sig = [0u8; 64];
        sig[..32].copy_from_slice(big_r.as_bytes());
        sig[32..].copy_from_slice(s.as_bytes());
        sig
    }

    fn k_of(sig: &[u8; 64], a_enc: &[u8; 32], msg: &[u8]) -> Scalar {
        use sha2::Digest;
        let mut h = sha2::Sha512::new();
        h.update(&sig[..32]);
        h.update(a_enc);
        h.update(msg);
        Scalar::from_bytes_mod_order_wide(&h.finalize().into())
    }

    use curve25519_dalek::constants::EIGHT_TORSION;
    use curve25519_dalek::edwards::EdwardsPoint;
    use curve25519_dalek::scalar::Scalar;
    use curve25519_dalek::traits::IsIdentity;

    /// The equation is checked cofactorless, as OpenSSL does: `R = rB + T` with `T` of
    /// small order satisfies only the cofactored equation and is refused; the same with
    /// `T` the identity is accepted.
    #[test]
    fn cofactored_only_signatures_are_refused() {
        let a = Scalar::from(0x1234_5678_9abc_def1u64);
        let a_enc = EdwardsPoint::mul_base(&a).compress().to_bytes();
        let pk = PublicKey::from_array(a_enc);
        let msg = b"{\"type\":\"negotiate.offer\"}";
        let honest = craft(99, &a, &a_enc, &EdwardsPoint::default(), msg);
        assert_eq!(verify(&pk, msg, &Signature::from_array(honest)), Ok(()));
        for (i, t) in EIGHT_TORSION.iter().enumerate().skip(1) {
            let sig = craft(99 + i as u64, &a, &a_enc, t, msg);
            // The cofactored equation holds: ed25519-compact accepts it.
            assert!(
                ed25519_compact::PublicKey::new(a_enc).verify(msg, &ed25519_compact::Signature::new(sig)).is_ok(),
                "torsion {i}"
            );
            assert_eq!(verify(&pk, msg, &Signature::from_array(sig)), Err(Error::Signature), "torsion {i}");
        }
    }

    /// A mixed-order key `A = aB + T`: the cofactorless equation holds exactly when
    /// `[k]T` is the identity; OpenSSL accepts those and so do we, and refuses the rest.
    #[test]
    fn mixed_order_keys_follow_the_cofactorless_equation() {
        let a = Scalar::from(0x0fed_cba9_8765_4321u64);
        let t = EIGHT_TORSION[1]; // order 8
        let a_enc = (EdwardsPoint::mul_base(&a) + t).compress().to_bytes();
        let pk = PublicKey::from_array(a_enc);
        assert_eq!(pk.validate(), Ok(()), "mixed order is not small order");
        let (mut accepted, mut refused) = (0, 0);
        for n in 0u64..64 {
            let msg = n.to_le_bytes();
            let sig = craft(1000 + n, &a, &a_enc, &EdwardsPoint::default(), &msg);
            let k = k_of(&sig, &a_enc, &msg);
            let holds = (k * t).is_identity();
            let got = verify(&pk, &msg, &Signature::from_array(sig));
            assert_eq!(got.is_ok(), holds, "message {n}");
            if holds {
                accepted += 1
            } else {
                refused += 1
            }
        }
        assert!(accepted > 0 && refused > 0, "{accepted} / {refused}");
    }

    /// `S + L` (and `S + 8L`, which overflows 256 bits for most `S`) are refused, as are
    /// small-order `R` and non-canonical encodings of `A` and `R`.
    #[test]
    fn malleable_forms_are_refused() {
        let kp = KeyPair::from_seed(&[5; 32]);
        let pk = kp.public_key();
        let msg = b"m";
        let sig = *kp.sign(msg).as_bytes();
        let l = Scalar::ZERO - Scalar::ONE; // L - 1
                                            // S + L as an integer: S + (L - 1) + 1, with carries, in little-endian bytes.
        let add = |s: &[u8], x: &[u8; 32], extra: u16| {
            let mut out = [0u8; 32];
            let mut carry = extra;
            for i in 0..32 {
                let v = u16::from(s[i]) + u16::from(x[i]) + carry;
                out[i] = v as u8;
                carry = v >> 8;
            }
            (out, carry)
        };
        let (s_plus_l, carry) = add(&sig[32..], l.as_bytes(), 1);
        assert_eq!(carry, 0);
        let mut forged = sig;
        forged[32..].copy_from_slice(&s_plus_l);
        assert_eq!(verify(&pk, msg, &Signature::from_array(forged)), Err(Error::Signature));
        // Small-order R with the matching S for k: R = T, S = k * a would need the secret;
        // any small-order R is refused before the equation.
        for t in EIGHT_TORSION {
            let mut s = sig;
            s[..32].copy_from_slice(t.compress().as_bytes());
            assert!(VerifySink::new(&pk, &Signature::from_array(s)).is_err());
        }
        // Non-canonical R: y + p for a point whose y < 19 (only such y can be written
        // twice); the identity's y = 1 gives 0xEE..FF 7F, and the sign bit on x = 0.
        let mut p_plus_1 = [0xffu8; 32];
        p_plus_1[0] = 0xee;
        p_plus_1[31] = 0x7f;
        let mut identity_neg = [0u8; 32];
        identity_neg[0] = 1;
        identity_neg[31] = 0x80;
        for enc in [p_plus_1, identity_neg] {
            assert_eq!(PublicKey::from_array(enc).validate(), Err(Error::Signature));
            let mut s = sig;
            s[..32].copy_from_slice(&enc);
            assert!(VerifySink::new(&pk, &Signature::from_array(s)).is_err());
        }
    }

    /// `canonical_y` and the re-encoding check agree on every decodable point of large
    /// order, over the `y` values around 0 and `p` (where the second spellings are) and a
    /// sweep of others, with both sign bits.
    #[test]
    fn canonical_y_is_reencoding_equality() {
        let mut tried = 0;
        let mut non_canonical = 0;
        let mut check = |enc: [u8; 32]| {
            let Some(point) = curve25519_dalek::edwards::CompressedEdwardsY(enc).decompress() else { return };
            if point.is_small_order() {
                return;
            }
            tried += 1;
            let same = point.compress().to_bytes() == enc;
            if !same {
                non_canonical += 1;
            }
            assert_eq!(canonical_y(&enc), same, "{enc:02x?}");
        };
        for sign in [0u8, 0x80] {
            for low in 0u8..=255 {
                // y = low (small) and y = 2^255 - 256 + low (around p)
                let mut small = [0u8; 32];
                small[0] = low;
                small[31] = sign;
                check(small);
                let mut high = [0xffu8; 32];
                high[0] = low;
                high[31] = 0x7f | sign;
                check(high);
            }
            for i in 0u32..2000 {
                let mut e = [0u8; 32];
                for (j, b) in e.iter_mut().enumerate() {
                    *b = (i.wrapping_mul(2_654_435_761).rotate_left(j as u32) >> 7) as u8 ^ (j as u8).wrapping_mul(97);
                }
                e[31] = (e[31] & 0x7f) | sign;
                check(e);
            }
        }
        assert!(tried > 1000 && non_canonical > 0, "{tried} / {non_canonical}");
    }

    /// The encodings [`check_r`] refuses by their `y` are exactly those that decode to a
    /// point of small order: the table is the `y` of the eight torsion points, and over
    /// both sign bits of every torsion `y` and a sweep of other encodings with a canonical
    /// `y`, `small_order_y` agrees with decoding and multiplying by the cofactor.
    #[test]
    fn small_order_y_is_decoding_to_small_order() {
        let mut ys: Vec<[u8; 32]> = EIGHT_TORSION
            .iter()
            .map(|t| {
                let mut y = t.compress().to_bytes();
                y[31] &= 0x7f;
                y
            })
            .collect();
        ys.sort_unstable();
        ys.dedup();
        let mut table = SMALL_ORDER_Y.to_vec();
        table.sort_unstable();
        assert_eq!(ys, table);
        let (mut small, mut large, mut no_point) = (0, 0, 0);
        let mut check = |enc: [u8; 32]| {
            if !canonical_y(&enc) {
                return;
            }
            let decoded = curve25519_dalek::edwards::CompressedEdwardsY(enc).decompress();
            match decoded {
                Some(p) if p.is_small_order() => small += 1,
                Some(_) => large += 1,
                None => no_point += 1,
            }
            assert_eq!(small_order_y(&enc), decoded.is_some_and(|p| p.is_small_order()), "{enc:02x?}");
        };
        for y in &table {
            for sign in [0u8, 0x80] {
                let mut e = *y;
                e[31] |= sign;
                check(e);
            }
        }
        for i in 0u32..4000 {
            let mut e = [0u8; 32];
            for (j, b) in e.iter_mut().enumerate() {
                *b = (i.wrapping_mul(2_246_822_519).rotate_left(j as u32) >> 5) as u8 ^ (j as u8).wrapping_mul(31);
            }
            check(e);
        }
        assert!(small == 10 && large > 1000 && no_point > 1000, "{small} / {large} / {no_point}");
    }

    /// An `R` whose `y` has no point passes the early checks and is refused by the
    /// equation, under a prepared key and a plain one alike.
    #[test]
    fn r_that_is_not_a_point_is_refused_by_the_equation() {
        let kp = KeyPair::from_seed(&[3; 32]);
        let (pk, msg) = (kp.public_key(), b"m");
        let key = pk.prepare().unwrap();
        let mut refused = 0;
        for y in 2u8..40 {
            let mut enc = [0u8; 32];
            enc[0] = y;
            if curve25519_dalek::edwards::CompressedEdwardsY(enc).decompress().is_some() {
                continue;
            }
            let mut sig = *kp.sign(msg).as_bytes();
            sig[..32].copy_from_slice(&enc);
            let sig = Signature::from_array(sig);
            assert!(VerifySink::with_key(&key, &sig).is_ok());
            assert_eq!(verify(&pk, msg, &sig), Err(Error::Signature));
            assert_eq!(verify_prepared(&key, msg, &sig), Err(Error::Signature));
            refused += 1;
        }
        assert!(refused > 5, "{refused}");
    }

    /// Verifying under a prepared key gives the verdicts of verifying under its bytes: good,
    /// tampered, and every torsion `R`; keys that cannot be prepared are those `validate`
    /// refuses.
    #[test]
    fn prepared_keys_give_the_same_verdicts() {
        for seed in 0u8..16 {
            let kp = KeyPair::from_seed(&[seed; 32]);
            let pk = kp.public_key();
            let key = pk.prepare().unwrap();
            assert_eq!(key.public_key(), pk);
            let msg = [seed; 40];
            let good = kp.sign(&msg);
            let mut sigs = std::vec![good];
            let mut tampered = *good.as_bytes();
            tampered[seed as usize % 64] ^= 1 << (seed % 8);
            sigs.push(Signature::from_array(tampered));
            for t in EIGHT_TORSION {
                let mut s = *good.as_bytes();
                s[..32].copy_from_slice(t.compress().as_bytes());
                sigs.push(Signature::from_array(s));
            }
            for sig in &sigs {
                assert_eq!(verify_prepared(&key, &msg, sig), verify(&pk, &msg, sig));
            }
            assert_eq!(verify_prepared(&key, &msg, &good), Ok(()));
        }
        for t in EIGHT_TORSION {
            let pk = PublicKey::from_array(t.compress().to_bytes());
            assert_eq!(pk.prepare().map(|_| ()), pk.validate());
            assert_eq!(pk.prepare().map(|_| ()), Err(Error::Signature));
        }
    }

    #[test]
    fn verify_sink_agrees_in_any_chunking() {
        let kp = KeyPair::from_seed(&[9; 32]);
        let msg: Vec<u8> = (0..300u32).map(|i| (i * 31 % 251) as u8).collect();
        let sig = kp.sign(&msg);
        let pk = kp.public_key();
        let mut bad = msg.clone();
        bad[150] ^= 1;
        for step in [1usize, 2, 3, 7, 64, 299, 300, 1000] {
            for (m, expect) in [(&msg, Ok(())), (&bad, Err(Error::Signature))] {
                let mut sink = VerifySink::new(&pk, &sig).unwrap();
                sink.write(&[]).unwrap();
                for chunk in m.chunks(step) {
                    sink.write(chunk).unwrap();
                }
                assert_eq!(sink.finish(), expect);
                assert_eq!(verify(&pk, m, &sig), expect);
            }
        }
        // Irregular chunk sizes.
        let mut sink = VerifySink::new(&pk, &sig).unwrap();
        let mut rest = &msg[..];
        let mut k = 0;
        while !rest.is_empty() {
            k = (k * 5 + 3) % 17;
            let (a, b) = rest.split_at(k.min(rest.len()));
            sink.write(a).unwrap();
            rest = b;
        }
        assert_eq!(sink.finish(), Ok(()));
    }
}
