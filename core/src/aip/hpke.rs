//! Body sealing: RFC 9180 HPKE, base mode (`mode_base` = 0), with the ciphersuite
//! DHKEM(X25519, HKDF-SHA256) (KEM 0x0020), HKDF-SHA256 (KDF 0x0001) and
//! ChaCha20Poly1305 (AEAD 0x0003).
//!
//! The construction is the `hpke` crate's (rozbb/rust-hpke), used through its in-place,
//! allocation-free calls. Randomness is an input: the sender passes 32 bytes of ephemeral
//! input keying material `ikm_e`, and the ephemeral key pair is RFC 9180
//! `DeriveKeyPair(ikm_e)`, exactly as in the RFC's test vectors (a test reproduces them).
//! A sender must never reuse `ikm_e`; the CLI reads it from the operating system.
//!
//! Single-shot use only (one message per encapsulation, sequence number 0), so the
//! nonce is the key schedule's `base_nonce` and no state is kept.

use hpke::aead::{AeadTag, ChaCha20Poly1305};
use hpke::inout::InOutBuf;
use hpke::kdf::HkdfSha256;
use hpke::kem::X25519HkdfSha256;
use hpke::rand_core::{TryCryptoRng, TryRng};
use hpke::{Deserializable, Kem as _, OpModeR, OpModeS, Serializable};

use core::convert::Infallible;
use core::fmt;

use zeroize::{Zeroize, ZeroizeOnDrop};

use crate::error::{Error, Result};

/// Length of the encapsulated key `enc` (an X25519 public key).
pub const ENC_LEN: usize = 32;
/// Length of the ChaCha20Poly1305 tag.
pub const TAG_LEN: usize = 16;

type Kem = X25519HkdfSha256;

/// An X25519 public key (a key agreement key of a DID Document).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct X25519PublicKey(pub [u8; 32]);

/// An X25519 private key. `Debug` does not show it, and dropping it overwrites its bytes
/// (volatile writes, the `zeroize` crate), so every holder (a key file, a binding's key
/// pair object, a clone) erases its copy when it goes. A value moved by the compiler
/// may leave a bitwise copy in a stack slot it no longer uses; keep a key in one place
/// (a `Box`, a struct field) rather than moving it around.
#[derive(Clone)]
pub struct X25519SecretKey(pub [u8; 32]);

impl Zeroize for X25519SecretKey {
    fn zeroize(&mut self) {
        self.0.zeroize();
    }
}

impl Drop for X25519SecretKey {
    fn drop(&mut self) {
        self.0.zeroize();
    }
}

impl ZeroizeOnDrop for X25519SecretKey {}

impl fmt::Debug for X25519SecretKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("X25519SecretKey(..)")
    }
}

impl X25519SecretKey {
    /// The matching public key.
    #[must_use]
    pub fn public_key(&self) -> X25519PublicKey {
        match <Kem as hpke::Kem>::PrivateKey::from_bytes(&self.0) {
            Ok(sk) => X25519PublicKey(to32(&Kem::sk_to_pk(&sk).to_bytes())),
            Err(_) => X25519PublicKey([0; 32]),
        }
    }
}

fn to32(b: &[u8]) -> [u8; 32] {
    let mut out = [0u8; 32];
    if let Some(src) = b.get(..32) {
        out.copy_from_slice(src);
    }
    out
}

/// RFC 9180 §7.1.3 `DeriveKeyPair(ikm)` for DHKEM(X25519, HKDF-SHA256).
#[must_use]
pub fn derive_keypair(ikm: &[u8]) -> (X25519SecretKey, X25519PublicKey) {
    let (sk, pk) = Kem::derive_keypair(ikm);
    let mut bytes = sk.to_bytes();
    let secret = X25519SecretKey(to32(&bytes));
    bytes.as_mut_slice().zeroize();
    (secret, X25519PublicKey(to32(&pk.to_bytes())))
}

/// A "random" source that yields one caller-supplied 32-byte seed, for the `hpke` crate's
/// `*_with_rng` calls (which draw exactly `Nsk` = 32 bytes for the ephemeral key). Any
/// further draw is recorded as `overdrawn` and fails the operation closed.
pub(crate) struct SeedRng {
    seed: [u8; 32],
    used: bool,
    pub(crate) overdrawn: bool,
}

impl SeedRng {
    pub(crate) fn new(seed: &[u8; 32]) -> Self {
        SeedRng { seed: *seed, used: false, overdrawn: false }
    }
}

impl TryRng for SeedRng {
    type Error = Infallible;
    fn try_next_u32(&mut self) -> core::result::Result<u32, Infallible> {
        self.overdrawn = true;
        Ok(0)
    }
    fn try_next_u64(&mut self) -> core::result::Result<u64, Infallible> {
        self.overdrawn = true;
        Ok(0)
    }
    fn try_fill_bytes(&mut self, dst: &mut [u8]) -> core::result::Result<(), Infallible> {
        if self.used || dst.len() != 32 {
            self.overdrawn = true;
            dst.fill(0);
        } else {
            dst.copy_from_slice(&self.seed);
            self.used = true;
        }
        Ok(())
    }
}

impl TryCryptoRng for SeedRng {}

impl Drop for SeedRng {
    fn drop(&mut self) {
        self.seed.zeroize();
    }
}

/// Seals `buf` in place to `recipient`: HPKE `SealBase(pkR, info, aad, pt)` with the
/// ephemeral key `DeriveKeyPair(ikm_e)`. Returns `(enc, tag)`; the ciphertext is `buf`
/// followed by `tag`.
///
/// # Errors
/// [`Error::Signature`] when encapsulation fails (a low-order recipient key) or the
/// randomness was used other than as one 32-byte draw; `buf` is then zeroed.
pub fn seal_in_place(
    recipient: &X25519PublicKey,
    info: &[u8],
    aad: &[u8],
    ikm_e: &[u8; 32],
    buf: &mut [u8],
) -> Result<([u8; ENC_LEN], [u8; TAG_LEN])> {
    let pk = <Kem as hpke::Kem>::PublicKey::from_bytes(&recipient.0).map_err(|_| Error::Signature)?;
    let mut rng = SeedRng::new(ikm_e);
    let res = hpke::single_shot_seal_inout_detached_with_rng::<ChaCha20Poly1305, HkdfSha256, Kem>(
        &OpModeS::Base,
        &pk,
        info,
        InOutBuf::from(&mut *buf),
        aad,
        &mut rng,
    );
    match res {
        Ok((enc, tag)) if !rng.overdrawn => {
            let mut t = [0u8; TAG_LEN];
            tag.write_exact(&mut t);
            Ok((to32(&enc.to_bytes()), t))
        }
        _ => {
            buf.fill(0);
            Err(Error::Signature)
        }
    }
}

/// Opens `buf` in place: HPKE `OpenBase(enc, skR, info, aad, ct)` where the ciphertext
/// is `buf` followed by `tag`.
///
/// # Errors
/// [`Error::Signature`] when the key does not decapsulate or the tag does not verify (no
/// further detail); `buf` is then zeroed, so no unauthenticated plaintext is left.
pub fn open_in_place(
    secret: &X25519SecretKey,
    enc: &[u8; ENC_LEN],
    info: &[u8],
    aad: &[u8],
    buf: &mut [u8],
    tag: &[u8; TAG_LEN],
) -> Result<()> {
    let sk = <Kem as hpke::Kem>::PrivateKey::from_bytes(&secret.0).map_err(|_| Error::Signature)?;
    let enc = <Kem as hpke::Kem>::EncappedKey::from_bytes(enc).map_err(|_| Error::Signature)?;
    let tag = AeadTag::<ChaCha20Poly1305>::from_bytes(tag).map_err(|_| Error::Signature)?;
    let res = hpke::single_shot_open_inout_detached::<ChaCha20Poly1305, HkdfSha256, Kem>(
        &OpModeR::Base,
        &sk,
        &enc,
        info,
        InOutBuf::from(&mut *buf),
        aad,
        &tag,
    );
    res.map_err(|_| {
        buf.fill(0);
        Error::Signature
    })
}
