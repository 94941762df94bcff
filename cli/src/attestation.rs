//! `concordia attestation verify`: an attestation's schema, party signatures and
//! countersignatures, and (with a transcript) the set binding.

use concordia_core::attestation::{self, SetBinding};
use concordia_core::json::Kind;

use crate::chain::messages_of;
use crate::outln;
use crate::util::{fail, json_str, need_sub, nodes_for, parse, read_input, usage, Args, CliResult};

pub const HELP: &str = "concordia attestation verify --keys KEYS.json [--transcript T.json] [--json] ATT.json
  Checks an attestation: its schema, every party signature, every countersignature, and,
  with --transcript, that the transcript verifies and is the one the attestation binds
  (message_count and chain_head).
  Exit 0 valid, 1 invalid (a protocol check failed), 2 usage or malformed input.";

pub fn run(mut args: Args) -> CliResult {
    if args.positionals_first().as_deref() != Some("verify") {
        return Err(need_sub("attestation", "`attestation verify`"));
    }
    let keys_path = args.value("--keys")?.ok_or_else(|| usage("attestation verify needs --keys KEYS.json"))?;
    let transcript_path = args.value("--transcript")?;
    let as_json = args.flag("--json");
    let pos = args.positionals(1)?;
    let (kname, kb) = read_input(Some(&keys_path))?;
    let (aname, ab) = read_input(pos.first().map(String::as_str))?;
    let tb = match &transcript_path {
        Some(p) => Some(read_input(Some(p))?),
        None => None,
    };
    let mut kn = nodes_for(&kb)?;
    let mut an = nodes_for(&ab)?;
    let keys = parse(&kname, &kb, &mut kn)?;
    if keys.root().kind() != Kind::Object {
        return Err(usage(format!("{kname}: must be an object mapping agent_id to public key")));
    }
    let att = parse(&aname, &ab, &mut an)?;
    let mut tn = concordia_host::Nodes::new();
    let transcript = match &tb {
        Some((tname, b)) => {
            let doc = tn.parse_transcript(b).map_err(|e| crate::util::fail(tname, e))?;
            Some(messages_of(tname, doc.root())?)
        }
        None => None,
    };
    match attestation::verify(att.root(), keys.root(), transcript) {
        Ok(v) => {
            let binding = match v.binding {
                SetBinding::Bound => "bound",
                SetBinding::Unchecked => "unchecked",
                SetBinding::LegacyUnbound => "legacy_set_unbound",
            };
            if as_json {
                outln!(
                    "{{\"countersignatures\":{},\"ok\":true,\"parties\":{},\"set_binding\":\"{binding}\"}}",
                    v.countersignatures,
                    v.parties
                )?;
            } else {
                outln!(
                    "ok: {} party signatures, {} countersignatures, set binding {binding}",
                    v.parties,
                    v.countersignatures
                )?;
            }
            Ok(())
        }
        Err(e) => {
            if as_json {
                outln!("{{\"class\":\"{}\",\"error\":{},\"ok\":false}}", e.class(), json_str(&e.to_string()))?;
            }
            Err(fail(&aname, e))
        }
    }
}
