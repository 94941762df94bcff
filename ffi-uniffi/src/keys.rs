//! Ed25519 key pairs, signing, and signature verification (SPEC §9.2 rule 1).

use concordia_core::digest::Digest;
use concordia_core::message::{self, Envelope as CoreEnvelope, Party as CoreParty};
use concordia_core::sign::{self, KeyPair as CoreKeyPair, PublicKey, Signature};
use concordia_core::Error;

use crate::errors::SignatureError;
use crate::util::{parse, utf8, write_vec};

/// An Ed25519 key pair. Immutable, so one object may be shared across threads.
#[derive(uniffi::Object)]
pub struct KeyPair(pub(crate) CoreKeyPair);

impl std::fmt::Debug for KeyPair {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The core's Debug shows the public key only.
        self.0.fmt(f)
    }
}

#[uniffi::export]
impl KeyPair {
    /// A new key pair from 32 bytes of operating system randomness. Keep `seed()` to
    /// restore it.
    #[uniffi::constructor]
    pub fn generate() -> Result<std::sync::Arc<Self>, SignatureError> {
        let mut seed = concordia_host::zeroize::Zeroizing::new([0u8; 32]);
        getrandom::fill(&mut *seed).map_err(|e| SignatureError::Randomness(format!("randomness unavailable: {e}")))?;
        Ok(std::sync::Arc::new(KeyPair(CoreKeyPair::from_seed(&seed))))
    }

    /// The key pair of a 32-byte seed (RFC 8032; the reference SDK's raw private key).
    #[uniffi::constructor]
    pub fn from_seed(seed: Vec<u8>) -> Result<std::sync::Arc<Self>, SignatureError> {
        let seed = concordia_host::zeroize::Zeroizing::new(seed);
        let seed: &[u8; 32] = seed
            .as_slice()
            .try_into()
            .map_err(|_| SignatureError::from(Error::InvalidArgument("seed must be 32 bytes")))?;
        Ok(std::sync::Arc::new(KeyPair(CoreKeyPair::from_seed(seed))))
    }

    /// The 32-byte public key.
    pub fn public_key(&self) -> Vec<u8> {
        self.0.public_key().as_bytes().to_vec()
    }

    /// The public key as padded base64url (44 characters), the form of `keys.json`.
    pub fn public_key_b64url(&self) -> String {
        self.0.public_key().to_b64url().as_str().to_string()
    }

    /// The 32-byte seed (the private key), to store a generated key. Keep it secret.
    pub fn seed(&self) -> Vec<u8> {
        self.0.seed().to_vec()
    }

    /// The 64-byte Ed25519 signature of `message`.
    pub fn sign(&self, message: Vec<u8>) -> Vec<u8> {
        self.0.sign(&message).as_bytes().to_vec()
    }

    /// Signs a JSON object under the top-level signature rule (the preimage is the
    /// canonical object without `signature`) and returns it canonical, with `signature`
    /// (padded base64url) replaced or added.
    pub fn sign_object(&self, json: String) -> Result<String, SignatureError> {
        let mut nodes = concordia_host::Nodes::new();
        let doc = parse(json.as_bytes(), &mut nodes)?;
        Ok(utf8(write_vec(json.len() + 128, |buf| message::sign_object(doc.root(), &self.0, buf))?))
    }

    /// Builds a message envelope (SPEC §4.1), signs it and returns the signed message as
    /// canonical JSON. Optional members are omitted as the reference SDK omits them.
    pub fn sign_envelope(&self, envelope: Envelope) -> Result<String, SignatureError> {
        let mut nodes = concordia_host::Nodes::new();
        let body = parse(envelope.body_json.as_bytes(), &mut nodes)?;
        let to: Vec<CoreParty<'_>> = envelope.to.iter().map(party).collect();
        let mut e = CoreEnvelope::new(
            &envelope.message_type,
            &envelope.id,
            &envelope.session_id,
            &envelope.timestamp,
            party(&envelope.from),
            body.root(),
        );
        if let Some(v) = &envelope.concordia {
            e.concordia = v;
        }
        e.to = &to;
        if let Some(h) = &envelope.prev_hash {
            e.prev_hash = Digest::parse_prefixed(h)?;
        }
        e.in_reply_to = envelope.in_reply_to.as_deref();
        e.reasoning = envelope.reasoning.as_deref();
        e.ttl = envelope.ttl;
        let size = envelope.body_json.len() + envelope.reasoning.as_ref().map_or(0, String::len) + 1024;
        Ok(utf8(write_vec(size, |buf| e.write_signed(&self.0, buf))?))
    }
}

fn party(p: &Party) -> CoreParty<'_> {
    CoreParty { agent_id: &p.agent_id, principal_id: p.principal_id.as_deref() }
}

/// An agent as it appears in an envelope's `from` and `to`.
#[derive(Debug, Clone, PartialEq, Eq, uniffi::Record)]
pub struct Party {
    /// `agent_id`.
    pub agent_id: String,
    /// `principal_id`, omitted when `None`.
    #[uniffi(default = None)]
    pub principal_id: Option<String>,
}

/// The fields of a message envelope (SPEC §4.1) for `KeyPair.sign_envelope`.
#[derive(Debug, Clone, PartialEq, Eq, uniffi::Record)]
pub struct Envelope {
    /// `type`, e.g. `negotiate.offer`.
    pub message_type: String,
    /// `id`: a unique message identifier.
    pub id: String,
    /// `session_id`.
    pub session_id: String,
    /// `timestamp`, ISO 8601 UTC (the library reads no clock).
    pub timestamp: String,
    /// `from`.
    pub from: Party,
    /// `body` as JSON text (an object in practice); written canonical.
    pub body_json: String,
    /// `to`; omitted when empty.
    #[uniffi(default = [])]
    pub to: Vec<Party>,
    /// `prev_hash` as `sha256:<hex>`; `None`: the genesis hash (first message). A
    /// session's `tip()` is the value for its next message.
    #[uniffi(default = None)]
    pub prev_hash: Option<String>,
    /// `in_reply_to`; omitted when `None` or empty.
    #[uniffi(default = None)]
    pub in_reply_to: Option<String>,
    /// `reasoning`; omitted when `None` or empty.
    #[uniffi(default = None)]
    pub reasoning: Option<String>,
    /// `ttl` in seconds; omitted when `None`.
    #[uniffi(default = None)]
    pub ttl: Option<u64>,
    /// `concordia` protocol version; `None`: the core's default (`0.1.0`).
    #[uniffi(default = None)]
    pub concordia: Option<String>,
}

/// Verifies the top-level `signature` of the JSON object `json` under `public_key`
/// (base64 or base64url text, padding optional; SPEC §9.2 rule 1). Returns normally when
/// it verifies.
#[uniffi::export]
pub fn verify_signature(json: String, public_key: String) -> Result<(), SignatureError> {
    let pk = PublicKey::from_b64(&public_key)?;
    let mut nodes = concordia_host::Nodes::new();
    let doc = parse(json.as_bytes(), &mut nodes)?;
    message::verify_signed_object(doc.root(), &pk)?;
    Ok(())
}

/// Verifies a detached 64-byte Ed25519 `signature` of `message` (as `KeyPair.sign`
/// makes) under `public_key` (base64 or base64url text).
#[uniffi::export]
pub fn verify_detached(public_key: String, message: Vec<u8>, signature: Vec<u8>) -> Result<(), SignatureError> {
    let pk = PublicKey::from_b64(&public_key)?;
    let sig = Signature::from_bytes(&signature)?;
    sign::verify(&pk, &message, &sig)?;
    Ok(())
}

/// Normalizes a public key text (base64 or base64url, padding optional) to padded
/// base64url.
#[uniffi::export]
pub fn public_key_to_b64url(public_key: String) -> Result<String, SignatureError> {
    Ok(PublicKey::from_b64(&public_key)?.to_b64url().as_str().to_string())
}
