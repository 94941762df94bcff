//! Issue 32 classes 11 and 12 end to end: key files are written 0600 with `-o` (never over
//! an existing file or through a symlink), a secret redirected into a file others can read
//! gets a warning, every option is checked before a key is made, and an invitation whose
//! exchange URL carries a query or fragment is shown redacted.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

fn concordia() -> Command {
    Command::new(env!("CARGO_BIN_EXE_concordia"))
}

fn run(args: &[&str]) -> Output {
    concordia().args(args).output().unwrap()
}

fn dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("concordia-secrets-test-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[cfg(unix)]
fn mode(p: &Path) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(p).unwrap().permissions().mode() & 0o777
}

/// Both key commands, as argument lists before `-o`.
const KEYGENS: [&[&str]; 3] = [&["keygen"], &["keygen", "--alg", "ES256"], &["aip", "keygen"]];

#[test]
#[cfg(unix)]
fn out_file_is_0600_and_never_overwritten() {
    let d = dir("out");
    for (i, cmd) in KEYGENS.iter().enumerate() {
        let key = d.join(format!("k{i}.json"));
        let o = concordia().args(*cmd).args(["-o", s(&key)]).output().unwrap();
        assert_eq!(o.status.code(), Some(0), "{cmd:?}: {}", stderr(&o));
        assert!(o.stdout.is_empty(), "{cmd:?}: the key went to stdout too");
        assert_eq!(mode(&key), 0o600, "{cmd:?}");
        let first = std::fs::read(&key).unwrap();
        assert!(first.ends_with(b"}\n") && first.windows(4).any(|w| w == b"_hex"), "{cmd:?}");
        // A second run refuses the existing file and leaves it as it was.
        let o = concordia().args(*cmd).args(["--out", s(&key)]).output().unwrap();
        assert_eq!(o.status.code(), Some(2), "{cmd:?}");
        assert!(stderr(&o).contains("exists") && stderr(&o).contains("--force"), "{}", stderr(&o));
        assert!(o.stdout.is_empty());
        assert_eq!(std::fs::read(&key).unwrap(), first);
        // --force replaces it, and a file that was 0644 becomes 0600 before the key goes in.
        std::fs::set_permissions(&key, std::os::unix::fs::PermissionsExt::from_mode(0o644)).unwrap();
        let o = concordia().args(*cmd).args(["-o", s(&key), "--force"]).output().unwrap();
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        assert_eq!(mode(&key), 0o600);
        assert_ne!(std::fs::read(&key).unwrap(), first);
    }
}

#[test]
#[cfg(unix)]
fn out_file_never_follows_a_symlink() {
    let d = dir("symlink");
    let target = d.join("target.txt");
    std::fs::write(&target, b"keep me\n").unwrap();
    let link = d.join("key.json");
    std::os::unix::fs::symlink(&target, &link).unwrap();
    let dangling = d.join("dangling.json");
    std::os::unix::fs::symlink(d.join("nowhere.json"), &dangling).unwrap();
    for cmd in KEYGENS {
        for extra in [&[][..], &["--force"][..]] {
            for l in [&link, &dangling] {
                let o = concordia().args(cmd).args(["-o", s(l)]).args(extra).output().unwrap();
                assert_eq!(o.status.code(), Some(2), "{cmd:?} {extra:?}");
                assert!(o.stdout.is_empty());
            }
        }
    }
    assert_eq!(std::fs::read(&target).unwrap(), b"keep me\n");
    assert!(!d.join("nowhere.json").exists());
}

#[test]
#[cfg(unix)]
fn stdout_redirect_readable_by_others_warns_and_pipe_does_not() {
    use std::os::unix::fs::PermissionsExt;
    let d = dir("warn");
    for (i, cmd) in KEYGENS.iter().enumerate() {
        let path = d.join(format!("redirect{i}.json"));
        let f = File::create(&path).unwrap();
        f.set_permissions(std::fs::Permissions::from_mode(0o644)).unwrap();
        let o = concordia().args(*cmd).stdout(Stdio::from(f)).stderr(Stdio::piped()).output().unwrap();
        assert_eq!(o.status.code(), Some(0), "{cmd:?}");
        let err = stderr(&o);
        assert!(err.contains("warning") && err.contains("0644") && err.contains("-o FILE"), "{cmd:?}: {err}");
        assert!(std::fs::read(&path).unwrap().ends_with(b"}\n"), "the key was still written");
        // A 0600 file gets no warning.
        let quiet = d.join(format!("quiet{i}.json"));
        let f = File::create(&quiet).unwrap();
        f.set_permissions(std::fs::Permissions::from_mode(0o600)).unwrap();
        let o = concordia().args(*cmd).stdout(Stdio::from(f)).stderr(Stdio::piped()).output().unwrap();
        assert_eq!(o.status.code(), Some(0));
        assert!(stderr(&o).is_empty(), "{cmd:?}: {}", stderr(&o));
        // Nor does a pipe.
        let o = concordia().args(*cmd).output().unwrap();
        assert_eq!(o.status.code(), Some(0));
        assert!(stderr(&o).is_empty(), "{cmd:?}: {}", stderr(&o));
        assert!(o.stdout.ends_with(b"}\n"));
    }
}

#[test]
fn bad_options_print_no_secret_and_write_nothing() {
    let d = dir("bad");
    let key = d.join("key.json");
    let doc = d.join("doc.json");
    let did = "did:aip:example.com:alice";
    let cases: Vec<Vec<&str>> = vec![
        vec!["aip", "keygen", "--did", did, "--doc", s(&doc), "--endpoint", "ftp://relay.example/x"],
        vec!["aip", "keygen", "--did", did, "--doc", s(&doc), "--route-mode", "carrier-pigeon"],
        vec!["aip", "keygen", "--route-mode", "carrier-pigeon"],
        vec!["aip", "keygen", "--doc", s(&doc)],
        vec!["aip", "keygen", "--endpoint", "https://relay.example/x"],
        vec!["aip", "keygen", "--did", "did:web:example.com"],
        vec!["aip", "keygen", "--seed", "00"],
        vec!["keygen", "--alg", "RSA"],
        vec!["keygen", "--seed", "zz"],
        vec!["keygen", "-o", "a.json", "--out"],
    ];
    for args in cases {
        for with_out in [false, true] {
            let mut a = args.clone();
            if with_out {
                a.extend(["-o", s(&key)]);
            }
            let o = run(&a);
            assert_eq!(o.status.code(), Some(2), "{a:?}: {}", stderr(&o));
            assert!(o.stdout.is_empty(), "{a:?} printed {}", String::from_utf8_lossy(&o.stdout));
            assert!(!stderr(&o).contains("_hex"), "{a:?}: {}", stderr(&o));
            assert!(!key.exists() && !doc.exists(), "{a:?} wrote a file");
        }
    }
    // --force without -o is refused too.
    let o = run(&["keygen", "--force"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(o.stdout.is_empty());
    // The same options, valid, make both files.
    let o =
        run(&["aip", "keygen", "--did", did, "--doc", s(&doc), "--endpoint", "https://relay.example/x", "-o", s(&key)]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(key.exists() && doc.exists());
}

#[test]
fn help_says_where_secrets_go() {
    for cmd in [&["keygen", "--help"][..], &["aip", "keygen", "--help"][..]] {
        let o = run(cmd);
        let text = String::from_utf8_lossy(&o.stdout).into_owned() + &stderr(&o);
        assert!(text.contains("-o") && text.contains("0600"), "{cmd:?}: {text}");
    }
}

const ID: &str = "3f2b8c1e-5d4a-4e7b-9c2f-1a2b3c4d5e6f";
const SECRET: &str = "6_asp1MbRl66oRMolZ2m4ep4Q3azK7nvIuj-2X7NjlA";

/// Issue 32 class 12: an exchange URL with the secret in its query or fragment.
#[test]
fn invitation_exchange_url_with_a_secret_is_redacted() {
    let d = dir("invitation");
    let href = format!("https://consensus.md/api/v1/agent/invitations/{ID}/exchange");
    for (tail, shown) in [
        (format!("?secret={SECRET}"), "?<redacted>"),
        (format!("#secret={SECRET}"), "#<redacted>"),
        (format!("?a=b#secret={SECRET}"), "?<redacted>#<redacted>"),
    ] {
        let email = format!(
            "---BEGIN CONSENSUS INVITATION V1---\n{{\"schema\": \"https://consensus.md/schemas/invitation-email/v1\", \"invitation_id\": \"{ID}\", \"invite_uri\": \"https://consensus.md/i/{ID}#secret={SECRET}\", \"agent_exchange\": {{\"method\": \"POST\", \"href\": \"{href}{tail}\"}}, \"agent_claim\": {{\"email_proof\": \"ep_x\"}}}}\n---END CONSENSUS INVITATION V1---\n"
        );
        let p = d.join("email.txt");
        std::fs::write(&p, email).unwrap();
        let o = run(&["consensus", "invitation", s(&p)]);
        assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
        let out = String::from_utf8_lossy(&o.stdout).into_owned();
        assert!(out.contains(&format!("\"exchange_href\":\"{href}{shown}\"")), "{out}");
        assert!(out.contains("\"no_query\":false"), "{out}");
        for text in [&out, &stderr(&o)] {
            assert!(!text.contains(SECRET), "{text}");
        }
    }
}
