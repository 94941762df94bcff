//! Arbitrary bytes into the strict reader: no panic; every error's offset lies inside the
//! input (`<= len`); with an ample node buffer the verdict is never a node limit, and the
//! documented `len / 2 + 2` nodes give the same verdict on well-formed text; RFC 8785
//! options accept whatever the defaults accept; a node buffer too small gives
//! `Limit::Nodes`, never a partial document; the accessors (members, sorted members,
//! elements, pointer-free lookups, string decoding) agree with each other and never panic.
#![no_main]
use concordia_core::error::Limit;
use concordia_core::json::{self, Kind, Node, Options, Value};
use concordia_core::Error;
use libfuzzer_sys::fuzz_target;

fn walk(v: Value<'_>, len: usize, budget: &mut usize) {
    if *budget == 0 {
        return;
    }
    *budget -= 1;
    assert!(v.offset() < len, "value offset beyond the input");
    assert!(v.equals(&v));
    match v.kind() {
        Kind::String => {
            let s = v.as_str().expect("string");
            let mut buf = vec![0u8; s.decoded_len()];
            let d = s.decode_into(&mut buf).expect("decoded_len suffices");
            assert_eq!(d.chars().count(), s.chars().count());
            assert!(s.eq_str(d));
            assert_eq!(s.cmp_utf16_str(d), core::cmp::Ordering::Equal);
        }
        Kind::Number => {
            assert!(v.as_f64().expect("number").is_finite());
            let _ = (v.as_i64(), v.is_integer_literal(), v.number_text());
        }
        Kind::Array => {
            assert_eq!(v.elements().count(), v.len());
            for (i, e) in v.elements().enumerate() {
                assert!(v.at(i).expect("at").equals(&e));
                walk(e, len, budget);
            }
        }
        Kind::Object => {
            assert_eq!(v.members().count(), v.len());
            assert_eq!(v.sorted_members().count(), v.len());
            let mut prev: Option<json::Str<'_>> = None;
            for (k, e) in v.sorted_members() {
                if let Some(p) = prev {
                    assert!(p.cmp_utf16(&k).is_lt(), "sorted_members out of order");
                }
                prev = Some(k);
                if let Some(plain) = k.as_plain() {
                    assert!(v.get(plain).expect("get").equals(&e));
                }
                walk(e, len, budget);
            }
        }
        Kind::Null | Kind::True | Kind::False => {}
    }
}

fuzz_target!(|data: &[u8]| {
    // len + 2 nodes hold every value of any prefix: the reader must then report the real
    // verdict, never a node limit.
    let mut ample = vec![Node::EMPTY; data.len() + 2];
    let verdict = json::parse(data, &mut ample);
    match &verdict {
        Err(Error::Json { offset, .. }) | Err(Error::Limit { offset, .. }) => {
            assert!(*offset <= data.len(), "offset {offset} beyond input length {}", data.len());
        }
        Err(e) => panic!("unexpected error kind from the reader: {e:?}"),
        Ok(doc) => walk(doc.root(), data.len(), &mut 10_000),
    }
    assert!(!matches!(verdict, Err(Error::Limit { kind: Limit::Nodes, .. })), "len + 2 nodes ran out");
    // The documented buffer size, len / 2 + 2, suffices for every well-formed text; a
    // malformed one may run out of nodes before its syntax error is seen (finding
    // json_parse/unclosed-brackets-exhaust-nodes: Limit::Nodes, not Json, in that case).
    let mut nodes = vec![Node::EMPTY; data.len() / 2 + 2];
    let strict = json::parse(data, &mut nodes);
    match (&verdict, &strict) {
        (Ok(_), Ok(_)) | (Err(_), Err(Error::Limit { kind: Limit::Nodes, .. })) => {}
        (Err(a), Err(b)) => assert_eq!(a, b, "the buffer size changed the error"),
        _ => panic!("len/2+2 nodes gave {strict:?}, len+2 gave {verdict:?}"),
    }
    let mut nodes2 = vec![Node::EMPTY; data.len() + 2];
    let relaxed = json::parse_with(data, &mut nodes2, &Options::rfc8785());
    if verdict.is_ok() {
        assert!(relaxed.is_ok(), "RFC 8785 options reject what the defaults accept: {relaxed:?}");
    }
    let mut few = [Node::EMPTY; 4];
    match json::parse(data, &mut few) {
        Ok(_) | Err(Error::Limit { kind: Limit::Nodes, .. }) => {}
        Err(e) => assert!(verdict.is_err(), "a small node buffer gave {e:?} on accepted input"),
    }
});
