//! `concordia chain verify`.

use concordia_core::json::{Kind, Value};
use concordia_core::message::KeyMap;
use concordia_core::Error;
use concordia_host::{verify_transcript_reader, TranscriptFailure, TranscriptFormat, TranscriptSummary};

use crate::outln;
use crate::util::{
    fail, input_fail, json_str, max_input, need_sub, nodes_for, open_input, parse, read_input, usage, Args, CliResult,
};

pub const HELP: &str = "concordia chain verify --keys KEYS.json [--json] [--lines] TRANSCRIPT.json
  Verifies a transcript message by message: prev_hash links from the genesis hash,
  one session_id, and every signature under the sender's key.
  KEYS.json       object mapping agent_id to base64url Ed25519 public key
  TRANSCRIPT.json array of envelopes (default stdin), or an object whose `messages`
                  member is one. An array is read one message at a time: memory is
                  bounded by the largest message, whatever the transcript's length.
                  A malformed transcript exits 2 even after a message failed, as when
                  it is read whole.
  --lines         TRANSCRIPT is JSON Lines, one envelope per line (blank lines skipped);
                  an error names the line and its absolute byte offset
  --json          print the result as JSON
  Exit 0 valid, 1 rejected (a protocol check failed; an empty transcript is a schema
  failure), 2 usage or malformed input.";

pub fn run(mut args: Args) -> CliResult {
    let sub = args.positionals_first();
    if sub.as_deref() != Some("verify") {
        return Err(need_sub("chain", "`chain verify`"));
    }
    verify(args)
}

/// The transcript array inside a `chain verify` input (the host layer's rule,
/// [`concordia_host::transcript::messages_of`]; not a transcript is exit 2).
pub fn messages_of<'a>(name: &str, root: Value<'a>) -> CliResult<Value<'a>> {
    concordia_host::transcript::messages_of(root).map_err(|f| usage(format!("{name}: {f}")))
}

fn verify(mut args: Args) -> CliResult {
    let keys_path = args.value("--keys")?.ok_or_else(|| usage("chain verify needs --keys KEYS.json"))?;
    let as_json = args.flag("--json");
    let lines = args.flag("--lines");
    let pos = args.positionals(1)?;
    let (kname, kbytes) = read_input(Some(&keys_path))?;
    let mut knodes = nodes_for(&kbytes)?;
    let keys = parse(&kname, &kbytes, &mut knodes)?;
    if keys.root().kind() != Kind::Object {
        return Err(usage(format!("{kname}: must be an object mapping agent_id to public key")));
    }
    let keys = KeyMap(keys.root());
    let (tname, input) = open_input(pos.first().map(String::as_str))?;
    let format = if lines { TranscriptFormat::Lines } else { TranscriptFormat::Array };
    // One message at a time (the host layer's rule for every surface): memory bounded by
    // the largest message; each message gets the whole policy depth.
    let verdict = match verify_transcript_reader(input, &keys, format, max_input()) {
        Ok(summary) => Ok(summary),
        Err(TranscriptFailure::Message { index, error }) => Err((usize::try_from(index).unwrap_or(usize::MAX), error)),
        Err(TranscriptFailure::Read(e)) => return Err(input_fail(&tname, e)),
        Err(TranscriptFailure::Parse { line: Some(line), error }) => {
            return Err(fail(&format!("{tname}: line {line}"), error))
        }
        Err(TranscriptFailure::Parse { line: None, error }) => return Err(fail(&tname, error)),
        Err(f @ TranscriptFailure::NotTranscript { .. }) => return Err(usage(format!("{tname}: {f}"))),
    };
    report(&tname, verdict, as_json)
}

fn report(name: &str, verdict: Result<TranscriptSummary, (usize, Error)>, as_json: bool) -> CliResult {
    let verdict = match verdict {
        Ok(v) if v.count == 0 => Err((0, Error::Schema("empty transcript"))),
        other => other,
    };
    match verdict {
        Ok(v) => {
            if as_json {
                outln!("{{\"head\":\"{}\",\"messages\":{},\"ok\":true}}", v.head.to_prefixed().as_str(), v.count)?;
            } else {
                outln!("ok: {} messages, head {}", v.count, v.head.to_prefixed().as_str())?;
            }
            Ok(())
        }
        Err((_, e @ Error::Schema("empty transcript"))) => Err(fail(name, e)),
        Err((i, e)) => {
            if as_json {
                outln!(
                    "{{\"class\":\"{}\",\"error\":{},\"index\":{i},\"ok\":false}}",
                    e.class(),
                    json_str(&e.to_string())
                )?;
            }
            Err(fail(&format!("{name}: message {i}"), e))
        }
    }
}
