//! `concordia`: canonicalize, hash, sign and verify Concordia messages from the shell.
//!
//! All protocol logic lives in `concordia-core`; this binary reads files, sizes buffers to
//! its input, and maps results to exit codes: 0 ok, 1 verification failed, 2 usage or
//! malformed input.

mod aip;
mod canon;
mod chain;
mod conformance;
mod consensus;
mod demo;
mod session;
mod keys;
mod util;

use util::{usage, Args, CliResult, Fail};

const HELP: &str = "concordia: Concordia protocol tools (RFC 8785 JSON, SHA-256, Ed25519)

usage: concordia <command> [options]

commands:
  demo [--out DIR]                           the camera negotiation, end to end
  aip <handle|keygen|seal|open|vc|rank> ...  AIP addressing, sealed envelopes, credentials
  attestation verify --keys K [--transcript T] ATT   check an attestation
  session replay --session S MESSAGES        drive the session state machine
  jcs [--lines] [FILE]                       canonical JSON (RFC 8785)
  hash [--hex] [FILE]                        sha256:<hex> of the canonical form
  keygen [--seed HEX]                        new Ed25519 key pair as JSON
  sign --key KEYFILE [FILE]                  add a top-level signature
  verify --public-key B64URL [FILE]          check a top-level signature
  chain verify --keys KEYS.json TRANSCRIPT   check a hash-chained transcript
  conformance [DIR] [--json]                 run the conformance suite
  consensus <digest|markdown-digest|invitation|command|outcome|verify-artifact> ...
                                             Consensus venue primitives

FILE defaults to stdin. `concordia <command> --help` for details.
Exit status: 0 ok, 1 verification failed, 2 usage or malformed input.";

fn run(argv: Vec<String>) -> CliResult {
    let mut it = argv.into_iter();
    let Some(cmd) = it.next() else {
        return Err(usage(HELP));
    };
    let rest: Vec<String> = it.collect();
    let help = rest.iter().any(|a| a == "--help" || a == "-h");
    let (text, f): (&str, fn(Args) -> CliResult) = match cmd.as_str() {
        "aip" => (aip::HELP, aip::run),
        "jcs" => (canon::JCS_HELP, canon::jcs),
        "hash" => (canon::HASH_HELP, canon::hash),
        "keygen" => (keys::KEYGEN_HELP, keys::keygen),
        "sign" => (keys::SIGN_HELP, keys::sign),
        "verify" => (keys::VERIFY_HELP, keys::verify),
        "chain" => (chain::HELP, chain::run),
        "conformance" => (conformance::HELP, conformance::run),
        "consensus" => (consensus::HELP, consensus::run),
        "demo" => (demo::HELP, demo::run),
        "session" => (session::HELP, session::run),
        "attestation" => (demo::ATTESTATION_HELP, demo::attestation_cmd),
        "help" | "--help" | "-h" => {
            println!("{HELP}");
            return Ok(());
        }
        "--version" | "version" => {
            println!("concordia {}", env!("CARGO_PKG_VERSION"));
            return Ok(());
        }
        other => return Err(usage(format!("unknown command `{other}`\n\n{HELP}"))),
    };
    if help {
        println!("{text}");
        return Ok(());
    }
    f(Args::new(rest))
}

fn main() {
    let argv: Vec<String> = std::env::args().skip(1).collect();
    let code = match run(argv) {
        Ok(()) => 0,
        Err(Fail::Rejected(m)) => {
            eprintln!("concordia: {m}");
            1
        }
        Err(Fail::Usage(m)) => {
            eprintln!("concordia: {m}");
            2
        }
    };
    std::process::exit(code);
}
