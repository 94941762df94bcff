//! End-to-end tests of `concordia consensus ...`: outputs and exit codes (0 ok, 1 rejected
//! or invalid, 2 usage or malformed input; a core error by its class).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::PathBuf;
use std::process::{Command, Output};

const ID: &str = "3f2b8c1e-5d4a-4e7b-9c2f-1a2b3c4d5e6f";
const SECRET: &str = "6_asp1MbRl66oRMolZ2m4ep4Q3azK7nvIuj-2X7NjlA";
const PROOF: &str = "ep_7Yc2kQ";

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_concordia")).args(args).output().unwrap()
}

fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8(o.stderr.clone()).unwrap()
}

fn file(name: &str, bytes: &[u8]) -> String {
    let dir = std::env::temp_dir().join(format!("concordia-consensus-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p: PathBuf = dir.join(name);
    std::fs::write(&p, bytes).unwrap();
    p.to_str().unwrap().to_string()
}

/// The exit status the CLI's class rule gives a core error: 2 for input and limit, 1 for
/// every protocol reason class.
fn exit_for(e: concordia_core::Error) -> i32 {
    use concordia_core::Class;
    match e.class() {
        Class::Input | Class::Limit => 2,
        _ => 1,
    }
}

/// The class rule's exit status for an invitation email (0 when every check passes).
fn invitation_exit(text: &str, origin: &str) -> i32 {
    use concordia_core::consensus::invitation::{Invitation, Origin};
    let origin = Origin::new(origin).unwrap();
    match Invitation::parse(text.as_bytes(), &origin).and_then(|inv| inv.checks().result()) {
        Ok(()) => 0,
        Err(e) => exit_for(e),
    }
}

fn email(invite_uri: &str) -> String {
    format!(
        "Hello,\n\n---BEGIN CONSENSUS INVITATION V1---\n{{\n  \"schema\": \"https://consensus.md/schemas/invitation-email/v1\",\n  \"invitation_id\": \"{ID}\",\n  \"invite_uri\": \"{invite_uri}\",\n  \"agent_exchange\": {{\"method\": \"POST\", \"href\": \"https://consensus.md/api/v1/agent/invitations/{ID}/exchange\"}},\n  \"agent_claim\": {{\"email_proof\": \"{PROOF}\", \"meaning\": \"A private proof.\"}}\n}}\n---END CONSENSUS INVITATION V1---\n"
    )
}

#[test]
fn digests_match_a_javascript_venue() {
    // Expected values from Node.js: JSON.stringify of the recursively key-sorted value,
    // SHA-256 over its UTF-8.
    let f = file("t.json", "{\"b\":[1.5,1e21,\"é😀\"],\"a\":{\"ﬁ\":1,\"é\":2,\"😀\":3}}".as_bytes());
    let o = run(&["consensus", "digest", &f]);
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(stdout(&o).trim(), "0ec09a2b62179cf840ad29d9872f43cb317f8a61fbc7d0da8eebd88b7fb389d1");
    let o = run(&["consensus", "digest", &file("bad.json", b"{\"a\":1,\"a\":2}")]);
    assert_eq!(o.status.code(), Some(2));
    // Markdown: exact bytes, including CR and the missing final newline.
    let o = run(&["consensus", "markdown-digest", &file("m.md", b"# T\r\nbody")]);
    assert_eq!(stdout(&o).trim(), sha256_hex(b"# T\r\nbody"));
    assert_ne!(sha256_hex(b"# T\r\nbody"), sha256_hex(b"# T\nbody"));
    assert_eq!(run(&["consensus", "digest"]).status.code(), Some(2));
}

fn sha256_hex(b: &[u8]) -> String {
    concordia_core::digest::sha256(b).to_hex().as_str().to_string()
}

#[test]
fn invitation_summary_never_contains_secrets() {
    let ok = file("ok.txt", email(&format!("https://consensus.md/i/{ID}#secret={SECRET}")).as_bytes());
    let o = run(&["consensus", "invitation", &ok]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.contains(&format!("\"invitation_id\":\"{ID}\"")) && out.contains("\"valid\":true"), "{out}");
    assert!(out.contains(&format!("\"exchange_href\":\"https://consensus.md/api/v1/agent/invitations/{ID}/exchange\"")));
    let cases = [
        ("origin.txt", format!("https://consensus.md.evil.example/i/{ID}#secret={SECRET}"), "\"origin\":false"),
        ("uuid.txt", format!("https://consensus.md/i/{}#secret={SECRET}", ID.replace('f', "0")), "\"uuids\":false"),
        ("query.txt", format!("https://consensus.md/i/{ID}?secret={SECRET}"), "\"no_query\":false"),
        ("frag.txt", format!("https://consensus.md/i/{ID}#secret={SECRET}+/"), "\"secret\":false"),
    ];
    for (name, uri, failed) in cases {
        let o = run(&["consensus", "invitation", &file(name, email(&uri).as_bytes())]);
        // Each failed check exits by its error's class: a foreign origin, differing UUIDs or
        // a query string are binding/privacy failures (1); a secret that does not decode
        // is an encoding error (2) while the core classes it as input.
        let want = invitation_exit(&email(&uri), concordia_core::consensus::DEFAULT_ORIGIN);
        assert_ne!(want, 0, "{name}");
        if name != "frag.txt" {
            assert_eq!(want, 1, "{name}");
        }
        assert_eq!(o.status.code(), Some(want), "{name}");
        let (out, err) = (stdout(&o), stderr(&o));
        assert!(out.contains(failed) && out.contains("\"valid\":false"), "{name}: {out}");
        for text in [&out, &err] {
            assert!(!text.contains(SECRET) && !text.contains(PROOF), "{name}: {text}");
        }
    }
    // An email without the invitation block is a schema miss: 1.
    let o = run(&["consensus", "invitation", &file("none.txt", b"no block here")]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(invitation_exit("no block here", concordia_core::consensus::DEFAULT_ORIGIN), 1);
    let staging = email(&format!("https://staging.example/i/{ID}#secret={SECRET}"))
        .replace("consensus.md/api", "staging.example/api");
    let f = file("staging.txt", staging.as_bytes());
    assert_eq!(run(&["consensus", "invitation", &f]).status.code(), Some(1));
    assert_eq!(run(&["consensus", "invitation", &f, "--origin", "https://staging.example"]).status.code(), Some(0));
    assert_eq!(run(&["consensus", "invitation", &f, "--origin", "http://staging.example"]).status.code(), Some(2));
}

#[test]
fn command_prints_wire_body_and_key() {
    let d = sha256_hex(b"rev");
    let o = run(&["consensus", "command", "--action", "agree", "--revision", "1", "--digest", &d]);
    assert_eq!(o.status.code(), Some(0));
    let out = stdout(&o);
    let want_body = format!("{{\"body\":{{\"action\":\"agree\",\"body\":\"\",\"digest\":\"{d}\",\"revision\":1}},\"idempotency_key\":\"cns1:");
    assert!(out.starts_with(&want_body), "{out}");
    // The sha256: prefix normalizes to the same command and key.
    let o2 = run(&["consensus", "command", "--action", "agree", "--revision", "1", "--digest", &format!("sha256:{d}")]);
    assert_eq!(stdout(&o2), out);
    let o = run(&[
        "consensus",
        "command",
        "--action",
        "question",
        "--revision",
        "1",
        "--digest",
        &d,
        "--body",
        "Why \"Friday\"?",
    ]);
    assert!(stdout(&o).contains(r#""body":"Why \"Friday\"?""#));
    let refused = [
        vec!["--action", "agree", "--revision", "1", "--digest", &d, "--body", "yes"],
        vec!["--action", "comment", "--revision", "1", "--digest", &d],
        vec!["--action", "agree", "--revision", "0", "--digest", &d],
    ];
    for a in &refused {
        let o = run(&[&["consensus", "command"][..], a].concat());
        assert_eq!(o.status.code(), Some(1), "{a:?}");
    }
    // A malformed --digest is malformed input (2), as are bad options.
    let usage = [
        vec!["--action", "agree", "--revision", "1", "--digest", "abc"],
        vec!["--action", "approve", "--revision", "1", "--digest", &d],
        vec!["--action", "agree", "--revision", "one", "--digest", &d],
        vec!["--action", "agree", "--digest", &d],
        vec!["--action", "agree", "--revision", "1", "--digest", &d, "extra"],
    ];
    for a in &usage {
        let o = run(&[&["consensus", "command"][..], a].concat());
        assert_eq!(o.status.code(), Some(2), "{a:?}");
    }
}

fn room(d: &str, events: &str) -> String {
    format!(
        r#"{{"revision": 1, "digest": "{d}", "deadline": "2026-09-10T00:00:00Z",
  "roster": [{{"id": "p1", "kind": "human"}}, {{"id": "p2", "kind": "agent"}}, {{"id": "p3", "kind": "agent"}}],
  "events": [{events}]}}"#
    )
}

fn ev(p: &str, action: &str, body: &str, digest: &str, at_min: u32, key: Option<&str>) -> String {
    let key = key.map(|k| format!(r#", "idempotency_key": "{k}""#)).unwrap_or_default();
    format!(
        r#"{{"participant": "{p}", "action": "{action}", "body": "{body}", "revision": 1, "digest": "{digest}", "at": "2026-09-06T12:{at_min:02}:00Z"{key}}}"#
    )
}

#[test]
fn outcome_runs_events_through_the_room() {
    let d = sha256_hex(b"rev");
    let now = "2026-09-07T00:00:00Z";
    let evs = [
        ev("p1", "comment", "ok?", &d, 0, None),
        ev("p1", "agree", "", &d, 1, Some("k-p1-agree")),
        ev("p1", "agree", "", &d, 2, Some("k-p1-agree")),
        ev("p1", "comment", "other", &d, 3, Some("k-p1-agree")),
        ev("p9", "agree", "", &d, 4, None),
        ev("p2", "agree", "", &format!("sha256:{d}"), 5, None),
        ev("p2", "disagree", "", &d, 6, None),
        ev("p3", "agree", "", &d.to_uppercase(), 7, None),
        ev("p3", "agree", "", "x", 8, None),
    ];
    let f = file("room1.json", room(&d, &evs.join(",")).as_bytes());
    let o = run(&["consensus", "outcome", &f, "--now", now]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(stdout(&o).trim(), "pending");
    let err = stderr(&o);
    let lines: Vec<&str> = err.lines().collect();
    assert_eq!(
        lines,
        [
            "event 3: 409 idempotency_conflict",
            "event 4: 404 not_found",
            "event 6: 409 duplicate_decision",
            "event 7: 409 stale_digest",
            "event 8: 400 bad_request: invalid encoding: command digest",
        ],
        "{err}"
    );
    // Past the deadline the silent participant makes it expired.
    let o = run(&["consensus", "outcome", &f, "--now", "2026-09-10T00:00:00Z"]);
    assert_eq!(stdout(&o).trim(), "expired");
    let all =
        [ev("p1", "agree", "", &d, 0, None), ev("p2", "agree", "", &d, 1, None), ev("p3", "agree", "", &d, 2, None)];
    let o = run(&["consensus", "outcome", &file("room2.json", room(&d, &all.join(",")).as_bytes()), "--now", now]);
    assert_eq!(stdout(&o).trim(), "reached");
    let dis = [
        ev("p1", "agree", "", &d, 0, None),
        ev("p2", "abstain", "", &d, 1, None),
        ev("p3", "disagree", "", &d, 2, None),
    ];
    let o = run(&["consensus", "outcome", &file("room3.json", room(&d, &dis.join(",")).as_bytes()), "--now", now]);
    assert_eq!(stdout(&o).trim(), "no_consensus");
    assert_eq!(stderr(&o).trim(), "event 2: 409 closed");
    let late = [ev("p1", "agree", "", &d, 0, None)].join(",").replace("2026-09-06T12:00:00Z", "2026-09-11T00:00:00Z");
    let o = run(&["consensus", "outcome", &file("room4.json", room(&d, &late).as_bytes()), "--now", now]);
    assert_eq!((stdout(&o).trim(), stderr(&o).trim()), ("expired", "event 0: 409 expired"));
    assert_eq!(run(&["consensus", "outcome", &f]).status.code(), Some(2));
    assert_eq!(run(&["consensus", "outcome", &f, "--now", "yesterday"]).status.code(), Some(2));
    // A roster the room model refuses is a schema miss: 1; a malformed room file is 2.
    let bad = file("room5.json", room(&d, "").replace("\"human\"", "\"robot\"").as_bytes());
    assert_eq!(run(&["consensus", "outcome", &bad, "--now", now]).status.code(), Some(1));
    let junk = file("room6.json", b"{\"roster\": [");
    assert_eq!(run(&["consensus", "outcome", &junk, "--now", now]).status.code(), Some(2));
}

#[test]
fn verify_artifact_headers() {
    // RFC 9530 Appendix B.1: {"hello": "world"} followed by LF.
    let body = b"{\"hello\": \"world\"}\n";
    let f = file("CONSENSUS.md", body);
    let field = "sha-256=:RK/0qy18MlBSVnWgjwz6lZEWjP/lF5HF9bvEF8FabDg=:";
    let hex = sha256_hex(body);
    let o = run(&["consensus", "verify-artifact", &f, "--content-digest", field, "--sha256", &hex]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(stdout(&o).trim(), format!("ok {hex}"));
    let both = format!(
        "sha-512=:YMAam51Jz/jOATT6/zvHrLVgOYTGFy1d6GJiOHTohq4yP+pgk4vf2aCsyRZOtw8MjkM7iw7yZ/WkppmM44T3qg==:, {field}"
    );
    assert_eq!(
        run(&["consensus", "verify-artifact", &f, "--content-digest", &both, "--sha256", &hex]).status.code(),
        Some(0)
    );
    let wrong = sha256_hex(b"other");
    assert_eq!(
        run(&["consensus", "verify-artifact", &f, "--content-digest", field, "--sha256", &wrong]).status.code(),
        Some(1)
    );
    assert_eq!(
        run(&[
            "consensus",
            "verify-artifact",
            &f,
            "--content-digest",
            field,
            "--sha256",
            &hex,
            "--outcome",
            "disagreed"
        ])
        .status
        .code(),
        Some(1)
    );
    let tampered = file("tampered.md", b"{\"hello\": \"world\"}");
    assert_eq!(
        run(&["consensus", "verify-artifact", &tampered, "--content-digest", field, "--sha256", &hex]).status.code(),
        Some(1)
    );
    assert_eq!(
        run(&["consensus", "verify-artifact", &f, "--content-digest", "sha-256=RK", "--sha256", &hex]).status.code(),
        Some(2)
    );
    assert_eq!(run(&["consensus", "verify-artifact", &f, "--sha256", &hex]).status.code(), Some(2));
    assert_eq!(run(&["consensus", "frobnicate"]).status.code(), Some(2));
    let o = run(&["consensus", "--help"]);
    assert_eq!(o.status.code(), Some(0));
    assert!(stdout(&o).contains("verify-artifact"));
}
