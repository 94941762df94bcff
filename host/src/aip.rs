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
use concordia_core::aip::envelope::Envelope;
use concordia_core::aip::handle::Handle;
use concordia_core::aip::hpke::{self, X25519SecretKey};
use concordia_core::aip::replay::{self, IdSlot, ReplayWindow, TimeSlot, Verdict};
use concordia_core::json::Value;
use concordia_core::sign::KeyPair;
use concordia_core::time::Timestamp;
use concordia_core::{did_key, digest, encoding, jcs, Error, Result};

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
pub fn seed_from_hex(text: &str) -> Result<[u8; 32]> {
    let mut seed = [0u8; 32];
    match encoding::decode_hex(text.trim().as_bytes(), &mut seed) {
        Ok(32) => Ok(seed),
        _ => Err(Error::Encoding(BAD_HEX)),
    }
}

fn hex(bytes: &[u8]) -> Result<String> {
    let mut out = vec![0u8; bytes.len() * 2];
    let n = encoding::encode_hex(bytes, &mut out)?;
    out.truncate(n);
    String::from_utf8(out).map_err(|_| Error::Encoding("hex"))
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
        let mut labelled = SEED_LABEL.to_vec();
        labelled.extend_from_slice(seed);
        let ikm = digest::sha256(&labelled).0;
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
        let x = text("x25519_secret_hex")?.map(seed_from_hex).transpose()?.map(X25519SecretKey);
        Ok(KeyFile { did: text("did")?.map(str::to_owned), ed: KeyPair::from_seed(&seed_from_hex(seed)?), x })
    }

    /// Reads a key file's JSON text (the one parsing policy).
    ///
    /// # Errors
    /// A JSON error, or those of [`KeyFile::from_value`].
    pub fn from_json(text: &[u8]) -> Result<KeyFile> {
        let mut nodes = Nodes::new();
        let doc = nodes.parse(text)?;
        KeyFile::from_value(doc.root())
    }

    /// The key file's JSON text, as `concordia aip keygen` prints it (without the final
    /// newline): RFC 8785 member order, the public members derived from the secrets.
    ///
    /// # Errors
    /// [`Error::Schema`]`(`[`NO_X25519`]`)` without an X25519 secret.
    pub fn to_json(&self) -> Result<Vec<u8>> {
        let x = self.x.as_ref().ok_or(Error::Schema(NO_X25519))?;
        let pk = self.ed.public_key();
        let ed_mb = did::encode_multikey(pk.as_bytes(), did_key::ED25519_MULTICODEC);
        let x_mb = did::encode_multikey(&x.public_key().0, did::X25519_MULTICODEC);
        let mut out = Vec::with_capacity(400);
        out.push(b'{');
        if let Some(d) = &self.did {
            out.extend_from_slice(b"\"did\":");
            jcs::write_plain_str(d, &mut VecRefSink(&mut out))?;
            out.push(b',');
        }
        out.extend_from_slice(b"\"did_key\":");
        jcs::write_plain_str(did_key::encode(&pk).as_str(), &mut VecRefSink(&mut out))?;
        for (name, value) in [
            ("ed25519_public_multibase", ed_mb.as_str().to_owned()),
            ("ed25519_seed_hex", hex(&self.ed.seed())?),
            ("x25519_public_multibase", x_mb.as_str().to_owned()),
            ("x25519_secret_hex", hex(&x.0)?),
        ] {
            out.extend_from_slice(b",\"");
            out.extend_from_slice(name.as_bytes());
            out.extend_from_slice(b"\":");
            jcs::write_plain_str(&value, &mut VecRefSink(&mut out))?;
        }
        out.push(b'}');
        Ok(out)
    }
}

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

/// What [`open_checked`] found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Opened {
    /// The body, as sealed.
    Body(Vec<u8>),
    /// The envelope verified and opened, but the window had already seen its id: a
    /// duplicate delivery or a replay (not processed again).
    Duplicate,
}

/// The recipient's checks of `concordia aip open`, in its order: the signature under the
/// sender's DID Document ([`Envelope::verify_from`]), the addressee when the recipient
/// knows its own DID ([`Envelope::check_to`]), the body opens with the recipient's X25519
/// key; then freshness at `now` ([`replay::check_fresh`]) or, with a replay window, the
/// window's check (which also checks freshness, and remembers only an envelope that got
/// this far).
///
/// # Errors
/// The core's: `Signature`, `Binding` (another sender or addressee), `Temporal`, `Limit`.
pub fn open_checked<T: AsMut<[IdSlot]> + AsRef<[IdSlot]>, H: AsMut<[TimeSlot]> + AsRef<[TimeSlot]>>(
    env: &Envelope<'_>,
    sender: &did::DidDocument<'_>,
    secret: &X25519SecretKey,
    me: Option<&Handle>,
    now: Timestamp,
    window: Option<&mut ReplayWindow<T, H>>,
) -> Result<Opened> {
    env.verify_from(sender)?;
    if let Some(me) = me {
        env.check_to(me)?;
    }
    let mut out = crate::try_filled(env.sealed_len(), 0u8)?;
    let n = env.open(secret, &mut out)?;
    out.truncate(n);
    match window {
        None => replay::check_fresh(env.created, now)?,
        Some(w) => {
            if w.check(env.id, env.created, now)? == Verdict::Duplicate {
                return Ok(Opened::Duplicate);
            }
        }
    }
    Ok(Opened::Body(out))
}
