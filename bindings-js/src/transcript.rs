//! The hash-chained transcript (SPEC §9.3): a streaming verifier and a whole-array check.

use concordia_core::message::{self, TranscriptVerifier as CoreVerifier};
use concordia_core::Error;
use wasm_bindgen::prelude::*;

use crate::errors::{JsError, JsResult};
use crate::util::Obj;

/// Checks a transcript one message at a time: each `prev_hash` links the previous
/// message's hash, the `session_id` stays the same, the sender's key is in the key map,
/// the signature verifies. A message that fails leaves it unchanged.
#[wasm_bindgen]
pub struct TranscriptVerifier {
    keys: concordia_host::KeyMap,
    verifier: CoreVerifier,
    nodes: concordia_host::Nodes,
}

#[wasm_bindgen]
impl TranscriptVerifier {
    /// A verifier for one transcript; `keysJson` maps each `agent_id` to its base64url
    /// public key (the `keys.json` of `concordia demo`).
    ///
    /// # Errors
    /// `InputError` for malformed JSON, `SchemaError` when it is not an object.
    #[wasm_bindgen(constructor)]
    pub fn new(keys_json: &str) -> JsResult<TranscriptVerifier> {
        let keys = concordia_host::KeyMap::from_json(keys_json.as_bytes())?;
        Ok(TranscriptVerifier { keys, verifier: CoreVerifier::new(), nodes: concordia_host::Nodes::new() })
    }

    /// Checks the next message (JSON text) and, when it passes, advances; returns the
    /// message's hash (the next message's `prev_hash`).
    ///
    /// # Errors
    /// The core's verdict on the message (`BindingError`, `SignatureError`, ...).
    pub fn push(&mut self, message_json: &str) -> JsResult<String> {
        let msg = self.nodes.parse(message_json.as_bytes())?;
        Ok(self.verifier.push(msg.root(), &self.keys)?.to_prefixed().as_str().to_string())
    }

    /// Messages accepted so far.
    #[allow(clippy::cast_precision_loss)] // counts stay below 2^53
    pub fn count(&self) -> f64 {
        self.verifier.count() as f64
    }

    /// The chain head so far (the genesis hash before the first message).
    pub fn head(&self) -> String {
        self.verifier.head().to_prefixed().as_str().to_string()
    }
}

/// Verifies a whole transcript, a JSON array of signed messages (or an object whose
/// `messages` member is one), under `keysJson`; returns `{count, head}`. A failing
/// message's error names its index (`message 3: ...`).
///
/// # Errors
/// The first failing message's verdict; `InputError` / `SchemaError` for input that is no
/// transcript or key map.
#[wasm_bindgen(js_name = verifyTranscript)]
pub fn verify_transcript(transcript_json: &str, keys_json: &str) -> JsResult<JsValue> {
    let keys = concordia_host::KeyMap::from_json(keys_json.as_bytes())?;
    let mut tn = concordia_host::Nodes::new();
    let doc = tn.parse_transcript(transcript_json.as_bytes())?;
    let messages = concordia_host::transcript::messages_of(doc.root())
        .map_err(|f| f.error().unwrap_or(Error::Schema("transcript must be an array")))?;
    let v =
        message::verify_transcript(messages, &keys).map_err(|(i, e)| JsError::from(e).at(format!("message {i}")))?;
    #[allow(clippy::cast_precision_loss)]
    Ok(Obj::new().set("count", v.count() as f64).set("head", v.head().to_prefixed().as_str()).build())
}
