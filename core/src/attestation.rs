//! Reputation attestations (SPEC §9.6): generated from a concluded [`Session`], signed by
//! each party, countersigned over the outcome (§9.6.5a), bound to the transcript by
//! `chain_head` and `message_count` (§9.6.5b), and scanned for raw deal terms before any
//! signature is made (§9.6.6).
//!
//! The attestation is written canonical (RFC 8785) straight into the caller's buffer, in
//! three passes over the same buffer: each party record is written and signed; the whole
//! record without signatures (the countersignature preimage) is written and countersigned;
//! then the final record is written. Nothing else is buffered.
//!
//! Field by field it is the reference SDK's `generate_attestation`, at version 0.5.0 with
//! the `validity_temporal` window that version requires; `concession_magnitude` is rounded
//! to 4 decimals and `response_time_avg_seconds` to 2 exactly as Python's `round` does.

use heapless::Vec;

use crate::error::{Error, Result};
use crate::jcs::{write_number, write_plain_str};
use crate::json::{Kind, Value};
use crate::preimage::{Countersign, WithoutSignature};
use crate::record::{bare_signature, lookup, member, object, public_key, signature, verify_preimage};
use crate::session::{Behavior, Party, Session, State};
use crate::sign::{KeyPair, Signature};
use crate::sink::{Sink, SliceSink};
use crate::time::Timestamp;

/// The attestation version written by [`generate`].
pub const ATTESTATION_VERSION: &str = "0.5.0";

/// The logarithmic value bands allowed in `meta.value_range` (`<band>_<CUR>`).
pub const VALUE_RANGE_BUCKETS: [&str; 10] = [
    "0-100",
    "100-500",
    "500-1000",
    "1000-5000",
    "5000-10000",
    "10000-50000",
    "50000-100000",
    "100000-500000",
    "500000-1000000",
    "1000000+",
];

/// Maximum length of `meta.category`.
pub const MAX_CATEGORY_LENGTH: usize = 64;

/// The `validity_temporal` window (§9.7.3), in one of its three modes.
#[non_exhaustive]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Validity {
    /// Valid from `from` until `until`.
    Absolute {
        /// Start.
        from: Timestamp,
        /// End.
        until: Timestamp,
    },
    /// Valid for `duration_seconds` after `from`.
    Relative {
        /// Anchor.
        from: Timestamp,
        /// Length (at least 1).
        duration_seconds: u32,
    },
    /// Valid during any `duration_seconds` window within `[start, end]`.
    Window {
        /// Earliest start.
        start: Timestamp,
        /// Latest end.
        end: Timestamp,
        /// Window length (at least 1).
        duration_seconds: u32,
    },
}

/// What the caller supplies besides the session: identity, time and context.
#[derive(Clone, Copy, Debug)]
pub struct Params<'a> {
    /// `attestation_id` (the core has no randomness; e.g. `att_<8 hex>`).
    pub attestation_id: &'a str,
    /// `timestamp`: issuance time.
    pub now: Timestamp,
    /// `validity_temporal`: required at version 0.5.0.
    pub validity: Validity,
    /// `meta.category`: dotted lowercase taxonomy path, e.g. `electronics.cameras`.
    pub category: Option<&'a str>,
    /// `meta.value_range`: e.g. `1000-5000_USD`.
    pub value_range: Option<&'a str>,
    /// `outcome.resolution_mechanism`: `direct`, `split`, `foa`, `tradeoff`, `escalation` or `none`.
    pub resolution_mechanism: &'a str,
}

mod extras;

pub use extras::{
    check_references, validity_from_json, MAX_REFERENCES, MAX_REFERENCE_EXTENSIONS_BYTES,
    MAX_REFERENCE_EXTENSIONS_DEPTH, MAX_REFERENCE_EXTENSIONS_NODES, MAX_REFERENCE_ID_LENGTH,
    MAX_REFERENCE_OPTIONAL_STRING_LENGTH, MAX_REFERENCE_RELATIONSHIP_LENGTH, MAX_REFERENCE_TYPE_LENGTH,
};

/// Members a caller supplies as JSON (for hosts whose callers hold them as data, as the
/// reference SDK's do), checked and normalized with the SDK's rules.
#[derive(Clone, Copy, Debug, Default)]
pub struct Extras<'a> {
    /// `references` (SPEC §11.5), see [`check_references`]; absent or falsy: `[]`.
    pub references: Option<Value<'a>>,
    /// `validity_temporal` as the caller wrote it, see [`validity_from_json`]: it replaces
    /// [`Params::validity`], and the record keeps the caller's timestamp texts.
    pub validity_temporal: Option<Value<'a>>,
}

/// Finds the signing key of a party.
pub trait Signer {
    /// The key pair of `agent_id`, if this caller holds it.
    fn key_pair(&self, agent_id: &str) -> Option<&KeyPair>;
}

impl Signer for [(&str, KeyPair)] {
    fn key_pair(&self, agent_id: &str) -> Option<&KeyPair> {
        self.iter().find(|(id, _)| *id == agent_id).map(|(_, k)| k)
    }
}

impl<const N: usize> Signer for [(&str, KeyPair); N] {
    fn key_pair(&self, agent_id: &str) -> Option<&KeyPair> {
        self.as_slice().key_pair(agent_id)
    }
}

/// Generates the signed, countersigned attestation of a concluded session into `out`.
///
/// Parties whose key `signer` does not hold get `"signature": ""` and no countersignature,
/// as in the reference SDK.
///
/// # Errors
/// [`Error::Transition`] (`"attestation needs a concluded session"`) when the session is
/// not AGREED, REJECTED or EXPIRED; [`Error::Schema`] (`"terms has no length"`) when the
/// session was opened with `terms` that have no length (the SDK's `len()` fails);
/// [`Error::InvalidArgument`] for an empty transcript, a malformed category, value range,
/// resolution mechanism or validity window (`until` not after `from`, a window shorter
/// than its duration); [`Error::Privacy`] when a string would carry raw deal terms;
/// [`Error::BufferTooSmall`] with the needed length.
pub fn generate<const P: usize, const T: usize, S: Signer + ?Sized>(
    session: &Session<P, T>,
    params: &Params<'_>,
    signer: &S,
    out: &mut [u8],
) -> Result<usize> {
    generate_with(session, params, &Extras::default(), signer, out)
}

/// [`generate`], with `references` and a `validity_temporal` given as JSON ([`Extras`]).
///
/// # Errors
/// As [`generate`]; [`Error::InvalidArgument`] for references or a validity window the
/// SDK refuses.
pub fn generate_with<const P: usize, const T: usize, S: Signer + ?Sized>(
    session: &Session<P, T>,
    params: &Params<'_>,
    extras: &Extras<'_>,
    signer: &S,
    out: &mut [u8],
) -> Result<usize> {
    if !session.state().is_terminal() {
        return Err(Error::Transition(crate::error::detail::NOT_CONCLUDED));
    }
    if session.terms_unsized() {
        return Err(Error::Schema(crate::error::detail::TERMS_UNSIZED));
    }
    if session.message_count() == 0 {
        return Err(Error::InvalidArgument("empty transcript"));
    }
    check_params(params)?;
    check_references(extras.references)?;
    if let Some(vt) = extras.validity_temporal {
        validity_from_json(vt)?;
    }
    // §9.6.6: no string the record carries may hold raw deal terms. Every other string in
    // the record is fixed text, a digest, a timestamp, or derived from these.
    let texts = [Some(params.attestation_id), Some(session.id()), params.category, params.value_range];
    let ids = session.parties().iter().map(|p| Some(p.agent_id()));
    if texts.into_iter().chain(ids).flatten().any(crate::privacy::matches_raw_term_str) {
        return Err(Error::Privacy("raw deal terms in an attestation field"));
    }
    let doc = Doc { session, params, extras };

    // The final record is the longest of the three passes; every signature has the same
    // length, so placeholders size it exactly.
    let placeholder = Signature::from_array([0; 64]);
    let mut holes: Vec<Option<Signature>, P> = Vec::new();
    for party in session.parties() {
        let _ = holes.push(signer.key_pair(party.agent_id()).map(|_| placeholder));
    }
    let mut count = crate::sink::CountSink::default();
    doc.write(&Signatures::Final { parties: &holes, counter: &holes }, &mut count)?;
    if out.len() < count.0 {
        return Err(Error::BufferTooSmall { needed: count.0 });
    }

    // Pass 1: each party signs its own record (without `signature`).
    let mut sigs: Vec<Option<Signature>, P> = Vec::new();
    for party in session.parties() {
        let sig = match signer.key_pair(party.agent_id()) {
            Some(kp) => {
                let n = fill(out, |s| write_party(party, None, s))?;
                Some(kp.sign(out.get(..n).ok_or(Error::BufferTooSmall { needed: n })?))
            }
            None => None,
        };
        sigs.push(sig).map_err(|_| Error::InvalidArgument("parties"))?;
    }
    // Pass 2: countersignatures over the record with every signature stripped and no
    // countersignature map.
    let n = fill(out, |s| doc.write(&Signatures::Stripped, s))?;
    let stripped = out.get(..n).ok_or(Error::BufferTooSmall { needed: n })?;
    let mut counter: Vec<Option<Signature>, P> = Vec::new();
    for party in session.parties() {
        let c = signer.key_pair(party.agent_id()).map(|kp| kp.sign(stripped));
        counter.push(c).map_err(|_| Error::InvalidArgument("parties"))?;
    }
    // Pass 3: the attestation.
    fill(out, |s| doc.write(&Signatures::Final { parties: &sigs, counter: &counter }, s))
}

fn fill(out: &mut [u8], f: impl FnOnce(&mut SliceSink<'_>) -> Result<()>) -> Result<usize> {
    let mut sink = SliceSink::new(out);
    f(&mut sink)?;
    sink.finish()
}

fn check_params(p: &Params<'_>) -> Result<()> {
    if let Some(c) = p.category {
        let ok = !c.is_empty()
            && c.len() <= MAX_CATEGORY_LENGTH
            && c.split('.').all(|seg| {
                !seg.is_empty()
                    && seg.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_' || b == b'-')
            });
        if !ok {
            return Err(Error::InvalidArgument("category must be a dotted lowercase path of at most 64 characters"));
        }
    }
    if let Some(v) = p.value_range {
        let ok = v.rsplit_once('_').is_some_and(|(band, cur)| {
            VALUE_RANGE_BUCKETS.contains(&band) && cur.len() == 3 && cur.bytes().all(|b| b.is_ascii_uppercase())
        });
        if !ok {
            return Err(Error::InvalidArgument("value_range must be <band>_<CUR>"));
        }
    }
    if !["direct", "split", "foa", "tradeoff", "escalation", "none"].contains(&p.resolution_mechanism) {
        return Err(Error::InvalidArgument("resolution_mechanism"));
    }
    extras::check_validity(&p.validity)
}

enum Signatures<'s> {
    /// The countersignature preimage: party signatures and the countersignature map left out.
    Stripped,
    /// The issued record.
    Final { parties: &'s [Option<Signature>], counter: &'s [Option<Signature>] },
}

struct Doc<'s, const P: usize, const T: usize> {
    session: &'s Session<P, T>,
    params: &'s Params<'s>,
    extras: &'s Extras<'s>,
}

fn write_str_member<S: Sink + ?Sized>(first: bool, name: &str, value: &str, s: &mut S) -> Result<()> {
    s.write(if first { b"{\"" } else { b",\"" })?;
    s.write(name.as_bytes())?;
    s.write(b"\":")?;
    write_plain_str(value, s)
}

fn write_key<S: Sink + ?Sized>(name: &str, s: &mut S) -> Result<()> {
    s.write(b",\"")?;
    s.write(name.as_bytes())?;
    s.write(b"\":")
}

fn write_ts<S: Sink + ?Sized>(t: Timestamp, s: &mut S) -> Result<()> {
    let mut buf = [0u8; 32];
    let text = t.format_rfc3339(&mut buf)?;
    write_plain_str(text, s)
}

fn write_sig<S: Sink + ?Sized>(sig: Option<&Signature>, s: &mut S) -> Result<()> {
    match sig {
        Some(sig) => write_plain_str(sig.to_b64url().as_str(), s),
        None => s.write(b"\"\""),
    }
}

/// `{"agent_id","behavior","role"[,"signature"]}` in canonical order.
fn write_party<const T: usize, S: Sink + ?Sized>(
    p: &Party<T>,
    sig: Option<Option<&Signature>>,
    s: &mut S,
) -> Result<()> {
    write_str_member(true, "agent_id", p.agent_id(), s)?;
    write_key("behavior", s)?;
    write_behavior(p.behavior(), s)?;
    write_key("role", s)?;
    write_plain_str(p.role().as_str(), s)?;
    if let Some(sig) = sig {
        write_key("signature", s)?;
        write_sig(sig, s)?;
    }
    s.write(b"}")
}

/// Writes a behaviour summary as the attestation's `behavior` object (canonical JSON, the
/// reference SDK's `BehaviorRecord.to_dict()` with its rounding).
///
/// # Errors
/// Only the sink's own errors.
pub fn write_behavior<const T: usize, S: Sink + ?Sized>(b: &Behavior<T>, s: &mut S) -> Result<()> {
    // The schema bounds concession_magnitude to [0, 1]; the SDK's mean can exceed 1 when a
    // term moves by more than its previous value.
    let magnitude = round_half_even(b.concession_magnitude, 4).min(1.0);
    s.write(b"{\"concession_magnitude\":")?;
    write_number(magnitude, s)?;
    s.write(b",\"concessions\":")?;
    write_number(f64::from(b.concessions), s)?;
    s.write(b",\"constraints_declared\":")?;
    write_number(f64::from(b.constraints_declared), s)?;
    s.write(b",\"constraints_violated\":")?;
    write_number(f64::from(b.constraints_violated), s)?;
    s.write(b",\"offers_made\":")?;
    write_number(f64::from(b.offers_made), s)?;
    s.write(if b.reasoning_provided { b",\"reasoning_provided\":true" } else { b",\"reasoning_provided\":false" })?;
    s.write(b",\"response_time_avg_seconds\":")?;
    write_number(round_half_even(b.response_time_avg_seconds, 2), s)?;
    s.write(b",\"signals_shared\":")?;
    write_number(f64::from(b.signals_shared), s)?;
    s.write(if b.withdrawal { b",\"withdrawal\":true}" } else { b",\"withdrawal\":false}" })
}

impl<const P: usize, const T: usize> Doc<'_, P, T> {
    fn write<S: Sink + ?Sized>(&self, sigs: &Signatures<'_>, s: &mut S) -> Result<()> {
        let (session, params) = (self.session, self.params);
        write_str_member(true, "attestation_id", params.attestation_id, s)?;
        write_key("chain_head", s)?;
        write_plain_str(session.tip().to_prefixed().as_str(), s)?;
        write_key("concordia_attestation", s)?;
        write_plain_str(ATTESTATION_VERSION, s)?;
        if let Signatures::Final { counter, .. } = sigs {
            write_key("countersignatures", s)?;
            s.write(b"{")?;
            // Members sorted by agent id (UTF-16 order), as canonical JSON requires.
            let mut written = 0;
            let mut last: Option<&str> = None;
            while let Some((i, p)) = session
                .parties()
                .iter()
                .enumerate()
                .filter(|(i, p)| {
                    counter.get(*i).is_some_and(Option::is_some) && last.is_none_or(|l| utf16_lt(l, p.agent_id()))
                })
                .min_by(|a, b| utf16_cmp(a.1.agent_id(), b.1.agent_id()))
            {
                if written > 0 {
                    s.write(b",")?;
                }
                write_plain_str(p.agent_id(), s)?;
                s.write(b":")?;
                write_sig(counter.get(i).and_then(Option::as_ref), s)?;
                written += 1;
                last = Some(p.agent_id());
            }
            s.write(b"}")?;
        }
        write_key("fulfillment", s)?;
        s.write(b"null")?;
        write_key("message_count", s)?;
        write_number(session.message_count() as f64, s)?;
        write_key("meta", s)?;
        s.write(b"{")?;
        if let Some(c) = params.category {
            s.write(b"\"category\":")?;
            write_plain_str(c, s)?;
            s.write(b",")?;
        }
        s.write(b"\"extensions_used\":[],\"mediator_invoked\":false")?;
        if let Some(v) = params.value_range {
            s.write(b",\"value_range\":")?;
            write_plain_str(v, s)?;
        }
        s.write(b"}")?;
        write_key("outcome", s)?;
        s.write(b"{\"duration_seconds\":")?;
        write_number(session.duration_seconds(params.now) as f64, s)?;
        s.write(b",\"resolution_mechanism\":")?;
        write_plain_str(params.resolution_mechanism, s)?;
        s.write(b",\"rounds\":")?;
        write_number(f64::from(session.round_count()), s)?;
        s.write(b",\"status\":")?;
        write_plain_str(outcome_status(session.state()), s)?;
        if session.terms_count() > 0 {
            s.write(b",\"terms_count\":")?;
            write_number(f64::from(session.terms_count()), s)?;
        }
        s.write(b"}")?;
        write_key("parties", s)?;
        s.write(b"[")?;
        for (i, p) in session.parties().iter().enumerate() {
            if i > 0 {
                s.write(b",")?;
            }
            let sig = match sigs {
                Signatures::Stripped => None,
                Signatures::Final { parties, .. } => Some(parties.get(i).and_then(Option::as_ref)),
            };
            write_party(p, sig, s)?;
        }
        s.write(b"]")?;
        write_key("references", s)?;
        extras::write_references(self.extras.references, s)?;
        write_key("session_id", s)?;
        write_plain_str(session.id(), s)?;
        write_key("summary", s)?;
        self.write_summary(s)?;
        write_key("timestamp", s)?;
        write_ts(params.now, s)?;
        write_key("transcript_hash", s)?;
        write_plain_str(session.transcript_hash().to_prefixed().as_str(), s)?;
        write_key("validity_temporal", s)?;
        match self.extras.validity_temporal {
            Some(vt) => extras::write_validity_json(vt, s)?,
            None => write_validity(&params.validity, s)?,
        }
        s.write(b"}")
    }

    /// The SDK's four-line `generate_receipt_summary`.
    fn write_summary<S: Sink + ?Sized>(&self, s: &mut S) -> Result<()> {
        let mut buf = [0u8; 256];
        let mut w = SliceSink::new(&mut buf);
        let ids = self.session.parties();
        w.write(b"Parties: ")?;
        write_short(ids.first().map_or("", |p| p.agent_id()), &mut w)?;
        w.write(b", ")?;
        write_short(ids.get(1).map_or("", |p| p.agent_id()), &mut w)?;
        w.write(b"\nTopic: ")?;
        w.write(self.params.category.unwrap_or("N/A").as_bytes())?;
        w.write(b"\nOutcome: ")?;
        let status = outcome_status(self.session.state());
        let mut upper = [0u8; 16];
        let n = status.len().min(16);
        for (d, c) in upper.iter_mut().zip(status.bytes()) {
            *d = c.to_ascii_uppercase();
        }
        w.write(upper.get(..n).unwrap_or(&[]))?;
        w.write(b"\nTranscript hash: ")?;
        w.write(self.session.transcript_hash().to_hex().as_bytes().get(..16).unwrap_or(&[]))?;
        let n = w.finish()?;
        let text = core::str::from_utf8(buf.get(..n).unwrap_or(&[])).map_err(|_| Error::InvalidArgument("summary"))?;
        write_plain_str(text, s)
    }
}

/// `did` if at most 16 characters, else `...` and its last 12 characters.
fn write_short<S: Sink + ?Sized>(id: &str, s: &mut S) -> Result<()> {
    if id.is_empty() {
        return s.write(b"unknown");
    }
    let chars = id.chars().count();
    if chars <= 16 {
        return s.write(id.as_bytes());
    }
    let start = id.char_indices().nth(chars - 12).map_or(0, |(i, _)| i);
    s.write(b"...")?;
    s.write(id.get(start..).unwrap_or("").as_bytes())
}

fn write_validity<S: Sink + ?Sized>(v: &Validity, s: &mut S) -> Result<()> {
    match *v {
        Validity::Absolute { from, until } => {
            s.write(b"{\"from\":")?;
            write_ts(from, s)?;
            s.write(b",\"mode\":\"absolute\",\"until\":")?;
            write_ts(until, s)?;
        }
        Validity::Relative { from, duration_seconds } => {
            s.write(b"{\"duration_seconds\":")?;
            write_number(f64::from(duration_seconds), s)?;
            s.write(b",\"from\":")?;
            write_ts(from, s)?;
            s.write(b",\"mode\":\"relative\"")?;
        }
        Validity::Window { start, end, duration_seconds } => {
            s.write(b"{\"duration_seconds\":")?;
            write_number(f64::from(duration_seconds), s)?;
            s.write(b",\"end\":")?;
            write_ts(end, s)?;
            s.write(b",\"mode\":\"window\",\"start\":")?;
            write_ts(start, s)?;
        }
    }
    s.write(b"}")
}

const fn outcome_status(state: State) -> &'static str {
    match state {
        State::Agreed => "agreed",
        State::Expired => "expired",
        _ => "rejected",
    }
}

fn utf16_cmp(a: &str, b: &str) -> core::cmp::Ordering {
    crate::json::cmp_utf8_as_utf16(a.as_bytes(), b.as_bytes())
}

fn utf16_lt(a: &str, b: &str) -> bool {
    utf16_cmp(a, b).is_lt()
}

/// Python's `round(x, digits)` for a double: the exact binary value rounded half-to-even at
/// `digits` decimals, then the nearest double. Exact for |x| < 2^53 / 10^digits.
#[must_use]
pub fn round_half_even(x: f64, digits: u32) -> f64 {
    if !x.is_finite() || x == 0.0 {
        return x;
    }
    let bits = x.to_bits();
    let exp = ((bits >> 52) & 0x7ff) as i32;
    let frac = bits & ((1 << 52) - 1);
    let (mant, e) = if exp == 0 { (frac, -1074) } else { (frac | (1 << 52), exp - 1075) };
    if e >= 0 {
        return x; // an integer already
    }
    let scale = 10u128.pow(digits.min(30));
    let scaled = u128::from(mant) * scale;
    let shift = (-e) as u32;
    let q = if shift >= 128 {
        0
    } else {
        let q = scaled >> shift;
        let rem = scaled - (q << shift);
        let half = 1u128 << (shift - 1);
        if rem > half || (rem == half && q & 1 == 1) {
            q + 1
        } else {
            q
        }
    };
    if q >= (1 << 53) {
        return x;
    }
    let r = q as f64 / scale as f64;
    if x < 0.0 {
        -r
    } else {
        r
    }
}

/// What [`verify`] established.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Verified {
    /// Parties whose signature verified.
    pub parties: usize,
    /// Countersignatures that verified.
    pub countersignatures: usize,
    /// How the record binds a transcript (§9.6.5b).
    pub binding: SetBinding,
}

/// The receipt set-binding state of §9.6.5b.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SetBinding {
    /// Version 0.3.0 or later, and the transcript given matches `chain_head` and
    /// `message_count`.
    Bound,
    /// Version 0.3.0 or later, but no transcript was given to check against.
    Unchecked,
    /// Below 0.3.0: `chain_head` and `message_count` are not credited as bound.
    LegacyUnbound,
}

/// The set-binding fields of an attestation or receipt of version 0.3.0 or later (SPEC
/// §9.6.5b): `message_count` and `chain_head`, read once with the SDK's rules
/// (`attestation.evaluate_receipt_set_binding`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SetBindingFields {
    /// `message_count`: an integer literal, at least 1.
    pub message_count: u64,
    /// `chain_head`: `sha256:` and 64 lowercase hex digits.
    pub chain_head: crate::digest::Digest,
}

impl SetBindingFields {
    /// Checks the fields against a transcript of `count` messages whose last message
    /// hashes to `last`: the set-binding rule, written once for attestations and receipts.
    ///
    /// # Errors
    /// [`Error::Binding`] (`"message_count"`: another count, or an empty transcript;
    /// `"chain_head"`: another head).
    pub fn check(&self, count: u64, last: &crate::digest::Digest) -> Result<()> {
        if count == 0 || count != self.message_count {
            return Err(Error::Binding("message_count"));
        }
        if self.chain_head != *last {
            return Err(Error::Binding("chain_head"));
        }
        Ok(())
    }
}

/// Reads the set-binding fields: `None` below version 0.3.0 (legacy, reported as unbound,
/// never an error, as the SDK does); otherwise the fields, well-formed.
///
/// # Errors
/// [`Error::Schema`] (`"chain_head"`, `"message_count"`) for missing or malformed fields of
/// a 0.3.0-or-later record.
pub fn set_binding_fields(record: Value<'_>) -> Result<Option<SetBindingFields>> {
    if !crate::record::version_at_least(record.get("concordia_attestation"), 0, 3) {
        return Ok(None);
    }
    let head = record.get("chain_head").and_then(|h| h.as_plain_str()).ok_or(Error::Schema("chain_head"))?;
    let chain_head = crate::digest::Digest::parse_prefixed(head).map_err(|_| Error::Schema("chain_head"))?;
    let count = record.get("message_count").filter(|c| c.is_integer_literal()).and_then(|c| c.as_i64());
    let message_count =
        count.and_then(|c| u64::try_from(c).ok()).filter(|&c| c >= 1).ok_or(Error::Schema("message_count"))?;
    Ok(Some(SetBindingFields { message_count, chain_head }))
}

/// Verifies an attestation: its schema, every party signature (each party object without
/// its `signature`), every countersignature over the countersignature preimage (every
/// party that signed must have countersigned), and, given the transcript, that the
/// transcript verifies as a chain under the same keys and that `message_count` and
/// `chain_head` bind it.
///
/// `keys` is a JSON object mapping `agent_id` to a base64url Ed25519 public key.
///
/// # Errors
/// [`Error::Schema`], [`Error::UnknownKey`], [`Error::Signature`], or
/// [`Error::Binding`] (`"message_count"`, `"chain_head"`, or a transcript link).
pub fn verify(attestation: Value<'_>, keys: Value<'_>, transcript: Option<Value<'_>>) -> Result<Verified> {
    crate::schema::validate(crate::schema::SchemaId::Attestation, attestation)?;
    let parties = verify_party_signatures(attestation, keys)?;
    let counter = attestation.get("countersignatures");
    let mut countersignatures = 0;
    if let Some(map) = counter.filter(|c| c.kind() == Kind::Object) {
        for (agent, sig) in map.sorted_members() {
            let key = lookup(keys, agent).ok_or(Error::UnknownKey)?;
            let key = crate::message::public_key_from_value(key)?;
            let sig = crate::message::signature_from_value(sig)?;
            verify_preimage(attestation, &crate::preimage::Countersign, &key, &sig)?;
            countersignatures += 1;
        }
    }
    for party in attestation.get("parties").map(|p| p.elements()).into_iter().flatten() {
        let signed = party.get("signature").and_then(|s| s.as_str()).is_some_and(|s| !s.raw().is_empty());
        let agent = party.get("agent_id").and_then(|a| a.as_str());
        let countersigned = agent.is_some_and(|a| counter.and_then(|c| lookup(c, a)).is_some());
        if signed && !countersigned {
            return Err(Error::Signature);
        }
    }
    let binding = match set_binding_fields(attestation)? {
        None => SetBinding::LegacyUnbound,
        Some(fields) => match transcript {
            Some(messages) => {
                let chain =
                    crate::message::verify_transcript(messages, &crate::message::KeyMap(keys)).map_err(|(_, e)| e)?;
                fields.check(chain.count(), &chain.head())?;
                SetBinding::Bound
            }
            None => SetBinding::Unchecked,
        },
    };
    Ok(Verified { parties, countersignatures, binding })
}

/// Verifies every `parties[]` signature of an Attestation: each party object, without its
/// own `signature`, signed by the key `keys[agent_id]`. Returns the number of parties.
///
/// # Errors
/// [`Error::Schema`] for a malformed party, [`Error::UnknownKey`] when a party has no key,
/// [`Error::Signature`] when a signature does not verify.
pub fn verify_party_signatures(input: Value<'_>, keys: Value<'_>) -> Result<usize> {
    if keys.kind() != Kind::Object {
        return Err(Error::UnknownKey);
    }
    let parties = member(input, "parties").filter(|p| p.kind() == Kind::Array).ok_or(Error::Schema("parties"))?;
    for party in parties.elements() {
        let party = object(Some(party), "party must be an object")?;
        let agent = party.get("agent_id").and_then(|a| a.as_str()).filter(|a| !a.raw().is_empty());
        let agent = agent.ok_or(Error::Schema("party agent_id"))?;
        let key = lookup(keys, agent);
        let key = public_key(key.filter(|k| k.kind() == Kind::String))?;
        verify_preimage(party, &WithoutSignature, &key, &bare_signature(party)?)?;
    }
    Ok(parties.len())
}

/// Verifies the countersignatures of an Attestation: for each agent id in the array
/// `countersigners`, `countersignatures[agent_id]` must verify under `keys[agent_id]` over
/// `CosignJCS(input without countersignatures)`.
///
/// # Errors
/// [`Error::Schema`] for malformed inputs (including an empty `countersigners`),
/// [`Error::UnknownKey`] for a missing key, [`Error::Signature`] for a missing or bad
/// countersignature.
pub fn verify_countersignatures(input: Value<'_>, keys: Value<'_>, countersigners: Value<'_>) -> Result<()> {
    if keys.kind() != Kind::Object {
        return Err(Error::UnknownKey);
    }
    if countersigners.kind() != Kind::Array || countersigners.is_empty() {
        return Err(Error::Schema("countersigners"));
    }
    let sigs = member(input, "countersignatures").filter(|c| c.kind() == Kind::Object);
    let sigs = sigs.ok_or(Error::Signature)?;
    for signer in countersigners.elements() {
        let signer = signer.as_str().ok_or(Error::Schema("countersigner"))?;
        let sig = lookup(sigs, signer).filter(|s| s.kind() == Kind::String).ok_or(Error::Signature)?;
        let key = lookup(keys, signer).filter(|k| k.kind() == Kind::String).ok_or(Error::UnknownKey)?;
        verify_preimage(input, &Countersign, &public_key(Some(key))?, &signature(Some(sig))?)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests;
