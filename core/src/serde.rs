//! RFC 8785 canonical JSON for serde types, with no allocator (feature `serde`).
//!
//! A Rust agent's message is a struct with `#[derive(Serialize, Deserialize)]`. This module
//! gives its canonical form, digest and Ed25519 signature straight from the struct, and reads
//! one back from the strict reader's tape without copying, all without `alloc`:
//!
//! | function | what | memory |
//! |---|---|---|
//! | [`to_canonical_slice`] | the canonical form into a caller buffer | the buffer, a member table on the stack |
//! | [`write()`], [`sha256`] | the canonical form into any [`Sink`] (a hash, a verifier) | no output buffer at all |
//! | [`sign`] | the signed canonical form (`signature` member added) | the output buffer |
//! | [`verify`], [`verify_detached`] | checks a signature over the preimage, streamed | no output buffer |
//! | [`from_slice`] | a value from JSON text, zero-copy | the caller's [`Node`] slice |
//!
//! **The canonical form** is that of the JSON value serde's data model gives (as
//! `serde_json` would write it), under the same rules as the core's writer ([`crate::jcs`]):
//! members sorted by the UTF-16 code units of their names, ECMAScript number text, the
//! minimal string escapes, no whitespace, and the reader's number policy (below). Struct
//! fields in any declaration order and maps in any iteration order give the same bytes.
//!
//! How serde's data model maps onto JSON:
//!
//! * `bool`, strings and `char` as themselves; `()`, unit structs and `None` as `null`;
//!   `Some(x)` and newtype structs as `x`; sequences, tuples and tuple structs as arrays;
//!   structs and maps as objects;
//! * enums in serde's externally tagged form: `"Unit"`, `{"Newtype":x}`, `{"Tuple":[..]}`,
//!   `{"Struct":{..}}`;
//! * integers of every width as decimal integers, within ±(2^53 - 1); beyond that only where
//!   the reader accepts the literal ([`crate::json::integer_literal_value`]: the literal is
//!   already the ECMAScript form of its double, as `100000000000000000000`), otherwise
//!   [`Syntax::UnsafeInteger`]: what one writes, every reader reads (carry larger integers
//!   as strings, RFC 8785 Appendix D);
//! * `f64` in ECMAScript form; `f32` as the double it converts to exactly (`0.1f32` is
//!   `0.10000000149011612`, as JSON has only doubles); NaN, infinities and `-0.0` are
//!   refused as the reader refuses them ([`crate::jcs::events::check_double`]);
//! * map keys: strings, `char`, integers and `bool` (as their decimal or `true`/`false`
//!   text, as `serde_json` writes them), unit variants, newtype structs of those; any
//!   other key (floats, sequences, ...) is `Error::Schema("map key must be a string")`;
//! * **byte arrays** (`serialize_bytes`, as `serde_bytes` and `heapless`-free byte
//!   wrappers call it) as a string of **padded URL-safe base64**, the one spelling
//!   Concordia uses for binary values (signatures, keys); [`from_slice`] reads them back
//!   with the strict decoder ([`crate::encoding::decode_base64url_padded`]) and refuses
//!   any other spelling. (`[u8; N]` and `Vec<u8>` without `serde_bytes` are sequences and
//!   become arrays of integers, as everywhere in serde.)
//!
//! **Member order without an allocator.** serde writes struct fields in declaration order
//! and maps in iteration order; RFC 8785 wants them sorted. Two strategies, one per output:
//!
//! * Into a buffer ([`to_canonical_slice`]): every member is written in the order serde
//!   gives it, straight into the caller's buffer, followed by a comma; when a member is
//!   complete it is moved to its sorted place among the members before it (an insertion
//!   sort over member spans: one comparison with the last member, then a binary search;
//!   names are compared by their first eight bytes, kept in the table, and read back from
//!   the buffer only when those are equal). Members that arrive sorted cost one comparison
//!   each and no move. A move holds a short member (up to 64 bytes) in registers while the
//!   members it lands in front of move up; a longer one is copied into the unused end of
//!   the buffer and back, or the span is rotated in place when the buffer has no room to
//!   spare. The members of the objects being
//!   written are held in a table of [`MAX_OPEN_MEMBERS`] entries of 16 bytes on the stack
//!   (the members of all objects *open at once*: an object's entries are released when it
//!   closes); [`to_canonical_slice_in`] takes a caller table for more. A full table is
//!   [`Limit::Capacity`]. A buffer too small is [`Error::BufferTooSmall`] with the exact
//!   length needed (order does not change the length, so the writer keeps counting).
//! * Into a sink ([`write()`], [`sha256`], [`verify`]): nothing can be moved once written, so
//!   the value is *serialized again* for each piece of output, and each pass descends only
//!   along one path, not calling `serialize` on the members beside it. Per object, one pass
//!   finds the smallest member name above the last one written; the names of the members
//!   open along the path are held in [`MAX_KEY_BYTES`] bytes on the stack
//!   ([`Limit::Capacity`] beyond). The work is about (number of values) × (depth) ×
//!   (members per object) calls: fine for the typed records of a protocol, slow for a map
//!   of thousands of entries (use the buffer form there). The value must serialize the same
//!   way every time (a `HashMap` does, as long as it is not modified); if it does not, the
//!   result is [`Error::InvalidArgument`], never wrong bytes.
//!
//! Nesting is bounded by [`MAX_DEPTH`] containers (the reader's default), as
//! [`Limit::Depth`]. Unlike the core's JSON writer, these writers recurse as serde does (a
//! `Serialize` impl calls the serializer of each field): stack use grows with the nesting
//! of the value, and the streaming form adds one small frame per level. Duplicate member names (a map that yields a name twice, a flattened
//! struct colliding with a field) are [`Syntax::DuplicateKey`]; the buffer form finds them
//! when the output fits. Serialization errors have no byte offset (there is no input). A
//! value with more than one fault reports the first one met: in serde's order in the buffer
//! form, in sorted order in the streaming form. An error a writer raised fails the call even
//! when a `Serialize` impl ignores it and goes on (no bytes are returned for a value that
//! was partly refused).
//!
//! **Reading** ([`from_slice`]): the text is parsed by the strict reader ([`crate::json`],
//! same syntax, number and depth policy) into the caller's nodes, and the value is built
//! from the tape: strings without escapes are borrowed (`&'a str` fields work), strings with
//! escapes are decoded into a stack buffer of [`MAX_DECODED_STR`] bytes and handed over
//! transiently (an owned string type, e.g. `heapless::String`, takes them; a `&'a str`
//! field refuses them as serde_json does). A value of the wrong shape is
//! [`Error::Shape`] with the byte offset of the value (or member name) at fault, naming the
//! missing field or what was wrong (serde's own messages are not kept: the core's errors
//! carry no heap data).
//!
//! **Signatures** use the Concordia preimage rule of messages (SPEC §9.2.1 rule 1): the
//! top-level `signature` member is left out ([`crate::preimage::WithoutSignature`]).
//!
//! # Firmware example
//!
//! Static buffers, a `#[derive(Serialize, Deserialize)]` offer, signed and verified,
//! nothing allocated:
//!
//! ```
//! use concordia_core::{serde as cser, sign::KeyPair, json::Node};
//! use serde::{Deserialize, Serialize};
//!
//! #[derive(Serialize, Deserialize, Debug, PartialEq)]
//! struct Price<'a> { value: u32, currency: &'a str }
//!
//! #[derive(Serialize, Deserialize, Debug, PartialEq)]
//! struct Offer<'a> {
//!     // Declaration order does not matter: the canonical form sorts.
//!     #[serde(borrow)]
//!     price: Price<'a>,
//!     offer_id: &'a str,
//!     #[serde(skip_serializing_if = "Option::is_none")]
//!     signature: Option<&'a str>,
//! }
//!
//! # fn main() -> Result<(), concordia_core::Error> {
//! static SEED: [u8; 32] = [7; 32];
//! let key = KeyPair::from_seed(&SEED);
//! let offer = Offer { price: Price { value: 2200, currency: "EUR" }, offer_id: "o-1", signature: None };
//!
//! // Sign: the canonical form with the `signature` member, in a static-size buffer.
//! let mut wire = [0u8; 256];
//! let n = cser::sign(&offer, &key, &mut wire)?;
//! assert!(wire[..n].starts_with(br#"{"offer_id":"o-1","price":{"currency":"EUR","value":2200},"signature":""#));
//!
//! // Receive: read it back without copying, and verify it, streamed (no output buffer).
//! let mut nodes = [Node::EMPTY; 16];
//! let received: Offer<'_> = cser::from_slice(&wire[..n], &mut nodes)?;
//! assert_eq!(received.price, offer.price);
//! cser::verify(&received, &key.public_key())?;
//!
//! // A changed price does not verify.
//! let forged = Offer { price: Price { value: 1, ..received.price }, ..received };
//! assert!(cser::verify(&forged, &key.public_key()).is_err());
//! # Ok(())
//! # }
//! ```
//!
//! # Host example
//!
//! On a host the same calls serve owned types and maps; [`sha256`] is the record identity
//! (`sha256:<hex>` of the canonical form), equal to the core's digest of the JSON text:
//!
//! ```
//! use std::collections::HashMap;
//! use concordia_core::{digest, json, serde as cser};
//!
//! # fn main() -> Result<(), concordia_core::Error> {
//! let mut terms: HashMap<String, f64> = HashMap::new();
//! terms.insert("zürich".into(), 1.5);
//! terms.insert("amount".into(), 1e21);
//! terms.insert("\u{1F91D}".into(), 0.1);
//!
//! let mut out = vec![0u8; 128];
//! let n = cser::to_canonical_slice(&terms, &mut out)?;
//! assert_eq!(&out[..n], "{\"amount\":1e+21,\"zürich\":1.5,\"\u{1F91D}\":0.1}".as_bytes());
//!
//! let id = cser::sha256(&terms)?;
//! let mut nodes = vec![json::Node::EMPTY; 16];
//! let doc = json::parse(&out[..n], &mut nodes)?;
//! assert_eq!(id, digest::sha256_jcs(doc.root()));
//!
//! // Too small a buffer says how large it must be.
//! assert_eq!(cser::to_canonical_slice(&terms, &mut out[..8]),
//!            Err(concordia_core::Error::BufferTooSmall { needed: n }));
//! # Ok(())
//! # }
//! ```

use ::serde::{Deserialize, Serialize};

use crate::digest::{Digest, Sha256Sink};
use crate::error::{Error, Limit, Result, Syntax};
use crate::json::{Node, MAX_SAFE_INTEGER};
use crate::preimage::{Preimage, Whole, WithoutSignature};
use crate::sign::{KeyPair, PublicKey, Signature, VerifySink};
use crate::sink::Sink;

/// The four serde traits of array-like containers (sequences, tuples, tuple structs, tuple
/// variants), which both writers handle alike: each element through the container's
/// `element`, the close through `$end`.
macro_rules! array_like {
    ([$($generics:tt)*] $container:ty, error = $err:ty, end = $end:path) => {
        array_like!(@one [$($generics)*] $container, $err, $end, SerializeSeq, serialize_element);
        array_like!(@one [$($generics)*] $container, $err, $end, SerializeTuple, serialize_element);
        array_like!(@one [$($generics)*] $container, $err, $end, SerializeTupleStruct, serialize_field);
        array_like!(@one [$($generics)*] $container, $err, $end, SerializeTupleVariant, serialize_field);
    };
    (@one [$($generics:tt)*] $container:ty, $err:ty, $end:path, $tr:ident, $method:ident) => {
        impl<$($generics)*> ::serde::ser::$tr for $container {
            type Ok = ();
            type Error = $err;
            fn $method<T: ::serde::Serialize + ?Sized>(&mut self, value: &T) -> core::result::Result<(), $err> {
                self.element(value)
            }
            fn end(self) -> core::result::Result<(), $err> {
                $end(self)
            }
        }
    };
}

mod de;
mod ser;
mod stream;

pub use self::de::Deserializer;
pub use self::ser::OpenMember;

/// The deepest nesting written or read: the reader's default (128 containers).
pub const MAX_DEPTH: usize = crate::json::DEFAULT_MAX_DEPTH as usize;

/// Entries (16 bytes each, [`OpenMember`]) of the stack member table of [`to_canonical_slice`]: the members
/// of all objects open at once (an object with 300 members inside another with 10 needs
/// 310).
pub const MAX_OPEN_MEMBERS: usize = 256;

/// Bytes for the member names open along one path in the streaming form ([`write()`]): the
/// name being written at each open object, plus one candidate.
pub const MAX_KEY_BYTES: usize = 1024;

/// The longest escaped string (decoded, in bytes) [`from_slice`] hands to a visitor; strings
/// without escapes are borrowed and have no such bound.
pub const MAX_DECODED_STR: usize = 1024;

/// The longest byte array (decoded) [`from_slice`] reads from base64url.
pub const MAX_BYTES: usize = 768;

/// Writes the canonical form of `value` into `out` and returns its length.
///
/// # Errors
/// [`Error::BufferTooSmall`] with the full length when `out` is too short;
/// [`Limit::Capacity`] when more than [`MAX_OPEN_MEMBERS`] members are open at once;
/// [`Limit::Depth`] beyond [`MAX_DEPTH`]; the number policy's [`Error::Json`] errors;
/// [`Syntax::DuplicateKey`]; [`Error::Schema`] for a map key that is not a string.
pub fn to_canonical_slice<T: Serialize + ?Sized>(value: &T, out: &mut [u8]) -> Result<usize> {
    to_canonical_slice_with(value, &Whole, out)
}

/// [`to_canonical_slice`] with members dropped by a preimage `rule`.
///
/// # Errors
/// As [`to_canonical_slice`].
pub fn to_canonical_slice_with<T: Serialize + ?Sized, P: Preimage + ?Sized>(
    value: &T,
    rule: &P,
    out: &mut [u8],
) -> Result<usize> {
    let mut table = [OpenMember::EMPTY; MAX_OPEN_MEMBERS];
    ser::write(value, rule, None, out, &mut table)
}

/// [`to_canonical_slice_with`] with a caller member table: one [`OpenMember`] per member
/// open at once (for maps larger than [`MAX_OPEN_MEMBERS`]), e.g.
/// `[OpenMember::EMPTY; 1024]`.
///
/// # Errors
/// As [`to_canonical_slice`], with [`Limit::Capacity`] when `table` is full.
pub fn to_canonical_slice_in<T: Serialize + ?Sized, P: Preimage + ?Sized>(
    value: &T,
    rule: &P,
    out: &mut [u8],
    table: &mut [OpenMember],
) -> Result<usize> {
    ser::write(value, rule, None, out, table)
}

/// Writes the canonical form of `value`, with members dropped by `rule`, into `sink`,
/// with no output buffer (see the module docs for how, and what it costs).
///
/// # Errors
/// The sink's errors; [`Limit::Capacity`] beyond [`MAX_KEY_BYTES`] of open member names;
/// [`Limit::Depth`]; the number policy's errors; [`Syntax::DuplicateKey`];
/// [`Error::Schema`] for a map key that is not a string; [`Error::InvalidArgument`] when
/// `value` does not serialize the same way twice. After an error the sink holds an
/// incomplete output.
pub fn write<T: Serialize + ?Sized, P: Preimage + ?Sized, S: Sink + ?Sized>(
    value: &T,
    rule: &P,
    sink: &mut S,
) -> Result<()> {
    stream::write(value, rule, sink)
}

/// `SHA256-JCS(value)`: the SHA-256 digest of the canonical form, streamed.
///
/// # Errors
/// As [`write()`] (hashing itself never fails).
pub fn sha256<T: Serialize + ?Sized>(value: &T) -> Result<Digest> {
    sha256_with(value, &Whole)
}

/// SHA-256 of the canonical form with members dropped by `rule`.
///
/// # Errors
/// As [`write()`].
pub fn sha256_with<T: Serialize + ?Sized, P: Preimage + ?Sized>(value: &T, rule: &P) -> Result<Digest> {
    let mut sink = Sha256Sink::new();
    write(value, rule, &mut sink)?;
    Ok(sink.finish())
}

/// Length of `,"signature":"<88 base64url chars>"`: 1 + 11 + 1 + 90.
const SIGNATURE_MEMBER_LEN: usize = 103;

/// Signs `value` (which must serialize as an object) under the Concordia preimage rule (its
/// top-level `signature` member, if any, left out) and writes the signed canonical form,
/// with `"signature":"<padded base64url>"`, into `out`; returns its length. The preimage
/// is first written into `out` itself, so no other buffer is needed.
///
/// # Errors
/// [`Error::BufferTooSmall`] with the full length of the signed form when `out` is too
/// short; [`Error::Schema`] when `value` is not an object; as [`to_canonical_slice`].
pub fn sign<T: Serialize + ?Sized>(value: &T, key: &KeyPair, out: &mut [u8]) -> Result<usize> {
    let mut table = [OpenMember::EMPTY; MAX_OPEN_MEMBERS];
    let sig = signature_in(value, key, out, &mut table)?;
    let b64 = sig.to_b64url();
    let mut quoted = [0u8; 90];
    quoted[0] = b'"';
    quoted[1..89].copy_from_slice(b64.as_bytes().get(..88).ok_or(Error::Signature)?);
    quoted[89] = b'"';
    ser::write(value, &WithoutSignature, Some(("signature", &quoted)), out, &mut table)
}

/// The Ed25519 signature of `value`'s preimage (top-level `signature` left out), with `out`
/// as the space for the preimage.
///
/// # Errors
/// As [`sign`] (a too-small `out` reports the length of the signed form).
pub fn signature<T: Serialize + ?Sized>(value: &T, key: &KeyPair, out: &mut [u8]) -> Result<Signature> {
    let mut table = [OpenMember::EMPTY; MAX_OPEN_MEMBERS];
    signature_in(value, key, out, &mut table)
}

fn signature_in<T: Serialize + ?Sized>(
    value: &T,
    key: &KeyPair,
    out: &mut [u8],
    table: &mut [OpenMember],
) -> Result<Signature> {
    let n = ser::write_object(value, &WithoutSignature, out, table).map_err(|e| match e {
        // The signed form adds the signature member, and a comma unless the rest is `{}`.
        Error::BufferTooSmall { needed } => {
            Error::BufferTooSmall { needed: needed + SIGNATURE_MEMBER_LEN - usize::from(needed == 2) }
        }
        other => other,
    })?;
    Ok(key.sign(out.get(..n).ok_or(Error::BufferTooSmall { needed: n })?))
}

/// Verifies the signature that `value` carries in its top-level `signature` member (a
/// string in the one spelling, [`Signature::from_b64url`]) over its preimage, streamed
/// into the verifier with no output buffer: the serde counterpart of
/// [`crate::message::verify_signed_object`].
///
/// # Errors
/// `Schema(detail::SIGNATURE_MISSING)` without a `signature` member,
/// `Schema(detail::SIGNATURE_NOT_STRING)` when it is not a string,
/// `Encoding(detail::SIGNATURE_ENCODING)` for another spelling, [`Error::Signature`] when
/// it does not verify; [`Error::Schema`] when `value` is not an object; as [`write()`].
pub fn verify<T: Serialize + ?Sized>(value: &T, key: &PublicKey) -> Result<()> {
    use crate::error::detail::{SIGNATURE_ENCODING, SIGNATURE_MISSING, SIGNATURE_NOT_STRING};
    let mut text = [0u8; 128];
    let n = stream::top_level_member(value, "signature", &mut text)?.ok_or(Error::Schema(SIGNATURE_MISSING))?;
    let json = text.get(..n).unwrap_or(&[]);
    let inner = match json {
        [b'"', inner @ .., b'"'] => inner,
        _ => return Err(Error::Schema(SIGNATURE_NOT_STRING)),
    };
    let inner = core::str::from_utf8(inner).map_err(|_| Error::Encoding(SIGNATURE_ENCODING))?;
    let sig = Signature::from_b64url(inner).map_err(|_| Error::Encoding(SIGNATURE_ENCODING))?;
    verify_detached(value, key, &sig)
}

/// Verifies `sig` over `value`'s preimage (top-level `signature` left out), streamed.
///
/// # Errors
/// [`Error::Signature`] when it does not verify; as [`write()`].
pub fn verify_detached<T: Serialize + ?Sized>(value: &T, key: &PublicKey, sig: &Signature) -> Result<()> {
    let mut sink = VerifySink::new(key, sig)?;
    write(value, &WithoutSignature, &mut sink)?;
    sink.finish()
}

/// Reads a `T` from JSON text, zero-copy: `input` is parsed by the strict reader into
/// `nodes` (one per value; [`crate::json::nodes_for_text`] counts them), and `T` borrows
/// its unescaped strings from `input`.
///
/// # Errors
/// Each with the byte offset of where in `input` it was found ([`Error::offset`]), except
/// the last:
///
/// * the reader's [`Error::Json`] (malformed text) and [`Error::Limit`] (depth, `nodes`
///   too short);
/// * [`Error::Shape`] when the text is well-formed but a value does not have the shape `T`
///   asks for; `what` is serde's kind of error and `offset` points at:
///
///   | `what` | `offset` |
///   |---|---|
///   | `"invalid type"`, `"invalid value"`, `"invalid length"` | the offending value's first byte (for a string, its opening quote) |
///   | the name of a missing field | the `{` of the object that lacks it |
///   | `"unknown field"`, `"duplicate field"` (two names of one field, e.g. an alias) | the opening quote of the member's name |
///   | `"unknown variant"` | the opening quote of the variant's name |
///   | `"a Deserialize impl refused the value"` (a `Deserialize` impl's own error) | the value it was reading |
///
/// * [`Limit::Capacity`] for an escaped string longer than [`MAX_DECODED_STR`] or bytes
///   beyond [`MAX_BYTES`] (at the string);
/// * [`Error::Shape`] at the string for byte arrays not in padded base64url, naming what
///   the decoder refused (`"base64url"` for a string with escapes, `"base64 padding"`, a
///   character outside the URL-safe alphabet, ...).
///
/// ```
/// use concordia_core::{json::Node, serde::from_slice, Error};
/// use serde::Deserialize;
///
/// #[derive(Deserialize, Debug)]
/// struct Price<'a> { value: u32, currency: &'a str }
///
/// #[derive(Deserialize, Debug)]
/// struct Order<'a> { #[serde(borrow)] items: Vec<Price<'a>> }
///
/// let text = r#"{"items": [{"value": 1, "currency": "EUR"}, {"value": -1, "currency": "EUR"}]}"#;
/// let mut nodes = [Node::EMPTY; 16];
/// let Err(err) = from_slice::<Order<'_>>(text.as_bytes(), &mut nodes) else { return Err("accepted") };
/// // A negative number where `u32` asks for an unsigned one: its first byte.
/// let at = text.find("-1").ok_or("no -1")?;
/// assert_eq!(err, Error::Shape { what: "invalid value", offset: at });
/// assert_eq!(err.offset(), Some(at));
/// assert_eq!(err.to_string(), format!("schema check failed: invalid value at byte {at}"));
/// # Ok::<(), &str>(())
/// ```
pub fn from_slice<'a, T: Deserialize<'a>>(input: &'a [u8], nodes: &'a mut [Node]) -> Result<T> {
    let doc = crate::json::parse(input, nodes)?;
    de::seed_value(core::marker::PhantomData::<T>, doc.root())
}

// ---------------------------------------------------------------------------------------
// The one error model: serde's error traits for the core's `Error`.
// ---------------------------------------------------------------------------------------

/// What a `Serialize` impl's own error (`custom`) becomes: serde's message is not kept (the
/// core's errors carry no heap data).
const SERIALIZE_REFUSED: Error = Error::InvalidArgument("a Serialize impl refused its value");

impl ::serde::ser::Error for Error {
    fn custom<M: core::fmt::Display>(_msg: M) -> Self {
        SERIALIZE_REFUSED
    }
}

/// Errors raised through this trait have no position: they are [`Error::Schema`] here, and
/// [`Deserializer`] makes them [`Error::Shape`] with the offset of the value being visited
/// when they pass through it (a `Deserialize` impl run by another deserializer keeps them
/// as `Schema`).
impl ::serde::de::Error for Error {
    fn custom<M: core::fmt::Display>(_msg: M) -> Self {
        Error::Schema("a Deserialize impl refused the value")
    }
    fn invalid_type(_: ::serde::de::Unexpected<'_>, _: &dyn ::serde::de::Expected) -> Self {
        Error::Schema("invalid type")
    }
    fn invalid_value(_: ::serde::de::Unexpected<'_>, _: &dyn ::serde::de::Expected) -> Self {
        Error::Schema("invalid value")
    }
    fn invalid_length(_: usize, _: &dyn ::serde::de::Expected) -> Self {
        Error::Schema("invalid length")
    }
    fn unknown_variant(_: &str, _: &'static [&'static str]) -> Self {
        Error::Schema("unknown variant")
    }
    fn unknown_field(_: &str, _: &'static [&'static str]) -> Self {
        Error::Schema("unknown field")
    }
    fn missing_field(field: &'static str) -> Self {
        Error::Schema(field)
    }
    fn duplicate_field(_: &'static str) -> Self {
        // Distinct member names that are one field (an alias); the reader already refuses
        // a name repeated in one object (`Syntax::DuplicateKey`).
        Error::Schema("duplicate field")
    }
}

// ---------------------------------------------------------------------------------------
// Scalars, shared by both writers: the number policy and the byte-array spelling.
// ---------------------------------------------------------------------------------------

/// Writes `s` as a JSON string, escaped as the canonical writer escapes
/// ([`crate::jcs::write_plain_str`], which writes text that needs no escape in one step).
#[inline]
fn write_str<S: Sink + ?Sized>(s: &str, sink: &mut S) -> Result<()> {
    crate::jcs::write_plain_str(s, sink)
}

/// Writes an integer given as sign and magnitude, under the reader's number policy.
fn write_integer<S: Sink + ?Sized>(negative: bool, magnitude: u128, sink: &mut S) -> Result<()> {
    let mut buf = [0u8; 40];
    let text = decimal(negative, magnitude, &mut buf);
    if magnitude > u128::from(MAX_SAFE_INTEGER)
        && core::str::from_utf8(text).ok().and_then(crate::json::integer_literal_value).is_none()
    {
        return Err(Error::Json { kind: Syntax::UnsafeInteger, offset: 0 });
    }
    sink.write(text)
}

/// The decimal text of `±magnitude` at the end of `buf`.
fn decimal(negative: bool, magnitude: u128, buf: &mut [u8; 40]) -> &[u8] {
    let mut i = buf.len();
    // 64-bit division where the value allows (128-bit division is a slow library call).
    let (mut wide, mut narrow) = match u64::try_from(magnitude) {
        Ok(m) => (0u128, m),
        Err(_) => (magnitude, 0u64),
    };
    while wide != 0 {
        i -= 1;
        buf[i] = b'0' + (wide % 10) as u8;
        wide /= 10;
        if let Ok(m) = u64::try_from(wide) {
            narrow = m;
            wide = 0;
            if narrow == 0 {
                return finish_decimal(negative, buf, i);
            }
        }
    }
    loop {
        i -= 1;
        buf[i] = b'0' + (narrow % 10) as u8;
        narrow /= 10;
        if narrow == 0 {
            break;
        }
    }
    finish_decimal(negative, buf, i)
}

fn finish_decimal(negative: bool, buf: &mut [u8; 40], mut i: usize) -> &[u8] {
    if negative {
        i -= 1;
        buf[i] = b'-';
    }
    &buf[i..]
}

/// Writes a double in ECMAScript form, refusing what the reader refuses.
fn write_double<S: Sink + ?Sized>(f: f64, sink: &mut S) -> Result<()> {
    crate::jcs::events::check_double(f)?;
    let mut nb = crate::number::NumberBuf::new();
    sink.write(nb.format_bytes(f))
}

/// Writes bytes as a JSON string of padded URL-safe base64.
fn write_bytes<S: Sink + ?Sized>(bytes: &[u8], sink: &mut S) -> Result<()> {
    sink.write(b"\"")?;
    let mut chunk = [0u8; 64];
    // 48 input bytes are 64 characters and need no padding: only the last chunk pads.
    for part in bytes.chunks(48) {
        let n = crate::encoding::encode_base64url(part, &mut chunk)?;
        sink.write(chunk.get(..n).unwrap_or(&[]))?;
    }
    sink.write(b"\"")
}

/// Writes a `Display` value as a JSON string (serde's `collect_str`), escaped as it is
/// formatted, with no buffer.
fn write_display<T: core::fmt::Display + ?Sized, S: Sink + ?Sized>(value: &T, sink: &mut S) -> Result<()> {
    /// The escaped content of [`crate::jcs::write_plain_str`] without its quotes: that
    /// writer hands each quote to the sink as a write of its own, and the content never
    /// holds a bare `"` (it is written as the escape `\"`), so a one-byte `"` write is a quote.
    struct Unquoted<'s, S: ?Sized>(&'s mut S);
    impl<S: Sink + ?Sized> Sink for Unquoted<'_, S> {
        fn write(&mut self, bytes: &[u8]) -> Result<()> {
            if bytes == b"\"" {
                Ok(())
            } else {
                self.0.write(bytes)
            }
        }
    }
    struct Escaper<'s, S: ?Sized> {
        sink: Unquoted<'s, S>,
        error: Option<Error>,
    }
    impl<S: Sink + ?Sized> core::fmt::Write for Escaper<'_, S> {
        fn write_str(&mut self, s: &str) -> core::fmt::Result {
            crate::jcs::write_plain_str(s, &mut self.sink).map_err(|e| {
                self.error = Some(e);
                core::fmt::Error
            })
        }
    }
    sink.write(b"\"")?;
    let mut w = Escaper { sink: Unquoted(sink), error: None };
    if core::fmt::write(&mut w, format_args!("{value}")).is_err() {
        return Err(w.error.unwrap_or(Error::InvalidArgument("a Display impl failed")));
    }
    w.sink.0.write(b"\"")
}

/// A map key's text, as `serde_json` accepts keys: strings, `char`, integers, `bool`, unit
/// variants and newtype structs of those. `f` receives the text.
struct KeySerializer<F>(F);

const KEY_NOT_STRING: Error = Error::Schema("map key must be a string");

impl<F: FnOnce(&str) -> Result<()>> KeySerializer<F> {
    fn integer(self, negative: bool, magnitude: u128) -> Result<()> {
        let mut buf = [0u8; 40];
        let text = decimal(negative, magnitude, &mut buf);
        (self.0)(core::str::from_utf8(text).unwrap_or("0"))
    }
}

macro_rules! key_int {
    ($($name:ident: $t:ty),*) => {$(
        fn $name(self, v: $t) -> Result<()> {
            #[allow(unused_comparisons)]
            let negative = v < 0;
            self.integer(negative, (v as i128).unsigned_abs())
        }
    )*};
}

impl<F: FnOnce(&str) -> Result<()>> ::serde::Serializer for KeySerializer<F> {
    type Ok = ();
    type Error = Error;
    type SerializeSeq = ::serde::ser::Impossible<(), Error>;
    type SerializeTuple = ::serde::ser::Impossible<(), Error>;
    type SerializeTupleStruct = ::serde::ser::Impossible<(), Error>;
    type SerializeTupleVariant = ::serde::ser::Impossible<(), Error>;
    type SerializeMap = ::serde::ser::Impossible<(), Error>;
    type SerializeStruct = ::serde::ser::Impossible<(), Error>;
    type SerializeStructVariant = ::serde::ser::Impossible<(), Error>;

    key_int!(serialize_i8: i8, serialize_i16: i16, serialize_i32: i32, serialize_i64: i64,
             serialize_u8: u8, serialize_u16: u16, serialize_u32: u32, serialize_u64: u64);

    fn serialize_i128(self, v: i128) -> Result<()> {
        self.integer(v < 0, v.unsigned_abs())
    }
    fn serialize_u128(self, v: u128) -> Result<()> {
        self.integer(false, v)
    }
    fn serialize_bool(self, v: bool) -> Result<()> {
        (self.0)(if v { "true" } else { "false" })
    }
    fn serialize_f32(self, _: f32) -> Result<()> {
        Err(KEY_NOT_STRING)
    }
    fn serialize_f64(self, _: f64) -> Result<()> {
        Err(KEY_NOT_STRING)
    }
    fn serialize_char(self, v: char) -> Result<()> {
        let mut buf = [0u8; 4];
        (self.0)(v.encode_utf8(&mut buf))
    }
    fn serialize_str(self, v: &str) -> Result<()> {
        (self.0)(v)
    }
    fn serialize_bytes(self, _: &[u8]) -> Result<()> {
        Err(KEY_NOT_STRING)
    }
    fn serialize_none(self) -> Result<()> {
        Err(KEY_NOT_STRING)
    }
    fn serialize_some<T: Serialize + ?Sized>(self, _: &T) -> Result<()> {
        Err(KEY_NOT_STRING)
    }
    fn serialize_unit(self) -> Result<()> {
        Err(KEY_NOT_STRING)
    }
    fn serialize_unit_struct(self, _: &'static str) -> Result<()> {
        Err(KEY_NOT_STRING)
    }
    fn serialize_unit_variant(self, _: &'static str, _: u32, variant: &'static str) -> Result<()> {
        (self.0)(variant)
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(self, _: &'static str, value: &T) -> Result<()> {
        value.serialize(self)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: &T,
    ) -> Result<()> {
        Err(KEY_NOT_STRING)
    }
    fn serialize_seq(self, _: Option<usize>) -> Result<Self::SerializeSeq> {
        Err(KEY_NOT_STRING)
    }
    fn serialize_tuple(self, _: usize) -> Result<Self::SerializeTuple> {
        Err(KEY_NOT_STRING)
    }
    fn serialize_tuple_struct(self, _: &'static str, _: usize) -> Result<Self::SerializeTupleStruct> {
        Err(KEY_NOT_STRING)
    }
    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleVariant> {
        Err(KEY_NOT_STRING)
    }
    fn serialize_map(self, _: Option<usize>) -> Result<Self::SerializeMap> {
        Err(KEY_NOT_STRING)
    }
    fn serialize_struct(self, _: &'static str, _: usize) -> Result<Self::SerializeStruct> {
        Err(KEY_NOT_STRING)
    }
    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeStructVariant> {
        Err(KEY_NOT_STRING)
    }
    fn collect_str<T: core::fmt::Display + ?Sized>(self, _: &T) -> Result<()> {
        Err(Error::InvalidArgument("collect_str needs an allocator"))
    }
}

/// The depth error.
const DEPTH: Error = Error::Limit { kind: Limit::Depth, offset: 0 };

#[cfg(test)]
mod tests;
