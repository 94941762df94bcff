//! End-to-end tests of the `concordia` binary: exit codes, outputs, and the conformance
//! message-chain vector with tampered copies.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_concordia"))
}

fn run(args: &[&str], stdin: &[u8]) -> Output {
    let mut child =
        bin().args(args).stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    // The command may exit before reading its input (a usage error).
    let _ = child.stdin.take().unwrap().write_all(stdin);
    child.wait_with_output().unwrap()
}

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn tmp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("concordia-cli-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

#[test]
fn jcs_and_hash() {
    let out = run(&["jcs"], br#"{"b": 1.50, "a": ["\u00e9", 1e21]}"#);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(out.stdout, "{\"a\":[\"é\",1e+21],\"b\":1.5}".as_bytes());
    let out = run(&["hash"], b"{}");
    // SHA-256 of the two bytes "{}".
    assert_eq!(
        String::from_utf8(out.stdout).unwrap().trim(),
        "sha256:44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a"
    );
    let out = run(&["hash", "--hex"], b"{}");
    assert_eq!(
        String::from_utf8(out.stdout).unwrap().trim(),
        "44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a"
    );
}

#[test]
fn malformed_input_exits_2_with_offset() {
    let out = run(&["jcs"], b"{\"a\": 1, \"a\": 2}");
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("byte 9") && err.contains("duplicate"), "{err}");
    assert_eq!(err.lines().count(), 1);
    // Unclosed brackets use a node per byte: still a syntax error with its offset, never a
    // buffer limit (found by the json_parse fuzz target).
    let out = run(&["jcs"], b"[[[[[[");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8(out.stderr).unwrap().contains("malformed JSON at byte 6: unexpected end of input"));
    let out = run(&["jcs", "/nonexistent/file.json"], b"");
    assert_eq!(out.status.code(), Some(2));
    let out = run(&["frobnicate"], b"");
    assert_eq!(out.status.code(), Some(2));
    let out = run(&["hash", "--bogus"], b"{}");
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn jcs_lines_reports_each_line() {
    let out = run(&["jcs", "--lines"], b"{\"b\":2,\"a\":1}\n[1,\n\"\\ud800\"\n");
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<_> = text.lines().collect();
    assert_eq!(lines[0], "{\"a\":1,\"b\":2}");
    assert!(lines[1].starts_with("!error input 3 "), "{}", lines[1]);
    assert!(lines[2].starts_with("!error input 1 ") && lines[2].contains("surrogate"), "{}", lines[2]);
    assert_eq!(lines.len(), 3);
}

#[test]
fn rfc8785_files_canonicalize_byte_exact_through_the_cli() {
    let dir = repo().join("core/tests/data/rfc8785/cyberphone");
    // values.json holds only numbers within the safe range; the others are strings.
    for name in ["arrays", "french", "structures", "unicode", "values", "weird"] {
        let input = dir.join(format!("input/{name}.json"));
        let out = bin().args(["jcs", input.to_str().unwrap()]).output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{name}: {}", String::from_utf8_lossy(&out.stderr));
        assert_eq!(out.stdout, std::fs::read(dir.join(format!("output/{name}.json"))).unwrap(), "{name}");
    }
}

#[test]
fn keygen_sign_verify_round_trip() {
    let seed = "9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60";
    let out = run(&["keygen", "--seed", seed], b"");
    let keyfile = String::from_utf8(out.stdout).unwrap();
    // RFC 8032 test 1 public key, padded URL-safe base64.
    assert!(keyfile.contains("\"public_key_b64url\":\"11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo=\""), "{keyfile}");
    let kpath = tmp("key.json");
    std::fs::write(&kpath, &keyfile).unwrap();
    let out = run(&["sign", "--key", kpath.to_str().unwrap()], br#"{"offer": {"price": 2050}, "signature": "old"}"#);
    assert_eq!(out.status.code(), Some(0));
    let signed = out.stdout;
    let pk = "11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo=";
    assert_eq!(run(&["verify", "--public-key", pk], &signed).status.code(), Some(0));
    // Unpadded keys are accepted too.
    assert_eq!(run(&["verify", "--public-key", pk.trim_end_matches('=')], &signed).status.code(), Some(0));
    let tampered = String::from_utf8(signed).unwrap().replace("2050", "2051");
    let out = run(&["verify", "--public-key", pk], tampered.as_bytes());
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(run(&["verify", "--public-key", "!!"], b"{}").status.code(), Some(2));
    assert_eq!(run(&["sign", "--key", "/nonexistent"], b"{}").status.code(), Some(2));
}

/// ES256: the key file of a known scalar (the RFC 6979 §A.2.5 key), a signature the core
/// makes deterministically, the reference SDK's own signed message, and the refusals.
#[test]
fn es256_keygen_sign_verify() {
    let d = "c9afa9d845ba75166b5c215767b1d6934e50c3db36e89b127b8a622b120f6721";
    let pk = "BGD-1LolWp0xyWHrdMY1bWjASbiSO2H6bOZpYi5g8p-2eQP-EAi4vJmkGunpVii8ZPLxsgwtfp9Rd6PClNRGIpk=";
    let out = run(&["keygen", "--alg", "ES256", "--seed", d], b"");
    assert_eq!(out.status.code(), Some(0));
    let keyfile = String::from_utf8(out.stdout).unwrap();
    assert_eq!(
        keyfile.trim_end(),
        format!(
            "{{\"alg\":\"ES256\",\"key_type\":\"P-256\",\"private_key_hex\":\"{d}\",\"public_key_b64url\":\"{pk}\"}}"
        )
    );
    let kpath = tmp("es256-key.json");
    std::fs::write(&kpath, &keyfile).unwrap();
    let k = kpath.to_str().unwrap();
    let msg = br#"{"offer": {"price": 2050}, "signature": "old"}"#;
    let a = run(&["sign", "--key", k], msg);
    let b = run(&["sign", "--key", k, "--alg", "ES256"], msg);
    assert_eq!(a.status.code(), Some(0), "{}", String::from_utf8_lossy(&a.stderr));
    assert_eq!(a.stdout, b.stdout, "deterministic, and --alg names the key file's algorithm");
    let signed = a.stdout;
    let ok = run(&["verify", "--alg", "ES256", "--public-key", pk], &signed);
    assert_eq!(ok.status.code(), Some(0), "{}", String::from_utf8_lossy(&ok.stderr));
    assert_eq!(String::from_utf8(ok.stdout).unwrap(), format!("ok: signature valid for \"{pk}\"\n"));
    // Without --alg the key is read as Ed25519: a usage error (exit 2).
    assert_eq!(run(&["verify", "--public-key", pk], &signed).status.code(), Some(2));
    let tampered = String::from_utf8(signed.clone()).unwrap().replace("2050", "2051");
    assert_eq!(run(&["verify", "--alg", "ES256", "--public-key", pk], tampered.as_bytes()).status.code(), Some(1));
    // The reference SDK's message (concordia-protocol 0.10.0: sign_message(msg, kp, alg="ES256")
    // with the key of scalar bytes(range(1, 33))).
    let sdk_pk = "BFFcPW6545a5BNP-yn9U_c0MwemXvzddylFa0KbDtANfRTa-OlDzGPv5pUdZAqIhUCvvDVfgjFOyzApW8X2fk1Q=";
    let sdk_msg = r#"{"concordia": "interop", "n": 1, "text": "h\u00e9llo", "signature": "MEUCIQDCbJPtS5AVE6yoVCADcYKeJ9viS43YVgV1jRCCSqdpqwIgOKr-uD_bCr7uIcvbTKhDAgytybG9tJzgMk_3-vExJWM="}"#;
    assert_eq!(run(&["verify", "--alg", "ES256", "--public-key", sdk_pk], sdk_msg.as_bytes()).status.code(), Some(0));
    assert_eq!(run(&["verify", "--alg", "ES256", "--public-key", pk], sdk_msg.as_bytes()).status.code(), Some(1));
    // Unknown algorithms, an off-curve key and mismatched key files are usage errors.
    let e = run(&["verify", "--alg", "ES384", "--public-key", pk], &signed);
    assert_eq!(e.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&e.stderr).contains("allowed: EdDSA, ES256"));
    let mut off = pk.to_string();
    off.replace_range(80..81, if &off[80..81] == "A" { "B" } else { "A" });
    assert_eq!(run(&["verify", "--alg", "ES256", "--public-key", &off], &signed).status.code(), Some(2));
    let e = run(&["sign", "--key", k, "--alg", "EdDSA"], msg);
    assert_eq!(e.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&e.stderr).contains("holds a ES256 key"), "{}", String::from_utf8_lossy(&e.stderr));
    let zero = "0".repeat(64);
    assert_eq!(run(&["keygen", "--alg", "ES256", "--seed", &zero], b"").status.code(), Some(2));
    // OS randomness: two fresh keys differ and each signs and verifies.
    let k1 = String::from_utf8(run(&["keygen", "--alg", "ES256"], b"").stdout).unwrap();
    let k2 = String::from_utf8(run(&["keygen", "--alg", "ES256"], b"").stdout).unwrap();
    assert_ne!(k1, k2);
    let p1 = tmp("es256-fresh.json");
    std::fs::write(&p1, &k1).unwrap();
    let signed = run(&["sign", "--key", p1.to_str().unwrap()], b"{}").stdout;
    let fresh_pk = k1.split("\"public_key_b64url\":\"").nth(1).unwrap().split('"').next().unwrap();
    assert_eq!(run(&["verify", "--alg", "ES256", "--public-key", fresh_pk], &signed).status.code(), Some(0));
}

/// Writes (keys, transcript) of the conformance vector to temporary files, after `edit`.
fn chain_files(tag: &str, edit: impl FnOnce(&mut Vec<String>)) -> (PathBuf, PathBuf) {
    let v =
        std::fs::read_to_string(repo().join("conformance/vectors/positive/pos-synthetic-message-chain.json")).unwrap();
    // Split the messages array textually, using the core to find each message's bytes.
    let mut nodes = vec![concordia_core::json::Node::EMPTY; v.len()];
    let doc = concordia_core::json::parse(v.as_bytes(), &mut nodes).unwrap();
    let keys = doc.root().pointer("/context/public_keys_b64url").unwrap();
    let mut kbuf = vec![0u8; 4096];
    let kn = concordia_core::jcs::write_to_slice(keys, &mut kbuf).unwrap();
    let mut msgs: Vec<String> = doc
        .root()
        .pointer("/input/messages")
        .unwrap()
        .elements()
        .map(|m| {
            let mut b = vec![0u8; 8192];
            let n = concordia_core::jcs::write_to_slice(m, &mut b).unwrap();
            String::from_utf8(b[..n].to_vec()).unwrap()
        })
        .collect();
    edit(&mut msgs);
    let kpath = tmp(&format!("keys-{tag}.json"));
    let tpath = tmp(&format!("transcript-{tag}.json"));
    std::fs::write(&kpath, &kbuf[..kn]).unwrap();
    std::fs::write(&tpath, format!("[{}]", msgs.join(","))).unwrap();
    (kpath, tpath)
}

fn chain_verify(k: &Path, t: &Path) -> Output {
    bin().args(["chain", "verify", "--keys", k.to_str().unwrap(), t.to_str().unwrap()]).output().unwrap()
}

#[test]
fn conformance_message_chain_verifies_and_tampering_is_rejected() {
    // The vector itself, in its `{"messages": [...]}` input shape.
    let vector = repo().join("conformance/vectors/positive/pos-synthetic-message-chain.json");
    let (k, t) = chain_files("ok", |_| {});
    let out = chain_verify(&k, &t);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8(out.stdout)
        .unwrap()
        .contains("3 messages, head sha256:88f4a3c55430d9a3182400382f8022266a71ffbfd34d156ca3592478b20557d9"));
    let _ = vector;

    // One byte of a body changed.
    let (k, t) = chain_files("byte", |m| {
        let edited = m[2].replacen("\"delivery_days\":2", "\"delivery_days\":3", 1);
        assert_ne!(edited, m[2]);
        m[2] = edited;
    });
    let out = chain_verify(&k, &t);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8(out.stderr).unwrap().contains("message 2: signature verification failed"));
    // One message dropped.
    let (k, t) = chain_files("drop", |m| {
        m.remove(1);
    });
    let out = chain_verify(&k, &t);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8(out.stderr).unwrap().contains("message 1: binding check failed: prev_hash"));
    // Two swapped.
    let (k, t) = chain_files("swap", |m| m.swap(1, 2));
    assert_eq!(chain_verify(&k, &t).status.code(), Some(1));
    // The {"messages": [...]} shape is accepted too.
    let (k, t) = chain_files("obj", |_| {});
    let arr = std::fs::read_to_string(&t).unwrap();
    std::fs::write(&t, format!("{{\"messages\": {arr}}}")).unwrap();
    let out =
        bin().args(["chain", "verify", "--json", "--keys", k.to_str().unwrap(), t.to_str().unwrap()]).output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert!(String::from_utf8(out.stdout).unwrap().starts_with("{\"head\":\"sha256:88f4a3c5"));
}
