use std::vec;
use std::vec::Vec;

use super::*;
use crate::error::{Error, Limit, Syntax};

fn parse_err(input: &[u8]) -> Error {
    let mut nodes = vec![Node::EMPTY; input.len() + 2];
    parse(input, &mut nodes).unwrap_err()
}

fn json_err(input: &str) -> (Syntax, usize) {
    match parse_err(input.as_bytes()) {
        Error::Json { kind, offset } => (kind, offset),
        other => panic!("{input}: expected a syntax error, got {other:?}"),
    }
}

#[test]
fn malformed_inputs_report_kind_and_offset() {
    let cases: &[(&str, Syntax, usize)] = &[
        ("", Syntax::UnexpectedEnd, 0),
        ("   ", Syntax::UnexpectedEnd, 3),
        ("{", Syntax::UnexpectedEnd, 1),
        ("[1,", Syntax::UnexpectedEnd, 3),
        ("[1,]", Syntax::UnexpectedByte, 3),
        ("{\"a\":1,}", Syntax::UnexpectedByte, 7),
        ("{\"a\" 1}", Syntax::UnexpectedByte, 5),
        ("{1:2}", Syntax::UnexpectedByte, 1),
        ("[1] x", Syntax::TrailingBytes, 4),
        ("[1][2]", Syntax::TrailingBytes, 3),
        ("tru", Syntax::UnexpectedEnd, 3),
        ("trUe", Syntax::UnexpectedByte, 2),
        ("NaN", Syntax::UnexpectedByte, 0),
        ("Infinity", Syntax::UnexpectedByte, 0),
        ("-Infinity", Syntax::InvalidNumber, 1),
        ("01", Syntax::InvalidNumber, 1),
        ("-", Syntax::InvalidNumber, 1),
        ("1.", Syntax::InvalidNumber, 2),
        (".5", Syntax::UnexpectedByte, 0),
        ("1e", Syntax::InvalidNumber, 2),
        ("+1", Syntax::UnexpectedByte, 0),
        ("1e400", Syntax::NumberOutOfRange, 0),
        ("[0, -1e309]", Syntax::NumberOutOfRange, 4),
        ("-0", Syntax::NegativeZero, 0),
        ("[-0.0]", Syntax::NegativeZero, 1),
        ("-1e-400", Syntax::NegativeZero, 0),
        ("9007199254740993", Syntax::UnsafeInteger, 0),
        ("-9007199254740995", Syntax::UnsafeInteger, 0),
        ("123456789012345678901234", Syntax::UnsafeInteger, 0),
        ("100000000000000000001", Syntax::UnsafeInteger, 0),
        ("[1, 9007199254740993]", Syntax::UnsafeInteger, 4),
        ("\"a\u{1}\"", Syntax::ControlCharacter, 2),
        ("\"a\nb\"", Syntax::ControlCharacter, 2),
        ("\"\\x\"", Syntax::InvalidEscape, 1),
        ("\"\\u12G4\"", Syntax::InvalidEscape, 1),
        ("\"\\ud800\"", Syntax::LoneSurrogate, 1),
        ("\"\\udc00\"", Syntax::LoneSurrogate, 1),
        ("\"\\ud800\\u0041\"", Syntax::LoneSurrogate, 1),
        ("\"ab", Syntax::UnexpectedEnd, 3),
        ("{\"a\":1,\"b\":2,\"a\":3}", Syntax::DuplicateKey, 13),
        ("{\"b\":1,\"\\u0062\":2}", Syntax::DuplicateKey, 7),
        ("\u{feff}{}", Syntax::ByteOrderMark, 0),
    ];
    for &(input, kind, offset) in cases {
        assert_eq!(json_err(input), (kind, offset), "input {input:?}");
    }
}

#[test]
fn invalid_utf8_reports_first_bad_byte() {
    assert_eq!(parse_err(b"[\"ab\xff\"]"), Error::Json { kind: Syntax::InvalidUtf8, offset: 4 });
    assert_eq!(parse_err(b"\"\xed\xa0\x80\""), Error::Json { kind: Syntax::InvalidUtf8, offset: 1 });
}

#[test]
fn safe_integers_at_the_boundary_are_accepted() {
    let mut nodes = [Node::EMPTY; 4];
    let doc = parse(b"[9007199254740991,-9007199254740991]", &mut nodes).unwrap();
    assert_eq!(doc.root().at(0).unwrap().as_i64(), Some(9_007_199_254_740_991));
    assert_eq!(doc.root().at(1).unwrap().as_i64(), Some(-9_007_199_254_740_991));
    // A big literal that is its own ECMAScript form is unambiguous.
    let doc = parse(b"[100000000000000000000, -9007199254740992, 18014398509481984]", &mut nodes).unwrap();
    assert_eq!(doc.root().at(0).unwrap().as_f64(), Some(1e20));
    assert_eq!(doc.root().at(2).unwrap().as_f64(), Some(18_014_398_509_481_984.0));
    // The RFC 8785 number domain reads big integers as the nearest double.
    let doc = parse_with(b"9007199254740993", &mut nodes, &Options::rfc8785()).unwrap();
    assert_eq!(doc.root().as_f64(), Some(9_007_199_254_740_992.0));
}

/// `integer_literal_value` is the reader's rule: for every integer literal, it accepts
/// exactly what `parse` accepts, with the same value.
#[test]
fn integer_literal_value_is_the_readers_rule() {
    let cases = [
        "0",
        "-0",
        "7",
        "-7",
        "9007199254740991",
        "-9007199254740991",
        "9007199254740992",
        "-9007199254740992",
        "9007199254740993",
        "-9007199254740995",
        "18014398509481984",
        "1152921504606846976",
        "1152921504606847000",
        "100000000000000000000",
        "100000000000000000001",
        "123456789012345678901234",
        "1000000000000000000000",
        "99999999999999999999999999999999999999999999999999",
    ];
    let mut nodes = [Node::EMPTY; 4];
    for text in cases {
        let read = parse(text.as_bytes(), &mut nodes).ok().and_then(|d| d.root().as_f64());
        let ruled = integer_literal_value(text).filter(|v| !(*v == 0.0 && v.is_sign_negative()));
        assert_eq!(ruled, read, "{text}");
    }
    assert_eq!(integer_literal_value("1152921504606846976"), None);
    assert_eq!(integer_literal_value("100000000000000000000"), Some(1e20));
    for not_a_literal in ["", "-", "01", "1.0", "1e3", " 1", "+1", "0x10", "1_000", "--1"] {
        assert_eq!(integer_literal_value(not_a_literal), None, "{not_a_literal}");
    }
}

#[test]
fn depth_and_node_limits() {
    let deep: Vec<u8> = core::iter::repeat_n(b'[', 129).chain(core::iter::repeat_n(b']', 129)).collect();
    let mut nodes = vec![Node::EMPTY; 300];
    assert_eq!(parse(&deep, &mut nodes).unwrap_err(), Error::Limit { kind: Limit::Depth, offset: 128 });
    let opts = Options { max_depth: 200, ..Options::default() };
    assert!(parse_with(&deep, &mut nodes, &opts).is_ok());
    let mut few = [Node::EMPTY; 3];
    assert_eq!(parse(b"[1,2,3]", &mut few).unwrap_err(), Error::Limit { kind: Limit::Nodes, offset: 5 });
}

#[test]
fn deep_nesting_costs_no_stack() {
    let n = 100_000;
    let deep: Vec<u8> = core::iter::repeat_n(b'[', n).chain(core::iter::repeat_n(b']', n)).collect();
    let mut nodes = vec![Node::EMPTY; n + 1];
    let opts = Options { max_depth: u32::MAX, ..Options::default() };
    let doc = parse_with(&deep, &mut nodes, &opts).unwrap();
    let mut out = vec![0u8; deep.len()];
    let len = crate::jcs::write_to_slice(doc.root(), &mut out).unwrap();
    assert_eq!(&out[..len], &deep[..]);
    assert!(doc.root().equals(&doc.root()));
}

#[test]
fn pointers_follow_rfc_6901() {
    // The example document of RFC 6901 §5.
    let text = br#"{"foo": ["bar", "baz"], "": 0, "a/b": 1, "c%d": 2, "e^f": 3, "g|h": 4,
                   "i\\j": 5, "k\"l": 6, " ": 7, "m~n": 8}"#;
    let mut nodes = [Node::EMPTY; 32];
    let doc = parse(text, &mut nodes).unwrap();
    let r = doc.root();
    assert_eq!(r.pointer("").unwrap().kind(), Kind::Object);
    assert_eq!(r.pointer("/foo").unwrap().len(), 2);
    assert!(r.pointer("/foo/0").unwrap().is_str("bar"));
    let num = |p: &str| r.pointer(p).and_then(|v| v.as_i64());
    assert_eq!(num("/"), Some(0));
    assert_eq!(num("/a~1b"), Some(1));
    assert_eq!(num("/c%d"), Some(2));
    assert_eq!(num("/e^f"), Some(3));
    assert_eq!(num("/g|h"), Some(4));
    assert_eq!(num("/i\\j"), Some(5));
    assert_eq!(num("/k\"l"), Some(6));
    assert_eq!(num("/ "), Some(7));
    assert_eq!(num("/m~0n"), Some(8));
    for missing in ["/nope", "/foo/2", "/foo/01", "/foo/-", "foo", "/m~2n", "/foo/0/x"] {
        assert!(r.pointer(missing).is_none(), "{missing}");
    }
}

#[test]
fn equality_is_on_parsed_values() {
    let mut n1 = [Node::EMPTY; 32];
    let mut n2 = [Node::EMPTY; 32];
    let a = parse(br#"{"a": [1, 2.50, "\u00e9"], "b": {"x": null, "y": true}}"#, &mut n1).unwrap();
    let b = parse("{\"b\":{\"y\":true,\"x\":null},\"a\":[1.0,25e-1,\"é\"]}".as_bytes(), &mut n2).unwrap();
    assert!(a.root().equals(&b.root()));
    let c = parse(br#"{"a": [1, 2.5, "e"], "b": {"x": null, "y": true}}"#, &mut n2).unwrap();
    assert!(!a.root().equals(&c.root()));
    let d = parse(br#"{"a": [1, 2.5, "\u00e9"], "b": {"x": null}}"#, &mut n2).unwrap();
    assert!(!a.root().equals(&d.root()));
    assert!(!a.root().get("a").unwrap().equals(&a.root().get("b").unwrap()));
}

#[test]
fn strings_decode_and_compare() {
    let mut nodes = [Node::EMPTY; 8];
    let doc = parse(br#"["a\"b\\c\/\b\f\n\r\t\u0041\ud83d\ude02", "plain"]"#, &mut nodes).unwrap();
    let s = doc.root().at(0).unwrap().as_str().unwrap();
    let mut buf = [0u8; 64];
    assert_eq!(s.decode_into(&mut buf).unwrap(), "a\"b\\c/\u{8}\u{c}\n\r\tA\u{1F602}");
    assert_eq!(s.decode_into(&mut buf[..3]), Err(Error::BufferTooSmall { needed: 16 }));
    assert!(s.eq_str("a\"b\\c/\u{8}\u{c}\n\r\tA\u{1F602}"));
    assert_eq!(doc.root().at(1).unwrap().as_plain_str(), Some("plain"));
    assert_eq!(s.units().count(), 14);
}

#[test]
fn member_iteration_orders() {
    let mut nodes = [Node::EMPTY; 16];
    let doc = parse("{\"b\":1,\"\u{e000}\":2,\"\u{1F600}\":3,\"a\":[1,[2]],\"aa\":{}}".as_bytes(), &mut nodes).unwrap();
    let src: Vec<_> = doc.root().members().map(|(k, _)| k.raw()).collect();
    assert_eq!(src, ["b", "\u{e000}", "\u{1F600}", "a", "aa"]);
    let sorted: Vec<_> = doc.root().sorted_members().map(|(k, _)| k.raw()).collect();
    // UTF-16 order: the surrogate pair of U+1F600 sorts before U+E000.
    assert_eq!(sorted, ["a", "aa", "b", "\u{1F600}", "\u{e000}"]);
    assert_eq!(doc.root().get("a").unwrap().elements().count(), 2);
    assert_eq!(doc.root().len(), 5);
}

/// Names built from characters on both sides of every place where UTF-8 and UTF-16 order
/// differ (and of the 8-byte prefix the reader compares first).
fn arb_name() -> impl proptest::strategy::Strategy<Value = std::string::String> {
    use proptest::prelude::*;
    let ch = prop::sample::select(
        &[
            'a',
            'b',
            'z',
            '~',
            '\u{e9}',
            '\u{7ff}',
            '\u{800}',
            '\u{4e2d}',
            '\u{d7ff}',
            '\u{e000}',
            '\u{ff61}',
            '\u{fffd}',
            '\u{10000}',
            '\u{1f600}',
            '\u{10ffff}',
        ][..],
    );
    prop::collection::vec(ch, 0..12).prop_map(|v| v.into_iter().collect())
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(3000))]

    /// Sorted members follow UTF-16 code units for objects sorted by insertion (up to 16
    /// members) and by merge sort (more); a repeated name is reported at its first repeat
    /// in reading order.
    #[test]
    fn members_sort_by_utf16_and_first_repeat_is_reported(names in proptest::collection::vec(arb_name(), 0..40), escape in proptest::prelude::any::<bool>()) {
        let mut text = std::string::String::from("{");
        let mut offsets = std::vec::Vec::new();
        for (i, n) in names.iter().enumerate() {
            if i > 0 {
                text.push(',');
            }
            offsets.push(text.len());
            text.push('"');
            if escape && i % 3 == 0 {
                for u in n.encode_utf16() {
                    text.push_str(&std::format!("\\u{u:04x}"));
                }
            } else {
                text.push_str(n);
            }
            text.push_str("\":");
            text.push_str(&std::format!("{i}"));
        }
        text.push('}');
        let mut nodes = std::vec![Node::EMPTY; nodes_for_valid(text.len())];
        let first_repeat = (0..names.len()).find(|&i| names[..i].contains(&names[i]));
        match parse(text.as_bytes(), &mut nodes) {
            Ok(doc) => {
                proptest::prop_assert!(first_repeat.is_none());
                let got: std::vec::Vec<std::vec::Vec<u16>> = doc.root().sorted_members().map(|(k, _)| k.units().collect()).collect();
                let mut want: std::vec::Vec<std::vec::Vec<u16>> = names.iter().map(|n| n.encode_utf16().collect()).collect();
                want.sort();
                proptest::prop_assert_eq!(got, want);
            }
            Err(e) => {
                let i = first_repeat.expect("only duplicates are errors here");
                proptest::prop_assert_eq!(e, Error::json(Syntax::DuplicateKey, offsets[i]));
            }
        }
    }
}

/// Checks [`parse_prefix_with`] against [`parse_with`] on `input` (see its docs): a value
/// and its end give the tape of the whole-text reader on `input[..end]`; a whole text
/// the whole-text reader accepts (or refuses only for trailing bytes) is a value up to
/// the same point; an error is the whole-text reader's error on `input`, except that
/// invalid UTF-8 past the bytes read is not seen.
fn check_prefix(input: &[u8], options: &Options) {
    let mut nodes = vec![Node::EMPTY; input.len() + 2];
    let prefix = parse_prefix_with(input, &mut nodes, options);
    let mut whole_nodes = vec![Node::EMPTY; input.len() + 2];
    let whole = parse_with(input, &mut whole_nodes, options);
    let shown = || std::string::String::from_utf8_lossy(input).into_owned();
    match (&prefix, &whole) {
        (Ok((doc, end)), _) => {
            let mut n = vec![Node::EMPTY; input.len() + 2];
            let again = parse_with(&input[..*end], &mut n, options).unwrap_or_else(|e| panic!("{}: {e:?}", shown()));
            assert_eq!(doc.nodes, again.nodes, "{}", shown());
            assert_eq!(doc.src, again.src);
            match whole {
                Ok(_) => assert_eq!(*end, input.len()),
                Err(Error::Json { kind: Syntax::TrailingBytes, offset }) => assert_eq!(*end, offset),
                Err(Error::Json { kind: Syntax::InvalidUtf8, offset }) => assert!(offset >= *end),
                // The text after the value: what a whole text may not have.
                Err(Error::Json { kind: Syntax::UnexpectedByte | Syntax::UnexpectedEnd, offset }) => {
                    assert!(offset >= *end)
                }
                Err(e) => panic!("{}: prefix ok to {end}, whole {e:?}", shown()),
            }
        }
        (Err(e), Ok(_)) => panic!("{}: whole ok, prefix {e:?}", shown()),
        (Err(Error::Json { kind: Syntax::InvalidUtf8, offset }), Err(w)) => {
            assert_eq!(*w, Error::json(Syntax::InvalidUtf8, *offset), "{}", shown())
        }
        (Err(p), Err(Error::Json { kind: Syntax::InvalidUtf8, .. })) => {
            assert!(core::str::from_utf8(input).is_err(), "{}: {p:?}", shown())
        }
        (Err(p), Err(w)) => assert_eq!(p, w, "{}", shown()),
    }
}

/// Texts for the prefix reader: values of every kind, escapes, numbers the policy refuses,
/// non-ASCII names (the insertion and merge sorts), and malformed ones.
const PREFIX_TEXTS: &[&str] = &[
    "1",
    "-0.5e-3",
    "123456789012345678901234",
    "100000000000000000000",
    "-0",
    "true",
    "null",
    "\"a\\u00e9\\ud83d\\ude00\\n\"",
    "\"caf\u{e9} \u{1F600}\"",
    "[]",
    "{}",
    " [1, [2, {\"a\": [3]}], \"x\"] ",
    "{\"b\": 1, \"a\": {\"d\": [], \"c\": null}, \"\u{e9}\": 2, \"\u{1F600}\": 3, \"\u{FFFD}\": 4}",
    "{\"k01\":1,\"k17\":1,\"k02\":1,\"k16\":1,\"k03\":1,\"k15\":1,\"k04\":1,\"k14\":1,\"k05\":1,\"k13\":1,\"k06\":1,\"k12\":1,\"k07\":1,\"k11\":1,\"k08\":1,\"k10\":1,\"k09\":1,\"k00\":1}",
    "{\"a\": 1, \"a\": 2}",
    "{\"aaaaaaaaaa\\u0062\": 1, \"aaaaaaaaaab\": 2}",
    "[1,]",
    "{\"a\" 1}",
    "[\"\\x\"]",
    "[\"\\ud800\"]",
    "[1e400]",
    "[01]",
    "[tru]",
    "\u{feff}[]",
];

#[test]
fn prefix_reader_is_the_whole_text_reader_up_to_its_end() {
    let suffixes: &[&[u8]] = &[b"", b",", b" ]", b"x", b" 7", b"\xFF", b"\"", b"}", b"\n,{\"a\":"];
    for options in [Options::default(), Options::rfc8785(), Options { max_depth: 2, ..Options::default() }] {
        for text in PREFIX_TEXTS {
            for suffix in suffixes {
                let input = [text.as_bytes(), suffix].concat();
                // Every cut (values the input ends inside of), and one damaged byte at each offset.
                for cut in 0..=input.len() {
                    check_prefix(&input[..cut], &options);
                }
                for at in 0..input.len() {
                    for b in [b'"', b'\\', b']', b'\x01', 0xC3, 0x80] {
                        let mut damaged = input.clone();
                        damaged[at] = b;
                        check_prefix(&damaged, &options);
                    }
                }
            }
        }
    }
}

#[test]
fn prefix_reader_reports_its_end_and_limits() {
    let mut nodes = vec![Node::EMPTY; 64];
    let (doc, end) = parse_prefix(b"  {\"a\": [1, 2]}\r\n ,{\"b\"", &mut nodes).unwrap();
    assert_eq!(end, 18);
    assert_eq!(doc.source(), "  {\"a\": [1, 2]}\r\n ");
    assert_eq!(doc.root().offset(), 2);
    let (doc, end) = parse_prefix(b"12,", &mut nodes).unwrap();
    assert_eq!((doc.root().as_f64(), end), (Some(12.0), 2));
    // Cut off: the end of the input, where the value goes on.
    assert_eq!(parse_prefix(b"{\"a\": [1, 2", &mut nodes).unwrap_err(), Error::json(Syntax::UnexpectedEnd, 11));
    assert_eq!(parse_prefix(b"[1e", &mut nodes).unwrap_err(), Error::json(Syntax::InvalidNumber, 3));
    // Invalid UTF-8 counts where it was read: inside the value, not after it.
    assert_eq!(parse_prefix(b"[\"\xFF\"] x", &mut nodes).unwrap_err(), Error::json(Syntax::InvalidUtf8, 2));
    assert_eq!(parse_prefix(b"[\"a\"] \xFF", &mut nodes).unwrap().1, 6);
    assert_eq!(parse_prefix(b"[1 \xFF", &mut nodes).unwrap_err(), Error::json(Syntax::InvalidUtf8, 3));
    assert_eq!(parse_prefix(b"\xEF\xBB\xBF1", &mut nodes).unwrap_err(), Error::json(Syntax::ByteOrderMark, 0));
    let mut few = [Node::EMPTY; 3];
    assert_eq!(parse_prefix(b"[1,2,3],", &mut few).unwrap_err(), Error::Limit { kind: Limit::Nodes, offset: 5 });
    let deep = Options { max_depth: 1, ..Options::default() };
    assert_eq!(
        parse_prefix_with(b"[[]]", &mut nodes, &deep).unwrap_err(),
        Error::Limit { kind: Limit::Depth, offset: 1 }
    );
}
proptest::proptest! {
    /// The word-at-a-time search for the first difference orders as UTF-16 does, with
    /// long shared prefixes (so the difference falls at every offset of a word).
    #[test]
    fn utf8_order_is_utf16_order(prefix in arb_name(), pad in 0usize..20, a in arb_name(), b in arb_name()) {
        let shared: std::string::String = "x".repeat(pad) + &prefix;
        let (a, b) = (shared.clone() + &a, shared + &b);
        let ua: Vec<u16> = a.encode_utf16().collect();
        let ub: Vec<u16> = b.encode_utf16().collect();
        proptest::prop_assert_eq!(cmp_utf8_as_utf16(a.as_bytes(), b.as_bytes()), ua.cmp(&ub));
    }
}

/// Every shared length below 17 bytes, with the first difference at every position (the
/// word, tail and padding paths of the search), against UTF-16 order.
#[test]
fn utf8_order_at_every_length_and_position() {
    let chars = ['a', 'b', '\u{0}', '\u{7f}', '\u{e9}', '\u{e000}', '\u{ffff}', '\u{10000}', '\u{1f600}'];
    for len in 0..17usize {
        for pos in 0..=len {
            for &x in &chars {
                for &y in &chars {
                    let mut a: std::string::String = "k".repeat(pos);
                    let mut b = a.clone();
                    a.push(x);
                    b.push(y);
                    a.push_str(&"z".repeat(len - pos));
                    b.push_str(&"q".repeat((len - pos) / 2));
                    let ua: Vec<u16> = a.encode_utf16().collect();
                    let ub: Vec<u16> = b.encode_utf16().collect();
                    assert_eq!(cmp_utf8_as_utf16(a.as_bytes(), b.as_bytes()), ua.cmp(&ub), "{a:?} {b:?}");
                    assert_eq!(cmp_utf8_as_utf16(a.as_bytes(), a.as_bytes()), core::cmp::Ordering::Equal);
                }
            }
        }
    }
}
