//! `concordia keygen`, `concordia sign` and `concordia verify`.

use std::io::Read;

use concordia_core::encoding;
use concordia_core::message;
use concordia_core::sign::{KeyPair, PublicKey};

use crate::outln;
use crate::util::{bad_arg, emit, fail, json_str, nodes_for, parse, read_input, usage, Args, CliResult};

pub const KEYGEN_HELP: &str = "concordia keygen [--seed HEX]
  Prints a JSON Ed25519 key pair: {\"key_type\", \"public_key_b64url\", \"private_key_hex\"}.
  The public key is padded URL-safe base64, as the reference SDK's public_key_b64().
  --seed HEX   derive the pair from this 32-byte seed (64 hex digits) instead of OS randomness";

pub const SIGN_HELP: &str = "concordia sign --key KEYFILE [FILE]
  Signs the JSON object in FILE (default stdin) over its canonical form without the
  top-level `signature` member, and prints the signed object (canonical).
  KEYFILE is the output of `concordia keygen`.";

pub const VERIFY_HELP: &str = "concordia verify --public-key B64URL [FILE]
  Verifies the top-level `signature` of the JSON object in FILE (default stdin).
  Exit 0 valid, 1 invalid (no `signature` member, or one that does not verify), 2 usage or
  malformed input (malformed JSON, an unreadable --public-key); a signature that does not
  decode exits by the class the core gives it (see `concordia --help`).";

/// 32 bytes from the operating system.
pub fn os_seed() -> CliResult<[u8; 32]> {
    let mut seed = [0u8; 32];
    std::fs::File::open("/dev/urandom")
        .and_then(|mut f| f.read_exact(&mut seed))
        .map_err(|e| usage(format!("cannot read OS randomness: {e}")))?;
    Ok(seed)
}

pub fn parse_seed(hex: &str) -> CliResult<[u8; 32]> {
    let mut seed = [0u8; 32];
    match encoding::decode_hex(hex.trim().as_bytes(), &mut seed) {
        Ok(32) => Ok(seed),
        _ => Err(usage("--seed must be 64 hex digits (32 bytes)")),
    }
}

pub fn keypair_json(kp: &KeyPair) -> String {
    let mut hex = [0u8; 64];
    let n = encoding::encode_hex(&kp.seed(), &mut hex).unwrap_or(0);
    format!(
        "{{\"key_type\":\"Ed25519\",\"private_key_hex\":\"{}\",\"public_key_b64url\":\"{}\"}}",
        hex.get(..n).and_then(|h| std::str::from_utf8(h).ok()).unwrap_or(""),
        kp.public_key().to_b64url().as_str()
    )
}

pub fn keygen(mut args: Args) -> CliResult {
    let seed = match args.value("--seed")? {
        Some(h) => parse_seed(&h)?,
        None => os_seed()?,
    };
    args.positionals(0)?;
    outln!("{}", keypair_json(&KeyPair::from_seed(&seed)))?;
    Ok(())
}

/// Loads a key file written by `concordia keygen`.
pub fn load_keypair(path: &str) -> CliResult<KeyPair> {
    let (name, bytes) = read_input(Some(path))?;
    let mut nodes = nodes_for(&bytes)?;
    let doc = parse(&name, &bytes, &mut nodes)?;
    let hex = doc
        .root()
        .get("private_key_hex")
        .and_then(|v| v.as_plain_str())
        .ok_or_else(|| usage(format!("{name}: no private_key_hex (write key files with `concordia keygen`)")))?;
    Ok(KeyPair::from_seed(&parse_seed(hex)?))
}

pub fn sign(mut args: Args) -> CliResult {
    let key = args.value("--key")?.ok_or_else(|| usage("sign needs --key KEYFILE"))?;
    let pos = args.positionals(1)?;
    let kp = load_keypair(&key)?;
    let (name, input) = read_input(pos.first().map(String::as_str))?;
    let mut nodes = nodes_for(&input)?;
    let doc = parse(&name, &input, &mut nodes)?;
    let mut out = vec![0u8; input.len() + 256];
    let n = match message::sign_object(doc.root(), &kp, &mut out) {
        Err(concordia_core::Error::BufferTooSmall { needed }) => {
            out.resize(needed, 0);
            message::sign_object(doc.root(), &kp, &mut out)
        }
        other => other,
    }
    .map_err(|e| fail(&name, e))?;
    out.truncate(n);
    emit(&out)
}

pub fn verify(mut args: Args) -> CliResult {
    let key = args.value("--public-key")?.ok_or_else(|| usage("verify needs --public-key B64URL"))?;
    let pos = args.positionals(1)?;
    let pk = PublicKey::from_b64(&key).map_err(|e| bad_arg("--public-key", e))?;
    let (name, input) = read_input(pos.first().map(String::as_str))?;
    let mut nodes = nodes_for(&input)?;
    let doc = parse(&name, &input, &mut nodes)?;
    match message::verify_signed_object(doc.root(), &pk) {
        Ok(()) => {
            outln!("ok: signature valid for {}", json_str(pk.to_b64url().as_str()))?;
            Ok(())
        }
        Err(e) => Err(fail(&name, e)),
    }
}
