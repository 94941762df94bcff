//! The newcomer path (issue 20): conventional flags, per-subcommand help, one-line errors
//! that name the allowed values, a complete top-level help, and the shipped examples.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_concordia")).args(args).stdin(Stdio::null()).output().unwrap()
}

fn out(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).unwrap()
}

fn err(o: &Output) -> String {
    String::from_utf8(o.stderr.clone()).unwrap()
}

fn examples() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples")
}

/// An error: exit `code`, one line on stderr, one `concordia: ` prefix, nothing on stdout.
fn one_line_error(args: &[&str], code: i32) -> String {
    let o = run(args);
    assert_eq!(o.status.code(), Some(code), "{args:?}: {}", err(&o));
    let e = err(&o);
    assert_eq!(e.lines().count(), 1, "{args:?}: {e}");
    assert!(e.starts_with("concordia: ") && !e.starts_with("concordia: concordia:"), "{e}");
    assert!(o.stdout.is_empty());
    e
}

#[test]
fn version_flags() {
    for flag in ["-V", "--version", "version"] {
        let o = run(&[flag]);
        assert_eq!(o.status.code(), Some(0));
        assert_eq!(out(&o), format!("concordia {}\n", env!("CARGO_PKG_VERSION")));
    }
}

#[test]
fn no_command_is_one_usage_line() {
    let e = one_line_error(&[], 2);
    assert!(e.contains("--help"), "{e}");
}

#[test]
fn top_level_help_lists_every_command_with_its_arguments() {
    let o = run(&["--help"]);
    assert_eq!(o.status.code(), Some(0));
    let help = out(&o);
    for line in [
        "demo [--out DIR] [--seed HEX] [--now RFC3339]",
        "jcs [--lines] [FILE]",
        "hash [--hex] [FILE]",
        "keygen [--alg EdDSA|ES256] [--seed HEX] [-o FILE]",
        "sign --key KEYFILE [--alg ALG] [FILE]",
        "verify --public-key B64URL [--alg ALG] [FILE]",
        "chain verify --keys KEYS.json",
        "session replay --session",
        "attestation verify --keys",
        "conformance [DIR] [--json]",
        "-V, --version",
    ] {
        assert!(help.contains(line), "missing {line:?} in\n{help}");
    }
    for sub in concordia_consensus_subcommands() {
        assert!(help.contains(&format!("consensus {sub} ")), "consensus {sub}");
    }
    for sub in ["handle", "keygen", "seal", "open", "vc issue", "vc verify", "rank"] {
        assert!(help.contains(&format!("aip {sub} ")), "aip {sub}");
    }
}

fn concordia_consensus_subcommands() -> [&'static str; 6] {
    ["digest", "markdown-digest", "invitation", "command", "outcome", "verify-artifact"]
}

#[test]
fn every_consensus_and_aip_subcommand_has_its_own_help() {
    let group = out(&run(&["consensus", "--help"]));
    for sub in concordia_consensus_subcommands() {
        for flag in ["--help", "-h"] {
            let o = run(&["consensus", sub, flag]);
            assert_eq!(o.status.code(), Some(0), "{sub}");
            let text = out(&o);
            assert!(text.starts_with(&format!("usage: concordia consensus {sub}")), "{sub}: {text}");
            assert_ne!(text, group);
            assert!(text.contains("Exit status"), "{sub}");
        }
    }
    let group = out(&run(&["aip", "--help"]));
    for sub in [&["handle"][..], &["keygen"], &["seal"], &["open"], &["vc", "issue"], &["vc", "verify"], &["rank"]] {
        let mut args = vec!["aip"];
        args.extend_from_slice(sub);
        args.push("--help");
        let o = run(&args);
        assert_eq!(o.status.code(), Some(0), "{sub:?}");
        let text = out(&o);
        assert!(text.starts_with(&format!("usage: concordia aip {}", sub.join(" "))), "{sub:?}: {text}");
        assert_ne!(text, group);
        // The other subcommands are not in it.
        for other in ["aip handle", "aip rank", "aip seal"] {
            if !other.ends_with(sub[0]) {
                assert!(!text.contains(&format!("concordia {other}")), "{sub:?} shows {other}");
            }
        }
    }
    // `aip vc --help` shows both credential commands.
    let text = out(&run(&["aip", "vc", "--help"]));
    assert!(text.contains("aip vc issue") && text.contains("aip vc verify"), "{text}");
    // An unknown subcommand's help is a usage error naming the choices.
    let e = one_line_error(&["consensus", "approve", "--help"], 2);
    assert!(e.contains("expected one of digest, markdown-digest"), "{e}");
}

#[test]
fn errors_name_the_allowed_values() {
    let e = one_line_error(
        &["consensus", "command", "--action", "approve", "--revision", "1", "--digest", &"a".repeat(64)],
        2,
    );
    assert!(
        e.contains("unknown action `approve` (allowed: comment, question, change_request, agree, disagree, abstain)"),
        "{e}"
    );
    let e = one_line_error(&["consensus"], 2);
    assert!(
        e.contains("expected one of digest, markdown-digest, invitation, command, outcome, verify-artifact"),
        "{e}"
    );
    let e = one_line_error(&["consensus", "tally"], 2);
    assert!(e.contains("unknown subcommand `tally`, expected one of digest"), "{e}");
    let e = one_line_error(&["aip"], 2);
    assert!(e.contains("expected one of handle, keygen, seal, open, vc issue, vc verify, rank"), "{e}");
    let e = one_line_error(&["aip", "vc", "sign"], 2);
    assert!(e.contains("expected one of issue, verify"), "{e}");
    let art = examples().join("consensus/CONSENSUS.md");
    let e = one_line_error(
        &[
            "consensus",
            "verify-artifact",
            art.to_str().unwrap(),
            "--content-digest",
            "x",
            "--sha256",
            "x",
            "--outcome",
            "done",
        ],
        2,
    );
    assert!(e.contains("(allowed: pending, reached, disagreed, no_consensus, expired)"), "{e}");

    // A room whose roster names a kind the core does not know: the core's schema error
    // (exit 1, by its class) with the kinds it allows.
    let dir = std::env::temp_dir().join(format!("concordia-newcomer-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let room =
        std::fs::read_to_string(examples().join("consensus/room.json")).unwrap().replacen("\"agent\"", "\"robot\"", 1);
    let p = dir.join("room.json");
    std::fs::write(&p, room).unwrap();
    let e = one_line_error(&["consensus", "outcome", p.to_str().unwrap(), "--now", "2026-09-07T00:00:00Z"], 1);
    assert!(e.contains("schema check failed: participant kind (allowed: human, agent)"), "{e}");
    // An email without the invitation block says what the block looks like.
    let p = dir.join("email.txt");
    std::fs::write(&p, "Hello,\n{}\n").unwrap();
    let e = one_line_error(&["consensus", "invitation", p.to_str().unwrap()], 1);
    assert!(
        e.contains("---BEGIN CONSENSUS INVITATION V1---") && e.contains("---END CONSENSUS INVITATION V1---"),
        "{e}"
    );
}

#[test]
fn a_closed_pipe_ends_quietly() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_concordia"))
        .args(["conformance", "--json"])
        .current_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join(".."))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Read nothing: the reader goes away at once, as `| head -c 0` would.
    drop(child.stdout.take());
    let o = child.wait_with_output().unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    assert!(o.stderr.is_empty(), "{}", err(&o));
}

#[test]
fn aip_keygen_with_a_seed_is_reproducible() {
    let seed = "0101010101010101010101010101010101010101010101010101010101010101";
    let a = run(&["aip", "keygen", "--seed", seed]);
    let b = run(&["aip", "keygen", "--seed", seed]);
    assert_eq!(a.status.code(), Some(0));
    assert_eq!(a.stdout, b.stdout);
    let c = out(&run(&["aip", "keygen"]));
    assert_ne!(out(&a), c);
    // The Ed25519 seed is the given one; the X25519 secret is not.
    assert!(out(&a).contains(&format!("\"ed25519_seed_hex\":\"{seed}\"")));
    assert!(!out(&a).contains(&format!("\"x25519_secret_hex\":\"{seed}\"")));
    one_line_error(&["aip", "keygen", "--seed", "xyz"], 2);
}

#[test]
fn the_shipped_examples_are_what_the_cli_makes() {
    // The AIP key files and DID Documents are `aip keygen --seed` output (examples/README.md).
    let dir = examples().join("aip");
    let key = std::fs::read(dir.join("alice.key.json")).unwrap();
    let seed = String::from_utf8(key.clone()).unwrap();
    let seed = seed.split("\"ed25519_seed_hex\":\"").nth(1).unwrap().get(..64).unwrap().to_string();
    let tmp = std::env::temp_dir().join(format!("concordia-newcomer-doc-{}.json", std::process::id()));
    let o =
        run(&["aip", "keygen", "--did", "did:aip:aigentix.org:alice", "--doc", tmp.to_str().unwrap(), "--seed", &seed]);
    assert_eq!(o.stdout, key);
    assert_eq!(std::fs::read(&tmp).unwrap(), std::fs::read(dir.join("alice.doc.json")).unwrap());
    // The Consensus artifact matches its two response headers.
    let c = examples().join("consensus");
    let headers = std::fs::read_to_string(c.join("CONSENSUS.md.headers")).unwrap();
    let field = |name: &str| {
        headers
            .lines()
            .find_map(|l| l.strip_prefix(name).map(|v| v.trim().to_string()))
            .unwrap_or_else(|| panic!("{name} in {headers}"))
    };
    let o = run(&[
        "consensus",
        "verify-artifact",
        c.join("CONSENSUS.md").to_str().unwrap(),
        "--content-digest",
        &field("Content-Digest:"),
        "--sha256",
        &field("X-Consensus-SHA256:"),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
}
