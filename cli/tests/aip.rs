//! End-to-end tests of `concordia aip ...`: outputs and exit codes (0 ok, 1 rejected,
//! 2 usage or malformed input).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::PathBuf;
use std::process::{Command, Output};

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_concordia")).args(args).output().unwrap()
}

fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).unwrap()
}

fn dir() -> PathBuf {
    let d = std::env::temp_dir().join(format!("concordia-aip-test-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn file(name: &str, bytes: &[u8]) -> String {
    let p = dir().join(name);
    std::fs::write(&p, bytes).unwrap();
    p.to_str().unwrap().to_string()
}

fn path(name: &str) -> String {
    dir().join(name).to_str().unwrap().to_string()
}

fn code(o: &Output) -> i32 {
    o.status.code().unwrap()
}

#[test]
fn handle_forms() {
    let want = "{\"handle\": \"alice#aigentix.org\", \"url_form\": \"alice%23aigentix.org\", \"did\": \"did:aip:aigentix.org:alice\"}\n";
    for x in ["alice#aigentix.org", "alice%23aigentix.org", "did:aip:aigentix.org:alice", "@alice@aigentix.org"] {
        let o = run(&["aip", "handle", x]);
        assert_eq!(code(&o), 0, "{x}");
        assert_eq!(stdout(&o), want);
    }
    for bad in ["alice", "Alice#aigentix.org", "alice%2523aigentix.org", "did:aip:aigentix.org"] {
        assert_eq!(code(&run(&["aip", "handle", bad])), 2, "{bad}");
    }
    assert_eq!(code(&run(&["aip"])), 2);
    assert_eq!(code(&run(&["aip", "nope"])), 2);
}

fn keygen(name: &str, did: &str, extra: &[&str]) -> (String, String) {
    let doc = path(&format!("{name}.doc.json"));
    let mut args = vec!["aip", "keygen", "--did", did, "--doc", &doc];
    args.extend_from_slice(extra);
    let o = run(&args);
    assert_eq!(code(&o), 0, "{}", String::from_utf8_lossy(&o.stderr));
    (file(&format!("{name}.key.json"), &o.stdout), doc)
}

#[test]
fn seal_and_open() {
    let (alice_key, alice_doc) = keygen("alice", "did:aip:aigentix.org:alice", &[]);
    let (etagi_key, etagi_doc) = keygen(
        "etagi",
        "did:aip:etagi.ru:etagi",
        &["--route-mode", "direct", "--endpoint", "https://api.etagi.ru/aip"],
    );
    let msg = file("msg.json", br#"{"type": "aip.commerce.offer.request", "item_id": "doc_123"}"#);
    let o = run(&[
        "aip",
        "seal",
        "--to",
        &etagi_doc,
        "--key",
        &alice_key,
        "--id",
        "1b4e28ba-2fa1-4d3b-a3f5-ef19b5a7633b",
        "--created-at",
        "2026-05-10T14:25:00Z",
        &msg,
    ]);
    assert_eq!(code(&o), 0, "{}", String::from_utf8_lossy(&o.stderr));
    let env = stdout(&o);
    assert!(env.starts_with("{\"created_at\":\"2026-05-10T14:25:00Z\",\"encrypted_body\":\""), "{env}");
    assert!(env.contains(
        "\"from\":\"did:aip:aigentix.org:alice\",\"id\":\"1b4e28ba-2fa1-4d3b-a3f5-ef19b5a7633b\",\"sig\":\""
    ));
    assert!(env.ends_with("\"to\":\"did:aip:etagi.ru:etagi\",\"type\":\"aip.commerce.offer.request\"}"));
    let envf = file("env.json", env.as_bytes());
    let o = run(&["aip", "open", "--key", &etagi_key, "--from", &alice_doc, "--now", "2026-05-10T14:25:00Z", &envf]);
    assert_eq!(code(&o), 0, "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(stdout(&o), "{\"item_id\":\"doc_123\",\"type\":\"aip.commerce.offer.request\"}");
    // Wrong recipient key, wrong sender document, tampered header: rejected (1).
    let o = run(&["aip", "open", "--key", &alice_key, "--from", &alice_doc, &envf]);
    assert_eq!(code(&o), 1);
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("envelope to is not this agent"),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert_eq!(code(&run(&["aip", "open", "--key", &etagi_key, "--from", &etagi_doc, &envf])), 1);
    let bad = file("bad.json", env.replace("14:25:00Z", "14:25:01Z").as_bytes());
    assert_eq!(code(&run(&["aip", "open", "--key", &etagi_key, "--from", &alice_doc, &bad])), 1);
    // Malformed input and usage: 2.
    let junk = file("junk.json", b"{\"id\": 1");
    assert_eq!(code(&run(&["aip", "open", "--key", &etagi_key, "--from", &alice_doc, &junk])), 2);
    // A well-formed envelope without its `type` member is a schema miss: 1 (the class rule).
    let shape = file("shape.json", env.replace("\"type\":", "\"kind\":").as_bytes());
    assert_eq!(code(&run(&["aip", "open", "--key", &etagi_key, "--from", &alice_doc, &shape])), 1);
    assert_eq!(code(&run(&["aip", "open", "--key", &etagi_key, &envf])), 2);
    assert_eq!(
        code(&run(&["aip", "seal", "--to", &etagi_doc, "--key", &alice_key, "--created-at", "yesterday", &msg])),
        2
    );
}

#[test]
fn vc_issue_and_verify() {
    let o = run(&["aip", "keygen"]);
    assert_eq!(code(&o), 0);
    let key_json = stdout(&o);
    let did_key = key_json.split("\"did_key\":\"").nth(1).unwrap().split('"').next().unwrap().to_string();
    let key = file("issuer.key.json", key_json.as_bytes());
    let cred = format!(
        r#"{{"@context": ["https://www.w3.org/ns/credentials/v2"], "id": "urn:uuid:0f0c2e1a-1b2c-4d3e-8f90-123456789abc", "type": ["VerifiableCredential", "OrganizationVerification"], "issuer": "{did_key}", "validUntil": "2030-01-01T00:00:00Z", "credentialSubject": {{"id": "did:aip:aigentix.org:etagi", "legalName": "Etazhi LLC", "verified": true}}}}"#
    );
    let credf = file("cred.json", cred.as_bytes());
    let o = run(&["aip", "vc", "issue", "--key", &key, "--created", "2026-05-10T14:25:00Z", &credf]);
    assert_eq!(code(&o), 0, "{}", String::from_utf8_lossy(&o.stderr));
    let signed = stdout(&o);
    assert!(signed.contains("\"cryptosuite\":\"eddsa-jcs-2022\""));
    let signedf = file("signed.json", signed.as_bytes());
    let anchors = file("anchors.json", format!("[\"{did_key}\"]").as_bytes());
    let o = run(&["aip", "vc", "verify", "--anchors", &anchors, "--now", "2026-06-01T00:00:00Z", &signedf]);
    assert_eq!(code(&o), 0, "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(
        stdout(&o),
        format!("{{\"verified\": true, \"issuer\": \"{did_key}\", \"subject\": \"did:aip:aigentix.org:etagi\"}}\n")
    );
    let other = file("other.json", b"[\"did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK\"]");
    assert_eq!(code(&run(&["aip", "vc", "verify", "--anchors", &other, "--now", "2026-06-01T00:00:00Z", &signedf])), 1);
    assert_eq!(code(&run(&["aip", "vc", "verify", "--now", "2031-01-01T00:00:00Z", &signedf])), 1);
    let revoked = file("revoked.json", b"[\"urn:uuid:0f0c2e1a-1b2c-4d3e-8f90-123456789abc\"]");
    assert_eq!(
        code(&run(&["aip", "vc", "verify", "--revoked", &revoked, "--now", "2026-06-01T00:00:00Z", &signedf])),
        1
    );
    let tampered = file("tampered.json", signed.replace("Etazhi LLC", "Etazhi LLD").as_bytes());
    assert_eq!(code(&run(&["aip", "vc", "verify", "--now", "2026-06-01T00:00:00Z", &tampered])), 1);
    let junk = file("junk2.json", b"not json");
    assert_eq!(code(&run(&["aip", "vc", "verify", &junk])), 2);
    // Issuing for another issuer than the key's did:key is a usage error.
    let foreign = file(
        "foreign.json",
        cred.replace(&did_key, "did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK").as_bytes(),
    );
    assert_eq!(code(&run(&["aip", "vc", "issue", "--key", &key, &foreign])), 2);
}

#[test]
fn rank_results() {
    let results = file(
        "results.json",
        br#"[{"id": "a", "semantic_rank": 2, "fts_rank": null, "trust_score": 0.9},
            {"id": "b", "semantic_rank": 1, "fts_rank": 3, "trust_score": 0.1},
            {"id": "c", "fts_rank": 1, "trust_score": 1.0}]"#,
    );
    let o = run(&["aip", "rank", &results]);
    assert_eq!(code(&o), 0);
    let out = stdout(&o);
    let ids: Vec<&str> = out.match_indices("\"id\":\"").map(|(i, _)| &out[i + 6..i + 7]).collect();
    assert_eq!(ids, ["b", "c", "a"]);
    assert!(out.contains("\"rrf\":0.016129032258064516,\"final\":0.020483870967741936"), "{out}");
    let bad = file("bad-results.json", br#"[{"id": "a", "semantic_rank": 0, "trust_score": 0.5}]"#);
    assert_eq!(code(&run(&["aip", "rank", &bad])), 2);
    let bad = file("bad-trust.json", br#"[{"id": "a", "semantic_rank": 1, "trust_score": 1.5}]"#);
    assert_eq!(code(&run(&["aip", "rank", &bad])), 2);
}

/// Issue 32 (class 8): a key file without a `did` no longer skips the addressee check; it
/// needs `--recipient DID`, or `--any-recipient` to skip the check by name. (Class 6:
/// a stale envelope with a tampered body is a signature failure, not a temporal one.)
#[test]
fn the_addressee_check_needs_the_recipients_did_or_a_named_opt_out() {
    let (alice_key, alice_doc) = keygen("alice8", "did:aip:aigentix.org:alice", &[]);
    let (etagi_key, etagi_doc) = keygen("etagi8", "did:aip:etagi.ru:etagi", &[]);
    let msg = file("msg8.json", br#"{"type": "aip.message", "text": "hi"}"#);
    let o =
        run(&["aip", "seal", "--to", &etagi_doc, "--key", &alice_key, "--created-at", "2026-05-10T14:25:00Z", &msg]);
    assert_eq!(code(&o), 0, "{}", String::from_utf8_lossy(&o.stderr));
    let env = stdout(&o);
    let envf = file("env8.json", env.as_bytes());
    let text = std::fs::read_to_string(&etagi_key).unwrap();
    let start = text.find(",\"did_key\"").unwrap();
    let no_did = file("etagi8-nodid.key.json", format!("{{{}", &text[start + 1..]).as_bytes());
    let now = ["--now", "2026-05-10T14:26:00Z"];
    let open = |extra: &[&str]| {
        let mut args = vec!["aip", "open", "--key", &no_did, "--from", &alice_doc];
        args.extend_from_slice(extra);
        args.push(&envf);
        run(&args)
    };
    let o = open(&now);
    assert_eq!(code(&o), 2, "{}", String::from_utf8_lossy(&o.stderr));
    assert!(String::from_utf8_lossy(&o.stderr).contains("--any-recipient"), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(code(&open(&[&now[..], &["--any-recipient"]].concat())), 0);
    assert_eq!(code(&open(&[&now[..], &["--recipient", "did:aip:etagi.ru:etagi"]].concat())), 0);
    assert_eq!(code(&open(&[&now[..], &["--recipient", "did:aip:aigentix.org:alice"]].concat())), 1);
    assert_eq!(code(&open(&[&now[..], &["--recipient", "did:aip:etagi.ru:etagi", "--any-recipient"]].concat())), 2);
    let o = open(&[&now[..], &["--recipient", "not a did"]].concat());
    assert_eq!(code(&o), 2);
    assert!(String::from_utf8_lossy(&o.stderr).contains("--recipient"), "{}", String::from_utf8_lossy(&o.stderr));
    // A key file whose did is not the --recipient given: usage.
    let o = run(&[
        "aip",
        "open",
        "--key",
        &etagi_key,
        "--from",
        &alice_doc,
        "--recipient",
        "did:aip:x.org:y",
        now[0],
        now[1],
        &envf,
    ]);
    assert_eq!(code(&o), 2);
    // Stale (no --now: the clock) and tampered: the signature is checked first.
    let at = env.find("\"encrypted_body\":\"").unwrap() + 30;
    let mut bad = env.into_bytes();
    bad[at] = if bad[at] == b'A' { b'B' } else { b'A' };
    let badf = file("env8-bad.json", &bad);
    let o = run(&["aip", "open", "--key", &etagi_key, "--from", &alice_doc, &badf]);
    assert_eq!(code(&o), 1);
    assert!(String::from_utf8_lossy(&o.stderr).contains("signature"), "{}", String::from_utf8_lossy(&o.stderr));
}

/// Issue 32: a revoked credential whose id is respelled with a JSON escape stays revoked
/// (class 1); domain and challenge can be required, the clock is checked by default and
/// off only by name (classes 7 and 3).
#[test]
fn vc_verify_decoded_ids_proof_options_and_the_clock() {
    let o = run(&["aip", "keygen", "--seed", &"42".repeat(32)]);
    assert_eq!(code(&o), 0);
    let key_json = stdout(&o);
    let did_key = key_json.split("\"did_key\":\"").nth(1).unwrap().split('"').next().unwrap().to_string();
    let key = file("vc32.key.json", key_json.as_bytes());
    let issue = |name: &str, until: &str| {
        let cred = format!(
            r#"{{"id": "urn:uuid:0f8fad5b-d9cb-469f-a165-70867728950e", "issuer": "{did_key}", "validUntil": "{until}", "credentialSubject": {{"id": "did:aip:aigentix.org:etagi"}}}}"#
        );
        let o = run(&[
            "aip",
            "vc",
            "issue",
            "--key",
            &key,
            "--created",
            "2026-01-01T00:00:00Z",
            &file(name, cred.as_bytes()),
        ]);
        assert_eq!(code(&o), 0, "{}", String::from_utf8_lossy(&o.stderr));
        stdout(&o)
    };
    let signed = issue("vc32.json", "2999-01-01T00:00:00Z");
    let escaped = signed.replacen("urn:uuid:0f8f", "urn:uuid:\\u0030f8f", 1);
    assert_ne!(escaped, signed);
    let escapedf = file("vc32-escaped.json", escaped.as_bytes());
    let revoked = file("vc32-revoked.json", b"[\"urn:uuid:0f8fad5b-d9cb-469f-a165-70867728950e\"]");
    assert_eq!(code(&run(&["aip", "vc", "verify", &escapedf])), 0, "the proof holds over the respelled id");
    let o = run(&["aip", "vc", "verify", "--revoked", &revoked, &escapedf]);
    assert_eq!(code(&o), 1);
    assert!(String::from_utf8_lossy(&o.stderr).contains("credential is revoked"), "{o:?}");
    // The revocation list may spell the id with escapes too.
    let revoked_escaped = file("vc32-revoked2.json", b"[\"\\u0075rn:uuid:0f8fad5b-d9cb-469f-a165-70867728950e\"]");
    assert_eq!(
        code(&run(&["aip", "vc", "verify", "--revoked", &revoked_escaped, &file("vc32b.json", signed.as_bytes())])),
        1
    );
    // An escaped subject is refused by name, not dropped.
    let subj = file(
        "vc32-subj.json",
        signed.replacen("did:aip:aigentix.org:etagi", "did:aip:aigentix.org:\\u0065tagi", 1).as_bytes(),
    );
    let o = run(&["aip", "vc", "verify", &subj]);
    assert_eq!(code(&o), 1);
    assert!(String::from_utf8_lossy(&o.stderr).contains("credentialSubject.id must be written without JSON escapes"));
    // Domain and challenge: this proof has neither, so requiring one refuses it.
    let signedf = file("vc32c.json", signed.as_bytes());
    for flag in ["--domain", "--challenge"] {
        let o = run(&["aip", "vc", "verify", flag, "example.org", &signedf]);
        assert_eq!(code(&o), 1, "{flag}");
        assert!(String::from_utf8_lossy(&o.stderr).contains("is missing or not the required one"), "{o:?}");
        assert_eq!(code(&run(&["aip", "vc", "verify", "--proof-only", flag, "x", &signedf])), 2);
    }
    // The clock by default; --now; --no-time-check by name only.
    let expired = file("vc32-expired.json", issue("vc32e.json", "2026-02-01T00:00:00Z").as_bytes());
    assert_eq!(code(&run(&["aip", "vc", "verify", &expired])), 1);
    assert_eq!(code(&run(&["aip", "vc", "verify", "--now", "2026-01-15T00:00:00Z", &expired])), 0);
    assert_eq!(code(&run(&["aip", "vc", "verify", "--no-time-check", &expired])), 0);
    assert_eq!(code(&run(&["aip", "vc", "verify", "--no-time-check", "--now", "2026-01-15T00:00:00Z", &expired])), 2);
    // A proof created more than 300 s after --now.
    assert_eq!(code(&run(&["aip", "vc", "verify", "--now", "2025-12-31T23:54:59Z", &signedf])), 1);
    assert_eq!(code(&run(&["aip", "vc", "verify", "--now", "2025-12-31T23:55:00Z", &signedf])), 0);
}

/// Issue 32, class 9: a DID Document with two verification methods of one id, or one
/// without a controller, is refused where the CLI reads DID Documents (seal --to); the
/// message's escaped `type` is the same type (class 1, host default_type).
#[test]
fn did_documents_with_duplicate_ids_or_no_controller_are_refused() {
    let (alice_key, _) = keygen("alice32", "did:aip:aigentix.org:alice", &[]);
    let (_, etagi_doc) = keygen("etagi32", "did:aip:etagi.ru:etagi", &[]);
    let doc = std::fs::read_to_string(&etagi_doc).unwrap();
    let msg = file("msg32.json", br#"{"type": "aip.\u0063ommerce", "item_id": "doc_123"}"#);
    let seal =
        |to: &str| run(&["aip", "seal", "--to", to, "--key", &alice_key, "--created-at", "2026-05-10T14:25:00Z", &msg]);
    let o = seal(&etagi_doc);
    assert_eq!(code(&o), 0, "{}", String::from_utf8_lossy(&o.stderr));
    assert!(stdout(&o).ends_with("\"type\":\"aip.commerce\"}"), "{}", stdout(&o));
    let vm =
        doc.split("\"verificationMethod\":[").nth(1).unwrap().trim_end().trim_end_matches('}').trim_end_matches(']');
    let dup = doc.replacen("\"verificationMethod\":[", &format!("\"verificationMethod\":[{vm},"), 1);
    let o = seal(&file("etagi32-dup.json", dup.as_bytes()));
    assert_eq!(code(&o), 1);
    assert!(String::from_utf8_lossy(&o.stderr).contains("verification method ids must be unique"), "{o:?}");
    let no_controller = doc.replacen("\"controller\":\"did:aip:etagi.ru:etagi\",", "", 1);
    assert_ne!(no_controller, doc);
    let o = seal(&file("etagi32-noc.json", no_controller.as_bytes()));
    assert_eq!(code(&o), 1);
    assert!(String::from_utf8_lossy(&o.stderr).contains("verification method controller missing"), "{o:?}");
}
