use super::rev_digest;
use crate::consensus::command::{validate_idempotency_key, Action, Command, MAX_BODY};
use crate::json::Node;
use crate::Error;
#[allow(unused_imports)]
use std::{
    borrow::ToOwned,
    boxed::Box,
    format,
    string::{String, ToString},
    vec,
    vec::Vec,
};

fn hex() -> String {
    rev_digest().to_hex().as_str().to_string()
}

fn key_ok(k: &str) -> bool {
    (8..=128).contains(&k.len()) && k.bytes().all(|b| b.is_ascii_alphanumeric() || b"._:-".contains(&b))
}

#[test]
fn body_rules() {
    let h = hex();
    for a in [Action::Comment, Action::Question, Action::ChangeRequest] {
        assert!(!a.is_terminal());
        assert_eq!(Command::new(a, "", 1, &h).unwrap_err(), Error::Schema("advisory actions need a body"));
        assert!(Command::new(a, "x", 1, &h).is_ok());
        assert!(Command::new(a, &"é".repeat(MAX_BODY), 1, &h).is_ok());
        assert!(Command::new(a, &"x".repeat(MAX_BODY + 1), 1, &h).is_err());
        // Astral characters count twice (UTF-16 code units, JavaScript's length).
        assert!(Command::new(a, &"😀".repeat(MAX_BODY / 2), 1, &h).is_ok());
        assert!(Command::new(a, &format!("{}x", "😀".repeat(MAX_BODY / 2)), 1, &h).is_err());
    }
    for a in [Action::Agree, Action::Disagree, Action::Abstain] {
        assert!(a.is_terminal());
        assert!(Command::new(a, "", 1, &h).is_ok());
        assert_eq!(Command::new(a, " ", 1, &h).unwrap_err(), Error::Schema("terminal actions need an empty body"));
    }
    assert_eq!(Command::new(Action::Agree, "", 0, &h).unwrap_err(), Error::Schema("revision"));
    assert_eq!(Command::new(Action::Agree, "", 1 << 53, &h).unwrap_err(), Error::Schema("revision"));
    assert_eq!(Command::new(Action::Agree, "", 1, "abc").unwrap_err(), Error::Encoding("command digest"));
    for a in Action::ALL {
        assert_eq!(Action::parse(a.as_str()), Ok(a));
    }
    assert!(Action::parse("Agree").is_err() && Action::parse("approve").is_err());
}

#[test]
fn wire_body_round_trips() {
    let h = hex();
    let cmd = Command::new(Action::Comment, "Why \"Friday\"?\n", 1, &format!("sha256:{h}")).unwrap();
    let mut out = [0u8; 256];
    let n = cmd.wire_to_slice(&mut out).unwrap();
    let wire = core::str::from_utf8(&out[..n]).unwrap();
    assert_eq!(wire, format!(r#"{{"action":"comment","body":"Why \"Friday\"?\n","digest":"{h}","revision":1}}"#));
    let mut nodes = [Node::EMPTY; 16];
    let back = Command::parse_wire(&out[..n], &mut nodes).unwrap();
    assert_eq!(back.idempotency_key(), cmd.idempotency_key());
    assert_eq!(back.body_chars().collect::<String>(), "Why \"Friday\"?\n");
    assert!(matches!(cmd.wire_to_slice(&mut [0u8; 10]), Err(Error::BufferTooSmall { needed }) if needed == n));
}

#[test]
fn idempotency_key_is_stable_and_well_formed() {
    let h = hex();
    let a = Command::new(Action::Agree, "", 1, &h).unwrap().idempotency_key();
    let b = Command::new(Action::Agree, "", 1, &format!("sha256:{h}")).unwrap().idempotency_key();
    assert_eq!(a, b);
    assert!(a.as_str().starts_with("cns1:") && a.as_str().len() == 48 && key_ok(a.as_str()));
    assert!(validate_idempotency_key(a.as_str()).is_ok());
    let c = Command::new(Action::Disagree, "", 1, &h).unwrap().idempotency_key();
    let d = Command::new(Action::Comment, "a", 1, &h).unwrap().idempotency_key();
    let e = Command::new(Action::Comment, "b", 1, &h).unwrap().idempotency_key();
    let f = Command::new(Action::Agree, "", 2, &h).unwrap().idempotency_key();
    let all = [&a, &c, &d, &e, &f];
    for (i, x) in all.iter().enumerate() {
        assert!(key_ok(x.as_str()));
        for y in &all[i + 1..] {
            assert_ne!(x, y);
        }
    }
    // The same body spelled with JSON escapes is the same command.
    let wire = format!(r#"{{"revision":1,"digest":"{h}","body":"\u0061","action":"comment"}}"#);
    let mut nodes = [Node::EMPTY; 16];
    assert_eq!(Command::parse_wire(wire.as_bytes(), &mut nodes).unwrap().idempotency_key(), d);
}

#[test]
fn idempotency_key_syntax() {
    for ok in ["abcdefgh", "A.b_c:d-e", &"x".repeat(128), "cns1:AAAA"] {
        assert!(validate_idempotency_key(ok).is_ok(), "{ok}");
    }
    for bad in ["", "abcdefg", &"x".repeat(129), "abc defgh", "abcdefgh/", "abcdefgh=", "abcdéfgh", "abcdefgh\n"] {
        assert_eq!(validate_idempotency_key(bad), Err(Error::Schema("idempotency key")), "{bad:?}");
    }
}

#[test]
fn wire_parser_is_strict() {
    let h = hex();
    let cases: &[(String, Error)] = &[
        (r#"{"action":"agree","body":"","revision":1}"#.to_string(), Error::Schema("digest")),
        (
            format!(r#"{{"action":"agree","body":"","revision":1,"digest":"{h}","x":1}}"#),
            Error::Schema("command has an unknown member"),
        ),
        (format!(r#"{{"action":"AGREE","body":"","revision":1,"digest":"{h}"}}"#), Error::Schema("action")),
        (format!(r#"{{"action":"agree","body":null,"revision":1,"digest":"{h}"}}"#), Error::Schema("body")),
        (format!(r#"{{"action":"agree","body":"","revision":"1","digest":"{h}"}}"#), Error::Schema("revision")),
        (format!(r#"{{"action":"agree","body":"","revision":1.5,"digest":"{h}"}}"#), Error::Schema("revision")),
        (format!(r#"{{"action":"agree","body":"","revision":0,"digest":"{h}"}}"#), Error::Schema("revision")),
        (
            format!(r#"{{"action":"agree","body":"no","revision":1,"digest":"{h}"}}"#),
            Error::Schema("terminal actions need an empty body"),
        ),
        (r#"{"action":"agree","body":"","revision":1,"digest":1}"#.to_string(), Error::Encoding("command digest")),
        (r#"["agree"]"#.to_string(), Error::Schema("command must be an object")),
    ];
    for (text, err) in cases {
        let mut nodes = [Node::EMPTY; 16];
        assert_eq!(Command::parse_wire(text.as_bytes(), &mut nodes).unwrap_err(), *err, "{text}");
    }
    let mut nodes = [Node::EMPTY; 4];
    assert!(matches!(Command::parse_wire(b"{\"a\":[1,2,3,4,5]}", &mut nodes), Err(Error::Limit { .. })));
    let big = vec![b' '; crate::consensus::command::MAX_WIRE_BODY + 1];
    assert!(matches!(Command::parse_wire(&big, &mut [Node::EMPTY; 4]), Err(Error::Limit { .. })));
}
