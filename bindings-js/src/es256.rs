//! ES256 (ECDSA P-256 with SHA-256) key pairs and top-level signatures, as the reference SDK
//! signs and verifies them (`concordia_core::es256`: strict DER, low S, RFC 6979).

use concordia_core::error::detail::ES256_PRIVATE_KEY;
use concordia_core::es256::{KeyPair as CoreKeyPair, PublicKey};
use concordia_core::message;
use concordia_core::Error;
use wasm_bindgen::prelude::*;

use concordia_host::zeroize::Zeroizing;

use crate::errors::{random32, JsResult};
use crate::util::utf8;

/// An ES256 (ECDSA P-256) key pair.
#[wasm_bindgen]
pub struct Es256KeyPair(CoreKeyPair);

#[wasm_bindgen]
impl Es256KeyPair {
    /// A new key pair from WebCrypto randomness (a draw outside `1..n` is drawn again).
    /// Keep `scalar()` to restore it.
    ///
    /// # Errors
    /// `RandomnessError` when WebCrypto fails.
    pub fn generate() -> JsResult<Es256KeyPair> {
        loop {
            // Erased when dropped.
            let d = random32()?;
            if let Ok(kp) = CoreKeyPair::from_scalar(&d) {
                return Ok(Es256KeyPair(kp));
            }
        }
    }

    /// The key pair of a 32-byte big-endian private scalar (`0 < d < n`).
    ///
    /// # Errors
    /// `InputError` when the scalar is not 32 bytes, zero, or not below the group order.
    #[wasm_bindgen(js_name = fromScalar)]
    pub fn from_scalar(scalar: Vec<u8>) -> JsResult<Es256KeyPair> {
        // Owned (wasm-bindgen hands the copy over), so that it is erased when dropped.
        let scalar = Zeroizing::new(scalar);
        let d: &[u8; 32] = scalar.as_slice().try_into().map_err(|_| Error::InvalidArgument(ES256_PRIVATE_KEY))?;
        Ok(Es256KeyPair(CoreKeyPair::from_scalar(d)?))
    }

    /// The uncompressed X9.62 public key, 65 bytes (the SDK's `public_key_bytes()`).
    #[wasm_bindgen(js_name = publicKey)]
    pub fn public_key(&self) -> Vec<u8> {
        self.0.public_key().to_uncompressed().to_vec()
    }

    /// The public key as padded base64url (88 characters, the SDK's `public_key_b64()`).
    #[wasm_bindgen(js_name = publicKeyB64url)]
    pub fn public_key_b64url(&self) -> String {
        self.0.public_key().to_b64url().as_str().to_string()
    }

    /// The 32-byte private scalar. Keep it secret.
    pub fn scalar(&self) -> Vec<u8> {
        self.0.scalar().to_vec()
    }

    /// Signs a JSON object with ES256 under the top-level signature rule and returns it
    /// canonical, with `signature` (padded base64url of DER, low S) replaced or added.
    ///
    /// # Errors
    /// `InputError` for malformed JSON, `SchemaError` when it is not an object.
    #[wasm_bindgen(js_name = signObject)]
    pub fn sign_object(&self, json: &str) -> JsResult<String> {
        let mut nodes = concordia_host::Nodes::new();
        let doc = nodes.parse(json.as_bytes())?;
        Ok(utf8(concordia_host::write_vec(json.len() + 128, |buf| {
            message::sign_object_es256(doc.root(), &self.0, buf)
        })?))
    }
}

/// Verifies the top-level ES256 `signature` of a JSON object under `public_key` (base64 or
/// base64url text of the X9.62 point, as the SDK reads it); returns normally when it
/// verifies.
///
/// # Errors
/// `SignatureError` when it does not (high S included), `InputError` for a malformed key
/// or signature text or JSON, `SchemaError` without a string `signature`.
#[wasm_bindgen(js_name = verifySignatureEs256)]
pub fn verify_signature_es256(json: &str, public_key: &str) -> JsResult<()> {
    let pk = PublicKey::from_b64(public_key)?;
    let mut nodes = concordia_host::Nodes::new();
    let doc = nodes.parse(json.as_bytes())?;
    message::verify_signed_object_es256(doc.root(), &pk)?;
    Ok(())
}
