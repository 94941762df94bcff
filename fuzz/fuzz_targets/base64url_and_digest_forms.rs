//! The text forms of binary values: every decoder in `encoding` is strict (what it accepts
//! re-encodes to the same text, modulo `=` padding and hex case), every encoder's output
//! decodes back to the input, a short output buffer reports the exact length needed; and
//! `Digest::parse_prefixed` / `parse_hex`, `PublicKey::from_b64`, `Signature::from_b64url`
//! accept exactly the canonical forms their writers produce. (A base58 text of at most
//! `BASE58_MAX_CHARS` may decode to more than `BASE58_MAX_BYTES`: then only the size limit.)
#![no_main]
use concordia_core::digest::Digest;
use concordia_core::encoding as enc;
use concordia_core::sign::{PublicKey, Signature};
use concordia_core::Error;
use libfuzzer_sys::fuzz_target;

type Codec = fn(&[u8], &mut [u8]) -> concordia_core::Result<usize>;

/// Runs `f` with a generous buffer, then checks it reports the same length with a short one.
fn run(f: Codec, input: &[u8]) -> Option<Vec<u8>> {
    let mut out = vec![0u8; input.len() * 2 + 8];
    let n = f(input, &mut out).ok()?;
    if n > 0 {
        let mut short = vec![0u8; n - 1];
        match f(input, &mut short) {
            Err(Error::BufferTooSmall { needed }) => assert_eq!(needed, n),
            other => panic!("short buffer gave {other:?}, want BufferTooSmall {{ needed: {n} }}"),
        }
    }
    out.truncate(n);
    Some(out)
}

fn trim_pad(b: &[u8]) -> &[u8] {
    let end = b.iter().rposition(|&c| c != b'=').map_or(0, |p| p + 1);
    &b[..end]
}

fuzz_target!(|data: &[u8]| {
    // Decoders are strict: accepted text is the canonical encoding of what it decodes to.
    if let Some(raw) = run(enc::decode_base64url, data) {
        assert_eq!(run(enc::encode_base64url_nopad, &raw).as_deref(), Some(trim_pad(data)));
    }
    if let Some(raw) = run(enc::decode_base64, data) {
        assert_eq!(run(enc::encode_base64, &raw).as_deref().map(trim_pad), Some(trim_pad(data)));
    }
    if let Some(raw) = run(enc::decode_base64_any, data) {
        let url = run(enc::decode_base64url, data);
        let std = run(enc::decode_base64, data);
        assert!(
            url.as_ref() == Some(&raw) || std.as_ref() == Some(&raw),
            "decode_base64_any accepted what neither alphabet does"
        );
    }
    if let Some(raw) = run(enc::decode_hex, data) {
        assert_eq!(run(enc::encode_hex, &raw), Some(data.to_ascii_lowercase()));
    }
    if let Some(raw) = run(enc::decode_hex_lower, data) {
        assert_eq!(run(enc::encode_hex, &raw).as_deref(), Some(data));
    }
    if let Some(raw) = run(enc::decode_base58, data) {
        // 175 characters can hold up to 129 bytes (or 175 leading zero bytes), beyond the
        // 128 that encode_base58 takes (by design, see encoding.rs `base58_bounds`).
        if raw.len() <= enc::BASE58_MAX_BYTES {
            assert_eq!(run(enc::encode_base58, &raw).as_deref(), Some(data));
        } else {
            assert!(matches!(enc::encode_base58(&raw, &mut [0u8; 512]), Err(Error::Limit { .. })));
        }
    }
    // Encoders round-trip any bytes.
    for (e, d) in [
        (enc::encode_base64url as Codec, enc::decode_base64url as Codec),
        (enc::encode_base64url_nopad, enc::decode_base64url),
        (enc::encode_base64, enc::decode_base64),
        (enc::encode_base64, enc::decode_base64_any),
        (enc::encode_hex, enc::decode_hex_lower),
    ] {
        let text = run(e, data).expect("encoding never fails with room");
        assert_eq!(run(d, &text).as_deref(), Some(data));
    }
    if data.len() <= enc::BASE58_MAX_BYTES {
        let text = run(enc::encode_base58, data).expect("base58 of a bounded input");
        assert!(text.len() <= enc::BASE58_MAX_CHARS);
        assert_eq!(run(enc::decode_base58, &text).as_deref(), Some(data));
    }
    // Digest, key and signature text forms.
    let Ok(text) = std::str::from_utf8(data) else { return };
    if let Ok(d) = Digest::parse_prefixed(text) {
        assert_eq!(d.to_prefixed().as_str(), text);
        assert_eq!(Digest::parse_hex(&text[7..]), Ok(d));
    }
    if let Ok(d) = Digest::parse_hex(text) {
        assert_eq!(d.to_hex().as_str(), text);
        assert_eq!(Digest::parse_prefixed(d.to_prefixed().as_str()), Ok(d));
    }
    if let Ok(pk) = PublicKey::from_b64(text) {
        assert_eq!(PublicKey::from_b64(pk.to_b64url().as_str()), Ok(pk));
        assert_eq!(run(enc::decode_base64_any, data).as_deref(), Some(&pk.as_bytes()[..]));
    }
    if let Ok(sig) = Signature::from_b64url(text) {
        // One accepted spelling: what is accepted is exactly what the writer emits.
        assert_eq!(sig.to_b64url().as_str(), text);
    }
    if let Ok(sig) = Signature::from_b64url_nopad(text) {
        assert_eq!(trim_pad(sig.to_b64url().as_bytes()), data);
    }
});
