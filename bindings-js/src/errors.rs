//! The one error model (docs/adr/0005) as JavaScript errors.
//!
//! Every failure becomes an instance of a subclass of `ConcordiaError` (itself an
//! `Error`), made by the package's `errors.js`: the subclass is chosen by the core's reason
//! class (`InputError`, `LimitError`, `SchemaError`, `SignatureError`, `DigestError`,
//! `BindingError`, `TemporalError`, `PrivacyError`, `TransitionError`; `RandomnessError`
//! when WebCrypto fails, `ReplayError` for an envelope a replay window has seen). Each carries `code` (the C ABI's result code name,
//! [`concordia_host::error_code`]), `class` (`Error::class()`), `sdkException` (the
//! reference SDK's class, `Error::sdk_exception()`) and, for malformed JSON and limits,
//! `offset` (the byte offset in the UTF-8 input). The message is the core's `Display`.

use concordia_core::Error;
use wasm_bindgen::prelude::*;

#[wasm_bindgen(raw_module = "../errors.js")]
extern "C" {
    /// `makeError(class, code, message, offset, sdkException)` of the package's errors.js.
    #[wasm_bindgen(js_name = makeError)]
    fn make_error(
        class: &str,
        code: &str,
        message: &str,
        offset: Option<f64>,
        sdk_exception: Option<String>,
    ) -> JsValue;
}

/// An error on its way to JavaScript: a core error (with optional context before its
/// message), or a failure of the host's random generator.
#[derive(Debug)]
pub enum JsError {
    /// A core error; `context` (e.g. `message 3`) prefixes the message.
    Core {
        /// The core's error.
        error: Error,
        /// Where it happened, if the call has parts.
        context: Option<String>,
    },
    /// WebCrypto's `getRandomValues` failed.
    Randomness(String),
    /// `aipOpen` with a replay window: an envelope whose id the window has already seen.
    /// Class `replay`, code `CONCORDIA_AIP_REPLAY` (C `concordia_aip_open` with a window,
    /// Go `AIPReplay`, Python `ReplayError`, UniFFI `AipError.Replay`, the CLI's "a replay",
    /// exit 1).
    Replay(String),
}

/// The result of an export.
pub type JsResult<T> = Result<T, JsError>;

impl From<Error> for JsError {
    fn from(error: Error) -> Self {
        JsError::Core { error, context: None }
    }
}

impl JsError {
    /// Prefixes the message with where it happened (`message 3: ...`).
    #[must_use]
    pub fn at(self, context: String) -> Self {
        match self {
            JsError::Core { error, .. } => JsError::Core { error, context: Some(context) },
            other => other,
        }
    }
}

impl From<JsError> for JsValue {
    fn from(e: JsError) -> Self {
        match e {
            JsError::Core { error, context } => {
                let message = match context {
                    Some(at) => format!("{at}: {error}"),
                    None => error.to_string(),
                };
                #[allow(clippy::cast_precision_loss)] // offsets stay far below 2^53
                let offset = error.offset().map(|o| o as f64);
                make_error(
                    error.class().as_str(),
                    concordia_host::error_code(&error),
                    &message,
                    offset,
                    Some(error.sdk_exception().name().to_string()),
                )
            }
            JsError::Replay(m) => make_error("replay", concordia_host::aip::REPLAY_CODE, &m, None, None),
            JsError::Randomness(m) => make_error(
                "internal",
                "CONCORDIA_RANDOMNESS_UNAVAILABLE",
                &format!("randomness unavailable: {m}"),
                None,
                None,
            ),
        }
    }
}

/// 32 bytes from WebCrypto, erased when dropped.
pub(crate) fn random32() -> JsResult<concordia_host::zeroize::Zeroizing<[u8; 32]>> {
    let mut b = concordia_host::zeroize::Zeroizing::new([0u8; 32]);
    getrandom::fill(&mut *b).map_err(|e| JsError::Randomness(e.to_string()))?;
    Ok(b)
}
