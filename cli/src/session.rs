//! `concordia session replay`: drive the core's session state machine with a recorded
//! message sequence and report what it does with each message.

use concordia_core::json::{Kind, Value};
use concordia_core::session::{Role, Session, Timing};
use concordia_core::time::{self, Timestamp};
use concordia_core::Error;

use crate::chain::messages_of;
use crate::outln;
use crate::util::{fail, json_str, need_sub, nodes_for, parse, read_input, usage, Args, CliResult};

pub const HELP: &str = "concordia session replay --session SESSION.json [--json] MESSAGES.json
  Applies each message of MESSAGES.json (an array, or {\"messages\": [...]}) to a session and
  prints, per message, the new state or the error (with --json: its reason class and the
  reference SDK's exception name); a refused message leaves the session
  unchanged and replay goes on with the next one.
  SESSION.json: {\"session_id\": \"...\", \"created_at\": \"RFC 3339\",
                 \"timing\": {\"session_ttl\": 86400, \"offer_ttl\": 3600, \"max_rounds\": 20},
                 \"parties\": [{\"agent_id\": \"...\", \"role\": \"initiator\",
                               \"public_key_b64url\": \"...\"}, ...],
                 \"public_keys_b64url\": {\"agent_id\": \"...\"}}
  Keys: `public_keys_b64url`, when present, is the only source of keys (the reference SDK's
  resolver: an agent it does not list is refused, a key it lists replaces the party's);
  without it, the parties' `public_key_b64url` are used.
  Each message is applied at the time of its own `timestamp` (or at created_at).
  Errors are named as the reference SDK's exceptions: InvalidSignatureError,
  SessionBindingError, ChainIntegrityError, InvalidTransitionError, MaxRoundsExceededError,
  or the Python built-in the SDK lets through (KeyError, AttributeError, TypeError,
  ValueError; ValueError also for the checks the SDK does not make, such as the TTLs).
  Exit 0 when every message was accepted; when any was refused, the status of the first
  refusal by its class (1 for a protocol class, 2 for malformed input, see `concordia
  --help`); 2 on usage errors and malformed files.";

/// The reference SDK's exception name for a session error: the core's one table
/// ([`Error::sdk_exception`]), which the Python binding's classes follow too.
pub fn sdk_error_name(e: &Error) -> &'static str {
    e.sdk_exception().name()
}

fn role(v: Option<Value<'_>>) -> CliResult<Role> {
    let r = v.and_then(concordia_host::string_value).unwrap_or_default();
    Role::parse(&r).map_err(|_| {
        let allowed: Vec<&str> = Role::ALL.iter().map(|r| r.as_str()).collect();
        usage(format!("unknown role `{}` (allowed: {})", crate::util::one_line(&r), allowed.join(", ")))
    })
}

fn u32_of(v: Option<Value<'_>>, default: u32) -> CliResult<u32> {
    match v {
        None => Ok(default),
        Some(v) => v
            .as_i64()
            .and_then(|i| u32::try_from(i).ok())
            .ok_or_else(|| usage("timing values must be non-negative integers")),
    }
}

pub fn run(mut args: Args) -> CliResult {
    if args.positionals_first().as_deref() != Some("replay") {
        return Err(need_sub("session", "`session replay`"));
    }
    let spath = args.value("--session")?.ok_or_else(|| usage("session replay needs --session SESSION.json"))?;
    let as_json = args.flag("--json");
    let pos = args.positionals(1)?;
    let (sname, sb) = read_input(Some(&spath))?;
    let (mname, mb) = read_input(pos.first().map(String::as_str))?;
    let mut sn = nodes_for(&sb)?;
    let mut mn = nodes_for(&mb)?;
    let spec = parse(&sname, &sb, &mut sn)?.root();
    let messages = messages_of(&mname, parse(&mname, &mb, &mut mn)?.root())?;

    // Strings are read decoded: an escaped spelling is the same value, never "absent".
    let sid = spec
        .get("session_id")
        .and_then(concordia_host::string_value)
        .ok_or_else(|| usage(format!("{sname}: session_id")))?;
    let sid = sid.as_str();
    let created_at = match spec.get("created_at") {
        Some(c) => {
            let t = concordia_host::string_value(c)
                .ok_or_else(|| usage(format!("{sname}: created_at must be a string")))?;
            time::parse_datetime(&t).map_err(|e| fail(&format!("{sname}: created_at"), e))?
        }
        None => Timestamp::from_unix(0),
    };
    let t = spec.get("timing");
    let d = Timing::default();
    let timing = Timing {
        session_ttl: u32_of(t.and_then(|t| t.get("session_ttl")), d.session_ttl)?,
        offer_ttl: u32_of(t.and_then(|t| t.get("offer_ttl")), d.offer_ttl)?,
        max_rounds: u32_of(t.and_then(|t| t.get("max_rounds")), d.max_rounds)?,
    };
    let mut session: concordia_host::HostSession =
        Session::new(sid, timing, created_at).map_err(|e| fail(&sname, e))?;
    let parties =
        spec.get("parties").filter(|p| p.kind() == Kind::Array).ok_or_else(|| usage(format!("{sname}: parties")))?;
    for p in parties.elements() {
        let id = p
            .get("agent_id")
            .and_then(concordia_host::string_value)
            .ok_or_else(|| usage(format!("{sname}: agent_id")))?;
        let id = id.as_str();
        let key = match p.get("public_key_b64url") {
            Some(k) => Some(concordia_core::message::public_key_from_value(k).map_err(|e| fail(&sname, e))?),
            None => None,
        };
        session.add_party(id, role(p.get("role"))?, key).map_err(|e| fail(&sname, e))?;
    }
    // Present, it is the only key source, and must be an object (the host's rule).
    let keys = spec.get("public_keys_b64url");

    let mut refused = 0;
    let mut first_refusal: Option<(usize, Error)> = None;
    for (i, m) in messages.elements().enumerate() {
        let now = m
            .get("timestamp")
            .and_then(concordia_host::string_value)
            .and_then(|t| time::parse_datetime(&t).ok())
            .unwrap_or(created_at);
        let result = concordia_host::session::apply_json(&mut session, m, keys, now);
        match result {
            Ok(state) => {
                if as_json {
                    outln!("{{\"index\":{i},\"ok\":true,\"state\":\"{}\"}}", state.as_str())?;
                } else {
                    outln!("{i}: {}", state.as_str())?;
                }
            }
            Err(e) => {
                refused += 1;
                first_refusal.get_or_insert((i, e));
                if as_json {
                    outln!(
                        "{{\"class\":\"{}\",\"error\":\"{}\",\"index\":{i},\"message\":{},\"ok\":false,\"state\":\"{}\"}}",
                        e.class().as_str(),
                        sdk_error_name(&e),
                        json_str(&e.to_string()),
                        session.state().as_str()
                    )?;
                } else {
                    outln!("{i}: refused ({}: {e}); state stays {}", sdk_error_name(&e), session.state().as_str())?;
                }
            }
        }
    }
    if as_json {
        let mut parties = String::new();
        for (i, p) in session.parties().iter().enumerate() {
            let mut b = crate::util::VecSink::default();
            let _ = concordia_core::attestation::write_behavior(p.behavior(), &mut b);
            if i > 0 {
                parties.push(',');
            }
            parties.push_str(&format!(
                "{{\"agent_id\":{},\"behavior\":{}}}",
                json_str(p.agent_id()),
                String::from_utf8_lossy(&b.0)
            ));
        }
        outln!(
            "{{\"message_count\":{},\"parties\":[{parties}],\"round_count\":{},\"state\":\"{}\",\"transcript_hash\":\"{}\"}}",
            session.message_count(),
            session.round_count(),
            session.state().as_str(),
            session.transcript_hash().to_prefixed().as_str()
        )?;
    }
    match first_refusal {
        Some((i, e)) => Err(fail(&format!("{mname}: {refused} message(s) refused; the first, message {i}"), e)),
        None => Ok(()),
    }
}
