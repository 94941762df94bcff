//! The hash-chained transcript (SPEC §9.3): a streaming verifier and a whole-array check.

use std::sync::{Mutex, PoisonError};

use concordia_core::message::{self, KeyMap, TranscriptVerifier as CoreVerifier};

use crate::errors::ProtocolError;
use crate::util::{parse, parse_keys};

/// A transcript verifier: checks a transcript one message at a time (each `prev_hash`
/// links the previous message's hash, the `session_id` stays the same, the sender's key is
/// in the key map, the signature verifies). A message that fails leaves it unchanged.
#[derive(uniffi::Object)]
pub struct TranscriptVerifier {
    /// Parsed once; every push looks the sender up here.
    keys: concordia_host::KeyMap,
    inner: Mutex<State>,
}

struct State {
    verifier: CoreVerifier,
    message_nodes: concordia_host::Nodes,
}

impl std::fmt::Debug for TranscriptVerifier {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TranscriptVerifier").field("count", &self.count()).finish_non_exhaustive()
    }
}

/// What a verified transcript established.
#[derive(Debug, Clone, PartialEq, Eq, uniffi::Record)]
pub struct TranscriptSummary {
    /// Messages accepted.
    pub count: u64,
    /// The chain head, `sha256:<hex>`: the last message's hash (the genesis hash when
    /// empty); an attestation's `chain_head`.
    pub head: String,
}

#[uniffi::export]
impl TranscriptVerifier {
    /// A verifier for one transcript. `keys_json` maps each `agent_id` to its base64url
    /// public key (the `keys.json` of `concordia demo`).
    #[uniffi::constructor]
    pub fn new(keys_json: String) -> Result<std::sync::Arc<Self>, ProtocolError> {
        let keys = concordia_host::KeyMap::from_json(keys_json.as_bytes())?;
        let state = State { verifier: CoreVerifier::new(), message_nodes: concordia_host::Nodes::new() };
        Ok(std::sync::Arc::new(TranscriptVerifier { keys, inner: Mutex::new(state) }))
    }

    /// Checks the next message (JSON text) and, when it passes, advances; returns the
    /// message's hash (the next message's `prev_hash`).
    pub fn push(&self, message_json: String) -> Result<String, ProtocolError> {
        let mut guard = self.inner.lock().unwrap_or_else(PoisonError::into_inner);
        let State { verifier, message_nodes } = &mut *guard;
        let msg = parse(message_json.as_bytes(), message_nodes)?;
        let h = verifier.push(msg.root(), &self.keys)?;
        Ok(h.to_prefixed().as_str().to_string())
    }

    /// Messages accepted so far.
    pub fn count(&self) -> u64 {
        self.inner.lock().unwrap_or_else(PoisonError::into_inner).verifier.count()
    }

    /// The chain head so far (the genesis hash before the first message).
    pub fn head(&self) -> String {
        self.inner.lock().unwrap_or_else(PoisonError::into_inner).verifier.head().to_prefixed().as_str().to_string()
    }
}

/// Verifies a whole transcript, a JSON array of signed messages, under `keys_json`. A
/// failure's message names the index of the first message that failed.
#[uniffi::export]
pub fn verify_transcript(transcript_json: String, keys_json: String) -> Result<TranscriptSummary, ProtocolError> {
    let (mut tn, mut kn) = (concordia_host::Nodes::new(), concordia_host::Nodes::new());
    let keys = parse_keys(keys_json.as_bytes(), &mut kn)?;
    let transcript = tn.parse_transcript(transcript_json.as_bytes())?;
    let v = message::verify_transcript(transcript.root(), &KeyMap(keys.root())).map_err(|(i, e)| {
        let mapped = ProtocolError::from(e);
        crate::errors::with_context(mapped, &format!("message {i}"))
    })?;
    Ok(TranscriptSummary { count: v.count(), head: v.head().to_prefixed().as_str().to_string() })
}
