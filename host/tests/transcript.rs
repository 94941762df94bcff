//! `verify_transcript_reader`: arrays, JSON Lines and wrapped objects, and each failure.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing)]

use std::io::{self, Read};

use concordia_core::error::{Limit, Syntax};
use concordia_core::json::{self, Node};
use concordia_core::message::{message_hash, Envelope, Party, GENESIS_HASH};
use concordia_core::sign::KeyPair;
use concordia_core::Error;
use concordia_host::{
    verify_transcript_reader, KeyMap, ReadError, TranscriptFailure, TranscriptFormat, TranscriptSummary,
};

/// `count` signed, hash-chained messages, their key map and the last message's hash.
fn messages(count: usize) -> (Vec<Vec<u8>>, KeyMap, concordia_core::digest::Digest) {
    let seller = KeyPair::from_seed(&[7u8; 32]);
    let buyer = KeyPair::from_seed(&[9u8; 32]);
    let body_text = br#"{"terms":{"price":{"value":2050,"currency":"USD"}}}"#;
    let mut body_nodes = [Node::EMPTY; 16];
    let body = json::parse(body_text, &mut body_nodes).unwrap();
    let mut buf = vec![0u8; 4096];
    let mut nodes = vec![Node::EMPTY; 64];
    let mut prev = GENESIS_HASH;
    let mut out = Vec::new();
    for i in 0..count {
        let (who, key) = if i % 2 == 0 { ("seller", &seller) } else { ("buyer", &buyer) };
        let id = format!("msg_{i}");
        let mut env =
            Envelope::new("negotiate.counter", &id, "ses_t", "2026-03-21T14:30:00Z", Party::new(who), body.root());
        env.prev_hash = prev;
        let n = env.write_signed(key, &mut buf).unwrap();
        prev = message_hash(json::parse(&buf[..n], &mut nodes).unwrap().root());
        out.push(buf[..n].to_vec());
    }
    let keys = format!(
        "{{\"seller\":\"{}\",\"buyer\":\"{}\"}}",
        seller.public_key().to_b64url().as_str(),
        buyer.public_key().to_b64url().as_str()
    );
    (out, KeyMap::from_json(keys.as_bytes()).unwrap(), prev)
}

fn array(msgs: &[Vec<u8>]) -> Vec<u8> {
    let mut out = b"[".to_vec();
    for (i, m) in msgs.iter().enumerate() {
        if i > 0 {
            out.extend_from_slice(b",\n");
        }
        out.extend_from_slice(m);
    }
    out.push(b']');
    out
}

fn lines(msgs: &[Vec<u8>]) -> Vec<u8> {
    let mut out = Vec::new();
    for m in msgs {
        out.extend_from_slice(m);
        out.extend_from_slice(b"\n\n");
    }
    out
}

fn verify(text: &[u8], keys: &KeyMap, format: TranscriptFormat) -> Result<TranscriptSummary, TranscriptFailure> {
    verify_transcript_reader(text, keys, format, None)
}

#[test]
fn array_lines_and_wrapped_object_give_one_summary() {
    let (msgs, keys, head) = messages(5);
    let want = TranscriptSummary { count: 5, head };
    assert_eq!(verify(&array(&msgs), &keys, TranscriptFormat::Array).unwrap(), want);
    assert_eq!(verify(&lines(&msgs), &keys, TranscriptFormat::Lines).unwrap(), want);
    let mut wrapped = b"{\"messages\":".to_vec();
    wrapped.extend_from_slice(&array(&msgs));
    wrapped.push(b'}');
    assert_eq!(verify(&wrapped, &keys, TranscriptFormat::Array).unwrap(), want);
    // Empty: count 0 and the genesis head (the caller decides whether that is acceptable).
    let empty = TranscriptSummary { count: 0, head: GENESIS_HASH };
    assert_eq!(verify(b" [ ] ", &keys, TranscriptFormat::Array).unwrap(), empty);
    assert_eq!(verify(b"\n\n", &keys, TranscriptFormat::Lines).unwrap(), empty);
}

#[test]
fn a_failing_message_is_named_by_its_index() {
    let (mut msgs, keys, _) = messages(5);
    let tampered = String::from_utf8(msgs[2].clone()).unwrap().replace("msg_2", "msg_X");
    msgs[2] = tampered.into_bytes();
    for format in [TranscriptFormat::Array, TranscriptFormat::Lines] {
        let text = if format == TranscriptFormat::Array { array(&msgs) } else { lines(&msgs) };
        match verify(&text, &keys, format) {
            Err(f @ TranscriptFailure::Message { index: 2, error: Error::Signature }) => {
                assert_eq!(f.to_string(), format!("message 2: {}", Error::Signature));
                assert_eq!(f.error(), Some(Error::Signature));
            }
            other => panic!("{format:?}: {other:?}"),
        }
    }
}

#[test]
fn a_malformed_rest_outranks_a_failing_message() {
    let (mut msgs, keys, _) = messages(3);
    msgs[0] = String::from_utf8(msgs[0].clone()).unwrap().replace("msg_0", "msg_X").into_bytes();
    let mut text = array(&msgs);
    text.pop(); // no closing bracket
    match verify(&text, &keys, TranscriptFormat::Array) {
        Err(TranscriptFailure::Read(ReadError::Input(Error::Json { kind: Syntax::UnexpectedEnd, offset }))) => {
            assert_eq!(offset, text.len());
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn parse_errors_name_the_line_and_the_absolute_offset() {
    let (msgs, keys, _) = messages(2);
    let mut text = lines(&msgs);
    let at = text.len();
    text.extend_from_slice(b"{\"a\":}\n");
    match verify(&text, &keys, TranscriptFormat::Lines) {
        Err(
            f @ TranscriptFailure::Parse { line: Some(5), error: Error::Json { kind: Syntax::UnexpectedByte, offset } },
        ) => {
            assert_eq!(offset, at + 5);
            assert!(f.to_string().starts_with("line 5: "), "{f}");
        }
        other => panic!("{other:?}"),
    }
    // A wrapped object read whole: the parse error without a line.
    match verify(b"{\"messages\":[1,]}", &keys, TranscriptFormat::Array) {
        Err(TranscriptFailure::Parse { line: None, error: Error::Json { offset: 15, .. } }) => {}
        other => panic!("{other:?}"),
    }
}

#[test]
fn inputs_that_are_not_transcripts() {
    let (_, keys, _) = messages(0);
    for (text, object) in [(&b"42"[..], false), (b"{\"messages\":{}}", true), (b"{}", true)] {
        match verify(text, &keys, TranscriptFormat::Array) {
            Err(f @ TranscriptFailure::NotTranscript { object: o }) if o == object => {
                assert_eq!(f.error().map(|e| e.class()), Some(concordia_core::Class::Schema));
            }
            other => panic!("{other:?}"),
        }
    }
    // Garbage is refused at its first byte.
    match verify(&[0u8; 100], &keys, TranscriptFormat::Array) {
        Err(TranscriptFailure::Read(ReadError::Input(Error::Json { offset: 0, .. }))) => {}
        other => panic!("{other:?}"),
    }
}

#[test]
fn the_cap_and_a_failing_reader() {
    let (msgs, keys, _) = messages(3);
    let text = array(&msgs);
    for format in [TranscriptFormat::Array, TranscriptFormat::Lines] {
        match verify_transcript_reader(&text[..], &keys, format, Some(100)) {
            Err(TranscriptFailure::Read(ReadError::Input(Error::Limit { kind: Limit::Size, offset: 100 }))) => {}
            other => panic!("{format:?}: {other:?}"),
        }
    }
    struct Broken;
    impl Read for Broken {
        fn read(&mut self, _: &mut [u8]) -> io::Result<usize> {
            Err(io::Error::other("disk on fire"))
        }
    }
    match verify_transcript_reader(Broken, &keys, TranscriptFormat::Array, None) {
        Err(f @ TranscriptFailure::Read(ReadError::Io(_))) => {
            assert_eq!(f.error(), None);
            assert_eq!(f.to_string(), "disk on fire");
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_message_nested_to_the_policy_depth_verifies_inside_a_transcript() {
    // Each message gets the whole policy depth: a body nested to the limit is judged on its
    // signature (the sender's key is unknown here), not refused for its depth.
    let depth = concordia_host::options().max_depth as usize;
    let inner = format!("{}1{}", "[".repeat(depth - 1), "]".repeat(depth - 1));
    let msg = format!("{{\"x\":{inner}}}");
    let (_, keys, _) = messages(0);
    match verify(format!("[{msg}]").as_bytes(), &keys, TranscriptFormat::Array) {
        Err(TranscriptFailure::Message { index: 0, error }) => {
            assert!(!matches!(error, Error::Limit { .. }), "{error:?}")
        }
        other => panic!("{other:?}"),
    }
    let deeper = format!("[{{\"x\":[{inner}]}}]");
    match verify(deeper.as_bytes(), &keys, TranscriptFormat::Array) {
        Err(TranscriptFailure::Read(ReadError::Input(Error::Limit { kind: Limit::Depth, .. }))) => {}
        other => panic!("{other:?}"),
    }
}
