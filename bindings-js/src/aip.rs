//! AIP, the Agent Interaction Protocol (`concordia_core::aip`): handles and `did:aip`,
//! DID Documents and route selection, AIP key pairs (Ed25519 + X25519), sealed envelopes,
//! the replay window, `eddsa-jcs-2022` credentials and trust-weighted ranking.
//!
//! The rules are the core's: this file converts types, owns buffers and supplies WebCrypto
//! randomness (key generation, HPKE ephemeral key material, message ids). Route modes,
//! verdicts, capacities and trust events are lowercase words (`direct`, `fresh`, `small`,
//! `success`, ...).

use concordia_core::aip::did::{self, DidDocument, Route, RouteMode};
use concordia_core::aip::envelope::{self, Envelope, Header};
use concordia_core::aip::handle::{self, Handle};
use concordia_core::aip::hpke::{self, X25519SecretKey};
use concordia_core::aip::replay::{replay_key, Integrity, Verdict};
use concordia_core::aip::{trust, vc};
use concordia_core::sign::KeyPair as CoreKeyPair;
use concordia_core::sink::SliceSink;
use concordia_core::{jcs, Error};
use js_sys::Uint8Array;
use wasm_bindgen::prelude::*;

use concordia_host::aip::{open_envelope, Addressee, Delivery, Freshness, KeyFile, OpenPolicy, REPLAY};
use concordia_host::replay::{new_window, Capacity, HostReplayWindow};
use concordia_host::vc::{verify_credential_proof, VcArgs, VcTime};
use concordia_host::zeroize::Zeroizing;

use crate::errors::{random32, JsError, JsResult};
use crate::keys::KeyPair;
use crate::util::{elements, get, named, opt_u32, string, strings, timestamp, utf8, Obj};

/// A 32-byte secret from an argument, erased when dropped.
fn seed32(bytes: &[u8], what: &'static str) -> JsResult<Zeroizing<[u8; 32]>> {
    let b: [u8; 32] = bytes.try_into().map_err(|_| JsError::from(Error::InvalidArgument(what)))?;
    Ok(Zeroizing::new(b))
}

fn bytes(b: &[u8]) -> JsValue {
    Uint8Array::from(b).into()
}

// --------------------------------------------------------------------------- handles

fn handle_object(h: &Handle) -> JsValue {
    Obj::new()
        .set("name", h.name())
        .set("domain", h.domain())
        .set("handle", h.handle().as_str())
        .set("urlForm", h.url_form().as_str())
        .set("atForm", h.at_form().as_str())
        .set("did", h.did().as_str())
        .build()
}

/// Parses a handle written `name#domain`, `name%23domain`, `@name@domain` or
/// `did:aip:<domain>:<name>`; returns `{name, domain, handle, urlForm, atForm, did}`.
///
/// # Errors
/// `InputError` for text that is no handle.
#[wasm_bindgen(js_name = aipParseHandle)]
pub fn aip_parse_handle(text: &str) -> JsResult<JsValue> {
    Ok(handle_object(&handle::parse_any(text)?))
}

/// The handle of `name` at `domain`, checked against the handle grammar.
///
/// # Errors
/// `InputError` for a name or domain outside the grammar.
#[wasm_bindgen(js_name = aipHandle)]
pub fn aip_handle(name: &str, domain: &str) -> JsResult<JsValue> {
    Ok(handle_object(&Handle::new(name, domain)?))
}

// --------------------------------------------------------------------------- DID Documents

fn mode_name(m: RouteMode) -> &'static str {
    match m {
        RouteMode::Direct => "direct",
        RouteMode::Relay => "relay",
    }
}

fn with_document<T>(json: &str, f: impl FnOnce(&DidDocument<'_>) -> JsResult<T>) -> JsResult<T> {
    let mut nodes = concordia_host::Nodes::new();
    let doc = nodes.parse(json.as_bytes())?;
    f(&did::document_from_value(doc.root())?)
}

/// Reads the AIP subset of a DID Document (JSON text): `{id, subject (a handle object),
/// routeMode, endpoint, signingKeys: Uint8Array[], agreementKeys: Uint8Array[]}`.
///
/// # Errors
/// `SchemaError` for a document without the required shape, `LimitError` for more than 4
/// keys of a kind, `InputError` for malformed JSON, DIDs or multikeys.
#[wasm_bindgen(js_name = aipParseDidDocument)]
pub fn aip_parse_did_document(did_document_json: &str) -> JsResult<JsValue> {
    with_document(did_document_json, |d| {
        let signing: Vec<JsValue> = d.signing_keys.iter().map(|k| bytes(k.as_bytes())).collect();
        let agreement: Vec<JsValue> = d.agreement_keys.iter().map(|k| bytes(&k.0)).collect();
        Ok(Obj::new()
            .set("id", d.id)
            .set("subject", handle_object(&d.subject))
            .set("routeMode", mode_name(d.route_mode))
            .set("endpoint", d.endpoint)
            .set("signingKeys", signing.into_iter().collect::<js_sys::Array>())
            .set("agreementKeys", agreement.into_iter().collect::<js_sys::Array>())
            .build())
    })
}

/// How to deliver to the subject of a DID Document: `{mode: "direct", endpoint}` when its
/// route mode is `direct` and the caller found the endpoint reachable, else `{mode:
/// "relay", endpoint}` (the document's relay endpoint, or `undefined` when a direct
/// endpoint is unreachable).
///
/// # Errors
/// As `aip_parse_did_document`.
#[wasm_bindgen(js_name = aipSelectRoute)]
pub fn aip_select_route(did_document_json: &str, endpoint_reachable: bool) -> JsResult<JsValue> {
    with_document(did_document_json, |d| {
        Ok(match did::select_route(d, endpoint_reachable) {
            Route::Direct(e) => Obj::new().set("mode", "direct").set("endpoint", e).build(),
            Route::Relay(e) => {
                Obj::new().set("mode", "relay").set("endpoint", e.map_or(JsValue::UNDEFINED, JsValue::from)).build()
            }
        })
    })
}

// --------------------------------------------------------------------------- keys

/// An AIP agent's key pair: Ed25519 (signs envelopes and credentials) and X25519 (opens
/// sealed bodies).
#[wasm_bindgen]
pub struct AipKeyPair {
    ed: CoreKeyPair,
    x: X25519SecretKey,
    /// The agent's own `did:aip`, when known: `aip_open` then checks that an envelope is
    /// addressed to it, as `concordia aip open` does with a key file's `did`.
    did: Option<String>,
}

#[wasm_bindgen]
impl AipKeyPair {
    /// A new key pair from WebCrypto randomness: an Ed25519 seed, and the X25519 key pair
    /// RFC 9180 `DeriveKeyPair` makes of 32 more random bytes.
    ///
    /// # Errors
    /// `RandomnessError` when WebCrypto fails.
    pub fn generate() -> JsResult<AipKeyPair> {
        // Erased when dropped.
        let (ed_seed, ikm) = (random32()?, random32()?);
        let ed = CoreKeyPair::from_seed(&ed_seed);
        let (x, _) = hpke::derive_keypair(&*ikm);
        Ok(AipKeyPair { ed, x, did: None })
    }

    /// The key pair of a 32-byte Ed25519 seed and a 32-byte X25519 private key (the
    /// `ed25519_seed_hex` and `x25519_secret_hex` of a `concordia aip keygen` key file).
    ///
    /// # Errors
    /// `InputError` when either is not 32 bytes.
    #[wasm_bindgen(js_name = fromSeeds)]
    pub fn from_seeds(ed25519_seed: Vec<u8>, x25519_secret: Vec<u8>) -> JsResult<AipKeyPair> {
        // Owned (wasm-bindgen hands the copies over), so that they are erased when dropped.
        let (ed25519_seed, x25519_secret) = (Zeroizing::new(ed25519_seed), Zeroizing::new(x25519_secret));
        let ed = CoreKeyPair::from_seed(&*seed32(&ed25519_seed, "Ed25519 seed must be 32 bytes")?);
        let x = X25519SecretKey(*seed32(&x25519_secret, "X25519 secret key must be 32 bytes")?);
        Ok(AipKeyPair { ed, x, did: None })
    }

    /// The keys of a `concordia aip keygen` key file (JSON text: `ed25519_seed_hex`,
    /// `x25519_secret_hex` and, when present, the agent's `did`, which `aip_open` then
    /// checks envelopes against).
    ///
    /// # Errors
    /// `SchemaError` / `InputError` for a file that is not a key file with both keys.
    #[wasm_bindgen(js_name = fromKeyFile)]
    pub fn from_key_file(key_file_json: String) -> JsResult<AipKeyPair> {
        // Owned (wasm-bindgen hands the copy over), so that it is erased when dropped.
        let key_file_json = Zeroizing::new(key_file_json);
        let kf = KeyFile::from_json(key_file_json.as_bytes())?;
        let x = kf.x.ok_or(Error::Schema(concordia_host::aip::NO_X25519))?;
        Ok(AipKeyPair { ed: kf.ed, x, did: kf.did })
    }

    /// The keys `concordia aip keygen --seed <hex of seed>` makes from one 32-byte seed
    /// (for tests and examples only), with the agent's `did` when given.
    ///
    /// # Errors
    /// `InputError` for a seed that is not 32 bytes or a DID that is no `did:aip`.
    #[wasm_bindgen(js_name = fromKeygenSeed)]
    pub fn from_keygen_seed(seed: Vec<u8>, did: Option<String>) -> JsResult<AipKeyPair> {
        let seed = Zeroizing::new(seed);
        let kf = KeyFile::from_seed(&*seed32(&seed, "seed must be 32 bytes")?, did)?;
        let x = kf.x.ok_or(Error::Schema(concordia_host::aip::NO_X25519))?;
        Ok(AipKeyPair { ed: kf.ed, x, did: kf.did })
    }

    /// The same keys for the agent `did` (a `did:aip`): `aip_open` then checks that an
    /// envelope is addressed to it.
    ///
    /// # Errors
    /// `InputError` for a DID that is no `did:aip`.
    #[wasm_bindgen(js_name = withDid)]
    pub fn with_did(&self, did: &str) -> JsResult<AipKeyPair> {
        did::parse_did(did)?;
        Ok(AipKeyPair { ed: self.ed.clone(), x: self.x.clone(), did: Some(did.to_string()) })
    }

    /// The agent's own `did:aip`, if known.
    pub fn did(&self) -> Option<String> {
        self.did.clone()
    }

    /// The key file, exactly as `concordia aip keygen` prints it (with the final newline).
    /// It holds both secrets.
    ///
    /// # Errors
    /// None in practice (the core writes the file).
    #[wasm_bindgen(js_name = keyFileJson)]
    pub fn key_file_json(&self) -> JsResult<String> {
        let kf = KeyFile { did: self.did.clone(), ed: self.ed.clone(), x: Some(self.x.clone()) };
        let json = kf.to_json()?;
        let mut text = String::with_capacity(json.len() + 1);
        text.push_str(std::str::from_utf8(&json).map_err(|_| Error::Encoding("key file"))?);
        text.push('\n');
        Ok(text)
    }

    /// The 32-byte Ed25519 seed. Keep it secret.
    #[wasm_bindgen(js_name = ed25519Seed)]
    pub fn ed25519_seed(&self) -> Vec<u8> {
        self.ed.seed().to_vec()
    }

    /// The 32-byte X25519 private key. Keep it secret.
    #[wasm_bindgen(js_name = x25519Secret)]
    pub fn x25519_secret(&self) -> Vec<u8> {
        self.x.0.to_vec()
    }

    /// The 32-byte Ed25519 public key.
    #[wasm_bindgen(js_name = ed25519PublicKey)]
    pub fn ed25519_public_key(&self) -> Vec<u8> {
        self.ed.public_key().as_bytes().to_vec()
    }

    /// The 32-byte X25519 public key.
    #[wasm_bindgen(js_name = x25519PublicKey)]
    pub fn x25519_public_key(&self) -> Vec<u8> {
        self.x.public_key().0.to_vec()
    }

    /// The Ed25519 public key as a multikey (`z6Mk...`).
    #[wasm_bindgen(js_name = ed25519Multibase)]
    pub fn ed25519_multibase(&self) -> String {
        did::encode_multikey(self.ed.public_key().as_bytes(), concordia_core::did_key::ED25519_MULTICODEC)
            .as_str()
            .to_string()
    }

    /// The X25519 public key as a multikey (`z6LS...`).
    #[wasm_bindgen(js_name = x25519Multibase)]
    pub fn x25519_multibase(&self) -> String {
        did::encode_multikey(&self.x.public_key().0, did::X25519_MULTICODEC).as_str().to_string()
    }

    /// This key pair's DID Document for `did` (a `did:aip`) in RFC 8785 form, with
    /// `routeMode` `direct` or `relay` and `endpoint` an `https`, `http` or `wss` URL.
    ///
    /// # Errors
    /// `InputError` for a DID that is no `did:aip` or an unknown mode, `SchemaError` for a
    /// bad endpoint.
    #[wasm_bindgen(js_name = didDocument)]
    pub fn did_document(&self, did: &str, route_mode: &str, endpoint: &str) -> JsResult<String> {
        let subject = did::parse_did(did)?;
        let mode =
            named(route_mode, &[RouteMode::Direct, RouteMode::Relay], mode_name, "routeMode must be direct or relay")?;
        let (ed, x) = (self.ed.public_key(), self.x.public_key());
        let out = concordia_host::write_vec(512, |buf| {
            let mut sink = SliceSink::new(buf);
            did::write_document(&subject, mode, endpoint, &ed, &x, &mut sink)?;
            sink.finish()
        })?;
        Ok(utf8(out))
    }

    /// The Ed25519 key's `did:key` (a credential issuer).
    #[wasm_bindgen(js_name = didKey)]
    pub fn did_key(&self) -> String {
        concordia_core::did_key::encode(&self.ed.public_key()).as_str().to_string()
    }

    /// The Ed25519 half as a `KeyPair`.
    #[wasm_bindgen(js_name = signingKey)]
    pub fn signing_key(&self) -> KeyPair {
        KeyPair(self.ed.clone())
    }
}

/// The `did:key` of an Ed25519 key pair (the `issuer` of the credentials it issues).
#[wasm_bindgen(js_name = aipDidKey)]
pub fn aip_did_key(key_pair: &KeyPair) -> String {
    concordia_core::did_key::encode(&key_pair.0.public_key()).as_str().to_string()
}

// --------------------------------------------------------------------------- envelopes

fn header_object(h: &Header<'_>) -> JsValue {
    Obj::new()
        .set("id", h.id)
        .set("from", h.from)
        .set("to", h.to)
        .set("messageType", h.kind)
        .set("createdAt", h.created_at)
        .build()
}

/// A new message id: a lowercase UUID v4 from WebCrypto randomness.
///
/// # Errors
/// `RandomnessError` when WebCrypto fails.
#[wasm_bindgen(js_name = aipNewMessageId)]
pub fn aip_new_message_id() -> JsResult<String> {
    let r = random32()?;
    let mut b = [0u8; 16];
    b.copy_from_slice(&r[..16]);
    Ok(concordia_host::uuid_v4(b)?)
}

/// Seals `bodyJson` (written canonical) to the first X25519 `keyAgreement` key of the
/// recipient's DID Document, signs the envelope with `sender`'s Ed25519 key and returns it
/// as canonical JSON. `header` is `{id, from, messageType, createdAt}`; `to` is the
/// recipient document's `id`.
///
/// # Errors
/// `SchemaError` for header fields or a document without the required shape, `InputError`
/// for malformed JSON, `RandomnessError` when WebCrypto fails.
#[wasm_bindgen(js_name = aipSeal)]
pub fn aip_seal(
    sender: &AipKeyPair,
    recipient_did_document_json: &str,
    header: &JsValue,
    body_json: &str,
) -> JsResult<String> {
    let id = string(header, "id", "header.id must be a string")?;
    let from = string(header, "from", "header.from must be a string")?;
    let kind = string(header, "messageType", "header.messageType must be a string")?;
    let created_at = string(header, "createdAt", "header.createdAt must be a string")?;
    let mut body_nodes = concordia_host::Nodes::new();
    let body_doc = body_nodes.parse(body_json.as_bytes())?;
    // The canonical form is never longer than the input.
    let body = concordia_host::write_vec(body_json.len(), |buf| jcs::write_to_slice(body_doc.root(), buf))?;
    with_document(recipient_did_document_json, |rdoc| {
        let recipient = rdoc
            .agreement_keys
            .first()
            .ok_or(Error::Schema("recipient DID Document has no X25519 keyAgreement key"))?;
        let h = Header { id: &id, from: &from, to: rdoc.id, kind: &kind, created_at: &created_at };
        // Erased when dropped.
        let ikm = random32()?;
        let size = body.len() * 4 / 3 + 1024;
        let out = concordia_host::write_vec(size, |buf| envelope::seal(&h, recipient, &body, &ikm, &sender.ed, buf));
        Ok(utf8(out?))
    })
}

fn with_envelope<T>(json: &str, f: impl FnOnce(&Envelope<'_>) -> JsResult<T>) -> JsResult<T> {
    let mut nodes = concordia_host::Nodes::new();
    let doc = nodes.parse(json.as_bytes())?;
    f(&envelope::from_value(doc.root())?)
}

/// Checks an envelope's shape without its signature or body; returns its header `{id,
/// from, to, messageType, createdAt}`.
///
/// # Errors
/// `SchemaError` for another shape, `InputError` for malformed JSON.
#[wasm_bindgen(js_name = aipParseEnvelope)]
pub fn aip_parse_envelope(envelope_json: &str) -> JsResult<JsValue> {
    with_envelope(envelope_json, |e| Ok(header_object(&e.header)))
}

/// Verifies an envelope against the sender's DID Document (`from` is its `id`, `sig`
/// verifies under one of its Ed25519 keys); returns the header.
///
/// # Errors
/// `SignatureError`, `BindingError`, `SchemaError` or `InputError`.
#[wasm_bindgen(js_name = aipVerifyEnvelope)]
pub fn aip_verify_envelope(sender_did_document_json: &str, envelope_json: &str) -> JsResult<JsValue> {
    with_document(sender_did_document_json, |sdoc| {
        with_envelope(envelope_json, |e| {
            e.verify_from(sdoc)?;
            Ok(header_object(&e.header))
        })
    })
}

/// Opens an envelope as its recipient: every check of the one composition
/// (`concordia_host::aip::open_envelope`, as `concordia aip open`), in its order: the
/// signature under the sender's DID Document, the addressee (`to` must be `recipientDid`,
/// else the key pair's DID from a key file's `did` or `withDid`; without either an
/// `InputError`, unless `anyRecipient` skips the check by name), the body opens with
/// `recipient`'s X25519 key, then freshness at `now` (`undefined`: the JavaScript clock;
/// `skipFreshness` skips it by name): `createdAt` within the replay window's bounds (at
/// most `MAX_FUTURE_SKEW` ahead, at most `WINDOW` old: docs/limits.md).
/// Returns `{header, bodyJson}`. The package's `aipOpen(recipient, doc, envelope,
/// {now, window, recipientDid, anyRecipient, skipFreshness})` calls this or
/// `aip_open_window`.
///
/// # Errors
/// `InputError` (no or a malformed recipient DID, malformed JSON), `SignatureError` (also
/// when the body does not open), `BindingError`, `TemporalError`, `SchemaError`.
#[wasm_bindgen(js_name = aipOpenNoWindow)]
pub fn aip_open(
    recipient: &AipKeyPair,
    sender_did_document_json: &str,
    envelope_json: &str,
    now: &JsValue,
    recipient_did: Option<String>,
    any_recipient: bool,
    skip_freshness: bool,
) -> JsResult<JsValue> {
    let freshness = freshness(now, skip_freshness)?;
    let addressee = Addressee::from_args(recipient_did.as_deref(), recipient.did.as_deref(), any_recipient)?;
    open_with(recipient, sender_did_document_json, envelope_json, OpenPolicy { freshness, addressee, window: None })
}

/// As `aip_open`, with `window`'s replay check instead of the freshness check alone: an
/// id the window has already seen is a `ReplayError` (class `replay`; acknowledge it, do
/// not process it again). The window remembers only envelopes that passed every other
/// check.
///
/// # Errors
/// As `aip_open`; `ReplayError`; `LimitError` for a full window.
#[wasm_bindgen(js_name = aipOpenWindow)]
#[allow(clippy::too_many_arguments)]
pub fn aip_open_window(
    recipient: &AipKeyPair,
    sender_did_document_json: &str,
    envelope_json: &str,
    now: &JsValue,
    recipient_did: Option<String>,
    any_recipient: bool,
    skip_freshness: bool,
    window: &mut AipReplayWindow,
) -> JsResult<JsValue> {
    let freshness = freshness(now, skip_freshness)?;
    let addressee = Addressee::from_args(recipient_did.as_deref(), recipient.did.as_deref(), any_recipient)?;
    let policy = OpenPolicy { freshness, addressee, window: Some(&mut window.inner) };
    open_with(recipient, sender_did_document_json, envelope_json, policy)
}

/// The freshness argument: skipped by name, at `now`, or (`undefined`) at the JavaScript
/// clock, which is the host's clock here (WebAssembly has no other).
fn freshness(now: &JsValue, skip: bool) -> JsResult<Freshness> {
    Ok(match now {
        _ if skip => Freshness::Unchecked,
        n if n.is_undefined() || n.is_null() => Freshness::At(timestamp(&JsValue::from_f64(js_sys::Date::now()))?),
        n => Freshness::At(timestamp(n)?),
    })
}

fn open_with(recipient: &AipKeyPair, doc: &str, env: &str, policy: OpenPolicy<'_>) -> JsResult<JsValue> {
    let opened = open_envelope(env.as_bytes(), doc.as_bytes(), &recipient.x, policy).map_err(Error::from)?;
    match opened.delivery {
        Delivery::Fresh(body) => {
            let body = String::from_utf8(body).map_err(|_| Error::Encoding("body is not UTF-8"))?;
            Ok(Obj::new().set("header", header_object(&opened.header)).set("bodyJson", body).build())
        }
        Delivery::Duplicate => Err(JsError::Replay(format!("envelope {}: {REPLAY}", opened.header.id))),
    }
}

// --------------------------------------------------------------------------- replay window

type Window = HostReplayWindow;

/// A replay window for at-least-once relay delivery: remembers message ids for `WINDOW`
/// and rejects `createdAt` more than `MAX_FUTURE_SKEW` ahead of `now` or older than
/// `WINDOW` (the core's constants, docs/limits.md). A failed check
/// leaves it unchanged. Survives restarts through `snapshot()` and `restore()`.
#[wasm_bindgen]
pub struct AipReplayWindow {
    inner: Window,
}

#[wasm_bindgen]
impl AipReplayWindow {
    /// An empty window of capacity `small` (1,024 ids), `medium` (16,384) or `large`
    /// (65,536).
    ///
    /// # Errors
    /// `InputError` for another capacity, `LimitError` when memory runs out.
    #[wasm_bindgen(constructor)]
    pub fn new(capacity: &str) -> JsResult<AipReplayWindow> {
        let keys = Capacity::parse(capacity)?.keys();
        Ok(AipReplayWindow { inner: new_window(keys)? })
    }

    /// Checks one delivery of message `id` (a lowercase UUID v4) from `from` (the sender's
    /// DID, the envelope's signed `from`) created at `createdAt` (RFC 3339) against `now`
    /// (a `Date`): `fresh` (remembered now) or `duplicate` (only a copy from the same
    /// sender).
    ///
    /// # Errors
    /// `TemporalError` outside the window or not after a cold-start guard, `LimitError`
    /// when every slot is in use, `SchemaError` / `InputError` for a malformed id or time.
    pub fn check(&mut self, from: &str, id: &str, created_at: &str, now: &JsValue) -> JsResult<String> {
        let id = envelope::parse_uuid_v4(id)?;
        let created = envelope::parse_rfc3339(created_at)?;
        let now = timestamp(now)?;
        Ok(match self.inner.check(replay_key(from, id), created, now)? {
            Verdict::Fresh => "fresh",
            Verdict::Duplicate => "duplicate",
        }
        .to_string())
    }

    /// Whether the message `id` (a lowercase UUID v4) from `from` is remembered.
    ///
    /// # Errors
    /// For a malformed id.
    pub fn contains(&self, from: &str, id: &str) -> JsResult<bool> {
        Ok(self.inner.contains(replay_key(from, envelope::parse_uuid_v4(id)?)))
    }

    /// The generation of the last snapshot written or restored (0 before any).
    #[allow(clippy::cast_precision_loss)]
    pub fn generation(&self) -> f64 {
        self.inner.generation() as f64
    }

    /// Ids currently remembered.
    #[allow(clippy::cast_precision_loss, clippy::len_without_is_empty)]
    pub fn len(&self) -> f64 {
        self.inner.len() as f64
    }

    /// True when no id is remembered.
    #[wasm_bindgen(js_name = isEmpty)]
    pub fn is_empty(&self) -> bool {
        self.inner.is_empty()
    }

    /// The fixed capacity.
    #[allow(clippy::cast_precision_loss)]
    pub fn capacity(&self) -> f64 {
        self.inner.capacity() as f64
    }

    /// The window's state as versioned, checksummed bytes (one generation more), for
    /// `restore` after a restart. Save it before acting on a `fresh` verdict. The checksum
    /// detects accidents, not tampering: see `snapshotSealed`.
    ///
    /// # Errors
    /// `LimitError` when memory runs out.
    pub fn snapshot(&mut self) -> JsResult<Vec<u8>> {
        Ok(concordia_host::replay::snapshot(&mut self.inner)?)
    }

    /// The snapshot sealed with HMAC-SHA256 under `macKey` (at least 16 bytes, kept outside
    /// the file) and bound to `owner` (e.g. the recipient's DID; may be empty).
    ///
    /// # Errors
    /// `InputError` for a short key; `LimitError` when memory runs out.
    #[wasm_bindgen(js_name = snapshotSealed)]
    pub fn snapshot_sealed(&mut self, mac_key: &[u8], owner: &[u8]) -> JsResult<Vec<u8>> {
        let i = Integrity { mac_key: Some(mac_key), owner, min_generation: 0 };
        Ok(concordia_host::replay::snapshot_sealed(&mut self.inner, &i)?)
    }

    /// Replaces the window's state with a snapshot. Fails closed: bytes that are truncated,
    /// corrupt or of another version (version 1 included), or sealed, are refused and the
    /// window is cold-started at `now`. A snapshot of a window that never accepted anything
    /// restores as a cold start at `now`.
    ///
    /// # Errors
    /// `InputError`, `BindingError` or `LimitError` for a refused snapshot.
    pub fn restore(&mut self, snapshot: &[u8], now: &JsValue) -> JsResult<()> {
        let now = timestamp(now)?;
        Ok(self.inner.restore(snapshot, now)?)
    }

    /// As `restore`, checking the snapshot's HMAC-SHA256 under `macKey` and `owner` and that
    /// its generation is at least `minGeneration`: an edited snapshot, another key's or
    /// owner's, an unsealed one or an older generation (rollback) is refused, fail closed.
    ///
    /// # Errors
    /// `BindingError` for those; as `restore` otherwise.
    #[wasm_bindgen(js_name = restoreSealed)]
    pub fn restore_sealed(
        &mut self,
        snapshot: &[u8],
        now: &JsValue,
        mac_key: &[u8],
        owner: &[u8],
        min_generation: f64,
    ) -> JsResult<()> {
        let now = timestamp(now)?;
        if !((0.0..=9_007_199_254_740_991.0).contains(&min_generation) && min_generation.fract() == 0.0) {
            return Err(Error::InvalidArgument("minGeneration must be a whole number from 0 to 2^53 - 1").into());
        }
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
        let i = Integrity { mac_key: Some(mac_key), owner, min_generation: min_generation as u64 };
        Ok(self.inner.restore_sealed(snapshot, now, &i)?)
    }

    /// Forgets every message and starts cold at `now`: envelopes created at or before
    /// `now + MAX_FUTURE_SKEW` are refused (`TemporalError`) until
    /// `now + WINDOW + MAX_FUTURE_SKEW` (docs/limits.md).
    ///
    /// # Errors
    /// `InputError` for a bad time.
    #[wasm_bindgen(js_name = coldStart)]
    pub fn cold_start(&mut self, now: &JsValue) -> JsResult<()> {
        let now = timestamp(now)?;
        self.inner.cold_start(now);
        Ok(())
    }

    /// Drops the cold-start guard.
    #[wasm_bindgen(js_name = endColdStart)]
    pub fn end_cold_start(&mut self) {
        self.inner.end_cold_start();
    }

    /// Whether a cold-start guard is in force.
    #[wasm_bindgen(js_name = isColdStarted)]
    pub fn is_cold_started(&self) -> bool {
        self.inner.cold_start_guard().is_some()
    }
}

// --------------------------------------------------------------------------- credentials

/// Adds an `eddsa-jcs-2022` Data Integrity proof to `credentialJson` (an object without
/// `proof` whose `issuer` is `keyPair`'s `did:key`) and returns it as canonical JSON.
/// `created` is an optional RFC 3339 time for the proof.
///
/// # Errors
/// `SchemaError` / `BindingError` / `InputError` from the core.
#[wasm_bindgen(js_name = aipVcIssue)]
pub fn aip_vc_issue(key_pair: &KeyPair, credential_json: &str, created: Option<String>) -> JsResult<String> {
    let mut nodes = concordia_host::Nodes::new();
    let doc = nodes.parse(credential_json.as_bytes())?;
    let out = concordia_host::write_vec(credential_json.len() * 2 + 1024, |buf| {
        vc::issue(doc.root(), &key_pair.0, created.as_deref(), buf)
    })?;
    Ok(utf8(out))
}

/// Verifies the `eddsa-jcs-2022` proof of a credential, that the signer is the `issuer`,
/// and with `options` `{anchors?: string[], revoked?: string[], now?: Date, checkTime?:
/// boolean, domain?: string, challenge?: string}` that the issuer is an anchor, the
/// credential (its `id` compared decoded) is not revoked, it and its proof are valid at
/// `now` (default: the clock, `Date.now()`; `checkTime: false` skips the time checks and
/// excludes `now`), and the proof carries `domain`/`challenge` when given: the one
/// composition of every surface (`concordia_host::vc::verify_credential`). Returns
/// `{issuer, subject, publicKey}`.
///
/// # Errors
/// `SignatureError`, `BindingError`, `TemporalError`, `SchemaError` or `InputError`.
#[wasm_bindgen(js_name = aipVcVerify)]
pub fn aip_vc_verify(credential_json: &str, options: &JsValue) -> JsResult<JsValue> {
    let given = !options.is_undefined() && !options.is_null();
    let member = |k: &str| if given { get(options, k) } else { Ok(JsValue::UNDEFINED) };
    let absent = |v: &JsValue| v.is_undefined() || v.is_null();
    let anchors_v = member("anchors")?;
    let anchors = if absent(&anchors_v) {
        None
    } else {
        Some(strings(&anchors_v, "options.anchors must be an array of strings")?)
    };
    let revoked_v = member("revoked")?;
    let revoked = if absent(&revoked_v) {
        Vec::new()
    } else {
        strings(&revoked_v, "options.revoked must be an array of strings")?
    };
    let text = |k: &str, what: &'static str| -> JsResult<Option<String>> {
        let v = member(k)?;
        if absent(&v) {
            return Ok(None);
        }
        v.as_string().map(Some).ok_or_else(|| Error::InvalidArgument(what).into())
    };
    let domain = text("domain", "options.domain must be a string")?;
    let challenge = text("challenge", "options.challenge must be a string")?;
    let check_v = member("checkTime")?;
    let check_time = if absent(&check_v) {
        true
    } else {
        check_v.as_bool().ok_or(Error::InvalidArgument("options.checkTime must be a boolean"))?
    };
    let now_v = member("now")?;
    let now = if absent(&now_v) { None } else { Some(timestamp(&now_v)?) };
    let time = match VcTime::from_args(now, check_time)? {
        // wasm32 has no OS clock for the host layer to read: the clock here is JavaScript's.
        VcTime::Clock => VcTime::At(timestamp(&JsValue::from_f64(js_sys::Date::now()))?),
        t => t,
    };
    let mut nodes = concordia_host::Nodes::new();
    let v = VcArgs { anchors, revoked, domain, challenge, time }.verify(credential_json.as_bytes(), &mut nodes)?;
    Ok(Obj::new()
        .set("issuer", v.issuer)
        .set("subject", v.subject.map_or(JsValue::UNDEFINED, JsValue::from))
        .set("publicKey", bytes(v.key.as_bytes()))
        .build())
}

/// Verifies the `eddsa-jcs-2022` proof of a credential alone (its `did:key` signature),
/// without the issuer binding, anchors, revocation or validity period (`concordia aip vc
/// verify --proof-only`): `{verificationMethod, publicKey}`.
///
/// # Errors
/// `SignatureError`, `SchemaError` or `InputError`.
#[wasm_bindgen(js_name = aipVcVerifyProof)]
pub fn aip_vc_verify_proof(credential_json: &str) -> JsResult<JsValue> {
    let mut nodes = concordia_host::Nodes::new();
    let v = verify_credential_proof(credential_json.as_bytes(), &mut nodes)?;
    Ok(Obj::new().set("verificationMethod", v.verification_method).set("publicKey", bytes(v.key.as_bytes())).build())
}

// --------------------------------------------------------------------------- trust

const EVENTS: [trust::Event; 3] = [trust::Event::Success, trust::Event::Failure, trust::Event::Revocation];

fn event_name(e: trust::Event) -> &'static str {
    match e {
        trust::Event::Success => "success",
        trust::Event::Failure => "failure",
        trust::Event::Revocation => "revocation",
    }
}

fn event(name: &str) -> JsResult<trust::Event> {
    named(name, &EVENTS, event_name, "a trust event is success, failure or revocation")
}

/// The credential ceiling of `subject`: 1 for an anchor, else the best over non-revoked
/// credential paths from an anchor (at most 4 hops) of 0.5 per hop; 0 without a path.
/// `edges` are `{issuer, subject, revoked?}`.
///
/// # Errors
/// `LimitError` for more than 256 edges, `InputError` for a malformed edge.
#[wasm_bindgen(js_name = aipTrustCeiling)]
pub fn aip_trust_ceiling(subject: &str, edges: &JsValue, anchors: &JsValue) -> JsResult<f64> {
    let what = "an edge is {issuer, subject, revoked?}";
    let owned: Vec<(String, String, bool)> = elements(edges, "edges must be an array")?
        .iter()
        .map(|e| Ok((string(e, "issuer", what)?, string(e, "subject", what)?, get(e, "revoked")?.is_truthy())))
        .collect::<JsResult<_>>()?;
    let edges: Vec<trust::Edge<'_>> =
        owned.iter().map(|(i, s, r)| trust::Edge { issuer: i, subject: s, revoked: *r }).collect();
    let anchors = strings(anchors, "anchors must be an array of strings")?;
    let anchors: Vec<&str> = anchors.iter().map(String::as_str).collect();
    Ok(trust::credential_ceiling(subject, &edges, &anchors)?)
}

/// Applies one event (`success`, `failure`, `revocation`) to a trust score under
/// `ceiling`.
///
/// # Errors
/// `InputError` for an unknown event.
#[wasm_bindgen(js_name = aipTrustUpdate)]
pub fn aip_trust_update(score: f64, ceiling: f64, event_name: &str) -> JsResult<f64> {
    Ok(trust::update(score, ceiling, event(event_name)?))
}

/// The trust score of a history of events, folded from 0 under `ceiling`.
///
/// # Errors
/// `InputError` for an unknown event.
#[wasm_bindgen(js_name = aipTrustScore)]
pub fn aip_trust_score(ceiling: f64, history: &JsValue) -> JsResult<f64> {
    let events: Vec<trust::Event> =
        strings(history, "history must be an array of events")?.iter().map(|e| event(e)).collect::<JsResult<_>>()?;
    Ok(trust::score(ceiling, events))
}

fn rank(v: &JsValue) -> JsResult<Option<u32>> {
    if v.is_undefined() || v.is_null() {
        return Ok(None);
    }
    opt_u32(&Obj::new().set("r", v.clone()).build(), "r", "a rank is a whole number")
}

/// Reciprocal Rank Fusion, `1 / (60 + semanticRank) + 1 / (60 + ftsRank)`; a missing rank
/// contributes 0; ranks start at 1.
///
/// # Errors
/// `InputError` for a rank of 0.
#[wasm_bindgen(js_name = aipRrf)]
pub fn aip_rrf(semantic_rank: &JsValue, fts_rank: &JsValue) -> JsResult<f64> {
    Ok(trust::rrf(rank(semantic_rank)?, rank(fts_rank)?)?)
}

/// The final score `rrf * (1 + 0.3 * trustScore)`, `trustScore` in `[0, 1]`.
///
/// # Errors
/// `InputError` for a trust score outside `[0, 1]`.
#[wasm_bindgen(js_name = aipFinalScore)]
pub fn aip_final_score(rrf: f64, trust_score: f64) -> JsResult<f64> {
    Ok(trust::final_score(rrf, trust_score)?)
}

/// Scores and orders `candidates` (`{semanticRank?, ftsRank?, trustScore}`) by final
/// score, descending: `[{index, rrf, finalScore}]`.
///
/// # Errors
/// `InputError` for a rank of 0 or a trust score outside `[0, 1]`.
#[wasm_bindgen(js_name = aipRank)]
pub fn aip_rank(candidates: &JsValue) -> JsResult<Vec<JsValue>> {
    let what = "a candidate is {semanticRank?, ftsRank?, trustScore}";
    let cands: Vec<trust::Candidate> = elements(candidates, "candidates must be an array")?
        .iter()
        .map(|c| {
            Ok(trust::Candidate {
                semantic_rank: rank(&get(c, "semanticRank")?)?,
                fts_rank: rank(&get(c, "ftsRank")?)?,
                trust_score: get(c, "trustScore")?.as_f64().ok_or(Error::InvalidArgument(what))?,
            })
        })
        .collect::<JsResult<_>>()?;
    let mut out = vec![trust::Ranked::default(); cands.len()];
    let n = trust::rank(&cands, &mut out)?;
    #[allow(clippy::cast_precision_loss)]
    Ok(out
        .iter()
        .take(n)
        .map(|r| Obj::new().set("index", r.index as f64).set("rrf", r.rrf).set("finalScore", r.final_score).build())
        .collect())
}
