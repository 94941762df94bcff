//! The signed message envelope (SPEC §4.1) and the hash-chained transcript (§9.3).
//!
//! * A message's signature covers `JCS(message without its top-level signature)`.
//! * A message's identity, [`message_hash`], is `SHA-256(JCS(message))` with the signature
//!   included; the next message's `prev_hash` must equal it, and the first message's must
//!   equal [`GENESIS_HASH`].
//!
//! [`TranscriptVerifier`] checks a transcript one message at a time, holding only the tip
//! hash, the session binding and a count, so a transcript of any length verifies in
//! constant memory.
//!
//! ```
//! # fn main() -> Result<(), concordia_core::Error> {
//! use concordia_core::{json, message::{Envelope, Party, TranscriptVerifier}, sign::KeyPair};
//!
//! let seller = KeyPair::from_seed(&[7u8; 32]);
//! let mut body_nodes = [json::Node::EMPTY; 8];
//! let body = json::parse(br#"{"terms": {"price": {"value": 2200}}}"#, &mut body_nodes)?;
//! let env = Envelope::new("negotiate.offer", "msg_1", "ses_1", "2026-03-21T14:30:00Z",
//!                         Party::new("seller"), body.root());
//! let mut buf = [0u8; 512];
//! let n = env.write_signed(&seller, &mut buf)?;
//!
//! let mut nodes = [json::Node::EMPTY; 32];
//! let msg = json::parse(&buf[..n], &mut nodes)?;
//! let mut verifier = TranscriptVerifier::new();
//! let pk = seller.public_key();
//! verifier.push(msg.root(), &|id: json::Str<'_>| id.eq_str("seller").then_some(pk))?;
//! assert_eq!(verifier.count(), 1);
//! # Ok(())
//! # }
//! ```

use crate::digest::{Digest, Sha256Sink};
use crate::error::{Error, Result};
use crate::jcs;
use crate::json::{Kind, Str, Value};
use crate::preimage::WithoutSignature;
use crate::sign::{KeyPair, PreparedKey, PublicKey, Signature, VerifySink};
use crate::sink::{Sink, SliceSink};

/// The protocol version the reference SDK writes into `concordia`.
pub const PROTOCOL_VERSION: &str = "0.1.0";

/// `prev_hash` of the first message: `sha256:` followed by 64 zeros.
pub const GENESIS_HASH: Digest = Digest([0; 32]);

/// The chain identity of a message: SHA-256 over its canonical form, signature included.
///
pub fn message_hash(message: Value<'_>) -> Digest {
    crate::digest::sha256_jcs(message)
}

/// Reads a base64url signature held in a JSON string.
///
/// # Errors
/// [`Error::Schema`] when `value` is not a string; `Encoding(detail::SIGNATURE_ENCODING)`
/// for any text that is not the one spelling of 64 bytes ([`Signature::from_b64url`]).
pub fn signature_from_value(value: Value<'_>) -> Result<Signature> {
    use crate::error::detail::{SIGNATURE_ENCODING, SIGNATURE_NOT_STRING};
    let s = value.as_str().ok_or(Error::Schema(SIGNATURE_NOT_STRING))?;
    let mut buf = [0u8; 128];
    let text = s.decode_into(&mut buf).map_err(|_| Error::Encoding(SIGNATURE_ENCODING))?;
    Signature::from_b64url(text).map_err(|_| Error::Encoding(SIGNATURE_ENCODING))
}

/// Reads a base64url Ed25519 public key held in a JSON string.
///
/// # Errors
/// [`Error::Schema`] when `value` is not a string, [`Error::Encoding`] when it does not
/// decode to 32 bytes.
pub fn public_key_from_value(value: Value<'_>) -> Result<PublicKey> {
    let s = value.as_str().ok_or(Error::Schema("public key must be a string"))?;
    let mut buf = [0u8; 128];
    let text = s.decode_into(&mut buf).map_err(|_| Error::Encoding("public key"))?;
    PublicKey::from_b64(text)
}

/// Verifies the top-level `signature` of any JSON object under `key` (SPEC §9.2, rule 1),
/// streaming the preimage into the verifier.
///
/// # Errors
/// [`Error::Schema`] when there is no string `signature` member, [`Error::Encoding`] when
/// it is not base64url of 64 bytes, [`Error::Signature`] when it does not verify.
pub fn verify_signed_object(object: Value<'_>, key: &PublicKey) -> Result<()> {
    verify_signed_object_with(object, key.prepare())
}

/// [`verify_signed_object`] under a key checked and decoded beforehand
/// ([`PublicKey::prepare`]); the same verdicts.
///
/// # Errors
/// As [`verify_signed_object`].
pub fn verify_signed_object_prepared(object: Value<'_>, key: &PreparedKey) -> Result<()> {
    verify_signed_object_with(object, Ok(*key))
}

/// [`verify_signed_object`] with the key already prepared, or the refusal preparing it
/// gave, which counts only after the checks of the signature member (so the refusals come
/// in the same order whichever way the key arrives).
pub(crate) fn verify_signed_object_with(object: Value<'_>, key: Result<PreparedKey>) -> Result<()> {
    if object.kind() != Kind::Object {
        return Err(Error::Schema("signed value must be an object"));
    }
    let sig =
        signature_from_value(object.get("signature").ok_or(Error::Schema(crate::error::detail::SIGNATURE_MISSING))?)?;
    let mut sink = VerifySink::with_key(&key?, &sig)?;
    jcs::write_with(object, &WithoutSignature, &mut sink)?;
    sink.finish()
}

/// Signs a JSON object under rule 1 (top-level `signature` excluded) and writes the signed
/// object, canonical, into `out`; any existing `signature` member is replaced.
///
/// The preimage is first written into `out` itself, so no other buffer is needed.
///
/// # Errors
/// [`Error::BufferTooSmall`] with the full length when `out` is too short;
/// [`Error::Schema`] when `object` is not an object.
pub fn sign_object(object: Value<'_>, key: &KeyPair, out: &mut [u8]) -> Result<usize> {
    sign_object_by(object, key, out)
}

/// Signs a JSON object under rule 1 with ES256 (the SDK's `sign_message(..., alg="ES256")`),
/// as [`sign_object`] does with Ed25519: the signature is the padded URL-safe base64 of the
/// DER form, low S, deterministic (RFC 6979).
///
/// # Errors
/// As [`sign_object`]; a `BufferTooSmall` length counts the longest DER signature (72
/// bytes), so the signed object may come out up to 8 bytes shorter.
#[cfg(feature = "es256")]
pub fn sign_object_es256(object: Value<'_>, key: &crate::es256::KeyPair, out: &mut [u8]) -> Result<usize> {
    sign_object_by(object, key, out)
}

/// Verifies the top-level ES256 `signature` of a JSON object under `key` (the SDK's
/// `verify_signature(..., alg="ES256")`), streaming the preimage into SHA-256.
///
/// # Errors
/// [`Error::Schema`] when there is no string `signature` member;
/// `Encoding(detail::SIGNATURE_ENCODING)` when it is not the padded URL-safe base64 of a
/// strict DER signature; [`Error::Signature`] for a zero, out-of-range or high scalar, or a
/// signature that does not verify.
#[cfg(feature = "es256")]
pub fn verify_signed_object_es256(object: Value<'_>, key: &crate::es256::PublicKey) -> Result<()> {
    use crate::error::detail::{SIGNATURE_ENCODING, SIGNATURE_MISSING, SIGNATURE_NOT_STRING};
    if object.kind() != Kind::Object {
        return Err(Error::Schema("signed value must be an object"));
    }
    let value = object.get("signature").ok_or(Error::Schema(SIGNATURE_MISSING))?;
    let s = value.as_str().ok_or(Error::Schema(SIGNATURE_NOT_STRING))?;
    let mut buf = [0u8; 128];
    let text = s.decode_into(&mut buf).map_err(|_| Error::Encoding(SIGNATURE_ENCODING))?;
    let sig = crate::es256::Signature::from_b64url(text)?;
    let mut sink = crate::es256::VerifySink::new(key, &sig);
    jcs::write_with(object, &WithoutSignature, &mut sink)?;
    sink.finish()
}

/// Signs a JSON object under rule 1 with any [`Signer`](crate::signer::Signer) (a key the
/// core never sees: a Secure Enclave, a KMS, an HSM), as [`sign_object`] and
/// [`sign_object_es256`] do with in-memory keys: the signer is called once over the
/// preimage, and its answer is checked ([`crate::signer::sign_checked`]) before it is
/// written.
///
/// # Errors
/// As [`sign_object`]; the signer's error, or `Signer(SIGNER_WRONG_SIGNATURE)` for an
/// answer that does not verify, with nothing signed (`out` then holds only the preimage).
pub fn sign_object_by<S: crate::signer::Signer + ?Sized>(
    object: Value<'_>,
    signer: &S,
    out: &mut [u8],
) -> Result<usize> {
    if object.kind() != Kind::Object {
        return Err(Error::Schema("signed value must be an object"));
    }
    // The longest text of the algorithm: 88 characters (Ed25519), 96 (ES256 DER).
    let text_len = match signer.alg() {
        crate::sign::Alg::EdDsa => 88,
        crate::sign::Alg::Es256 => crate::signer::MAX_SIGNATURE_TEXT,
    };
    // `,"signature":"<text>"`: a comma, the quoted name (11), the colon, the quoted text.
    let member_len = 1 + 11 + 1 + text_len + 2;
    let n = jcs::write_to_slice_with(object, &WithoutSignature, out).map_err(|e| match e {
        // The signed form adds the member, with its comma unless the rest is `{}`.
        Error::BufferTooSmall { needed } => {
            Error::BufferTooSmall { needed: needed + member_len - usize::from(needed == 2) }
        }
        other => other,
    })?;
    // `n` is what the writer wrote into `out`: never beyond it, but no fallback signs
    // anything else.
    let b64 = crate::signer::signature_text(signer, out.get(..n).ok_or(Error::BufferTooSmall { needed: n })?)?;
    let mut quoted = [0u8; 100];
    let q = quote_ascii(b64.as_bytes(), &mut quoted);
    let mut sink = SliceSink::new(out);
    jcs::write_inserting(object, &WithoutSignature, Some(("signature", q)), &mut sink)?;
    sink.finish()
}

fn quote_ascii<'b>(s: &[u8], buf: &'b mut [u8]) -> &'b [u8] {
    let n = s.len().min(buf.len().saturating_sub(2));
    if let Some(first) = buf.first_mut() {
        *first = b'"';
    }
    if let Some(mid) = buf.get_mut(1..=n) {
        mid.copy_from_slice(s.get(..n).unwrap_or(&[]));
    }
    if let Some(last) = buf.get_mut(n + 1) {
        *last = b'"';
    }
    buf.get(..n + 2).unwrap_or(&[])
}

/// An agent as it appears in `from` and `to`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Party<'a> {
    /// The agent's identifier.
    pub agent_id: &'a str,
    /// The principal the agent acts for, if any.
    pub principal_id: Option<&'a str>,
}

impl<'a> Party<'a> {
    /// An agent with no principal.
    #[must_use]
    pub const fn new(agent_id: &'a str) -> Self {
        Party { agent_id, principal_id: None }
    }

    fn write<S: Sink + ?Sized>(&self, sink: &mut S) -> Result<()> {
        sink.write(b"{\"agent_id\":")?;
        jcs::write_plain_str(self.agent_id, sink)?;
        if let Some(p) = self.principal_id {
            sink.write(b",\"principal_id\":")?;
            jcs::write_plain_str(p, sink)?;
        }
        sink.write(b"}")
    }
}

/// The fields of a message envelope (SPEC §4.1), ready to be signed and written.
///
/// Optional members are omitted exactly as the reference SDK's `build_envelope` omits
/// them: `to` when empty, `in_reply_to` and `reasoning` when `None` or empty.
#[derive(Clone, Copy, Debug)]
pub struct Envelope<'a> {
    /// `concordia`: protocol version, [`PROTOCOL_VERSION`] by default.
    pub concordia: &'a str,
    /// `type`, e.g. `negotiate.offer`.
    pub message_type: &'a str,
    /// `id`: unique message identifier.
    pub id: &'a str,
    /// `session_id`.
    pub session_id: &'a str,
    /// `timestamp`: ISO 8601 UTC, supplied by the caller (the core reads no clock).
    pub timestamp: &'a str,
    /// `from`.
    pub from: Party<'a>,
    /// `to`.
    pub to: &'a [Party<'a>],
    /// `prev_hash`: [`GENESIS_HASH`] for the first message.
    pub prev_hash: Digest,
    /// `body`: any JSON value (an object in practice).
    pub body: Value<'a>,
    /// `in_reply_to`.
    pub in_reply_to: Option<&'a str>,
    /// `reasoning`: free text, signed with the rest.
    pub reasoning: Option<&'a str>,
    /// `ttl` in seconds.
    pub ttl: Option<u64>,
}

impl<'a> Envelope<'a> {
    /// An envelope with the required fields, `prev_hash` at genesis, no optional fields.
    #[must_use]
    pub fn new(
        message_type: &'a str,
        id: &'a str,
        session_id: &'a str,
        timestamp: &'a str,
        from: Party<'a>,
        body: Value<'a>,
    ) -> Self {
        Envelope {
            concordia: PROTOCOL_VERSION,
            message_type,
            id,
            session_id,
            timestamp,
            from,
            to: &[],
            prev_hash: GENESIS_HASH,
            body,
            in_reply_to: None,
            reasoning: None,
            ttl: None,
        }
    }

    /// Writes the canonical envelope; with `signature` it is the signed message, without
    /// it the signature preimage. Members are written in RFC 8785 order.
    fn write<S: Sink + ?Sized>(&self, signature: Option<&str>, sink: &mut S) -> Result<()> {
        sink.write(b"{\"body\":")?;
        jcs::write(self.body, sink)?;
        sink.write(b",\"concordia\":")?;
        jcs::write_plain_str(self.concordia, sink)?;
        sink.write(b",\"from\":")?;
        self.from.write(sink)?;
        sink.write(b",\"id\":")?;
        jcs::write_plain_str(self.id, sink)?;
        if let Some(r) = self.in_reply_to.filter(|s| !s.is_empty()) {
            sink.write(b",\"in_reply_to\":")?;
            jcs::write_plain_str(r, sink)?;
        }
        sink.write(b",\"prev_hash\":\"")?;
        sink.write(self.prev_hash.to_prefixed().as_bytes())?;
        sink.write(b"\"")?;
        if let Some(r) = self.reasoning.filter(|s| !s.is_empty()) {
            sink.write(b",\"reasoning\":")?;
            jcs::write_plain_str(r, sink)?;
        }
        sink.write(b",\"session_id\":")?;
        jcs::write_plain_str(self.session_id, sink)?;
        if let Some(sig) = signature {
            sink.write(b",\"signature\":")?;
            jcs::write_plain_str(sig, sink)?;
        }
        sink.write(b",\"timestamp\":")?;
        jcs::write_plain_str(self.timestamp, sink)?;
        if !self.to.is_empty() {
            sink.write(b",\"to\":[")?;
            for (i, p) in self.to.iter().enumerate() {
                if i > 0 {
                    sink.write(b",")?;
                }
                p.write(sink)?;
            }
            sink.write(b"]")?;
        }
        if let Some(ttl) = self.ttl {
            sink.write(b",\"ttl\":")?;
            jcs::write_number(ttl as f64, sink)?;
        }
        sink.write(b",\"type\":")?;
        jcs::write_plain_str(self.message_type, sink)?;
        sink.write(b"}")
    }

    /// Signs the envelope with `key` and writes the signed message, canonical, into `out`.
    ///
    /// # Errors
    /// [`Error::BufferTooSmall`] with the full length when `out` is too short;
    /// [`Error::InvalidArgument`] for a `ttl` beyond 2^53 - 1.
    pub fn write_signed(&self, key: &KeyPair, out: &mut [u8]) -> Result<usize> {
        if self.ttl.is_some_and(|t| t > crate::json::MAX_SAFE_INTEGER) {
            return Err(Error::InvalidArgument("ttl beyond 2^53 - 1"));
        }
        let mut pre = SliceSink::new(out);
        self.write(None, &mut pre)?;
        let n = pre.finish().map_err(|e| match e {
            // The signed form is longer by the signature member.
            Error::BufferTooSmall { needed } => Error::BufferTooSmall { needed: needed + SIGNATURE_MEMBER_LEN },
            other => other,
        })?;
        let sig = key.sign(out.get(..n).ok_or(Error::BufferTooSmall { needed: n })?);
        let b64 = sig.to_b64url();
        let mut sink = SliceSink::new(out);
        self.write(Some(b64.as_str()), &mut sink)?;
        sink.finish()
    }
}

/// Length of `,"signature":"<88 base64url chars>"`: 1 + 11 + 1 + 90.
const SIGNATURE_MEMBER_LEN: usize = 103;

/// Finds the public key of an agent.
pub trait KeyResolver {
    /// The Ed25519 public key registered for `agent_id`, if any.
    fn resolve(&self, agent_id: Str<'_>) -> Option<PublicKey>;

    /// The key registered for `agent_id`, checked and decoded ([`PublicKey::prepare`]):
    /// `Some(Err(Error::Signature))` for a key that is not a valid point. Verification asks
    /// for keys this way; a resolver that serves many verifications (a key map, a
    /// transcript's parties) overrides it to prepare each key once. An override must
    /// return what the default returns.
    fn resolve_prepared(&self, agent_id: Str<'_>) -> Option<Result<PreparedKey>> {
        self.resolve(agent_id).map(|k| k.prepare())
    }
}

impl<F: Fn(Str<'_>) -> Option<PublicKey>> KeyResolver for F {
    fn resolve(&self, agent_id: Str<'_>) -> Option<PublicKey> {
        self(agent_id)
    }
}

/// A JSON object mapping `agent_id` to a base64url Ed25519 public key, used as a
/// [`KeyResolver`] (the `public_keys_b64url` shape of the conformance contract and the
/// `keys.json` of the CLI). Entries that do not decode resolve to nothing.
#[derive(Clone, Copy, Debug)]
pub struct KeyMap<'a>(pub Value<'a>);

impl KeyResolver for KeyMap<'_> {
    fn resolve(&self, agent_id: Str<'_>) -> Option<PublicKey> {
        let (_, v) = self.0.sorted_members().find(|(k, _)| *k == agent_id)?;
        public_key_from_value(v).ok()
    }
}

/// The sender's `agent_id` of a message.
///
/// # Errors
/// [`Error::Schema`] when `/from/agent_id` is missing or not a string.
pub fn sender(message: Value<'_>) -> Result<Str<'_>> {
    message
        .get("from")
        .and_then(|f| f.get("agent_id"))
        .and_then(|a| a.as_str())
        .ok_or(Error::Schema(crate::error::detail::SENDER_MISSING))
}

/// Verifies a message's top-level `signature` under its sender's key: `from.agent_id`
/// resolved by `keys` ([`verify_signed_object`]).
///
/// # Errors
/// [`Error::Schema`] when `/from/agent_id` is missing or not a string,
/// [`Error::UnknownKey`] when it does not resolve, and the errors of
/// [`verify_signed_object`].
pub fn verify_from_sender<R: KeyResolver + ?Sized>(message: Value<'_>, keys: &R) -> Result<()> {
    let key = keys.resolve_prepared(sender(message)?).ok_or(Error::UnknownKey)?;
    verify_signed_object_with(message, key)
}

/// Verifies a transcript one message at a time in O(1) memory.
///
/// Each [`push`](Self::push) checks, in order: the message is an object; its `prev_hash`
/// equals the previous message's hash ([`GENESIS_HASH`] for the first); its `session_id`
/// equals the first message's; its sender's key resolves; its signature verifies. A
/// message that fails leaves the verifier unchanged, so the caller can report it and stop
/// or skip it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TranscriptVerifier {
    tip: Digest,
    session: Option<Digest>,
    count: u64,
}

impl Default for TranscriptVerifier {
    fn default() -> Self {
        Self::new()
    }
}

impl TranscriptVerifier {
    /// A verifier expecting the first message of a session.
    #[must_use]
    pub const fn new() -> Self {
        TranscriptVerifier { tip: GENESIS_HASH, session: None, count: 0 }
    }

    /// Messages accepted so far.
    #[must_use]
    pub const fn count(&self) -> u64 {
        self.count
    }

    /// Hash of the last accepted message ([`GENESIS_HASH`] before the first).
    #[must_use]
    pub const fn head(&self) -> Digest {
        self.tip
    }

    /// Checks the next message and, if it passes, advances; returns its hash.
    ///
    /// # Errors
    /// [`Error::Binding`] for a broken `prev_hash` link (`"prev_hash"`) or a different
    /// session (`"session_id"`), [`Error::Schema`] for a missing member,
    /// [`Error::UnknownKey`] when the sender's key does not resolve, and
    /// [`Error::Signature`] or [`Error::Encoding`] for a bad signature.
    pub fn push<R: KeyResolver + ?Sized>(&mut self, message: Value<'_>, keys: &R) -> Result<Digest> {
        self.accept(&Checked::new(message, keys))
    }

    /// [`TranscriptVerifier::push`] for a message already [`Checked`]: the link to the
    /// message before it and the session binding, then the message's own checks, in that
    /// order (the first failure is the error, as `push` reports it).
    ///
    /// # Errors
    /// As [`TranscriptVerifier::push`].
    pub fn accept(&mut self, checked: &Checked) -> Result<Digest> {
        checked.shape?;
        if checked.prev? != Some(self.tip) {
            return Err(Error::Binding(crate::error::detail::PREV_HASH));
        }
        let session_digest = checked.session?;
        if self.session.is_some_and(|s| s != session_digest) {
            return Err(Error::Binding(crate::error::detail::SESSION_ID));
        }
        let hash = checked.signed?;
        self.tip = hash;
        self.session = Some(session_digest);
        self.count += 1;
        Ok(hash)
    }
}

/// What one message contributes to a transcript, found without the messages before it:
/// its shape, the digest its `prev_hash` names, its session, its sender's signature and
/// its hash. Many messages can be checked at once (a host runs [`Checked::new`] on as
/// many threads as it has), then folded in order by [`TranscriptVerifier::accept`], which
/// gives each message the verdict [`TranscriptVerifier::push`] gives it (push is `new`
/// followed by `accept`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Checked {
    /// Not an object: the error.
    shape: Result<()>,
    /// The digest `prev_hash` names in its one spelling (`None`: it names none), or the
    /// error for a missing one.
    prev: Result<Option<Digest>>,
    /// The digest of `session_id`, or the error for a missing one.
    session: Result<Digest>,
    /// The sender's key and signature, and then the message's hash.
    signed: Result<Digest>,
}

impl Checked {
    /// Checks `message` on its own: everything [`TranscriptVerifier::push`] checks except
    /// the link to the message before it and the session of the first message.
    #[must_use]
    pub fn new<R: KeyResolver + ?Sized>(message: Value<'_>, keys: &R) -> Self {
        if message.kind() != Kind::Object {
            let e = Err(Error::Schema(crate::error::detail::MESSAGE_NOT_OBJECT));
            return Checked { shape: e, prev: Ok(None), session: Ok(GENESIS_HASH), signed: Ok(GENESIS_HASH) };
        }
        let prev = match message.get("prev_hash").and_then(|p| p.as_str()) {
            None => Err(Error::Schema("prev_hash")),
            Some(p) => Ok(named_digest(p)),
        };
        let session = message.get("session_id").and_then(|s| s.as_str()).ok_or(Error::Schema("session_id"));
        let signed = verify_from_sender(message, keys).map(|()| message_hash(message));
        Checked { shape: Ok(()), prev, session: session.map(digest_of_str), signed }
    }
}

/// The digest a `prev_hash` text names: the one whose prefixed form it is, byte for byte.
fn named_digest(text: Str<'_>) -> Option<Digest> {
    let mut buf = [0u8; 80];
    let t = text.decode_into(&mut buf).ok()?;
    let d = Digest::parse_prefixed(t).ok()?;
    (d.to_prefixed().as_str() == t).then_some(d)
}

/// Checks that `message.prev_hash` is the prefixed form of `expected`.
///
/// # Errors
/// [`Error::Schema`] when `prev_hash` is missing or not a string, [`Error::Binding`] when
/// it names another message.
pub fn check_link(message: Value<'_>, expected: &Digest) -> Result<()> {
    let prev = message.get("prev_hash").and_then(|p| p.as_str()).ok_or(Error::Schema("prev_hash"))?;
    if prev.eq_str(expected.to_prefixed().as_str()) {
        Ok(())
    } else {
        Err(Error::Binding(crate::error::detail::PREV_HASH))
    }
}

fn digest_of_str(s: Str<'_>) -> Digest {
    let mut sink = Sha256Sink::new();
    let mut buf = [0u8; 4];
    for c in s.chars() {
        // Sha256Sink never fails.
        let _ = sink.write(c.encode_utf8(&mut buf).as_bytes());
    }
    sink.finish()
}

/// Verifies a whole transcript held in a JSON array, in order.
///
/// # Errors
/// As [`TranscriptVerifier::push`]; [`Error::Schema`] when `messages` is not an array.
/// The error of the first failing message is returned together with its index.
pub fn verify_transcript<R: KeyResolver + ?Sized>(
    messages: Value<'_>,
    keys: &R,
) -> core::result::Result<TranscriptVerifier, (usize, Error)> {
    if messages.kind() != Kind::Array {
        return Err((0, Error::Schema("transcript must be an array")));
    }
    let mut v = TranscriptVerifier::new();
    for (i, m) in messages.elements().enumerate() {
        v.push(m, keys).map_err(|e| (i, e))?;
    }
    Ok(v)
}

#[cfg(test)]
mod tests;
