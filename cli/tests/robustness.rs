//! No panic reaches a user of `concordia`, and the CLI parses under the core's one depth
//! policy.
//!
//! Each failure class runs the built binary: an argument that is not UTF-8, stdout on a full
//! disk (`/dev/full`), a reader that closes the pipe early, a failing stderr, and nesting at
//! and beyond `json::DEFAULT_MAX_DEPTH`. A panic would print "panicked" (Rust's default
//! hook) or "internal error" (the CLI's last-line-of-defence hook), so both are refused in
//! stderr, and exit 101 is refused everywhere.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::ffi::OsStr;
use std::io::{Read, Write};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use concordia_core::json::DEFAULT_MAX_DEPTH;

const SEED: &str = "9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60";

fn bin() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_concordia"));
    c.current_dir(repo());
    c
}

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn tmp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("concordia-cli-robustness-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

fn file(name: &str, bytes: &[u8]) -> String {
    let p = tmp(name);
    std::fs::write(&p, bytes).unwrap();
    p.to_str().unwrap().to_string()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Exit `code`, and stderr exactly one line `concordia: ...` that is not a panic.
fn assert_one_line_error(o: &Output, code: i32, what: &str) {
    let err = stderr(o);
    assert_eq!(o.status.code(), Some(code), "{what}: {err}");
    assert_no_panic(o, what);
    assert_eq!(err.lines().count(), 1, "{what}: {err:?}");
    assert!(err.starts_with("concordia: "), "{what}: {err:?}");
}

fn assert_no_panic(o: &Output, what: &str) {
    let err = stderr(o);
    assert_ne!(o.status.code(), Some(101), "{what}: {err}");
    assert!(o.status.code().is_some(), "{what}: killed by a signal: {:?}", o.status);
    assert!(!err.contains("panicked"), "{what}: {err}");
    assert!(!err.contains("internal error"), "{what}: {err}");
    assert!(!err.contains("RUST_BACKTRACE") && !err.contains("stack backtrace"), "{what}: {err}");
}

/// `[[...]]` nested `depth` levels.
fn nested(depth: usize) -> Vec<u8> {
    let mut v = vec![b'['; depth];
    v.extend(std::iter::repeat_n(b']', depth));
    v
}

#[test]
fn a_file_name_that_is_not_utf8_is_a_usage_error() {
    let name = OsStr::from_bytes(b"/tmp/in\xffput\n.json");
    for args in
        [&["jcs"][..], &["hash", "--hex"], &["verify", "--public-key", "11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo="]]
    {
        let o = bin().args(args).arg(name).stdin(Stdio::null()).output().unwrap();
        assert_one_line_error(&o, 2, &format!("{args:?}"));
        let err = stderr(&o);
        assert!(err.contains("not valid UTF-8") && err.contains("\\xFF"), "{err}");
    }
    // As a flag's value, and as the command itself.
    let o = bin().args(["sign", "--key"]).arg(name).stdin(Stdio::null()).output().unwrap();
    assert_one_line_error(&o, 2, "sign --key");
    let o = bin().arg(OsStr::from_bytes(b"j\xffcs")).stdin(Stdio::null()).output().unwrap();
    assert_one_line_error(&o, 2, "command");
    assert!(stderr(&o).contains("argument 1 "), "{}", stderr(&o));
}

#[cfg(target_os = "linux")]
#[test]
fn stdout_on_a_full_disk_is_one_line_and_exit_2() {
    let json = file("full.json", br#"{"b": [1, 2.50], "a": "x"}"#);
    let demo_out = tmp("demo-full");
    let demo_out = demo_out.to_str().unwrap();
    let cases: Vec<Vec<&str>> = vec![
        vec!["keygen"],
        vec!["keygen", "--seed", SEED],
        vec!["jcs", &json],
        vec!["jcs", "--lines", &json],
        vec!["hash", &json],
        vec!["hash", "--hex", &json],
        vec!["demo", "--out", demo_out, "--seed", SEED, "--now", "2026-01-01T00:00:00Z"],
        vec!["conformance", "--json"],
        vec!["conformance"],
        vec!["aip", "handle", "alice#example.com"],
        vec!["consensus", "markdown-digest", &json],
        vec!["--help"],
        vec!["jcs", "--help"],
        vec!["--version"],
    ];
    for args in &cases {
        let full = std::fs::OpenOptions::new().write(true).open("/dev/full").unwrap();
        let o = bin().args(args).stdin(Stdio::null()).stdout(full).stderr(Stdio::piped()).output().unwrap();
        assert_one_line_error(&o, 2, &format!("{args:?}"));
        let err = stderr(&o);
        assert!(err.contains("stdout") && err.contains("No space left on device"), "{args:?}: {err}");
    }
}

/// Spawns `args` with piped stdout, reads `keep` bytes, closes the pipe and waits.
fn close_early(args: &[&str], keep: usize) -> Output {
    let mut child =
        bin().args(args).stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    let mut reader = child.stdout.take().unwrap();
    let mut head = vec![0u8; keep];
    reader.read_exact(&mut head).unwrap();
    drop(reader);
    let mut err = Vec::new();
    child.stderr.take().unwrap().read_to_end(&mut err).unwrap();
    Output { status: child.wait().unwrap(), stdout: head, stderr: err }
}

#[test]
fn a_closed_pipe_ends_quietly_with_the_commands_own_status() {
    // Far more output than a pipe buffers (64 KiB on Linux), so the writes meet EPIPE.
    let mut big = b"[".to_vec();
    for i in 0..200_000 {
        big.extend_from_slice(format!("{{\"n\":{i},\"s\":\"abc\"}},").as_bytes());
    }
    big.extend_from_slice(b"{}]");
    let big = file("big.json", &big);
    let o = close_early(&["jcs", &big], 1);
    assert_eq!(o.stdout, b"[");
    assert_no_panic(&o, "jcs");
    assert_eq!(o.status.code(), Some(0), "jcs: {}", stderr(&o));
    assert_eq!(stderr(&o), "", "a closed pipe is not reported");

    let mut lines = Vec::new();
    for i in 0..20_000 {
        lines.extend_from_slice(format!("{{\"b\":{i},\"a\":[1,2,3,4,5,6,7,8,9]}}\n").as_bytes());
    }
    let lines = file("lines.jsonl", &lines);
    let o = close_early(&["jcs", "--lines", &lines], 10);
    assert_no_panic(&o, "jcs --lines");
    assert_eq!((o.status.code(), stderr(&o).as_str()), (Some(0), ""));

    // The conformance report is larger than a pipe buffer too; its status is the suite's
    // verdict, the same as when the whole report is read.
    let whole = bin().args(["conformance", "--json"]).stdin(Stdio::null()).output().unwrap();
    assert!(whole.stdout.len() > 256 * 1024, "{}", whole.stdout.len());
    let o = close_early(&["conformance", "--json"], 10);
    assert_eq!(o.stdout, whole.stdout[..10]);
    assert_no_panic(&o, "conformance --json");
    assert_eq!(o.status.code(), whole.status.code(), "{}", stderr(&o));
    assert_eq!(stderr(&o), stderr(&whole));
}

#[cfg(target_os = "linux")]
#[test]
fn a_failing_stderr_does_not_panic() {
    let full = || std::fs::OpenOptions::new().write(true).open("/dev/full").unwrap();
    // A rejected signature exits 1; a panic while reporting it would exit 101 (or 2 through
    // the last-resort hook).
    let key = file("key.json", &bin().args(["keygen", "--seed", SEED]).output().unwrap().stdout);
    let signed = bin().args(["sign", "--key", &key, &file("msg.json", br#"{"price": 2050}"#)]).output().unwrap().stdout;
    let tampered = file("tampered.json", &String::from_utf8(signed).unwrap().replace("2050", "2051").into_bytes());
    let o = bin()
        .args(["verify", "--public-key", "11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo=", &tampered])
        .stderr(full())
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1));
    // Diagnostics on the way (a refused room event) do not stop the command: the outcome
    // still reaches stdout.
    let d = "ab".repeat(32);
    let room = format!(
        r#"{{"revision": 1, "digest": "{d}", "deadline": "2026-09-10T00:00:00Z",
  "roster": [{{"id": "p1", "kind": "human"}}, {{"id": "p2", "kind": "agent"}}],
  "events": [{{"participant": "p9", "action": "agree", "body": "", "revision": 1, "digest": "{d}", "at": "2026-09-06T12:00:00Z"}}]}}"#
    );
    let room = file("room.json", room.as_bytes());
    let args = ["consensus", "outcome", &room, "--now", "2026-09-07T00:00:00Z"];
    let seen = bin().args(args).output().unwrap();
    assert_eq!(stderr(&seen).trim(), "event 0: 404 not_found");
    let o = bin().args(args).stderr(full()).output().unwrap();
    assert_eq!((o.status.code(), o.stdout.as_slice()), (Some(0), &b"pending\n"[..]));
}

/// Runs `args` with `input` on stdin.
fn run(args: &[&str], input: &[u8]) -> Output {
    let mut child =
        bin().args(args).stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    let _ = child.stdin.take().unwrap().write_all(input);
    child.wait_with_output().unwrap()
}

#[test]
fn nesting_depth_is_the_cores_one_policy() {
    let limit = DEFAULT_MAX_DEPTH as usize;
    assert_eq!(limit, 128);
    for depth in [1, 100, 127, limit] {
        let o = run(&["jcs"], &nested(depth));
        assert_eq!(o.status.code(), Some(0), "depth {depth}: {}", stderr(&o));
        assert_eq!(o.stdout, nested(depth));
        assert_eq!(run(&["hash"], &nested(depth)).status.code(), Some(0), "depth {depth}");
    }
    for depth in [limit + 1, 200, 400, 512, 600] {
        let o = run(&["jcs"], &nested(depth));
        assert_one_line_error(&o, 2, &format!("depth {depth}"));
        let err = stderr(&o);
        // Refused at the opening bracket that goes one level too deep.
        assert!(err.contains(&format!("byte {limit}")) && err.contains("nesting depth"), "depth {depth}: {err}");
        assert_eq!(run(&["hash"], &nested(depth)).status.code(), Some(2), "depth {depth}");
    }
    // JSON Lines: the same policy, reported per line.
    let mut input = nested(limit);
    input.push(b'\n');
    input.extend_from_slice(&nested(limit + 1));
    input.push(b'\n');
    let o = run(&["jcs", "--lines"], &input);
    assert_eq!(o.status.code(), Some(0));
    let out = String::from_utf8(o.stdout).unwrap();
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines[0].as_bytes(), nested(limit));
    assert!(lines[1].starts_with(&format!("!error limit {limit} ")), "{}", lines[1]);
    // A signed object one level too deep is refused by `verify` as malformed input (exit 2),
    // never judged.
    let deep = format!(r#"{{"a": {}, "signature": "x"}}"#, String::from_utf8(nested(limit)).unwrap());
    let o = run(&["verify", "--public-key", "11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo="], deep.as_bytes());
    assert_one_line_error(&o, 2, "verify at depth 129");
    assert!(stderr(&o).contains("byte 133"), "{}", stderr(&o));
}
