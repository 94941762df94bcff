use std::format;
use std::string::{String, ToString};
use std::vec;
use std::vec::Vec;

use proptest::prelude::*;

use super::*;
use crate::error::Error;
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
    assert_eq!(
        canon(r#""\u0041\/\u00e9\u2028\u007f\u001f\u0000\b\f\n\r\t\"\\""#),
        "\"A/é\u{2028}\u{7f}\\u001f\\u0000\\b\\f\\n\\r\\t\\\"\\\\\""
    );
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
    let text =
        r#"{"signature":"top","a":{"signature":"nested","b":1},"countersignatures":{"x":"y"},"z":[{"signature":0}]}"#;
    assert_eq!(
        canon_with(text, &WithoutSignature),
        r#"{"a":{"b":1,"signature":"nested"},"countersignatures":{"x":"y"},"z":[{"signature":0}]}"#
    );
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
            prop::sample::select(vec![
                'a',
                'b',
                '"',
                '\\',
                '\n',
                '\u{0}',
                '\u{1f}',
                '\u{e000}',
                '\u{ffff}',
                '\u{10000}',
                '\u{1f600}',
                'é',
                '/'
            ]),
        ],
        0..8,
    )
    .prop_map(|v| v.into_iter().collect())
}

fn arb_json() -> impl Strategy<Value = J> {
    let leaf = prop_oneof![
        Just(J::Null),
        any::<bool>().prop_map(J::Bool),
        any::<f64>()
            .prop_filter("finite, not -0", |f| f.is_finite() && !(*f == 0.0 && f.is_sign_negative()))
            .prop_map(J::Num),
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

/// A `Vec` as a sink (tests only; hosts have concordia-host's).
struct VecOut(Vec<u8>);

impl Sink for VecOut {
    fn write(&mut self, bytes: &[u8]) -> crate::Result<()> {
        self.0.extend_from_slice(bytes);
        Ok(())
    }
}

/// A host walker over `J`: members in their own order, sorted with `events::sort_members`.
fn emit<P: Preimage + ?Sized>(j: &J, w: &mut events::Writer<'_, VecOut, P>) -> crate::Result<()> {
    match j {
        J::Null => w.null(),
        J::Bool(b) => w.bool(*b),
        J::Num(f) => w.double(*f),
        J::Int(i) => w.int(*i),
        J::Str(s) => w.string(s),
        J::Arr(v) => {
            w.begin_array()?;
            for e in v {
                emit(e, w)?;
            }
            w.end_array()
        }
        J::Obj(m) => {
            let mut members: Vec<&(String, J)> = m.iter().collect();
            events::sort_members(&mut members, |e| e.0.as_str());
            let mut o = w.begin_object()?;
            for (k, v) in members {
                if w.name(&mut o, k)? {
                    emit(v, w)?;
                }
            }
            w.end_object(o)
        }
    }
}

fn events_of<P: Preimage + ?Sized>(j: &J, rule: &P) -> crate::Result<Vec<u8>> {
    let mut w = events::Writer::new(VecOut(Vec::new()), rule);
    emit(j, &mut w)?;
    Ok(w.finish()?.0)
}

fn tape_of<P: Preimage + ?Sized>(text: &str, rule: &P) -> Vec<u8> {
    let mut nodes = vec![Node::EMPTY; text.len() / 2 + 2];
    let doc = parse(text.as_bytes(), &mut nodes).unwrap();
    let mut out = VecOut(Vec::new());
    write_with(doc.root(), rule, &mut out).unwrap();
    out.0
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1000))]

    /// The event writer, fed a value's members in any order, writes what the tape writer
    /// writes from its text, under every rule.
    #[test]
    fn event_writer_matches_the_tape_writer(j in arb_json(), reverse: bool) {
        let mut text = String::new();
        render(&j, reverse, "", false, &mut text);
        prop_assert_eq!(events_of(&j, &Whole).unwrap(), tape_of(&text, &Whole));
        let signed = J::Obj(vec![("signature".into(), J::Str("x".into())), ("v".into(), j.clone())]);
        let mut text = String::new();
        render(&signed, reverse, "", false, &mut text);
        prop_assert_eq!(events_of(&signed, &WithoutSignature).unwrap(), tape_of(&text, &WithoutSignature));
        prop_assert_eq!(events_of(&signed, &SignaturesRecursive).unwrap(), tape_of(&text, &SignaturesRecursive));
    }
}

#[test]
fn event_writer_applies_rules_by_depth() {
    let inner = J::Obj(vec![("signature".into(), J::Int(1)), ("countersignatures".into(), J::Int(2))]);
    let j = J::Obj(vec![("signature".into(), J::Int(1)), ("countersignatures".into(), J::Int(2)), ("a".into(), inner)]);
    assert_eq!(events_of(&j, &Countersign).unwrap(), br#"{"a":{"countersignatures":2}}"#);
    assert_eq!(
        events_of(&j, &WithoutSignature).unwrap(),
        br#"{"a":{"countersignatures":2,"signature":1},"countersignatures":2}"#
    );
    assert_eq!(events_of(&j, &Fields(&["a"])).unwrap(), br#"{"a":{"countersignatures":2,"signature":1}}"#);
    // A name with a backslash is the name itself to the rule, not an escape.
    let j = J::Obj(vec![("a\\u0062".into(), J::Null), ("b".into(), J::Null)]);
    assert_eq!(events_of(&j, &Fields(&["b"])).unwrap(), br#"{"b":null}"#);
    assert_eq!(events_of(&j, &Fields(&["a\\u0062"])).unwrap(), br#"{"a\\u0062":null}"#);
}

#[test]
fn event_writer_orders_members_by_utf16() {
    // U+1F600 (a surrogate pair) sorts before U+E000 in UTF-16, after it in UTF-8.
    let j = J::Obj(vec![("\u{e000}".into(), J::Int(1)), ("\u{1f600}".into(), J::Int(2)), ("a".into(), J::Int(3))]);
    assert_eq!(events_of(&j, &Whole).unwrap(), "{\"a\":3,\"\u{1f600}\":2,\"\u{e000}\":1}".as_bytes());
}

#[test]
fn event_writer_refuses_names_out_of_order_or_repeated() {
    let mut w = events::Writer::new(VecOut(Vec::new()), &Whole);
    let mut o = w.begin_object().unwrap();
    assert!(w.name(&mut o, "b").unwrap());
    w.null().unwrap();
    assert_eq!(w.name(&mut o, "a"), Err(Error::InvalidArgument("member names out of RFC 8785 order")));
    let mut w = events::Writer::new(VecOut(Vec::new()), &WithoutSignature);
    let mut o = w.begin_object().unwrap();
    // Dropped names are checked too.
    assert!(!w.name(&mut o, "signature").unwrap());
    assert_eq!(w.name(&mut o, "signature"), Err(Error::Json { kind: crate::error::Syntax::DuplicateKey, offset: 0 }));
}

#[test]
fn event_writer_refuses_events_out_of_place() {
    let misplaced = Error::InvalidArgument("canonical writer event out of place");
    // A value where an object expects a name.
    let mut w = events::Writer::new(VecOut(Vec::new()), &Whole);
    let o = w.begin_object().unwrap();
    assert_eq!(w.null(), Err(misplaced));
    // A name without its value, then the end.
    let mut w = events::Writer::new(VecOut(Vec::new()), &Whole);
    let mut o2 = w.begin_object().unwrap();
    w.name(&mut o2, "a").unwrap();
    assert_eq!(w.end_object(o2), Err(misplaced));
    // An end that does not match; an object token of another level.
    let mut w = events::Writer::new(VecOut(Vec::new()), &Whole);
    w.begin_array().unwrap();
    assert_eq!(w.end_object(o), Err(misplaced));
    let mut w = events::Writer::new(VecOut(Vec::new()), &Whole);
    let o = w.begin_object().unwrap();
    assert_eq!(w.end_array(), Err(misplaced));
    let mut w2 = events::Writer::new(VecOut(Vec::new()), &Whole);
    w2.begin_array().unwrap();
    let mut o3 = w2.begin_object().unwrap();
    w2.name(&mut o3, "x").unwrap();
    let mut o = o;
    assert_eq!(w2.name(&mut o, "y"), Err(misplaced));
    // Two top-level values; none; an unclosed one.
    let mut w = events::Writer::new(VecOut(Vec::new()), &Whole);
    w.null().unwrap();
    assert_eq!(w.bool(true), Err(misplaced));
    assert!(events::Writer::new(VecOut(Vec::new()), &Whole).finish().is_err());
    let mut w = events::Writer::new(VecOut(Vec::new()), &Whole);
    w.begin_array().unwrap();
    assert!(w.finish().is_err());
}

#[test]
fn event_writer_depth_is_the_readers() {
    for (depth, ok) in [(128usize, true), (129, false)] {
        let mut w = events::Writer::new(VecOut(Vec::new()), &Whole);
        let mut r = Ok(());
        for _ in 0..depth {
            r = w.begin_array();
            if r.is_err() {
                break;
            }
        }
        assert_eq!(r.is_ok(), ok, "{depth}");
        if ok {
            for _ in 0..depth {
                w.end_array().unwrap();
            }
            let text = w.finish().unwrap().0;
            let mut nodes = vec![Node::EMPTY; text.len() + 1];
            assert!(parse(&text, &mut nodes).is_ok());
        } else {
            assert_eq!(r, Err(Error::Limit { kind: crate::error::Limit::Depth, offset: 0 }));
            let text = "[".repeat(depth) + &"]".repeat(depth);
            let mut nodes = vec![Node::EMPTY; text.len() + 1];
            assert!(matches!(
                parse(text.as_bytes(), &mut nodes),
                Err(Error::Limit { kind: crate::error::Limit::Depth, .. })
            ));
        }
    }
}

#[test]
fn event_writer_numbers_are_the_readers() {
    use crate::error::Syntax;
    let one = |f: &dyn Fn(&mut events::Writer<'_, VecOut, Whole>) -> crate::Result<()>| -> crate::Result<Vec<u8>> {
        let mut w = events::Writer::new(VecOut(Vec::new()), &Whole);
        f(&mut w)?;
        Ok(w.finish()?.0)
    };
    assert_eq!(one(&|w| w.int(9_007_199_254_740_991)).unwrap(), b"9007199254740991");
    assert_eq!(one(&|w| w.int(-9_007_199_254_740_991)).unwrap(), b"-9007199254740991");
    // 2^53 is its own ECMAScript form; 2^53 + 1 and i64::MIN are not.
    assert_eq!(one(&|w| w.int(9_007_199_254_740_992)).unwrap(), b"9007199254740992");
    let unsafe_int = Err(Error::Json { kind: Syntax::UnsafeInteger, offset: 0 });
    assert_eq!(one(&|w| w.int(9_007_199_254_740_993)), unsafe_int);
    assert_eq!(one(&|w| w.int(i64::MIN)), unsafe_int);
    assert_eq!(one(&|w| w.integer("100000000000000000000")).unwrap(), b"100000000000000000000");
    assert_eq!(one(&|w| w.integer("123456789012345678901234")), unsafe_int);
    assert_eq!(one(&|w| w.integer("01")), unsafe_int);
    assert_eq!(one(&|w| w.integer("1.0")), unsafe_int);
    assert_eq!(one(&|w| w.double(1e21)).unwrap(), b"1e+21");
    assert_eq!(one(&|w| w.double(1.0)).unwrap(), b"1");
    assert_eq!(one(&|w| w.double(0.0)).unwrap(), b"0");
    assert_eq!(one(&|w| w.double(f64::NAN)), Err(Error::Json { kind: Syntax::InvalidNumber, offset: 0 }));
    assert_eq!(one(&|w| w.double(f64::NEG_INFINITY)), Err(Error::Json { kind: Syntax::NumberOutOfRange, offset: 0 }));
    assert_eq!(one(&|w| w.double(-0.0)), Err(Error::Json { kind: Syntax::NegativeZero, offset: 0 }));
    assert_eq!(one(&|w| w.string("\"\\\u{1}\n\u{7f}é")).unwrap(), "\"\\\"\\\\\\u0001\\n\u{7f}é\"".as_bytes());
}

#[test]
fn decoded_str_reads_no_escapes() {
    let s = crate::json::Str::decoded("a\\n");
    assert!(s.eq_str("a\\n"));
    assert_eq!(s.chars().collect::<String>(), "a\\n");
    assert_eq!(s.units().count(), 3);
    assert_eq!(s.decoded_len(), 3);
}

/// The escape loop one byte at a time: the reference for `write_plain_str`'s word skip.
fn escaped_bytewise(s: &str) -> Vec<u8> {
    let mut out = vec![b'"'];
    for c in s.chars() {
        match c {
            '"' => out.extend_from_slice(b"\\\""),
            '\\' => out.extend_from_slice(b"\\\\"),
            '\u{8}' => out.extend_from_slice(b"\\b"),
            '\u{c}' => out.extend_from_slice(b"\\f"),
            '\n' => out.extend_from_slice(b"\\n"),
            '\r' => out.extend_from_slice(b"\\r"),
            '\t' => out.extend_from_slice(b"\\t"),
            c if (c as u32) < 0x20 => out.extend_from_slice(format!("\\u{:04x}", c as u32).as_bytes()),
            c => out.extend_from_slice(c.encode_utf8(&mut [0u8; 4]).as_bytes()),
        }
    }
    out.push(b'"');
    out
}

fn escaped(s: &str) -> Vec<u8> {
    let mut out = vec![0u8; s.len() * 6 + 2];
    let mut sink = crate::sink::SliceSink::new(&mut out);
    write_plain_str(s, &mut sink).unwrap();
    let n = sink.finish().unwrap();
    out.truncate(n);
    out
}

#[test]
fn word_escape_test_is_exact() {
    // Every byte value at every position of a word, among fillers of every value.
    let naive = |w: [u8; 8]| w.iter().any(|&b| b < 0x20 || b == b'"' || b == b'\\');
    for fill in 0..=255u8 {
        for pos in 0..8 {
            for b in 0..=255u8 {
                let mut w = [fill; 8];
                w[pos] = b;
                assert_eq!(needs_escape8(u64::from_le_bytes(w)), naive(w), "{w:?}");
            }
        }
    }
}

#[test]
fn strings_escape_as_bytewise_at_every_position() {
    for filler in ["a", "~", "é", "\u{7f}", "€"] {
        for len in 0..20 {
            for pos in 0..len {
                for c in (0u32..0x80).chain([0xe9, 0x2028, 0x1f600]) {
                    let c = char::from_u32(c).unwrap();
                    let s: String =
                        (0..len).map(|i| if i == pos { c.to_string() } else { filler.to_string() }).collect();
                    assert_eq!(escaped(&s), escaped_bytewise(&s), "{s:?}");
                }
            }
        }
    }
}

proptest! {
    #[test]
    fn strings_escape_as_bytewise(s in "\\PC*|[\\x00-\\x7f]*") {
        prop_assert_eq!(escaped(&s), escaped_bytewise(&s));
    }

    #[test]
    fn short_decimals_are_ryus_form(n in -4_503_599_627_370_495i64..4_503_599_627_370_495, k in 0u32..6) {
        let f = n as f64 / 10f64.powi(k as i32);
        let mut nb = crate::number::NumberBuf::new();
        let mut ryu = ryu_js::Buffer::new();
        prop_assert_eq!(nb.format(f), ryu.format_finite(f));
    }

    #[test]
    fn every_double_is_ryus_form(bits in any::<u64>()) {
        let f = f64::from_bits(bits);
        prop_assume!(f.is_finite());
        let mut nb = crate::number::NumberBuf::new();
        let mut ryu = ryu_js::Buffer::new();
        prop_assert_eq!(nb.format(f), ryu.format_finite(f));
    }
}

#[test]
fn short_decimals_at_the_edges() {
    let mut cases = vec![0.1, 0.2, 0.3, 0.1 + 0.2, 1e-4, 1.5e-4, 0.0001, 0.00015, 1e-5, 2.5, -2.5, 1037.25, -0.005];
    // Written as text: more digits than a double holds, on purpose.
    for t in
        ["4503599627370495.5", "450359962737049.55", "45035996273704.955", "4503599627370.4955", "0.30000000000000004"]
    {
        cases.push(t.parse().unwrap());
    }
    cases.push(1e15 + 0.5);
    cases.extend([9007199254740991.0 / 4.0, 123456789.0123, 5e-324, f64::MAX, f64::MIN_POSITIVE]);
    // Products around 2^50, where one candidate stops being enough, and 2^52.
    for e in [50, 52] {
        for d in -300i64..300 {
            for k in 1..=4 {
                let n = (1i64 << e) + d * 7;
                cases.push(n as f64 / 10f64.powi(k));
                cases.push(-(n as f64) / 10f64.powi(k));
            }
        }
    }
    for k in 0..200 {
        cases.push(k as f64 * 0.01);
        cases.push(k as f64 * 0.1 + 0.1);
        cases.push(-(k as f64) / 7.0);
        cases.push(1.0 / (k as f64 + 1.0));
    }
    for f in cases {
        let mut nb = crate::number::NumberBuf::new();
        let mut ryu = ryu_js::Buffer::new();
        assert_eq!(nb.format(f), ryu.format_finite(f), "{f:?}");
    }
}

/// `first_escape` finds the first byte below 0x20, `"` or `\` at every position of
/// strings of every length up to 40 (the word loop, the padded tail and their boundary),
/// among bytes next to the special ones (0x1f/0x20, `!`/`#`, `[`/`]`, 0x7f, 0xff); and
/// `write_plain_str` writes the same bytes through a sink that takes quoted text in one
/// step and through one that takes it in three.
#[test]
fn first_escape_finds_every_special_byte_at_every_position() {
    struct ThreeWrites(Vec<u8>);
    impl Sink for ThreeWrites {
        fn write(&mut self, bytes: &[u8]) -> Result<()> {
            self.0.extend_from_slice(bytes);
            Ok(())
        }
    }
    let specials = [0x00u8, 0x0a, 0x1f, b'"', b'\\'];
    let fillers = [b' ', b'!', b'#', b'[', b']', b'a', 0x7f];
    for len in 0..40usize {
        for (fi, &fill) in fillers.iter().enumerate() {
            let mut text = vec![fill; len];
            assert_eq!(first_escape(&text), None, "{len} {fill}");
            for at in 0..len {
                for &sp in &specials {
                    text[at] = sp;
                    if at + 3 < len {
                        text[at + 3] = specials[fi % specials.len()];
                    }
                    assert_eq!(first_escape(&text), Some(at), "{len} {at} {sp} {fill}");
                    text[at] = fill;
                    if at + 3 < len {
                        text[at + 3] = fill;
                    }
                }
            }
        }
    }
    for s in ["", "a", "plain ascii text of some length", "tab\there", "q\"uote", "é → ✓ 🤝", "\u{7f}\u{1f}x"] {
        let mut one = Vec::new();
        let mut buf = [0u8; 128];
        let mut slice = crate::sink::SliceSink::new(&mut buf);
        write_plain_str(s, &mut slice).unwrap();
        let n = slice.finish().unwrap();
        one.extend_from_slice(&buf[..n]);
        let mut three = ThreeWrites(Vec::new());
        write_plain_str(s, &mut three).unwrap();
        assert_eq!(one, three.0, "{s:?}");
        assert_eq!(String::from_utf8(one).unwrap(), serde_json::to_string(s).unwrap());
    }
}

/// A quoted string that does not fit a slice sink writes nothing past the buffer and
/// counts the full length.
#[test]
fn quoted_text_past_the_end_counts_its_length() {
    for room in 0..8 {
        let mut buf = [b'.'; 8];
        let mut sink = crate::sink::SliceSink::new(&mut buf[..room]);
        write_plain_str("abcde", &mut sink).unwrap();
        assert_eq!(sink.len(), 7);
        assert_eq!(sink.finish(), if room >= 7 { Ok(7) } else { Err(Error::BufferTooSmall { needed: 7 }) });
        if room < 7 {
            assert!(buf[..room].iter().all(|&b| b == b'.'), "{room}: {buf:?}");
        }
    }
}
