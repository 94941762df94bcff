//! `concordia consensus ...`: the Consensus venue primitives of `concordia_core::consensus`.
//!
//! Only argument handling, file reading and output formatting live here.

use concordia_core::consensus::artifact::verify_artifact;
use concordia_core::consensus::command::{Action, Command};
use concordia_core::consensus::digest::{markdown_digest, revision_digest};
use concordia_core::consensus::Outcome;
use concordia_core::time::parse_datetime;
use concordia_core::Error;
use concordia_host::consensus::{check_invitation, room_outcome_of};

use crate::outln;
use crate::util::{
    allowed_values, bad_arg, bad_sub, fail, json_str, nodes_for, one_line, outcome_words, parse, read_input,
    stderr_line, sub_help, usage, Args, CliResult, VecSink,
};

pub const HELP: &str = "concordia consensus <subcommand>: Consensus venue primitives

  digest FILE                     64-hex revision digest of the JSON in FILE (RFC 8785)
  markdown-digest FILE            64-hex SHA-256 of FILE's exact bytes
  invitation EMAIL.txt [--origin URL]
                                  check the invitation block of a plain-text email; prints
                                  {checks, exchange_href, invitation_id, valid}, never a secret
                                  (an exchange_href that fails no_query is shown redacted)
  command --action A --revision N --digest D [--body TEXT]
                                  prints {\"body\": <wire body>, \"idempotency_key\": \"<key>\"}
  outcome ROOM.json --now RFC3339 run ROOM.json's events through the room model; prints the
                                  outcome word; each refused event goes to stderr with its status
  verify-artifact FILE --content-digest 'sha-256=:...:' --sha256 HEX [--outcome WORD]
                                  check CONSENSUS.md bytes against both headers (outcome
                                  defaults to reached)

FILE may be `-` for stdin. Exit status: 0 ok, 1 rejected or invalid (a schema, signature,
digest, binding, temporal, privacy or transition check failed, e.g. a command body its
action does not allow, a roster without a human initiator, a digest that does not match),
2 usage or malformed input (e.g. a --digest that is not 64 hex digits).";

/// The subcommands, in the order of [`HELP`].
pub const SUBCOMMANDS: [&str; 6] = ["digest", "markdown-digest", "invitation", "command", "outcome", "verify-artifact"];

/// `concordia consensus [SUB] --help`: the group's help, or one subcommand's.
pub fn help(rest: &[String]) -> CliResult<String> {
    match rest.iter().find(|a| !a.starts_with('-')) {
        None => Ok(HELP.to_string()),
        Some(sub) => sub_help(HELP, "consensus", "", sub).ok_or_else(|| bad_sub("consensus", Some(sub), &SUBCOMMANDS)),
    }
}

pub fn run(mut args: Args) -> CliResult {
    let Some(sub) = args.positionals_first() else {
        return Err(bad_sub("consensus", None, &SUBCOMMANDS));
    };
    match sub.as_str() {
        "digest" => digest(args),
        "markdown-digest" => md_digest(args),
        "invitation" => invitation(args),
        "command" => command(args),
        "outcome" => outcome(args),
        "verify-artifact" => verify(args),
        other => Err(bad_sub("consensus", Some(other), &SUBCOMMANDS)),
    }
}

fn one_file(args: Args) -> CliResult<(String, Vec<u8>)> {
    let pos = args.positionals(1)?;
    let path = pos.first().ok_or_else(|| usage("missing FILE"))?;
    read_input(Some(path))
}

fn digest(args: Args) -> CliResult {
    let (name, input) = one_file(args)?;
    let mut nodes = nodes_for(&input)?;
    // The venue's digest reads big integers as RFC 8785 does (nearest double).
    let d = nodes
        .parse_with(&input, &concordia_core::json::Options::rfc8785())
        .and_then(|doc| revision_digest(doc.root()))
        .map_err(|e| fail(&name, e))?;
    outln!("{}", d.to_hex().as_str())?;
    Ok(())
}

fn md_digest(args: Args) -> CliResult {
    let (_, input) = one_file(args)?;
    outln!("{}", markdown_digest(&input).to_hex().as_str())?;
    Ok(())
}

fn invitation(mut args: Args) -> CliResult {
    let origin = args.value("--origin")?;
    let (name, input) = one_file(args)?;
    // The email holds the fragment secret and the email proof: erased when dropped.
    let input = concordia_host::zeroize::Zeroizing::new(input);
    let checked = check_invitation(&input, origin.as_deref()).map_err(|e| match e {
        Error::InvalidArgument("origin") => bad_arg("--origin", e),
        e => fail(&name, e),
    })?;
    let inv = &checked.invitation;
    let checks = inv.checks();
    let list: Vec<String> = checks.named().iter().map(|(n, ok)| format!("{}:{ok}", json_str(n))).collect();
    outln!(
        "{{\"checks\":{{{}}},\"exchange_href\":{},\"invitation_id\":{},\"valid\":{}}}",
        list.join(","),
        json_str(inv.exchange_href()),
        json_str(inv.id()),
        checks.all()
    )?;
    checked.strict().map(drop).map_err(|e| fail(&name, e))
}

fn command(mut args: Args) -> CliResult {
    let action = args.value("--action")?.ok_or_else(|| usage("--action is required"))?;
    let revision = args.value("--revision")?.ok_or_else(|| usage("--revision is required"))?;
    let digest = args.value("--digest")?.ok_or_else(|| usage("--digest is required"))?;
    let body = args.value("--body")?.unwrap_or_default();
    args.positionals(0)?;
    // An option outside its choices is a usage error (the core calls an unknown action in
    // a command record a schema miss).
    let action = Action::parse(&action).map_err(|e| {
        usage(format!("--action: unknown action `{}` ({})", one_line(&action), allowed_values(&e).unwrap_or_default()))
    })?;
    let revision: u64 = revision
        .parse()
        .map_err(|_| usage(format!("--revision must be a non-negative integer, not `{}`", one_line(&revision))))?;
    let cmd = Command::new(action, &body, revision, &digest).map_err(|e| fail("command", e))?;
    let mut wire = VecSink::default();
    cmd.write_wire(&mut wire).map_err(|e| fail("command", e))?;
    let wire = String::from_utf8(wire.0).map_err(|e| usage(e.to_string()))?;
    outln!("{{\"body\":{wire},\"idempotency_key\":{}}}", json_str(cmd.idempotency_key().as_str()))?;
    Ok(())
}

fn outcome(mut args: Args) -> CliResult {
    let now = args.value("--now")?.ok_or_else(|| usage("--now is required"))?;
    let now = parse_datetime(&now).map_err(|e| bad_arg("--now", e))?;
    let (name, input) = one_file(args)?;
    let mut nodes = nodes_for(&input)?;
    let doc = parse(&name, &input, &mut nodes)?;
    let r = room_outcome_of(doc.root(), now).map_err(|e| fail(&name, e))?;
    for (i, refusal) in &r.refused {
        stderr_line(&format!("event {i}: {refusal}"));
    }
    outln!("{}", r.outcome)?;
    Ok(())
}

fn verify(mut args: Args) -> CliResult {
    let field = args.value("--content-digest")?.ok_or_else(|| usage("--content-digest is required"))?;
    let hex = args.value("--sha256")?.ok_or_else(|| usage("--sha256 is required"))?;
    let outcome = match args.value("--outcome")? {
        Some(o) => Outcome::parse(&o).map_err(|_| {
            usage(format!("--outcome: unknown outcome `{}` (allowed: {})", one_line(&o), outcome_words().join(", ")))
        })?,
        None => Outcome::Reached,
    };
    let (name, input) = one_file(args)?;
    let d = verify_artifact(&input, &field, &hex, outcome).map_err(|e| fail(&name, e))?;
    outln!("ok {}", d.to_hex().as_str())?;
    Ok(())
}
