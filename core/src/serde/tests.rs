#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::boxed::Box;
use std::collections::{BTreeMap, HashMap};
use std::format;
use std::string::{String, ToString};
use std::vec;
use std::vec::Vec;

use ::serde::ser::{SerializeMap, Serializer};
use ::serde::{Deserialize, Serialize};
use proptest::prelude::*;

use super::*;
use crate::error::detail;
use crate::json;

/// A sink into a `Vec`, for the streaming form.
struct VecSink(Vec<u8>);

impl Sink for VecSink {
    fn write(&mut self, bytes: &[u8]) -> Result<()> {
        self.0.extend_from_slice(bytes);
        Ok(())
    }
}

fn streamed<T: Serialize + ?Sized>(value: &T) -> Result<Vec<u8>> {
    let mut sink = VecSink(Vec::new());
    write(value, &Whole, &mut sink)?;
    Ok(sink.0)
}

fn buffered<T: Serialize + ?Sized>(value: &T) -> Result<Vec<u8>> {
    let mut out = vec![0u8; 1 << 16];
    let n = to_canonical_slice(value, &mut out)?;
    out.truncate(n);
    Ok(out)
}

/// The core's own canonical form of `text`.
fn core_jcs(text: &[u8]) -> Vec<u8> {
    let mut nodes = vec![json::Node::EMPTY; json::nodes_for_text(text)];
    let doc = json::parse(text, &mut nodes).unwrap();
    let mut out = vec![0u8; text.len() * 2 + 16];
    let n = crate::jcs::write_to_slice(doc.root(), &mut out).unwrap();
    out.truncate(n);
    out
}

/// Both forms agree with serde_jcs, with the core's jcs of serde_json's text, and with
/// `sha256`; returns the canonical bytes.
fn check<T: Serialize + ?Sized>(value: &T) -> Vec<u8> {
    let a = buffered(value).unwrap();
    let b = streamed(value).unwrap();
    let oracle = serde_jcs::to_vec(value).unwrap();
    let core = core_jcs(&serde_json::to_vec(value).unwrap());
    let show = |v: &[u8]| String::from_utf8_lossy(v).into_owned();
    assert_eq!(show(&a), show(&oracle), "to_canonical_slice vs serde_jcs");
    assert_eq!(show(&a), show(&core), "to_canonical_slice vs the core's jcs");
    assert_eq!(show(&b), show(&a), "write (streamed) vs to_canonical_slice");
    assert_eq!(sha256(value).unwrap(), crate::digest::sha256(&a));
    // A buffer of the exact size (no spare room: members move by rotation in place).
    let mut exact = vec![0u8; a.len()];
    assert_eq!(to_canonical_slice(value, &mut exact), Ok(a.len()));
    assert_eq!(show(&exact), show(&a), "exact-size buffer");
    a
}

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
struct Price {
    value: f64,
    currency: String,
}

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
enum Kind {
    Basic,
    Counter(u32),
    Range(i64, i64),
    Bundle { items: Vec<String>, discount: Option<f64> },
}

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
struct Offer {
    // Declared out of order on purpose.
    terms: BTreeMap<String, f64>,
    offer_id: String,
    price: Price,
    kind: Kind,
    counts: Vec<i64>,
    note: Option<String>,
    accepted: bool,
    _private: (),
    z: u8,
    a: i32,
}

fn offer() -> Offer {
    Offer {
        terms: [("zürich".to_string(), 1.5), ("\u{1F91D}".to_string(), 0.1), ("\u{FF61}".to_string(), 1e21)]
            .into_iter()
            .collect(),
        offer_id: "o-\"1\"\n".to_string(),
        price: Price { value: 2200.5, currency: "EUR".to_string() },
        kind: Kind::Bundle { items: vec!["a".into(), "\u{7f}\u{2028}".into()], discount: Some(0.15) },
        counts: vec![9_007_199_254_740_991, -9_007_199_254_740_991, 0],
        note: None,
        accepted: true,
        _private: (),
        z: 255,
        a: -7,
    }
}

#[test]
fn a_struct_in_canonical_form() {
    let bytes = check(&offer());
    assert_eq!(
        core::str::from_utf8(&bytes).unwrap(),
        "{\"_private\":null,\"a\":-7,\"accepted\":true,\"counts\":[9007199254740991,-9007199254740991,0],\
         \"kind\":{\"Bundle\":{\"discount\":0.15,\"items\":[\"a\",\"\u{7f}\u{2028}\"]}},\"note\":null,\
         \"offer_id\":\"o-\\\"1\\\"\\n\",\"price\":{\"currency\":\"EUR\",\"value\":2200.5},\
         \"terms\":{\"zürich\":1.5,\"\u{1F91D}\":0.1,\"\u{FF61}\":1e+21},\"z\":255}"
    );
}

#[test]
fn every_enum_form_and_round_trip() {
    for k in [Kind::Basic, Kind::Counter(3), Kind::Range(-1, 2), Kind::Bundle { items: vec![], discount: None }] {
        let bytes = check(&k);
        let mut nodes = [json::Node::EMPTY; 16];
        let back: Kind = from_slice(&bytes, &mut nodes).unwrap();
        assert_eq!(back, k);
    }
    assert_eq!(buffered(&Kind::Range(1, 2)).unwrap(), br#"{"Range":[1,2]}"#);
}

#[test]
fn struct_round_trip_borrows() {
    #[derive(Serialize, Deserialize, Debug, PartialEq)]
    struct Borrowed<'a> {
        name: &'a str,
        #[serde(borrow)]
        tags: Vec<&'a str>,
        owned: String,
    }
    let text = br#"{"name":"plain","tags":["x","y"],"owned":"esc\u00e9\n"}"#;
    let mut nodes = [json::Node::EMPTY; 16];
    let v: Borrowed<'_> = from_slice(text, &mut nodes).unwrap();
    assert_eq!(v, Borrowed { name: "plain", tags: vec!["x", "y"], owned: "esc\u{e9}\n".into() });
    // The borrowed strings point into the input.
    let range = text.as_ptr_range();
    assert!(range.contains(&v.name.as_ptr()));
    // An escaped string cannot be borrowed (as with serde_json).
    let mut nodes = [json::Node::EMPTY; 16];
    let err = from_slice::<Borrowed<'_>>(br#"{"name":"a\n","tags":[],"owned":""}"#, &mut nodes).unwrap_err();
    assert_eq!(err, Error::Shape { what: "invalid type", offset: 8 });
    // serde_json agrees that it is an error.
    assert!(serde_json::from_slice::<Borrowed<'_>>(br#"{"name":"a\n","tags":[],"owned":""}"#).is_err());
}

#[test]
fn reading_errors_name_the_field_and_keep_offsets() {
    let mut nodes = [json::Node::EMPTY; 16];
    assert_eq!(from_slice::<Price>(br#"{"value": 1}"#, &mut nodes), Err(Error::Shape { what: "currency", offset: 0 }));
    assert_eq!(
        from_slice::<Price>(br#"{"value": 1, "value": 2, "currency": "x"}"#, &mut nodes),
        Err(Error::Json { kind: Syntax::DuplicateKey, offset: 13 })
    );
    assert_eq!(
        from_slice::<Price>(br#"{"value": -0.0}"#, &mut nodes),
        Err(Error::Json { kind: Syntax::NegativeZero, offset: 10 })
    );
    assert_eq!(from_slice::<u8>(b"256", &mut nodes), Err(Error::Shape { what: "invalid value", offset: 0 }));
    assert_eq!(from_slice::<u8>(b" 1.5", &mut nodes), Err(Error::Shape { what: "invalid type", offset: 1 }));
    assert_eq!(from_slice::<(u8, u8)>(b"[1,2,3]", &mut nodes), Err(Error::Shape { what: "invalid length", offset: 0 }));
    let mut two = [json::Node::EMPTY; 2];
    assert_eq!(from_slice::<Vec<u8>>(b"[1,2,3]", &mut two), Err(Error::Limit { kind: Limit::Nodes, offset: 3 }));
}

#[test]
fn number_policy_is_the_readers() {
    let unsafe_int = Err(Error::Json { kind: Syntax::UnsafeInteger, offset: 0 });
    for (value, expected) in [
        (9_007_199_254_740_991u128, Ok(b"9007199254740991".to_vec())),
        (9_007_199_254_740_992u128, Ok(b"9007199254740992".to_vec())),
        (9_007_199_254_740_993u128, unsafe_int.clone()),
        (100_000_000_000_000_000_000u128, Ok(b"100000000000000000000".to_vec())),
        (u128::from(u64::MAX), unsafe_int.clone()),
    ] {
        assert_eq!(buffered(&value), expected, "{value}");
        assert_eq!(streamed(&value), expected, "{value}");
        // The reader's verdict on the same literal.
        let text = value.to_string();
        let mut nodes = [json::Node::EMPTY; 2];
        assert_eq!(json::parse(text.as_bytes(), &mut nodes).is_ok(), expected.is_ok(), "{text}");
    }
    assert_eq!(buffered(&-9_007_199_254_740_993i64), unsafe_int);
    assert_eq!(buffered(&i64::MIN), unsafe_int);
    assert_eq!(buffered(&f64::NAN), Err(Error::Json { kind: Syntax::InvalidNumber, offset: 0 }));
    assert_eq!(streamed(&f64::INFINITY), Err(Error::Json { kind: Syntax::NumberOutOfRange, offset: 0 }));
    assert_eq!(buffered(&[1.0, -0.0]), Err(Error::Json { kind: Syntax::NegativeZero, offset: 0 }));
    assert_eq!(buffered(&0.1f32).unwrap(), b"0.10000000149011612");
    assert_eq!(buffered(&1e21).unwrap(), b"1e+21");
    assert_eq!(buffered(&5e-7).unwrap(), b"5e-7");
    assert_eq!(buffered(&-3.0).unwrap(), b"-3");
}

#[test]
fn bytes_are_padded_base64url() {
    #[derive(Serialize, Deserialize, Debug, PartialEq)]
    struct Blob {
        #[serde(with = "serde_bytes")]
        data: Vec<u8>,
        raw: [u8; 3],
    }
    let blob = Blob { data: (0u8..=255).chain(0..48).collect(), raw: [1, 2, 3] };
    let bytes = buffered(&blob).unwrap();
    assert_eq!(streamed(&blob).unwrap(), bytes);
    let mut b64 = vec![0u8; 512];
    let n = crate::encoding::encode_base64url(&blob.data, &mut b64).unwrap();
    let expected = format!("{{\"data\":\"{}\",\"raw\":[1,2,3]}}", core::str::from_utf8(&b64[..n]).unwrap());
    assert_eq!(core::str::from_utf8(&bytes).unwrap(), expected);
    assert!(expected.ends_with("==\",\"raw\":[1,2,3]}"));
    let mut nodes = [json::Node::EMPTY; 16];
    assert_eq!(from_slice::<Blob>(&bytes, &mut nodes).unwrap(), blob);
    // One spelling: unpadded, standard alphabet, or an array of integers is refused.
    // Each refusal is at the value (offset 8, its opening quote or bracket).
    for other in [
        r#"{"data":"AAE","raw":[1,2,3]}"#,
        r#"{"data":"+/8=","raw":[1,2,3]}"#,
        r#"{"data":"AA\u0045=","raw":[1,2,3]}"#,
        r#"{"data":[0,1],"raw":[1,2,3]}"#,
    ] {
        match from_slice::<Blob>(other.as_bytes(), &mut nodes) {
            Err(Error::Shape { offset: 8, .. }) => {}
            wrong => panic!("{other}: {wrong:?}"),
        }
    }
    let long = serde_bytes::ByteBuf::from(vec![0u8; MAX_BYTES + 1]);
    let text = buffered(&long).unwrap();
    let mut nodes = [json::Node::EMPTY; 2];
    assert_eq!(
        from_slice::<serde_bytes::ByteBuf>(&text, &mut nodes),
        Err(Error::Limit { kind: Limit::Capacity, offset: 0 })
    );
}

#[test]
fn map_keys() {
    let ints: BTreeMap<i64, bool> = [(10, true), (9, false), (-1, true)].into_iter().collect();
    // "-1" < "10" < "9" as strings.
    assert_eq!(check(&ints), br#"{"-1":true,"10":true,"9":false}"#);
    let mut nodes = [json::Node::EMPTY; 16];
    assert_eq!(from_slice::<BTreeMap<i64, bool>>(&buffered(&ints).unwrap(), &mut nodes).unwrap(), ints);
    let chars: BTreeMap<char, u8> = [('b', 1), ('a', 2)].into_iter().collect();
    check(&chars);
    let bools: BTreeMap<bool, u8> = [(true, 1), (false, 2)].into_iter().collect();
    check(&bools);
    let floats: Vec<(f64, u8)> = vec![(1.5, 1)];
    struct AsMap<'a>(&'a [(f64, u8)]);
    impl Serialize for AsMap<'_> {
        fn serialize<S: Serializer>(&self, s: S) -> core::result::Result<S::Ok, S::Error> {
            s.collect_map(self.0.iter().map(|(k, v)| (k, v)))
        }
    }
    assert_eq!(buffered(&AsMap(&floats)), Err(Error::Schema("map key must be a string")));
    assert_eq!(streamed(&AsMap(&floats)), Err(Error::Schema("map key must be a string")));
}

/// A map that yields the names it is given, in that order, duplicates included.
struct Pairs<'a>(&'a [(&'a str, i32)]);

impl Serialize for Pairs<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> core::result::Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(self.0.len()))?;
        for (k, v) in self.0 {
            m.serialize_entry(k, v)?;
        }
        m.end()
    }
}

#[test]
fn duplicate_names_are_refused() {
    let dup = Err(Error::Json { kind: Syntax::DuplicateKey, offset: 0 });
    for pairs in [&[("a", 1), ("a", 2)][..], &[("b", 1), ("a", 2), ("b", 3)], &[("c", 1), ("a", 1), ("b", 1), ("a", 1)]]
    {
        assert_eq!(buffered(&Pairs(pairs)), dup, "{pairs:?}");
        assert_eq!(streamed(&Pairs(pairs)), dup, "{pairs:?}");
    }
    assert_eq!(check(&Pairs(&[("b", 1), ("a", 2), ("c", 3)])), br#"{"a":2,"b":1,"c":3}"#);
    // With no room after the output members move by rotation, which finds them too.
    let mut exact = [0u8; 19];
    assert_eq!(
        to_canonical_slice(&Pairs(&[("b", 1), ("a", 2), ("b", 3)]), &mut exact),
        Err(Error::Json { kind: Syntax::DuplicateKey, offset: 0 })
    );
}

#[test]
fn names_sharing_prefixes_sort_as_utf16() {
    // Names around the 8-byte prefix the writer compares first: equal prefixes, one name
    // the other's extension, bytes below and above each other at and past byte 8, non-ASCII
    // (UTF-16 order differs from UTF-8 past U+FFFF) and escaped names, in several orders.
    let mut names: Vec<String> = Vec::new();
    for stem in ["", "a", "abcdefg", "abcdefgh", "abcdefghi"] {
        for tail in ["", "a", "b", " ", "~", "\u{7f}", "é", "\u{ff61}", "😀", "\"", "\n", "\u{1}", "ab", "a\u{1}"] {
            let name = format!("{stem}{tail}");
            if !names.contains(&name) {
                names.push(name);
            }
        }
    }
    let values: Vec<i32> = (0..names.len() as i32).collect();
    for order in 0..4 {
        let mut pairs: Vec<(&str, i32)> = names.iter().map(String::as_str).zip(values.iter().copied()).collect();
        match order {
            0 => {}
            1 => pairs.reverse(),
            2 => pairs.sort_by_key(|p| (p.1 * 7919) % 97),
            _ => pairs.sort_by(|a, b| b.0.cmp(a.0)),
        }
        let want =
            serde_jcs::to_vec(&pairs.iter().map(|&(k, v)| (k.to_string(), v)).collect::<BTreeMap<_, _>>()).unwrap();
        assert_eq!(buffered(&Pairs(&pairs)).unwrap(), want, "order {order}");
        assert_eq!(streamed(&Pairs(&pairs)).unwrap(), want, "order {order}");
    }
}

#[test]
fn large_objects_out_of_order_match() {
    // 200 names (the stack table holds 256) in reverse and in a scattered order, ASCII and
    // not (sorted by UTF-16 code units).
    let names: Vec<String> =
        (0..200).map(|i| format!("k{:03}{}", (i * 7919) % 200, ["", "é", "😀", "\u{ff61}"][i % 4])).collect();
    let reversed: Vec<(&str, i32)> = names.iter().rev().enumerate().map(|(i, n)| (n.as_str(), i as i32)).collect();
    check(&Pairs(&reversed));
    let scattered: Vec<(&str, i32)> = names.iter().enumerate().map(|(i, n)| (n.as_str(), i as i32)).collect();
    check(&Pairs(&scattered));
}

#[test]
fn buffer_too_small_says_the_exact_length() {
    let value = offer();
    let full = buffered(&value).unwrap();
    for len in [0, 1, 2, 10, full.len() / 2, full.len() - 1] {
        let mut out = vec![0u8; len];
        assert_eq!(to_canonical_slice(&value, &mut out), Err(Error::BufferTooSmall { needed: full.len() }), "{len}");
    }
    let mut out = vec![0u8; full.len()];
    assert_eq!(to_canonical_slice(&value, &mut out), Ok(full.len()));
    assert_eq!(out, full);
}

#[test]
fn limits() {
    // Depth: 128 nested containers are written, 129 refused, as the reader counts them.
    fn nested(depth: usize) -> String {
        format!("{}{}", "[".repeat(depth), "]".repeat(depth))
    }
    let mut ok = serde_json::Value::Array(vec![]);
    for _ in 1..128 {
        ok = serde_json::Value::Array(vec![ok]);
    }
    assert_eq!(buffered(&ok).unwrap(), nested(128).as_bytes());
    assert_eq!(streamed(&ok).unwrap(), nested(128).as_bytes());
    let mut nodes = vec![json::Node::EMPTY; 300];
    assert!(from_slice::<::serde::de::IgnoredAny>(nested(128).as_bytes(), &mut nodes).is_ok());
    let deep = serde_json::Value::Array(vec![ok]);
    assert_eq!(buffered(&deep), Err(Error::Limit { kind: Limit::Depth, offset: 0 }));
    assert_eq!(streamed(&deep), Err(Error::Limit { kind: Limit::Depth, offset: 0 }));
    let mut nodes = vec![json::Node::EMPTY; 300];
    assert_eq!(
        from_slice::<::serde::de::IgnoredAny>(nested(129).as_bytes(), &mut nodes),
        Err(Error::Limit { kind: Limit::Depth, offset: 128 })
    );

    // The member table: members open at once.
    let big: BTreeMap<String, u8> = (0..300).map(|i| (format!("k{i:03}"), 1)).collect();
    let capacity = Err(Error::Limit { kind: Limit::Capacity, offset: 0 });
    assert_eq!(buffered(&big), capacity);
    let mut out = vec![0u8; 8192];
    let mut table = [OpenMember::EMPTY; 300];
    let n = to_canonical_slice_in(&big, &Whole, &mut out, &mut table).unwrap();
    assert_eq!(&out[..n], &serde_jcs::to_vec(&big).unwrap()[..]);
    // ... the streaming form has no table and writes it.
    assert_eq!(streamed(&big).unwrap(), &out[..n]);

    // The streaming form's names: MAX_KEY_BYTES along a path.
    let long_name: BTreeMap<String, u8> = [("x".repeat(MAX_KEY_BYTES + 1), 1)].into_iter().collect();
    assert_eq!(streamed(&long_name), capacity);
    assert!(buffered(&long_name).is_ok());
}

#[test]
fn collect_str_is_escaped() {
    struct Shown;
    impl core::fmt::Display for Shown {
        fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
            write!(f, "a\"b\\c\n{}", 7)
        }
    }
    impl Serialize for Shown {
        fn serialize<S: Serializer>(&self, s: S) -> core::result::Result<S::Ok, S::Error> {
            s.collect_str(self)
        }
    }
    assert_eq!(check(&[Shown]), br#"["a\"b\\c\n7"]"#);
    let addr: core::net::Ipv4Addr = "10.0.0.1".parse().unwrap();
    assert_eq!(check(&addr), br#""10.0.0.1""#);
}

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
struct SignedOffer {
    price: Price,
    offer_id: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    signature: Option<String>,
}

#[test]
fn sign_and_verify_match_the_core_message_rule() {
    let key = crate::sign::KeyPair::from_seed(&[9; 32]);
    let unsigned =
        SignedOffer { price: Price { value: 10.5, currency: "USD".into() }, offer_id: "o".into(), signature: None };
    let mut out = [0u8; 512];
    let n = sign(&unsigned, &key, &mut out).unwrap();

    // The oracle: the core's sign_object over serde_json's text of the same value.
    let text = serde_json::to_vec(&unsigned).unwrap();
    let mut nodes = [json::Node::EMPTY; 32];
    let doc = json::parse(&text, &mut nodes).unwrap();
    let mut expected = [0u8; 512];
    let m = crate::message::sign_object(doc.root(), &key, &mut expected).unwrap();
    assert_eq!(&out[..n], &expected[..m]);

    // Read back, verify (streamed), and verify with the core's JSON path too.
    let mut nodes = [json::Node::EMPTY; 32];
    let signed: SignedOffer = from_slice(&out[..n], &mut nodes).unwrap();
    verify(&signed, &key.public_key()).unwrap();
    let mut nodes = [json::Node::EMPTY; 32];
    let doc = json::parse(&out[..n], &mut nodes).unwrap();
    crate::message::verify_signed_object(doc.root(), &key.public_key()).unwrap();
    let sig = signature(&unsigned, &key, &mut [0u8; 256]).unwrap();
    assert_eq!(Some(sig.to_b64url().as_str()), signed.signature.as_deref());
    verify_detached(&unsigned, &key.public_key(), &sig).unwrap();

    // Re-signing a signed value replaces its signature with the same one.
    assert_eq!(sign(&signed, &key, &mut [0u8; 512]), Ok(n));

    // Tampering, another key, a missing or malformed signature.
    let mut forged = signed.clone();
    forged.price.value = 10.25;
    assert_eq!(verify(&forged, &key.public_key()), Err(Error::Signature));
    let other = crate::sign::KeyPair::from_seed(&[8; 32]);
    assert_eq!(verify(&signed, &other.public_key()), Err(Error::Signature));
    assert_eq!(verify(&unsigned, &key.public_key()), Err(Error::Schema(detail::SIGNATURE_MISSING)));
    let mut bad = signed.clone();
    bad.signature = bad.signature.map(|s| s.trim_end_matches('=').to_string());
    assert_eq!(verify(&bad, &key.public_key()), Err(Error::Encoding(detail::SIGNATURE_ENCODING)));
    #[derive(Serialize)]
    struct NumberSig {
        signature: u32,
    }
    assert_eq!(
        verify(&NumberSig { signature: 1 }, &key.public_key()),
        Err(Error::Schema(detail::SIGNATURE_NOT_STRING))
    );

    // Sizes: a too-small buffer names the signed form's length; a non-object is refused.
    assert_eq!(sign(&unsigned, &key, &mut [0u8; 20]), Err(Error::BufferTooSmall { needed: n }));
    assert_eq!(sign(&[1, 2], &key, &mut [0u8; 200]), Err(Error::Schema("signed value must be an object")));
    assert_eq!(verify(&[1, 2], &key.public_key()), Err(Error::Schema("signed value must be an object")));
}

/// serde-json-core writes fields in declaration order and floats in its own form, so it is
/// an oracle where those coincide with RFC 8785: sorted fields, integers, plain strings.
#[test]
fn serde_json_core_agrees_on_its_subset() {
    #[derive(Serialize, Deserialize, Debug, PartialEq)]
    struct Inner<'a> {
        amount: u32,
        unit: &'a str,
    }
    #[derive(Serialize, Deserialize, Debug, PartialEq)]
    struct Telemetry<'a> {
        // Sorted declaration order: serde-json-core writes fields as declared.
        #[serde(borrow)]
        inner: Inner<'a>,
        n: i64,
        ok: bool,
        opt: Option<u16>,
        seq: [i8; 3],
    }
    let t = Telemetry {
        inner: Inner { amount: 42, unit: "kg" },
        n: -9_007_199_254_740_991,
        ok: false,
        opt: None,
        seq: [-1, 0, 1],
    };
    let mut a = [0u8; 128];
    let mut b = [0u8; 128];
    let n = to_canonical_slice(&t, &mut a).unwrap();
    let m = serde_json_core::to_slice(&t, &mut b).unwrap();
    assert_eq!(&a[..n], &b[..m]);
    let mut nodes = [json::Node::EMPTY; 32];
    let ours: Telemetry<'_> = from_slice(&a[..n], &mut nodes).unwrap();
    let (theirs, _) = serde_json_core::from_slice::<Telemetry<'_>>(&a[..n]).unwrap();
    assert_eq!(ours, theirs);
}

// ---------------------------------------------------------------------------------------
// Random data models.
// ---------------------------------------------------------------------------------------

/// A JSON-like tree whose objects serialize as maps in the (random) order given.
#[derive(Clone, Debug)]
enum Tree {
    Null,
    Bool(bool),
    Int(i64),
    Float(f64),
    Str(String),
    Arr(Vec<Tree>),
    Obj(Vec<(String, Tree)>),
}

impl Serialize for Tree {
    fn serialize<S: Serializer>(&self, s: S) -> core::result::Result<S::Ok, S::Error> {
        match self {
            Tree::Null => s.serialize_unit(),
            Tree::Bool(b) => s.serialize_bool(*b),
            Tree::Int(i) => s.serialize_i64(*i),
            Tree::Float(f) => s.serialize_f64(*f),
            Tree::Str(t) => s.serialize_str(t),
            Tree::Arr(a) => s.collect_seq(a),
            Tree::Obj(o) => {
                let mut m = s.serialize_map(Some(o.len()))?;
                for (k, v) in o {
                    m.serialize_entry(k, v)?;
                }
                m.end()
            }
        }
    }
}

/// Names and strings: ASCII, escapes, non-ASCII, BMP above the surrogates, astral.
fn text() -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop_oneof![
            4 => prop::char::range('a', 'e'),
            1 => prop::sample::select(vec!['"', '\\', '\n', '\u{1}', '\u{1f}', '\u{7f}', '/', '\t']),
            1 => prop::sample::select(vec!['é', 'ü', '\u{2028}', '\u{e000}', '\u{ff61}', '\u{fffd}']),
            1 => prop::sample::select(vec!['\u{10000}', '\u{1F91D}', '\u{1F600}', '\u{10FFFF}']),
        ],
        0..6,
    )
    .prop_map(|c| c.into_iter().collect())
}

fn number() -> impl Strategy<Value = Tree> {
    const SAFE: i64 = 9_007_199_254_740_991;
    prop_oneof![
        (-1000i64..1000).prop_map(Tree::Int),
        (SAFE - 100..=SAFE).prop_map(Tree::Int),
        (-SAFE..=-SAFE + 100).prop_map(Tree::Int),
        (-SAFE..=SAFE).prop_map(Tree::Int),
        prop::num::f64::NORMAL.prop_map(Tree::Float),
        prop::num::f64::SUBNORMAL.prop_map(Tree::Float),
        (-1e6f64..1e6).prop_map(Tree::Float),
        prop::sample::select(vec![0.0, 1e21, 1e-7, 123e-20, 9007199254740992.0, 0.1, 5e-324, f64::MAX])
            .prop_map(Tree::Float),
    ]
    .prop_filter("no negative zero", |t| !matches!(t, Tree::Float(f) if *f == 0.0 && f.is_sign_negative()))
}

fn tree() -> impl Strategy<Value = Tree> {
    let leaf = prop_oneof![Just(Tree::Null), any::<bool>().prop_map(Tree::Bool), number(), text().prop_map(Tree::Str)];
    leaf.prop_recursive(5, 64, 8, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Tree::Arr),
            prop::collection::vec((text(), inner), 0..8).prop_map(|members| {
                // Unique names, in the random order generated.
                let mut seen = std::collections::HashSet::new();
                Tree::Obj(members.into_iter().filter(|(k, _)| seen.insert(k.clone())).collect())
            }),
        ]
    })
}

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
struct Record {
    zeta: Option<Box<Record>>,
    name: String,
    amounts: Vec<f64>,
    labels: HashMap<String, i64>,
    ordered: BTreeMap<String, Option<bool>>,
    kind: Kind,
    big: i64,
    tiny: i8,
    alpha: (u16, String),
}

fn record() -> impl Strategy<Value = Record> {
    let kind = prop_oneof![
        Just(Kind::Basic),
        any::<u32>().prop_map(Kind::Counter),
        (-1000i64..1000, -1000i64..1000).prop_map(|(a, b)| Kind::Range(a, b)),
        (prop::collection::vec(text(), 0..3), prop::option::of(-1e3f64..1e3))
            .prop_map(|(items, discount)| Kind::Bundle { items, discount }),
    ];
    let float = prop_oneof![prop::num::f64::NORMAL, -1e9f64..1e9];
    let flat = (
        text(),
        prop::collection::vec(float, 0..4),
        prop::collection::hash_map(text(), -9_007_199_254_740_991i64..=9_007_199_254_740_991, 0..5),
        prop::collection::btree_map(text(), prop::option::of(any::<bool>()), 0..5),
        kind,
        prop_oneof![
            -9_007_199_254_740_991i64..=9_007_199_254_740_991,
            9_007_199_254_740_900i64..=9_007_199_254_740_991
        ],
        any::<i8>(),
        (any::<u16>(), text()),
    )
        .prop_map(|(name, amounts, labels, ordered, kind, big, tiny, alpha)| Record {
            zeta: None,
            name,
            amounts,
            labels,
            ordered,
            kind,
            big,
            tiny,
            alpha,
        });
    flat.prop_recursive(3, 8, 1, |inner| {
        (inner.clone(), inner).prop_map(|(mut outer, nested)| {
            outer.zeta = Some(Box::new(nested));
            outer
        })
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn random_trees_match_serde_jcs_and_the_core(t in tree()) {
        let bytes = check(&t);
        // And they read back to the same canonical form.
        let mut nodes = vec![json::Node::EMPTY; json::nodes_for_text(&bytes)];
        let back: serde_json::Value = from_slice(&bytes, &mut nodes).unwrap();
        prop_assert_eq!(buffered(&back).unwrap(), bytes);
    }

    #[test]
    fn random_records_match_and_round_trip(r in record()) {
        let bytes = check(&r);
        let mut nodes = vec![json::Node::EMPTY; json::nodes_for_text(&bytes)];
        let back: Record = from_slice(&bytes, &mut nodes).unwrap();
        prop_assert_eq!(&back, &r);
        // serde_json reads the same value from the canonical text.
        let theirs: Record = serde_json::from_slice(&bytes).unwrap();
        prop_assert_eq!(theirs, r);
    }

    #[test]
    fn signatures_round_trip(r in record(), seed in any::<[u8; 32]>()) {
        #[derive(Serialize, Deserialize)]
        struct Signed {
            record: Record,
            #[serde(skip_serializing_if = "Option::is_none")]
            signature: Option<String>,
        }
        let key = crate::sign::KeyPair::from_seed(&seed);
        let unsigned = Signed { record: r, signature: None };
        let mut out = vec![0u8; 1 << 16];
        let n = sign(&unsigned, &key, &mut out).unwrap();
        let mut nodes = vec![json::Node::EMPTY; json::nodes_for_text(&out[..n])];
        let doc = json::parse(&out[..n], &mut nodes).unwrap();
        crate::message::verify_signed_object(doc.root(), &key.public_key()).unwrap();
        let mut nodes = vec![json::Node::EMPTY; json::nodes_for_text(&out[..n])];
        let signed: Signed = from_slice(&out[..n], &mut nodes).unwrap();
        prop_assert_eq!(verify(&signed, &key.public_key()), Ok(()));
    }
}

/// A preimage rule drops the same members in both writers as in the core's JSON path:
/// the top-level `signature` of maps, structs and variant wrappers, never a nested one.
#[test]
fn preimage_rules_match_the_core() {
    #[derive(Serialize)]
    #[allow(non_camel_case_types)]
    enum Wrapped {
        signature(u8),
        other { signature: u8, keep: bool },
    }
    #[derive(Serialize)]
    struct Nested {
        signature: &'static str,
        inner: BTreeMap<&'static str, &'static str>,
    }
    fn same<T: Serialize>(value: &T, rule: &(impl Preimage + ?Sized)) -> Vec<u8> {
        let mut out = vec![0u8; 4096];
        let n = to_canonical_slice_with(value, rule, &mut out).unwrap();
        let mut sink = VecSink(Vec::new());
        write(value, rule, &mut sink).unwrap();
        assert_eq!(sink.0, &out[..n]);
        let text = serde_json::to_vec(value).unwrap();
        let mut nodes = vec![json::Node::EMPTY; json::nodes_for_text(&text)];
        let doc = json::parse(&text, &mut nodes).unwrap();
        let mut expected = vec![0u8; 4096];
        let m = crate::jcs::write_to_slice_with(doc.root(), rule, &mut expected).unwrap();
        assert_eq!(String::from_utf8_lossy(&out[..n]), String::from_utf8_lossy(&expected[..m]));
        out.truncate(n);
        out
    }
    let map = Pairs(&[("signature", 1), ("b", 2), ("a", 3)]);
    assert_eq!(same(&map, &WithoutSignature), br#"{"a":3,"b":2}"#);
    assert_eq!(same(&Wrapped::signature(1), &WithoutSignature), b"{}");
    assert_eq!(
        same(&Wrapped::other { signature: 1, keep: true }, &WithoutSignature),
        br#"{"other":{"keep":true,"signature":1}}"#
    );
    let nested = Nested { signature: "x", inner: [("signature", "y"), ("z", "w")].into_iter().collect() };
    assert_eq!(same(&nested, &WithoutSignature), br#"{"inner":{"signature":"y","z":"w"}}"#);
    assert_eq!(same(&nested, &crate::preimage::SignaturesRecursive), br#"{"inner":{"z":"w"}}"#);
    assert_eq!(same(&nested, &crate::preimage::Fields(&["inner"])), br#"{"inner":{"signature":"y","z":"w"}}"#);
}

// ---------------------------------------------------------------------------------------
// Shape errors: the offset of the value (or name) at fault.
// ---------------------------------------------------------------------------------------

/// An even number, refused by its own `Deserialize` (serde's `Error::custom`).
#[derive(Deserialize, Debug)]
#[serde(try_from = "u32")]
struct Even(#[allow(dead_code)] u32);

impl TryFrom<u32> for Even {
    type Error = &'static str;
    fn try_from(n: u32) -> core::result::Result<Self, Self::Error> {
        if n.is_multiple_of(2) {
            Ok(Even(n))
        } else {
            Err("odd")
        }
    }
}

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
struct Item {
    id: u8,
    #[serde(alias = "tag")]
    label: String,
    kind: Kind,
    pair: (u8, u8),
    #[serde(default)]
    even: Option<Even>,
    #[serde(default)]
    bits: HashMap<u8, bool>,
    #[serde(default, with = "serde_bytes")]
    blob: Vec<u8>,
}

#[derive(Deserialize, Debug)]
#[allow(dead_code)]
struct Order {
    items: Vec<Item>,
    by_name: BTreeMap<String, Vec<Item>>,
}

const GOOD_ITEM: &str = r#"{"id": 1, "label": "a", "kind": "Basic", "pair": [1, 2]}"#;

/// `bad` (an item) inside an order, after a good item in an array and as the second
/// element of a map entry's array; the error of each, and the offset of `bad` in each text.
fn read_bad_item(bad: &str) -> Vec<(String, usize, Error)> {
    let texts = [
        format!(r#"{{"items": [{GOOD_ITEM}, {bad}], "by_name": {{}}}}"#),
        format!(r#"{{"by_name": {{"x": [], "y": [{GOOD_ITEM},{bad}]}}, "items": []}}"#),
    ];
    texts
        .into_iter()
        .map(|text| {
            let mut nodes = vec![json::Node::EMPTY; json::nodes_for_text(text.as_bytes())];
            let err = from_slice::<Order>(text.as_bytes(), &mut nodes).unwrap_err();
            let at = text.rfind(bad).unwrap();
            (text, at, err)
        })
        .collect()
}

#[test]
fn shape_errors_point_at_the_value_or_name_at_fault() {
    // The good item alone reads.
    let mut nodes = [json::Node::EMPTY; 32];
    from_slice::<Item>(GOOD_ITEM.as_bytes(), &mut nodes).unwrap();

    // (bad item, what, the text within the bad item that the offset points at; "" for
    // the item's own brace)
    let cases: &[(&str, &str, &str)] = &[
        // invalid type: the value's first byte (a string's opening quote).
        (r#"{"id": "7", "label": "b", "kind": "Basic", "pair": [1, 2]}"#, "invalid type", r#""7""#),
        (r#"{"id": 1, "label": ["b"], "kind": "Basic", "pair": [1, 2]}"#, "invalid type", r#"["b"]"#),
        (r#"{"id": 1, "label": "b", "kind": "Basic", "pair": {"a": 1}}"#, "invalid type", r#"{"a": 1}"#),
        (r#"{"id": 1, "label": "b", "kind": "Basic", "pair": [1, true]}"#, "invalid type", "true"),
        (r#"{"id": 1.5, "label": "b", "kind": "Basic", "pair": [1, 2]}"#, "invalid type", "1.5"),
        (r#"{"id": null, "label": "b", "kind": "Basic", "pair": [1, 2]}"#, "invalid type", "null"),
        // A map key that does not spell the key type: the name's opening quote.
        (
            r#"{"id": 1, "label": "b", "kind": "Basic", "pair": [1, 2], "bits": {"1": true, "x": false}}"#,
            "invalid type",
            r#""x""#,
        ),
        // Bytes need a string.
        (r#"{"id": 1, "label": "b", "kind": "Basic", "pair": [1, 2], "blob": 5}"#, "invalid type", "5"),
        // invalid value: the value.
        (r#"{"id": 300, "label": "b", "kind": "Basic", "pair": [1, 2]}"#, "invalid value", "300"),
        (r#"{"id": -1, "label": "b", "kind": "Basic", "pair": [1, 2]}"#, "invalid value", "-1"),
        (r#"{"id": 1, "label": "b", "kind": {"Counter": -5}, "pair": [1, 2]}"#, "invalid value", "-5"),
        // invalid length: the array, too short or too long.
        (r#"{"id": 1, "label": "b", "kind": "Basic", "pair": [1]}"#, "invalid length", "[1]"),
        (r#"{"id": 1, "label": "b", "kind": "Basic", "pair": [1, 2, 3]}"#, "invalid length", "[1, 2, 3]"),
        (r#"{"id": 1, "label": "b", "kind": {"Range": [1]}, "pair": [1, 2]}"#, "invalid length", "[1]"),
        // missing field: the object's brace; `what` is the field.
        (r#"{"id": 1, "label": "b", "kind": "Basic"}"#, "pair", ""),
        (r#"{"id": 1, "label": "b", "kind": {"Bundle": {"discount": 1}}, "pair": [1, 2]}"#, "items", r#"{"discount""#),
        // unknown field: the name's opening quote (escaped or not).
        (r#"{"id": 1, "label": "b", "colour": 1, "kind": "Basic", "pair": [1, 2]}"#, "unknown field", r#""colour""#),
        (
            r#"{"id": 1, "label": "b", "kind": "Basic", "pair": [1, 2], "c\u006flour": 1}"#,
            "unknown field",
            r#""c\u006flour""#,
        ),
        // duplicate field (two names of one field): the second name's opening quote.
        (r#"{"id": 1, "label": "b", "kind": "Basic", "tag": "c", "pair": [1, 2]}"#, "duplicate field", r#""tag""#),
        // unknown variant: the variant's name, as a string or as a member name.
        (r#"{"id": 1, "label": "b", "kind": "Nope", "pair": [1, 2]}"#, "unknown variant", r#""Nope""#),
        (r#"{"id": 1, "label": "b", "kind": {"Nope": 1}, "pair": [1, 2]}"#, "unknown variant", r#""Nope""#),
        // A variant of the wrong form: its payload, or its name when it has none.
        (r#"{"id": 1, "label": "b", "kind": {"Basic": 1}, "pair": [1, 2]}"#, "invalid type", r#"1}"#),
        (r#"{"id": 1, "label": "b", "kind": "Counter", "pair": [1, 2]}"#, "invalid type", r#""Counter""#),
        (r#"{"id": 1, "label": "b", "kind": {"A": 1, "B": 2}, "pair": [1, 2]}"#, "invalid type", r#"{"A""#),
        (r#"{"id": 1, "label": "b", "kind": 7, "pair": [1, 2]}"#, "invalid type", "7"),
        // A Deserialize impl's own error (serde's `custom`): the value it read.
        (
            r#"{"id": 1, "label": "b", "kind": "Basic", "pair": [1, 2], "even": 3}"#,
            "a Deserialize impl refused the value",
            "3}",
        ),
    ];
    for &(bad, what, target) in cases {
        let within = bad.find(target).unwrap();
        for (text, at, err) in read_bad_item(bad) {
            let offset = at + within;
            assert_eq!(err, Error::Shape { what, offset }, "{text}");
            assert_eq!(err.offset(), Some(offset));
            assert_eq!(err.class(), crate::error::Class::Schema);
            assert_eq!(err.to_string(), format!("schema check failed: {what} at byte {offset}"));
        }
    }
}

#[test]
fn errors_with_offsets_keep_theirs() {
    let mut nodes = [json::Node::EMPTY; 32];
    // The reader's errors come first.
    let text = r#"[{"id": 1, "id": 2}]"#;
    assert_eq!(
        from_slice::<Vec<Item>>(text.as_bytes(), &mut nodes).unwrap_err(),
        Error::Json { kind: Syntax::DuplicateKey, offset: text.rfind(r#""id""#).unwrap() }
    );
    // An escaped string longer than the decoding buffer: a limit at the string.
    let long = format!(r#"[1, "{}\n"]"#, "x".repeat(MAX_DECODED_STR));
    let mut nodes = [json::Node::EMPTY; 4];
    assert_eq!(
        from_slice::<(u8, String)>(long.as_bytes(), &mut nodes),
        Err(Error::Limit { kind: Limit::Capacity, offset: 4 })
    );
}

#[test]
fn the_deserializer_alone_fixes_positions_too() {
    // A `Deserializer` over any value of a document, not only through `from_slice`.
    let text = br#"{"a": [true, "x"]}"#;
    let mut nodes = [json::Node::EMPTY; 8];
    let doc = json::parse(text, &mut nodes).unwrap();
    let a = doc.root().get("a").unwrap();
    assert_eq!(<(bool, u8)>::deserialize(Deserializer::new(a)), Err(Error::Shape { what: "invalid type", offset: 13 }));
    // The trait's errors have no position until a `Deserializer` gives them one.
    assert_eq!(<Error as ::serde::de::Error>::missing_field("f"), Error::Schema("f"));
}

/// Bytes that start a value or a member name.
fn starts_value(b: u8) -> bool {
    matches!(b, b'{' | b'[' | b'"' | b'-' | b'0'..=b'9' | b't' | b'f' | b'n')
}

/// The offsets of every value and member name in `text` (which parses).
fn value_offsets(text: &[u8]) -> std::collections::HashSet<usize> {
    fn walk(v: json::Value<'_>, out: &mut std::collections::HashSet<usize>) {
        out.insert(v.offset());
        let mut members = v.members();
        while let Some((_, name, value)) = members.next_named() {
            out.insert(name);
            walk(value, out);
        }
        for e in v.elements() {
            walk(e, out);
        }
    }
    let mut nodes = vec![json::Node::EMPTY; json::nodes_for_text(text)];
    let mut out = std::collections::HashSet::new();
    walk(json::parse(text, &mut nodes).unwrap().root(), &mut out);
    out
}

/// Checks that an error of `from_slice` on `text` is the reader's, or a shape error at a
/// value or member name of `text`; true for a shape error.
fn check_mutant<T: for<'a> Deserialize<'a>>(text: &[u8]) -> core::result::Result<bool, TestCaseError> {
    let mut nodes = vec![json::Node::EMPTY; json::nodes_for_text(text)];
    match from_slice::<T>(text, &mut nodes) {
        Ok(_) => Ok(false),
        Err(Error::Json { .. } | Error::Limit { .. } | Error::Encoding(_)) => Ok(false),
        Err(Error::Shape { offset, what }) => {
            prop_assert!(offset < text.len(), "{what} at {offset}: {}", String::from_utf8_lossy(text));
            prop_assert!(starts_value(text[offset]), "{what} at {offset}: {}", String::from_utf8_lossy(text));
            prop_assert!(
                value_offsets(text).contains(&offset),
                "{what} at {offset}: {}",
                String::from_utf8_lossy(text)
            );
            Ok(true)
        }
        Err(e) => Err(TestCaseError::fail(format!("{e:?} from {}", String::from_utf8_lossy(text)))),
    }
}

/// Snippets that mutations put into valid texts.
const SNIPPETS: &[&str] = &[
    "1",
    "-7",
    "2.5",
    "300",
    r#""x""#,
    r#""é\n""#,
    "[]",
    "[1,2]",
    "{}",
    r#"{"a":1}"#,
    "null",
    "true",
    ",",
    ":",
    r#""name""#,
    r#""zeta":null,"#,
    r#""Counter""#,
    r#"{"Basic":null}"#,
    r#"{"Nope":1}"#,
    r#""label":"x","#,
    r#""tag":"y","#,
    r#""colour":1,"#,
    r#""pair":[1,2,3],"#,
    "",
];

/// Replaces, inserts or deletes at `(position, operation, snippet)` of each mutation.
fn mutate(text: &[u8], mutations: &[(usize, u8, usize)]) -> Vec<u8> {
    let mut t = text.to_vec();
    for &(pos, op, snippet) in mutations {
        let pos = pos % (t.len() + 1);
        let snippet = SNIPPETS[snippet % SNIPPETS.len()].as_bytes();
        match op % 3 {
            0 => {
                let end = (pos + 1).min(t.len());
                t.splice(pos..end, snippet.iter().copied());
            }
            1 => {
                t.splice(pos..pos, snippet.iter().copied());
            }
            _ => {
                let end = (pos + snippet.len().max(1)).min(t.len());
                t.drain(pos..end);
            }
        }
    }
    t
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn errors_on_mutated_records_are_positioned(
        r in record(),
        mutations in prop::collection::vec((any::<usize>(), any::<u8>(), any::<usize>()), 1..4),
    ) {
        let text = serde_json::to_vec(&r).unwrap();
        check_mutant::<Record>(&mutate(&text, &mutations))?;
    }

    #[test]
    fn errors_on_mutated_items_are_positioned(
        mutations in prop::collection::vec((any::<usize>(), any::<u8>(), any::<usize>()), 1..4),
    ) {
        let good = r#"{"items": [{"id": 1, "label": "a", "kind": {"Range": [1, 2]}, "pair": [1, 2], "even": 4,
            "bits": {"3": true}, "blob": "AAE="}], "by_name": {"x": [{"id": 2, "tag": "b",
            "kind": {"Bundle": {"items": ["x"], "discount": null}}, "pair": [3, 4]}]}}"#;
        check_mutant::<Order>(&mutate(good.as_bytes(), &mutations))?;
    }
}

/// Many mutations do give shape errors (the property above is not vacuous).
#[test]
fn mutations_do_reach_shape_errors() {
    let text = serde_json::to_vec(&offer()).unwrap();
    let mut shapes = 0;
    for pos in 0..text.len() {
        for snippet in 0..SNIPPETS.len() {
            if check_mutant::<Offer>(&mutate(&text, &[(pos, 0, snippet)])).unwrap() {
                shapes += 1;
            }
        }
    }
    assert!(shapes > text.len(), "{shapes} shape errors");
}

#[derive(Deserialize, Debug)]
#[serde(untagged)]
#[allow(dead_code)]
enum NumOrText {
    Num(u8),
    Text(String),
}

#[derive(Deserialize, Debug)]
#[allow(dead_code)]
struct Converted {
    evens: Vec<Even>,
    by_name: BTreeMap<String, Even>,
    either: Vec<NumOrText>,
    last: Even,
}

#[test]
fn errors_raised_after_the_deserializer_returned_are_the_values() {
    // `try_from` and untagged enums refuse a value after reading it without error: the
    // element, member value, field or root it was read from.
    for (text, target) in [
        (r#"{"evens": [2, 3], "by_name": {}, "either": [], "last": 2}"#, "3]"),
        (r#"{"evens": [], "by_name": {"a": 2, "b": 5}, "either": [], "last": 2}"#, "5}"),
        (r#"{"evens": [], "by_name": {}, "either": [1, "x", true], "last": 2}"#, "true"),
        (r#"{"evens": [], "by_name": {}, "either": [], "last": 7}"#, "7}"),
    ] {
        let mut nodes = [json::Node::EMPTY; 32];
        let offset = text.find(target).unwrap();
        assert_eq!(
            from_slice::<Converted>(text.as_bytes(), &mut nodes).unwrap_err(),
            Error::Shape { what: "a Deserialize impl refused the value", offset },
            "{text}"
        );
    }
    let mut nodes = [json::Node::EMPTY; 1];
    assert_eq!(
        from_slice::<Even>(b" 7", &mut nodes).unwrap_err(),
        Error::Shape { what: "a Deserialize impl refused the value", offset: 1 }
    );
}

#[test]
fn serialize_impl_errors_and_swallowed_errors() {
    use ::serde::ser::Error as _;
    // A `Serialize` impl's own error (`custom`), in both writers.
    struct Refuses;
    impl Serialize for Refuses {
        fn serialize<S: Serializer>(&self, _: S) -> core::result::Result<S::Ok, S::Error> {
            Err(S::Error::custom("no"))
        }
    }
    let refused = Err(Error::InvalidArgument("a Serialize impl refused its value"));
    assert_eq!(buffered(&[Refuses]), refused);
    assert_eq!(streamed(&[Refuses]), refused);
    let mut pairs = BTreeMap::new();
    pairs.insert("a", Refuses);
    assert_eq!(buffered(&pairs), refused);

    // An impl that swallows the serializer's error and goes on does not get bytes: the
    // buffer form fails with the error it swallowed.
    struct Swallows;
    impl Serialize for Swallows {
        fn serialize<S: Serializer>(&self, s: S) -> core::result::Result<S::Ok, S::Error> {
            let mut m = s.serialize_map(None)?;
            m.serialize_entry("b", &1)?;
            let _ = m.serialize_entry("b", &2);
            m.serialize_entry("c", &3)?;
            m.end()
        }
    }
    assert_eq!(buffered(&Swallows), Err(Error::Json { kind: Syntax::DuplicateKey, offset: 0 }));
    assert_eq!(streamed(&Swallows), Err(Error::Json { kind: Syntax::DuplicateKey, offset: 0 }));
    let nan = Err(Error::Json { kind: Syntax::InvalidNumber, offset: 0 });
    struct SwallowsNumber;
    impl Serialize for SwallowsNumber {
        fn serialize<S: Serializer>(&self, s: S) -> core::result::Result<S::Ok, S::Error> {
            let mut m = s.serialize_map(None)?;
            let _ = m.serialize_entry("x", &f64::NAN);
            m.end()
        }
    }
    assert_eq!(buffered(&SwallowsNumber), nan);
    assert_eq!(streamed(&SwallowsNumber), nan);
    // The first error is the one reported.
    struct Two;
    impl Serialize for Two {
        fn serialize<S: Serializer>(&self, s: S) -> core::result::Result<S::Ok, S::Error> {
            let mut m = s.serialize_map(None)?;
            let _ = m.serialize_entry("x", &f64::INFINITY);
            m.serialize_entry("k", &(1u64 << 60))?;
            m.end()
        }
    }
    assert_eq!(buffered(&Two), Err(Error::Json { kind: Syntax::NumberOutOfRange, offset: 0 }));
    // ... in the order each form meets them: serde's for the buffer, sorted for the stream.
    assert_eq!(streamed(&Two), Err(Error::Json { kind: Syntax::UnsafeInteger, offset: 0 }));
}
