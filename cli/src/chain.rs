//! `concordia chain verify`.

use concordia_core::json::{Kind, Value};
use concordia_core::message::{self, KeyMap};
use concordia_core::Error;

use crate::outln;
use crate::util::{fail, json_str, need_sub, nodes_for, parse, read_input, usage, Args, CliResult};

pub const HELP: &str = "concordia chain verify --keys KEYS.json [--json] TRANSCRIPT.json
  Verifies a transcript message by message: prev_hash links from the genesis hash,
  one session_id, and every signature under the sender's key.
  KEYS.json       object mapping agent_id to base64url Ed25519 public key
  TRANSCRIPT.json array of envelopes, or an object whose `messages` member is one
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
    let pos = args.positionals(1)?;
    let (kname, kbytes) = read_input(Some(&keys_path))?;
    let mut knodes = nodes_for(&kbytes)?;
    let keys = parse(&kname, &kbytes, &mut knodes)?;
    if keys.root().kind() != Kind::Object {
        return Err(usage(format!("{kname}: must be an object mapping agent_id to public key")));
    }
    let (tname, tbytes) = read_input(pos.first().map(String::as_str))?;
    let mut tnodes = nodes_for(&tbytes)?;
    let doc = parse(&tname, &tbytes, &mut tnodes)?;
    let messages = messages_of(&tname, doc.root())?;
    if messages.is_empty() {
        return Err(fail(&tname, Error::Schema("empty transcript")));
    }
    match message::verify_transcript(messages, &KeyMap(keys.root())) {
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
        Err((i, e)) => {
            if as_json {
                outln!(
                    "{{\"class\":\"{}\",\"error\":{},\"index\":{i},\"ok\":false}}",
                    e.class(),
                    json_str(&e.to_string())
                )?;
            }
            Err(fail(&format!("{tname}: message {i}"), e))
        }
    }
}
