//! Memory sized to need (issue 15), on the `concordia` binary:
//!
//! * `jcs` on a top-level array streams, and its output and verdict are those of the whole
//!   document, on the RFC 8785 corpus, the conformance vectors and damaged arrays;
//! * each error path with a small input: an input over `--max-input`, garbage, a truncated
//!   input, on `jcs`, `chain verify` and a whole-input command (`hash`);
//! * `chain verify` of a generated transcript of thousands of messages under an
//!   address-space limit far below the transcript's size succeeds, while reading the same
//!   file whole under that limit is a one-line "not enough memory" error (exit 2), not an
//!   abort.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use concordia_core::json::{self, Node};
use concordia_core::message::{message_hash, Envelope, Party};
use concordia_core::sign::KeyPair;
use concordia_host::{canonical, Nodes};

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_concordia"))
}

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn tmp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("concordia-cli-streaming-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

fn file(name: &str, bytes: &[u8]) -> PathBuf {
    let p = tmp(name);
    std::fs::write(&p, bytes).unwrap();
    p
}

fn run(args: &[&str]) -> Output {
    bin().args(args).output().unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// `concordia jcs` on `text` gives the whole document's canonical form, or exit 2 with its
/// error and byte offset.
fn jcs_agrees(text: &[u8], label: &str) {
    let p = file("jcs-input.json", text);
    let out = run(&["jcs", p.to_str().unwrap()]);
    let mut nodes = Nodes::new();
    match nodes.parse(text).and_then(|doc| canonical(doc.root())) {
        Ok(want) => {
            assert_eq!(out.status.code(), Some(0), "{label}: {}", stderr(&out));
            assert!(out.stdout == want, "{label}: output differs");
        }
        Err(e) => {
            assert_eq!(out.status.code(), Some(2), "{label}: {e}");
            assert!(stderr(&out).ends_with(&format!(": {e}\n")), "{label}: {} vs {e}", stderr(&out));
            // Output is held until it reaches 1 MiB: a smaller one is never written on error.
            assert!(out.stdout.is_empty() || text.len() > 1 << 20, "{label}: output on error");
        }
    }
}

fn json_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let p = entry.unwrap().path();
        if p.is_dir() {
            json_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "json") {
            out.push(p);
        }
    }
}

#[test]
fn jcs_streams_with_the_whole_documents_output_on_the_corpora() {
    let mut files = Vec::new();
    json_files(&repo().join("core/tests/data/rfc8785"), &mut files);
    json_files(&repo().join("conformance/vectors"), &mut files);
    files.sort();
    assert!(files.len() > 100, "corpora not found");
    // All files in one array (every element through the streaming path), and each file on
    // its own (arrays stream, other values are read whole).
    let mut all = b"[".to_vec();
    let mut arrays = 0;
    for (i, f) in files.iter().enumerate() {
        let text = std::fs::read(f).unwrap();
        if i > 0 {
            all.extend_from_slice(b",\n");
        }
        all.extend_from_slice(&text);
        if text.trim_ascii_start().starts_with(b"[") {
            arrays += 1;
        }
        if i % 8 == 0 || text.trim_ascii_start().starts_with(b"[") {
            jcs_agrees(&text, &f.display().to_string());
        }
    }
    all.push(b']');
    assert!(arrays > 0);
    jcs_agrees(&all, "all corpus files in one array");
    // Damaged: truncated at several points, a separator replaced, junk after `]`, NUL
    // bytes, invalid UTF-8 far behind an early error.
    for cut in [1, 2, all.len() / 3, all.len() / 2, all.len() - 1] {
        jcs_agrees(&all[..cut], &format!("truncated at {cut}"));
    }
    let comma = all.iter().position(|&b| b == b'\n').unwrap() - 1;
    let mut bad = all.clone();
    bad[comma] = b';';
    jcs_agrees(&bad, "bad separator");
    let mut junk = all.clone();
    junk.extend_from_slice(b" x");
    jcs_agrees(&junk, "junk after ]");
    let mut late = bad.clone();
    late.push(0xFF);
    jcs_agrees(&late, "invalid UTF-8 after the first error");
    jcs_agrees(&[0u8; 4096], "NUL bytes");
}

#[test]
fn jcs_lines_streams() {
    let p = file("lines.jsonl", b"{\"b\":1,\"a\":2}\n\n[1 2]\n{}");
    let out = run(&["jcs", "--lines", p.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        "{\"a\":2,\"b\":1}\n!error input 0 malformed JSON at byte 0: unexpected end of input\n!error input 3 malformed JSON at byte 3: unexpected byte\n{}\n"
    );
}

#[test]
fn error_paths_with_small_inputs() {
    let array = file("small.json", b"[{\"a\":1},{\"b\":[true,null]}]");
    let a = array.to_str().unwrap();
    // Over the cap: exit 2, one line naming the size, on the streaming and the whole path;
    // the cap goes before or after the command.
    for args in [
        &["--max-input", "10", "jcs", a][..],
        &["jcs", a, "--max-input=10"],
        &["--max-input", "10", "hash", a],
        &["--max-input", "10", "chain", "verify", "--keys", a, a],
    ] {
        let out = run(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(stderr(&out).contains("input larger than --max-input (10 bytes)"), "{args:?}: {}", stderr(&out));
        assert!(out.stdout.is_empty());
    }
    assert_eq!(run(&["--max-input", "1K", "jcs", a]).status.code(), Some(0));
    let out = run(&["--max-input", "ten", "jcs", a]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("--max-input: expected a positive number"));
    // Garbage and a truncated input: the whole document's error and offset.
    let garbage = file("garbage.bin", &[0u8; 1000]);
    let truncated = file("truncated.json", b"[{\"a\":1},{\"b\":[tr");
    let keys = file("keys.json", b"{}");
    for (path, want) in [
        (&garbage, "malformed JSON at byte 0: unexpected byte"),
        (&truncated, "malformed JSON at byte 17: unexpected end of input"),
    ] {
        let p = path.to_str().unwrap();
        for args in [&["jcs", p][..], &["hash", p], &["chain", "verify", "--keys", keys.to_str().unwrap(), p]] {
            let out = run(args);
            assert_eq!(out.status.code(), Some(2), "{args:?}");
            assert!(stderr(&out).contains(want), "{args:?}: {}", stderr(&out));
        }
    }
}

/// A signed, hash-chained transcript of `count` messages, each with `pad` bytes of text in
/// its body, and its key map.
fn transcript(count: usize, pad: usize) -> (Vec<u8>, Vec<u8>) {
    let seller = KeyPair::from_seed(&[7u8; 32]);
    let buyer = KeyPair::from_seed(&[9u8; 32]);
    let body_text =
        format!("{{\"terms\":{{\"price\":{{\"value\":2050,\"currency\":\"USD\"}},\"note\":\"{}\"}}}}", "x".repeat(pad));
    let mut body_nodes = [Node::EMPTY; 16];
    let body = json::parse(body_text.as_bytes(), &mut body_nodes).unwrap();
    let mut out = b"[".to_vec();
    let mut buf = vec![0u8; pad + 4096];
    let mut nodes = vec![Node::EMPTY; 64];
    let mut prev = concordia_core::message::GENESIS_HASH;
    for i in 0..count {
        let (who, key) = if i % 2 == 0 { ("seller", &seller) } else { ("buyer", &buyer) };
        let id = format!("msg_{i}");
        let mut env =
            Envelope::new("negotiate.counter", &id, "ses_stream", "2026-03-21T14:30:00Z", Party::new(who), body.root());
        env.prev_hash = prev;
        let n = env.write_signed(key, &mut buf).unwrap();
        let doc = json::parse(&buf[..n], &mut nodes).unwrap();
        prev = message_hash(doc.root());
        if i > 0 {
            out.extend_from_slice(b",\n");
        }
        out.extend_from_slice(&buf[..n]);
    }
    out.push(b']');
    let keys = format!(
        "{{\"seller\":\"{}\",\"buyer\":\"{}\"}}",
        seller.public_key().to_b64url().as_str(),
        buyer.public_key().to_b64url().as_str()
    );
    (out, keys.into_bytes())
}

/// Runs the binary with its address space limited to `kib` KiB (`ulimit -v`).
fn run_limited(kib: u64, args: &[&str]) -> Output {
    Command::new("sh")
        .arg("-c")
        .arg(format!("ulimit -v {kib} && exec \"$0\" \"$@\""))
        .arg(env!("CARGO_BIN_EXE_concordia"))
        .args(args)
        .output()
        .unwrap()
}

#[test]
fn chain_verify_streams_a_transcript_far_larger_than_its_address_space() {
    let (text, keys) = transcript(4000, 8000);
    assert!(text.len() > 32_000_000, "{} bytes", text.len());
    let t = file("big-transcript.json", &text);
    let k = file("big-keys.json", &keys);
    let (t, k) = (t.to_str().unwrap(), k.to_str().unwrap());
    let limit_kib = 16 * 1024;
    let out = run_limited(limit_kib, &["chain", "verify", "--keys", k, t]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(String::from_utf8_lossy(&out.stdout).starts_with("ok: 4000 messages, head sha256:"));
    // The same transcript as JSON Lines, and from stdin.
    let lines: Vec<u8> = text[1..text.len() - 1]
        .split(|&b| b == b'\n')
        .flat_map(|l| {
            let l = l.strip_suffix(b",").unwrap_or(l);
            l.iter().copied().chain([b'\n'])
        })
        .collect();
    let l = file("big-transcript.jsonl", &lines);
    let out = run_limited(limit_kib, &["chain", "verify", "--lines", "--keys", k, l.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let out = Command::new("sh")
        .arg("-c")
        .arg(format!("ulimit -v {limit_kib} && exec \"$0\" chain verify --keys \"$1\" < \"$2\""))
        .arg(env!("CARGO_BIN_EXE_concordia"))
        .args([k, t])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    // Reading it whole under the same limit is refused with one line, exit 2, no abort.
    let out = run_limited(limit_kib, &["hash", t]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("not enough memory for the input"), "{}", stderr(&out));
    // A broken link late in the stream is exit 1, naming the message.
    let mut broken = text.clone();
    let key = b"\"signature\":\"";
    let sig = broken.windows(key.len()).rposition(|w| w == key).unwrap() + key.len();
    broken[sig] = if broken[sig] == b'A' { b'B' } else { b'A' };
    let b = file("broken-transcript.json", &broken);
    let out = run_limited(limit_kib, &["chain", "verify", "--keys", k, b.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(stderr(&out).contains("message 3999"), "{}", stderr(&out));
}
