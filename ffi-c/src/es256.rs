//! ES256 (ECDSA P-256 with SHA-256) key pairs and top-level signatures, as the reference SDK
//! signs and verifies them (`concordia_core::es256`: strict DER, low S, RFC 6979).

use concordia_core::error::detail::ES256_PRIVATE_KEY;
use concordia_core::es256::{KeyPair, PublicKey};
use concordia_core::message;
use concordia_core::Error;

use crate::boundary::{
    bytes_in, bytes_out, copy_out, guard, handle_free, handle_new, handle_ref, nodes_for, out_ref, parse, write_sized,
    Fail, FfiResult, NULL,
};
use crate::{concordia_result, concordia_str};

/// An ES256 key pair (opaque): a P-256 private scalar and its public point. Create with
/// concordia_es256_keypair_from_scalar or concordia_es256_keypair_generate; release with
/// concordia_es256_keypair_free, which erases the scalar.
///
/// Thread safety: immutable once created (signing is read-only and deterministic); it must
/// not be freed while in use.
pub struct concordia_es256_keypair(KeyPair);

/// Reads a caller's ES256 key pair handle.
fn es256_keypair_ref<'a>(kp: *const concordia_es256_keypair) -> FfiResult<&'a KeyPair> {
    handle_ref(kp).map(|k| &k.0)
}

fn boxed(kp: KeyPair, out: &mut *mut concordia_es256_keypair) {
    handle_new(concordia_es256_keypair(kp), out);
}

/// Makes the key pair of a 32-byte big-endian private scalar `d` (`0 < d < n`; what
/// `cryptography` calls `private_numbers().private_value`) and stores a new object in `*out`.
///
/// Returns CONCORDIA_INVALID_ARGUMENT when `scalar_len` is not 32 or the scalar is zero or
/// not below the group order. On failure `*out` is set to NULL. The caller owns the object
/// and releases it with concordia_es256_keypair_free.
///
/// # Safety
/// `scalar` must be valid for `scalar_len` bytes of reads; `out` for one pointer write.
#[no_mangle]
pub extern "C" fn concordia_es256_keypair_from_scalar(
    scalar: *const u8,
    scalar_len: usize,
    out: *mut *mut concordia_es256_keypair,
) -> concordia_result {
    guard(|| {
        let out = out_ref(out)?;
        *out = std::ptr::null_mut();
        if scalar.is_null() {
            return Err(NULL);
        }
        let d = bytes_in(scalar, scalar_len)?;
        let d: &[u8; 32] = d.try_into().map_err(|_| Fail::Core(Error::InvalidArgument(ES256_PRIVATE_KEY)))?;
        boxed(KeyPair::from_scalar(d)?, out);
        Ok(())
    })
}

/// Generates a key pair from operating system randomness (a draw outside `1..n` is drawn
/// again) and stores a new object in `*out` (NULL on failure).
///
/// Returns CONCORDIA_RANDOMNESS_UNAVAILABLE when the OS generator fails. Export the scalar
/// with concordia_es256_keypair_scalar to keep the key.
///
/// # Safety
/// `out` must be valid for one pointer write.
#[no_mangle]
pub extern "C" fn concordia_es256_keypair_generate(out: *mut *mut concordia_es256_keypair) -> concordia_result {
    guard(|| {
        let out = out_ref(out)?;
        *out = std::ptr::null_mut();
        let mut d = concordia_host::zeroize::Zeroizing::new([0u8; 32]);
        let kp = loop {
            getrandom::fill(&mut *d).map_err(|_| Fail::Code(concordia_result::CONCORDIA_RANDOMNESS_UNAVAILABLE))?;
            if let Ok(kp) = KeyPair::from_scalar(&d) {
                break kp;
            }
        };
        boxed(kp, out);
        Ok(())
    })
}

/// Releases an ES256 key pair and erases its scalar. NULL is ignored.
///
/// # Safety
/// `kp` must be NULL or a key pair from this library that has not been freed, and no
/// other thread may be using it.
#[no_mangle]
pub extern "C" fn concordia_es256_keypair_free(kp: *mut concordia_es256_keypair) {
    handle_free(kp);
}

/// Writes the public key of `kp` as the uncompressed X9.62 point, 65 bytes (`04 || x || y`),
/// the SDK's `ES256KeyPair.public_key_bytes()`.
///
/// # Safety
/// `kp` must be a live key pair; `out` valid for `out_cap` bytes of writes; `out_len` for
/// one `size_t`.
#[no_mangle]
pub extern "C" fn concordia_es256_keypair_public_key(
    kp: *const concordia_es256_keypair,
    out: *mut u8,
    out_cap: usize,
    out_len: *mut usize,
) -> concordia_result {
    guard(|| {
        let out_len = out_ref(out_len)?;
        *out_len = 0;
        let kp = es256_keypair_ref(kp)?;
        let out = bytes_out(out, out_cap)?;
        copy_out(&kp.public_key().to_uncompressed(), out, out_len)
    })
}

/// Writes the public key of `kp` as padded base64url text of the uncompressed point (88
/// bytes, not NUL-terminated), the SDK's `ES256KeyPair.public_key_b64()`.
///
/// # Safety
/// As concordia_es256_keypair_public_key.
#[no_mangle]
pub extern "C" fn concordia_es256_keypair_public_key_b64url(
    kp: *const concordia_es256_keypair,
    out: *mut u8,
    out_cap: usize,
    out_len: *mut usize,
) -> concordia_result {
    guard(|| {
        let out_len = out_ref(out_len)?;
        *out_len = 0;
        let kp = es256_keypair_ref(kp)?;
        let out = bytes_out(out, out_cap)?;
        copy_out(kp.public_key().to_b64url().as_bytes(), out, out_len)
    })
}

/// Writes the 32-byte private scalar of `kp`, so that a generated key can be stored. The
/// caller is responsible for the secrecy of the copy.
///
/// # Safety
/// As concordia_es256_keypair_public_key.
#[no_mangle]
pub extern "C" fn concordia_es256_keypair_scalar(
    kp: *const concordia_es256_keypair,
    out: *mut u8,
    out_cap: usize,
    out_len: *mut usize,
) -> concordia_result {
    guard(|| {
        let out_len = out_ref(out_len)?;
        *out_len = 0;
        let kp = es256_keypair_ref(kp)?;
        let out = bytes_out(out, out_cap)?;
        // A Zeroizing copy, erased when dropped.
        copy_out(&*kp.scalar(), out, out_len)
    })
}

/// Decodes base64 text of an ES256 public key (URL-safe or standard alphabet, padding
/// optional, as the SDK reads it; uncompressed or compressed X9.62) into the uncompressed
/// point, 65 bytes.
///
/// Returns CONCORDIA_ENCODING for malformed text or bytes that are not a point of P-256
/// (off the curve, the identity, another length or prefix).
///
/// # Safety
/// `text.ptr` must be valid for `text.len` bytes of reads; `out` for `out_cap` bytes of
/// writes; `out_len` for one `size_t`.
#[no_mangle]
pub extern "C" fn concordia_es256_public_key_from_b64(
    text: concordia_str,
    out: *mut u8,
    out_cap: usize,
    out_len: *mut usize,
) -> concordia_result {
    guard(|| {
        let out_len = out_ref(out_len)?;
        *out_len = 0;
        let text = text.text()?;
        let out = bytes_out(out, out_cap)?;
        let pk = PublicKey::from_b64(text)?;
        copy_out(&pk.to_uncompressed(), out, out_len)
    })
}

/// Signs the JSON object `json` with ES256 over its canonical form without the top-level
/// `signature` (the SDK's `sign_message(..., alg="ES256")`) and writes the signed object,
/// canonical, into `out`. The signature is the padded base64url of DER, low S,
/// deterministic (RFC 6979).
///
/// Returns CONCORDIA_SCHEMA when `json` is not an object; CONCORDIA_BUFFER_TOO_SMALL with
/// a length that counts the longest signature (the result may be up to 8 bytes shorter).
///
/// # Safety
/// `kp` must be a live key pair; `json` valid for `json_len` bytes of reads; `out` for
/// `out_cap` bytes of writes; `out_len` for one `size_t`.
#[no_mangle]
pub extern "C" fn concordia_es256_sign_object(
    kp: *const concordia_es256_keypair,
    json: *const u8,
    json_len: usize,
    out: *mut u8,
    out_cap: usize,
    out_len: *mut usize,
) -> concordia_result {
    guard(|| {
        let out_len = out_ref(out_len)?;
        *out_len = 0;
        let kp = es256_keypair_ref(kp)?;
        let input = bytes_in(json, json_len)?;
        let out = bytes_out(out, out_cap)?;
        let mut nodes = nodes_for(input);
        let doc = parse(input, &mut nodes)?;
        write_sized(out, out_len, |buf| message::sign_object_es256(doc.root(), kp, buf))
    })
}

/// Verifies the top-level ES256 `signature` of the JSON object `json` under the X9.62
/// public key `public_key` (65 bytes uncompressed or 33 compressed). CONCORDIA_OK means it
/// verifies.
///
/// Returns CONCORDIA_SIGNATURE when it does not (a high `s`, `r` or `s` zero or not below
/// the group order included), CONCORDIA_SCHEMA when there is no string `signature` or
/// `json` is not an object, CONCORDIA_ENCODING when the signature text is not the padded
/// base64url of strict DER or the key is not a point of P-256.
///
/// # Safety
/// `json` must be valid for `json_len` bytes of reads; `public_key` for `public_key_len`.
#[no_mangle]
pub extern "C" fn concordia_es256_verify_object(
    json: *const u8,
    json_len: usize,
    public_key: *const u8,
    public_key_len: usize,
) -> concordia_result {
    guard(|| {
        if public_key.is_null() {
            return Err(NULL);
        }
        let key = bytes_in(public_key, public_key_len)?;
        let pk = PublicKey::from_sec1(key)?;
        let input = bytes_in(json, json_len)?;
        let mut nodes = nodes_for(input);
        let doc = parse(input, &mut nodes)?;
        message::verify_signed_object_es256(doc.root(), &pk)?;
        Ok(())
    })
}
