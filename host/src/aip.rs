//! AIP key files: the JSON object `concordia aip keygen` writes and `aip seal`, `aip open`
//! and `aip vc issue` read, for every host that reads or writes one (the CLI, Python).
//!
//! ```text
//! {"did":"did:aip:example.com:alice",          (optional)
//!  "did_key":"did:key:z6Mk...",
//!  "ed25519_public_multibase":"z6Mk...",
//!  "ed25519_seed_hex":"<64 hex>",
//!  "x25519_public_multibase":"z6LS...",
//!  "x25519_secret_hex":"<64 hex>"}
//! ```
//!
//! Reading takes the Ed25519 seed from `ed25519_seed_hex` (or `private_key_hex`, the
//! `concordia keygen` file), the X25519 secret from `x25519_secret_hex` when present and
//! the `did` when present; the public members are derived, never trusted. Writing gives
//! the members in RFC 8785 order, as above.
//!
//! ```
//! use concordia_host::aip::KeyFile;
//!
//! let kf = KeyFile::from_seed(&[7u8; 32], Some("did:aip:example.com:alice".into())).unwrap();
//! let text = kf.to_json().unwrap();
//! let back = KeyFile::from_json(&text).unwrap();
//! assert_eq!(back.to_json().unwrap(), text);
//! ```

use concordia_core::aip::did;
use concordia_core::aip::envelope::{self, Header};
use concordia_core::aip::handle::Handle;
use concordia_core::aip::hpke::{self, X25519SecretKey};
use concordia_core::aip::replay::{self, Verdict};
use concordia_core::json::Value;
use concordia_core::sign::KeyPair;
use concordia_core::time::Timestamp;
use concordia_core::{did_key, digest, encoding, jcs, Error, Result};

use zeroize::Zeroizing;

use crate::{Nodes, VecRefSink};

/// `Schema`: a key file without `ed25519_seed_hex` (nor `private_key_hex`).
pub const NO_SEED: &str = "key file has no ed25519_seed_hex (write key files with `concordia aip keygen`)";
/// `Encoding`: a seed or secret that is not 64 hex digits.
pub const BAD_HEX: &str = "key file seeds must be 64 hex digits (32 bytes)";
/// `Schema`: a key file member that is present but not a string.
pub const NOT_STRING: &str = "key file members must be strings";
/// `Schema`: a key file that is not a JSON object.
pub const NOT_OBJECT: &str = "key file must be a JSON object";
/// `Schema`: writing a key file needs the X25519 secret.
pub const NO_X25519: &str = "key file has no x25519_secret_hex";

/// The label `aip keygen --seed` hashes with the seed to make the X25519 key material.
pub const SEED_LABEL: &[u8] = b"concordia aip keygen x25519";

/// An AIP agent's keys as a key file holds them.
#[derive(Clone)]
pub struct KeyFile {
    /// `did`: the agent's `did:aip`, when the file names one.
    pub did: Option<String>,
    /// The Ed25519 key pair (envelope and credential signatures).
    pub ed: KeyPair,
    /// The X25519 secret key (opens sealed bodies), when the file holds one.
    pub x: Option<X25519SecretKey>,
}

impl core::fmt::Debug for KeyFile {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        // Public halves only.
        f.debug_struct("KeyFile")
            .field("did", &self.did)
            .field("ed25519", &self.ed.public_key())
            .field("x25519", &self.x.as_ref().map(X25519SecretKey::public_key))
            .finish()
    }
}

/// 32 bytes from 64 hex digits (surrounding whitespace ignored).
///
/// # Errors
/// [`Error::Encoding`]`(`[`BAD_HEX`]`)` otherwise.
pub fn seed_from_hex(text: &str) -> Result<Zeroizing<[u8; 32]>> {
    let mut seed = Zeroizing::new([0u8; 32]);
    match encoding::decode_hex(text.trim().as_bytes(), &mut *seed) {
        Ok(32) => Ok(seed),
        _ => Err(Error::Encoding(BAD_HEX)),
    }
}

/// The lowercase hex of a secret, in a buffer erased when dropped.
fn hex(bytes: &[u8]) -> Result<Zeroizing<Vec<u8>>> {
    let mut out = Zeroizing::new(crate::try_filled(bytes.len() * 2, 0u8)?);
    let n = encoding::encode_hex(bytes, &mut out)?;
    out.truncate(n);
    Ok(out)
}

impl KeyFile {
    /// The keys `concordia aip keygen --seed HEX` makes: the Ed25519 key pair of `seed`,
    /// and the X25519 key pair RFC 9180 `DeriveKeyPair` makes of SHA-256 of
    /// [`SEED_LABEL`] and `seed` (for tests and examples; real keys come from OS
    /// randomness, see [`KeyFile::from_random`]).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for a `did` that is not a `did:aip`.
    pub fn from_seed(seed: &[u8; 32], did: Option<String>) -> Result<KeyFile> {
        let mut labelled = Zeroizing::new(SEED_LABEL.to_vec());
        labelled.extend_from_slice(seed);
        let ikm = Zeroizing::new(digest::sha256(&labelled).0);
        KeyFile::from_random(seed, &ikm, did)
    }

    /// The keys of 32 random bytes for the Ed25519 seed and 32 more for the X25519 key
    /// material (RFC 9180 `DeriveKeyPair`), as `concordia aip keygen` makes them.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for a `did` that is not a `did:aip`.
    pub fn from_random(ed25519_seed: &[u8; 32], x25519_ikm: &[u8; 32], did: Option<String>) -> Result<KeyFile> {
        if let Some(d) = &did {
            did::parse_did(d)?;
        }
        let (x, _) = hpke::derive_keypair(x25519_ikm);
        Ok(KeyFile { did, ed: KeyPair::from_seed(ed25519_seed), x: Some(x) })
    }

    /// Reads a parsed key file.
    ///
    /// # Errors
    /// [`Error::Schema`] ([`NOT_OBJECT`], [`NO_SEED`], [`NOT_STRING`]),
    /// [`Error::Encoding`]`(`[`BAD_HEX`]`)`.
    pub fn from_value(root: Value<'_>) -> Result<KeyFile> {
        if root.kind() != concordia_core::json::Kind::Object {
            return Err(Error::Schema(NOT_OBJECT));
        }
        let text = |k: &str| -> Result<Option<&str>> {
            match root.get(k) {
                None => Ok(None),
                Some(v) => v.as_plain_str().map(Some).ok_or(Error::Schema(NOT_STRING)),
            }
        };
        let seed = match text("ed25519_seed_hex")? {
            Some(s) => s,
            None => text("private_key_hex")?.ok_or(Error::Schema(NO_SEED))?,
        };
        let x = text("x25519_secret_hex")?.map(seed_from_hex).transpose()?.map(|b| X25519SecretKey(*b));
        Ok(KeyFile { did: text("did")?.map(str::to_owned), ed: KeyPair::from_seed(&*seed_from_hex(seed)?), x })
    }

    /// Reads a key file's JSON text (the one parsing policy). The text holds the secrets
    /// in hex: keep it in a [`Zeroizing`] buffer, read at its size (as the CLI does), so
    /// that it is erased when dropped and no growth leaves a copy behind.
    ///
    /// # Errors
    /// A JSON error, or those of [`KeyFile::from_value`].
    pub fn from_json(text: &[u8]) -> Result<KeyFile> {
        let mut nodes = Nodes::new();
        let doc = nodes.parse(text)?;
        KeyFile::from_value(doc.root())
    }

    /// The key file's JSON text, as `concordia aip keygen` prints it (without the final
    /// newline): RFC 8785 member order, the public members derived from the secrets. The
    /// text holds the secrets: it is erased when dropped (it dereferences to `Vec<u8>`), and
    /// it is written into a buffer reserved once, so no reallocation leaves a copy behind.
    ///
    /// # Errors
    /// [`Error::Schema`]`(`[`NO_X25519`]`)` without an X25519 secret.
    pub fn to_json(&self) -> Result<Zeroizing<Vec<u8>>> {
        let x = self.x.as_ref().ok_or(Error::Schema(NO_X25519))?;
        let pk = self.ed.public_key();
        let ed_mb = did::encode_multikey(pk.as_bytes(), did_key::ED25519_MULTICODEC);
        let x_mb = did::encode_multikey(&x.public_key().0, did::X25519_MULTICODEC);
        // The members are at most about 390 bytes; a `did` at most six times its length
        // escaped: never more than this capacity, so `out` is never reallocated.
        let cap = 512 + self.did.as_ref().map_or(0, |d| 6 * d.len() + 8);
        let mut out = Zeroizing::new(Vec::new());
        out.try_reserve_exact(cap).map_err(|_| crate::out_of_memory(0))?;
        out.push(b'{');
        if let Some(d) = &self.did {
            out.extend_from_slice(b"\"did\":");
            jcs::write_plain_str(d, &mut VecRefSink(&mut out))?;
            out.push(b',');
        }
        out.extend_from_slice(b"\"did_key\":");
        jcs::write_plain_str(did_key::encode(&pk).as_str(), &mut VecRefSink(&mut out))?;
        for (name, value) in [
            ("ed25519_public_multibase", Zeroizing::new(ed_mb.as_str().as_bytes().to_vec())),
            ("ed25519_seed_hex", hex(&*self.ed.seed())?),
            ("x25519_public_multibase", Zeroizing::new(x_mb.as_str().as_bytes().to_vec())),
            ("x25519_secret_hex", hex(&x.0)?),
        ] {
            // Hex digits and multibase text: nothing to escape.
            out.extend_from_slice(b",\"");
            out.extend_from_slice(name.as_bytes());
            out.extend_from_slice(b"\":\"");
            out.extend_from_slice(&value);
            out.push(b'"');
        }
        out.push(b'}');
        Ok(out)
    }
}

#[cfg(test)]
#[path = "aip/secret_tests.rs"]
mod secret_tests;

/// The `type` of an envelope sealed without one: the message's own `type` member when it
/// is a string (decoded: an escaped spelling is the same type), else `aip.message` (what
/// `concordia aip seal` writes).
#[must_use]
pub fn default_type(message: Value<'_>) -> String {
    message.get("type").and_then(crate::string_value).unwrap_or_else(|| "aip.message".into())
}

/// The endpoint a DID Document gets when none is given: the relay of the subject's
/// registry domain, `https://hub.<domain>/relay/<name>` (what `concordia aip keygen
/// --doc` writes).
#[must_use]
pub fn default_endpoint(subject: &Handle) -> String {
    format!("https://hub.{}/relay/{}", subject.domain(), subject.name())
}

/// When [`open_envelope`] checks the envelope's `created_at`: at most 300 s ahead of the
/// recipient's clock and at most 600 s old ([`replay::check_fresh`]; with a replay window,
/// the window's own check, which applies the same bounds).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Freshness {
    /// At the operating system's clock (the default). On `wasm32-unknown-unknown`, which
    /// has no clock, the wrapper passes [`Freshness::At`] of the JavaScript clock instead.
    #[default]
    Clock,
    /// At the given instant (a host with its own clock, tests, a recorded delivery time).
    At(Timestamp),
    /// Not checked: opens envelopes of any age (an archive the caller trusts). Only by this
    /// name, and never with a replay window (the window needs a clock).
    Unchecked,
}

/// Whom [`open_envelope`] requires an envelope to be addressed to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Addressee<'a> {
    /// The envelope's `to` must be the recipient's own `did:aip`, given here (a key file's
    /// `did`, a key pair's DID, or one passed explicitly). `None`, the recipient's DID
    /// unknown, is refused ([`Error::InvalidArgument`]`(`[`NO_RECIPIENT_DID`]`)`): without
    /// it an envelope sealed to a key the recipient also holds for another agent would open.
    Recipient(Option<&'a str>),
    /// Not checked: any `to` is accepted (a recipient that routes for several agents and
    /// checks `to` itself). Only by this name.
    Unchecked,
}

/// `InvalidArgument`: an explicit recipient DID together with the addressee opt-out.
pub const DID_AND_UNCHECKED: &str = "a recipient DID and skipping the addressee check exclude each other";
/// `InvalidArgument`: an explicit recipient DID that is not the key's own `did`.
pub const DID_NOT_THE_KEYS: &str = "the recipient DID given is not the key's did";

impl<'a> Addressee<'a> {
    /// The addressee rule of a surface's arguments: `unchecked` (the named opt-out, e.g.
    /// `--any-recipient`) gives [`Addressee::Unchecked`]; otherwise the DID passed
    /// explicitly, else the key's own `did`, must be the envelope's `to`.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`]: [`DID_AND_UNCHECKED`] for an explicit DID with
    /// `unchecked`, [`DID_NOT_THE_KEYS`] for an explicit DID that differs from the key's.
    pub fn from_args(explicit: Option<&'a str>, key: Option<&'a str>, unchecked: bool) -> Result<Self> {
        match (explicit, key, unchecked) {
            (Some(_), _, true) => Err(Error::InvalidArgument(DID_AND_UNCHECKED)),
            (_, _, true) => Ok(Addressee::Unchecked),
            (Some(e), Some(k), false) if e != k => Err(Error::InvalidArgument(DID_NOT_THE_KEYS)),
            (e, k, false) => Ok(Addressee::Recipient(e.or(k))),
        }
    }
}

impl Default for Addressee<'_> {
    /// `Recipient(None)`: refused until the recipient's DID is given.
    fn default() -> Self {
        Addressee::Recipient(None)
    }
}

/// `InvalidArgument`: [`Addressee::Recipient`] without a DID.
pub const NO_RECIPIENT_DID: &str =
    "the recipient's did:aip is required to check the envelope's addressee (or skip that check by name)";
/// `InvalidArgument`: [`Freshness::Unchecked`] with a replay window.
pub const WINDOW_NEEDS_CLOCK: &str = "a replay window needs a clock: Freshness::Unchecked cannot be used with one";
/// `InvalidArgument`: the operating system's clock is before 1970.
pub const CLOCK_BEFORE_EPOCH: &str = "the system clock is before 1970";
/// What every surface says of an envelope a replay window has already seen (after
/// `envelope <id>: `).
pub const REPLAY: &str = "a replay (this id was already opened with this window)";
/// The result code name of a replay: C `CONCORDIA_AIP_REPLAY` (408, class `replay`), the
/// npm package's `error.code`.
pub const REPLAY_CODE: &str = "CONCORDIA_AIP_REPLAY";

/// The recipient's policy for [`open_envelope`]. [`OpenPolicy::default`] is the safe one:
/// freshness at the clock, the addressee required (so the recipient's DID must be set),
/// no replay window.
#[derive(Debug, Default)]
pub struct OpenPolicy<'a> {
    /// When `created_at` is checked.
    pub freshness: Freshness,
    /// Whom the envelope must be addressed to.
    pub addressee: Addressee<'a>,
    /// A replay window: also refuse an id it has already seen (the outcome is then
    /// [`Delivery::Duplicate`]); it remembers only envelopes that passed every other check.
    pub window: Option<&'a mut crate::HostReplayWindow>,
}

impl<'a> OpenPolicy<'a> {
    /// The default policy for the recipient `did` (`None`: unknown, refused unless the
    /// addressee check is skipped by name).
    #[must_use]
    pub fn for_recipient(did: Option<&'a str>) -> Self {
        OpenPolicy { addressee: Addressee::Recipient(did), ..OpenPolicy::default() }
    }
}

/// The outcome of an envelope that passed every check.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Delivery {
    /// The body, as sealed.
    Fresh(Vec<u8>),
    /// The envelope verified and opened, but the window had already seen its id: a
    /// duplicate delivery or a replay (not to be processed again; every surface reports
    /// it as a replay, [`REPLAY`]).
    Duplicate,
}

/// What [`open_envelope`] found: the header (texts of the envelope's JSON) and the outcome.
#[derive(Debug, Clone)]
pub struct Opened<'i> {
    /// The header, each text a slice of the envelope's JSON text.
    pub header: Header<'i>,
    /// `created_at` as an instant.
    pub created: Timestamp,
    /// The body, or a duplicate.
    pub delivery: Delivery,
}

/// Which argument of [`open_envelope`] a refusal is about (so a host can name the file).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Part {
    /// The policy: the recipient's DID, the clock, the window.
    Policy,
    /// The sender's DID Document (it does not parse).
    SenderDocument,
    /// The envelope: its text, signature, addressee, body, freshness.
    Envelope,
}

/// Why [`open_envelope`] refused: the core's error, and which argument it is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Refused {
    /// The error (every surface maps this, as any other core error).
    pub error: Error,
    /// Which argument it is about.
    pub part: Part,
}

impl From<Refused> for Error {
    fn from(r: Refused) -> Error {
        r.error
    }
}

/// The operating system's clock, whole seconds.
///
/// # Errors
/// [`Error::InvalidArgument`]`(`[`CLOCK_BEFORE_EPOCH`]`)`.
pub fn os_now() -> Result<Timestamp> {
    let d = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_err(|_| Error::InvalidArgument(CLOCK_BEFORE_EPOCH))?;
    Ok(Timestamp::from_unix(i64::try_from(d.as_secs()).map_err(|_| Error::InvalidArgument(CLOCK_BEFORE_EPOCH))?))
}

/// `s`, a slice of text parsed from `input`, as a slice of `input` itself.
fn rebase<'i>(input: &'i [u8], s: &str) -> Result<&'i str> {
    let start = (s.as_ptr() as usize).wrapping_sub(input.as_ptr() as usize);
    input
        .get(start..start.wrapping_add(s.len()))
        .and_then(|b| core::str::from_utf8(b).ok())
        .ok_or(Error::InvalidArgument("header text outside the envelope"))
}

/// Opens an envelope as its recipient: the one composition of every surface's "open"
/// (`concordia aip open`, C `concordia_aip_open`, Go `Open`, Python `aip.open`, UniFFI
/// `aip_open`, JS `aipOpen`). Every decision is here, in this order:
///
/// 1. the policy's arguments: the recipient's DID (required unless
///    [`Addressee::Unchecked`]; a malformed one is refused), a window only with a clock;
/// 2. the sender's DID Document, then the envelope, parse (one parsing policy);
/// 3. the signature under the sender's DID Document ([`Envelope::verify_from`](envelope::Envelope::verify_from): `from`
///    must be the document's `id`, `Binding`; the signature, `Signature`);
/// 4. the addressee ([`Envelope::check_to`](envelope::Envelope::check_to), `Binding`);
/// 5. the body opens with the recipient's X25519 key (`Signature` otherwise: a wrong key,
///    a tampered body or header);
/// 6. freshness ([`Freshness`], `Temporal`) or, with a window, the window's check (which
///    also checks freshness and remembers only an envelope that got this far).
///
/// So a stale envelope with a tampered body is a `Signature` failure everywhere.
///
/// # Errors
/// [`Refused`] with [`Part::Policy`]: `InvalidArgument` ([`NO_RECIPIENT_DID`],
/// [`WINDOW_NEEDS_CLOCK`], [`CLOCK_BEFORE_EPOCH`]), a malformed recipient DID's error;
/// [`Part::SenderDocument`]: its parse errors; [`Part::Envelope`]: its parse errors,
/// `Signature`, `Binding`, `Temporal`, `Limit` (a full window or memory).
pub fn open_envelope<'i>(
    envelope_json: &'i [u8],
    sender_doc: &[u8],
    secret: &X25519SecretKey,
    policy: OpenPolicy<'_>,
) -> core::result::Result<Opened<'i>, Refused> {
    let at = |part| move |error| Refused { error, part };
    let (me, now) = open_policy(&policy).map_err(at(Part::Policy))?;
    let mut dnodes = Nodes::new();
    let sender =
        dnodes.parse(sender_doc).and_then(|d| did::document_from_value(d.root())).map_err(at(Part::SenderDocument))?;
    open_parsed(envelope_json, &sender, secret, me.as_ref(), now, policy.window).map_err(at(Part::Envelope))
}

/// Step 1 of [`open_envelope`]: the recipient's handle (when checked) and `now` (when
/// freshness is checked).
fn open_policy(policy: &OpenPolicy<'_>) -> Result<(Option<Handle>, Option<Timestamp>)> {
    let me = match policy.addressee {
        Addressee::Recipient(None) => return Err(Error::InvalidArgument(NO_RECIPIENT_DID)),
        Addressee::Recipient(Some(d)) => Some(did::parse_did(d)?),
        Addressee::Unchecked => None,
    };
    let now = match policy.freshness {
        Freshness::Clock => Some(os_now()?),
        Freshness::At(t) => Some(t),
        Freshness::Unchecked if policy.window.is_some() => return Err(Error::InvalidArgument(WINDOW_NEEDS_CLOCK)),
        Freshness::Unchecked => None,
    };
    Ok((me, now))
}

/// Steps 2 (the envelope's half) to 6 of [`open_envelope`].
fn open_parsed<'i>(
    envelope_json: &'i [u8],
    sender: &did::DidDocument<'_>,
    secret: &X25519SecretKey,
    me: Option<&Handle>,
    now: Option<Timestamp>,
    window: Option<&mut crate::HostReplayWindow>,
) -> Result<Opened<'i>> {
    let mut nodes = Nodes::new();
    let doc = nodes.parse(envelope_json)?;
    let env = envelope::from_value(doc.root())?;
    env.verify_from(sender)?;
    if let Some(me) = me {
        env.check_to(me)?;
    }
    let mut out = crate::try_filled(env.sealed_len(), 0u8)?;
    let n = env.open(secret, &mut out)?;
    out.truncate(n);
    let mut delivery = Delivery::Fresh(out);
    match (window, now) {
        (Some(w), Some(now)) => {
            if w.check(env.replay_key(), env.created, now)? == Verdict::Duplicate {
                delivery = Delivery::Duplicate;
            }
        }
        (None, Some(now)) => replay::check_fresh(env.created, now)?,
        (_, None) => {}
    }
    let h = &env.header;
    let header = Header {
        id: rebase(envelope_json, h.id)?,
        from: rebase(envelope_json, h.from)?,
        to: rebase(envelope_json, h.to)?,
        kind: rebase(envelope_json, h.kind)?,
        created_at: rebase(envelope_json, h.created_at)?,
    };
    Ok(Opened { header, created: env.created, delivery })
}

#[cfg(test)]
#[path = "aip_tests.rs"]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests;
