//! `concordia`: canonicalize, hash, sign and verify Concordia messages from the shell.
//!
//! All protocol logic lives in `concordia-core`; this binary reads files, sizes buffers to
//! its input, and maps results to exit codes: 0 ok, 1 verification failed, 2 usage or
//! malformed input (also: an argument that is not UTF-8, a failed write to stdout). A core
//! error picks 1 or 2 by its class, in one function for every subcommand
//! ([`util::fail`]: `input` and `limit` exit 2, the protocol reason classes exit 1).
//!
//! No panic reaches a user: arguments are read with `args_os` and checked, output goes
//! through `util::write_stdout` (a closed pipe ends the output quietly and the status stays
//! the command's own), diagnostics through `util::stderr_line`. `println!`/`eprintln!`
//! panic on write errors, so the lints below forbid them in this crate. As a last line of
//! defence a panic hook prints one line and exits 2.

#![deny(clippy::print_stdout, clippy::print_stderr)]

mod aip;
mod attestation;
mod canon;
mod chain;
mod conformance;
mod consensus;
mod demo;
mod keys;
mod secret;
mod session;
mod util;

use std::ffi::OsString;

use util::{one_line, stderr_line, usage, Args, CliResult};

const HELP: &str = "concordia: Concordia protocol tools (RFC 8785 JSON, SHA-256, Ed25519, ES256)

usage: concordia <command> [options]

commands:
  demo [--out DIR] [--seed HEX] [--now RFC3339]   the camera negotiation, end to end
  jcs [--lines] [FILE]                             canonical JSON (RFC 8785)
  hash [--hex] [FILE]                              sha256:<hex> of the canonical form
  keygen [--alg EdDSA|ES256] [--seed HEX] [-o FILE]
                                                   new key pair as JSON (Ed25519 or P-256);
                                                   -o writes FILE with mode 0600
  sign --key KEYFILE [--alg ALG] [FILE]            add a top-level signature
  verify --public-key B64URL [--alg ALG] [FILE]    check a top-level signature
  chain verify --keys KEYS.json [--json] [--lines] [TRANSCRIPT]
                                                   check a hash-chained transcript
  session replay --session S.json [--json] [MESSAGES]
                                                   drive the session state machine
  attestation verify --keys K.json [--transcript T.json] [--json] [ATT]
                                                   check an attestation
  conformance [DIR] [--json]                       run the conformance suite
  consensus digest FILE                            Consensus venue primitives:
  consensus markdown-digest FILE                     revision and Markdown digests,
  consensus invitation EMAIL.txt [--origin URL]      the invitation email,
  consensus command --action A --revision N --digest D [--body TEXT]
                                                     a room command and its key,
  consensus outcome ROOM.json --now RFC3339          a room log's outcome,
  consensus verify-artifact FILE --content-digest F --sha256 HEX [--outcome WORD]
                                                     the downloaded agreement
  aip handle X                                     AIP: addresses,
  aip keygen [--did DID --doc OUT.json] [-o KEY.json]  key files and DID Documents,
  aip seal --to DOC.json --key KEY.json [MESSAGE]    sealed envelopes,
  aip open --key KEY.json --from DOC.json [--replay-store FILE [--replay-mac-key K]] [ENVELOPE]
  aip vc issue --key KEY.json [CREDENTIAL]           credentials,
  aip vc verify [--anchors A] [--revoked R] [--proof-only] [SIGNED]
  aip rank RESULTS.json                              trust-weighted ranking
  help, -h, --help                                 this text
  version, -V, --version                           the version

FILE (and every optional input in brackets) defaults to stdin. `concordia <command>
--help` (or `concordia consensus <subcommand> --help`, `concordia aip <subcommand> --help`)
for every option of a command.

global option (before or after the command):
  --max-input BYTES   refuse any input longer than BYTES (suffix K, M or G for KiB, MiB,
                      GiB): exit 2, `input larger than --max-input (BYTES bytes)`. Without
                      it inputs are limited by memory: an input that cannot be held is
                      exit 2 `not enough memory for the input (N bytes)`, never an abort.
                      `jcs` and `chain verify` stream top-level arrays one element at a
                      time, so their memory is bounded by the largest element.
Exit status: 0 ok, 1 verification failed, 2 usage or malformed input, on every command.
An error of the core picks 1 or 2 by its reason class: a protocol class (schema,
signature, digest, binding, temporal, privacy, transition) exits 1; input (malformed
JSON, an undecodable encoding, an argument out of its domain) and limit exit 2. Bad
options or option values, unreadable files, arguments that are not UTF-8 and a stdout
that cannot be written exit 2. Errors are one line on stderr: `concordia: <what>: <error>`.
When the reader of stdout goes away (a closed pipe), the rest of the output is discarded
and the status is the command's own.";

/// Takes the global `--max-input BYTES` (or `--max-input=BYTES`) out of the arguments,
/// wherever it stands, and sets the cap.
fn take_max_input(argv: &mut Args) -> CliResult {
    if let Some(v) = argv.value("--max-input")? {
        util::set_max_input(util::parse_size(&v)?);
    }
    Ok(())
}

fn run(argv: Vec<String>) -> CliResult {
    let mut args = Args::new(argv);
    take_max_input(&mut args)?;
    let mut it = args.into_items().into_iter();
    let Some(cmd) = it.next() else {
        return Err(usage("missing command: try `concordia demo`, or `concordia --help` for every command"));
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
        "attestation" => (attestation::HELP, attestation::run),
        "help" | "--help" | "-h" => return outln!("{HELP}"),
        "--version" | "-V" | "version" => return outln!("concordia {}", env!("CARGO_PKG_VERSION")),
        other => return Err(usage(format!("unknown command `{}` (see `concordia --help`)", one_line(other)))),
    };
    if help {
        let text = match cmd.as_str() {
            "consensus" => consensus::help(&rest)?,
            "aip" => aip::help(&rest)?,
            _ => text.to_string(),
        };
        return outln!("{text}");
    }
    f(Args::new(rest))
}

/// The arguments as strings; one that is not UTF-8 is a usage error naming it (escaped, so
/// the message stays one line).
fn utf8_args(argv: impl IntoIterator<Item = OsString>) -> CliResult<Vec<String>> {
    argv.into_iter()
        .enumerate()
        .map(|(i, a)| a.into_string().map_err(|a| usage(format!("argument {} is not valid UTF-8: {a:?}", i + 1))))
        .collect()
}

/// The last line of defence: a panic (a bug, never an input) prints one line and exits 2
/// instead of 101 with a backtrace.
fn install_panic_hook() {
    std::panic::set_hook(Box::new(|info| {
        let what = info
            .payload()
            .downcast_ref::<&str>()
            .map(|s| (*s).to_string())
            .or_else(|| info.payload().downcast_ref::<String>().cloned())
            .unwrap_or_default();
        let at = info.location().map(|l| format!(" at {}:{}", l.file(), l.line())).unwrap_or_default();
        stderr_line(&format!("concordia: internal error{at}: {what:?} (please report it)"));
        std::process::exit(2);
    }));
}

fn main() {
    install_panic_hook();
    let code = match utf8_args(std::env::args_os().skip(1)).and_then(run) {
        Ok(()) => 0,
        Err(f) => {
            // One line, whatever a message holds.
            stderr_line(&format!("concordia: {}", one_line(&f.to_string())));
            f.code()
        }
    };
    std::process::exit(code);
}
