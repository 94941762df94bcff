use std::format;
use std::string::String;
use std::vec;
use std::vec::Vec;

use proptest::prelude::*;

use super::*;
use crate::json::{parse, parse_with, Node, Options};
use crate::preimage::{Countersign, Fields, SignaturesRecursive, WithoutSignature};

fn canon_with<P: Preimage>(text: &str, rule: &P) -> String {
    let mut nodes = vec![Node::EMPTY; text.len() / 2 + 2];
    let doc = parse(text.as_bytes(), &mut nodes).unwrap();
    let mut out = vec![0u8; text.len() * 2 + 16];
    let n = write_to_slice_with(doc.root(), rule, &mut out).unwrap();
    String::from_utf8(out[..n].to_vec()).unwrap()
}

fn canon(text: &str) -> String {
    canon_with(text, &Whole)
}

#[test]
fn escapes_are_minimal() {
    assert_eq!(canon(r#""\u0041\/\u00e9\u2028\u007f\u001f\u0000\b\f\n\r\t\"\\""#), "\"A/é\u{2028}\u{7f}\\u001f\\u0000\\b\\f\\n\\r\\t\\\"\\\\\"");
    assert_eq!(canon(r#""\ud83d\ude02""#), "\"\u{1F602}\"");
}

#[test]
fn numbers_follow_ecmascript() {
    let cases = [
        ("1.0", "1"),
        ("1e21", "1e+21"),
        ("1e20", "100000000000000000000"),
        ("0.000001", "0.000001"),
        ("0.0000001", "1e-7"),
        ("-1.5E-3", "-0.0015"),
        ("123456789012345.6", "123456789012345.6"),
        ("5e-324", "5e-324"),
        ("1.7976931348623157e308", "1.7976931348623157e+308"),
        ("9007199254740991", "9007199254740991"),
        ("0", "0"),
        ("4.50", "4.5"),
        ("2e-3", "0.002"),
    ];
    for (input, expected) in cases {
        assert_eq!(canon(input), expected, "{input}");
    }
}

#[test]
fn preimage_rules() {
    let text = r#"{"signature":"top","a":{"signature":"nested","b":1},"countersignatures":{"x":"y"},"z":[{"signature":0}]}"#;
    assert_eq!(canon_with(text, &WithoutSignature), r#"{"a":{"b":1,"signature":"nested"},"countersignatures":{"x":"y"},"z":[{"signature":0}]}"#);
    assert_eq!(canon_with(text, &SignaturesRecursive), r#"{"a":{"b":1},"countersignatures":{"x":"y"},"z":[{}]}"#);
    assert_eq!(canon_with(text, &Countersign), r#"{"a":{"b":1},"z":[{}]}"#);
    assert_eq!(canon_with(text, &Fields(&["z", "a"])), r#"{"a":{"b":1,"signature":"nested"},"z":[{"signature":0}]}"#);
    assert_eq!(canon_with(text, &Fields(&[])), "{}");
    // An escaped member name is matched after unescaping.
    assert_eq!(canon_with(r#"{"sig\u006eature":1,"b":2}"#, &WithoutSignature), r#"{"b":2}"#);
}

#[test]
fn inserting_a_member_keeps_sorted_order() {
    for (text, expected) in [
        (r#"{"a":1,"z":2}"#, r#"{"a":1,"signature":"S","z":2}"#),
        (r#"{"a":1}"#, r#"{"a":1,"signature":"S"}"#),
        (r#"{"z":1}"#, r#"{"signature":"S","z":1}"#),
        (r#"{}"#, r#"{"signature":"S"}"#),
        (r#"{"signature":"old","t":{"a":[]}}"#, r#"{"signature":"S","t":{"a":[]}}"#),
    ] {
        let mut nodes = vec![Node::EMPTY; 32];
        let doc = parse(text.as_bytes(), &mut nodes).unwrap();
        let mut out = crate::sink::SliceSink::new(&mut [0u8; 0][..]);
        let mut buf = vec![0u8; 128];
        let mut sink = crate::sink::SliceSink::new(&mut buf);
        write_inserting(doc.root(), &WithoutSignature, Some(("signature", b"\"S\"")), &mut sink).unwrap();
        let n = sink.finish().unwrap();
        assert_eq!(std::str::from_utf8(&buf[..n]).unwrap(), expected);
        let _ = out.write(b"");
    }
}

#[test]
fn buffer_too_small_reports_needed() {
    let mut nodes = [Node::EMPTY; 8];
    let doc = parse(br#"{"b": [1, 2], "a": "x"}"#, &mut nodes).unwrap();
    let mut small = [0u8; 5];
    assert_eq!(write_to_slice(doc.root(), &mut small), Err(crate::Error::BufferTooSmall { needed: 19 }));
}

#[test]
fn subtrees_canonicalize_alone() {
    let mut nodes = [Node::EMPTY; 16];
    let doc = parse(br#"{"m": [{"y": 2, "x": [true, null]}, 3]}"#, &mut nodes).unwrap();
    let mut out = [0u8; 64];
    let v = doc.root().pointer("/m/0").unwrap();
    let n = write_to_slice(v, &mut out).unwrap();
    assert_eq!(&out[..n], br#"{"x":[true,null],"y":2}"#);
}

/// A JSON tree for property tests.
#[derive(Clone, Debug)]
enum J {
    Null,
    Bool(bool),
    Num(f64),
    Int(i64),
    Str(String),
    Arr(Vec<J>),
    Obj(Vec<(String, J)>),
}

fn arb_string() -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop_oneof![
            any::<char>(),
            prop::sample::select(vec!['a', 'b', '"', '\\', '\n', '\u{0}', '\u{1f}', '\u{e000}', '\u{ffff}', '\u{10000}', '\u{1f600}', 'é', '/']),
        ],
        0..8,
    )
    .prop_map(|v| v.into_iter().collect())
}

fn arb_json() -> impl Strategy<Value = J> {
    let leaf = prop_oneof![
        Just(J::Null),
        any::<bool>().prop_map(J::Bool),
        any::<f64>().prop_filter("finite, not -0", |f| f.is_finite() && !(*f == 0.0 && f.is_sign_negative())).prop_map(J::Num),
        (-9_007_199_254_740_991i64..=9_007_199_254_740_991).prop_map(J::Int),
        arb_string().prop_map(J::Str),
    ];
    leaf.prop_recursive(5, 64, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(J::Arr),
            prop::collection::vec((arb_string(), inner), 0..6).prop_map(|members| {
                // Member names must be unique.
                let mut seen = std::collections::BTreeSet::new();
                J::Obj(members.into_iter().filter(|(k, _)| seen.insert(k.clone())).collect())
            }),
        ]
    })
}

/// Renders with a choice of member order, whitespace and escaping.
fn render(j: &J, reverse: bool, ws: &str, escape_all: bool, out: &mut String) {
    match j {
        J::Null => out.push_str("null"),
        J::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        J::Num(f) => out.push_str(&format!("{f:e}")),
        J::Int(i) => out.push_str(&format!("{i}")),
        J::Str(s) => render_str(s, escape_all, out),
        J::Arr(v) => {
            out.push('[');
            for (i, e) in v.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(ws);
                render(e, reverse, ws, escape_all, out);
            }
            out.push_str(ws);
            out.push(']');
        }
        J::Obj(m) => {
            out.push('{');
            let mut members: Vec<_> = m.iter().collect();
            if reverse {
                members.reverse();
            }
            for (i, (k, v)) in members.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(ws);
                render_str(k, escape_all, out);
                out.push_str(ws);
                out.push(':');
                render(v, reverse, ws, escape_all, out);
            }
            out.push('}');
        }
    }
}

fn render_str(s: &str, escape_all: bool, out: &mut String) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 || (escape_all && !c.is_ascii_alphanumeric()) => {
                let mut buf = [0u16; 2];
                for u in c.encode_utf16(&mut buf) {
                    out.push_str(&format!("\\u{u:04X}"));
                }
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

fn canonical_of(text: &str) -> Vec<u8> {
    let mut nodes = vec![Node::EMPTY; text.len() / 2 + 2];
    let doc = parse_with(text.as_bytes(), &mut nodes, &Options { max_depth: 64, ..Options::default() }).unwrap();
    let mut out = vec![0u8; text.len() * 3 + 16];
    let n = write_to_slice(doc.root(), &mut out).unwrap();
    out.truncate(n);
    out
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn canonical_form_is_idempotent_and_round_trips(j in arb_json()) {
        let mut text = String::new();
        render(&j, false, " ", false, &mut text);
        let once = canonical_of(&text);
        let twice = canonical_of(std::str::from_utf8(&once).unwrap());
        prop_assert_eq!(&once, &twice);
        // parse(jcs(x)) equals x
        let mut n1 = vec![Node::EMPTY; text.len() / 2 + 2];
        let mut n2 = vec![Node::EMPTY; once.len() / 2 + 2];
        let a = parse(text.as_bytes(), &mut n1).unwrap();
        let b = parse(&once, &mut n2).unwrap();
        prop_assert!(a.root().equals(&b.root()));
    }

    /// `json::nodes_for_text` is enough for every well-formed rendering (escapes, quotes,
    /// brackets and commas inside strings included), and never more than one node per
    /// structural byte plus one.
    #[test]
    fn nodes_for_text_suffices_for_well_formed_text(j in arb_json(), ws in prop::sample::select(vec!["", " ", "\n\t"]), esc: bool) {
        let mut text = String::new();
        render(&j, false, ws, esc, &mut text);
        let need = crate::json::nodes_for_text(text.as_bytes());
        prop_assert!(need <= crate::json::nodes_for_any(text.len()));
        let mut nodes = vec![Node::EMPTY; need];
        prop_assert!(parse(text.as_bytes(), &mut nodes).is_ok(), "{} nodes for {:?}", need, text);
    }

    #[test]
    fn canonical_form_ignores_member_order_whitespace_and_escapes(j in arb_json()) {
        let mut plain = String::new();
        render(&j, false, "", false, &mut plain);
        let mut other = String::new();
        render(&j, true, " \n\t ", true, &mut other);
        prop_assert_eq!(canonical_of(&plain), canonical_of(&other));
    }

    #[test]
    fn arbitrary_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..64)) {
        let mut nodes = [Node::EMPTY; 40];
        if let Err(e) = parse(&bytes, &mut nodes) {
            prop_assert!(e.offset().unwrap() <= bytes.len());
        }
    }
}
