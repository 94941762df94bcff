//! The AIP envelope: a signed header around an HPKE-sealed body.
//!
//! ```json
//! {"created_at":"2026-05-10T14:25:00Z","encrypted_body":"<base64url>",
//!  "from":"did:aip:aigentix.org:alice","id":"1b4e28ba-2fa1-4d3b-a3f5-ef19b5a7633b",
//!  "sig":"<base64url>","to":"did:aip:etagi.ru:etagi","type":"aip.commerce.offer.request"}
//! ```
//!
//! Exactly these seven members, each a string, nothing else:
//!
//! * `id`: a UUID v4 in lowercase 8-4-4-4-12 form, version nibble `4`, variant `10xx`
//!   (the first digit of the fourth group is `8`, `9`, `a` or `b`);
//! * `from`, `to`: `did:aip` DIDs ([`super::did`]);
//! * `type`: 1 to 128 characters from `a-z 0-9 . _ -`, starting with a letter;
//! * `created_at`: RFC 3339 `YYYY-MM-DDTHH:MM:SS[.fraction](Z|±HH:MM)` with upper-case
//!   `T` and `Z`, at most 64 characters, a real calendar instant;
//! * `encrypted_body`: unpadded base64url of `enc || ct`, where `enc` is the 32-byte HPKE
//!   encapsulated key and `ct` the ChaCha20Poly1305 ciphertext with its 16-byte tag
//!   ([`super::hpke`]), sealed to the recipient's X25519 key with `info` = [`INFO`] and
//!   the associated data = the RFC 8785 form of the header object
//!   `{"created_at","from","id","to","type"}` ([`Header::aad`]), so a body cannot be
//!   moved into another envelope;
//! * `sig`: unpadded base64url (86 characters) of the Ed25519 signature over the RFC 8785
//!   form of the envelope without `sig`.
//!
//! [`seal`] writes the envelope canonical (RFC 8785) into a caller buffer with no other
//! buffer for the body; [`parse`] checks the shape, [`Envelope::verify`] the signature,
//! [`Envelope::open`] the body.

use crate::encoding;
use crate::error::{Error, Result};
use crate::jcs;
use crate::json::{self, Kind, Node, Value};
use crate::preimage::Without;
use crate::sign::{KeyPair, PublicKey, Signature, VerifySink};
use crate::sink::SliceSink;
use crate::time::{self, Timestamp};

use super::did::{parse_did, DidDocument};
use super::handle::Handle;
use super::hpke::{self, X25519PublicKey, X25519SecretKey, ENC_LEN, TAG_LEN};

/// The HPKE `info` string of AIP envelope bodies.
pub const INFO: &[u8] = b"concordia-aip/1 encrypted_body";
/// Largest associated data (the canonical header).
pub const MAX_AAD: usize = 1024;
/// Nodes needed to parse an envelope (the object and seven members).
pub const NODES: usize = 16;
/// Length of the base64url signature.
pub const SIG_B64_LEN: usize = 86;
/// Longest `type`.
pub const MAX_TYPE: usize = 128;
/// Longest `created_at`.
pub const MAX_CREATED_AT: usize = 64;

const MEMBERS: [&str; 7] = ["created_at", "encrypted_body", "from", "id", "sig", "to", "type"];

/// The signed header fields of an envelope.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Header<'a> {
    /// `id`: UUID v4.
    pub id: &'a str,
    /// `from`: sender DID.
    pub from: &'a str,
    /// `to`: recipient DID.
    pub to: &'a str,
    /// `type`: message type, e.g. `aip.commerce.offer.request`.
    pub kind: &'a str,
    /// `created_at`: RFC 3339.
    pub created_at: &'a str,
}

/// Checks a lowercase UUID v4 and returns its 128 bits.
///
/// # Errors
/// [`Error::Schema`] when the text is not one.
pub fn parse_uuid_v4(text: &str) -> Result<u128> {
    let b = text.as_bytes();
    if b.len() != 36 {
        return Err(Error::Schema("id must be a UUID"));
    }
    let mut v: u128 = 0;
    for (i, &c) in b.iter().enumerate() {
        if matches!(i, 8 | 13 | 18 | 23) {
            if c != b'-' {
                return Err(Error::Schema("id must be a UUID"));
            }
            continue;
        }
        let d = match c {
            b'0'..=b'9' => c - b'0',
            b'a'..=b'f' => c - b'a' + 10,
            _ => return Err(Error::Schema("id must be a lowercase UUID")),
        };
        v = v << 4 | u128::from(d);
    }
    if b.get(14) != Some(&b'4') {
        return Err(Error::Schema("id must be a UUID version 4"));
    }
    if !matches!(b.get(19), Some(b'8' | b'9' | b'a' | b'b')) {
        return Err(Error::Schema("id must have the RFC 9562 variant"));
    }
    Ok(v)
}

fn digits(b: &[u8], at: usize, n: usize) -> bool {
    b.get(at..at + n).is_some_and(|d| d.iter().all(u8::is_ascii_digit))
}

/// Checks the strict RFC 3339 `date-time` grammar and returns the instant.
///
/// # Errors
/// [`Error::Schema`] for any other text or an impossible date.
pub fn parse_rfc3339(text: &str) -> Result<Timestamp> {
    const BAD: Error = Error::Schema("created_at must be RFC 3339");
    let b = text.as_bytes();
    if b.len() > MAX_CREATED_AT
        || !(digits(b, 0, 4) && b.get(4) == Some(&b'-') && digits(b, 5, 2) && b.get(7) == Some(&b'-'))
        || !(digits(b, 8, 2) && b.get(10) == Some(&b'T') && digits(b, 11, 2) && b.get(13) == Some(&b':'))
        || !(digits(b, 14, 2) && b.get(16) == Some(&b':') && digits(b, 17, 2))
    {
        return Err(BAD);
    }
    let mut i = 19;
    if b.get(i) == Some(&b'.') {
        i += 1;
        let start = i;
        while b.get(i).is_some_and(u8::is_ascii_digit) {
            i += 1;
        }
        if i == start {
            return Err(BAD);
        }
    }
    let zone = b.get(i..).unwrap_or(&[]);
    let ok = zone == b"Z"
        || (zone.len() == 6
            && matches!(zone.first(), Some(b'+' | b'-'))
            && digits(zone, 1, 2)
            && zone.get(3) == Some(&b':')
            && digits(zone, 4, 2));
    if !ok {
        return Err(BAD);
    }
    time::parse_datetime(text).map_err(|_| BAD)
}

fn check_type(t: &str) -> Result<()> {
    let ok = !t.is_empty()
        && t.len() <= MAX_TYPE
        && t.as_bytes().first().is_some_and(u8::is_ascii_lowercase)
        && t.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || matches!(b, b'.' | b'_' | b'-'));
    if ok {
        Ok(())
    } else {
        Err(Error::Schema("type must be 1-128 of a-z 0-9 . _ - starting with a letter"))
    }
}

impl Header<'_> {
    /// Checks every field; returns `created_at` as an instant.
    ///
    /// # Errors
    /// [`Error::Schema`] / [`Error::InvalidArgument`] naming the field.
    pub fn check(&self) -> Result<Timestamp> {
        parse_uuid_v4(self.id)?;
        parse_did(self.from)?;
        parse_did(self.to)?;
        check_type(self.kind)?;
        parse_rfc3339(self.created_at)
    }

    /// Writes the associated data: the RFC 8785 form of
    /// `{"created_at","from","id","to","type"}` (all values need no escaping once checked).
    ///
    /// # Errors
    /// As [`Header::check`].
    pub fn aad(&self, out: &mut [u8; MAX_AAD]) -> Result<usize> {
        self.check()?;
        let mut sink = SliceSink::new(out);
        write_fields(
            &mut sink,
            &[
                ("created_at", self.created_at),
                ("from", self.from),
                ("id", self.id),
                ("to", self.to),
                ("type", self.kind),
            ],
        )?;
        sink.finish()
    }
}

fn put(sink: &mut SliceSink<'_>, parts: &[&str]) {
    for p in parts {
        let _ = crate::sink::Sink::write(sink, p.as_bytes());
    }
}

fn write_fields(sink: &mut SliceSink<'_>, fields: &[(&str, &str)]) -> Result<()> {
    for (i, (k, v)) in fields.iter().enumerate() {
        put(sink, &[if i == 0 { "{\"" } else { ",\"" }, k, "\":\"", v, "\""]);
    }
    put(sink, &["}"]);
    Ok(())
}

/// In-place, forward base64url (unpadded) of `buf[src..src + len]` into `buf[dst..]`, for
/// `dst + ceil(len / 3) <= src`: each group of three source bytes is read before its four
/// output characters are written, and the writer never overtakes unread input.
fn b64url_in_place(buf: &mut [u8], src: usize, len: usize, dst: usize) -> Result<usize> {
    const A: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    let mut out = dst;
    let mut i = 0;
    while i < len {
        let take = (len - i).min(3);
        let mut g = [0u8; 3];
        g[..take].copy_from_slice(buf.get(src + i..src + i + take).ok_or(Error::BufferTooSmall { needed: src + len })?);
        let n = u32::from(g[0]) << 16 | u32::from(g[1]) << 8 | u32::from(g[2]);
        for k in 0..=take {
            let c = A[((n >> (18 - 6 * k)) & 63) as usize];
            *buf.get_mut(out).ok_or(Error::BufferTooSmall { needed: out + 1 })? = c;
            out += 1;
        }
        i += take;
    }
    Ok(out - dst)
}

/// Seals `body` to `recipient` and writes the signed envelope, canonical, into `out`.
///
/// `ikm_e` is fresh randomness for the HPKE ephemeral key (never reuse it); `sender` signs.
/// The body is encrypted inside `out` itself, so no other buffer is needed.
///
/// # Errors
/// As [`Header::check`]; [`Error::BufferTooSmall`] with the envelope's length when `out`
/// is shorter; [`Error::Signature`] when the recipient key is unusable.
pub fn seal(
    header: &Header<'_>,
    recipient: &X25519PublicKey,
    body: &[u8],
    ikm_e: &[u8; 32],
    sender: &KeyPair,
    out: &mut [u8],
) -> Result<usize> {
    let mut aad = [0u8; MAX_AAD];
    let aad_len = header.aad(&mut aad)?;
    let raw = ENC_LEN
        .checked_add(body.len())
        .and_then(|n| n.checked_add(TAG_LEN))
        .ok_or(Error::BufferTooSmall { needed: usize::MAX })?;
    let b64 = encoding::encoded_len(raw, false);
    let prefix = ["{\"created_at\":\"", header.created_at, "\",\"encrypted_body\":\""];
    let before_sig = ["\",\"from\":\"", header.from, "\",\"id\":\"", header.id, "\","];
    let after_sig = ["\"to\":\"", header.to, "\",\"type\":\"", header.kind, "\"}"];
    let len = |p: &[&str]| p.iter().map(|s| s.len()).sum::<usize>();
    let p = len(&prefix);
    let sig_member = 7 + SIG_B64_LEN + 2;
    let total = p + b64 + len(&before_sig) + sig_member + len(&after_sig);
    if out.len() < total {
        return Err(Error::BufferTooSmall { needed: total });
    }
    // enc || ciphertext || tag at the end of `out`, then base64url forward into place.
    let s = out.len() - raw;
    let (head, tail) = out.split_at_mut(s);
    let (enc_slot, rest) = tail.split_at_mut(ENC_LEN);
    let (ct, tag_slot) = rest.split_at_mut(body.len());
    ct.copy_from_slice(body);
    let (enc, tag) = hpke::seal_in_place(recipient, INFO, aad.get(..aad_len).unwrap_or(&[]), ikm_e, ct)?;
    enc_slot.copy_from_slice(&enc);
    tag_slot.copy_from_slice(&tag);
    let mut sink = SliceSink::new(head);
    put(&mut sink, &prefix);
    b64url_in_place(out, s, raw, p)?;
    let mut sink = SliceSink::new(out.get_mut(p + b64..).unwrap_or(&mut []));
    put(&mut sink, &before_sig);
    put(&mut sink, &after_sig);
    let pre_len = p + b64 + sink.finish()?;
    let sig = sender.sign(out.get(..pre_len).ok_or(Error::BufferTooSmall { needed: pre_len })?);
    let q = p + b64 + len(&before_sig);
    out.copy_within(q..pre_len, q + sig_member);
    let mut sig_text = [0u8; SIG_B64_LEN];
    encoding::encode_base64url_nopad(sig.as_bytes(), &mut sig_text)?;
    let mut sink = SliceSink::new(out.get_mut(q..q + sig_member).unwrap_or(&mut []));
    put(&mut sink, &["\"sig\":\"", core::str::from_utf8(&sig_text).unwrap_or(""), "\","]);
    sink.finish()?;
    Ok(total)
}

/// A parsed envelope whose shape has been checked (not yet its signature).
#[derive(Clone, Copy, Debug)]
pub struct Envelope<'a> {
    root: Value<'a>,
    /// The header fields.
    pub header: Header<'a>,
    /// `id` as 128 bits (the replay window's key is [`Envelope::replay_key`]: sender and id).
    pub id: u128,
    /// `created_at` as an instant.
    pub created: Timestamp,
    /// `encrypted_body` text.
    pub encrypted_body: &'a str,
    /// The decoded `sig`.
    pub sig: Signature,
}

fn member<'a>(root: Value<'a>, name: &'static str) -> Result<&'a str> {
    root.get(name).and_then(|v| v.as_plain_str()).ok_or(Error::Schema(name))
}

/// Parses and shape-checks an envelope from JSON bytes (the fuzz entry point);
/// [`NODES`] nodes suffice for any valid envelope.
///
/// # Errors
/// [`Error::Json`] / [`Error::Limit`] from the reader; [`Error::Schema`] naming the
/// member that is missing, unknown, not a plain string or malformed.
pub fn parse<'a>(bytes: &'a [u8], nodes: &'a mut [Node]) -> Result<Envelope<'a>> {
    let doc = json::parse(bytes, nodes)?;
    from_value(doc.root())
}

/// Shape-checks an already parsed envelope.
///
/// # Errors
/// As [`parse`].
pub fn from_value(root: Value<'_>) -> Result<Envelope<'_>> {
    if root.kind() != Kind::Object {
        return Err(Error::Schema("envelope must be an object"));
    }
    for (k, _) in root.members() {
        if !MEMBERS.iter().any(|m| k.eq_str(m)) {
            return Err(Error::Schema("unknown envelope member"));
        }
    }
    let header = Header {
        id: member(root, "id")?,
        from: member(root, "from")?,
        to: member(root, "to")?,
        kind: member(root, "type")?,
        created_at: member(root, "created_at")?,
    };
    let created = header.check()?;
    let encrypted_body = member(root, "encrypted_body")?;
    let eb = encrypted_body.as_bytes();
    if eb.len() < encoding::encoded_len(ENC_LEN + TAG_LEN, false)
        || eb.len() % 4 == 1
        || !eb.iter().all(|&c| c.is_ascii_alphanumeric() || c == b'-' || c == b'_')
    {
        return Err(Error::Schema("encrypted_body must be unpadded base64url of at least 48 bytes"));
    }
    let sig_text = member(root, "sig")?;
    if sig_text.len() != SIG_B64_LEN {
        return Err(Error::Schema("sig must be 86 characters of unpadded base64url"));
    }
    let sig = Signature::from_b64url_nopad(sig_text)?;
    Ok(Envelope { root, id: parse_uuid_v4(header.id)?, header, created, encrypted_body, sig })
}

impl Envelope<'_> {
    /// The replay window's key of this envelope: [`replay_key`](crate::aip::replay::replay_key) of its signed
    /// `from` and its `id`, so only a copy from the same sender is a duplicate.
    #[must_use]
    pub fn replay_key(&self) -> u128 {
        crate::aip::replay::replay_key(self.header.from, self.id)
    }

    /// Verifies `sig` under `key`, streaming the canonical preimage (no buffer).
    ///
    /// # Errors
    /// [`Error::Signature`].
    pub fn verify(&self, key: &PublicKey) -> Result<()> {
        let mut sink = VerifySink::new(key, &self.sig)?;
        jcs::write_with(self.root, &Without(&["sig"]), &mut sink)?;
        sink.finish()
    }

    /// Verifies the envelope against the sender's DID Document: `from` must be its `id`,
    /// and `sig` must verify under one of its Ed25519 keys.
    ///
    /// # Errors
    /// [`Error::Binding`] when `from` is another DID, [`Error::Signature`] otherwise.
    pub fn verify_from(&self, sender: &DidDocument<'_>) -> Result<()> {
        if self.header.from != sender.id {
            return Err(Error::Binding("envelope from is not the sender document's id"));
        }
        if sender.signing_keys.iter().any(|k| self.verify(k).is_ok()) {
            Ok(())
        } else {
            Err(Error::Signature)
        }
    }

    /// Checks that the envelope is addressed to `me` (the recipient's own handle): a relay
    /// that delivers an envelope meant for another agent is a routing error to report, not
    /// a message to process. (Opening would fail anyway, the body being sealed to the
    /// addressee's key and bound to `to`; this names the cause before any decryption.)
    ///
    /// # Errors
    /// [`Error::Binding`] when `to` names another agent.
    pub fn check_to(&self, me: &Handle) -> Result<()> {
        if parse_did(self.header.to)? == *me {
            Ok(())
        } else {
            Err(Error::Binding("envelope to is not this agent"))
        }
    }

    /// Length of the decoded `encrypted_body` (`out` for [`Envelope::open`] needs this many
    /// bytes; the body is 48 bytes shorter).
    #[must_use]
    pub fn sealed_len(&self) -> usize {
        let n = self.encrypted_body.len();
        n / 4 * 3 + (n % 4).saturating_sub(1)
    }

    /// Opens the body with the recipient's X25519 key into `out`; returns its length.
    /// Call [`Envelope::verify_from`] first: opening authenticates the body to the header,
    /// the signature authenticates the sender.
    ///
    /// # Errors
    /// [`Error::BufferTooSmall`] when `out` is shorter than [`Envelope::sealed_len`];
    /// [`Error::Encoding`] for bad base64url; [`Error::Signature`] when the body does not
    /// open (wrong key, tampered body or header).
    pub fn open(&self, secret: &X25519SecretKey, out: &mut [u8]) -> Result<usize> {
        let need = self.sealed_len();
        let buf = out.get_mut(..need).ok_or(Error::BufferTooSmall { needed: need })?;
        let n = encoding::decode_base64url(self.encrypted_body.as_bytes(), buf)?;
        let body_len = n.checked_sub(ENC_LEN + TAG_LEN).ok_or(Error::Schema("encrypted_body too short"))?;
        let mut aad = [0u8; MAX_AAD];
        let aad_len = self.header.aad(&mut aad)?;
        let (enc, rest) = buf.split_at_mut(ENC_LEN);
        let (ct, tag) = rest.split_at_mut(body_len);
        let enc: [u8; ENC_LEN] = (&*enc).try_into().map_err(|_| Error::Signature)?;
        let tag: [u8; TAG_LEN] = tag.get(..TAG_LEN).and_then(|t| t.try_into().ok()).ok_or(Error::Signature)?;
        hpke::open_in_place(secret, &enc, INFO, aad.get(..aad_len).unwrap_or(&[]), ct, &tag)?;
        buf.copy_within(ENC_LEN..ENC_LEN + body_len, 0);
        Ok(body_len)
    }
}
