//! `concordia keygen`, `concordia sign` and `concordia verify`.

use std::io::Read;

use concordia_core::encoding;
use concordia_core::es256;
use concordia_core::message;
use concordia_core::sign::{Alg, KeyPair, PublicKey};

use concordia_host::zeroize::Zeroizing;

use crate::outln;
use crate::secret::Dest;
use crate::util::{bad_arg, emit, fail, json_str, nodes_for, parse, read_input, usage, Args, CliResult};

pub const KEYGEN_HELP: &str = concat!(
    "concordia keygen [--alg EdDSA|ES256] [--seed HEX] [-o FILE [--force]]
  Writes a JSON key pair: {\"key_type\", \"public_key_b64url\", \"private_key_hex\"}, and
  \"alg\": \"ES256\" for ES256, to stdout or FILE. The public key is padded URL-safe base64,
  as the reference SDK's public_key_b64() (ES256: the uncompressed X9.62 point, 65 bytes).
  The file holds the private key: write it with -o (mode 0600), not with `> FILE` (a
  redirect makes the file readable by others under the usual umask; keygen warns).
  --alg ALG    EdDSA (Ed25519, the default) or ES256 (ECDSA P-256)
  --seed HEX   32 bytes (64 hex digits) instead of OS randomness: the Ed25519 seed, or the
               ES256 private scalar (big-endian, 0 < d < n)
",
    crate::secret_out_help!()
);

pub const SIGN_HELP: &str = "concordia sign --key KEYFILE [--alg EdDSA|ES256] [FILE]
  Signs the JSON object in FILE (default stdin) over its canonical form without the
  top-level `signature` member, and prints the signed object (canonical).
  KEYFILE is the output of `concordia keygen`; its key type decides the algorithm, and
  --alg, when given, must name the same one. ES256 signatures are DER, low S, RFC 6979.";

pub const VERIFY_HELP: &str = "concordia verify --public-key B64URL [--alg EdDSA|ES256] [FILE]
  Verifies the top-level `signature` of the JSON object in FILE (default stdin), with
  --alg EdDSA (the default) or ES256 (the key is then a P-256 point, as the SDK's
  ES256KeyPair.public_key_b64() prints it).
  Exit 0 valid, 1 invalid (no `signature` member, or one that does not verify), 2 usage or
  malformed input (malformed JSON, an unreadable --public-key); a signature that does not
  decode exits by the class the core gives it (see `concordia --help`).";

/// Reads `--alg` (the SDK's names, through the core's `Alg::from_name`).
fn alg_option(args: &mut Args) -> CliResult<Option<Alg>> {
    match args.value("--alg")? {
        None => Ok(None),
        Some(name) => Alg::from_name(&name).map(Some).map_err(|_| {
            usage(format!("--alg: unknown algorithm `{}` (allowed: EdDSA, ES256)", crate::util::one_line(&name)))
        }),
    }
}

/// 32 bytes from the operating system, erased when dropped.
pub fn os_seed() -> CliResult<Zeroizing<[u8; 32]>> {
    let mut seed = Zeroizing::new([0u8; 32]);
    std::fs::File::open("/dev/urandom")
        .and_then(|mut f| f.read_exact(&mut *seed))
        .map_err(|e| usage(format!("cannot read OS randomness: {e}")))?;
    Ok(seed)
}

/// The 32 bytes of a `--seed` (64 hex digits), erased when dropped.
pub fn parse_seed(hex: &str) -> CliResult<Zeroizing<[u8; 32]>> {
    let mut seed = Zeroizing::new([0u8; 32]);
    match encoding::decode_hex(hex.trim().as_bytes(), &mut *seed) {
        Ok(32) => Ok(seed),
        _ => Err(usage("--seed must be 64 hex digits (32 bytes)")),
    }
}

/// A key file's text (with the final newline) from its members before and after the
/// private key's hex, in a buffer reserved once and erased when dropped.
fn key_text(before: &str, secret: &[u8; 32], after: &str) -> Zeroizing<Vec<u8>> {
    let mut out = Zeroizing::new(Vec::with_capacity(before.len() + 64 + after.len() + 1));
    out.extend_from_slice(before.as_bytes());
    let mut hex = Zeroizing::new([0u8; 64]);
    let n = encoding::encode_hex(secret, &mut *hex).unwrap_or(0);
    out.extend_from_slice(hex.get(..n).unwrap_or_default());
    out.extend_from_slice(after.as_bytes());
    out.push(b'\n');
    out
}

/// An Ed25519 key file: `{"key_type", "private_key_hex", "public_key_b64url"}` and a newline.
pub fn keypair_json(kp: &KeyPair) -> Zeroizing<Vec<u8>> {
    let after = format!("\",\"public_key_b64url\":\"{}\"}}", kp.public_key().to_b64url().as_str());
    key_text("{\"key_type\":\"Ed25519\",\"private_key_hex\":\"", &kp.seed(), &after)
}

/// An ES256 key file: `{"alg", "key_type", "private_key_hex", "public_key_b64url"}` and a
/// newline.
pub fn es256_keypair_json(kp: &es256::KeyPair) -> Zeroizing<Vec<u8>> {
    let after = format!("\",\"public_key_b64url\":\"{}\"}}", kp.public_key().to_b64url().as_str());
    key_text("{\"alg\":\"ES256\",\"key_type\":\"P-256\",\"private_key_hex\":\"", &kp.scalar(), &after)
}

pub fn keygen(mut args: Args) -> CliResult {
    // Every argument is read and checked before a secret exists.
    let alg = alg_option(&mut args)?.unwrap_or_default();
    let seed = args.value("--seed")?.map(|h| parse_seed(&h)).transpose()?;
    let dest = Dest::from_args(&mut args)?;
    args.positionals(0)?;
    let text = match alg {
        Alg::EdDsa => keypair_json(&KeyPair::from_seed(&*seed.map_or_else(os_seed, Ok)?)),
        Alg::Es256 => {
            let kp = match seed {
                Some(d) => es256::KeyPair::from_scalar(&d).map_err(|e| bad_arg("--seed", e))?,
                // A draw is refused only when it is zero or at least n (about 2^-32): draw again.
                None => loop {
                    if let Ok(kp) = es256::KeyPair::from_scalar(&*os_seed()?) {
                        break kp;
                    }
                },
            };
            es256_keypair_json(&kp)
        }
    };
    let file = dest.open()?;
    dest.write(file, &text)
}

/// A key pair from a key file, of either algorithm.
pub enum AnyKeyPair {
    /// `"key_type": "Ed25519"` (or no key type: the files of earlier versions).
    Ed25519(KeyPair),
    /// `"key_type": "P-256"`.
    Es256(es256::KeyPair),
}

impl AnyKeyPair {
    fn alg(&self) -> Alg {
        match self {
            AnyKeyPair::Ed25519(_) => Alg::EdDsa,
            AnyKeyPair::Es256(_) => Alg::Es256,
        }
    }
}

/// Loads a key file written by `concordia keygen`, Ed25519 or ES256 by its `key_type`.
pub fn load_any_keypair(path: &str) -> CliResult<AnyKeyPair> {
    let (name, bytes) = read_input(Some(path))?;
    // The file holds the private key in hex: erased when dropped.
    let bytes = Zeroizing::new(bytes);
    let mut nodes = nodes_for(&bytes)?;
    let doc = parse(&name, &bytes, &mut nodes)?;
    let hex = doc
        .root()
        .get("private_key_hex")
        .and_then(|v| v.as_plain_str())
        .ok_or_else(|| usage(format!("{name}: no private_key_hex (write key files with `concordia keygen`)")))?;
    let secret = parse_seed(hex)?;
    match doc.root().get("key_type").map(|v| v.as_plain_str()) {
        None | Some(Some("Ed25519")) => Ok(AnyKeyPair::Ed25519(KeyPair::from_seed(&secret))),
        Some(Some("P-256")) => es256::KeyPair::from_scalar(&secret)
            .map(AnyKeyPair::Es256)
            .map_err(|e| usage(format!("{name}: private_key_hex: {e}"))),
        Some(_) => Err(usage(format!("{name}: unknown key_type (allowed: Ed25519, P-256)"))),
    }
}

pub fn sign(mut args: Args) -> CliResult {
    let key = args.value("--key")?.ok_or_else(|| usage("sign needs --key KEYFILE"))?;
    let alg = alg_option(&mut args)?;
    let pos = args.positionals(1)?;
    let kp = load_any_keypair(&key)?;
    if let Some(alg) = alg.filter(|&a| a != kp.alg()) {
        return Err(usage(format!(
            "--alg {} needs a {} key file (`concordia keygen --alg {}`); {} holds a {} key",
            alg.name(),
            if alg == Alg::Es256 { "P-256" } else { "Ed25519" },
            alg.name(),
            crate::util::display_name(&key),
            kp.alg().name()
        )));
    }
    let (name, input) = read_input(pos.first().map(String::as_str))?;
    let mut nodes = nodes_for(&input)?;
    let doc = parse(&name, &input, &mut nodes)?;
    let sign_into = |out: &mut [u8]| match &kp {
        AnyKeyPair::Ed25519(kp) => message::sign_object(doc.root(), kp, out),
        AnyKeyPair::Es256(kp) => message::sign_object_es256(doc.root(), kp, out),
    };
    let mut out = vec![0u8; input.len() + 256];
    let n = match sign_into(&mut out) {
        Err(concordia_core::Error::BufferTooSmall { needed }) => {
            out.resize(needed, 0);
            sign_into(&mut out)
        }
        other => other,
    }
    .map_err(|e| fail(&name, e))?;
    out.truncate(n);
    emit(&out)
}

pub fn verify(mut args: Args) -> CliResult {
    let key = args.value("--public-key")?.ok_or_else(|| usage("verify needs --public-key B64URL"))?;
    let alg = alg_option(&mut args)?.unwrap_or_default();
    let pos = args.positionals(1)?;
    let (checked, shown) = match alg {
        Alg::EdDsa => {
            let pk = PublicKey::from_b64(&key).map_err(|e| bad_arg("--public-key", e))?;
            (Verifier::Ed25519(pk), pk.to_b64url().to_string())
        }
        Alg::Es256 => {
            let pk = es256::PublicKey::from_b64(&key).map_err(|e| bad_arg("--public-key", e))?;
            (Verifier::Es256(pk), pk.to_b64url().to_string())
        }
    };
    let (name, input) = read_input(pos.first().map(String::as_str))?;
    let mut nodes = nodes_for(&input)?;
    let doc = parse(&name, &input, &mut nodes)?;
    let verdict = match &checked {
        Verifier::Ed25519(pk) => message::verify_signed_object(doc.root(), pk),
        Verifier::Es256(pk) => message::verify_signed_object_es256(doc.root(), pk),
    };
    match verdict {
        Ok(()) => {
            outln!("ok: signature valid for {}", json_str(&shown))?;
            Ok(())
        }
        Err(e) => Err(fail(&name, e)),
    }
}

enum Verifier {
    Ed25519(PublicKey),
    Es256(es256::PublicKey),
}
