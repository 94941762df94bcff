//! Ed25519 key pairs, signing and signature verification (SPEC §9.2 rule 1).

use concordia_core::digest::Digest;
use concordia_core::message::{self, Envelope as CoreEnvelope, Party as CoreParty};
use concordia_core::sign::{self, KeyPair as CoreKeyPair, PublicKey, Signature};
use concordia_core::Error;
use wasm_bindgen::prelude::*;

use crate::errors::{random32, JsResult};
use crate::util::{elements, get, opt_string, string, utf8, whole};

/// An Ed25519 key pair.
#[wasm_bindgen]
pub struct KeyPair(pub(crate) CoreKeyPair);

#[wasm_bindgen]
impl KeyPair {
    /// A new key pair from 32 bytes of WebCrypto randomness. Keep `seed()` to restore it.
    ///
    /// # Errors
    /// `RandomnessError` when WebCrypto fails.
    pub fn generate() -> JsResult<KeyPair> {
        // Erased when dropped.
        Ok(KeyPair(CoreKeyPair::from_seed(&*random32()?)))
    }

    /// The key pair of a 32-byte seed (RFC 8032; the reference SDK's raw private key).
    ///
    /// # Errors
    /// `InputError` when the seed is not 32 bytes.
    #[wasm_bindgen(js_name = fromSeed)]
    pub fn from_seed(seed: Vec<u8>) -> JsResult<KeyPair> {
        // Owned (wasm-bindgen hands the copy over), so that it is erased when dropped.
        let seed = concordia_host::zeroize::Zeroizing::new(seed);
        let seed: &[u8; 32] =
            seed.as_slice().try_into().map_err(|_| Error::InvalidArgument("seed must be 32 bytes"))?;
        Ok(KeyPair(CoreKeyPair::from_seed(seed)))
    }

    /// The 32-byte public key.
    #[wasm_bindgen(js_name = publicKey)]
    pub fn public_key(&self) -> Vec<u8> {
        self.0.public_key().as_bytes().to_vec()
    }

    /// The public key as padded base64url (44 characters), the form of `keys.json`.
    #[wasm_bindgen(js_name = publicKeyB64url)]
    pub fn public_key_b64url(&self) -> String {
        self.0.public_key().to_b64url().as_str().to_string()
    }

    /// The 32-byte seed (the private key). Keep it secret.
    pub fn seed(&self) -> Vec<u8> {
        self.0.seed().to_vec()
    }

    /// The 64-byte Ed25519 signature of `message`.
    pub fn sign(&self, message: &[u8]) -> Vec<u8> {
        self.0.sign(message).as_bytes().to_vec()
    }

    /// Signs a JSON object under the top-level signature rule (the preimage is the
    /// canonical object without `signature`) and returns it canonical, with `signature`
    /// (padded base64url) replaced or added.
    ///
    /// # Errors
    /// `InputError` for malformed JSON, `SchemaError` when it is not an object.
    #[wasm_bindgen(js_name = signObject)]
    pub fn sign_object(&self, json: &str) -> JsResult<String> {
        let mut nodes = concordia_host::Nodes::new();
        let doc = nodes.parse(json.as_bytes())?;
        Ok(utf8(concordia_host::write_vec(json.len() + 128, |buf| message::sign_object(doc.root(), &self.0, buf))?))
    }

    /// Builds a message envelope (SPEC §4.1) from `{messageType, id, sessionId, timestamp,
    /// from: {agentId, principalId?}, body (JSON text), to?: [...], prevHash?, inReplyTo?,
    /// reasoning?, ttl?, concordia?}`, signs it and returns it as canonical JSON.
    ///
    /// # Errors
    /// `InputError` for a missing or mistyped field or malformed body, `ttl` beyond
    /// 2^53 - 1 or a malformed `prevHash`.
    #[wasm_bindgen(js_name = signEnvelope)]
    pub fn sign_envelope(&self, envelope: &JsValue) -> JsResult<String> {
        let message_type = string(envelope, "messageType", "envelope.messageType must be a string")?;
        let id = string(envelope, "id", "envelope.id must be a string")?;
        let session_id = string(envelope, "sessionId", "envelope.sessionId must be a string")?;
        let timestamp = string(envelope, "timestamp", "envelope.timestamp must be a string")?;
        let body_json = string(envelope, "body", "envelope.body must be JSON text")?;
        let from = party(&get(envelope, "from")?)?;
        let to_value = get(envelope, "to")?;
        let to: Vec<(String, Option<String>)> = if to_value.is_undefined() || to_value.is_null() {
            Vec::new()
        } else {
            elements(&to_value, "envelope.to must be an array")?.iter().map(party).collect::<JsResult<_>>()?
        };
        let prev_hash = opt_string(envelope, "prevHash", "envelope.prevHash must be a string")?;
        let in_reply_to = opt_string(envelope, "inReplyTo", "envelope.inReplyTo must be a string")?;
        let reasoning = opt_string(envelope, "reasoning", "envelope.reasoning must be a string")?;
        let concordia = opt_string(envelope, "concordia", "envelope.concordia must be a string")?;
        let ttl_value = get(envelope, "ttl")?;
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)] // checked by `whole`
        let ttl = if ttl_value.is_undefined() || ttl_value.is_null() {
            None
        } else {
            Some(whole(&ttl_value, 9_007_199_254_740_991.0, "envelope.ttl must be 0 to 2^53 - 1 seconds")? as u64)
        };

        let mut nodes = concordia_host::Nodes::new();
        let body = nodes.parse(body_json.as_bytes())?;
        let to: Vec<CoreParty<'_>> = to.iter().map(core_party).collect();
        let mut e = CoreEnvelope::new(&message_type, &id, &session_id, &timestamp, core_party(&from), body.root());
        if let Some(v) = &concordia {
            e.concordia = v;
        }
        e.to = &to;
        if let Some(h) = &prev_hash {
            e.prev_hash = Digest::parse_prefixed(h)?;
        }
        e.in_reply_to = in_reply_to.as_deref();
        e.reasoning = reasoning.as_deref();
        e.ttl = ttl;
        let size = body_json.len() + reasoning.as_ref().map_or(0, String::len) + 1024;
        Ok(utf8(concordia_host::write_vec(size, |buf| e.write_signed(&self.0, buf))?))
    }
}

fn core_party(p: &(String, Option<String>)) -> CoreParty<'_> {
    CoreParty { agent_id: &p.0, principal_id: p.1.as_deref() }
}

/// `{agentId, principalId?}`.
fn party(v: &JsValue) -> JsResult<(String, Option<String>)> {
    Ok((
        string(v, "agentId", "a party's agentId must be a string")?,
        opt_string(v, "principalId", "a party's principalId must be a string")?,
    ))
}

/// Verifies the top-level `signature` of the JSON object `json` under `publicKey` (base64
/// or base64url text, padding optional; SPEC §9.2 rule 1). Returns when it verifies.
///
/// # Errors
/// `SignatureError` when it does not verify, `InputError` for a malformed key, signature
/// text or JSON, `SchemaError` for a missing `signature`.
#[wasm_bindgen(js_name = verifySignature)]
pub fn verify_signature(json: &str, public_key: &str) -> JsResult<()> {
    let pk = PublicKey::from_b64(public_key)?;
    let mut nodes = concordia_host::Nodes::new();
    let doc = nodes.parse(json.as_bytes())?;
    message::verify_signed_object(doc.root(), &pk)?;
    Ok(())
}

/// Verifies a detached 64-byte Ed25519 `signature` of `message` (as `KeyPair.sign`
/// makes) under `publicKey` (base64 or base64url text).
///
/// # Errors
/// `SignatureError` when it does not verify, `InputError` for a malformed key or a
/// signature that is not 64 bytes.
#[wasm_bindgen(js_name = verifyDetached)]
pub fn verify_detached(public_key: &str, message: &[u8], signature: &[u8]) -> JsResult<()> {
    let pk = PublicKey::from_b64(public_key)?;
    let sig = Signature::from_bytes(signature)?;
    sign::verify(&pk, message, &sig)?;
    Ok(())
}

/// Normalizes a public key text (base64 or base64url, padding optional) to padded
/// base64url.
///
/// # Errors
/// `InputError` for a malformed key.
#[wasm_bindgen(js_name = publicKeyToB64url)]
pub fn public_key_to_b64url(public_key: &str) -> JsResult<String> {
    Ok(PublicKey::from_b64(public_key)?.to_b64url().as_str().to_string())
}
