//! Verifying a transcript from a reader, one message at a time: the one implementation
//! behind `concordia chain verify` and the C, UniFFI (and Python) transcript-file
//! verifiers.
//!
//! A top-level JSON array is read with an [`ArrayReader`] under
//! [`transcript_options`]`(false)` (the array is a level of its own, so each message gets
//! the whole policy depth, as it does on its own); JSON Lines one envelope per non-blank
//! line. Memory is bounded by the largest message, whatever the transcript's length. An
//! input that is not an array (an object whose `messages` member is the array) is read
//! whole, under [`transcript_options`]`(true)`.
//!
//! **The verdict of the whole document.** After a message fails, the rest of an array is
//! still read and parsed (not verified): a malformed transcript is an input error whatever
//! its messages say, as when it is read whole.
//!
//! An empty transcript verifies with a count of 0 and the genesis head; whether that is
//! acceptable is the caller's rule (`chain verify` rejects it).

use std::fmt;
use std::io::Read;

use concordia_core::digest::Digest;
use concordia_core::json::stream::{Span, Terminator};
use concordia_core::json::{Kind, Value};
use concordia_core::message::{self, KeyResolver, TranscriptVerifier};
use concordia_core::Error;

use crate::read::ReadError;
use crate::stream::{ArrayReader, Start};
use crate::{transcript_options, Nodes};

/// How a transcript is laid out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TranscriptFormat {
    /// A JSON array of messages (read one message at a time), or an object whose
    /// `messages` member is that array (read whole).
    Array,
    /// JSON Lines: one message per line; blank lines are skipped.
    Lines,
}

/// What a verified transcript established.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TranscriptSummary {
    /// Messages accepted.
    pub count: u64,
    /// The chain head: the last message's hash (the genesis hash when empty).
    pub head: Digest,
}

/// Why a transcript did not verify.
#[derive(Debug)]
pub enum TranscriptFailure {
    /// The transcript is well-formed and message `index` (0-based, counting messages, not
    /// lines) failed a protocol check.
    Message {
        /// The failing message's index.
        index: u64,
        /// The core's verdict on it.
        error: Error,
    },
    /// The input could not be read: an I/O error, over the cap ([`Limit::Size`] at the
    /// cap), no memory ([`Limit::Memory`]), or the array's own parse error (absolute byte
    /// offset, the whole document's verdict).
    ///
    /// [`Limit::Size`]: concordia_core::error::Limit::Size
    /// [`Limit::Memory`]: concordia_core::error::Limit::Memory
    Read(ReadError),
    /// A JSON Lines line (`line`, 1-based), or a transcript read whole (`line: None`), did
    /// not parse; offsets are absolute.
    Parse {
        /// The line, for JSON Lines.
        line: Option<u64>,
        /// The parse error.
        error: Error,
    },
    /// The input is JSON but not a transcript: not an array (`object: false`), or an
    /// object without a `messages` array (`object: true`).
    NotTranscript {
        /// Whether the input is an object.
        object: bool,
    },
}

impl TranscriptFailure {
    /// The core error behind the failure (`None` for an I/O error); a
    /// [`TranscriptFailure::NotTranscript`] is [`Error::Schema`], as the core's
    /// `message::verify_transcript` says of a value that is not an array.
    #[must_use]
    pub fn error(&self) -> Option<Error> {
        match self {
            TranscriptFailure::Message { error, .. } | TranscriptFailure::Parse { error, .. } => Some(*error),
            TranscriptFailure::Read(ReadError::Input(e)) => Some(*e),
            TranscriptFailure::Read(ReadError::Io(_)) => None,
            TranscriptFailure::NotTranscript { .. } => Some(Error::Schema("transcript must be an array")),
        }
    }
}

impl fmt::Display for TranscriptFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TranscriptFailure::Message { index, error } => write!(f, "message {index}: {error}"),
            TranscriptFailure::Read(e) => e.fmt(f),
            TranscriptFailure::Parse { line: Some(line), error } => write!(f, "line {line}: {error}"),
            TranscriptFailure::Parse { line: None, error } => error.fmt(f),
            TranscriptFailure::NotTranscript { object: true } => f.write_str("object without a `messages` array"),
            TranscriptFailure::NotTranscript { object: false } => {
                f.write_str("transcript must be an array of messages")
            }
        }
    }
}

impl std::error::Error for TranscriptFailure {}

impl From<ReadError> for TranscriptFailure {
    fn from(e: ReadError) -> Self {
        TranscriptFailure::Read(e)
    }
}

/// Verifies the transcript in `reader` (see the module docs), under `keys`, refusing
/// inputs longer than `cap` bytes.
///
/// # Errors
/// [`TranscriptFailure`]: a failing message (only once the rest of an array is known to be
/// well-formed), a read or parse error, or an input that is not a transcript.
pub fn verify_transcript_reader<R: Read, K: KeyResolver + ?Sized>(
    reader: R,
    keys: &K,
    format: TranscriptFormat,
    cap: Option<u64>,
) -> Result<TranscriptSummary, TranscriptFailure> {
    let verifier = match format {
        TranscriptFormat::Lines => verify_lines(reader, keys, cap)?,
        TranscriptFormat::Array => {
            let mut reader = ArrayReader::new(reader).with_cap(cap).with_options(transcript_options(false));
            if reader.start()? == Start::Value {
                // An object with a `messages` array (or not a transcript at all): read whole.
                let bytes = reader.into_whole()?;
                let mut nodes = Nodes::new();
                let doc =
                    nodes.parse_transcript(&bytes).map_err(|error| TranscriptFailure::Parse { line: None, error })?;
                let messages = messages_of(doc.root())?;
                message::verify_transcript(messages, keys)
                    .map_err(|(index, error)| TranscriptFailure::Message { index: index as u64, error })?
            } else {
                verify_array(&mut reader, keys)?
            }
        }
    };
    Ok(TranscriptSummary { count: verifier.count(), head: verifier.head() })
}

/// The transcript array inside a transcript read whole: the root array, or the `messages`
/// array of the root object.
///
/// # Errors
/// [`TranscriptFailure::NotTranscript`].
pub fn messages_of(root: Value<'_>) -> Result<Value<'_>, TranscriptFailure> {
    match root.kind() {
        Kind::Array => Ok(root),
        Kind::Object => root
            .get("messages")
            .filter(|m| m.kind() == Kind::Array)
            .ok_or(TranscriptFailure::NotTranscript { object: true }),
        _ => Err(TranscriptFailure::NotTranscript { object: false }),
    }
}

/// A top-level array, one message at a time; after a failing message the rest is still
/// parsed.
fn verify_array<R: Read, K: KeyResolver + ?Sized>(
    reader: &mut ArrayReader<R>,
    keys: &K,
) -> Result<TranscriptVerifier, TranscriptFailure> {
    let mut verifier = TranscriptVerifier::new();
    while let Some(element) = reader.next_element()? {
        if let Err(error) = verifier.push(element.doc.root(), keys) {
            let index = element.index;
            reader.check_rest()?;
            return Err(TranscriptFailure::Message { index, error });
        }
    }
    Ok(verifier)
}

/// JSON Lines, one envelope per non-blank line.
fn verify_lines<R: Read, K: KeyResolver + ?Sized>(
    reader: R,
    keys: &K,
    cap: Option<u64>,
) -> Result<TranscriptVerifier, TranscriptFailure> {
    let mut reader = ArrayReader::lines(reader).with_cap(cap);
    let mut nodes = Nodes::new();
    let mut verifier = TranscriptVerifier::new();
    let mut line_no = 0u64;
    while let Some((offset, line)) = reader.next_line()? {
        line_no += 1;
        if line.iter().all(|b| matches!(b, b' ' | b'\t' | b'\r' | b'\n')) {
            continue;
        }
        let span = Span { start: offset, end: offset + line.len() as u64, terminator: Terminator::Newline };
        let doc = nodes
            .parse(line)
            .map_err(|e| TranscriptFailure::Parse { line: Some(line_no), error: span.map_error(e) })?;
        if let Err(error) = verifier.push(doc.root(), keys) {
            return Err(TranscriptFailure::Message { index: verifier.count(), error });
        }
    }
    Ok(verifier)
}
