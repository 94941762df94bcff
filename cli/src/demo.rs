//! `concordia demo`: the camera negotiation of SPEC §6 and the Concordia overview, end to
//! end.

use std::path::PathBuf;
use std::time::{SystemTime, UNIX_EPOCH};

use concordia_core::attestation::{self, Params, Validity};
use concordia_core::digest;
use concordia_core::message::{self, Envelope, KeyMap, Party};
use concordia_core::offer::Offer;
use concordia_core::session::{MessageType, Role, Session, Timing};
use concordia_core::sign::KeyPair;
use concordia_core::time::{self, Timestamp};

use crate::keys::{os_seed, parse_seed};
use crate::outln;
use crate::util::{bad_arg, fail, nodes_for, parse, usage, Args, CliResult};

pub const HELP: &str = "concordia demo [--out DIR] [--seed HEX] [--now RFC3339]
  Runs the camera negotiation end to end: a seller opens at 2200 USD for a Canon EOS R5,
  the buyer counters 1900 with shipping, the seller answers with a conditional counter
  (2000 pickup / 2050 shipped), the buyer accepts 2050 shipped. Both sides sign with fresh
  keys; the session state machine applies every message; a countersigned attestation is
  generated. Writes transcript.json, keys.json and attestation.json to DIR (default
  ./concordia-demo) and verifies them again.
  --seed HEX     derive both key pairs and all ids from this 32-byte seed (reproducible)
  --now RFC3339  the session's start time (default: the system clock)";

const SELLER: &str = "did:concordia:agent:camera-seller";
const BUYER: &str = "did:concordia:agent:camera-buyer";

/// One scripted step: who sends what, and the demo's one-line description of it.
struct Step {
    ty: MessageType,
    from: usize,
    body: String,
    reasoning: &'static str,
    note: &'static str,
}

fn script(offer_ids: &[String; 3]) -> Vec<Step> {
    let [o1, o2, o3] = offer_ids;
    vec![
        Step {
            ty: MessageType::Open,
            from: 0,
            body: r#"{"terms":{"item":{"value":"Canon EOS R5","type":"string"},"price":{"value":2200,"currency":"USD","type":"numeric"},"delivery_method":{"enum":["local_pickup","shipping"],"type":"enum"}},"timing":{"session_ttl":86400,"offer_ttl":3600,"max_rounds":20}}"#.into(),
            reasoning: "Selling a lightly used Canon EOS R5 body, about 12,000 shutter actuations.",
            note: "Canon EOS R5, asking 2200 USD",
        },
        Step { ty: MessageType::AcceptSession, from: 1, body: "{}".into(), reasoning: "", note: "" },
        Step {
            ty: MessageType::Offer,
            from: 0,
            body: format!(r#"{{"offer_id":"{o1}","terms":{{"item":{{"value":"Canon EOS R5"}},"price":{{"value":2200,"currency":"USD"}},"delivery_method":{{"value":"local_pickup"}}}},"complete":true}}"#),
            reasoning: "",
            note: "2200 USD, local pickup",
        },
        Step {
            ty: MessageType::Counter,
            from: 1,
            body: format!(r#"{{"offer_id":"{o2}","terms":{{"item":{{"value":"Canon EOS R5"}},"price":{{"value":1900,"currency":"USD"}},"delivery_method":{{"value":"shipping"}}}},"complete":true}}"#),
            reasoning: "Comparable bodies sell for about 1900 used; I am three states away, so it would need to ship.",
            note: "1900 USD, shipped",
        },
        Step {
            ty: MessageType::Counter,
            from: 0,
            body: format!(r#"{{"offer_id":"{o3}","conditions":[{{"if":{{"delivery_method":"local_pickup"}},"then":{{"price":{{"value":2000,"currency":"USD"}}}}}},{{"if":{{"delivery_method":"shipping"}},"then":{{"price":{{"value":2050,"currency":"USD"}}}}}}],"complete":true}}"#),
            reasoning: "I can come down to 2000 for pickup; shipping insured costs me about 50 more.",
            note: "2000 USD pickup / 2050 USD shipped",
        },
        Step {
            ty: MessageType::Accept,
            from: 1,
            body: format!(r#"{{"offer_id":"{o3}","conditions_met":{{"delivery_method":"shipping"}}}}"#),
            reasoning: "2050 shipped works for me.",
            note: "2050 USD, shipped",
        },
    ]
}

/// Bytes derived from the demo seed for one purpose (keys, ids).
fn derive(seed: &[u8; 32], label: &str) -> [u8; 32] {
    let mut input = seed.to_vec();
    input.extend_from_slice(label.as_bytes());
    digest::sha256(&input).0
}

fn hex8(bytes: &[u8; 32]) -> String {
    bytes[..4].iter().map(|b| format!("{b:02x}")).collect()
}

fn fmt_ts(t: Timestamp) -> String {
    let mut buf = [0u8; 32];
    t.format_rfc3339(&mut buf).map(str::to_string).unwrap_or_default()
}

pub fn run(mut args: Args) -> CliResult {
    let out_dir = PathBuf::from(args.value("--out")?.unwrap_or_else(|| "concordia-demo".into()));
    let seed = match args.value("--seed")? {
        Some(h) => parse_seed(&h)?,
        None => os_seed()?,
    };
    let start = match args.value("--now")? {
        Some(t) => time::parse_datetime(&t).map_err(|e| bad_arg("--now", e))?,
        None => {
            Timestamp::from_unix(SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_secs() as i64).unwrap_or(0))
        }
    };
    args.positionals(0)?;

    let keys = [KeyPair::from_seed(&derive(&seed, "seller")), KeyPair::from_seed(&derive(&seed, "buyer"))];
    let ids = [SELLER, BUYER];
    let session_id = format!("ses_{}", hex8(&derive(&seed, "session")));
    let mut session: Session<2, 8> =
        Session::new(&session_id, Timing::default(), start).map_err(|e| fail("demo: session", e))?;
    session.add_party(SELLER, Role::Initiator, Some(keys[0].public_key())).map_err(|e| fail("demo: seller", e))?;
    session.add_party(BUYER, Role::Responder, Some(keys[1].public_key())).map_err(|e| fail("demo: buyer", e))?;

    let offer_ids = [1, 2, 3].map(|i| format!("off_{}", hex8(&derive(&seed, &format!("offer{i}")))));
    outln!("Concordia demo: a Canon EOS R5 changes hands (session {session_id})")?;
    outln!("  seller {SELLER}  key {}", keys[0].public_key().to_b64url().as_str())?;
    outln!("  buyer  {BUYER}  key {}", keys[1].public_key().to_b64url().as_str())?;
    outln!()?;
    outln!("  #  from    message                    state     terms")?;

    let mut transcript: Vec<Vec<u8>> = Vec::new();
    let steps = script(&offer_ids);
    for (i, step) in steps.iter().enumerate() {
        let now = start.add_seconds(45 * (i as i64 + 1)).map_err(|e| bad_arg("--now", e))?;
        let mut bn = nodes_for(step.body.as_bytes())?;
        let body = bn.parse(step.body.as_bytes()).map_err(|e| fail("demo: body", e))?;
        let id = format!("msg_{}", hex8(&derive(&seed, &format!("msg{i}"))));
        let ts = fmt_ts(now);
        let to = [Party::new(ids[1 - step.from])];
        let mut env = Envelope::new(step.ty.as_str(), &id, &session_id, &ts, Party::new(ids[step.from]), body.root());
        env.prev_hash = session.tip();
        env.to = &to;
        env.reasoning = (!step.reasoning.is_empty()).then_some(step.reasoning);
        let mut buf = vec![0u8; step.body.len() + 2048];
        let n =
            env.write_signed(&keys[step.from], &mut buf).map_err(|e| fail(&format!("demo: message {}", i + 1), e))?;
        buf.truncate(n);
        let mut nodes = nodes_for(&buf)?;
        let msg = nodes.parse(&buf).map_err(|e| fail(&format!("demo: message {}", i + 1), e))?;
        let registered = session.registered_keys();
        let state =
            session.apply(msg.root(), &registered, now).map_err(|e| fail(&format!("demo: message {}", i + 1), e))?;
        outln!(
            "  {}  {:<6}  {:<25}  {:<8}  {}",
            i + 1,
            if step.from == 0 { "seller" } else { "buyer" },
            step.ty.as_str(),
            state.as_str(),
            step.note
        )?;
        transcript.push(buf);
    }
    let end = start.add_seconds(45 * (steps.len() as i64 + 1)).map_err(|e| bad_arg("--now", e))?;

    // Price path, read back from the signed offers.
    let prices = offer_prices(&transcript);
    outln!()?;
    outln!("Rounds: {} of {} (offers and counters)", session.round_count(), session.timing().max_rounds)?;
    for (p, name) in session.parties().iter().zip(["seller", "buyer"]) {
        let b = p.behavior();
        outln!(
            "  {name:<6} offers {}, concessions {} (mean magnitude {:.4}), reasoning {}",
            b.offers_made,
            b.concessions,
            b.concession_magnitude,
            if b.reasoning_provided { "given" } else { "none" }
        )?;
    }
    outln!("  price path (USD): {} -> accepted 2050 shipped", prices.join(" -> "))?;
    outln!("  (concessions are counted as the reference SDK counts them: between a party's successive")?;
    outln!("   offers with numeric `terms`; the seller's move came in a conditional counter)")?;
    outln!("Agreed: Canon EOS R5 for 2050 USD, shipped (state {}).", session.state().as_str())?;

    let attestation_id = format!("att_{}", hex8(&derive(&seed, "attestation")));
    let params = Params {
        attestation_id: &attestation_id,
        now: end,
        validity: Validity::Absolute {
            from: end,
            until: end.add_seconds(90 * 86_400).map_err(|e| bad_arg("--now", e))?,
        },
        category: Some("electronics.cameras"),
        value_range: Some("1000-5000_USD"),
        resolution_mechanism: "direct",
    };
    let signers = [(SELLER, keys[0].clone()), (BUYER, keys[1].clone())];
    let mut att = vec![0u8; 8192];
    let n = attestation::generate(&session, &params, &signers, &mut att).map_err(|e| fail("demo: attestation", e))?;
    att.truncate(n);

    std::fs::create_dir_all(&out_dir).map_err(|e| usage(format!("{}: {e}", out_dir.display())))?;
    let mut t = b"[\n".to_vec();
    for (i, m) in transcript.iter().enumerate() {
        t.extend_from_slice(m);
        t.extend_from_slice(if i + 1 < transcript.len() { b",\n" } else { b"\n" });
    }
    t.extend_from_slice(b"]\n");
    let keys_json = format!(
        "{{\"{BUYER}\":\"{}\",\"{SELLER}\":\"{}\"}}\n",
        keys[1].public_key().to_b64url().as_str(),
        keys[0].public_key().to_b64url().as_str()
    );
    let write = |name: &str, bytes: &[u8]| -> CliResult {
        std::fs::write(out_dir.join(name), bytes).map_err(|e| usage(format!("{name}: {e}")))
    };
    write("transcript.json", &t)?;
    write("keys.json", keys_json.as_bytes())?;
    let mut att_file = att.clone();
    att_file.push(b'\n');
    write("attestation.json", &att_file)?;

    // Verify what was written, from the files, as a third party would.
    let (v, head) = verify_files(&out_dir)?;
    outln!(
        "Attestation {attestation_id}: {} party signatures, {} countersignatures, bound to {} messages",
        v.parties,
        v.countersignatures,
        session.message_count()
    )?;
    outln!("  chain head {head}")?;
    outln!(
        "Wrote {}/transcript.json, keys.json, attestation.json; verified again: chain ok, attestation ok.",
        out_dir.display()
    )?;
    Ok(())
}

/// The prices of the basic and conditional offers in a transcript, in order.
fn offer_prices(transcript: &[Vec<u8>]) -> Vec<String> {
    let mut out = Vec::new();
    for m in transcript {
        let Ok(mut nodes) = nodes_for(m) else { continue };
        let Ok(doc) = nodes.parse(m) else { continue };
        let ty = doc.root().get("type").and_then(|t| t.as_str()).and_then(MessageType::parse);
        if !ty.is_some_and(MessageType::is_round) {
            continue;
        }
        let Some(Ok(offer)) = doc.root().get("body").map(Offer::from_body) else { continue };
        if let Some(p) = offer.numeric_term("price") {
            out.push(format!("{p}"));
        } else {
            let alts: Vec<String> = offer
                .conditions()
                .filter_map(|(_, then)| then.pointer("/price/value").and_then(|v| v.as_f64()))
                .map(|p| format!("{p}"))
                .collect();
            if !alts.is_empty() {
                out.push(alts.join("/"));
            }
        }
    }
    out
}

fn verify_files(dir: &std::path::Path) -> CliResult<(attestation::Verified, String)> {
    let read = |name: &str| std::fs::read(dir.join(name)).map_err(|e| usage(format!("{name}: {e}")));
    let (kb, tb, ab) = (read("keys.json")?, read("transcript.json")?, read("attestation.json")?);
    let (mut kn, mut tn, mut an) = (nodes_for(&kb)?, nodes_for(&tb)?, nodes_for(&ab)?);
    let keys = parse("keys.json", &kb, &mut kn)?;
    let transcript = parse("transcript.json", &tb, &mut tn)?;
    let att = parse("attestation.json", &ab, &mut an)?;
    let chain = message::verify_transcript(transcript.root(), &KeyMap(keys.root()))
        .map_err(|(i, e)| fail(&format!("transcript.json: message {i}"), e))?;
    let v = attestation::verify(att.root(), keys.root(), Some(transcript.root()))
        .map_err(|e| fail("attestation.json", e))?;
    Ok((v, chain.head().to_prefixed().as_str().to_string()))
}
