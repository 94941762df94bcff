//! `did:key` identifiers for Ed25519 keys, and the `z`-base58btc multikeys they (and AIP's
//! DID Documents) are made of.
//!
//! A `did:key` is `did:key:` followed by a multibase text of the multicodec-prefixed key:
//! the varint `0xed 0x01` (ed25519-pub) and the 32 key bytes. Standard `did:key` uses the
//! multibase prefix `z` with base58btc ([`encode`], [`decode`]).
//!
//! The conformance contract's `cosign-v1` profile derives the DID differently: `z`
//! followed by *unpadded base64url* of the same 34 bytes ([`contract_did_key`],
//! [`decode_contract`]). That is what the reference runner and the vectors use, so the
//! profile follows it; the two forms never collide in practice (the base64url text
//! contains characters outside the base58 alphabet or decodes to another length).

use crate::encoding;
use crate::error::{Error, Result};
use crate::sign::PublicKey;

/// The multicodec prefix of an Ed25519 public key (varint of 0xed).
pub const ED25519_MULTICODEC: [u8; 2] = [0xed, 0x01];

/// The `did:key:` method prefix.
pub const PREFIX: &str = "did:key:";

/// Longest `did:key` text of an Ed25519 key in either form.
pub const MAX_LEN: usize = 64;

fn prefixed(key: &PublicKey) -> [u8; 34] {
    let mut bytes = [0u8; 34];
    let (head, tail) = bytes.split_at_mut(2);
    head.copy_from_slice(&ED25519_MULTICODEC);
    tail.copy_from_slice(key.as_bytes());
    bytes
}

fn finish(body: &[u8]) -> heapless::String<MAX_LEN> {
    let mut s = heapless::String::new();
    let _ = s.push_str(PREFIX);
    let _ = s.push('z');
    for &b in body {
        let _ = s.push(char::from(b));
    }
    s
}

/// The standard `did:key:z<base58btc(0xed01 || key)>` of an Ed25519 key.
#[must_use]
pub fn encode(key: &PublicKey) -> heapless::String<MAX_LEN> {
    let mut s = heapless::String::new();
    let _ = s.push_str(PREFIX);
    let _ = s.push_str(encode_multikey(key.as_bytes(), ED25519_MULTICODEC).as_str());
    s
}

fn split(did: &str) -> Result<&str> {
    did.strip_prefix(PREFIX)
        .and_then(|s| s.strip_prefix('z'))
        .ok_or(Error::Encoding("did:key with base58btc multibase expected"))
}

fn unprefix(bytes: &[u8]) -> Result<PublicKey> {
    match bytes.split_first_chunk::<2>() {
        Some((head, key)) if *head == ED25519_MULTICODEC && key.len() == 32 => PublicKey::from_bytes(key),
        _ => Err(Error::Encoding("not an Ed25519 did:key")),
    }
}

/// Decodes a standard Ed25519 `did:key` (multibase `z`, base58btc, multicodec 0xed01).
///
/// # Errors
/// [`Error::Encoding`] when the text is not such a DID.
pub fn decode(did: &str) -> Result<PublicKey> {
    let body = did.strip_prefix(PREFIX).ok_or(Error::Encoding("did:key with base58btc multibase expected"))?;
    let key = decode_multikey(body, ED25519_MULTICODEC).map_err(|_| Error::Encoding("not an Ed25519 did:key"))?;
    Ok(PublicKey::from_array(key))
}

/// The conformance contract's form `did:key:z<base64url-unpadded(0xed01 || key)>`.
#[must_use]
pub fn contract_did_key(key: &PublicKey) -> heapless::String<MAX_LEN> {
    let mut out = [0u8; 48];
    let n = encoding::encode_base64url_nopad(&prefixed(key), &mut out).unwrap_or(0);
    finish(out.get(..n).unwrap_or(&[]))
}

/// Decodes the conformance contract's base64url `did:key` form.
///
/// # Errors
/// [`Error::Encoding`] when the text is not such a DID.
pub fn decode_contract(did: &str) -> Result<PublicKey> {
    let body = split(did)?;
    let mut buf = [0u8; 40];
    let n = encoding::decode_base64url(body.as_bytes(), &mut buf).map_err(|_| Error::Encoding("did:key base64url"))?;
    unprefix(buf.get(..n).unwrap_or(&[]))
}

/// Decodes a `z`-base58btc multikey with the given two-byte multicodec prefix.
///
/// # Errors
/// [`Error::Encoding`] when the text is not such a multikey.
pub fn decode_multikey(text: &str, codec: [u8; 2]) -> Result<[u8; 32]> {
    let body = text.strip_prefix('z').ok_or(Error::Encoding("multibase base58btc 'z' expected"))?;
    if body.len() > 60 {
        return Err(Error::Encoding("multikey too long"));
    }
    let mut buf = [0u8; 48];
    let n = encoding::decode_base58(body.as_bytes(), &mut buf).map_err(|_| Error::Encoding("multikey base58btc"))?;
    match buf.get(..n).and_then(|b| b.split_first_chunk::<2>()) {
        Some((head, key)) if *head == codec => key.try_into().map_err(|_| Error::Encoding("multikey length")),
        _ => Err(Error::Encoding("unexpected multikey codec")),
    }
}

/// Encodes a 32-byte key as a `z`-base58btc multikey with the given multicodec prefix.
#[must_use]
pub fn encode_multikey(key: &[u8; 32], codec: [u8; 2]) -> heapless::String<64> {
    let mut bytes = [0u8; 34];
    bytes[..2].copy_from_slice(&codec);
    bytes[2..].copy_from_slice(key);
    let mut out = [0u8; 60];
    let n = encoding::encode_base58(&bytes, &mut out).unwrap_or(0);
    let mut s = heapless::String::new();
    let _ = s.push('z');
    for &b in out.get(..n).unwrap_or(&[]) {
        let _ = s.push(char::from(b));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sign::KeyPair;

    #[test]
    fn round_trips() {
        let key = KeyPair::from_seed(&[7u8; 32]).public_key();
        let did = encode(&key);
        assert!(did.starts_with("did:key:z6Mk"), "{did}");
        assert_eq!(decode(&did), Ok(key));
        let c = contract_did_key(&key);
        assert!(c.starts_with("did:key:z7Q"), "{c}");
        assert_eq!(decode_contract(&c), Ok(key));
        assert!(decode("did:key:z").is_err());
        assert!(decode("did:web:x").is_err());
    }
}
