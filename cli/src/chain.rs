//! `concordia chain verify`.

use std::io::Read;

use concordia_core::json::stream::{Span, Terminator};
use concordia_core::json::{Kind, Value};
use concordia_core::message::{self, KeyMap, TranscriptVerifier};
use concordia_core::Error;
use concordia_host::{ArrayReader, Nodes, Start};

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

/// The transcript array inside a `chain verify` input.
pub fn messages_of<'a>(name: &str, root: Value<'a>) -> CliResult<Value<'a>> {
    match root.kind() {
        Kind::Array => Ok(root),
        Kind::Object => root
            .get("messages")
            .filter(|m| m.kind() == Kind::Array)
            .ok_or_else(|| usage(format!("{name}: object without a `messages` array"))),
        _ => Err(usage(format!("{name}: transcript must be an array of messages"))),
    }
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
    let verdict = if lines {
        verify_lines(&tname, input, &keys)?
    } else {
        // A transcript's array is a level of its own: each message gets the whole policy
        // depth, as it does on its own (one message, one verdict).
        let mut reader =
            ArrayReader::new(input).with_cap(max_input()).with_options(concordia_host::transcript_options(false));
        if reader.start().map_err(|e| input_fail(&tname, e))? == Start::Value {
            // An object with a `messages` array (or not a transcript at all): read whole.
            let tbytes = reader.into_whole().map_err(|e| input_fail(&tname, e))?;
            let mut tnodes = nodes_for(&tbytes)?;
            let doc = tnodes.parse_transcript(&tbytes).map_err(|e| fail(&tname, e))?;
            let messages = messages_of(&tname, doc.root())?;
            message::verify_transcript(messages, &keys)
        } else {
            verify_stream(&tname, &mut reader, &keys)?
        }
    };
    report(&tname, verdict, as_json)
}

/// Verifies a top-level array one message at a time. After a message fails, the rest is
/// still read and parsed (not verified): a malformed transcript is an input error whatever
/// its messages say, as when it is read whole.
fn verify_stream(
    name: &str,
    reader: &mut ArrayReader<Box<dyn Read>>,
    keys: &KeyMap<'_>,
) -> CliResult<Result<TranscriptVerifier, (usize, Error)>> {
    let mut verifier = TranscriptVerifier::new();
    while let Some(element) = reader.next_element().map_err(|e| input_fail(name, e))? {
        if let Err(e) = verifier.push(element.doc.root(), keys) {
            let index = usize::try_from(element.index).unwrap_or(usize::MAX);
            reader.check_rest().map_err(|e| input_fail(name, e))?;
            return Ok(Err((index, e)));
        }
    }
    Ok(Ok(verifier))
}

/// Verifies JSON Lines, one envelope per non-blank line.
fn verify_lines(
    name: &str,
    input: Box<dyn Read>,
    keys: &KeyMap<'_>,
) -> CliResult<Result<TranscriptVerifier, (usize, Error)>> {
    let mut reader = ArrayReader::lines(input).with_cap(max_input());
    let mut nodes = Nodes::new();
    let mut verifier = TranscriptVerifier::new();
    let mut line_no = 0usize;
    while let Some((offset, line)) = reader.next_line().map_err(|e| input_fail(name, e))? {
        line_no += 1;
        if line.iter().all(|b| matches!(b, b' ' | b'\t' | b'\r' | b'\n')) {
            continue;
        }
        let span = Span { start: offset, end: offset + line.len() as u64, terminator: Terminator::Newline };
        let doc = nodes.parse(line).map_err(|e| fail(&format!("{name}: line {line_no}"), span.map_error(e)))?;
        if let Err(e) = verifier.push(doc.root(), keys) {
            return Ok(Err((usize::try_from(verifier.count()).unwrap_or(usize::MAX), e)));
        }
    }
    Ok(Ok(verifier))
}

fn report(name: &str, verdict: Result<TranscriptVerifier, (usize, Error)>, as_json: bool) -> CliResult {
    let verdict = match verdict {
        Ok(v) if v.count() == 0 => Err((0, Error::Schema("empty transcript"))),
        other => other,
    };
    match verdict {
        Ok(v) => {
            if as_json {
                outln!(
                    "{{\"head\":\"{}\",\"messages\":{},\"ok\":true}}",
                    v.head().to_prefixed().as_str(),
                    v.count()
                )?;
            } else {
                outln!("ok: {} messages, head {}", v.count(), v.head().to_prefixed().as_str())?;
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
