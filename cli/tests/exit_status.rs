//! The exit-status rule of `concordia`, on every subcommand: 0 ok, 1 verification failed,
//! 2 usage or malformed input. A core error picks 1 or 2 by its class (input and limit exit
//! 2; schema, signature, digest, binding, temporal, privacy and transition exit 1); errors
//! that are not the core's (bad flags, missing files) exit 2.
//!
//! One table runs the built binary over each subcommand's failure modes and checks the
//! status and that stderr is exactly one line starting with `concordia: `. Where the class
//! of a case is the core's to decide (an undecodable signature may be an encoding error or
//! a failed signature), the expected status is computed from the class the core gives the
//! same input, so the table states the rule rather than today's classification.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};

use concordia_core::sign::{KeyPair, PublicKey};
use concordia_core::{Class, Error};
use concordia_host::Nodes;

const SEED: &str = "0101010101010101010101010101010101010101010101010101010101010101";
const NOW: &str = "2026-01-02T03:04:05Z";

/// The rule, restated independently of the CLI's code.
fn exit_for(e: Error) -> i32 {
    match e.class() {
        Class::Input | Class::Limit => 2,
        _ => 1,
    }
}

fn run(args: &[String], stdin: &[u8]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_concordia"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // The command may exit before reading its input (a usage error).
    let _ = child.stdin.take().unwrap().write_all(stdin);
    child.wait_with_output().unwrap()
}

fn dir() -> PathBuf {
    let d = std::env::temp_dir().join(format!("concordia-cli-exit-status-{}", std::process::id()));
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

/// The demo's transcript, keys and attestation, written once into the test directory.
fn demo_files() -> (String, String, String) {
    let out = dir().join("demo");
    let o = run(&args(&["demo", "--seed", SEED, "--now", NOW, "--out", out.to_str().unwrap()]), b"");
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
    let p = |n: &str| out.join(n).to_str().unwrap().to_string();
    (p("transcript.json"), p("keys.json"), p("attestation.json"))
}

/// The messages of a transcript written by the demo (one message per line).
fn messages(transcript: &str) -> Vec<String> {
    std::fs::read_to_string(transcript)
        .unwrap()
        .lines()
        .filter(|l| l.starts_with('{'))
        .map(|l| l.trim_end_matches(',').to_string())
        .collect()
}

fn args(a: &[&str]) -> Vec<String> {
    a.iter().map(|s| (*s).to_string()).collect()
}

/// The class the core gives `verify_signed_object` over `text` under `key`.
fn verify_error(text: &[u8], key: &PublicKey) -> Error {
    let mut nodes = Nodes::new();
    let doc = nodes.parse(text).unwrap();
    concordia_core::message::verify_signed_object(doc.root(), key).unwrap_err()
}

struct Case {
    name: &'static str,
    args: Vec<String>,
    stdin: Vec<u8>,
    want: i32,
}

fn case(name: &'static str, a: &[&str], want: i32) -> Case {
    Case { name, args: args(a), stdin: Vec::new(), want }
}

fn case_in(name: &'static str, a: &[&str], stdin: &[u8], want: i32) -> Case {
    Case { name, args: args(a), stdin: stdin.to_vec(), want }
}

#[test]
fn every_subcommand_fails_with_one_line_and_the_status_of_its_class() {
    let (transcript, keys, attestation) = demo_files();
    let msgs = messages(&transcript);
    assert!(msgs.len() >= 3);

    // A key pair and a signed object.
    let kp = KeyPair::from_seed(&[1; 32]);
    let pk = kp.public_key().to_b64url().as_str().to_string();
    let other = KeyPair::from_seed(&[2; 32]).public_key().to_b64url().as_str().to_string();
    let o = run(&args(&["keygen", "--seed", SEED]), b"");
    let keyfile = file("key.json", &o.stdout);
    let o = run(&args(&["sign", "--key", &keyfile]), br#"{"a":1}"#);
    assert_eq!(o.status.code(), Some(0));
    let signed = o.stdout.clone();
    let text = String::from_utf8(signed.clone()).unwrap();
    // The signature with one character changed in its middle still decodes to 64 bytes.
    let sig_at = text.find("\"signature\":\"").unwrap() + 13 + 20;
    let flipped = if &text[sig_at..=sig_at] == "A" { "B" } else { "A" };
    let bad_sig = format!("{}{flipped}{}", &text[..sig_at], &text[sig_at + 1..]);
    let undecodable = r#"{"a":1,"signature":"!!not base64!!"}"#;

    // A transcript with a broken chain link (message 1 dropped), an empty one, and one
    // message under a key that is not the sender's.
    let broken = file("broken.json", format!("[{}]", [&msgs[..1], &msgs[2..]].concat().join(",")).as_bytes());
    let empty = file("empty.json", b"[]");
    let wrong_keys = file(
        "wrong-keys.json",
        format!(
            "{{\"did:concordia:agent:camera-seller\":\"{other}\",\"did:concordia:agent:camera-buyer\":\"{other}\"}}"
        )
        .as_bytes(),
    );
    let junk = file("junk.json", b"{\"a\": [1, 2");
    let dup = file("dup.json", b"{\"a\": 1, \"a\": 2}");
    let array_keys = file("array-keys.json", b"[]");
    let missing = path("does-not-exist.json");

    // An attestation with a signed field changed, and one that is not an attestation.
    let forged = file(
        "forged.json",
        std::fs::read_to_string(&attestation).unwrap().replace("electronics.cameras", "electronics.lenses").as_bytes(),
    );
    let not_att = file("not-att.json", b"{}");

    // Session replay: a spec for another session id (every message is refused).
    let spec = file(
        "spec.json",
        br#"{"session_id":"ses_other","created_at":"2026-01-02T03:04:05Z","parties":[{"agent_id":"did:concordia:agent:camera-seller","role":"initiator"},{"agent_id":"did:concordia:agent:camera-buyer","role":"responder"}]}"#,
    );
    let spec_no_id = file("spec-no-id.json", br#"{"parties":[]}"#);
    let spec_role = file("spec-role.json", br#"{"session_id":"s","parties":[{"agent_id":"a","role":"king"}]}"#);

    // Consensus.
    let d = concordia_core::digest::sha256(b"rev").to_hex().as_str().to_string();
    let room = format!(
        r#"{{"revision": 1, "digest": "{d}", "deadline": "2026-09-10T00:00:00Z", "roster": [{{"id": "p1", "kind": "robot"}}, {{"id": "p2", "kind": "agent"}}], "events": []}}"#
    );
    let room_bad = file("room-robot.json", room.as_bytes());
    let md = file("CONSENSUS.md", b"{\"hello\": \"world\"}\n");
    let md_field = "sha-256=:RK/0qy18MlBSVnWgjwz6lZEWjP/lF5HF9bvEF8FabDg=:";
    let md_hex = concordia_core::digest::sha256(b"{\"hello\": \"world\"}\n").to_hex().as_str().to_string();
    let no_block = file("no-block.txt", b"Hello, no invitation here.\n");

    // AIP.
    let o = run(&args(&["aip", "keygen"]), b"");
    let key_json = String::from_utf8(o.stdout).unwrap();
    let did_key = key_json.split("\"did_key\":\"").nth(1).unwrap().split('"').next().unwrap().to_string();
    let issuer = file("issuer.key.json", key_json.as_bytes());
    let cred = file(
        "cred.json",
        format!(
            r#"{{"@context": ["https://www.w3.org/ns/credentials/v2"], "type": ["VerifiableCredential"], "issuer": "{did_key}", "credentialSubject": {{"id": "did:aip:aigentix.org:etagi", "legalName": "Etazhi LLC"}}}}"#
        )
        .as_bytes(),
    );
    let o = run(&args(&["aip", "vc", "issue", "--key", &issuer, "--created", "2026-05-10T14:25:00Z", &cred]), b"");
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
    let vc_tampered =
        file("vc.json", String::from_utf8(o.stdout).unwrap().replace("Etazhi LLC", "Etazhi LLD").as_bytes());
    let ranks_bad = file("ranks.json", br#"[{"id":"a","semantic_rank":0,"trust_score":0.5}]"#);

    // Cases whose class is the core's to decide: the status follows the class it gives.
    let undecodable_want = exit_for(verify_error(undecodable.as_bytes(), &kp.public_key()));
    let handle_want = exit_for(concordia_core::aip::handle::parse_any("no handle here").unwrap_err());

    let k = keys.as_str();
    #[rustfmt::skip]
    let cases = vec![
        // The command line itself.
        case("no command", &[], 2),
        case("unknown command", &["frobnicate"], 2),
        case("unknown command with a newline", &["frob\nnicate"], 2),
        // jcs, hash
        case_in("jcs: malformed JSON", &["jcs"], b"{\"a\": 1, \"a\": 2}", 2),
        case_in("jcs: truncated JSON", &["jcs"], b"[[[", 2),
        case("jcs: missing file", &["jcs", &missing], 2),
        case_in("jcs: unknown flag", &["jcs", "--bogus"], b"{}", 2),
        case_in("jcs: depth limit", &["jcs"], "[".repeat(100_000).as_bytes(), 2),
        case_in("hash: malformed JSON", &["hash"], b"{", 2),
        case_in("hash: two files", &["hash", "a", "b"], b"", 2),
        // keygen, sign, verify
        case("keygen: bad seed", &["keygen", "--seed", "xyz"], 2),
        case("keygen: extra argument", &["keygen", "extra"], 2),
        case_in("sign: no --key", &["sign"], b"{}", 2),
        case_in("sign: missing key file", &["sign", "--key", &missing], b"{}", 2),
        case_in("sign: key file without a key", &["sign", "--key", &dup], b"{}", 2),
        case_in("sign: malformed JSON", &["sign", "--key", &keyfile], b"{\"a\":", 2),
        case_in("sign: not an object (schema)", &["sign", "--key", &keyfile], b"[1]", 1),
        case_in("verify: no --public-key", &["verify"], &signed, 2),
        case_in("verify: unreadable --public-key", &["verify", "--public-key", "!!"], &signed, 2),
        case_in("verify: malformed JSON", &["verify", "--public-key", &pk], b"{\"a\":1", 2),
        case_in("verify: wrong key", &["verify", "--public-key", &other], &signed, 1),
        case_in("verify: bad signature bytes", &["verify", "--public-key", &pk], bad_sig.as_bytes(), 1),
        case_in("verify: no signature member (schema)", &["verify", "--public-key", &pk], br#"{"a":1}"#, 1),
        case_in("verify: not an object (schema)", &["verify", "--public-key", &pk], b"[]", 1),
        case_in("verify: undecodable signature", &["verify", "--public-key", &pk], undecodable.as_bytes(), undecodable_want),
        // chain verify
        case("chain: no subcommand", &["chain"], 2),
        case("chain: no --keys", &["chain", "verify", &transcript], 2),
        case("chain: keys not an object", &["chain", "verify", "--keys", &array_keys, &transcript], 2),
        case("chain: missing transcript", &["chain", "verify", "--keys", k, &missing], 2),
        case("chain: malformed transcript", &["chain", "verify", "--keys", k, &junk], 2),
        case("chain: broken link", &["chain", "verify", "--keys", k, &broken], 1),
        case("chain: empty transcript", &["chain", "verify", "--keys", k, &empty], 1),
        case("chain: signature under another key", &["chain", "verify", "--keys", &wrong_keys, &transcript], 1),
        case("chain: --json broken link", &["chain", "verify", "--json", "--keys", k, &broken], 1),
        // attestation verify
        case("attestation: no subcommand", &["attestation"], 2),
        case("attestation: no --keys", &["attestation", "verify", &attestation], 2),
        case("attestation: malformed", &["attestation", "verify", "--keys", k, &junk], 2),
        case("attestation: missing file", &["attestation", "verify", "--keys", k, &missing], 2),
        case("attestation: not an attestation (schema)", &["attestation", "verify", "--keys", k, &not_att], 1),
        case("attestation: forged", &["attestation", "verify", "--keys", k, &forged], 1),
        case("attestation: short transcript", &["attestation", "verify", "--keys", k, "--transcript", &broken, &attestation], 1),
        // session replay
        case("session: no subcommand", &["session"], 2),
        case("session: no --session", &["session", "replay", &transcript], 2),
        case("session: malformed messages", &["session", "replay", "--session", &spec, &junk], 2),
        case("session: spec without session_id", &["session", "replay", "--session", &spec_no_id, &transcript], 2),
        case("session: unknown role", &["session", "replay", "--session", &spec_role, &transcript], 2),
        case("session: refused messages", &["session", "replay", "--session", &spec, &transcript], 1),
        case("session: refused messages, --json", &["session", "replay", "--json", "--session", &spec, &transcript], 1),
        // demo
        case("demo: bad --now", &["demo", "--now", "yesterday", "--out", &path("demo-x")], 2),
        case("demo: bad --seed", &["demo", "--seed", "00", "--out", &path("demo-x")], 2),
        case("demo: unknown flag", &["demo", "--bogus"], 2),
        // conformance
        case("conformance: missing directory", &["conformance", &missing], 2),
        case("conformance: unknown flag", &["conformance", "--bogus"], 2),
        // consensus
        case("consensus: no subcommand", &["consensus"], 2),
        case("consensus: unknown subcommand", &["consensus", "frobnicate"], 2),
        case("consensus digest: malformed JSON", &["consensus", "digest", &dup], 2),
        case("consensus digest: no file", &["consensus", "digest"], 2),
        case("consensus command: malformed --digest", &["consensus", "command", "--action", "agree", "--revision", "1", "--digest", "abc"], 2),
        case("consensus command: unknown --action", &["consensus", "command", "--action", "approve", "--revision", "1", "--digest", &d], 2),
        case("consensus command: body on a terminal action (schema)", &["consensus", "command", "--action", "agree", "--revision", "1", "--digest", &d, "--body", "yes"], 1),
        case("consensus command: revision 0 (schema)", &["consensus", "command", "--action", "agree", "--revision", "0", "--digest", &d], 1),
        case("consensus outcome: roster without a human (schema)", &["consensus", "outcome", &room_bad, "--now", NOW], 1),
        case("consensus outcome: bad --now", &["consensus", "outcome", &room_bad, "--now", "yesterday"], 2),
        case("consensus outcome: malformed room", &["consensus", "outcome", &junk, "--now", NOW], 2),
        case("consensus invitation: no block (schema)", &["consensus", "invitation", &no_block], 1),
        case("consensus invitation: bad --origin", &["consensus", "invitation", &no_block, "--origin", "http://x.example"], 2),
        case("consensus verify-artifact: digest mismatch", &["consensus", "verify-artifact", &md, "--content-digest", md_field, "--sha256", &d], 1),
        case("consensus verify-artifact: malformed --sha256", &["consensus", "verify-artifact", &md, "--content-digest", md_field, "--sha256", "zz"], 2),
        case("consensus verify-artifact: malformed field", &["consensus", "verify-artifact", &md, "--content-digest", "sha-256=RK", "--sha256", &md_hex], 2),
        case("consensus verify-artifact: unknown --outcome", &["consensus", "verify-artifact", &md, "--content-digest", md_field, "--sha256", &md_hex, "--outcome", "won"], 2),
        // aip
        case("aip: no subcommand", &["aip"], 2),
        case("aip: unknown subcommand", &["aip", "frobnicate"], 2),
        case("aip vc: no subcommand", &["aip", "vc"], 2),
        case("aip handle: not a handle", &["aip", "handle", "no handle here"], handle_want),
        case("aip keygen: bad --did", &["aip", "keygen", "--did", "did:web:x"], 2),
        case("aip open: no --key", &["aip", "open", &junk], 2),
        case("aip vc verify: malformed", &["aip", "vc", "verify", "--now", NOW, &junk], 2),
        case("aip vc verify: bad --now", &["aip", "vc", "verify", "--now", "yesterday", &vc_tampered], 2),
        case("aip vc verify: proof does not verify", &["aip", "vc", "verify", "--now", NOW, &vc_tampered], 1),
        case("aip rank: malformed", &["aip", "rank", &junk], 2),
        case("aip rank: rank 0", &["aip", "rank", &ranks_bad], 2),
    ];

    let mut bad = Vec::new();
    for c in &cases {
        let o = run(&c.args, &c.stdin);
        let err = String::from_utf8_lossy(&o.stderr).into_owned();
        let one_line = err.ends_with('\n') && err.lines().count() == 1 && err.starts_with("concordia: ");
        if o.status.code() != Some(c.want) || !one_line || err.contains("panicked") || err.contains("internal error") {
            bad.push(format!("{}: exit {:?}, want {}; stderr {err:?}", c.name, o.status.code(), c.want));
        }
    }
    assert!(bad.is_empty(), "{} of {} cases:\n{}", bad.len(), cases.len(), bad.join("\n"));
}

/// A core error about the input exits by its class: the fixed cases above whose class is
/// certain agree with what the core says about the same bytes.
#[test]
fn fixed_cases_agree_with_the_cores_classes() {
    let kp = KeyPair::from_seed(&[1; 32]);
    let mut nodes = Nodes::new();
    // Malformed JSON is input (2).
    assert_eq!(exit_for(nodes.parse(b"{\"a\": 1, \"a\": 2}").unwrap_err()), 2);
    // A signature that decodes but does not verify is a signature failure (1).
    let mut out = vec![0u8; 256];
    let doc = nodes.parse(br#"{"a":1}"#).unwrap();
    let n = concordia_core::message::sign_object(doc.root(), &kp, &mut out).unwrap();
    let other = KeyPair::from_seed(&[2; 32]).public_key();
    assert_eq!(verify_error(&out[..n], &other), Error::Signature);
    assert_eq!(exit_for(Error::Signature), 1);
    // A missing signature member is a schema miss (1).
    assert_eq!(exit_for(verify_error(br#"{"a":1}"#, &kp.public_key())), 1);
    // A malformed command digest is input (2); a body on a terminal action is schema (1).
    use concordia_core::consensus::command::{Action, Command};
    assert_eq!(exit_for(Command::new(Action::Agree, "", 1, "abc").unwrap_err()), 2);
    assert_eq!(exit_for(Command::new(Action::Agree, "yes", 1, &"0".repeat(64)).unwrap_err()), 1);
}
