//! Room commands `{action, body, revision, digest}` and their `Idempotency-Key`.
//!
//! * Advisory actions (`comment`, `question`, `change_request`) need a body of 1 to 4,000
//!   characters, counted as UTF-16 code units (JavaScript's `length`, which equals the
//!   character count for text without astral-plane characters).
//! * Terminal actions (`agree`, `disagree`, `abstain`) need an empty body.
//! * `revision` is a positive integer; `digest` is 64 hex digits with an optional
//!   `sha256:` prefix (see [`HexDigest`]).
//!
//! The **normalized command** is the canonical JSON
//! `{"action":..,"body":..,"revision":N,"revision_digest":"<64 hex>"}` (the digest without
//! prefix). The [`IdempotencyKey`] is `cns1:` followed by the unpadded base64url of the
//! SHA-256 of those bytes (48 characters in all): deterministic, identical for
//! `sha256:`-prefixed and bare digests, and always within `[A-Za-z0-9._:-]{8,128}`.

use core::fmt;

use crate::digest::{Digest, Sha256Sink};
use crate::error::{Error, Result};
use crate::jcs;
use crate::json::{self, Kind, Node, Value};
use crate::sink::{Sink, SliceSink};

use super::digest::HexDigest;

/// The longest advisory body, in UTF-16 code units.
pub const MAX_BODY: usize = 4000;
/// The longest wire body [`Command::parse_wire`] reads (bytes): a 4,000-character body
/// escaped as `\uXXXX` throughout, plus the other members.
pub const MAX_WIRE_BODY: usize = 6 * MAX_BODY + 512;
/// Prefix of the keys [`Command::idempotency_key`] derives.
pub const KEY_PREFIX: &str = "cns1:";

/// A room action.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Action {
    /// Advisory comment.
    Comment,
    /// Advisory question.
    Question,
    /// Advisory change request.
    ChangeRequest,
    /// Terminal: agree to the revision.
    Agree,
    /// Terminal: disagree (closes the round as `disagreed`).
    Disagree,
    /// Terminal: abstain (closes the round as `no_consensus`).
    Abstain,
}

impl Action {
    /// All actions, advisory first.
    pub const ALL: [Action; 6] =
        [Action::Comment, Action::Question, Action::ChangeRequest, Action::Agree, Action::Disagree, Action::Abstain];

    /// The wire word.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Action::Comment => "comment",
            Action::Question => "question",
            Action::ChangeRequest => "change_request",
            Action::Agree => "agree",
            Action::Disagree => "disagree",
            Action::Abstain => "abstain",
        }
    }

    /// Parses the wire word (exact, lowercase).
    ///
    /// # Errors
    /// [`Error::Schema`]`("action")` for anything else.
    pub fn parse(s: &str) -> Result<Action> {
        Action::ALL.into_iter().find(|a| a.as_str() == s).ok_or(Error::Schema("action"))
    }

    /// True for `agree`, `disagree` and `abstain`: a final, irreversible response.
    #[must_use]
    pub const fn is_terminal(self) -> bool {
        matches!(self, Action::Agree | Action::Disagree | Action::Abstain)
    }
}

impl fmt::Display for Action {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[derive(Clone, Copy, Debug)]
enum Body<'a> {
    Text(&'a str),
    Json(Value<'a>),
}

/// A validated room command. Borrowing: the body stays in the caller's text or JSON input.
#[derive(Clone, Copy, Debug)]
pub struct Command<'a> {
    action: Action,
    body: Body<'a>,
    revision: u64,
    digest: HexDigest,
}

fn utf16_len(chars: impl Iterator<Item = char>) -> usize {
    // Stops counting past the limit, so the work is bounded by the body's length anyway.
    chars.map(char::len_utf16).take(MAX_BODY + 1).sum()
}

fn check_body(action: Action, units: usize) -> Result<()> {
    match (action.is_terminal(), units) {
        (true, 0) => Ok(()),
        (true, _) => Err(Error::Schema("terminal actions need an empty body")),
        (false, 0) => Err(Error::Schema("advisory actions need a body")),
        (false, n) if n > MAX_BODY => Err(Error::Schema("body longer than 4000 characters")),
        (false, _) => Ok(()),
    }
}

fn check_revision(revision: u64) -> Result<()> {
    if revision == 0 || revision > json::MAX_SAFE_INTEGER {
        return Err(Error::Schema("revision"));
    }
    Ok(())
}

impl<'a> Command<'a> {
    /// Builds and validates a command.
    ///
    /// # Errors
    /// [`Error::Schema`] for a body that does not suit the action or a revision outside
    /// 1..=2^53-1; [`Error::Encoding`] for a malformed digest.
    pub fn new(action: Action, body: &'a str, revision: u64, digest: &str) -> Result<Self> {
        check_body(action, utf16_len(body.chars()))?;
        check_revision(revision)?;
        Ok(Command { action, body: Body::Text(body), revision, digest: HexDigest::normalize(digest)? })
    }

    /// Reads a wire body object: exactly the members `action`, `body`, `revision`,
    /// `digest`.
    ///
    /// # Errors
    /// [`Error::Schema`] for a missing, extra or mistyped member, and as [`Command::new`].
    pub fn from_value(value: Value<'a>) -> Result<Self> {
        if value.kind() != Kind::Object {
            return Err(Error::Schema("command must be an object"));
        }
        if value.members().any(|(k, _)| !["action", "body", "revision", "digest"].iter().any(|n| k.eq_str(n))) {
            return Err(Error::Schema("command has an unknown member"));
        }
        Command::from_fields(value)
    }

    /// Reads the four command members of an object that may hold others.
    pub(crate) fn from_fields(value: Value<'a>) -> Result<Self> {
        let get = |k: &'static str| value.get(k).ok_or(Error::Schema(k));
        let plain = |k: &'static str, escaped: &'static str| {
            get(k)?.as_str().ok_or(Error::Schema(k))?.as_plain().ok_or(Error::Schema(escaped))
        };
        let action = plain("action", "action must be written without JSON escapes").and_then(Action::parse)?;
        let body = get("body")?;
        let text = body.as_str().ok_or(Error::Schema("body"))?;
        check_body(action, utf16_len(text.chars()))?;
        let rev = get("revision")?;
        let revision = match rev.as_i64() {
            Some(n) if n > 0 => n as u64,
            _ => return Err(Error::Schema("revision")),
        };
        check_revision(revision)?;
        let digest = match get("digest")?.as_str() {
            None => return Err(Error::Encoding("command digest")),
            Some(d) => d.as_plain().ok_or(Error::Schema("digest must be written without JSON escapes"))?,
        };
        Ok(Command { action, body: Body::Json(body), revision, digest: HexDigest::normalize(digest)? })
    }

    /// Parses and validates a wire body (at most [`MAX_WIRE_BODY`] bytes). A node buffer
    /// of 16 entries suffices for any valid command. This is the fuzzing entry point.
    ///
    /// # Errors
    /// [`Error::Limit`] for a longer input, the reader's errors, and as
    /// [`Command::from_value`].
    pub fn parse_wire(bytes: &'a [u8], nodes: &'a mut [Node]) -> Result<Self> {
        if bytes.len() > MAX_WIRE_BODY {
            return Err(Error::Limit { kind: crate::error::Limit::Size, offset: MAX_WIRE_BODY });
        }
        let doc = json::parse(bytes, nodes)?;
        Command::from_value(doc.root())
    }

    /// The action.
    #[must_use]
    pub fn action(&self) -> Action {
        self.action
    }

    /// The revision number.
    #[must_use]
    pub fn revision(&self) -> u64 {
        self.revision
    }

    /// The normalized digest text (prefix stripped, case kept).
    #[must_use]
    pub fn digest(&self) -> &HexDigest {
        &self.digest
    }

    /// The decoded body characters.
    pub fn body_chars(&self) -> impl Iterator<Item = char> + 'a {
        let (a, b) = match self.body {
            Body::Text(s) => (Some(s.chars()), None),
            Body::Json(v) => (None, v.as_str().map(|s| s.chars())),
        };
        a.into_iter().flatten().chain(b.into_iter().flatten())
    }

    fn write_body<S: Sink + ?Sized>(&self, sink: &mut S) -> Result<()> {
        match self.body {
            Body::Text(s) => jcs::write_plain_str(s, sink),
            Body::Json(v) => jcs::write(v, sink),
        }
    }

    fn write_fields<S: Sink + ?Sized>(&self, digest_name: &str, sink: &mut S) -> Result<()> {
        let digest_first = digest_name == "digest";
        sink.write(b"{\"action\":\"")?;
        sink.write(self.action.as_str().as_bytes())?;
        sink.write(b"\",\"body\":")?;
        self.write_body(sink)?;
        let write_digest = |sink: &mut S| -> Result<()> {
            sink.write(b",\"")?;
            sink.write(digest_name.as_bytes())?;
            sink.write(b"\":\"")?;
            sink.write(self.digest.as_str().as_bytes())?;
            sink.write(b"\"")
        };
        if digest_first {
            write_digest(sink)?;
        }
        sink.write(b",\"revision\":")?;
        jcs::write_number(self.revision as f64, sink)?;
        if !digest_first {
            write_digest(sink)?;
        }
        sink.write(b"}")
    }

    /// Writes the wire body as canonical JSON: `{"action","body","digest","revision"}`
    /// (digest without prefix).
    ///
    /// # Errors
    /// Only the sink's errors.
    pub fn write_wire<S: Sink + ?Sized>(&self, sink: &mut S) -> Result<()> {
        self.write_fields("digest", sink)
    }

    /// Writes the wire body into `out` and returns its length.
    ///
    /// # Errors
    /// [`Error::BufferTooSmall`] with the needed length.
    pub fn wire_to_slice(&self, out: &mut [u8]) -> Result<usize> {
        let mut sink = SliceSink::new(out);
        self.write_wire(&mut sink)?;
        sink.finish()
    }

    /// Writes the normalized command (see the module documentation).
    ///
    /// # Errors
    /// Only the sink's errors.
    pub fn write_normalized<S: Sink + ?Sized>(&self, sink: &mut S) -> Result<()> {
        self.write_fields("revision_digest", sink)
    }

    /// SHA-256 of the normalized command: what a room stores to recognize replays.
    #[must_use]
    pub fn normalized_digest(&self) -> Digest {
        let mut sink = Sha256Sink::new();
        let _ = self.write_normalized(&mut sink);
        sink.finish()
    }

    /// The stable `Idempotency-Key` of this exact command.
    #[must_use]
    pub fn idempotency_key(&self) -> IdempotencyKey {
        let mut s = heapless::String::new();
        let _ = s.push_str(KEY_PREFIX);
        let mut b64 = [0u8; 43];
        let n = crate::encoding::encode_base64url_nopad(self.normalized_digest().as_bytes(), &mut b64).unwrap_or(0);
        for &b in b64.get(..n).unwrap_or_default() {
            let _ = s.push(char::from(b));
        }
        IdempotencyKey(s)
    }
}

/// An `Idempotency-Key` derived by [`Command::idempotency_key`].
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct IdempotencyKey(heapless::String<48>);

impl IdempotencyKey {
    /// The header name.
    pub const HEADER: &'static str = "Idempotency-Key";

    /// The key text.
    #[must_use]
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for IdempotencyKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// Validates a received `Idempotency-Key`: `[A-Za-z0-9._:-]{8,128}`.
///
/// # Errors
/// [`Error::Schema`]`("idempotency key")` otherwise.
pub fn validate_idempotency_key(key: &str) -> Result<()> {
    let ok = (8..=128).contains(&key.len())
        && key.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b':' | b'-'));
    if ok {
        Ok(())
    } else {
        Err(Error::Schema("idempotency key"))
    }
}
