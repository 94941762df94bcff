//! Ed25519 key pairs (opaque objects) and public keys (32 bytes, or base64url text).

use concordia_core::sign::{KeyPair, PublicKey};
use concordia_core::Error;

use crate::boundary::{
    bytes_in, bytes_out, copy_out, guard, handle_free, handle_new, handle_ref, out_ref, Fail, FfiResult, NULL,
};
use crate::{concordia_result, concordia_str};

/// An Ed25519 key pair (opaque). Create with concordia_keypair_from_seed or
/// concordia_keypair_generate; release with concordia_keypair_free, which overwrites the
/// secret key.
///
/// Thread safety: immutable once created, so one key pair may be used by several threads
/// at once (signing is read-only); it must not be freed while in use.
pub struct concordia_keypair(pub(crate) KeyPair);

/// Reads a caller's key pair handle.
pub(crate) fn keypair_ref<'a>(kp: *const concordia_keypair) -> FfiResult<&'a KeyPair> {
    handle_ref(kp).map(|k| &k.0)
}

/// Reads a 32-byte public key given by pointer and length (NULL refused).
pub(crate) fn public_key_in(pk: *const u8, pk_len: usize) -> FfiResult<PublicKey> {
    if pk.is_null() {
        return Err(NULL);
    }
    let bytes = bytes_in(pk, pk_len)?;
    PublicKey::from_bytes(bytes).map_err(|_| Fail::Core(Error::InvalidArgument("public key must be 32 bytes")))
}

fn boxed(kp: KeyPair, out: &mut *mut concordia_keypair) {
    handle_new(concordia_keypair(kp), out);
}

/// Derives the key pair of a 32-byte seed (RFC 8032; the seed is what the reference SDK
/// calls the raw private key bytes) and stores a new object in `*out`.
///
/// Returns CONCORDIA_INVALID_ARGUMENT when `seed_len` is not 32. On failure `*out` is
/// set to NULL. The caller owns the object and releases it with concordia_keypair_free.
///
/// # Safety
/// `seed` must be valid for `seed_len` bytes of reads; `out` for one pointer write.
#[no_mangle]
pub extern "C" fn concordia_keypair_from_seed(
    seed: *const u8,
    seed_len: usize,
    out: *mut *mut concordia_keypair,
) -> concordia_result {
    guard(|| {
        let out = out_ref(out)?;
        *out = std::ptr::null_mut();
        if seed.is_null() {
            return Err(NULL);
        }
        let seed = bytes_in(seed, seed_len)?;
        let seed: &[u8; 32] =
            seed.try_into().map_err(|_| Fail::Core(Error::InvalidArgument("seed must be 32 bytes")))?;
        boxed(KeyPair::from_seed(seed), out);
        Ok(())
    })
}

/// Generates a key pair from 32 bytes of operating system randomness and stores a new
/// object in `*out` (NULL on failure).
///
/// Returns CONCORDIA_RANDOMNESS_UNAVAILABLE when the OS generator fails. Export the seed
/// with concordia_keypair_seed to keep the key.
///
/// # Safety
/// `out` must be valid for one pointer write.
#[no_mangle]
pub extern "C" fn concordia_keypair_generate(out: *mut *mut concordia_keypair) -> concordia_result {
    guard(|| {
        let out = out_ref(out)?;
        *out = std::ptr::null_mut();
        let mut seed = concordia_host::zeroize::Zeroizing::new([0u8; 32]);
        getrandom::fill(&mut *seed).map_err(|_| Fail::Code(concordia_result::CONCORDIA_RANDOMNESS_UNAVAILABLE))?;
        boxed(KeyPair::from_seed(&seed), out);
        Ok(())
    })
}

/// Releases a key pair and overwrites its secret key. NULL is ignored.
///
/// # Safety
/// `kp` must be NULL or a key pair from this library that has not been freed, and no
/// other thread may be using it.
#[no_mangle]
pub extern "C" fn concordia_keypair_free(kp: *mut concordia_keypair) {
    handle_free(kp);
}

/// Writes the 32-byte public key of `kp` into `out`.
///
/// # Safety
/// `kp` must be a live key pair; `out` valid for `out_cap` bytes of writes; `out_len` for
/// one `size_t`.
#[no_mangle]
pub extern "C" fn concordia_keypair_public_key(
    kp: *const concordia_keypair,
    out: *mut u8,
    out_cap: usize,
    out_len: *mut usize,
) -> concordia_result {
    guard(|| {
        let out_len = out_ref(out_len)?;
        *out_len = 0;
        let kp = keypair_ref(kp)?;
        let out = bytes_out(out, out_cap)?;
        copy_out(kp.public_key().as_bytes(), out, out_len)
    })
}

/// Writes the public key of `kp` as padded base64url text (44 bytes, not NUL-terminated),
/// the form the reference SDK and `keys.json` files use.
///
/// # Safety
/// As concordia_keypair_public_key.
#[no_mangle]
pub extern "C" fn concordia_keypair_public_key_b64url(
    kp: *const concordia_keypair,
    out: *mut u8,
    out_cap: usize,
    out_len: *mut usize,
) -> concordia_result {
    guard(|| {
        let out_len = out_ref(out_len)?;
        *out_len = 0;
        let kp = keypair_ref(kp)?;
        let out = bytes_out(out, out_cap)?;
        copy_out(kp.public_key().to_b64url().as_bytes(), out, out_len)
    })
}

/// Writes the 32-byte seed of `kp` (its private key) into `out`, so that a generated key
/// can be stored. The caller is responsible for the secrecy of the copy.
///
/// # Safety
/// As concordia_keypair_public_key.
#[no_mangle]
pub extern "C" fn concordia_keypair_seed(
    kp: *const concordia_keypair,
    out: *mut u8,
    out_cap: usize,
    out_len: *mut usize,
) -> concordia_result {
    guard(|| {
        let out_len = out_ref(out_len)?;
        *out_len = 0;
        let kp = keypair_ref(kp)?;
        let out = bytes_out(out, out_cap)?;
        // A Zeroizing copy, erased when dropped.
        copy_out(&*kp.seed(), out, out_len)
    })
}

/// Converts a 32-byte public key to padded base64url text (44 bytes).
///
/// Returns CONCORDIA_INVALID_ARGUMENT when `public_key_len` is not 32.
///
/// # Safety
/// `public_key` must be valid for `public_key_len` bytes of reads; `out` for `out_cap`
/// bytes of writes; `out_len` for one `size_t`.
#[no_mangle]
pub extern "C" fn concordia_public_key_to_b64url(
    public_key: *const u8,
    public_key_len: usize,
    out: *mut u8,
    out_cap: usize,
    out_len: *mut usize,
) -> concordia_result {
    guard(|| {
        let out_len = out_ref(out_len)?;
        *out_len = 0;
        let pk = public_key_in(public_key, public_key_len)?;
        let out = bytes_out(out, out_cap)?;
        copy_out(pk.to_b64url().as_bytes(), out, out_len)
    })
}

/// Decodes a base64 public key text (URL-safe or standard alphabet, padding optional, as
/// the reference SDK accepts) into its 32 bytes.
///
/// Returns CONCORDIA_ENCODING for malformed text or a length other than 32 bytes.
///
/// # Safety
/// `text.ptr` must be valid for `text.len` bytes of reads; `out` for `out_cap` bytes of
/// writes; `out_len` for one `size_t`.
#[no_mangle]
pub extern "C" fn concordia_public_key_from_b64(
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
        copy_out(pk.as_bytes(), out, out_len)
    })
}
