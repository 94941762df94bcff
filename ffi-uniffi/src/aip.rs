//! AIP, the Agent Interaction Protocol (`concordia_core::aip`): handles and `did:aip`
//! identifiers, DID Documents and route selection, AIP key pairs (Ed25519 + X25519),
//! sealed envelopes (seal, verify, open), the replay window, `eddsa-jcs-2022` Verifiable
//! Credentials and trust-weighted ranking.
//!
//! As everywhere in this crate, the rules are the core's: this file converts types, owns
//! the buffers, supplies operating system randomness (key generation, the HPKE ephemeral
//! key material, message ids) and maps errors onto [`AipError`].

use std::sync::{Arc, Mutex, PoisonError};
use std::time::SystemTime;

use concordia_core::aip::did::{self, DidDocument, Route, RouteMode};
use concordia_core::aip::envelope::{self, Envelope, Header};
use concordia_core::aip::handle::{self, Handle};
use concordia_core::aip::hpke::{self, X25519SecretKey};
use concordia_core::aip::replay::{replay_key, Integrity, Verdict};
use concordia_core::aip::{trust, vc};
use concordia_core::sign::KeyPair as CoreKeyPair;
use concordia_core::sink::SliceSink;
use concordia_core::{encoding, jcs, Error};
use concordia_host::replay::{new_window, Capacity, HostReplayWindow};
use concordia_host::zeroize::Zeroizing;

use concordia_host::aip::{open_envelope, Addressee, Delivery, Freshness, KeyFile, OpenPolicy, REPLAY};
use concordia_host::vc::{verify_credential_proof, VcArgs, VcTime};

use crate::errors::AipError;
use crate::keys::KeyPair;
use crate::util::{parse, timestamp, utf8, write_vec};

// --------------------------------------------------------------------------- randomness

/// 32 bytes from the operating system's random generator.
/// 32 bytes from the operating system, erased when dropped.
fn os_random() -> Result<Zeroizing<[u8; 32]>, AipError> {
    let mut b = Zeroizing::new([0u8; 32]);
    getrandom::fill(&mut *b).map_err(|e| AipError::Randomness(format!("randomness unavailable: {e}")))?;
    Ok(b)
}

/// A 32-byte secret from a foreign argument, erased when dropped.
fn seed32(bytes: &[u8], what: &'static str) -> Result<Zeroizing<[u8; 32]>, AipError> {
    let b: [u8; 32] = bytes.try_into().map_err(|_| AipError::from(Error::InvalidArgument(what)))?;
    Ok(Zeroizing::new(b))
}

// --------------------------------------------------------------------------- handles

/// An agent handle in every spelling AIP uses.
#[derive(Debug, Clone, PartialEq, Eq, Hash, uniffi::Record)]
pub struct AipHandle {
    /// The agent name (before `#`).
    pub name: String,
    /// The registry domain (after `#`).
    pub domain: String,
    /// `name#domain`.
    pub handle: String,
    /// The URL form `name%23domain`.
    pub url_form: String,
    /// `@name@domain`.
    pub at_form: String,
    /// `did:aip:<domain>:<name>`.
    pub did: String,
}

impl From<&Handle> for AipHandle {
    fn from(h: &Handle) -> Self {
        AipHandle {
            name: h.name().to_string(),
            domain: h.domain().to_string(),
            handle: h.handle().as_str().to_string(),
            url_form: h.url_form().as_str().to_string(),
            at_form: h.at_form().as_str().to_string(),
            did: h.did().as_str().to_string(),
        }
    }
}

/// Parses a handle written `name#domain`, `name%23domain` (its URL form), `@name@domain`
/// or `did:aip:<domain>:<name>` (lowercase only).
#[uniffi::export]
pub fn aip_parse_handle(text: String) -> Result<AipHandle, AipError> {
    Ok(AipHandle::from(&handle::parse_any(&text)?))
}

/// The handle of `name` at `domain`, checked against the handle grammar.
#[uniffi::export]
pub fn aip_handle(name: String, domain: String) -> Result<AipHandle, AipError> {
    Ok(AipHandle::from(&Handle::new(&name, &domain)?))
}

// --------------------------------------------------------------------------- DID Documents

/// How messages reach an agent (`route_mode`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, uniffi::Enum)]
pub enum AipRouteMode {
    /// HTTP POST to the agent's endpoint.
    Direct,
    /// A relay hub's durable stream.
    Relay,
}

/// Where to deliver, as decided by `aip_select_route`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, uniffi::Enum)]
pub enum AipRoute {
    /// POST to `endpoint`.
    Direct {
        /// The document's endpoint.
        endpoint: String,
    },
    /// Publish through a relay: the document's endpoint when its route mode is `relay`,
    /// `None` when a direct endpoint is unreachable (the sender's own hub relays by
    /// domain).
    Relay {
        /// The relay endpoint, if the document names one.
        endpoint: Option<String>,
    },
}

/// The DID Document subset AIP reads.
#[derive(Debug, Clone, PartialEq, Eq, uniffi::Record)]
pub struct AipDidDocument {
    /// `id`, a `did:aip` DID.
    pub id: String,
    /// The handle the `id` names.
    pub subject: AipHandle,
    /// `route_mode`.
    pub route_mode: AipRouteMode,
    /// `endpoint`.
    pub endpoint: String,
    /// The 32-byte Ed25519 keys of `verificationMethod` (at least one), in document order.
    pub signing_keys: Vec<Vec<u8>>,
    /// The 32-byte X25519 keys of `keyAgreement`, in document order.
    pub agreement_keys: Vec<Vec<u8>>,
}

fn with_document<T>(json: &str, f: impl FnOnce(&DidDocument<'_>) -> Result<T, AipError>) -> Result<T, AipError> {
    let mut nodes = concordia_host::Nodes::new();
    let doc = parse(json.as_bytes(), &mut nodes)?;
    f(&did::document_from_value(doc.root())?)
}

/// Reads the AIP subset of a DID Document (JSON text): `id`, `route_mode`, `endpoint`,
/// the Ed25519 `verificationMethod` and X25519 `keyAgreement` multikeys.
#[uniffi::export]
pub fn aip_parse_did_document(did_document_json: String) -> Result<AipDidDocument, AipError> {
    with_document(&did_document_json, |d| {
        Ok(AipDidDocument {
            id: d.id.to_string(),
            subject: AipHandle::from(&d.subject),
            route_mode: match d.route_mode {
                RouteMode::Direct => AipRouteMode::Direct,
                RouteMode::Relay => AipRouteMode::Relay,
            },
            endpoint: d.endpoint.to_string(),
            signing_keys: d.signing_keys.iter().map(|k| k.as_bytes().to_vec()).collect(),
            agreement_keys: d.agreement_keys.iter().map(|k| k.0.to_vec()).collect(),
        })
    })
}

/// Chooses how to deliver to the subject of a DID Document: direct when its route mode is
/// `direct` and the caller found the endpoint reachable, relay otherwise.
#[uniffi::export]
pub fn aip_select_route(did_document_json: String, endpoint_reachable: bool) -> Result<AipRoute, AipError> {
    with_document(&did_document_json, |d| {
        Ok(match did::select_route(d, endpoint_reachable) {
            Route::Direct(e) => AipRoute::Direct { endpoint: e.to_string() },
            Route::Relay(e) => AipRoute::Relay { endpoint: e.map(str::to_string) },
        })
    })
}

// --------------------------------------------------------------------------- keys

/// An AIP agent's key pair: Ed25519 (signs envelopes and credentials; its `did:key` and
/// `verificationMethod` multikey) and X25519 (opens sealed bodies; its `keyAgreement`
/// multikey). Immutable, so one object may be shared across threads.
#[derive(uniffi::Object)]
pub struct AipKeyPair {
    ed: CoreKeyPair,
    x: X25519SecretKey,
    /// The agent's own `did:aip`, when known: `aip_open` checks that an envelope is
    /// addressed to it, as `concordia aip open` does with a key file's `did` (without it,
    /// `aip_open` needs `recipient_did`, or `any_recipient` to skip the check by name).
    did: Option<String>,
}

impl std::fmt::Debug for AipKeyPair {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Public halves only.
        f.debug_struct("AipKeyPair")
            .field("did", &self.did)
            .field("ed25519", &self.ed)
            .field("x25519", &self.x.public_key())
            .finish()
    }
}

#[uniffi::export]
impl AipKeyPair {
    /// A new key pair from operating system randomness: an Ed25519 seed, and the X25519
    /// key pair RFC 9180 `DeriveKeyPair` makes of 32 more random bytes. Keep
    /// `ed25519_seed()` and `x25519_secret()` to restore it.
    #[uniffi::constructor]
    pub fn generate() -> Result<Arc<Self>, AipError> {
        let (ed_seed, ikm) = (os_random()?, os_random()?);
        let ed = CoreKeyPair::from_seed(&ed_seed);
        let (x, _) = hpke::derive_keypair(&*ikm);
        Ok(Arc::new(AipKeyPair { ed, x, did: None }))
    }

    /// The key pair of a 32-byte Ed25519 seed and a 32-byte X25519 private key (the
    /// `ed25519_seed_hex` and `x25519_secret_hex` of a `concordia aip keygen` key file).
    #[uniffi::constructor]
    pub fn from_seeds(ed25519_seed: Vec<u8>, x25519_secret: Vec<u8>) -> Result<Arc<Self>, AipError> {
        let (ed25519_seed, x25519_secret) = (Zeroizing::new(ed25519_seed), Zeroizing::new(x25519_secret));
        let ed = CoreKeyPair::from_seed(&*seed32(&ed25519_seed, "Ed25519 seed must be 32 bytes")?);
        let x = X25519SecretKey(*seed32(&x25519_secret, "X25519 secret key must be 32 bytes")?);
        Ok(Arc::new(AipKeyPair { ed, x, did: None }))
    }

    /// The keys of a `concordia aip keygen` key file (JSON text: `ed25519_seed_hex`,
    /// `x25519_secret_hex` and, when present, the agent's `did`, which `aip_open` then
    /// checks envelopes against).
    #[uniffi::constructor]
    pub fn from_key_file(key_file_json: String) -> Result<Arc<Self>, AipError> {
        let key_file_json = Zeroizing::new(key_file_json);
        let kf = KeyFile::from_json(key_file_json.as_bytes())?;
        let x = kf.x.ok_or(Error::Schema(concordia_host::aip::NO_X25519))?;
        Ok(Arc::new(AipKeyPair { ed: kf.ed, x, did: kf.did }))
    }

    /// The keys `concordia aip keygen --seed <hex of seed>` makes from one 32-byte seed
    /// (for tests and examples only), with the agent's `did` when given.
    #[uniffi::constructor]
    pub fn from_keygen_seed(seed: Vec<u8>, did: Option<String>) -> Result<Arc<Self>, AipError> {
        let seed = Zeroizing::new(seed);
        let kf = KeyFile::from_seed(&*seed32(&seed, "seed must be 32 bytes")?, did)?;
        let x = kf.x.ok_or(Error::Schema(concordia_host::aip::NO_X25519))?;
        Ok(Arc::new(AipKeyPair { ed: kf.ed, x, did: kf.did }))
    }

    /// The same keys for the agent `did` (a `did:aip`): `aip_open` then checks that an
    /// envelope is addressed to it.
    pub fn with_did(&self, did: String) -> Result<Arc<Self>, AipError> {
        did::parse_did(&did)?;
        Ok(Arc::new(AipKeyPair { ed: self.ed.clone(), x: self.x.clone(), did: Some(did) }))
    }

    /// The agent's own `did:aip`, if known.
    pub fn did(&self) -> Option<String> {
        self.did.clone()
    }

    /// The key file, exactly as `concordia aip keygen` prints it (with the final newline).
    /// It holds both secrets: the Rust copies are erased, the returned string is the
    /// caller's to keep secret.
    pub fn key_file_json(&self) -> Result<String, AipError> {
        let kf = KeyFile { did: self.did.clone(), ed: self.ed.clone(), x: Some(self.x.clone()) };
        let json = kf.to_json()?;
        let mut text = String::with_capacity(json.len() + 1);
        text.push_str(std::str::from_utf8(&json).map_err(|_| Error::Encoding("key file"))?);
        text.push('\n');
        Ok(text)
    }

    /// The 32-byte Ed25519 seed. Keep it secret.
    pub fn ed25519_seed(&self) -> Vec<u8> {
        self.ed.seed().to_vec()
    }

    /// The 32-byte X25519 private key. Keep it secret.
    pub fn x25519_secret(&self) -> Vec<u8> {
        self.x.0.to_vec()
    }

    /// The 32-byte Ed25519 public key.
    pub fn ed25519_public_key(&self) -> Vec<u8> {
        self.ed.public_key().as_bytes().to_vec()
    }

    /// The 32-byte X25519 public key.
    pub fn x25519_public_key(&self) -> Vec<u8> {
        self.x.public_key().0.to_vec()
    }

    /// The Ed25519 public key as a multikey (`z6Mk...`), a `verificationMethod`'s
    /// `publicKeyMultibase`.
    pub fn ed25519_multibase(&self) -> String {
        did::encode_multikey(self.ed.public_key().as_bytes(), concordia_core::did_key::ED25519_MULTICODEC)
            .as_str()
            .to_string()
    }

    /// The X25519 public key as a multikey (`z6LS...`), a `keyAgreement`'s
    /// `publicKeyMultibase`.
    pub fn x25519_multibase(&self) -> String {
        did::encode_multikey(&self.x.public_key().0, did::X25519_MULTICODEC).as_str().to_string()
    }

    /// This key pair's DID Document for `did` (a `did:aip`), in RFC 8785 form: exactly the
    /// subset `aip_parse_did_document` reads, the Ed25519 key as `<did>#key-1` and the
    /// X25519 key as `<did>#x25519-1`. `endpoint` is an `https`, `http` or `wss` URL.
    pub fn did_document(&self, did: String, route_mode: AipRouteMode, endpoint: String) -> Result<String, AipError> {
        let subject = did::parse_did(&did)?;
        let mode = match route_mode {
            AipRouteMode::Direct => RouteMode::Direct,
            AipRouteMode::Relay => RouteMode::Relay,
        };
        let (ed, x) = (self.ed.public_key(), self.x.public_key());
        let out = write_vec(512, |buf| {
            let mut sink = SliceSink::new(buf);
            did::write_document(&subject, mode, &endpoint, &ed, &x, &mut sink)?;
            sink.finish()
        })?;
        String::from_utf8(out).map_err(|_| AipError::from(Error::Encoding("DID Document is not UTF-8")))
    }

    /// The Ed25519 key's `did:key` (a credential issuer).
    pub fn did_key(&self) -> String {
        concordia_core::did_key::encode(&self.ed.public_key()).as_str().to_string()
    }

    /// The Ed25519 half as a `KeyPair` (to sign objects, or to issue credentials with
    /// `aip_vc_issue`).
    pub fn signing_key(&self) -> Arc<KeyPair> {
        Arc::new(KeyPair(self.ed.clone()))
    }
}

/// The `did:key` of an Ed25519 key pair (the `issuer` of the credentials it issues).
#[uniffi::export]
pub fn aip_did_key(key_pair: Arc<KeyPair>) -> String {
    concordia_core::did_key::encode(&key_pair.0.public_key()).as_str().to_string()
}

// --------------------------------------------------------------------------- envelopes

/// The signed header of an envelope.
#[derive(Debug, Clone, PartialEq, Eq, Hash, uniffi::Record)]
pub struct AipHeader {
    /// `id`: a lowercase UUID v4.
    pub id: String,
    /// `from`: the sender's `did:aip`.
    pub from: String,
    /// `to`: the recipient's `did:aip`.
    pub to: String,
    /// `type`, e.g. `aip.commerce.offer.request`.
    pub message_type: String,
    /// `created_at`: RFC 3339.
    pub created_at: String,
}

impl From<&Header<'_>> for AipHeader {
    fn from(h: &Header<'_>) -> Self {
        AipHeader {
            id: h.id.to_string(),
            from: h.from.to_string(),
            to: h.to.to_string(),
            message_type: h.kind.to_string(),
            created_at: h.created_at.to_string(),
        }
    }
}

/// The header fields a sender chooses; `to` is the recipient document's `id`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, uniffi::Record)]
pub struct AipSealHeader {
    /// `id`: a lowercase UUID v4, unique per message (`aip_new_message_id` makes one).
    pub id: String,
    /// `from`: the sender's `did:aip` (its DID Document lists the sender key's Ed25519
    /// public key).
    pub from: String,
    /// `type`: 1 to 128 characters from `a-z 0-9 . _ -`, starting with a letter.
    pub message_type: String,
    /// `created_at`: RFC 3339, e.g. `2026-05-10T14:25:00Z` (the library reads no clock).
    pub created_at: String,
}

/// An opened envelope.
#[derive(Debug, Clone, PartialEq, Eq, Hash, uniffi::Record)]
pub struct AipOpened {
    /// The verified header.
    pub header: AipHeader,
    /// The body as sealed (canonical JSON when sealed by `aip_seal`).
    pub body_json: String,
}

/// A new message id: a lowercase UUID v4 from operating system randomness.
#[uniffi::export]
pub fn aip_new_message_id() -> Result<String, AipError> {
    let mut b = os_random()?;
    // RFC 9562 version 4 and variant bits; the core checks the result below.
    b[6] = (b[6] & 0x0f) | 0x40;
    b[8] = (b[8] & 0x3f) | 0x80;
    let mut hex = [0u8; 32];
    encoding::encode_hex(&b[..16], &mut hex)?;
    let h = std::str::from_utf8(&hex).map_err(|_| Error::Encoding("hex"))?;
    let id = format!("{}-{}-{}-{}-{}", &h[..8], &h[8..12], &h[12..16], &h[16..20], &h[20..]);
    envelope::parse_uuid_v4(&id)?;
    Ok(id)
}

/// Seals `body_json` (written canonical) to the first X25519 `keyAgreement` key of the
/// recipient's DID Document, signs the envelope with `sender`'s Ed25519 key and returns
/// it as canonical JSON. The HPKE ephemeral key material comes from the operating system.
#[uniffi::export]
pub fn aip_seal(
    sender: Arc<AipKeyPair>,
    recipient_did_document_json: String,
    header: AipSealHeader,
    body_json: String,
) -> Result<String, AipError> {
    let mut body_nodes = concordia_host::Nodes::new();
    let body_doc = parse(body_json.as_bytes(), &mut body_nodes)?;
    // The canonical form is never longer than the input.
    let body = write_vec(body_json.len(), |buf| jcs::write_to_slice(body_doc.root(), buf))?;
    with_document(&recipient_did_document_json, |rdoc| {
        let recipient = rdoc
            .agreement_keys
            .first()
            .ok_or(Error::Schema("recipient DID Document has no X25519 keyAgreement key"))?;
        let h = Header {
            id: &header.id,
            from: &header.from,
            to: rdoc.id,
            kind: &header.message_type,
            created_at: &header.created_at,
        };
        // Erased when dropped.
        let ikm = os_random()?;
        // A first attempt that is too short fails before anything is sealed.
        let size = body.len() * 4 / 3 + 1024;
        let out = write_vec(size, |buf| envelope::seal(&h, recipient, &body, &ikm, &sender.ed, buf));
        Ok(utf8(out?))
    })
}

fn with_envelope<T>(json: &str, f: impl FnOnce(&Envelope<'_>) -> Result<T, AipError>) -> Result<T, AipError> {
    let mut nodes = concordia_host::Nodes::new();
    let doc = parse(json.as_bytes(), &mut nodes)?;
    f(&envelope::from_value(doc.root())?)
}

/// Checks an envelope's shape (exactly the seven members, each well-formed) without its
/// signature or body; returns its header (e.g. for a replay check before opening).
#[uniffi::export]
pub fn aip_parse_envelope(envelope_json: String) -> Result<AipHeader, AipError> {
    with_envelope(&envelope_json, |e| Ok(AipHeader::from(&e.header)))
}

/// Verifies an envelope against the sender's DID Document: `from` must be its `id` and
/// `sig` must verify under one of its Ed25519 keys. Returns the header.
#[uniffi::export]
pub fn aip_verify_envelope(sender_did_document_json: String, envelope_json: String) -> Result<AipHeader, AipError> {
    with_document(&sender_did_document_json, |sdoc| {
        with_envelope(&envelope_json, |e| {
            e.verify_from(sdoc)?;
            Ok(AipHeader::from(&e.header))
        })
    })
}

/// Opens an envelope as its recipient: every check of the one composition
/// (`concordia_host::aip::open_envelope`, as `concordia aip open`), in its order: the
/// signature under the sender's DID Document (as `aip_verify_envelope`), the addressee
/// (`to` must be `recipient_did`, else `recipient`'s own DID from a key file's `did` or
/// `AipKeyPair::with_did`; without either, `Input`, unless `any_recipient` skips the
/// check by name), the body opens with `recipient`'s X25519 key; then freshness at `now`
/// (default: the operating system's clock; `skip_freshness` skips it by name):
/// `created_at` at most `MAX_FUTURE_SKEW` ahead and `WINDOW` old (`Temporal`; the core's
/// constants, docs/limits.md); with a `window`, its
/// replay check instead: an id it has seen is `Replay` (the window remembers only
/// envelopes that passed every other check).
#[uniffi::export(default(now = None, window = None, recipient_did = None, any_recipient = false, skip_freshness = false))]
#[allow(clippy::too_many_arguments, clippy::needless_pass_by_value)]
pub fn aip_open(
    recipient: Arc<AipKeyPair>,
    sender_did_document_json: String,
    envelope_json: String,
    now: Option<SystemTime>,
    window: Option<Arc<AipReplayWindow>>,
    recipient_did: Option<String>,
    any_recipient: bool,
    skip_freshness: bool,
) -> Result<AipOpened, AipError> {
    let freshness = match now {
        _ if skip_freshness => Freshness::Unchecked,
        None => Freshness::Clock,
        Some(t) => Freshness::At(timestamp(t)?),
    };
    let addressee = Addressee::from_args(recipient_did.as_deref(), recipient.did.as_deref(), any_recipient)?;
    let mut guard = window.as_ref().map(|w| w.lock());
    let policy = OpenPolicy { freshness, addressee, window: guard.as_deref_mut() };
    let opened = open_envelope(envelope_json.as_bytes(), sender_did_document_json.as_bytes(), &recipient.x, policy)
        .map_err(Error::from)?;
    drop(guard);
    match opened.delivery {
        Delivery::Fresh(body) => {
            let body_json = String::from_utf8(body).map_err(|_| Error::Encoding("body is not UTF-8"))?;
            Ok(AipOpened { header: AipHeader::from(&opened.header), body_json })
        }
        Delivery::Duplicate => Err(AipError::Replay(format!("envelope {}: {REPLAY}", opened.header.id))),
    }
}

// --------------------------------------------------------------------------- replay window

/// The fixed capacity of an `AipReplayWindow`: the most ids it remembers at once (ids
/// are kept for `WINDOW` seconds, so capacity / `WINDOW` is the sustained message rate it
/// accepts; docs/limits.md).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, uniffi::Enum)]
pub enum AipReplayCapacity {
    /// 1,024 ids (48 KiB).
    Small,
    /// 16,384 ids (768 KiB).
    Medium,
    /// 65,536 ids (3 MiB).
    Large,
}

/// The outcome of an accepted replay check.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, uniffi::Enum)]
pub enum AipVerdict {
    /// First sighting: process the message.
    Fresh,
    /// Already seen inside the window: acknowledge, do not process again.
    Duplicate,
}

impl AipReplayCapacity {
    /// The host's named capacity (its number of keys is the host's).
    fn host(self) -> Capacity {
        match self {
            AipReplayCapacity::Small => Capacity::Small,
            AipReplayCapacity::Medium => Capacity::Medium,
            AipReplayCapacity::Large => Capacity::Large,
        }
    }
}

/// The host's window: slots on the heap, allocated in place (no large value moves through
/// the caller's stack, which is small on foreign threads: 512 KiB on iOS).
type Window = HostReplayWindow;

/// A replay window for at-least-once relay delivery: remembers message ids for `WINDOW`
/// and rejects `created_at` more than `MAX_FUTURE_SKEW` ahead of `now` or older than
/// `WINDOW` (the core's constants, docs/limits.md). Thread-safe;
/// a failed check leaves it unchanged, its clock included (only an accepted check moves
/// the clock to `now`). Survives restarts through `AipReplayWindow::snapshot` and
/// `AipReplayWindow::restore`; a snapshot that is missing or refused means a cold start
/// (see `AipReplayWindow::cold_start`).
#[derive(uniffi::Object)]
pub struct AipReplayWindow {
    inner: Mutex<Window>,
}

impl std::fmt::Debug for AipReplayWindow {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AipReplayWindow").field("len", &self.len()).field("capacity", &self.capacity()).finish()
    }
}

impl AipReplayWindow {
    fn lock(&self) -> std::sync::MutexGuard<'_, Window> {
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

#[uniffi::export]
impl AipReplayWindow {
    /// An empty window of the given capacity.
    #[uniffi::constructor]
    pub fn new(capacity: AipReplayCapacity) -> Result<Arc<Self>, AipError> {
        let w = new_window(capacity.host().keys())?;
        Ok(Arc::new(AipReplayWindow { inner: Mutex::new(w) }))
    }

    /// Checks one delivery of the message `id` (a lowercase UUID v4) from `from` (the
    /// sender's DID, the envelope's signed `from`) created at `created_at` (RFC 3339)
    /// against `now`: `Fresh` (remembered now), `Duplicate` (only a copy from the same
    /// sender), or `Temporal` (outside `[now - WINDOW, now + MAX_FUTURE_SKEW]`, or not after a
    /// cold-start guard) / `Limit` (every slot holds a message still inside the window)
    /// errors. A `now` earlier than one already seen counts as the latest seen.
    pub fn check(&self, from: String, id: String, created_at: String, now: SystemTime) -> Result<AipVerdict, AipError> {
        let id = envelope::parse_uuid_v4(&id)?;
        let created = envelope::parse_rfc3339(&created_at)?;
        let now = timestamp(now)?;
        let verdict = self.lock().check(replay_key(&from, id), created, now)?;
        Ok(match verdict {
            Verdict::Fresh => AipVerdict::Fresh,
            Verdict::Duplicate => AipVerdict::Duplicate,
        })
    }

    /// Whether the message `id` (a lowercase UUID v4) from `from` is remembered.
    pub fn contains(&self, from: String, id: String) -> Result<bool, AipError> {
        let id = envelope::parse_uuid_v4(&id)?;
        Ok(self.lock().contains(replay_key(&from, id)))
    }

    /// The generation of the last snapshot written or restored (0 before any).
    pub fn generation(&self) -> u64 {
        self.lock().generation()
    }

    /// Ids currently remembered.
    pub fn len(&self) -> u64 {
        self.lock().len() as u64
    }

    /// True when no id is remembered.
    pub fn is_empty(&self) -> bool {
        self.lock().is_empty()
    }

    /// The fixed capacity (1,024, 16,384 or 65,536).
    pub fn capacity(&self) -> u64 {
        self.lock().capacity() as u64
    }

    /// The window's state as versioned, checksummed bytes (76 + 28 per message remembered,
    /// one generation more), for `restore` after a restart.
    /// Save it before acting on a `Fresh` verdict. The checksum detects accidents, not
    /// tampering: see `snapshot_sealed`.
    pub fn snapshot(&self) -> Result<Vec<u8>, AipError> {
        Ok(concordia_host::replay::snapshot(&mut *self.lock())?)
    }

    /// The snapshot sealed with HMAC-SHA256 under `mac_key` (at least 16 bytes, kept
    /// outside the file) and bound to `owner` (e.g. the recipient's DID; may be empty), so
    /// an edited snapshot, another key's or another owner's does not restore.
    pub fn snapshot_sealed(&self, mac_key: Vec<u8>, owner: Vec<u8>) -> Result<Vec<u8>, AipError> {
        let i = Integrity { mac_key: Some(&mac_key), owner: &owner, min_generation: 0 };
        Ok(concordia_host::replay::snapshot_sealed(&mut *self.lock(), &i)?)
    }

    /// Replaces the window's state with a snapshot. Fails closed: bytes that are truncated,
    /// corrupt, of another version (version 1 included) or with more messages than the
    /// capacity are refused (`Encoding`, or `Limit`; `Binding` for a sealed snapshot), and
    /// the window is then emptied and cold-started at `now` (see
    /// `cold_start`). A snapshot of a window that never
    /// accepted anything restores as a cold start at `now`.
    pub fn restore(&self, snapshot: Vec<u8>, now: SystemTime) -> Result<(), AipError> {
        let now = timestamp(now)?;
        Ok(self.lock().restore(&snapshot, now)?)
    }

    /// As `restore`, checking the snapshot's HMAC-SHA256 under
    /// `mac_key` and `owner` and that its generation is at least `min_generation`: an
    /// edited snapshot, another key's or owner's, an unsealed one or an older generation
    /// (rollback) is `Binding`, fail closed.
    pub fn restore_sealed(
        &self,
        snapshot: Vec<u8>,
        now: SystemTime,
        mac_key: Vec<u8>,
        owner: Vec<u8>,
        min_generation: u64,
    ) -> Result<(), AipError> {
        let now = timestamp(now)?;
        let i = Integrity { mac_key: Some(&mac_key), owner: &owner, min_generation };
        Ok(self.lock().restore_sealed(&snapshot, now, &i)?)
    }

    /// Forgets every message and starts cold at `now` (call it when there is no snapshot
    /// to restore): envelopes created at or before `now + MAX_FUTURE_SKEW` are refused
    /// (`Temporal`) until `now + WINDOW + MAX_FUTURE_SKEW` (docs/limits.md), since the lost
    /// window may have accepted them.
    pub fn cold_start(&self, now: SystemTime) -> Result<(), AipError> {
        let now = timestamp(now)?;
        self.lock().cold_start(now);
        Ok(())
    }

    /// Drops the cold-start guard: the caller explicitly accepts that envelopes created
    /// before the cold start may be replays.
    pub fn end_cold_start(&self) {
        self.lock().end_cold_start();
    }

    /// Whether a cold-start guard is in force.
    pub fn is_cold_started(&self) -> bool {
        self.lock().cold_start_guard().is_some()
    }
}

// --------------------------------------------------------------------------- credentials

/// A verified credential.
#[derive(Debug, Clone, PartialEq, Eq, Hash, uniffi::Record)]
pub struct AipVerifiedCredential {
    /// The issuer DID (a `did:key`).
    pub issuer: String,
    /// `credentialSubject.id`, when present.
    pub subject: Option<String>,
    /// The 32-byte Ed25519 key that signed.
    pub public_key: Vec<u8>,
}

/// Adds an `eddsa-jcs-2022` Data Integrity proof to `credential_json` (an object without
/// `proof` whose `issuer` is `key_pair`'s `did:key`, see `aip_did_key`) and returns the
/// secured credential as canonical JSON. `created` is an optional RFC 3339 time for the
/// proof.
#[uniffi::export(default(created = None))]
pub fn aip_vc_issue(
    key_pair: Arc<KeyPair>,
    credential_json: String,
    created: Option<String>,
) -> Result<String, AipError> {
    let mut nodes = concordia_host::Nodes::new();
    let doc = parse(credential_json.as_bytes(), &mut nodes)?;
    let out =
        write_vec(credential_json.len() * 2 + 1024, |buf| vc::issue(doc.root(), &key_pair.0, created.as_deref(), buf))?;
    Ok(utf8(out))
}

/// Verifies the `eddsa-jcs-2022` proof of a credential (the `did:key` resolved locally),
/// that the signer is the `issuer`, that the issuer is one of `anchors` (`None`: any
/// issuer), that the credential `id` (decoded) is not in `revoked`, its validity period and
/// the proof's `created`/`expires` at `now` (`None`: the OS clock; `check_time = false`
/// skips them, and excludes `now`), and that the proof carries `domain` and `challenge`
/// when given: the one composition of every surface
/// (`concordia_host::vc::verify_credential`). An issuer or `credentialSubject.id` written
/// with JSON escapes is `Schema`.
#[uniffi::export(default(anchors = None, revoked = [], now = None, check_time = true, domain = None, challenge = None))]
pub fn aip_vc_verify(
    credential_json: String,
    anchors: Option<Vec<String>>,
    revoked: Vec<String>,
    now: Option<SystemTime>,
    check_time: bool,
    domain: Option<String>,
    challenge: Option<String>,
) -> Result<AipVerifiedCredential, AipError> {
    let time = VcTime::from_args(now.map(timestamp).transpose()?, check_time)?;
    let mut nodes = concordia_host::Nodes::new();
    let v = VcArgs { anchors, revoked, domain, challenge, time }.verify(credential_json.as_bytes(), &mut nodes)?;
    Ok(AipVerifiedCredential {
        issuer: v.issuer.to_string(),
        subject: v.subject.map(str::to_string),
        public_key: v.key.as_bytes().to_vec(),
    })
}

/// A credential proof that verified on its own.
#[derive(Debug, Clone, PartialEq, Eq, Hash, uniffi::Record)]
pub struct AipProofVerified {
    /// The proof's `verificationMethod` (a `did:key` URL).
    pub verification_method: String,
    /// The 32-byte Ed25519 key that signed.
    pub public_key: Vec<u8>,
}

/// Verifies the `eddsa-jcs-2022` proof of a credential alone (its `did:key` signature),
/// without the issuer binding, anchors, revocation or validity period (`concordia aip vc
/// verify --proof-only`).
#[uniffi::export]
pub fn aip_vc_verify_proof(credential_json: String) -> Result<AipProofVerified, AipError> {
    let mut nodes = concordia_host::Nodes::new();
    let v = verify_credential_proof(credential_json.as_bytes(), &mut nodes)?;
    Ok(AipProofVerified {
        verification_method: v.verification_method.to_string(),
        public_key: v.key.as_bytes().to_vec(),
    })
}

// --------------------------------------------------------------------------- trust

/// One verified credential of the trust graph: `issuer` vouches for `subject`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, uniffi::Record)]
pub struct AipCredentialEdge {
    /// Issuer DID.
    pub issuer: String,
    /// Subject DID.
    pub subject: String,
    /// Whether the credential has been revoked.
    #[uniffi(default = false)]
    pub revoked: bool,
}

/// An interaction outcome for the trust score.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, uniffi::Enum)]
pub enum AipTrustEvent {
    /// A successful, valid interaction.
    Success,
    /// A failed interaction or a validation error.
    Failure,
    /// A credential of the agent was revoked.
    Revocation,
}

impl From<AipTrustEvent> for trust::Event {
    fn from(e: AipTrustEvent) -> Self {
        match e {
            AipTrustEvent::Success => trust::Event::Success,
            AipTrustEvent::Failure => trust::Event::Failure,
            AipTrustEvent::Revocation => trust::Event::Revocation,
        }
    }
}

/// One search result to rank.
#[derive(Debug, Clone, Copy, PartialEq, uniffi::Record)]
pub struct AipCandidate {
    /// Rank in the semantic list (from 1), if present there.
    pub semantic_rank: Option<u32>,
    /// Rank in the full-text list (from 1), if present there.
    pub fts_rank: Option<u32>,
    /// Trust score in `[0, 1]`.
    pub trust_score: f64,
}

/// A ranked result.
#[derive(Debug, Clone, Copy, PartialEq, uniffi::Record)]
pub struct AipRanked {
    /// Position of the candidate in the input list.
    pub index: u64,
    /// Its Reciprocal Rank Fusion score.
    pub rrf: f64,
    /// Its final score, `rrf * (1 + 0.3 * trust_score)`.
    pub final_score: f64,
}

/// The credential ceiling of `subject`: 1 for an anchor, else the best over non-revoked
/// credential paths from an anchor (at most 4 hops) of 0.5 per hop; 0 without a path.
#[uniffi::export]
pub fn aip_trust_ceiling(
    subject: String,
    edges: Vec<AipCredentialEdge>,
    anchors: Vec<String>,
) -> Result<f64, AipError> {
    let edges: Vec<trust::Edge<'_>> =
        edges.iter().map(|e| trust::Edge { issuer: &e.issuer, subject: &e.subject, revoked: e.revoked }).collect();
    let anchors: Vec<&str> = anchors.iter().map(String::as_str).collect();
    Ok(trust::credential_ceiling(&subject, &edges, &anchors)?)
}

/// Applies one event to a trust score under `ceiling`: a success closes 5% of the gap to
/// the ceiling, a failure halves the score, a revocation zeroes it.
#[uniffi::export]
pub fn aip_trust_update(score: f64, ceiling: f64, event: AipTrustEvent) -> f64 {
    trust::update(score, ceiling, event.into())
}

/// The trust score of a history of events, folded from 0 under `ceiling`.
#[uniffi::export]
pub fn aip_trust_score(ceiling: f64, history: Vec<AipTrustEvent>) -> f64 {
    trust::score(ceiling, history.into_iter().map(trust::Event::from))
}

/// Reciprocal Rank Fusion, `1 / (60 + semantic_rank) + 1 / (60 + fts_rank)`; a missing
/// rank contributes 0; ranks start at 1.
#[uniffi::export(default(semantic_rank = None, fts_rank = None))]
pub fn aip_rrf(semantic_rank: Option<u32>, fts_rank: Option<u32>) -> Result<f64, AipError> {
    Ok(trust::rrf(semantic_rank, fts_rank)?)
}

/// The final score `rrf * (1 + 0.3 * trust_score)`, `trust_score` in `[0, 1]`.
#[uniffi::export]
pub fn aip_final_score(rrf: f64, trust_score: f64) -> Result<f64, AipError> {
    Ok(trust::final_score(rrf, trust_score)?)
}

/// Scores and orders `candidates` by final score, descending (ties: higher RRF, then
/// input order).
#[uniffi::export]
pub fn aip_rank(candidates: Vec<AipCandidate>) -> Result<Vec<AipRanked>, AipError> {
    let cands: Vec<trust::Candidate> = candidates
        .iter()
        .map(|c| trust::Candidate { semantic_rank: c.semantic_rank, fts_rank: c.fts_rank, trust_score: c.trust_score })
        .collect();
    let mut out = vec![trust::Ranked::default(); cands.len()];
    let n = trust::rank(&cands, &mut out)?;
    Ok(out
        .iter()
        .take(n)
        .map(|r| AipRanked { index: r.index as u64, rrf: r.rrf, final_score: r.final_score })
        .collect())
}
