//! Issue 19: `aip open` checks freshness by default and, with `--replay-store`, refuses
//! replays across invocations (locked, atomically updated, fail closed on a corrupt store);
//! `aip vc verify --proof-only` on W3C's eddsa-jcs-2022 vector.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::PathBuf;
use std::process::{Command, Output, Stdio};

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_concordia")).args(args).output().unwrap()
}

fn code(o: &Output) -> i32 {
    o.status.code().unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// A directory of its own for each test (tests run in parallel).
fn dir(test: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("concordia-aip-replay-{test}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn s(p: &std::path::Path) -> String {
    p.to_str().unwrap().to_string()
}

/// Alice (sender) and Bob (recipient): key files and DID Documents in a test directory.
struct Pair {
    d: PathBuf,
    alice_key: String,
    alice_doc: String,
    bob_key: String,
    bob_doc: String,
}

impl Pair {
    fn new(test: &str) -> Pair {
        let d = dir(test);
        let mut keys = Vec::new();
        for (name, did) in [("alice", "did:aip:aigentix.org:alice"), ("bob", "did:aip:example.org:bob")] {
            let doc = s(&d.join(format!("{name}.doc.json")));
            let o = run(&["aip", "keygen", "--did", did, "--doc", &doc]);
            assert_eq!(code(&o), 0, "{}", stderr(&o));
            let key = d.join(format!("{name}.key.json"));
            std::fs::write(&key, &o.stdout).unwrap();
            keys.push((s(&key), doc));
        }
        std::fs::write(d.join("msg.json"), br#"{"type": "aip.message", "text": "hi"}"#).unwrap();
        let (bob_key, bob_doc) = keys.pop().unwrap();
        let (alice_key, alice_doc) = keys.pop().unwrap();
        Pair { d, alice_key, alice_doc, bob_key, bob_doc }
    }

    /// Seals a message from alice to bob; `created` None: now.
    fn seal(&self, name: &str, created: Option<&str>) -> String {
        let msg = s(&self.d.join("msg.json"));
        let mut args = vec!["aip", "seal", "--to", &self.bob_doc, "--key", &self.alice_key];
        if let Some(c) = created {
            args.extend(["--created-at", c]);
        }
        args.push(&msg);
        let o = run(&args);
        assert_eq!(code(&o), 0, "{}", stderr(&o));
        let p = self.d.join(name);
        std::fs::write(&p, &o.stdout).unwrap();
        s(&p)
    }

    fn open_args<'a>(&'a self, env: &'a str, extra: &[&'a str]) -> Vec<&'a str> {
        let mut args = vec!["aip", "open", "--key", &self.bob_key, "--from", &self.alice_doc];
        args.extend_from_slice(extra);
        args.push(env);
        args
    }

    fn open(&self, env: &str, extra: &[&str]) -> Output {
        run(&self.open_args(env, extra))
    }
}

#[test]
fn stale_and_future_envelopes_are_refused_by_default() {
    let p = Pair::new("stale");
    let old = p.seal("old.json", Some("2019-01-01T00:00:00Z"));
    let o = p.open(&old, &[]);
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    assert!(stderr(&o).contains("older than the 600 s replay window"), "{}", stderr(&o));
    assert_eq!(stderr(&o).lines().count(), 1);
    // --now overrides the clock; the bounds are the window's (600 s old, 300 s ahead).
    assert_eq!(code(&p.open(&old, &["--now", "2019-01-01T00:10:00Z"])), 0);
    assert_eq!(code(&p.open(&old, &["--now", "2019-01-01T00:10:01Z"])), 1);
    assert_eq!(code(&p.open(&old, &["--now", "2018-12-31T23:55:00Z"])), 0);
    let o = p.open(&old, &["--now", "2018-12-31T23:54:59Z"]);
    assert_eq!(code(&o), 1);
    assert!(stderr(&o).contains("in the future"), "{}", stderr(&o));
    // A fresh envelope opens against the clock.
    let fresh = p.seal("fresh.json", None);
    let o = p.open(&fresh, &[]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert_eq!(String::from_utf8_lossy(&o.stdout), r#"{"text":"hi","type":"aip.message"}"#);
    assert_eq!(code(&p.open(&fresh, &["--now", "yesterday"])), 2);
    assert_eq!(code(&p.open(&fresh, &["--new-replay-store"])), 2, "--new-replay-store needs a store");
}

#[test]
fn replay_across_two_processes_is_refused() {
    let p = Pair::new("two");
    let store = s(&p.d.join("replay.store"));
    let env = p.seal("env.json", None);
    let o = p.open(&env, &["--replay-store", &store, "--new-replay-store"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(std::path::Path::new(&store).exists());
    let o = p.open(&env, &["--replay-store", &store]);
    assert_eq!(code(&o), 1);
    assert!(stderr(&o).contains("a replay"), "{}", stderr(&o));
    assert_eq!(stderr(&o).lines().count(), 1);
    assert!(o.stdout.is_empty(), "a replay prints no body");
    // Another envelope still opens with the same store.
    let other = p.seal("other.json", None);
    assert_eq!(code(&p.open(&other, &["--replay-store", &store])), 0);
    assert_eq!(code(&p.open(&other, &["--replay-store", &store])), 1);
    // Without the store, no memory across processes (freshness only).
    assert_eq!(code(&p.open(&env, &[])), 0);
}

#[test]
fn four_concurrent_opens_accept_exactly_one() {
    let p = Pair::new("four");
    let store = s(&p.d.join("replay.store"));
    let env = p.seal("env.json", None);
    // Create the store first (empty, not guarded), then race four processes on it.
    let warm = p.seal("warm.json", None);
    assert_eq!(code(&p.open(&warm, &["--replay-store", &store, "--new-replay-store"])), 0);
    for round in 0..3 {
        let env = if round == 0 { env.clone() } else { p.seal(&format!("env{round}.json"), None) };
        let children: Vec<_> = (0..4)
            .map(|_| {
                Command::new(env!("CARGO_BIN_EXE_concordia"))
                    .args(p.open_args(&env, &["--replay-store", &store]))
                    .stdout(Stdio::piped())
                    .stderr(Stdio::piped())
                    .spawn()
                    .unwrap()
            })
            .collect();
        let outs: Vec<Output> = children.into_iter().map(|c| c.wait_with_output().unwrap()).collect();
        let mut codes: Vec<i32> = outs.iter().map(code).collect();
        codes.sort_unstable();
        assert_eq!(codes, vec![0, 1, 1, 1], "{:?}", outs.iter().map(stderr).collect::<Vec<_>>());
        for o in outs.iter().filter(|o| code(o) == 1) {
            assert!(stderr(o).contains("a replay"), "{}", stderr(o));
        }
    }
}

#[test]
fn corrupt_store_is_refused_and_missing_store_starts_cold() {
    let p = Pair::new("corrupt");
    let store = p.d.join("replay.store");
    let store_s = s(&store);
    let env = p.seal("env.json", Some("2026-03-01T12:00:00Z"));
    // A missing store starts cold: an envelope created before the start, at it, or up to
    // 300 s after it (issue 32: the lost store could have accepted those) is refused.
    let o = p.open(&env, &["--replay-store", &store_s, "--now", "2026-03-01T12:00:05Z"]);
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    assert!(stderr(&o).contains("cold-start guard") && stderr(&o).contains("started cold"), "{}", stderr(&o));
    assert!(store.exists(), "the cold start is kept");
    let ahead = p.seal("ahead.json", Some("2026-03-01T12:05:05Z"));
    let o = p.open(&ahead, &["--replay-store", &store_s, "--now", "2026-03-01T12:00:06Z"]);
    assert_eq!(code(&o), 1, "dated ahead within the skew of the start: {}", stderr(&o));
    // The start is the first open's, not each open's: one created after the guard opens.
    let later = p.seal("later.json", Some("2026-03-01T12:05:06Z"));
    let o = p.open(&later, &["--replay-store", &store_s, "--now", "2026-03-01T12:01:00Z"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let good = std::fs::read(&store).unwrap();
    // Corrupt, truncated, empty and foreign stores: exit 2, one line, and the store is left
    // as it is (fail closed: nothing is opened until it is removed).
    let mut flipped = good.clone();
    flipped[50] ^= 1;
    for (what, bytes) in [
        ("flipped", flipped),
        ("truncated", good[..good.len() - 3].to_vec()),
        ("empty", Vec::new()),
        ("text", b"{}".to_vec()),
    ] {
        std::fs::write(&store, &bytes).unwrap();
        let other = p.seal("other.json", None);
        let o = p.open(&other, &["--replay-store", &store_s]);
        assert_eq!(code(&o), 2, "{what}: {}", stderr(&o));
        assert_eq!(stderr(&o).lines().count(), 1, "{what}");
        assert!(
            stderr(&o).contains("replay store") && stderr(&o).contains("remove the store"),
            "{what}: {}",
            stderr(&o)
        );
        assert!(o.stdout.is_empty());
        assert_eq!(std::fs::read(&store).unwrap(), bytes, "{what}: left as it was");
    }
    // The intact store still refuses the replay.
    std::fs::write(&store, &good).unwrap();
    assert_eq!(code(&p.open(&later, &["--replay-store", &store_s, "--now", "2026-03-01T12:05:06Z"])), 1);
}

/// The `id` member of an envelope file.
fn envelope_id(path: &str) -> String {
    let text = std::fs::read_to_string(path).unwrap();
    let at = text.find("\"id\":\"").unwrap() + 6;
    text[at..at + 36].to_string()
}

/// Issue 32 (class 5): entries are keyed by sender and id: Mallory's envelope with Alice's
/// id, opened first, does not make Alice's genuine envelope a replay.
#[test]
fn another_senders_copy_of_an_id_is_not_a_replay() {
    let p = Pair::new("sender");
    let store = s(&p.d.join("replay.store"));
    let env = p.seal("env.json", None);
    let id = envelope_id(&env);
    let mdoc = s(&p.d.join("mallory.doc.json"));
    let o = run(&["aip", "keygen", "--did", "did:aip:evil.example:mallory", "--doc", &mdoc]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let mkey = p.d.join("mallory.key.json");
    std::fs::write(&mkey, &o.stdout).unwrap();
    let msg = s(&p.d.join("msg.json"));
    let o = run(&["aip", "seal", "--to", &p.bob_doc, "--key", &s(&mkey), "--id", &id, &msg]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let copy = s(&p.d.join("copy.json"));
    std::fs::write(&copy, &o.stdout).unwrap();
    assert_eq!(envelope_id(&copy), id);
    let o = run(&[
        "aip",
        "open",
        "--key",
        &p.bob_key,
        "--from",
        &mdoc,
        "--replay-store",
        &store,
        "--new-replay-store",
        &copy,
    ]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let o = p.open(&env, &["--replay-store", &store]);
    assert_eq!(code(&o), 0, "Alice's envelope is not Mallory's: {}", stderr(&o));
    assert_eq!(code(&p.open(&env, &["--replay-store", &store])), 1, "her own copy is a replay");
}

/// Issue 32 (class 3): a symlink to the store is the same store; a store with a second hard
/// link is refused (exit 2, one line).
#[cfg(unix)]
#[test]
fn symlinked_store_is_one_store_and_hard_links_are_refused() {
    let p = Pair::new("links");
    let store = p.d.join("replay.store");
    let link = s(&p.d.join("link.store"));
    let env = p.seal("env.json", None);
    let other = p.seal("other.json", None);
    assert_eq!(code(&p.open(&other, &["--replay-store", &s(&store), "--new-replay-store"])), 0);
    std::os::unix::fs::symlink(&store, &link).unwrap();
    assert_eq!(code(&p.open(&env, &["--replay-store", &link])), 0);
    assert!(std::fs::symlink_metadata(&link).unwrap().file_type().is_symlink(), "the link is kept");
    let o = p.open(&env, &["--replay-store", &s(&store)]);
    assert_eq!(code(&o), 1, "opened through the link, a replay through the real path: {}", stderr(&o));
    std::fs::hard_link(&store, p.d.join("second.store")).unwrap();
    let fresh = p.seal("fresh.json", None);
    let o = p.open(&fresh, &["--replay-store", &s(&store)]);
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    assert!(stderr(&o).contains("hard links") && stderr(&o).lines().count() == 1, "{}", stderr(&o));
    assert!(o.stdout.is_empty());
}

/// Issue 32 (class 4): with --replay-mac-key and --replay-generation, an older copy of the
/// store, another agent's store and a store without the MAC are refused (exit 2).
#[test]
fn sealed_store_refuses_rollback_and_swap() {
    let p = Pair::new("sealed");
    let store = p.d.join("replay.store");
    let store_s = s(&store);
    let key = s(&p.d.join("mac.key"));
    std::fs::write(&key, [0x5au8; 32]).unwrap();
    let generation = s(&p.d.join("replay.generation"));
    let sealed = |extra: &[&'static str]| {
        let mut v: Vec<String> = vec!["--replay-store".into(), store_s.clone(), "--replay-mac-key".into(), key.clone()];
        v.extend(["--replay-generation".into(), generation.clone()]);
        v.extend(extra.iter().map(|x| x.to_string()));
        v
    };
    let open = |env: &str, extra: &[&'static str]| {
        let args = sealed(extra);
        let refs: Vec<&str> = args.iter().map(String::as_str).collect();
        p.open(env, &refs)
    };
    let first = p.seal("first.json", None);
    let o = open(&first, &["--new-replay-store"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert_eq!(std::fs::read_to_string(&generation).unwrap(), "1\n");
    let old = std::fs::read(&store).unwrap();
    let env = p.seal("env.json", None);
    assert_eq!(code(&open(&env, &[])), 0);
    assert_eq!(std::fs::read_to_string(&generation).unwrap(), "2\n");
    // Rollback: the older copy (which does not remember `env`) is refused.
    let current = std::fs::read(&store).unwrap();
    std::fs::write(&store, &old).unwrap();
    let o = open(&env, &[]);
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    assert!(stderr(&o).contains("rolled back"), "{}", stderr(&o));
    // An unsealed store (here: another recipient's plain store) is refused with the key.
    std::fs::remove_file(&store).unwrap();
    assert_eq!(code(&p.open(&first, &["--replay-store", &store_s, "--new-replay-store"])), 0);
    let o = open(&env, &[]);
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    assert!(stderr(&o).contains("MAC"), "{}", stderr(&o));
    // The genuine store still refuses the replay; without the key it is refused too.
    std::fs::write(&store, &current).unwrap();
    assert_eq!(code(&open(&env, &[])), 1);
    assert_eq!(code(&p.open(&env, &["--replay-store", &store_s])), 2);
    // A short key is a usage error.
    std::fs::write(&key, b"short").unwrap();
    assert_eq!(code(&open(&env, &[])), 2);
}

fn w3c(name: &str) -> String {
    s(&PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../core/tests/data/w3c-vc-di-eddsa/eddsa-jcs-2022").join(name))
}

#[test]
fn w3c_eddsa_jcs_2022_vector_verifies_proof_only() {
    let signed = w3c("signedJCS.json");
    let o = run(&["aip", "vc", "verify", "--proof-only", &signed]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert_eq!(
        String::from_utf8_lossy(&o.stdout),
        "{\"verified\": true, \"proof_only\": true, \"verification_method\": \"did:key:z6MkrJVnaZkeFzdQyMZu1cgjg7k1pZZ6pvBQ7XJPt4swbTQ2#z6MkrJVnaZkeFzdQyMZu1cgjg7k1pZZ6pvBQ7XJPt4swbTQ2\", \"issuer\": \"https://vc.example/issuers/5678\", \"issuer_binding\": \"unchecked\"}\n"
    );
    // The default stays strict: the https issuer is not the proof's did:key.
    let o = run(&["aip", "vc", "verify", &signed]);
    assert_eq!(code(&o), 1);
    assert!(stderr(&o).contains("issuer"), "{}", stderr(&o));
    // A tampered copy fails with --proof-only too.
    let d = dir("w3c");
    let text = std::fs::read_to_string(&signed).unwrap();
    let tampered = d.join("tampered.json");
    std::fs::write(&tampered, text.replace("The School of Examples", "The School of Exemples")).unwrap();
    let o = run(&["aip", "vc", "verify", "--proof-only", &s(&tampered)]);
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    // --proof-only does not take the strict checks' options.
    assert_eq!(code(&run(&["aip", "vc", "verify", "--proof-only", "--now", "2024-01-01T00:00:00Z", &signed])), 2);
}
