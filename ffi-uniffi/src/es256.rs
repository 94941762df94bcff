//! ES256 (ECDSA P-256 with SHA-256) key pairs and top-level signatures, as the reference SDK
//! signs and verifies them (`concordia_core::es256`: strict DER, low S, RFC 6979).

use std::sync::Arc;

use concordia_core::error::detail::ES256_PRIVATE_KEY;
use concordia_core::es256::{KeyPair as CoreKeyPair, PublicKey};
use concordia_core::message;
use concordia_core::Error;

use crate::errors::SignatureError;
use crate::util::{parse, utf8, write_vec};

/// An ES256 (ECDSA P-256) key pair. Immutable, so one object may be shared across threads.
#[derive(uniffi::Object)]
pub struct Es256KeyPair(CoreKeyPair);

impl std::fmt::Debug for Es256KeyPair {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The core's Debug shows the public key only.
        self.0.fmt(f)
    }
}

#[uniffi::export]
impl Es256KeyPair {
    /// A new key pair from operating system randomness (a draw outside `1..n` is drawn
    /// again). Keep `scalar()` to restore it.
    #[uniffi::constructor]
    pub fn generate() -> Result<Arc<Self>, SignatureError> {
        let mut d = [0u8; 32];
        let kp = loop {
            getrandom::fill(&mut d).map_err(|e| SignatureError::Randomness(format!("randomness unavailable: {e}")))?;
            if let Ok(kp) = CoreKeyPair::from_scalar(&d) {
                break kp;
            }
        };
        d.fill(0);
        Ok(Arc::new(Es256KeyPair(kp)))
    }

    /// The key pair of a 32-byte big-endian private scalar (`0 < d < n`).
    #[uniffi::constructor]
    pub fn from_scalar(scalar: Vec<u8>) -> Result<Arc<Self>, SignatureError> {
        let d: &[u8; 32] = scalar
            .as_slice()
            .try_into()
            .map_err(|_| SignatureError::from(Error::InvalidArgument(ES256_PRIVATE_KEY)))?;
        Ok(Arc::new(Es256KeyPair(CoreKeyPair::from_scalar(d)?)))
    }

    /// The uncompressed X9.62 public key, 65 bytes (the SDK's `public_key_bytes()`).
    pub fn public_key(&self) -> Vec<u8> {
        self.0.public_key().to_uncompressed().to_vec()
    }

    /// The public key as padded base64url (88 characters, the SDK's `public_key_b64()`).
    pub fn public_key_b64url(&self) -> String {
        self.0.public_key().to_b64url().as_str().to_string()
    }

    /// The 32-byte private scalar, to store a generated key. Keep it secret.
    pub fn scalar(&self) -> Vec<u8> {
        self.0.scalar().to_vec()
    }

    /// Signs a JSON object with ES256 under the top-level signature rule and returns it
    /// canonical, with `signature` (padded base64url of DER, low S) replaced or added.
    pub fn sign_object(&self, json: String) -> Result<String, SignatureError> {
        let mut nodes = concordia_host::Nodes::new();
        let doc = parse(json.as_bytes(), &mut nodes)?;
        Ok(utf8(write_vec(json.len() + 128, |buf| message::sign_object_es256(doc.root(), &self.0, buf))?))
    }
}

/// Verifies the top-level ES256 `signature` of a JSON object under `public_key`: base64 or
/// base64url text of the X9.62 point (uncompressed or compressed), as the SDK reads it.
/// Returns normally when it verifies.
#[uniffi::export]
pub fn verify_signature_es256(json: String, public_key: String) -> Result<(), SignatureError> {
    let pk = PublicKey::from_b64(&public_key)?;
    let mut nodes = concordia_host::Nodes::new();
    let doc = parse(json.as_bytes(), &mut nodes)?;
    message::verify_signed_object_es256(doc.root(), &pk)?;
    Ok(())
}
