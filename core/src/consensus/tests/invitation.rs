use crate::consensus::invitation::{extract_block, redact_url, Invitation, Origin, BEGIN_MARKER, END_MARKER, MAX_URL};
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

const ID: &str = "3f2b8c1e-5d4a-4e7b-9c2f-1a2b3c4d5e6f";
const OTHER: &str = "3f2b8c1e-5d4a-4e7b-9c2f-1a2b3c4d5e60";
const SECRET: &str = "6_asp1MbRl66oRMolZ2m4ep4Q3azK7nvIuj-2X7NjlA";

fn block(id: &str, invite: &str, href: &str) -> String {
    format!(
        r#"{{
  "schema": "https://consensus.md/schemas/invitation-email/v1",
  "invitation_id": "{id}",
  "invite_uri": "{invite}",
  "agent_exchange": {{ "method": "POST", "href": "{href}" }},
  "agent_claim": {{ "email_proof": "ep_private_proof_123", "meaning": "A private proof delivered only in this email." }}
}}"#
    )
}

fn email(body: &str) -> String {
    format!(
        "Hello agent,\r\n\r\nYou are invited.\r\n\r\n{BEGIN_MARKER}\r\n{body}\r\n{END_MARKER}\r\n\r\n-- Consensus\r\n"
    )
}

fn invite(id: &str, tail: &str) -> String {
    format!("https://consensus.md/i/{id}{tail}")
}

fn href(id: &str) -> String {
    format!("https://consensus.md/api/v1/agent/invitations/{id}/exchange")
}

fn parse(invite_uri: &str, href: &str) -> Invitation {
    Invitation::parse(email(&block(ID, invite_uri, href)).as_bytes(), &Origin::DEFAULT).unwrap()
}

fn failed(inv: &Invitation) -> Vec<&'static str> {
    inv.checks().named().iter().filter(|(_, ok)| !ok).map(|(n, _)| *n).collect()
}

#[test]
fn valid_invitation_gives_exchange_request() {
    let inv = parse(&invite(ID, &format!("#secret={SECRET}")), &href(ID));
    assert!(inv.checks().all(), "{:?}", inv.checks());
    assert_eq!(inv.id(), ID);
    assert_eq!(inv.exchange_href(), href(ID));
    let req = inv.exchange_request().unwrap();
    assert_eq!(req.url, href(ID));
    assert!(!req.url.contains(SECRET) && !req.url.contains('?') && !req.url.contains('#'));
    let mut buf = [0u8; 128];
    let n = req.authorization.write_value(&mut buf).unwrap();
    assert_eq!(&buf[..n], format!("Consensus-Invite {SECRET}").as_bytes());
    assert!(crate::consensus::invitation::ExchangeRequest::BODY.len() <= 1024);
    assert!(inv.email_proof().is_ok());
    let dbg = format!("{inv:?}");
    assert!(!dbg.contains(SECRET) && !dbg.contains("ep_private_proof_123"), "{dbg}");
}

#[test]
fn tampered_origin() {
    let tail = format!("#secret={SECRET}");
    let cases = [
        format!("https://consensus.md.evil.example/i/{ID}{tail}"),
        format!("https://evil.example/i/{ID}{tail}"),
        format!("https://consensus.md:443/i/{ID}{tail}"),
        format!("https://consensus.md@evil.example/i/{ID}{tail}"),
        format!("https://CONSENSUS.md/i/{ID}{tail}"),
        format!("https://www.consensus.md/i/{ID}{tail}"),
    ];
    for uri in &cases {
        let inv = parse(uri, &href(ID));
        assert!(failed(&inv).contains(&"origin"), "{uri}");
        assert_eq!(inv.secret().unwrap_err(), Error::Binding("invitation URL origin"));
        assert!(inv.exchange_request().is_err() && inv.email_proof().is_err());
    }
    let inv = parse(&invite(ID, &tail), &href(ID).replace("consensus.md", "consensus.md.evil.example"));
    assert_eq!(failed(&inv), ["origin"]);
    // Plain HTTP fails the HTTPS check (and the origin check).
    let inv = parse(&invite(ID, &tail).replace("https:", "http:"), &href(ID));
    assert_eq!(failed(&inv), ["https", "origin"]);
    assert_eq!(inv.secret().unwrap_err(), Error::Binding("invitation URL is not https"));
    let inv = parse(&invite(ID, &tail), &href(ID).replace("https:", "http:"));
    assert_eq!(failed(&inv), ["https", "origin"]);
}

#[test]
fn configurable_origin() {
    let origin = Origin::new("https://staging.consensus.md").unwrap();
    let text = email(&block(
        ID,
        &format!("https://staging.consensus.md/i/{ID}#secret={SECRET}"),
        &format!("https://staging.consensus.md/api/v1/agent/invitations/{ID}/exchange"),
    ));
    assert!(Invitation::parse(text.as_bytes(), &origin).unwrap().checks().all());
    assert!(!Invitation::parse(text.as_bytes(), &Origin::DEFAULT).unwrap().checks().origin);
    for bad in [
        "http://consensus.md",
        "https://",
        "https://consensus.md/",
        "https://a b",
        "https://x:",
        "https://x:123456",
        "consensus.md",
    ] {
        assert_eq!(Origin::new(bad), Err(Error::InvalidArgument("origin")), "{bad}");
    }
    assert!(Origin::new("https://localhost:8443").is_ok());
}

#[test]
fn mismatched_uuids() {
    let tail = format!("#secret={SECRET}");
    for (inv_id, ex_id) in [(OTHER, ID), (ID, OTHER), (OTHER, OTHER)] {
        let inv = parse(&invite(inv_id, &tail), &href(ex_id));
        assert_eq!(failed(&inv), ["uuids"], "{inv_id} {ex_id}");
        assert_eq!(inv.secret().unwrap_err(), Error::Binding("invitation UUIDs differ"));
    }
    let upper = ID.to_ascii_uppercase();
    assert_eq!(failed(&parse(&invite(&upper, &tail), &href(ID))), ["uuids"]);
    assert_eq!(failed(&parse(&format!("https://consensus.md/i/{ID}/x{tail}"), &href(ID))), ["uuids"]);
    assert_eq!(failed(&parse(&invite(ID, &tail), &format!("{}/", href(ID)))), ["uuids"]);
    assert_eq!(failed(&parse(&format!("https://consensus.md/invite/{ID}{tail}"), &href(ID))), ["uuids"]);
    // The envelope id must be a UUID at all.
    let text = email(&block("not-a-uuid", &invite(ID, &tail), &href(ID)));
    assert_eq!(Invitation::parse(text.as_bytes(), &Origin::DEFAULT).unwrap_err(), Error::Schema("invitation_id"));
}

#[test]
fn query_string_secret() {
    let inv = parse(&invite(ID, &format!("?secret={SECRET}")), &href(ID));
    assert_eq!(failed(&inv), ["no_query", "uuids", "secret"]);
    assert_eq!(inv.secret().unwrap_err(), Error::Privacy("invitation URL has a query string"));
    let inv = parse(&invite(ID, &format!("?x=1#secret={SECRET}")), &href(ID));
    assert!(failed(&inv).contains(&"no_query"));
    let inv = parse(&invite(ID, &format!("#secret={SECRET}")), &format!("{}?secret={SECRET}", href(ID)));
    assert!(failed(&inv).contains(&"no_query"));
    let inv = parse(&invite(ID, &format!("#secret={SECRET}")), &format!("{}#secret={SECRET}", href(ID)));
    assert!(failed(&inv).contains(&"no_query"));
}

/// Issue 32 class 12: an exchange URL that failed `no_query` is shown redacted (its query
/// and fragment may carry the secret), by `exchange_href`, `Debug` and so every surface.
#[test]
fn exchange_href_that_failed_no_query_is_redacted() {
    for (tail, shown) in [
        (format!("?secret={SECRET}"), "?<redacted>"),
        (format!("#secret={SECRET}"), "#<redacted>"),
        (format!("?a=1#secret={SECRET}"), "?<redacted>#<redacted>"),
        (format!("?#{SECRET}"), "?<redacted>#<redacted>"),
    ] {
        let inv = parse(&invite(ID, &format!("#secret={SECRET}")), &format!("{}{tail}", href(ID)));
        assert!(failed(&inv).contains(&"no_query"));
        assert_eq!(inv.exchange_href(), format!("{}{shown}", href(ID)));
        assert!(!format!("{inv:?}").contains(SECRET));
    }
    // A URL that passed keeps its text.
    let inv = parse(&invite(ID, &format!("#secret={SECRET}")), &href(ID));
    assert_eq!(inv.exchange_href(), href(ID));
}

#[test]
fn redact_url_fits_and_keeps_char_boundaries() {
    assert_eq!(redact_url("https://a/b").as_str(), "https://a/b");
    assert_eq!(redact_url("https://a/b?").as_str(), "https://a/b?<redacted>");
    assert_eq!(redact_url("https://a/b?s=1").as_str(), "https://a/b?<redacted>");
    assert_eq!(redact_url("https://a/b#s").as_str(), "https://a/b#<redacted>");
    assert_eq!(redact_url("https://a/b?q#s?t").as_str(), "https://a/b?<redacted>#<redacted>");
    let long = format!("https://a/{}é?{SECRET}#x", "b".repeat(MAX_URL - 15));
    let r = redact_url(&long);
    assert!(r.len() <= MAX_URL && r.ends_with("?<redacted>#<redacted>") && !r.contains(SECRET), "{r}");
}

#[test]
fn non_base64url_fragments() {
    for tail in [
        "",
        "#",
        "#secret=",
        "#secret=abc+def",
        "#secret=abc/def",
        "#secret=YWJj=",
        "#secret=A",
        "#token=YWJj",
        "#Secret=YWJj",
        "#secret=YWJj&x=1",
        "#secret=YW%4Aj",
        "#secret=YWJj#x",
        "#secret=YW Jj",
        "#secret=YWJ",
    ] {
        let inv = parse(&invite(ID, tail), &href(ID));
        assert_eq!(failed(&inv), ["secret"], "{tail}");
        assert_eq!(inv.secret().unwrap_err(), Error::Encoding("invitation fragment secret"));
        assert!(inv.exchange_request().is_err());
    }
    // "YWJ" has non-zero trailing bits ("YWI" is the canonical spelling), so it is not
    // valid base64url; "YWI" is.
    assert!(parse(&invite(ID, "#secret=YWI"), &href(ID)).checks().all());
}

#[test]
fn shape_and_markers() {
    let good = block(ID, &invite(ID, &format!("#secret={SECRET}")), &href(ID));
    let p = |t: &str| Invitation::parse(t.as_bytes(), &Origin::DEFAULT).map(|_| ());
    assert!(p(&email(&good)).is_ok());
    assert!(p(&good).is_err());
    assert_eq!(p(&format!("{BEGIN_MARKER}{good}")), Err(Error::Schema("invitation markers")));
    assert_eq!(p(&format!("{END_MARKER}{good}{BEGIN_MARKER}")), Err(Error::Schema("invitation markers")));
    assert_eq!(p(&format!("{}{}", email(&good), email(&good))), Err(Error::Schema("invitation markers")));
    assert_eq!(p(&format!("{BEGIN_MARKER}{BEGIN_MARKER}{good}{END_MARKER}")), Err(Error::Schema("invitation markers")));
    assert_eq!(extract_block(format!("x{BEGIN_MARKER} {{}} {END_MARKER}y").as_bytes()).unwrap(), b" {} ");
    assert!(matches!(p(&email("{")), Err(Error::Json { .. })));
    let edits: &[(&str, &str, Error)] = &[
        (
            "\"schema\": \"https://consensus.md/schemas/invitation-email/v1\"",
            "\"schema\": \"https://consensus.md/schemas/invitation-email/v2\"",
            Error::Schema("invitation schema"),
        ),
        ("\"method\": \"POST\"", "\"method\": \"GET\"", Error::Schema("agent_exchange.method")),
        ("\"email_proof\": \"ep_private_proof_123\"", "\"email_proof\": \"\"", Error::Schema("email proof")),
        ("\"email_proof\": \"ep_private_proof_123\"", "\"email_proof\": 5", Error::Schema("agent_claim.email_proof")),
        ("\"meaning\"", "\"extra\"", Error::Schema("agent_claim")),
        ("\"invitation_id\"", "\"id\"", Error::Schema("invitation members")),
        ("\"href\"", "\"url\"", Error::Schema("agent_exchange")),
    ];
    for (from, to, err) in edits {
        assert!(good.contains(from), "{from}");
        assert_eq!(p(&email(&good.replacen(from, to, 1))), Err(*err), "{to}");
    }
    // JSON escapes in URLs are decoded (some encoders write "\/").
    assert!(p(&email(&good.replace('/', "\\/"))).is_ok());
    let inv = Invitation::parse(email(&good.replace('/', "\\/")).as_bytes(), &Origin::DEFAULT).unwrap();
    assert!(inv.checks().all());
    assert!(matches!(p(&" ".repeat(300 * 1024)), Err(Error::Limit { .. })));
}

proptest::proptest! {
    /// Fuzz smoke test: byte-level mutations of a valid email never panic, and whatever
    /// parses never hands out a secret unless every check passed.
    #[test]
    fn mutated_emails_never_panic(pos in 0usize..2000, byte in proptest::num::u8::ANY, cut in 0usize..2000) {
        let mut text = email(&block(ID, &invite(ID, &format!("#secret={SECRET}")), &href(ID))).into_bytes();
        let n = text.len();
        text[pos % n] = byte;
        text.truncate(n - cut % 64);
        if let Ok(inv) = Invitation::parse(&text, &Origin::DEFAULT) {
            proptest::prop_assert_eq!(inv.secret().is_ok(), inv.checks().all());
        }
    }

    #[test]
    fn arbitrary_command_bytes_never_panic(bytes in proptest::collection::vec(proptest::num::u8::ANY, 0..200)) {
        let mut nodes = [crate::json::Node::EMPTY; 32];
        let _ = crate::consensus::command::Command::parse_wire(&bytes, &mut nodes);
    }
}
