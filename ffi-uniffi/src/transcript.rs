//! The hash-chained transcript (SPEC §9.3): a streaming verifier, a whole-array check and a
//! transcript file verified one message at a time.

use std::sync::{Mutex, PoisonError};

use concordia_core::message::{self, KeyMap, TranscriptVerifier as CoreVerifier};
use concordia_host::{verify_transcript_reader, ReadError, TranscriptFailure, TranscriptFormat};

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

/// Verifies the transcript in the file at `path` one message at a time, so memory is
/// bounded by the largest message, whatever the transcript's length: a JSON array of
/// signed messages (or an object whose `messages` member is one, read whole), or with
/// `lines` JSON Lines, one message per line (blank lines skipped). An empty transcript
/// verifies with a count of 0 and the genesis head.
///
/// Errors as `verify_transcript`: a failing message's error names its index
/// (`message 3: ...`), and a file malformed after it is still `Input` (the whole file's
/// verdict); malformed JSON is `Input` with the byte offset in the file (and `line N:` for
/// JSON Lines), a file that is not a transcript `Schema`, a file that cannot be opened or
/// read `Input`, memory exhaustion `Limit`.
#[uniffi::export]
pub fn verify_transcript_file(
    path: String,
    keys_json: String,
    lines: bool,
) -> Result<TranscriptSummary, ProtocolError> {
    let keys = concordia_host::KeyMap::from_json(keys_json.as_bytes())?;
    let io = |e: std::io::Error| ProtocolError::Input(format!("{path}: {e}"));
    let file = std::fs::File::open(&path).map_err(io)?;
    let format = if lines { TranscriptFormat::Lines } else { TranscriptFormat::Array };
    match verify_transcript_reader(file, &keys, format, None) {
        Ok(s) => Ok(TranscriptSummary { count: s.count, head: s.head.to_prefixed().as_str().to_string() }),
        Err(TranscriptFailure::Message { index, error }) => {
            Err(crate::errors::with_context(ProtocolError::from(error), &format!("message {index}")))
        }
        Err(TranscriptFailure::Parse { line: Some(line), error }) => {
            Err(crate::errors::with_context(ProtocolError::from(error), &format!("line {line}")))
        }
        Err(TranscriptFailure::Read(ReadError::Io(e))) => Err(io(e)),
        Err(failure) => {
            Err(failure.error().map_or_else(|| ProtocolError::Input(failure.to_string()), ProtocolError::from))
        }
    }
}
