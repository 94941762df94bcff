//! Result codes: numbered blocks, never renumbered, and their mapping from `core::Error`.

use concordia_core::error::{Limit, Syntax};
use concordia_core::Error;

/// The result of every fallible export.
///
/// Codes come in blocks that are never renumbered; a retired code is never reused:
/// `0` success; `1xx` usage (NULL, buffer, argument, object state); `2xx` malformed JSON
/// (the byte offset is available from concordia_last_error_offset); `3xx` signatures and
/// keys; `4xx` the protocol's reason classes; `5xx` limits; `9xx` panic and internal errors.
/// A caller that meets a code it does not know should treat it by its block.
#[repr(u32)]
#[allow(non_camel_case_types)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum concordia_result {
    /// Success.
    CONCORDIA_OK = 0,
    /// A required pointer argument was NULL (or a NULL buffer with a non-zero length).
    CONCORDIA_NULL_ARGUMENT = 100,
    /// The output buffer is too small; the needed length was written to the call's length
    /// out-parameter: allocate that many bytes and call again.
    CONCORDIA_BUFFER_TOO_SMALL = 101,
    /// An argument is out of its documented domain: text that is not UTF-8, a key or seed
    /// of the wrong length, an unknown enum value, an over-long identifier, or a parameter
    /// the core refused (the detail is in concordia_last_error_message).
    CONCORDIA_INVALID_ARGUMENT = 102,
    /// The profile name is not one of the 22 conformance profiles.
    CONCORDIA_UNKNOWN_PROFILE = 103,
    /// The object cannot do this in its current state (e.g. a push after finish).
    CONCORDIA_INVALID_STATE = 104,
    /// There is no such detail to report (concordia_last_error_offset and
    /// concordia_last_error_message when the last call did not fail with one).
    CONCORDIA_NOT_AVAILABLE = 105,
    /// A file could not be opened or read (concordia_verify_transcript_file); the
    /// operating system's reason is not kept.
    CONCORDIA_IO = 106,
    /// JSON: the input ended in the middle of a value (or was empty).
    CONCORDIA_JSON_UNEXPECTED_END = 200,
    /// JSON: a byte that cannot start or continue a value here.
    CONCORDIA_JSON_UNEXPECTED_BYTE = 201,
    /// JSON: bytes other than whitespace after the value.
    CONCORDIA_JSON_TRAILING_BYTES = 202,
    /// JSON: the input is not valid UTF-8.
    CONCORDIA_JSON_INVALID_UTF8 = 203,
    /// JSON: a raw control character inside a string.
    CONCORDIA_JSON_CONTROL_CHARACTER = 204,
    /// JSON: an escape RFC 8259 does not define, or a malformed `\u` escape.
    CONCORDIA_JSON_INVALID_ESCAPE = 205,
    /// JSON: a `\u` escape of a lone UTF-16 surrogate.
    CONCORDIA_JSON_LONE_SURROGATE = 206,
    /// JSON: a number outside the RFC 8259 grammar (`NaN`, `01`, `.5`, ...).
    CONCORDIA_JSON_INVALID_NUMBER = 207,
    /// JSON: a number beyond the range of a double.
    CONCORDIA_JSON_NUMBER_OUT_OF_RANGE = 208,
    /// JSON: an integer literal beyond ±(2^53 - 1) that a double cannot hold exactly.
    CONCORDIA_JSON_UNSAFE_INTEGER = 209,
    /// JSON: a number that evaluates to negative zero.
    CONCORDIA_JSON_NEGATIVE_ZERO = 210,
    /// JSON: a member name repeated in one object.
    CONCORDIA_JSON_DUPLICATE_KEY = 211,
    /// JSON: a UTF-8 byte order mark.
    CONCORDIA_JSON_BYTE_ORDER_MARK = 212,
    /// JSON: another syntax error (a kind added to the core after this code list).
    CONCORDIA_JSON_OTHER = 299,
    /// A signature did not verify, or a public key is not a valid curve point.
    CONCORDIA_SIGNATURE = 300,
    /// No public key is known for the signer.
    CONCORDIA_UNKNOWN_KEY = 301,
    /// A base64, base64url, base58 or hex text did not decode, or to the wrong length.
    CONCORDIA_ENCODING = 302,
    /// Reason class `schema`: a required member is missing or has the wrong type.
    CONCORDIA_SCHEMA = 400,
    /// Reason class `digest`: a recomputed digest differs from the recorded one.
    CONCORDIA_DIGEST = 401,
    /// Reason class `binding`: records are not bound as claimed (chain link, session id).
    CONCORDIA_BINDING = 402,
    /// Reason class `temporal`: a time or validity window check failed.
    CONCORDIA_TEMPORAL = 403,
    /// Reason class `privacy`: the record discloses raw deal terms.
    CONCORDIA_PRIVACY = 404,
    /// Reason class `transition`: the state machine does not allow this transition.
    CONCORDIA_TRANSITION = 405,
    /// Reason class `transition`: an offer or counter beyond the session's max_rounds.
    CONCORDIA_MAX_ROUNDS = 406,
    /// Reason class `schema`: well-formed JSON with a value that does not have the shape a
    /// typed reader (the core's serde reading) asks for: a wrong type or length, a missing
    /// or unknown field; the byte offset of the value at fault is available from
    /// concordia_last_error_offset.
    CONCORDIA_SHAPE = 407,
    /// Reason class `replay`: concordia_aip_open with a replay window met an envelope whose
    /// id the window has already seen (a duplicate delivery or a replay: acknowledge it, do
    /// not process it again). Not a core error: the host's verdict `Duplicate`.
    CONCORDIA_AIP_REPLAY = 408,
    /// Limit: containers nested deeper than the maximum depth (`DEFAULT_MAX_DEPTH`).
    CONCORDIA_LIMIT_DEPTH = 500,
    /// Limit: more values than the node buffer holds.
    CONCORDIA_LIMIT_NODES = 501,
    /// Limit: an input too large for the core (4 GiB) or for a fixed-size field.
    CONCORDIA_LIMIT_SIZE = 502,
    /// Limit: a fixed-capacity table (e.g. the 8 parties of a session) is full.
    CONCORDIA_LIMIT_CAPACITY = 503,
    /// Limit: a bounded computation (JSON Schema evaluation) used up its step budget.
    CONCORDIA_LIMIT_STEPS = 504,
    /// Limit: the library could not allocate the memory an input needs (the process
    /// lives; a smaller input, or more memory, may succeed).
    CONCORDIA_LIMIT_MEMORY = 505,
    /// Limit: another bound (a kind added to the core after this code list).
    CONCORDIA_LIMIT_OTHER = 599,
    /// A Rust panic was caught at the boundary. The library is still usable, but an
    /// object the failed call was given must only be freed.
    CONCORDIA_PANIC = 900,
    /// An error the core added after this code list; concordia_last_error_message has it.
    CONCORDIA_INTERNAL = 901,
    /// The operating system's random number generator failed.
    CONCORDIA_RANDOMNESS_UNAVAILABLE = 902,
}

impl concordia_result {
    /// Every code, in numeric order.
    pub const ALL: [concordia_result; 44] = [
        concordia_result::CONCORDIA_OK,
        concordia_result::CONCORDIA_NULL_ARGUMENT,
        concordia_result::CONCORDIA_BUFFER_TOO_SMALL,
        concordia_result::CONCORDIA_INVALID_ARGUMENT,
        concordia_result::CONCORDIA_UNKNOWN_PROFILE,
        concordia_result::CONCORDIA_INVALID_STATE,
        concordia_result::CONCORDIA_NOT_AVAILABLE,
        concordia_result::CONCORDIA_IO,
        concordia_result::CONCORDIA_JSON_UNEXPECTED_END,
        concordia_result::CONCORDIA_JSON_UNEXPECTED_BYTE,
        concordia_result::CONCORDIA_JSON_TRAILING_BYTES,
        concordia_result::CONCORDIA_JSON_INVALID_UTF8,
        concordia_result::CONCORDIA_JSON_CONTROL_CHARACTER,
        concordia_result::CONCORDIA_JSON_INVALID_ESCAPE,
        concordia_result::CONCORDIA_JSON_LONE_SURROGATE,
        concordia_result::CONCORDIA_JSON_INVALID_NUMBER,
        concordia_result::CONCORDIA_JSON_NUMBER_OUT_OF_RANGE,
        concordia_result::CONCORDIA_JSON_UNSAFE_INTEGER,
        concordia_result::CONCORDIA_JSON_NEGATIVE_ZERO,
        concordia_result::CONCORDIA_JSON_DUPLICATE_KEY,
        concordia_result::CONCORDIA_JSON_BYTE_ORDER_MARK,
        concordia_result::CONCORDIA_JSON_OTHER,
        concordia_result::CONCORDIA_SIGNATURE,
        concordia_result::CONCORDIA_UNKNOWN_KEY,
        concordia_result::CONCORDIA_ENCODING,
        concordia_result::CONCORDIA_SCHEMA,
        concordia_result::CONCORDIA_DIGEST,
        concordia_result::CONCORDIA_BINDING,
        concordia_result::CONCORDIA_TEMPORAL,
        concordia_result::CONCORDIA_PRIVACY,
        concordia_result::CONCORDIA_TRANSITION,
        concordia_result::CONCORDIA_MAX_ROUNDS,
        concordia_result::CONCORDIA_SHAPE,
        concordia_result::CONCORDIA_AIP_REPLAY,
        concordia_result::CONCORDIA_LIMIT_DEPTH,
        concordia_result::CONCORDIA_LIMIT_NODES,
        concordia_result::CONCORDIA_LIMIT_SIZE,
        concordia_result::CONCORDIA_LIMIT_CAPACITY,
        concordia_result::CONCORDIA_LIMIT_STEPS,
        concordia_result::CONCORDIA_LIMIT_MEMORY,
        concordia_result::CONCORDIA_LIMIT_OTHER,
        concordia_result::CONCORDIA_PANIC,
        concordia_result::CONCORDIA_INTERNAL,
        concordia_result::CONCORDIA_RANDOMNESS_UNAVAILABLE,
    ];

    /// The code with numeric value `v`, if any.
    #[must_use]
    pub fn from_u32(v: u32) -> Option<concordia_result> {
        Self::ALL.into_iter().find(|c| *c as u32 == v)
    }

    /// A fixed, one-line description of the code.
    #[must_use]
    pub const fn message(self) -> &'static str {
        match self {
            concordia_result::CONCORDIA_OK => "ok",
            concordia_result::CONCORDIA_NULL_ARGUMENT => "a required pointer argument is NULL",
            concordia_result::CONCORDIA_BUFFER_TOO_SMALL => {
                "output buffer too small: the needed length was written, call again"
            }
            concordia_result::CONCORDIA_INVALID_ARGUMENT => "invalid argument",
            concordia_result::CONCORDIA_UNKNOWN_PROFILE => "unknown verification profile",
            concordia_result::CONCORDIA_INVALID_STATE => "the object does not allow this in its current state",
            concordia_result::CONCORDIA_NOT_AVAILABLE => "no such detail is available",
            concordia_result::CONCORDIA_IO => "a file could not be opened or read",
            concordia_result::CONCORDIA_JSON_UNEXPECTED_END => "malformed JSON: unexpected end of input",
            concordia_result::CONCORDIA_JSON_UNEXPECTED_BYTE => "malformed JSON: unexpected byte",
            concordia_result::CONCORDIA_JSON_TRAILING_BYTES => "malformed JSON: trailing bytes after the value",
            concordia_result::CONCORDIA_JSON_INVALID_UTF8 => "malformed JSON: invalid UTF-8",
            concordia_result::CONCORDIA_JSON_CONTROL_CHARACTER => "malformed JSON: raw control character in string",
            concordia_result::CONCORDIA_JSON_INVALID_ESCAPE => "malformed JSON: invalid escape sequence",
            concordia_result::CONCORDIA_JSON_LONE_SURROGATE => "malformed JSON: lone UTF-16 surrogate escape",
            concordia_result::CONCORDIA_JSON_INVALID_NUMBER => "malformed JSON: invalid number",
            concordia_result::CONCORDIA_JSON_NUMBER_OUT_OF_RANGE => {
                "malformed JSON: number out of the range of a double"
            }
            concordia_result::CONCORDIA_JSON_UNSAFE_INTEGER => "malformed JSON: integer beyond 2^53 - 1",
            concordia_result::CONCORDIA_JSON_NEGATIVE_ZERO => "malformed JSON: negative zero",
            concordia_result::CONCORDIA_JSON_DUPLICATE_KEY => "malformed JSON: duplicate member name",
            concordia_result::CONCORDIA_JSON_BYTE_ORDER_MARK => "malformed JSON: byte order mark",
            concordia_result::CONCORDIA_JSON_OTHER => "malformed JSON",
            concordia_result::CONCORDIA_SIGNATURE => "signature verification failed",
            concordia_result::CONCORDIA_UNKNOWN_KEY => "no public key is known for the signer",
            concordia_result::CONCORDIA_ENCODING => "invalid base64, base64url, base58 or hex encoding",
            concordia_result::CONCORDIA_SCHEMA => "schema check failed",
            concordia_result::CONCORDIA_DIGEST => "digest mismatch",
            concordia_result::CONCORDIA_BINDING => "binding check failed",
            concordia_result::CONCORDIA_TEMPORAL => "temporal check failed",
            concordia_result::CONCORDIA_PRIVACY => "privacy check failed: raw deal terms disclosed",
            concordia_result::CONCORDIA_TRANSITION => "invalid state transition",
            concordia_result::CONCORDIA_MAX_ROUNDS => "max_rounds reached: no further offers or counters",
            concordia_result::CONCORDIA_SHAPE => "schema check failed: a value does not have the expected shape",
            concordia_result::CONCORDIA_AIP_REPLAY => "a replay: the replay window has already seen this envelope id",
            concordia_result::CONCORDIA_LIMIT_DEPTH => "nesting depth limit exceeded",
            concordia_result::CONCORDIA_LIMIT_NODES => "node buffer is full",
            concordia_result::CONCORDIA_LIMIT_SIZE => "input too large",
            concordia_result::CONCORDIA_LIMIT_CAPACITY => "fixed capacity exceeded",
            concordia_result::CONCORDIA_LIMIT_STEPS => "step budget exhausted",
            concordia_result::CONCORDIA_LIMIT_MEMORY => "not enough memory",
            concordia_result::CONCORDIA_LIMIT_OTHER => "limit exceeded",
            concordia_result::CONCORDIA_PANIC => "internal panic caught at the C boundary",
            concordia_result::CONCORDIA_INTERNAL => "internal error",
            concordia_result::CONCORDIA_RANDOMNESS_UNAVAILABLE => "operating system randomness unavailable",
        }
    }

    /// A core error that this code stands for, when the code comes from the core; its
    /// `class()` is the code's reason class.
    #[must_use]
    pub fn representative(self) -> Option<Error> {
        let json = |kind| Some(Error::Json { kind, offset: 0 });
        let limit = |kind| Some(Error::Limit { kind, offset: 0 });
        match self {
            concordia_result::CONCORDIA_BUFFER_TOO_SMALL => Some(Error::BufferTooSmall { needed: 0 }),
            concordia_result::CONCORDIA_INVALID_ARGUMENT => Some(Error::InvalidArgument("")),
            concordia_result::CONCORDIA_JSON_UNEXPECTED_END => json(Syntax::UnexpectedEnd),
            concordia_result::CONCORDIA_JSON_UNEXPECTED_BYTE => json(Syntax::UnexpectedByte),
            concordia_result::CONCORDIA_JSON_TRAILING_BYTES => json(Syntax::TrailingBytes),
            concordia_result::CONCORDIA_JSON_INVALID_UTF8 => json(Syntax::InvalidUtf8),
            concordia_result::CONCORDIA_JSON_CONTROL_CHARACTER => json(Syntax::ControlCharacter),
            concordia_result::CONCORDIA_JSON_INVALID_ESCAPE => json(Syntax::InvalidEscape),
            concordia_result::CONCORDIA_JSON_LONE_SURROGATE => json(Syntax::LoneSurrogate),
            concordia_result::CONCORDIA_JSON_INVALID_NUMBER => json(Syntax::InvalidNumber),
            concordia_result::CONCORDIA_JSON_NUMBER_OUT_OF_RANGE => json(Syntax::NumberOutOfRange),
            concordia_result::CONCORDIA_JSON_UNSAFE_INTEGER => json(Syntax::UnsafeInteger),
            concordia_result::CONCORDIA_JSON_NEGATIVE_ZERO => json(Syntax::NegativeZero),
            concordia_result::CONCORDIA_JSON_DUPLICATE_KEY => json(Syntax::DuplicateKey),
            concordia_result::CONCORDIA_JSON_BYTE_ORDER_MARK => json(Syntax::ByteOrderMark),
            concordia_result::CONCORDIA_SIGNATURE => Some(Error::Signature),
            concordia_result::CONCORDIA_UNKNOWN_KEY => Some(Error::UnknownKey),
            concordia_result::CONCORDIA_ENCODING => Some(Error::Encoding("")),
            concordia_result::CONCORDIA_SCHEMA => Some(Error::Schema("")),
            concordia_result::CONCORDIA_SHAPE => Some(Error::Shape { what: "", offset: 0 }),
            concordia_result::CONCORDIA_DIGEST => Some(Error::Digest("")),
            concordia_result::CONCORDIA_BINDING => Some(Error::Binding("")),
            concordia_result::CONCORDIA_TEMPORAL => Some(Error::Temporal("")),
            concordia_result::CONCORDIA_PRIVACY => Some(Error::Privacy("")),
            concordia_result::CONCORDIA_TRANSITION => Some(Error::Transition("")),
            concordia_result::CONCORDIA_MAX_ROUNDS => Some(Error::MaxRounds),
            concordia_result::CONCORDIA_LIMIT_DEPTH => limit(Limit::Depth),
            concordia_result::CONCORDIA_LIMIT_NODES => limit(Limit::Nodes),
            concordia_result::CONCORDIA_LIMIT_SIZE => limit(Limit::Size),
            concordia_result::CONCORDIA_LIMIT_CAPACITY => limit(Limit::Capacity),
            concordia_result::CONCORDIA_LIMIT_STEPS => limit(Limit::Steps),
            concordia_result::CONCORDIA_LIMIT_MEMORY => limit(Limit::Memory),
            _ => None,
        }
    }

    /// The reason class of the code: the core's `Error::class()` name (`input`, `limit`,
    /// `schema`, `signature`, `digest`, `binding`, `temporal`, `privacy`, `transition`) for
    /// codes from the core; `ok`, `input` (usage codes, like the core's invalid argument),
    /// `replay` (CONCORDIA_AIP_REPLAY), `limit` or `internal` for the wrapper's own.
    #[must_use]
    pub fn class(self) -> &'static str {
        if let Some(e) = self.representative() {
            return e.class().as_str();
        }
        match self as u32 {
            0 => "ok",
            408 => "replay",
            100..=199 => "input",
            200..=299 => "input",
            500..=599 => "limit",
            _ => "internal",
        }
    }
}

/// The code of a core error. Every variant the core has today maps to its own code (a test
/// checks each against [`concordia_result::representative`]); variants added later fall
/// into the `_OTHER` code of their block or CONCORDIA_INTERNAL.
#[must_use]
pub fn code_of(e: &Error) -> concordia_result {
    match *e {
        Error::Json { kind, .. } => match kind {
            Syntax::UnexpectedEnd => concordia_result::CONCORDIA_JSON_UNEXPECTED_END,
            Syntax::UnexpectedByte => concordia_result::CONCORDIA_JSON_UNEXPECTED_BYTE,
            Syntax::TrailingBytes => concordia_result::CONCORDIA_JSON_TRAILING_BYTES,
            Syntax::InvalidUtf8 => concordia_result::CONCORDIA_JSON_INVALID_UTF8,
            Syntax::ControlCharacter => concordia_result::CONCORDIA_JSON_CONTROL_CHARACTER,
            Syntax::InvalidEscape => concordia_result::CONCORDIA_JSON_INVALID_ESCAPE,
            Syntax::LoneSurrogate => concordia_result::CONCORDIA_JSON_LONE_SURROGATE,
            Syntax::InvalidNumber => concordia_result::CONCORDIA_JSON_INVALID_NUMBER,
            Syntax::NumberOutOfRange => concordia_result::CONCORDIA_JSON_NUMBER_OUT_OF_RANGE,
            Syntax::UnsafeInteger => concordia_result::CONCORDIA_JSON_UNSAFE_INTEGER,
            Syntax::NegativeZero => concordia_result::CONCORDIA_JSON_NEGATIVE_ZERO,
            Syntax::DuplicateKey => concordia_result::CONCORDIA_JSON_DUPLICATE_KEY,
            Syntax::ByteOrderMark => concordia_result::CONCORDIA_JSON_BYTE_ORDER_MARK,
            _ => concordia_result::CONCORDIA_JSON_OTHER,
        },
        Error::Limit { kind, .. } => match kind {
            Limit::Depth => concordia_result::CONCORDIA_LIMIT_DEPTH,
            Limit::Nodes => concordia_result::CONCORDIA_LIMIT_NODES,
            Limit::Size => concordia_result::CONCORDIA_LIMIT_SIZE,
            Limit::Capacity => concordia_result::CONCORDIA_LIMIT_CAPACITY,
            Limit::Steps => concordia_result::CONCORDIA_LIMIT_STEPS,
            Limit::Memory => concordia_result::CONCORDIA_LIMIT_MEMORY,
            _ => concordia_result::CONCORDIA_LIMIT_OTHER,
        },
        Error::BufferTooSmall { .. } => concordia_result::CONCORDIA_BUFFER_TOO_SMALL,
        Error::Encoding(_) => concordia_result::CONCORDIA_ENCODING,
        Error::Signature => concordia_result::CONCORDIA_SIGNATURE,
        Error::UnknownKey => concordia_result::CONCORDIA_UNKNOWN_KEY,
        Error::Schema(_) => concordia_result::CONCORDIA_SCHEMA,
        Error::Shape { .. } => concordia_result::CONCORDIA_SHAPE,
        Error::Digest(_) => concordia_result::CONCORDIA_DIGEST,
        Error::Binding(_) => concordia_result::CONCORDIA_BINDING,
        Error::Temporal(_) => concordia_result::CONCORDIA_TEMPORAL,
        Error::Privacy(_) => concordia_result::CONCORDIA_PRIVACY,
        Error::Transition(_) => concordia_result::CONCORDIA_TRANSITION,
        Error::MaxRounds => concordia_result::CONCORDIA_MAX_ROUNDS,
        Error::InvalidArgument(_) => concordia_result::CONCORDIA_INVALID_ARGUMENT,
        _ => concordia_result::CONCORDIA_INTERNAL,
    }
}
