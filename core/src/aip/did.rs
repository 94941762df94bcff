//! `did:aip` identifiers, the DID Document subset AIP reads, and route selection.
//!
//! `did:aip:<domain>:<name>` is the cryptographic identity behind a handle
//! `name#domain` ([`super::handle`]); the two map onto each other one to one.
//!
//! A DID Document is read as this subset (other members, `@context` included, are
//! ignored):
//!
//! ```json
//! {
//!   "id": "did:aip:aigentix.org:alice",
//!   "route_mode": "relay",
//!   "endpoint": "https://hub.aigentix.org/relay/alice",
//!   "verificationMethod": [{"id": "did:aip:aigentix.org:alice#key-1", "type": "Multikey",
//!     "controller": "did:aip:aigentix.org:alice", "publicKeyMultibase": "z6Mk..."}],
//!   "keyAgreement": [{"id": "did:aip:aigentix.org:alice#x25519-1", "type": "Multikey",
//!     "controller": "did:aip:aigentix.org:alice", "publicKeyMultibase": "z6LS..."}]
//! }
//! ```
//!
//! * `id` must be a `did:aip` DID; `route_mode` is `"direct"` or `"relay"`; `endpoint` is
//!   an `https://`, `http://` or `wss://` URL of at most 2048 bytes with no whitespace,
//!   written without JSON escapes.
//! * Keys are `publicKeyMultibase` multikeys (`z` + base58btc of the multicodec prefix
//!   and 32 key bytes): Ed25519 (`0xed 0x01`, `z6Mk...`) in `verificationMethod`, X25519
//!   (`0xec 0x01`, `z6LS...`) in `keyAgreement`. An entry whose multikey is of the other
//!   kind is an error; entries without `publicKeyMultibase` (JWK) and references by
//!   string are not read as keys. At most [`MAX_KEYS`] keys of each kind.
//! * Every embedded verification method (an object in `verificationMethod` or
//!   `keyAgreement`, JWK ones included) must have an `id` (a string) and a `controller`
//!   equal to the document's `id` (DID Core §5.2.1 requires both), and no two of them,
//!   across both lists, may have the same `id`: compared decoded, a relative `#fragment`
//!   resolved against the document's `id`. Otherwise a second entry could claim a key's
//!   `id` (or come with no controller) and let another key act as the subject. At most
//!   [`MAX_METHODS`] embedded methods in each list (the uniqueness check is pairwise).
//! * At least one Ed25519 key is required (envelopes are verified with it).
//!
//! Route selection ([`select_route`]): direct when `route_mode` is `direct` and the
//! caller reports the endpoint reachable, relay otherwise.

use crate::error::{Error, Limit, Result};
use crate::json::{self, Kind, Node, Str, Value};
use crate::sign::PublicKey;
use crate::sink::Sink;

use super::handle::Handle;
use super::hpke::X25519PublicKey;

// The identifier itself (`did:aip:<domain>:<name>` <-> handle) is written in `handle`, so
// that the dependency goes one way (this module reads handles; `handle` imports nothing
// from here); the names stay available at their old paths.
pub use super::handle::{parse_did, PREFIX};

/// Most keys of each kind a document may list.
pub const MAX_KEYS: usize = 4;
/// Most embedded verification methods (objects) each of `verificationMethod` and
/// `keyAgreement` may list.
pub const MAX_METHODS: usize = 16;
/// Longest endpoint URL.
pub const MAX_ENDPOINT: usize = 2048;
/// Multicodec prefix of an X25519 public key (varint of 0xec).
pub const X25519_MULTICODEC: [u8; 2] = [0xec, 0x01];

/// How messages reach an agent.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RouteMode {
    /// HTTP POST to the agent's endpoint.
    Direct,
    /// A durable stream at a relay hub that the agent subscribes to.
    Relay,
}

/// Where to deliver, as decided by [`select_route`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Route<'a> {
    /// POST to this endpoint.
    Direct(&'a str),
    /// Publish through a relay: the document's endpoint when its route mode is `relay`,
    /// `None` when a direct endpoint is unreachable (the sender's own hub relays by domain).
    Relay(Option<&'a str>),
}

/// The DID Document subset AIP reads.
#[derive(Clone, Debug)]
pub struct DidDocument<'a> {
    /// The subject's handle (from `id`).
    pub subject: Handle,
    /// The `id` text.
    pub id: &'a str,
    /// `route_mode`.
    pub route_mode: RouteMode,
    /// `endpoint`.
    pub endpoint: &'a str,
    /// Ed25519 keys from `verificationMethod`, in document order.
    pub signing_keys: heapless::Vec<PublicKey, MAX_KEYS>,
    /// X25519 keys from `keyAgreement`, in document order.
    pub agreement_keys: heapless::Vec<X25519PublicKey, MAX_KEYS>,
}

pub use crate::did_key::{decode_multikey, encode_multikey};

/// A string member returned borrowed: `what` when missing or not a string, `escaped`
/// (naming the member) when written with a JSON escape, never read as absent.
fn plain<'a>(v: Option<Value<'a>>, what: &'static str, escaped: &'static str) -> Result<&'a str> {
    v.and_then(|v| v.as_str()).ok_or(Error::Schema(what))?.as_plain().ok_or(Error::Schema(escaped))
}

fn check_endpoint(url: &str) -> Result<()> {
    let rest = ["https://", "http://", "wss://"]
        .iter()
        .find_map(|s| url.strip_prefix(s))
        .ok_or(Error::Schema("endpoint must be an https, http or wss URL"))?;
    let host_ok = rest.bytes().next().is_some_and(|b| b != b'/');
    if url.len() > MAX_ENDPOINT || !host_ok || url.bytes().any(|b| b <= b' ' || b == 0x7f) {
        return Err(Error::Schema("endpoint must be an https, http or wss URL"));
    }
    Ok(())
}

/// The decoded characters of a verification method id, a relative `#fragment` resolved
/// against the document's `id`.
fn resolved<'a>(method_id: Str<'a>, doc_id: &'a str) -> impl Iterator<Item = char> + 'a {
    let relative = method_id.chars().next() == Some('#');
    doc_id.chars().filter(move |_| relative).chain(method_id.chars())
}

/// Checks the embedded verification methods of both lists: each has a string `id` and a
/// `controller` that is the document's `id`, and no two ids are the same (decoded).
fn check_methods(doc: Value<'_>, doc_id: &str) -> Result<()> {
    let lists = ["verificationMethod", "keyAgreement"].map(|m| doc.get(m));
    for list in lists.iter().flatten() {
        if list.kind() != Kind::Array {
            return Err(Error::Schema("verificationMethod and keyAgreement must be arrays"));
        }
        if list.elements().filter(|e| e.kind() == Kind::Object).count() > MAX_METHODS {
            return Err(Error::limit(Limit::Capacity, list.offset()));
        }
    }
    let methods = || lists.iter().flatten().flat_map(|l| l.elements()).filter(|e| e.kind() == Kind::Object);
    for (i, entry) in methods().enumerate() {
        let id = entry
            .get("id")
            .ok_or(Error::Schema("verification method id missing"))?
            .as_str()
            .ok_or(Error::Schema("verification method id must be a string"))?;
        match entry.get("controller") {
            None => return Err(Error::Schema("verification method controller missing")),
            Some(c) if !c.is_str(doc_id) => return Err(Error::Schema("key controller must be the document id")),
            Some(_) => {}
        }
        let same = |other: Value<'_>| {
            other.get("id").and_then(|o| o.as_str()).is_some_and(|o| resolved(o, doc_id).eq(resolved(id, doc_id)))
        };
        if methods().take(i).any(same) {
            return Err(Error::Schema("verification method ids must be unique"));
        }
    }
    Ok(())
}

fn keys_of<'a, const N: usize, T>(
    doc: Value<'a>,
    member: &str,
    codec: [u8; 2],
    make: impl Fn([u8; 32]) -> Result<T>,
    out: &mut heapless::Vec<T, N>,
) -> Result<()> {
    let Some(list) = doc.get(member) else { return Ok(()) };
    for entry in list.elements() {
        if entry.kind() != Kind::Object {
            continue; // a reference by string: not part of the subset
        }
        let Some(mb) = entry.get("publicKeyMultibase") else { continue };
        let text = mb.as_str().ok_or(Error::Schema("publicKeyMultibase must be a string"))?;
        let text = text.as_plain().ok_or(Error::Schema("publicKeyMultibase must be written without JSON escapes"))?;
        let key = make(decode_multikey(text, codec)?)?;
        out.push(key).map_err(|_| Error::limit(Limit::Capacity, entry.offset()))?;
    }
    Ok(())
}

/// Reads the DID Document subset from a parsed JSON value.
///
/// # Errors
/// [`Error::Schema`] for a missing or ill-typed member, [`Error::InvalidArgument`] for an
/// `id` that is not `did:aip`, [`Error::Encoding`] for a malformed multikey,
/// [`Error::Limit`] for more than [`MAX_KEYS`] keys of a kind.
pub fn document_from_value(doc: Value<'_>) -> Result<DidDocument<'_>> {
    if doc.kind() != Kind::Object {
        return Err(Error::Schema("DID Document must be an object"));
    }
    let id = plain(
        doc.get("id"),
        "DID Document id must be a string",
        "DID Document id must be written without JSON escapes",
    )?;
    let subject = parse_did(id)?;
    let route_mode = match doc.get("route_mode") {
        Some(v) if v.is_str("direct") => RouteMode::Direct,
        Some(v) if v.is_str("relay") => RouteMode::Relay,
        _ => return Err(Error::Schema("route_mode must be \"direct\" or \"relay\"")),
    };
    let endpoint =
        plain(doc.get("endpoint"), "endpoint must be a string", "endpoint must be written without JSON escapes")?;
    check_endpoint(endpoint)?;
    check_methods(doc, id)?;
    let mut signing_keys = heapless::Vec::new();
    keys_of(
        doc,
        "verificationMethod",
        crate::did_key::ED25519_MULTICODEC,
        |k| PublicKey::from_bytes(&k),
        &mut signing_keys,
    )?;
    let mut agreement_keys = heapless::Vec::new();
    keys_of(doc, "keyAgreement", X25519_MULTICODEC, |k| Ok(X25519PublicKey(k)), &mut agreement_keys)?;
    if signing_keys.is_empty() {
        return Err(Error::Schema("DID Document has no Ed25519 verification key"));
    }
    Ok(DidDocument { subject, id, route_mode, endpoint, signing_keys, agreement_keys })
}

/// Writes the DID Document of `subject` with one Ed25519 key (`#key-1`) and one X25519 key
/// (`#x25519-1`), in RFC 8785 canonical form, into `sink`: exactly the subset
/// [`document_from_value`] reads, so the output parses back to the same subject, route,
/// endpoint and keys.
///
/// ```
/// # fn main() -> Result<(), concordia_core::Error> {
/// use concordia_core::aip::did::{self, RouteMode};
/// use concordia_core::aip::{handle::Handle, hpke};
/// use concordia_core::{json::Node, sign::KeyPair, sink::SliceSink};
///
/// let alice = Handle::new("alice", "aigentix.org")?;
/// let ed = KeyPair::from_seed(&[1; 32]).public_key();
/// let (_, x) = hpke::derive_keypair(&[2; 32]);
/// let mut buf = [0u8; 1024];
/// let mut sink = SliceSink::new(&mut buf);
/// did::write_document(&alice, RouteMode::Relay, "https://hub.aigentix.org/relay/alice", &ed, &x, &mut sink)?;
/// let n = sink.finish()?;
/// let mut nodes = [Node::EMPTY; 64];
/// let doc = did::parse_document(&buf[..n], &mut nodes)?;
/// assert_eq!(doc.subject, alice);
/// assert_eq!(doc.signing_keys[0], ed);
/// # Ok(())
/// # }
/// ```
///
/// # Errors
/// [`Error::Schema`] for an endpoint that [`document_from_value`] would refuse (not an
/// `https`, `http` or `wss` URL, whitespace or control bytes, longer than
/// [`MAX_ENDPOINT`]) or that would need JSON escapes (`"`, `\`); the sink's own errors.
pub fn write_document<S: Sink + ?Sized>(
    subject: &Handle,
    route_mode: RouteMode,
    endpoint: &str,
    ed25519: &PublicKey,
    x25519: &X25519PublicKey,
    sink: &mut S,
) -> Result<()> {
    check_endpoint(endpoint)?;
    if endpoint.bytes().any(|b| b == b'"' || b == b'\\') {
        return Err(Error::Schema("endpoint must not need JSON escapes"));
    }
    let id = subject.did();
    let id = id.as_str();
    let ed_mb = encode_multikey(ed25519.as_bytes(), crate::did_key::ED25519_MULTICODEC);
    let x_mb = encode_multikey(&x25519.0, X25519_MULTICODEC);
    let mode = match route_mode {
        RouteMode::Direct => "direct",
        RouteMode::Relay => "relay",
    };
    // Members in UTF-16 order; every value is plain ASCII without characters to escape.
    let key = |sink: &mut S, fragment: &str, mb: &str| -> Result<()> {
        for part in [
            "[{\"controller\":\"",
            id,
            "\",\"id\":\"",
            id,
            fragment,
            "\",\"publicKeyMultibase\":\"",
            mb,
            "\",\"type\":\"Multikey\"}]",
        ] {
            sink.write(part.as_bytes())?;
        }
        Ok(())
    };
    for part in ["{\"endpoint\":\"", endpoint, "\",\"id\":\"", id, "\",\"keyAgreement\":"] {
        sink.write(part.as_bytes())?;
    }
    key(sink, "#x25519-1", x_mb.as_str())?;
    for part in [",\"route_mode\":\"", mode, "\",\"verificationMethod\":"] {
        sink.write(part.as_bytes())?;
    }
    key(sink, "#key-1", ed_mb.as_str())?;
    sink.write(b"}")
}

/// Parses JSON bytes and reads the DID Document subset (the fuzz entry point).
///
/// # Errors
/// [`Error::Json`] / [`Error::Limit`] from the reader, then as [`document_from_value`].
pub fn parse_document<'a>(bytes: &'a [u8], nodes: &'a mut [Node]) -> Result<DidDocument<'a>> {
    let doc = json::parse(bytes, nodes)?;
    document_from_value(doc.root())
}

/// Chooses how to deliver to the subject of `doc`: [`Route::Direct`] when its route mode
/// is `direct` and `endpoint_reachable`, [`Route::Relay`] otherwise.
#[must_use]
pub fn select_route<'a>(doc: &DidDocument<'a>, endpoint_reachable: bool) -> Route<'a> {
    match doc.route_mode {
        RouteMode::Direct if endpoint_reachable => Route::Direct(doc.endpoint),
        RouteMode::Direct => Route::Relay(None),
        RouteMode::Relay => Route::Relay(Some(doc.endpoint)),
    }
}
