//! Signing with a key the core never sees.
//!
//! A [`Signer`] is anything that holds a private key and can sign bytes: the in-memory
//! [`crate::sign::KeyPair`] and [`crate::es256::KeyPair`], or a key in a Secure Enclave,
//! an Android Keystore, a KMS, an HSM or a TPM reached by a host callback. The core
//! builds the preimage, calls [`Signer::sign`] once, and [`signature_text`] checks what
//! comes back before anything uses it:
//!
//! 1. the signer's error, if any, is returned as is (nothing is signed);
//! 2. an Ed25519 signature must be exactly 64 bytes; an ES256 signature is either the raw
//!    `r || s` (64 bytes, as WebCrypto, the Secure Enclave and PKCS#11 `CKM_ECDSA` give it)
//!    or strict ASN.1 DER (as `cryptography`, JCA and Go's `crypto/ecdsa` give it), and a
//!    high `s` is replaced by `n - s` (the SDK emits and accepts only low S);
//! 3. the signature must verify under [`Signer::public_key`] over the preimage with the
//!    same check a verifier runs ([`crate::sign::verify`], [`crate::es256::verify`]); a
//!    signature for another key, over other bytes or malformed is
//!    [`Error::Signer`]`(`[`SIGNER_WRONG_SIGNATURE`]`)`, never signed output.
//!
//! ```
//! # fn main() -> Result<(), concordia_core::Error> {
//! use concordia_core::{sign::KeyPair, signer};
//!
//! let key = KeyPair::from_seed(&[7; 32]);
//! let text = signer::signature_text(&key, b"preimage")?;
//! assert_eq!(text.len(), 88); // padded base64url of 64 bytes
//! # Ok(())
//! # }
//! ```

use crate::error::{Error, Result};
use crate::sign::{self, Alg};

/// The longest raw signature a [`Signer`] may return: a DER ES256 signature (72 bytes).
pub const MAX_SIGNATURE_BYTES: usize = 72;

/// The longest signature text [`signature_text`] returns: padded base64url of 72 bytes.
pub const MAX_SIGNATURE_TEXT: usize = 96;

/// `Signer` detail: the signer returned a signature that does not verify under its
/// public key over the preimage (wrong key, wrong bytes, wrong length, malformed).
pub const SIGNER_WRONG_SIGNATURE: &str = "the signer returned a signature that does not verify under its public key";

/// `Signer` detail: the signer reported a failure (a callback's error, a refused PIN, a
/// locked token, an exception).
pub const SIGNER_FAILED: &str = "the signer failed";

/// `Signer` detail: the signer's public key is not a valid key of its algorithm.
pub const SIGNER_PUBLIC_KEY: &str = "the signer's public key is not a valid key of its algorithm";

/// The public key of a [`Signer`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SignerKey {
    /// An Ed25519 public key (32 bytes).
    Ed25519(sign::PublicKey),
    /// A P-256 public key.
    #[cfg(feature = "es256")]
    Es256(crate::es256::PublicKey),
}

impl SignerKey {
    /// The algorithm of the key.
    #[must_use]
    pub const fn alg(&self) -> Alg {
        match self {
            SignerKey::Ed25519(_) => Alg::EdDsa,
            #[cfg(feature = "es256")]
            SignerKey::Es256(_) => Alg::Es256,
        }
    }

    /// The key from its raw bytes: 32 bytes for Ed25519; the 65-byte uncompressed SEC1
    /// (X9.62) point, or the 33-byte compressed one, for ES256.
    ///
    /// # Errors
    /// `Signer(SIGNER_PUBLIC_KEY)` for bytes that are not a valid key of `alg`;
    /// `InvalidArgument(detail::ALG)` for ES256 in a build without the `es256` feature.
    pub fn from_bytes(alg: Alg, bytes: &[u8]) -> Result<Self> {
        match alg {
            Alg::EdDsa => {
                sign::PublicKey::from_bytes(bytes).map(SignerKey::Ed25519).map_err(|_| Error::Signer(SIGNER_PUBLIC_KEY))
            }
            #[cfg(feature = "es256")]
            Alg::Es256 => crate::es256::PublicKey::from_sec1(bytes)
                .map(SignerKey::Es256)
                .map_err(|_| Error::Signer(SIGNER_PUBLIC_KEY)),
            #[cfg(not(feature = "es256"))]
            Alg::Es256 => Err(Error::InvalidArgument(crate::error::detail::ALG)),
        }
    }
}

/// A private key that signs preimages (module docs).
///
/// Implementations sign exactly the bytes given (an ES256 signer hashes them with SHA-256
/// itself, or hands them to a mechanism that does) and write the raw signature into `out`,
/// returning its length. The core calls `sign` at most once per signature it makes, and
/// never after the operation that called it has returned.
pub trait Signer {
    /// The signer's public key; its algorithm is the signature algorithm.
    fn public_key(&self) -> SignerKey;

    /// Signs `preimage` into `out`, returning the signature's length.
    ///
    /// # Errors
    /// Whatever the signer reports; hosts use [`Error::Signer`]`(`[`SIGNER_FAILED`]`)`.
    fn sign(&self, preimage: &[u8], out: &mut [u8; MAX_SIGNATURE_BYTES]) -> Result<usize>;

    /// The signature algorithm: that of [`Signer::public_key`].
    fn alg(&self) -> Alg {
        self.public_key().alg()
    }
}

impl Signer for sign::KeyPair {
    fn public_key(&self) -> SignerKey {
        SignerKey::Ed25519(sign::KeyPair::public_key(self))
    }

    fn sign(&self, preimage: &[u8], out: &mut [u8; MAX_SIGNATURE_BYTES]) -> Result<usize> {
        let sig = sign::KeyPair::sign(self, preimage);
        out.get_mut(..64).ok_or(Error::Signer(SIGNER_FAILED))?.copy_from_slice(sig.as_bytes());
        Ok(64)
    }
}

#[cfg(feature = "es256")]
impl Signer for crate::es256::KeyPair {
    fn public_key(&self) -> SignerKey {
        SignerKey::Es256(crate::es256::KeyPair::public_key(self))
    }

    fn sign(&self, preimage: &[u8], out: &mut [u8; MAX_SIGNATURE_BYTES]) -> Result<usize> {
        Ok(crate::es256::KeyPair::sign(self, preimage).to_der(out))
    }
}

impl<S: Signer + ?Sized> Signer for &S {
    fn public_key(&self) -> SignerKey {
        (**self).public_key()
    }

    fn sign(&self, preimage: &[u8], out: &mut [u8; MAX_SIGNATURE_BYTES]) -> Result<usize> {
        (**self).sign(preimage, out)
    }
}

/// A checked signature of one preimage, by algorithm.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CheckedSignature {
    /// Ed25519.
    Ed25519(sign::Signature),
    /// ES256, low S.
    #[cfg(feature = "es256")]
    Es256(crate::es256::Signature),
}

impl CheckedSignature {
    /// The Concordia text form: padded URL-safe base64 of the 64 bytes (Ed25519) or of the
    /// DER form (ES256), as the SDK's `sign_message` writes it.
    #[must_use]
    pub fn to_b64url(&self) -> heapless::String<MAX_SIGNATURE_TEXT> {
        let mut out = heapless::String::new();
        let text = match self {
            CheckedSignature::Ed25519(sig) => sig.to_b64url(),
            #[cfg(feature = "es256")]
            CheckedSignature::Es256(sig) => {
                let t = sig.to_b64url();
                let _ = out.push_str(t.as_str());
                return out;
            }
        };
        let _ = out.push_str(text.as_str());
        out
    }
}

/// Calls `signer` once over `preimage` and checks its answer (module docs).
///
/// # Errors
/// The signer's own error; `Signer(SIGNER_WRONG_SIGNATURE)` when the returned bytes are
/// not a signature of `preimage` under the signer's public key.
pub fn sign_checked<S: Signer + ?Sized>(signer: &S, preimage: &[u8]) -> Result<CheckedSignature> {
    let key = signer.public_key();
    let mut raw = [0u8; MAX_SIGNATURE_BYTES];
    let n = signer.sign(preimage, &mut raw)?;
    let bytes = raw.get(..n).ok_or(Error::Signer(SIGNER_WRONG_SIGNATURE))?;
    let wrong = |_| Error::Signer(SIGNER_WRONG_SIGNATURE);
    match key {
        SignerKey::Ed25519(pk) => {
            let sig = sign::Signature::from_bytes(bytes).map_err(wrong)?;
            sign::verify(&pk, preimage, &sig).map_err(wrong)?;
            Ok(CheckedSignature::Ed25519(sig))
        }
        #[cfg(feature = "es256")]
        SignerKey::Es256(pk) => {
            let sig = es256_low_s(bytes).ok_or(Error::Signer(SIGNER_WRONG_SIGNATURE))?;
            crate::es256::verify(&pk, preimage, &sig).map_err(wrong)?;
            Ok(CheckedSignature::Es256(sig))
        }
    }
}

/// [`sign_checked`], as the signature text signed records carry.
///
/// # Errors
/// As [`sign_checked`].
pub fn signature_text<S: Signer + ?Sized>(signer: &S, preimage: &[u8]) -> Result<heapless::String<MAX_SIGNATURE_TEXT>> {
    sign_checked(signer, preimage).map(|s| s.to_b64url())
}

/// Reads an ES256 signature as raw `r || s` (64 bytes) or strict DER, with a high `s`
/// replaced by `n - s`. `None` for anything else.
#[cfg(feature = "es256")]
fn es256_low_s(bytes: &[u8]) -> Option<crate::es256::Signature> {
    let (r, s) = if let Ok(raw) = <&[u8; 64]>::try_from(bytes) {
        let mut r = [0u8; 32];
        let mut s = [0u8; 32];
        r.copy_from_slice(raw.get(..32)?);
        s.copy_from_slice(raw.get(32..)?);
        (r, s)
    } else {
        crate::es256::der_scalars(bytes)?
    };
    let s = crate::es256::low_s(&s);
    crate::es256::Signature::from_scalars(&r, &s).ok()
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests;
