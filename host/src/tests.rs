use super::*;
use concordia_core::error::Syntax;
use concordia_core::sign::KeyPair;

#[test]
fn nodes_are_sized_to_the_text_not_the_length() {
    let mut nodes = Nodes::new();
    // 1 MB of spaces around one number: one node, not a million.
    let mut text = vec![b' '; 1 << 20];
    text.extend_from_slice(b"42");
    let doc = nodes.parse(&text).unwrap();
    assert_eq!(doc.root().as_f64(), Some(42.0));
    assert_eq!(nodes.held(), 1);
    // 1 MB of NUL bytes: the syntax error at byte 0, with one node.
    let zeros = vec![0u8; 1 << 20];
    let mut nodes = Nodes::new();
    let err = nodes.parse(&zeros).unwrap_err();
    assert_eq!(err, Error::Json { kind: Syntax::UnexpectedByte, offset: 0 });
    assert_eq!(nodes.held(), 1);
}

#[test]
fn malformed_text_that_outruns_the_count_still_gets_its_syntax_error() {
    // `[[[[` never closes: the count (one per bracket) is enough, the error is the end.
    let mut nodes = Nodes::new();
    let err = nodes.parse(b"[[[[").unwrap_err();
    assert_eq!(err, Error::Json { kind: Syntax::UnexpectedEnd, offset: 4 });
    // Values without separators are refused at once.
    for (text, offset) in [(&b"[1 2]"[..], 3), (b"{\"a\" 1}", 5), (b"\"abc", 4)] {
        let err = Nodes::new().parse(text).unwrap_err();
        assert_eq!(err.offset(), Some(offset), "{:?}", std::str::from_utf8(text));
    }
}

#[test]
fn the_policy_is_the_cores_default() {
    let deep = |n: usize| format!("{}{}", "[".repeat(n), "]".repeat(n));
    assert!(Nodes::new().parse(deep(128).as_bytes()).is_ok());
    let err = Nodes::new().parse(deep(129).as_bytes()).unwrap_err();
    assert!(matches!(err, Error::Limit { kind: Limit::Depth, offset: 128 }), "{err:?}");
    assert!(Nodes::new().parse(b"9007199254740993").is_err());
    assert!(Nodes::new().parse(b"9007199254740991").is_ok());
    // A message nested to the limit is accepted inside a transcript too; one level more
    // is refused there as it is alone.
    let transcript = |n: usize| format!("[{}]", deep(n));
    assert!(Nodes::new().parse_transcript(transcript(128).as_bytes()).is_ok());
    assert!(Nodes::new().parse(transcript(128).as_bytes()).is_err());
    assert!(Nodes::new().parse_transcript(transcript(129).as_bytes()).is_err());
    let wrapped = |n: usize| format!(" {{\"messages\": [{}]}}", deep(n));
    assert!(Nodes::new().parse_transcript(wrapped(128).as_bytes()).is_ok());
    assert!(Nodes::new().parse_transcript(wrapped(129).as_bytes()).is_err());
}

#[test]
fn sinks_and_writers() {
    let mut nodes = Nodes::new();
    let doc = nodes.parse(br#"{"b":"\u00e9","a":1e21}"#).unwrap();
    let out = canonical(doc.root()).unwrap();
    assert_eq!(out, "{\"a\":1e+21,\"b\":\"\u{e9}\"}".as_bytes());
    let mut sink = VecSink::default();
    jcs::write(doc.root(), &mut sink).unwrap();
    assert_eq!(sink.0, out);
    let v = write_vec(1, |buf| jcs::write_to_slice(doc.root(), buf)).unwrap();
    assert_eq!(v, out);
    assert_eq!(try_filled(3, 7u8).unwrap(), [7, 7, 7]);
    assert_eq!(try_filled(usize::MAX, 0u8), Err(out_of_memory(0)));
}

#[test]
fn key_maps_resolve_escaped_and_plain_ids() {
    let a = KeyPair::from_seed(&[1; 32]).public_key();
    let b = KeyPair::from_seed(&[2; 32]).public_key();
    let text = format!(r#"{{"alice": "{}", "b\u00f6b": "{}"}}"#, a.to_b64url(), b.to_b64url());
    let map = KeyMap::from_json(text.as_bytes()).unwrap();
    assert_eq!(map.len(), 2);
    let mut nodes = Nodes::new();
    let doc = nodes.parse(br#"["alice", "b\u00f6b", "carol"]"#).unwrap();
    let ids: Vec<_> = doc.root().elements().map(|v| v.as_str().unwrap()).collect();
    assert_eq!(map.resolve(ids[0]), Some(a));
    assert_eq!(map.resolve(ids[1]), Some(b));
    assert_eq!(map.resolve(ids[2]), None);
    assert!(matches!(KeyMap::from_json(b"[]"), Err(Error::Schema(_))));
    assert!(KeyMap::from_json(br#"{"x": "AAAA", "y": 1}"#).unwrap().is_empty());
}

#[test]
fn uuid_v4_sets_version_and_variant() {
    assert_eq!(uuid_v4([0; 16]).unwrap(), "00000000-0000-4000-8000-000000000000");
    assert_eq!(uuid_v4([0xff; 16]).unwrap(), "ffffffff-ffff-4fff-bfff-ffffffffffff");
    let id = uuid_v4(*b"0123456789abcdef").unwrap();
    assert_eq!(id, "30313233-3435-4637-b839-616263646566");
    assert!(concordia_core::aip::envelope::parse_uuid_v4(&id).is_ok());
}

#[test]
fn error_codes_name_each_variant() {
    assert_eq!(error_code(&Error::Json { kind: Syntax::DuplicateKey, offset: 1 }), "CONCORDIA_JSON_DUPLICATE_KEY");
    assert_eq!(error_code(&out_of_memory(0)), "CONCORDIA_LIMIT_MEMORY");
    assert_eq!(error_code(&Error::MaxRounds), "CONCORDIA_MAX_ROUNDS");
    assert_eq!(error_code(&Error::Shape { what: "invalid type", offset: 2 }), "CONCORDIA_SHAPE");
}
