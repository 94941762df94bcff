use std::string::String;
use std::vec;
use std::vec::Vec;

use super::*;
use crate::json::{parse, Node};
use crate::message::{Envelope, Party as EnvParty};
use crate::profiles::{verify_profile, Profile, VerifyOptions};
use crate::session::{MessageType, Role, Timing};

const T0: i64 = 1_774_100_000;

#[test]
fn round_half_even_matches_python_round() {
    // (x, round(x, 4), round(x, 2)) as printed by CPython 3.11.
    let cases: [(f64, f64, f64); 13] = [
        (0.06818181818181818, 0.0682, 0.07),
        (0.05263157894736842, 0.0526, 0.05),
        (5e-05, 0.0001, 0.0),
        (0.00015, 0.0001, 0.0),
        (0.00025, 0.0003, 0.0),
        (2.675, 2.675, 2.67),
        (1.0000499999999999, 1.0, 1.0),
        (0.123456789, 0.1235, 0.12),
        (1e-300, 0.0, 0.0),
        (5e-324, 0.0, 0.0),
        (2.5, 2.5, 2.5),
        (12345.67895, 12345.6789, 12345.68),
        (0.3333333333333333, 0.3333, 0.33),
    ];
    for (x, r4, r2) in cases {
        assert_eq!(round_half_even(x, 4), r4, "round({x}, 4)");
        assert_eq!(round_half_even(x, 2), r2, "round({x}, 2)");
        assert_eq!(round_half_even(-x, 4), -r4);
    }
}

fn keys() -> [(&'static str, KeyPair); 2] {
    [
        ("did:concordia:agent:seller-camera", KeyPair::from_seed(&[5; 32])),
        ("did:concordia:agent:buyer-camera", KeyPair::from_seed(&[6; 32])),
    ]
}

/// The camera negotiation, concluded; returns the session.
fn concluded() -> Session<4, 8> {
    let k = keys();
    let mut s: Session<4, 8> = Session::new("ses_camera", Timing::default(), Timestamp::from_unix(T0)).unwrap();
    s.add_party(k[0].0, Role::Initiator, Some(k[0].1.public_key())).unwrap();
    s.add_party(k[1].0, Role::Responder, Some(k[1].1.public_key())).unwrap();
    let offer = |p: u32| {
        std::format!(r#"{{"offer_id":"o{p}","terms":{{"price":{{"value":{p},"currency":"USD"}}}},"complete":true}}"#)
    };
    let steps: Vec<(MessageType, usize, String)> = vec![
        (MessageType::Open, 0, r#"{"terms":{"price":{"type":"numeric"},"item":{"type":"string"}}}"#.into()),
        (MessageType::AcceptSession, 1, "{}".into()),
        (MessageType::Offer, 0, offer(2200)),
        (MessageType::Counter, 1, offer(1900)),
        (MessageType::Counter, 0, offer(2050)),
        (MessageType::Accept, 1, r#"{"offer_id":"o2050"}"#.into()),
    ];
    for (i, (ty, who, body)) in steps.iter().enumerate() {
        let mut bn = vec![Node::EMPTY; 64];
        let b = parse(body.as_bytes(), &mut bn).unwrap();
        let mut env =
            Envelope::new(ty.as_str(), "m", "ses_camera", "2026-03-21T14:30:00Z", EnvParty::new(k[*who].0), b.root());
        env.prev_hash = s.tip();
        env.reasoning = Some("reasons");
        let mut buf = vec![0u8; 2048];
        let n = env.write_signed(&k[*who].1, &mut buf).unwrap();
        let mut nodes = vec![Node::EMPTY; 512];
        let doc = parse(&buf[..n], &mut nodes).unwrap();
        let registered = s.registered_keys();
        s.apply(doc.root(), &registered, Timestamp::from_unix(T0 + 30 * i as i64)).unwrap();
    }
    s
}

fn params() -> Params<'static> {
    Params {
        attestation_id: "att_0001",
        now: Timestamp::from_unix(T0 + 200),
        validity: Validity::Absolute {
            from: Timestamp::from_unix(T0 + 200),
            until: Timestamp::from_unix(T0 + 200 + 90 * 86_400),
        },
        category: Some("electronics.cameras"),
        value_range: Some("1000-5000_USD"),
        resolution_mechanism: "direct",
    }
}

#[test]
fn generated_attestation_passes_the_conformance_profiles() {
    let s = concluded();
    let k = keys();
    let mut out = vec![0u8; 8192];
    let n = generate(&s, &params(), &k, &mut out).unwrap();
    let text = std::str::from_utf8(&out[..n]).unwrap();
    let mut nodes = vec![Node::EMPTY; n];
    let att = parse(text.as_bytes(), &mut nodes).unwrap();
    // Canonical as written.
    let mut again = vec![0u8; n];
    assert_eq!(crate::jcs::write_to_slice(att.root(), &mut again).unwrap(), n);
    assert_eq!(&again[..], &out[..n]);
    let r = att.root();
    assert!(r.get("chain_head").unwrap().is_str(s.tip().to_prefixed().as_str()));
    assert_eq!(r.get("message_count").unwrap().as_i64(), Some(6));
    assert_eq!(r.pointer("/outcome/rounds").unwrap().as_i64(), Some(3));
    assert_eq!(r.pointer("/outcome/terms_count").unwrap().as_i64(), Some(2));
    assert_eq!(r.pointer("/outcome/duration_seconds").unwrap().as_i64(), Some(150));
    assert!(r.pointer("/outcome/status").unwrap().is_str("agreed"));
    assert_eq!(r.pointer("/parties/0/behavior/concession_magnitude").unwrap().as_f64(), Some(0.0682));
    assert!(r.get("summary").unwrap().is_str(&std::format!(
        "Parties: ...eller-camera, ...buyer-camera\nTopic: electronics.cameras\nOutcome: AGREED\nTranscript hash: {}",
        &s.transcript_hash().to_hex()[..16]
    )));

    let ctx_text = std::format!(
        r#"{{"public_keys_b64url": {{"{}": "{}", "{}": "{}"}}, "countersigners": ["{}", "{}"], "forbid_raw_deal_terms": true}}"#,
        k[0].0,
        k[0].1.public_key().to_b64url(),
        k[1].0,
        k[1].1.public_key().to_b64url(),
        k[0].0,
        k[1].0
    );
    let mut cn = vec![Node::EMPTY; 64];
    let ctx = parse(ctx_text.as_bytes(), &mut cn).unwrap();
    let opts = VerifyOptions::default();
    verify_profile(Profile::Attestation, r, ctx.root(), &opts).unwrap();
    verify_profile(Profile::AttestationCountersign, r, ctx.root(), &opts).unwrap();

    // Any change to a signed field breaks a signature.
    let tampered = text.replace("\"rounds\":3", "\"rounds\":2");
    let mut tn = vec![Node::EMPTY; n];
    let t = parse(tampered.as_bytes(), &mut tn).unwrap();
    assert!(verify_profile(Profile::AttestationCountersign, t.root(), ctx.root(), &opts).is_err());

    // One spelling: the same signatures, unpadded or with non-zero trailing bits, are
    // refused (the SDK's verify_signature refuses the unpadded form too).
    let keys_text = std::format!(
        r#"{{"{}": "{}", "{}": "{}"}}"#,
        k[0].0,
        k[0].1.public_key().to_b64url(),
        k[1].0,
        k[1].1.public_key().to_b64url()
    );
    let mut kn = vec![Node::EMPTY; 16];
    let keys_doc = parse(keys_text.as_bytes(), &mut kn).unwrap();
    assert!(verify(r, keys_doc.root(), None).is_ok());
    let sig = r.pointer("/parties/0/signature").unwrap().as_plain_str().unwrap();
    // The last data character carries 2 data bits and 4 unused ones: set the lowest.
    const URL: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    let last = URL.find(&sig[85..86]).unwrap();
    assert_eq!(last % 16, 0);
    let bumped = &URL[last + 1..last + 2];
    for other in [String::from(sig.trim_end_matches('=')), std::format!("{}{}==", &sig[..85], bumped)] {
        let edited = text.replace(sig, &other);
        let mut en = vec![Node::EMPTY; n];
        let e = parse(edited.as_bytes(), &mut en).unwrap();
        assert!(verify(e.root(), keys_doc.root(), None).is_err(), "{other}");
        assert!(verify_profile(Profile::Attestation, e.root(), ctx.root(), &opts).is_err(), "{other}");
    }
}

#[test]
fn refuses_open_sessions_bad_params_and_raw_terms() {
    let k = keys();
    let open: Session<4, 8> = Session::new("ses", Timing::default(), Timestamp::from_unix(T0)).unwrap();
    let mut out = vec![0u8; 4096];
    assert!(matches!(generate(&open, &params(), &k, &mut out), Err(Error::Transition(_))));
    let s = concluded();
    let mut p = params();
    p.category = Some("Selling at $1200/unit");
    assert!(matches!(generate(&s, &p, &k, &mut out), Err(Error::InvalidArgument(_))));
    let mut p = params();
    p.value_range = Some("1000-4000_USD");
    assert!(matches!(generate(&s, &p, &k, &mut out), Err(Error::InvalidArgument(_))));
    let mut p = params();
    p.attestation_id = "att price: 2050 USD";
    assert_eq!(generate(&s, &p, &k, &mut out), Err(Error::Privacy("raw deal terms in an attestation field")));
    let mut small = [0u8; 100];
    let needed = generate(&s, &params(), &k, &mut out).unwrap();
    assert_eq!(generate(&s, &params(), &k, &mut small), Err(Error::BufferTooSmall { needed }));
}

#[test]
fn parties_without_keys_get_empty_signatures_and_no_countersignature() {
    let s = concluded();
    let k = keys();
    let only_seller = [(k[0].0, KeyPair::from_seed(&[5; 32]))];
    let mut out = vec![0u8; 8192];
    let n = generate(&s, &params(), &only_seller, &mut out).unwrap();
    let mut nodes = vec![Node::EMPTY; n];
    let att = parse(&out[..n], &mut nodes).unwrap();
    assert!(att.root().pointer("/parties/1/signature").unwrap().is_str(""));
    assert_eq!(att.root().get("countersignatures").unwrap().len(), 1);
}

// ---- Reference SDK parity (issue 25) ----

fn json_doc(text: &str) -> (Vec<Node>, &str) {
    (vec![Node::EMPTY; text.len() + 8], text)
}

#[test]
fn validity_windows_follow_the_sdks_rules() {
    let t = |s: i64| Timestamp::from_unix(T0 + s);
    assert!(extras::check_validity(&Validity::Absolute { from: t(0), until: t(0) }).is_err());
    assert!(extras::check_validity(&Validity::Absolute { from: t(0), until: t(1) }).is_ok());
    assert!(extras::check_validity(&Validity::Window { start: t(0), end: t(0), duration_seconds: 1 }).is_err());
    assert!(extras::check_validity(&Validity::Window { start: t(0), end: t(59), duration_seconds: 60 }).is_err());
    assert!(extras::check_validity(&Validity::Window { start: t(0), end: t(60), duration_seconds: 60 }).is_ok());
    for (text, ok) in [
        (r#"{"mode":"absolute","from":"2026-03-21T14:30:00+00:00","until":"2026-03-22T14:30:00.25Z"}"#, true),
        (r#"{"mode":"absolute","from":"2026-03-21T14:30:00","until":"2026-03-21T14:30:00Z"}"#, false),
        (r#"{"mode":"absolute","from":"2026-03-21T14:30:00Z"}"#, false),
        (r#"{"mode":"relative","from":"2026-03-21T14:30:00Z","duration_seconds":60}"#, true),
        (r#"{"mode":"relative","from":"2026-03-21T14:30:00Z","duration_seconds":60.0}"#, false),
        (r#"{"mode":"relative","from":"2026-03-21T14:30:00Z","duration_seconds":0}"#, false),
        (
            r#"{"mode":"window","start":"2026-03-21T14:30:00Z","end":"2026-03-21T14:31:00Z","duration_seconds":61}"#,
            false,
        ),
        (
            r#"{"mode":"window","start":"2026-03-21T14:30:00Z","end":"2026-03-21T14:31:00Z","duration_seconds":60}"#,
            true,
        ),
        (r#"{"mode":"eternal"}"#, false),
        (r#"{"mode":"absolute","from":5,"until":"2026-03-21T14:31:00Z"}"#, false),
    ] {
        let (mut nodes, text) = json_doc(text);
        let v = parse(text.as_bytes(), &mut nodes).unwrap();
        assert_eq!(validity_from_json(v.root()).is_ok(), ok, "{text}");
    }
}

#[test]
fn references_and_validity_text_are_written_as_the_sdk_normalizes_them() {
    let s = concluded();
    let k = keys();
    let refs = r#"[{"type":"receipt","id":"urn:x:1","relationship":"supersedes","version":"1.0.0","junk":1,"extensions":{"profile":"p"}}]"#;
    let vt = r#"{"mode":"absolute","from":"2026-03-21T14:30:00.250000+00:00","until":"2026-06-21T14:30:00+00:00","note":"dropped"}"#;
    let (mut rn, refs) = json_doc(refs);
    let (mut vn, vt) = json_doc(vt);
    let refs = parse(refs.as_bytes(), &mut rn).unwrap();
    let vt = parse(vt.as_bytes(), &mut vn).unwrap();
    let extras = Extras { references: Some(refs.root()), validity_temporal: Some(vt.root()) };
    let mut out = vec![0u8; 8192];
    let n = generate_with(&s, &params(), &extras, &k, &mut out).unwrap();
    let text = std::str::from_utf8(&out[..n]).unwrap();
    assert!(text.contains(r#""references":[{"extensions":{"profile":"p"},"id":"urn:x:1","relationship":"supersedes","type":"receipt","version":"1.0.0"}]"#), "{text}");
    assert!(text.contains(r#""validity_temporal":{"from":"2026-03-21T14:30:00.250000+00:00","mode":"absolute","until":"2026-06-21T14:30:00+00:00"}"#), "{text}");
    // Still a valid, countersigned attestation.
    let mut nodes = vec![Node::EMPTY; n];
    let att = parse(text.as_bytes(), &mut nodes).unwrap();
    let keys_text = std::format!(
        r#"{{"{}":"{}","{}":"{}"}}"#,
        k[0].0,
        k[0].1.public_key().to_b64url(),
        k[1].0,
        k[1].1.public_key().to_b64url()
    );
    let mut kn = vec![Node::EMPTY; 32];
    let keys_doc = parse(keys_text.as_bytes(), &mut kn).unwrap();
    let v = verify(att.root(), keys_doc.root(), None);
    assert!(v.is_ok(), "{v:?}");
    // Falsy references are none; the SDK's caps refuse the rest.
    for (refs, ok) in [
        ("[]", true),
        ("null", true),
        ("{}", true),
        (r#""abc""#, false),
        (r#"[{"type":"receipt","id":"has space","relationship":"r"}]"#, false),
        (r#"[{"type":"receipt","id":"a\u2003b","relationship":"r"}]"#, false),
        (r#"[{"type":"receipt","relationship":"r"}]"#, false),
        (r#"[{"type":"receipt","id":"i","relationship":"r","extensions":[1]}]"#, false),
        (
            r#"[{"type":"receipt","id":"i","relationship":"r","extensions":{"a":{"b":{"c":{"d":{"e":{"f":{"g":1}}}}}}}}]"#,
            true,
        ),
        (
            r#"[{"type":"receipt","id":"i","relationship":"r","extensions":{"a":{"b":{"c":{"d":{"e":{"f":{"g":{"h":1}}}}}}}}}]"#,
            false,
        ),
        (r#"[{"type":"r","id":"i","relationship":"r","version":""}]"#, false),
    ] {
        let (mut rn, refs) = json_doc(refs);
        let doc = parse(refs.as_bytes(), &mut rn).unwrap();
        assert_eq!(check_references(Some(doc.root())).is_ok(), ok, "{refs}");
    }
    let many = std::format!("[{}]", vec![r#"{"type":"t","id":"i","relationship":"r"}"#; 33].join(","));
    let (mut mn, many) = json_doc(&many);
    let doc = parse(many.as_bytes(), &mut mn).unwrap();
    assert!(check_references(Some(doc.root())).is_err());
}

#[test]
fn unconcluded_and_unsized_sessions_are_refused_first() {
    let open: Session<4, 8> = Session::new("ses", Timing::default(), Timestamp::from_unix(T0)).unwrap();
    let mut out = vec![0u8; 8192];
    assert_eq!(
        generate(&open, &params(), &keys(), &mut out),
        Err(Error::Transition("attestation needs a concluded session"))
    );
}
