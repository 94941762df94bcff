//! Writes the raw seed corpora into `fuzz/corpus/<target>/` (see FUZZING.md, "Seed
//! corpora"): from the vendored conformance vectors, the RFC 8785 test data, the message
//! chain vector, and a few values made with the core itself (AIP envelopes, DID
//! Documents, Consensus commands). Run `cargo fuzz cmin <target>` afterwards, then pack
//! the folders into the committed archives (`tools/fuzz-seeds.sh pack`).
//!
//! ```text
//! cd fuzz && cargo +nightly run --example make_seeds
//! for t in $(cargo fuzz list); do cargo +nightly fuzz cmin -s none $t; done
//! ../tools/fuzz-seeds.sh pack $(ls corpus)
//! ```

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};

use concordia_core::aip::{did, envelope, hpke};
use concordia_core::consensus::command::{Action, Command};
use concordia_core::digest::sha256;
use concordia_core::sign::KeyPair;
use serde_json::Value;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

struct Seeds {
    target: &'static str,
    items: BTreeSet<Vec<u8>>,
}

impl Seeds {
    fn new(target: &'static str) -> Self {
        Seeds { target, items: BTreeSet::new() }
    }
    fn add(&mut self, b: impl AsRef<[u8]>) {
        self.items.insert(b.as_ref().to_vec());
    }
    fn write(self) {
        let dir = root().join("fuzz/corpus").join(self.target);
        fs::create_dir_all(&dir).expect("corpus dir");
        for item in &self.items {
            let name = sha256(item).to_hex();
            fs::write(dir.join(&name.as_str()[..40]), item).expect("write seed");
        }
        println!("{:>28}: {} seeds", self.target, self.items.len());
    }
}

fn json_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let Ok(rd) = fs::read_dir(dir) else { return out };
    for e in rd.flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(json_files(&p));
        } else if p.extension().is_some_and(|x| x == "json") {
            out.push(p);
        }
    }
    out.sort();
    out
}

fn strings(v: &Value, out: &mut BTreeSet<String>) {
    match v {
        Value::String(s) => {
            out.insert(s.clone());
        }
        Value::Array(a) => a.iter().for_each(|x| strings(x, out)),
        Value::Object(m) => m.iter().for_each(|(k, x)| {
            out.insert(k.clone());
            strings(x, out);
        }),
        _ => {}
    }
}

fn main() {
    let vectors = root().join("conformance/vectors");
    let rfc = root().join("core/tests/data/rfc8785");
    let mut json = Seeds::new("json_parse");
    let mut all_strings = BTreeSet::new();
    let mut vector_values = Vec::new();
    for p in json_files(&vectors) {
        let bytes = fs::read(&p).expect("read vector");
        if bytes.len() > 64 * 1024 {
            continue; // manifest.json: a long file list, and it would set libFuzzer's max_len
        }
        json.add(&bytes);
        if let Ok(v) = serde_json::from_slice::<Value>(&bytes) {
            strings(&v, &mut all_strings);
            for k in ["input", "context"] {
                if let Some(x) = v.get(k) {
                    json.add(serde_json::to_vec(x).expect("json"));
                }
            }
            vector_values.push(v);
        }
    }
    for p in json_files(&rfc.join("cyberphone/input")) {
        json.add(fs::read(&p).expect("read rfc8785 input"));
    }
    // ES6 number formatting data: `hex,expected` lines; seed arrays of the expected forms.
    let numbers = fs::read_to_string(rfc.join("es6-numbers/es6testfile-first10000.txt")).expect("es6 numbers");
    let lits: Vec<&str> = numbers.lines().filter_map(|l| l.split(',').nth(1)).collect();
    for chunk in lits.chunks(250) {
        json.add(format!("[{}]", chunk.join(",")));
    }
    for t in [
        "-0",
        "-0.0",
        "1e-400",
        "9007199254740993",
        "100000000000000000000",
        "1e400",
        "\u{feff}{}",
        "\"\\ud800\"",
        "{\"a\":1,\"a\":2}",
        "[1.0,1E2,0.1e1,-1.5e-7]",
        "\"\\u00e9\\ud83d\\ude00\"",
        "{\"\\u0061\":1,\"b\":[]}",
    ] {
        json.add(t);
    }
    let json_items = json.items.clone();
    json.write();
    for target in ["jcs_roundtrip", "jcs_differential"] {
        let mut s = Seeds::new(target);
        json_items.iter().for_each(|i| s.add(i));
        s.write();
    }

    // verify_message: flag byte + a message, a signed record, or a whole transcript.
    let mut msg = Seeds::new("verify_message");
    for v in &vector_values {
        let Some(input) = v.get("input") else { continue };
        msg.add([&[0u8][..], &serde_json::to_vec(input).expect("json")].concat());
        if let (Some(msgs), Some(keys)) = (input.get("messages"), v.pointer("/context/public_keys_b64url")) {
            let t = serde_json::json!({"messages": msgs, "public_keys_b64url": keys});
            msg.add([&[1u8][..], &serde_json::to_vec(&t).expect("json")].concat());
            for (i, m) in msgs.as_array().into_iter().flatten().enumerate() {
                msg.add([&[i as u8 + 2][..], &serde_json::to_vec(m).expect("json")].concat());
            }
        }
    }
    msg.write();

    // verify_profile: one two-byte index per vector (positive + canary).
    let mut prof = Seeds::new("verify_profile");
    for i in 0..concordia_fuzz::vectors::all().len() as u16 {
        prof.add(i.to_le_bytes());
    }
    prof.write();

    // session_apply: deterministic pseudo-random step streams (libFuzzer's coverage does the rest).
    let mut sess = Seeds::new("session_apply");
    let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
    for n in 0..64 {
        let mut b = Vec::new();
        for _ in 0..(32 + n * 8) {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            b.push(x as u8);
        }
        sess.add(b);
    }
    sess.write();

    // base64url_and_digest_forms: every string in the vectors (keys, signatures, digests).
    let mut forms = Seeds::new("base64url_and_digest_forms");
    for s in &all_strings {
        if s.len() <= 200 {
            forms.add(s);
        }
    }
    forms.add("");
    forms.add("Zm9vYmFy");
    forms.add("3mJr7AoUXx2Wqd");
    forms.write();

    // Consensus.
    let id = "3f2b8c1e-5d4a-4e7b-9c2f-1a2b3c4d5e6f";
    let secret = "6_asp1MbRl66oRMolZ2m4ep4Q3azK7nvIuj-2X7NjlA";
    let block = format!(
        "{{\n  \"schema\": \"https://consensus.md/schemas/invitation-email/v1\",\n  \"invitation_id\": \"{id}\",\n  \
         \"invite_uri\": \"https://consensus.md/i/{id}#secret={secret}\",\n  \"agent_exchange\": {{ \"method\": \"POST\", \
         \"href\": \"https://consensus.md/api/v1/agent/invitations/{id}/exchange\" }},\n  \"agent_claim\": {{ \"email_proof\": \
         \"ep_private_proof_123\", \"meaning\": \"A private proof delivered only in this email.\" }}\n}}"
    );
    let mut inv = Seeds::new("consensus_invitation");
    for (b, e) in [("---BEGIN CONSENSUS INVITATION V1---", "---END CONSENSUS INVITATION V1---")] {
        inv.add(format!("Hello agent,\r\n\r\nYou are invited.\r\n\r\n{b}\r\n{block}\r\n{e}\r\n\r\n-- Consensus\r\n"));
        inv.add(format!("{b}\n{block}\n{e}\n"));
        inv.add(format!("{b}\n{}\n{e}\n", block.replace("#secret=", "?secret=")));
    }
    inv.write();
    let mut cmd = Seeds::new("consensus_command");
    let h = sha256(b"# Room\n").to_hex();
    for (a, body) in
        [(Action::Comment, "Why \"Friday\"?\n"), (Action::Agree, ""), (Action::Disagree, ""), (Action::Abstain, "")]
    {
        if let Ok(c) = Command::new(a, body, 1, h.as_str()) {
            let mut out = vec![0u8; 1024];
            if let Ok(n) = c.wire_to_slice(&mut out) {
                cmd.add(&out[..n]);
            }
        }
    }
    cmd.add(format!(r#"{{"revision":1,"digest":"{h}","body":"\u0061","action":"comment"}}"#));
    cmd.write();
    let mut cd = Seeds::new("content_digest");
    for f in [
        "sha-256=:RK/0qy18MlBSVnWgjwz6lZEWjP/lF5HF9bvEF8FabDg=:",
        "sha-256=:d435Qo+nKZ+gLcUHn7GQtQ72hiBVAgqoLsZnZPiTGPk=:,sha-512=:YMAam51Jz/jOATT6/zvHrLVgOYTGFy1d6GJiOHTohq4yP+pgk4vf2aCsyRZOtw8MjkM7iw7yZ/WkppmM44T3qg==:",
        "sha-256=:47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=:",
        "sha-512=:YMAam51Jz/jOATT6/zvHrLVgOYTGFy1d6GJiOHTohq4yP+pgk4vf2aCsyRZOtw8MjkM7iw7yZ/WkppmM44T3qg==:;a=1, sha-256=:47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=:;b=?0",
        "sha-256=(:RK/0qy18MlBSVnWgjwz6lZEWjP/lF5HF9bvEF8FabDg=:)",
        "unixtime=1700000000, sha-256=:47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=:",
    ] {
        cd.add(f);
    }
    cd.write();

    // AIP.
    let kp = KeyPair::from_seed(&[0x11; 32]);
    let (_, x) = hpke::derive_keypair(&[0x22; 32]);
    let ed = did::encode_multikey(kp.public_key().as_bytes(), concordia_core::did_key::ED25519_MULTICODEC);
    let xk = did::encode_multikey(&x.0, did::X25519_MULTICODEC);
    let mut handles = Seeds::new("aip_handle");
    for h in [
        "alice#aigentix.org",
        "alice%23aigentix.org",
        "@alice@aigentix.org",
        "%61lice%23aigentix.org",
        "did:aip:aigentix.org:alice",
        "a-b.c_d#sub.example-host.io",
    ] {
        handles.add(h);
    }
    handles.write();
    let mut dids = Seeds::new("aip_did");
    for d in ["did:aip:aigentix.org:alice", "did:aip:etagi.ru:etagi", ed.as_str(), xk.as_str()] {
        dids.add(d);
    }
    dids.add(kp.public_key().as_bytes());
    dids.write();
    let mut docs = Seeds::new("aip_did_document");
    for (mode, id) in [("direct", "did:aip:aigentix.org:alice"), ("relay", "did:aip:etagi.ru:etagi")] {
        docs.add(format!(
            r#"{{"@context":["https://www.w3.org/ns/did/v1"],"id":"{id}","route_mode":"{mode}","endpoint":"https://hub.aigentix.org/relay/alice","verificationMethod":[{{"id":"{id}#key-1","type":"Multikey","controller":"{id}","publicKeyMultibase":"{ed}"}}],"keyAgreement":["{id}#ref",{{"id":"{id}#x-1","type":"Multikey","controller":"{id}","publicKeyMultibase":"{xk}"}}]}}"#
        ));
    }
    docs.write();
    let mut envs = Seeds::new("aip_envelope");
    let header = envelope::Header {
        id: "1b4e28ba-2fa1-4d3b-a3f5-ef19b5a7633b",
        from: "did:aip:aigentix.org:alice",
        to: "did:aip:etagi.ru:etagi",
        kind: "aip.commerce.offer.request",
        created_at: "2026-05-10T14:25:00Z",
    };
    for body in [&br#"{"item_id":"doc_123","type":"aip.commerce.offer.request"}"#[..], b""] {
        let mut out = vec![0u8; 4096];
        let n = envelope::seal(&header, &x, body, &[0x33; 32], &kp, &mut out).expect("seal");
        envs.add(&out[..n]);
    }
    envs.write();
}
