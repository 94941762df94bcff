//! `concordia aip ...`: AIP handles, sealed envelopes, credentials and ranking.
//!
//! All protocol logic is in `concordia_core::aip`; this file reads files, supplies OS time
//! and randomness, and maps results to exit codes (0 ok, 1 rejected, 2 usage/malformed; a
//! core error by its class through [`crate::util::fail`]).

use concordia_core::aip::replay;
use concordia_core::aip::{did, envelope, handle, trust, vc};
use concordia_core::time::Timestamp;
use concordia_core::{jcs, Error};
use concordia_host::aip::{
    default_endpoint, default_type, open_envelope, Addressee, Delivery, Freshness, KeyFile, OpenPolicy, Part,
};
use concordia_host::replay::{Opened as StoreOpened, ReplayStore, StoreError, StoreOptions};
use concordia_host::vc::{verify_credential_proof, VcArgs, VcTime};

use concordia_core::aip::hpke;

use crate::keys::{os_seed, parse_seed};
use crate::outln;
use crate::secret::Dest;
use crate::util::{
    bad_arg, bad_sub, canonical, display_name, emit, fail, json_str, nodes_for, one_line, parse, read_input, sub_help,
    usage, Args, CliResult, Fail, VecRefSink, VecSink,
};

pub const HELP: &str = "concordia aip <command>: AIP addressing, sealed envelopes, credentials, ranking

  aip handle X                    X: name#domain, name%23domain, @name@domain or did:aip:domain:name;
                                  prints {\"handle\", \"url_form\", \"did\"}
  aip keygen [--did DID] [--doc OUT.json] [--endpoint URL] [--route-mode direct|relay] [--seed HEX]
             [-o KEY.json [--force]]
                                  new Ed25519 + X25519 key file (JSON) on stdout, or with -o in
                                  KEY.json, created with mode 0600 (an existing KEY.json or a
                                  symlink is refused; --force replaces it); a stdout that is a
                                  file others can read (`> key.json`) gets a warning on stderr.
                                  With --did and --doc also writes the matching DID Document to
                                  OUT.json (--endpoint needs --doc). Every option is checked
                                  before a key is made. --seed (64 hex digits) makes both keys
                                  from it instead of OS randomness (the Ed25519 seed itself,
                                  X25519 from SHA-256 of a label and it: for tests and examples
                                  only)
  aip seal --to RECIPIENT_DID_DOC.json --key SENDER_KEY.json [--type T] [--id UUID]
           [--created-at RFC3339] MESSAGE.json
                                  seals the canonical MESSAGE to the recipient's X25519 key and
                                  prints the signed envelope
  aip open --key RECIPIENT_KEY.json --from SENDER_DID_DOC.json [--now RFC3339]
           [--recipient DID | --any-recipient] [--replay-store FILE [--new-replay-store]
           [--replay-mac-key KEYFILE] [--replay-generation GENFILE]] ENVELOPE.json
                                  verifies the envelope's signature under the sender's DID
                                  Document, that it is addressed to the recipient (the key file's
                                  \"did\", or --recipient DID; a key file without one needs
                                  --recipient, or --any-recipient to skip this check by name),
                                  opens the body, checks its freshness (created_at at most 300 s
                                  ahead of the clock, or of --now, and at most 600 s old), and
                                  prints the body. With --replay-store, also refuses an envelope
                                  already opened with that store (same sender and id: a replay,
                                  exit 1); the store keeps the replay window across invocations
                                  (one locked file whatever symlink names it, updated atomically
                                  before the body is printed; a store with a second hard link is
                                  refused). A store that does not exist yet starts cold:
                                  envelopes created before that moment or up to 300 s after it
                                  are refused until 900 s have passed, unless --new-replay-store
                                  says the store is new. A store that is not a valid snapshot is
                                  refused (exit 2): remove it to start cold. Its checksum detects
                                  accidents, not tampering: --replay-mac-key seals it with
                                  HMAC-SHA256 under the bytes of KEYFILE (at least 16; keep it
                                  outside the store's directory), bound to the recipient's DID,
                                  so an edited store or another agent's does not open;
                                  --replay-generation keeps the store's generation in GENFILE
                                  (read as the minimum, written after each save), so an older
                                  copy of the store is refused.
  aip vc issue --key KEY.json [--created RFC3339] CREDENTIAL.json
                                  adds an eddsa-jcs-2022 proof (issuer must be the key's did:key)
  aip vc verify [--anchors ANCHORS.json] [--revoked IDS.json] [--now RFC3339 | --no-time-check]
                [--domain D] [--challenge C] SIGNED.json
                                  verifies the proof (did:key resolved locally), that the proof's
                                  key is the issuer's, issuer anchor, revocation (ids compared
                                  decoded), the validity period and the proof's created/expires at
                                  the clock (or --now; --no-time-check skips them; a proof that
                                  expires before it was created is always refused), and with
                                  --domain/--challenge that the proof carries that domain and
                                  challenge
  aip vc verify --proof-only SIGNED.json
                                  verifies the Data Integrity proof alone (its did:key signature)
                                  and reports the issuer binding as unchecked (e.g. an https
                                  issuer, as in W3C's eddsa-jcs-2022 test vectors)
  aip rank RESULTS.json           RESULTS: [{\"id\", \"semantic_rank\", \"fts_rank\", \"trust_score\"}, ...];
                                  prints them ordered by final with \"rrf\" and \"final\" added

Exit status: 0 ok, 1 rejected (a protocol check failed: bad signature, wrong key, expired, a
DID Document or envelope without a required member, ...), 2 usage or malformed input
(malformed JSON, an undecodable encoding, a handle or DID that does not parse).";

/// The subcommands, in the order of [`HELP`].
pub const SUBCOMMANDS: [&str; 7] = ["handle", "keygen", "seal", "open", "vc issue", "vc verify", "rank"];

/// `concordia aip [SUB] --help`: the group's help, or one subcommand's (`aip vc` shows both
/// `vc` entries).
pub fn help(rest: &[String]) -> CliResult<String> {
    let pos: Vec<&str> = rest.iter().map(String::as_str).filter(|a| !a.starts_with('-')).take(2).collect();
    let path = match pos.as_slice() {
        [] => return Ok(HELP.to_string()),
        ["vc", second] if matches!(*second, "issue" | "verify") => format!("vc {second}"),
        [first, ..] => (*first).to_string(),
    };
    sub_help(HELP, "aip", "aip ", &path).ok_or_else(|| bad_sub("aip", Some(&path), &SUBCOMMANDS))
}

pub fn run(mut args: Args) -> CliResult {
    let sub = args.positionals_first().ok_or_else(|| bad_sub("aip", None, &SUBCOMMANDS))?;
    match sub.as_str() {
        "handle" => handle_cmd(args),
        "keygen" => keygen(args),
        "seal" => seal(args),
        "open" => open(args),
        "vc" => match args.positionals_first().as_deref() {
            Some("issue") => vc_issue(args),
            Some("verify") => vc_verify(args),
            Some(other) => Err(bad_sub("aip vc", Some(other), &["issue", "verify"])),
            None => Err(bad_sub("aip vc", None, &["issue", "verify"])),
        },
        "rank" => rank(args),
        other => Err(bad_sub("aip", Some(other), &SUBCOMMANDS)),
    }
}

fn handle_cmd(args: Args) -> CliResult {
    let pos = args.positionals(1)?;
    let x = pos.first().ok_or_else(|| usage("usage: concordia aip handle X"))?;
    let h = handle::parse_any(x).map_err(|e| fail(&display_name(x), e))?;
    outln!(
        "{{\"handle\": {}, \"url_form\": {}, \"did\": {}}}",
        json_str(&h.handle()),
        json_str(&h.url_form()),
        json_str(&h.did())
    )?;
    Ok(())
}

fn load_key(path: &str) -> CliResult<KeyFile> {
    let (name, bytes) = read_input(Some(path))?;
    // The file holds the secrets in hex: erased when dropped.
    let bytes = concordia_host::zeroize::Zeroizing::new(bytes);
    let mut nodes = nodes_for(&bytes)?;
    let doc = parse(&name, &bytes, &mut nodes)?;
    KeyFile::from_value(doc.root()).map_err(|e| match e {
        Error::Schema(d) | Error::Encoding(d) => usage(format!("{name}: {d}")),
        e => fail(&name, e),
    })
}

fn keygen(mut args: Args) -> CliResult {
    // Every argument is read and checked before a secret exists or anything is written.
    let did_text = args.value("--did")?;
    let doc_out = args.value("--doc")?;
    let endpoint = args.value("--endpoint")?;
    let mode = args.value("--route-mode")?;
    let seed = args.value("--seed")?.map(|s| parse_seed(&s)).transpose()?;
    let dest = Dest::from_args(&mut args)?;
    args.positionals(0)?;
    let subject = did_text.as_deref().map(did::parse_did).transpose().map_err(|e| bad_arg("--did", e))?;
    let mode = match mode.as_deref() {
        None | Some("relay") => did::RouteMode::Relay,
        Some("direct") => did::RouteMode::Direct,
        Some(other) => return Err(usage(format!("--route-mode: \"direct\" or \"relay\", not {:?}", one_line(other)))),
    };
    let doc_for = match (&doc_out, &subject) {
        (Some(_), None) => return Err(usage("--doc needs --did")),
        (None, _) if endpoint.is_some() => return Err(usage("--endpoint needs --doc")),
        (Some(_), Some(subject)) => {
            let endpoint = endpoint.unwrap_or_else(|| default_endpoint(subject));
            // The endpoint is checked by writing a document with placeholder keys.
            let ed = concordia_core::sign::KeyPair::from_seed(&[0; 32]).public_key();
            let x = hpke::X25519PublicKey([9; 32]);
            did::write_document(subject, mode, &endpoint, &ed, &x, &mut VecRefSink(&mut Vec::new()))
                .map_err(|e| bad_arg("--endpoint", e))?;
            Some(endpoint)
        }
        (None, _) => None,
    };
    let kf = match seed {
        Some(s) => KeyFile::from_seed(&s, did_text.clone()),
        None => KeyFile::from_random(&*os_seed()?, &*os_seed()?, did_text.clone()),
    }
    .map_err(|e| bad_arg("--did", e))?;
    let mut text = kf.to_json().map_err(|e| fail("keygen", e))?;
    text.push(b'\n');
    let mut doc = Vec::new();
    if let (Some(endpoint), Some(subject)) = (&doc_for, &subject) {
        let xp = kf.x.as_ref().map(|x| x.public_key()).ok_or_else(|| usage("keygen: no X25519 key"))?;
        did::write_document(subject, mode, endpoint, &kf.ed.public_key(), &xp, &mut VecRefSink(&mut doc))
            .map_err(|e| bad_arg("--endpoint", e))?;
        doc.push(b'\n');
    }
    // The key file first (a refused -o FILE costs nothing), then the DID Document.
    let file = dest.open()?;
    dest.write(file, &text)?;
    if let Some(path) = doc_out {
        std::fs::write(&path, doc).map_err(|e| usage(format!("{}: {e}", display_name(&path))))?;
    }
    Ok(())
}

fn now() -> CliResult<Timestamp> {
    let d =
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_err(|e| usage(format!("clock: {e}")))?;
    Ok(Timestamp::from_unix(d.as_secs() as i64))
}

fn rfc3339(t: Timestamp) -> String {
    let mut buf = [0u8; 20];
    t.format_rfc3339(&mut buf).map(str::to_owned).unwrap_or_default()
}

fn uuid_v4() -> CliResult<String> {
    let seed = os_seed()?;
    let mut random = [0u8; 16];
    random.copy_from_slice(&seed[..16]);
    concordia_host::uuid_v4(random).map_err(|e| fail("message id", e))
}

fn load_doc_bytes(path: &str) -> CliResult<(String, Vec<u8>)> {
    read_input(Some(path))
}

fn seal(mut args: Args) -> CliResult {
    let to = args.value("--to")?.ok_or_else(|| usage("seal needs --to RECIPIENT_DID_DOC.json"))?;
    let key = args.value("--key")?.ok_or_else(|| usage("seal needs --key SENDER_KEY.json"))?;
    let kind = args.value("--type")?;
    let id = args.value("--id")?;
    let created = args.value("--created-at")?;
    let pos = args.positionals(1)?;
    let sender = load_key(&key)?;
    let from = sender
        .did
        .clone()
        .ok_or_else(|| usage(format!("{}: no \"did\" (use `concordia aip keygen --did ...`)", display_name(&key))))?;
    let (dname, dbytes) = load_doc_bytes(&to)?;
    let mut dnodes = nodes_for(&dbytes)?;
    let rdoc = dnodes.parse(&dbytes).and_then(|d| did::document_from_value(d.root())).map_err(|e| fail(&dname, e))?;
    let recipient =
        *rdoc.agreement_keys.first().ok_or_else(|| usage(format!("{dname}: no X25519 keyAgreement key")))?;
    let (mname, mbytes) = read_input(pos.first().map(String::as_str))?;
    let mut mnodes = nodes_for(&mbytes)?;
    let msg = parse(&mname, &mbytes, &mut mnodes)?;
    let body = canonical(msg.root())?;
    let kind = kind.unwrap_or_else(|| default_type(msg.root()));
    let id = match id {
        Some(i) => i,
        None => uuid_v4()?,
    };
    let created = match created {
        Some(c) => c,
        None => rfc3339(now()?),
    };
    let header = envelope::Header { id: &id, from: &from, to: rdoc.id, kind: &kind, created_at: &created };
    // The header is made of options (--id, --type, --created-at) and what the key file and
    // DID Document name: a field the core refuses is a usage error, not a verdict.
    header.check().map_err(|e| bad_arg("envelope header", e))?;
    let mut out = vec![0u8; body.len() * 4 / 3 + 2048];
    let n =
        envelope::seal(&header, &recipient, &body, &*os_seed()?, &sender.ed, &mut out).map_err(|e| fail("seal", e))?;
    out.truncate(n);
    emit(&out)
}

fn open(mut args: Args) -> CliResult {
    let key = args.value("--key")?.ok_or_else(|| usage("open needs --key RECIPIENT_KEY.json"))?;
    let from = args.value("--from")?.ok_or_else(|| usage("open needs --from SENDER_DID_DOC.json"))?;
    let at = now_or(args.value("--now")?)?;
    let recipient = args.value("--recipient")?;
    let any_recipient = args.flag("--any-recipient");
    let store_path = args.value("--replay-store")?;
    let new_store = args.flag("--new-replay-store");
    let mac_key_path = args.value("--replay-mac-key")?;
    let generation_path = args.value("--replay-generation")?;
    if store_path.is_none() && (new_store || mac_key_path.is_some() || generation_path.is_some()) {
        return Err(usage("--new-replay-store, --replay-mac-key and --replay-generation need --replay-store FILE"));
    }
    let pos = args.positionals(1)?;
    let me = load_key(&key)?;
    let kname = display_name(&key);
    let secret = me.x.ok_or_else(|| usage(format!("{kname}: no x25519_secret_hex")))?;
    let addressee = Addressee::from_args(recipient.as_deref(), me.did.as_deref(), any_recipient)
        .map_err(|e| bad_arg("--recipient", e))?;
    if addressee == Addressee::Recipient(None) {
        return Err(usage(format!(
            "{kname}: no \"did\": pass --recipient DID (the recipient's own did:aip), or --any-recipient to open \
             envelopes addressed to any agent"
        )));
    }
    let (dname, dbytes) = load_doc_bytes(&from)?;
    let (name, bytes) = read_input(pos.first().map(String::as_str))?;
    let owner = match addressee {
        Addressee::Recipient(d) => d,
        Addressee::Unchecked => me.did.as_deref(),
    };
    let seal = match &store_path {
        None => None,
        Some(_) => Some(StoreSeal::load(mac_key_path.as_deref(), generation_path.as_deref(), owner)?),
    };
    let mut store = match (&store_path, &seal) {
        (Some(p), Some(seal)) => Some(seal.open(p, at, new_store)?),
        _ => None,
    };
    let cold =
        store.as_ref().is_some_and(|s| s.opened == StoreOpened::ColdStart || s.window.cold_start_guard().is_some());
    let policy = OpenPolicy { freshness: Freshness::At(at), addressee, window: store.as_mut().map(|s| &mut s.window) };
    let opened = open_envelope(&bytes, &dbytes, &secret, policy).map_err(|r| match (r.part, &store_path) {
        (Part::Policy, _) if recipient.is_some() => bad_arg("--recipient", r.error),
        (Part::Policy, _) => fail(&kname, r.error),
        (Part::SenderDocument, _) => fail(&dname, r.error),
        (Part::Envelope, Some(p)) if cold && r.error.class() == concordia_core::Class::Temporal => {
            fail(&format!("{name} (replay store {} started cold)", display_name(p)), r.error)
        }
        (Part::Envelope, _) => fail(&name, r.error),
    })?;
    let context = format!("{name}: envelope {}", one_line(opened.header.id));
    let body = match opened.delivery {
        Delivery::Fresh(body) => body,
        Delivery::Duplicate => {
            let sname = store_path.as_deref().map(display_name).unwrap_or_default();
            return Err(Fail::Rejected(format!(
                "{context}: a replay (this sender's id was already opened with replay store {sname})"
            )));
        }
    };
    // The store is written before the body is printed.
    if let (Some(mut store), Some(seal), Some(p)) = (store, seal, &store_path) {
        seal.save(&mut store, &display_name(p))?;
    }
    emit(&body)
}

/// `aip open`'s replay store options: the MAC key (read from its file), the owner it is
/// bound to (the recipient's DID) and the generation file.
struct StoreSeal {
    key: Option<Vec<u8>>,
    owner: Vec<u8>,
    generation: Option<(String, u64)>,
}

impl Drop for StoreSeal {
    fn drop(&mut self) {
        if let Some(k) = self.key.as_mut() {
            k.iter_mut().for_each(|b| *b = 0);
            std::hint::black_box(k);
        }
    }
}

impl StoreSeal {
    fn load(key: Option<&str>, generation: Option<&str>, owner: Option<&str>) -> CliResult<StoreSeal> {
        let key = key
            .map(|k| {
                let bytes =
                    std::fs::read(k).map_err(|e| usage(format!("--replay-mac-key {}: {e}", display_name(k))))?;
                if bytes.len() < replay::MIN_MAC_KEY_LEN {
                    return Err(usage(format!(
                        "--replay-mac-key {}: a MAC key needs at least {} bytes (32 random bytes are right)",
                        display_name(k),
                        replay::MIN_MAC_KEY_LEN
                    )));
                }
                Ok(bytes)
            })
            .transpose()?;
        let generation = generation
            .map(|g| {
                let name = display_name(g);
                let min = match std::fs::read_to_string(g) {
                    Ok(t) => t.trim().parse::<u64>().map_err(|_| {
                        usage(format!("--replay-generation {name}: not a generation (a decimal number)"))
                    })?,
                    Err(e) if e.kind() == std::io::ErrorKind::NotFound => 0,
                    Err(e) => return Err(usage(format!("--replay-generation {name}: {e}"))),
                };
                Ok((g.to_owned(), min))
            })
            .transpose()?;
        let owner = if key.is_some() { owner.unwrap_or("").as_bytes().to_vec() } else { Vec::new() };
        Ok(StoreSeal { key, owner, generation })
    }

    fn open(&self, path: &str, at: Timestamp, new_store: bool) -> CliResult<ReplayStore> {
        let integrity = replay::Integrity {
            mac_key: self.key.as_deref(),
            owner: &self.owner,
            min_generation: self.generation.as_ref().map_or(0, |g| g.1),
        };
        let sname = display_name(path);
        ReplayStore::open_with(std::path::Path::new(path), at, &StoreOptions { new_ok: new_store, integrity }).map_err(
            |e| match e {
                StoreError::Io(e) => usage(format!("replay store {sname}: {e}")),
                StoreError::Refused(e) => usage(format!(
                    "replay store {sname}: {e} (refusing to open envelopes; remove the store to start cold)"
                )),
            },
        )
    }

    fn save(&self, store: &mut ReplayStore, sname: &str) -> CliResult<()> {
        let generation = store.save().map_err(|e| usage(format!("replay store {sname}: {e}")))?;
        if let Some((g, _)) = &self.generation {
            concordia_host::store::resolve(std::path::Path::new(g))
                .and_then(|r| concordia_host::write_atomic(&r, format!("{generation}\n").as_bytes()))
                .map_err(|e| usage(format!("--replay-generation {}: {e}", display_name(g))))?;
        }
        Ok(())
    }
}

fn now_or(text: Option<String>) -> CliResult<Timestamp> {
    match text {
        Some(t) => envelope::parse_rfc3339(&t).map_err(|e| bad_arg("--now", e)),
        None => now(),
    }
}

fn vc_issue(mut args: Args) -> CliResult {
    let key = args.value("--key")?.ok_or_else(|| usage("vc issue needs --key KEY.json"))?;
    let created = args.value("--created")?;
    let pos = args.positionals(1)?;
    let k = load_key(&key)?;
    let (name, bytes) = read_input(pos.first().map(String::as_str))?;
    let mut nodes = nodes_for(&bytes)?;
    let doc = parse(&name, &bytes, &mut nodes)?;
    let mut out = vec![0u8; bytes.len() * 2 + 1024];
    let n = match vc::issue(doc.root(), &k.ed, created.as_deref(), &mut out) {
        Err(Error::BufferTooSmall { needed }) => {
            out.resize(needed, 0);
            vc::issue(doc.root(), &k.ed, created.as_deref(), &mut out)
        }
        other => other,
    }
    .map_err(|e| fail(&name, e))?;
    out.truncate(n);
    emit(&out)
}

fn string_list(path: &str) -> CliResult<Vec<String>> {
    let (name, bytes) = read_input(Some(path))?;
    let mut nodes = nodes_for(&bytes)?;
    let doc = parse(&name, &bytes, &mut nodes)?;
    let root = doc.root();
    let list = root.get("anchors").or(root.get("revoked")).unwrap_or(root);
    if list.kind() != concordia_core::json::Kind::Array {
        return Err(usage(format!("{name}: expected an array of strings")));
    }
    // Decoded: an id listed as "urn:uuid:\u0030f8f" is the id "urn:uuid:0f8f".
    list.elements()
        .map(|v| concordia_host::string_value(v).ok_or_else(|| usage(format!("{name}: expected an array of strings"))))
        .collect()
}

fn vc_verify(mut args: Args) -> CliResult {
    let proof_only = args.flag("--proof-only");
    let no_time = args.flag("--no-time-check");
    let anchors = args.value("--anchors")?.map(|p| string_list(&p)).transpose()?;
    let revoked = args.value("--revoked")?.map(|p| string_list(&p)).transpose()?.unwrap_or_default();
    let now_arg = args.value("--now")?;
    let domain = args.value("--domain")?;
    let challenge = args.value("--challenge")?;
    if proof_only
        && (anchors.is_some()
            || !revoked.is_empty()
            || now_arg.is_some()
            || no_time
            || domain.is_some()
            || challenge.is_some())
    {
        return Err(usage(
            "--proof-only checks the proof alone: it takes no --anchors, --revoked, --now, --no-time-check, --domain or --challenge",
        ));
    }
    let now = now_arg.map(|t| envelope::parse_rfc3339(&t).map_err(|e| bad_arg("--now", e))).transpose()?;
    let time = VcTime::from_args(now, !no_time).map_err(|e| bad_arg("--no-time-check", e))?;
    let pos = args.positionals(1)?;
    let (name, bytes) = read_input(pos.first().map(String::as_str))?;
    let mut nodes = nodes_for(&bytes)?;
    if proof_only {
        let method =
            verify_credential_proof(&bytes, &mut nodes).map_err(|e| fail(&name, e))?.verification_method.to_owned();
        let doc = parse(&name, &bytes, &mut nodes)?;
        let issuer = doc.root().get("issuer").map(|i| {
            if i.kind() == concordia_core::json::Kind::Object {
                i.get("id")
            } else {
                Some(i)
            }
        });
        let issuer = issuer.flatten().and_then(concordia_host::string_value);
        outln!(
            "{{\"verified\": true, \"proof_only\": true, \"verification_method\": {}, \"issuer\": {}, \"issuer_binding\": \"unchecked\"}}",
            json_str(&method),
            issuer.as_deref().map(json_str).unwrap_or_else(|| "null".into())
        )?;
        return Ok(());
    }
    let v =
        VcArgs { anchors, revoked, domain, challenge, time }.verify(&bytes, &mut nodes).map_err(|e| fail(&name, e))?;
    outln!(
        "{{\"verified\": true, \"issuer\": {}, \"subject\": {}}}",
        json_str(v.issuer),
        v.subject.map(json_str).unwrap_or_else(|| "null".into())
    )?;
    Ok(())
}

fn rank_of(v: Option<concordia_core::json::Value<'_>>, name: &str) -> CliResult<Option<u32>> {
    match v {
        None => Ok(None),
        Some(v) if v.is_null() => Ok(None),
        Some(v) => match v.as_i64() {
            Some(r) if v.is_integer_literal() && (1..=i64::from(u32::MAX)).contains(&r) => Ok(Some(r as u32)),
            _ => Err(usage(format!("{name}: ranks must be integers from 1, or null"))),
        },
    }
}

fn rank(args: Args) -> CliResult {
    let pos = args.positionals(1)?;
    let (name, bytes) = read_input(pos.first().map(String::as_str))?;
    let mut nodes = nodes_for(&bytes)?;
    let doc = parse(&name, &bytes, &mut nodes)?;
    let items: Vec<_> = doc.root().elements().collect();
    if doc.root().kind() != concordia_core::json::Kind::Array {
        return Err(usage(format!("{name}: expected an array of results")));
    }
    let mut cands = Vec::with_capacity(items.len());
    for it in &items {
        let trust_score = it
            .get("trust_score")
            .and_then(|v| v.as_f64())
            .ok_or_else(|| usage(format!("{name}: every result needs a numeric trust_score")))?;
        cands.push(trust::Candidate {
            semantic_rank: rank_of(it.get("semantic_rank"), &name)?,
            fts_rank: rank_of(it.get("fts_rank"), &name)?,
            trust_score,
        });
    }
    let mut ranked = vec![trust::Ranked::default(); cands.len()];
    trust::rank(&cands, &mut ranked).map_err(|e| fail(&name, e))?;
    let mut sink = VecSink::default();
    sink.0.push(b'[');
    for (i, r) in ranked.iter().enumerate() {
        if i > 0 {
            sink.0.push(b',');
        }
        let item = *items.get(r.index).ok_or_else(|| usage(format!("{name}: ranking returned an unknown result")))?;
        sink.0.push(b'{');
        write_members(item, &mut sink.0);
        sink.0.extend_from_slice(b"\"rrf\":");
        sink.0.extend_from_slice(&jcs_number(r.rrf));
        sink.0.extend_from_slice(b",\"final\":");
        sink.0.extend_from_slice(&jcs_number(r.final_score));
        sink.0.push(b'}');
    }
    sink.0.extend_from_slice(b"]\n");
    emit(&sink.0)
}

fn write_members(item: concordia_core::json::Value<'_>, out: &mut Vec<u8>) {
    for (k, v) in item.members() {
        if k.eq_str("rrf") || k.eq_str("final") {
            continue;
        }
        let mut buf = vec![0u8; k.raw().len() * 4 + 8];
        let key = k.decode_into(&mut buf).map(str::to_owned).unwrap_or_default();
        out.extend_from_slice(json_str(&key).as_bytes());
        out.push(b':');
        let _ = jcs::write(v, &mut VecRefSink(out));
        out.push(b',');
    }
}

fn jcs_number(f: f64) -> Vec<u8> {
    let mut v = Vec::new();
    let _ = jcs::write_number(f, &mut VecRefSink(&mut v));
    v
}
