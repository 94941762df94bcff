use crate::consensus::digest::{
    markdown_digest, revision_digest, revision_digest_json, verify_markdown, verify_revision, HexDigest,
};
use crate::digest::sha256;
use crate::json::{self, Node};
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

#[test]
fn revision_digest_is_sha256_of_rfc8785_bytes() {
    let input = r#"{ "title": "Ship", "rules": {"must": ["b", "a"], "a": 1.50, "\u00e9": true, "😀": null, "ﬁ": 1e21}, "deadline": "2026-09-10T00:00:00Z" }"#;
    let canonical = r#"{"deadline":"2026-09-10T00:00:00Z","rules":{"a":1.5,"must":["b","a"],"é":true,"😀":null,"ﬁ":1e+21},"title":"Ship"}"#;
    let mut nodes = [Node::EMPTY; 64];
    let d = revision_digest_json(input.as_bytes(), &mut nodes).unwrap();
    assert_eq!(d, sha256(canonical.as_bytes()));
    let mut nodes = [Node::EMPTY; 64];
    let doc = json::parse(input.as_bytes(), &mut nodes).unwrap();
    assert_eq!(revision_digest(doc.root()).unwrap(), d);
    assert_eq!(verify_revision(doc.root(), d.to_hex().as_str()).unwrap(), d);
    assert_eq!(verify_revision(doc.root(), d.to_prefixed().as_str()).unwrap(), d);
    assert_eq!(verify_revision(doc.root(), &"0".repeat(64)), Err(Error::Digest("revision digest")));
    let upper = d.to_hex().as_str().to_ascii_uppercase();
    assert_eq!(verify_revision(doc.root(), &upper), Err(Error::Digest("revision digest")));
}

#[test]
fn revision_digest_reads_big_integers_as_javascript_does() {
    let mut nodes = [Node::EMPTY; 8];
    let d = revision_digest_json(b"[9007199254740993]", &mut nodes).unwrap();
    assert_eq!(d, sha256(b"[9007199254740992]"));
    let mut nodes = [Node::EMPTY; 8];
    assert!(revision_digest_json(b"[-0]", &mut nodes).is_err());
    assert!(revision_digest_json(b"{\"a\":1,\"a\":2}", &mut [Node::EMPTY; 8]).is_err());
}

#[test]
fn markdown_digest_uses_exact_bytes() {
    let lf = b"# T\n\nbody\n";
    let crlf = b"# T\r\n\r\nbody\r\n";
    assert_eq!(markdown_digest(lf), sha256(lf));
    assert_ne!(markdown_digest(lf), markdown_digest(crlf));
    assert_ne!(markdown_digest(b"# T"), markdown_digest(b"# T\n"));
    assert_ne!(markdown_digest(b" # T"), markdown_digest(b"# T"));
    let hex = markdown_digest(lf).to_hex();
    assert!(verify_markdown(lf, hex.as_str()).is_ok());
    assert_eq!(verify_markdown(crlf, hex.as_str()), Err(Error::Digest("markdown digest")));
    assert_eq!(verify_markdown(lf, "abc"), Err(Error::Encoding("command digest")));
}

#[test]
fn command_digest_normalization() {
    let d = sha256(b"x");
    let hex = d.to_hex();
    let bare = HexDigest::normalize(hex.as_str()).unwrap();
    let prefixed = HexDigest::normalize(d.to_prefixed().as_str()).unwrap();
    assert_eq!(bare, prefixed);
    assert!(bare.matches(&d));
    assert_eq!(bare.as_str(), hex.as_str());
    // Uppercase is well-formed but compared case-exactly: it never matches.
    let upper = HexDigest::normalize(&hex.as_str().to_ascii_uppercase()).unwrap();
    assert!(!upper.matches(&d));
    for bad in [
        "",
        "sha256:",
        &hex[..63],
        &format!("{hex}0"),
        &format!("SHA256:{hex}"),
        &format!("sha-256:{hex}"),
        &format!(" {}", &hex[1..]),
        &format!("sha256:sha256:{hex}"),
        &format!("{}g", &hex[..63]),
    ] {
        assert_eq!(HexDigest::normalize(bad), Err(Error::Encoding("command digest")), "{bad}");
    }
}
