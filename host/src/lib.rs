//! The host layer of concordia-rs: what every wrapper (CLI, C ABI, Python, UniFFI, fuzz)
//! needs around the allocation-free core, written once.
//!
//! The core never allocates: it parses into a caller's node slice and writes into a
//! caller's buffer or sink. Hosts own that memory. This crate decides, for all of them:
//!
//! * **the one parsing policy** ([`options`]): the core's defaults, nesting depth
//!   [`json::DEFAULT_MAX_DEPTH`] and integers within ±(2^53 − 1). No wrapper picks its own
//!   depth or number domain, so every surface gives one verdict;
//! * **memory sized to need** ([`Nodes`]): a node buffer of
//!   [`json::nodes_for_text`] nodes (one cheap pass), never the worst case up front; only
//!   malformed text that runs out of nodes is parsed again with the bound that always
//!   reaches its syntax error;
//! * **exhaustion is an error** ([`out_of_memory`]): every allocation whose size an input
//!   decides is a fallible reservation that fails with
//!   [`Error::Limit`]` { kind: `[`Limit::Memory`]` }`, which each wrapper maps to its own
//!   error (CLI exit 2, Python `MemoryError`, C `CONCORDIA_LIMIT_MEMORY`);
//! * **growable output** ([`VecSink`], [`write_vec`], [`canonical`]);
//! * **the one composition of credential verification** ([`vc::verify_credential`]: one
//!   policy, the clock read here by default);
//! * **key maps parsed once** ([`KeyMap`]), **the host session type** ([`HostSession`]) and
//!   **the one composition of session apply** ([`session::apply_message`]: the key source);
//! * **the Consensus compositions** ([`consensus::apply_wire`], [`consensus::room_outcome`],
//!   [`consensus::check_invitation`]);
//! * **input of any size** ([`read_all`]: fallible growth, an optional cap) and **streaming
//!   of top-level arrays and JSON Lines** ([`ArrayReader`]: one element at a time, memory
//!   bounded by the largest element, the whole document's verdict), and **transcripts
//!   verified from a reader** ([`verify_transcript_reader`]: one message at a time).
//!
//! ```
//! use concordia_host::{canonical, Nodes};
//!
//! let mut nodes = Nodes::new();
//! let doc = nodes.parse(br#"{"b": 1, "a": [true, null]}"#).unwrap();
//! assert_eq!(canonical(doc.root()).unwrap(), br#"{"a":[true,null],"b":1}"#);
//! ```

use std::collections::HashMap;
use std::sync::OnceLock;

use concordia_core::error::Limit;
use concordia_core::json::{self, Doc, Node, Options, Value};
use concordia_core::message::KeyResolver;
use concordia_core::session::Session;
use concordia_core::sign::{PreparedKey, PublicKey};
use concordia_core::sink::{CountSink, Sink};
use concordia_core::{jcs, Error, Result};

pub mod aip;
pub mod consensus;
pub mod par;
pub mod read;
pub mod replay;
pub mod session;
pub mod store;
pub mod stream;
pub mod transcript;
pub mod vc;

pub use read::{read_all, ReadError};
pub use replay::{HostReplayWindow, ReplayStore};
pub use store::{write_atomic, StoreLock};
pub use stream::{ArrayReader, Element, Start};
pub use transcript::{verify_transcript_reader, TranscriptFailure, TranscriptFormat, TranscriptSummary};
/// The `zeroize` crate (with `alloc`), for the secrets wrappers hold: `Zeroizing<Vec<u8>>`.
pub use zeroize;

/// The one parsing policy of every surface: the core's default [`Options`].
#[must_use]
pub fn options() -> Options {
    Options::default()
}

/// The policy for a transcript read whole: a JSON array of messages (or an object whose
/// `messages` member is that array: `wrapped`), each message under the one policy. The
/// array (and the object) are levels of their own, so a message nested to the limit is
/// accepted inside a transcript exactly as it is on its own (one message, one verdict).
#[must_use]
pub fn transcript_options(wrapped: bool) -> Options {
    let base = options();
    Options { max_depth: base.max_depth.saturating_add(1 + u32::from(wrapped)), ..base }
}

/// The error for an allocation the host could not make; `offset` is where in the input
/// the need arose (0 when it is the input as a whole).
#[must_use]
pub const fn out_of_memory(offset: usize) -> Error {
    Error::Limit { kind: Limit::Memory, offset }
}

/// A vector of `len` copies of `fill`, or [`out_of_memory`] when it cannot be allocated.
///
/// # Errors
/// [`Error::Limit`] with [`Limit::Memory`].
pub fn try_filled<T: Clone>(len: usize, fill: T) -> Result<Vec<T>> {
    let mut v = Vec::new();
    v.try_reserve_exact(len).map_err(|_| out_of_memory(0))?;
    v.resize(len, fill);
    Ok(v)
}

/// A reusable node buffer, sized to each input's need.
///
/// Two vectors, so that the retry for malformed text (a different borrow) needs no second
/// parse of well-formed text: `tape` holds [`json::nodes_for_text`] nodes, `fallback` is
/// allocated only when malformed text runs out of them.
#[derive(Debug, Default)]
pub struct Nodes {
    tape: Vec<Node>,
    fallback: Vec<Node>,
}

impl Nodes {
    /// An empty buffer (it grows on first use).
    #[must_use]
    pub const fn new() -> Self {
        Nodes { tape: Vec::new(), fallback: Vec::new() }
    }

    /// Parses `input` under the one policy ([`options`]).
    ///
    /// # Errors
    /// The core's parse errors, with their byte offsets; [`Limit::Memory`] when the nodes
    /// cannot be allocated.
    pub fn parse<'a>(&'a mut self, input: &'a [u8]) -> Result<Doc<'a>> {
        self.parse_with(input, &options())
    }

    /// Parses a transcript read whole (a JSON array of messages, or an object with a
    /// `messages` array), under [`transcript_options`].
    ///
    /// # Errors
    /// As [`Nodes::parse`].
    pub fn parse_transcript<'a>(&'a mut self, input: &'a [u8]) -> Result<Doc<'a>> {
        let wrapped = input.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'{');
        self.parse_with(input, &transcript_options(wrapped))
    }

    /// Parses `input` with explicit reader options (only for formats whose own rules
    /// differ, such as the Consensus venue's RFC 8785 reading of big integers).
    ///
    /// Sizing: first [`json::nodes_for_text`] nodes (enough for any well-formed text, often
    /// far fewer than one per byte); when malformed text uses them up before its error
    /// shows, once more with [`json::nodes_for_any`], which always reaches the syntax
    /// error.
    ///
    /// # Errors
    /// As [`Nodes::parse`].
    pub fn parse_with<'a>(&'a mut self, input: &'a [u8], options: &Options) -> Result<Doc<'a>> {
        let first = json::nodes_for_text(input);
        ensure(&mut self.tape, first)?;
        self.fallback = Vec::new();
        match json::parse_with(input, &mut self.tape[..first], options) {
            Err(Error::Limit { kind: Limit::Nodes, .. }) => {
                ensure(&mut self.fallback, json::nodes_for_any(input.len()))?;
                json::parse_with(input, &mut self.fallback, options)
            }
            other => other,
        }
    }

    /// Gives back memory beyond `nodes` nodes kept from a large input.
    pub fn shrink_to(&mut self, nodes: usize) {
        self.fallback = Vec::new();
        if self.tape.len() > nodes {
            self.tape.truncate(nodes);
            self.tape.shrink_to(nodes);
        }
    }

    /// The nodes held now (for tests and memory reports).
    #[must_use]
    pub fn held(&self) -> usize {
        self.tape.len() + self.fallback.len()
    }
}

/// Grows `v` to at least `n` nodes, fallibly.
fn ensure(v: &mut Vec<Node>, n: usize) -> Result<()> {
    if v.len() < n {
        v.try_reserve_exact(n - v.len()).map_err(|_| out_of_memory(0))?;
        v.resize(n, Node::EMPTY);
    }
    Ok(())
}

/// A growable [`Sink`]; growth is a fallible reservation ([`Limit::Memory`] on failure).
#[derive(Debug, Default)]
pub struct VecSink(pub Vec<u8>);

impl Sink for VecSink {
    #[inline]
    fn write(&mut self, bytes: &[u8]) -> Result<()> {
        VecRefSink(&mut self.0).write(bytes)
    }
}

/// A [`Sink`] that appends to a borrowed vector (fallibly, as [`VecSink`]).
#[derive(Debug)]
pub struct VecRefSink<'a>(pub &'a mut Vec<u8>);

impl Sink for VecRefSink<'_> {
    #[inline(always)]
    fn write(&mut self, bytes: &[u8]) -> Result<()> {
        // Small enough to inline into every writer; growth is out of line.
        if self.0.capacity() - self.0.len() < bytes.len() {
            grow(self.0, bytes.len())?;
        }
        self.0.extend_from_slice(bytes);
        Ok(())
    }

    #[inline(always)]
    fn write_quoted(&mut self, text: &[u8]) -> Result<()> {
        let need = text.len().saturating_add(2);
        if self.0.capacity() - self.0.len() < need {
            grow(self.0, need)?;
        }
        self.0.push(b'"');
        self.0.extend_from_slice(text);
        self.0.push(b'"');
        Ok(())
    }
}

/// Room for `additional` more bytes in `v`, or [`out_of_memory`] at its end.
#[cold]
#[inline(never)]
fn grow(v: &mut Vec<u8>, additional: usize) -> Result<()> {
    v.try_reserve(additional).map_err(|_| out_of_memory(v.len()))
}

/// Runs a core writer that reports [`Error::BufferTooSmall`]` { needed }` into a buffer of
/// `initial` bytes, and again with the room it asks for, a bounded number of times (every
/// core writer settles in two passes). The result has exactly the written length.
///
/// # Errors
/// The writer's error, [`Limit::Memory`], or `BufferTooSmall` if the writer keeps asking.
pub fn write_vec(initial: usize, mut write: impl FnMut(&mut [u8]) -> Result<usize>) -> Result<Vec<u8>> {
    let mut buf = try_filled(initial.max(64), 0u8)?;
    for _ in 0..4 {
        match write(&mut buf) {
            Ok(n) => {
                buf.truncate(n);
                return Ok(buf);
            }
            Err(Error::BufferTooSmall { needed }) if needed > buf.len() => {
                buf.try_reserve_exact(needed - buf.len()).map_err(|_| out_of_memory(0))?;
                buf.resize(needed, 0);
            }
            Err(e) => return Err(e),
        }
    }
    Err(Error::BufferTooSmall { needed: buf.len() })
}

/// The decoded value of a JSON string (escapes resolved: `"\u0030"` is `"0"`), `None`
/// for any other value: how a host reads a string it compares or stores, so that no
/// spelling of it reads as absent or as another value.
#[must_use]
pub fn string_value(value: Value<'_>) -> Option<String> {
    value.as_str().map(|s| s.chars().collect())
}

/// The RFC 8785 canonical form of `value`, in a buffer of exactly its size.
///
/// # Errors
/// [`Limit::Memory`] when the output cannot be allocated.
pub fn canonical(value: Value<'_>) -> Result<Vec<u8>> {
    let mut count = CountSink::default();
    jcs::write(value, &mut count)?;
    let mut out = try_filled(count.0, 0u8)?;
    let n = jcs::write_to_slice(value, &mut out)?;
    out.truncate(n);
    Ok(out)
}

/// The stable name of an error's code, for surfaces that report codes by name (the npm
/// package's `error.code`): the C ABI's result code name (`CONCORDIA_JSON_DUPLICATE_KEY`,
/// `CONCORDIA_SIGNATURE`, `CONCORDIA_LIMIT_DEPTH`, ...), one per core variant and kind, so
/// that one failure has one name on every surface (concordia-ffi's tests check that the
/// two tables agree). Variants a newer core adds get the C ABI's catch-alls.
#[must_use]
pub const fn error_code(e: &Error) -> &'static str {
    use concordia_core::error::Syntax;
    match *e {
        Error::Json { kind, .. } => match kind {
            Syntax::UnexpectedEnd => "CONCORDIA_JSON_UNEXPECTED_END",
            Syntax::UnexpectedByte => "CONCORDIA_JSON_UNEXPECTED_BYTE",
            Syntax::TrailingBytes => "CONCORDIA_JSON_TRAILING_BYTES",
            Syntax::InvalidUtf8 => "CONCORDIA_JSON_INVALID_UTF8",
            Syntax::ControlCharacter => "CONCORDIA_JSON_CONTROL_CHARACTER",
            Syntax::InvalidEscape => "CONCORDIA_JSON_INVALID_ESCAPE",
            Syntax::LoneSurrogate => "CONCORDIA_JSON_LONE_SURROGATE",
            Syntax::InvalidNumber => "CONCORDIA_JSON_INVALID_NUMBER",
            Syntax::NumberOutOfRange => "CONCORDIA_JSON_NUMBER_OUT_OF_RANGE",
            Syntax::UnsafeInteger => "CONCORDIA_JSON_UNSAFE_INTEGER",
            Syntax::NegativeZero => "CONCORDIA_JSON_NEGATIVE_ZERO",
            Syntax::DuplicateKey => "CONCORDIA_JSON_DUPLICATE_KEY",
            Syntax::ByteOrderMark => "CONCORDIA_JSON_BYTE_ORDER_MARK",
            _ => "CONCORDIA_JSON_OTHER",
        },
        Error::Limit { kind, .. } => match kind {
            Limit::Depth => "CONCORDIA_LIMIT_DEPTH",
            Limit::Nodes => "CONCORDIA_LIMIT_NODES",
            Limit::Size => "CONCORDIA_LIMIT_SIZE",
            Limit::Capacity => "CONCORDIA_LIMIT_CAPACITY",
            Limit::Steps => "CONCORDIA_LIMIT_STEPS",
            Limit::Memory => "CONCORDIA_LIMIT_MEMORY",
            _ => "CONCORDIA_LIMIT_OTHER",
        },
        Error::BufferTooSmall { .. } => "CONCORDIA_BUFFER_TOO_SMALL",
        Error::Encoding(_) => "CONCORDIA_ENCODING",
        Error::Signature => "CONCORDIA_SIGNATURE",
        Error::UnknownKey => "CONCORDIA_UNKNOWN_KEY",
        Error::Schema(_) => "CONCORDIA_SCHEMA",
        Error::Shape { .. } => "CONCORDIA_SHAPE",
        Error::Digest(_) => "CONCORDIA_DIGEST",
        Error::Binding(_) => "CONCORDIA_BINDING",
        Error::Temporal(_) => "CONCORDIA_TEMPORAL",
        Error::Privacy(_) => "CONCORDIA_PRIVACY",
        Error::Transition(_) => "CONCORDIA_TRANSITION",
        Error::MaxRounds => "CONCORDIA_MAX_ROUNDS",
        Error::InvalidArgument(_) => "CONCORDIA_INVALID_ARGUMENT",
        _ => "CONCORDIA_INTERNAL",
    }
}

/// A message id (AIP's envelope `id`) from 16 random bytes: a lowercase UUID v4 (RFC 9562
/// version and variant bits set), checked by the core's `parse_uuid_v4`. Hosts supply
/// the randomness.
///
/// # Errors
/// None in practice: the core's check of the result.
pub fn uuid_v4(random: [u8; 16]) -> Result<String> {
    let mut b = random;
    b[6] = (b[6] & 0x0f) | 0x40;
    b[8] = (b[8] & 0x3f) | 0x80;
    let mut hex = [0u8; 32];
    concordia_core::encoding::encode_hex(&b, &mut hex)?;
    let h = core::str::from_utf8(&hex).map_err(|_| Error::Encoding("hex"))?;
    let id = format!("{}-{}-{}-{}-{}", &h[..8], &h[8..12], &h[12..16], &h[16..20], &h[20..]);
    concordia_core::aip::envelope::parse_uuid_v4(&id)?;
    Ok(id)
}

/// Parties a host session holds (the C ABI exports the same number).
pub const SESSION_MAX_PARTIES: usize = 8;
/// Numeric terms remembered per party in a host session.
pub const SESSION_MAX_TERMS: usize = 32;

/// The session type every host uses.
pub type HostSession = Session<SESSION_MAX_PARTIES, SESSION_MAX_TERMS>;

/// A key map `{"agent_id": "<base64 public key>", ...}`, parsed once and then looked up by
/// every message (a [`KeyResolver`]).
/// Each key is checked and decoded once, on its first verification, and kept
/// ([`PublicKey::prepare`]).
#[derive(Clone, Debug, Default)]
pub struct KeyMap(HashMap<String, KeyEntry>);

/// A key of a [`KeyMap`] and, once it has verified something, its prepared form.
#[derive(Clone, Debug)]
struct KeyEntry {
    key: PublicKey,
    prepared: OnceLock<Result<PreparedKey>>,
}

impl KeyEntry {
    fn new(key: PublicKey) -> Self {
        KeyEntry { key, prepared: OnceLock::new() }
    }

    fn prepared(&self) -> Result<PreparedKey> {
        *self.prepared.get_or_init(|| self.key.prepare())
    }
}

impl KeyMap {
    /// Reads a key map from JSON text: an object whose members are agent ids and whose
    /// values are public keys in the SDK's base64 forms.
    ///
    /// # Errors
    /// Parse errors, [`Error::Schema`] when it is not an object. Entries whose value is
    /// not a public key are left out, as the core's `message::KeyMap` ignores them.
    pub fn from_json(text: &[u8]) -> Result<Self> {
        let mut nodes = Nodes::new();
        let doc = nodes.parse(text)?;
        Self::from_value(doc.root())
    }

    /// Reads a key map from a parsed object.
    ///
    /// # Errors
    /// As [`KeyMap::from_json`].
    pub fn from_value(root: Value<'_>) -> Result<Self> {
        if root.kind() != json::Kind::Object {
            return Err(Error::Schema("keys must be an object of agent_id to public key"));
        }
        let members = root.members();
        let mut map = HashMap::new();
        map.try_reserve(members.len()).map_err(|_| out_of_memory(0))?;
        for (name, value) in members {
            // As the core's `message::KeyMap`: an entry that does not decode resolves to
            // nothing (the message it would verify fails with `UnknownKey`).
            if let Ok(key) = concordia_core::message::public_key_from_value(value) {
                map.insert(name.chars().collect(), KeyEntry::new(key));
            }
        }
        Ok(KeyMap(map))
    }

    /// Adds or replaces a key.
    pub fn insert(&mut self, agent_id: &str, key: PublicKey) {
        self.0.insert(agent_id.to_owned(), KeyEntry::new(key));
    }

    /// The key of `agent_id`.
    #[must_use]
    pub fn get(&self, agent_id: &str) -> Option<&PublicKey> {
        self.0.get(agent_id).map(|e| &e.key)
    }

    fn entry(&self, agent_id: concordia_core::json::Str<'_>) -> Option<&KeyEntry> {
        let mut buf = [0u8; 512];
        match agent_id.decode_into(&mut buf) {
            Ok(id) => self.0.get(id),
            Err(_) => {
                let id: String = agent_id.chars().collect();
                self.0.get(&id)
            }
        }
    }

    /// The number of keys.
    #[must_use]
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether the map is empty.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl KeyResolver for KeyMap {
    fn resolve(&self, agent_id: concordia_core::json::Str<'_>) -> Option<PublicKey> {
        self.entry(agent_id).map(|e| e.key)
    }

    fn resolve_prepared(&self, agent_id: concordia_core::json::Str<'_>) -> Option<Result<PreparedKey>> {
        self.entry(agent_id).map(KeyEntry::prepared)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests;
