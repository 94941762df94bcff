//! Issue 32 class 10: a key file's secrets are erased when it is dropped, and never shown.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, unsafe_code)]

use core::mem::{size_of, ManuallyDrop};

use super::KeyFile;

const SEED: [u8; 32] = [0x5a; 32];

/// Whether `needle` occurs in `hay`.
fn contains(hay: &[u8], needle: &[u8]) -> bool {
    hay.windows(needle.len()).any(|w| w == needle)
}

/// The bytes of the value at `p`, read without dropping or moving it.
fn bytes_at<T>(p: *const T) -> Vec<u8> {
    (0..size_of::<T>())
        // SAFETY: `p` points to a live `ManuallyDrop` slot of `size_of::<T>()` bytes (the
        // caller's stack value); reading its bytes (dropped contents or not) is a plain
        // volatile read of initialized memory the test owns.
        .map(|i| unsafe { core::ptr::read_volatile(p.cast::<u8>().add(i)) })
        .collect()
}

#[test]
fn dropped_key_file_leaves_no_secret_in_its_storage() {
    let kf = KeyFile::from_seed(&SEED, Some("did:aip:example.com:alice".into())).unwrap();
    let x = kf.x.as_ref().unwrap().0;
    let mut slot = ManuallyDrop::new(kf);
    // One raw pointer for the reads and the drop (one from `&*slot` would be invalidated
    // by the `&mut` a drop through `slot` needs).
    let p: *mut KeyFile = &mut *slot;
    let before = bytes_at(p);
    assert!(contains(&before, &SEED), "the Ed25519 seed is held inline");
    assert!(contains(&before, &x), "the X25519 secret is held inline");
    // SAFETY: `slot` is a valid, initialized KeyFile that is dropped exactly once here and
    // never used as a KeyFile again (ManuallyDrop keeps its storage alive for the read).
    unsafe { core::ptr::drop_in_place(p) };
    let after = bytes_at(p);
    assert!(!contains(&after, &SEED), "the Ed25519 seed survived the drop");
    assert!(!contains(&after, &x), "the X25519 secret survived the drop");
}

#[test]
fn dropped_x25519_secret_is_zero() {
    let (sk, _) = concordia_core::aip::hpke::derive_keypair(&[3u8; 32]);
    let mut slot = ManuallyDrop::new(sk);
    let p: *mut concordia_core::aip::hpke::X25519SecretKey = &mut *slot;
    assert_ne!(bytes_at(p), [0u8; 32]);
    // SAFETY: dropped once, never used again; the storage stays alive in `slot`.
    unsafe { core::ptr::drop_in_place(p) };
    assert_eq!(bytes_at(p), [0u8; 32]);
}

#[test]
fn key_file_debug_and_errors_show_no_secret() {
    let kf = KeyFile::from_seed(&SEED, None).unwrap();
    let text = kf.to_json().unwrap();
    let json = core::str::from_utf8(&text).unwrap().to_owned();
    let seed_hex = "5a".repeat(32);
    assert!(json.contains(&seed_hex));
    let shown = format!("{kf:?}");
    assert!(!shown.contains(&seed_hex) && !shown.contains("secret"), "{shown}");
    // A key file with a bad secret names the member, not the text.
    let bad = json.replace(&seed_hex, &format!("{}zz", "5a".repeat(31)));
    let e = KeyFile::from_json(bad.as_bytes()).unwrap_err();
    assert!(!format!("{e} {e:?}").contains("5a5a"), "{e}");
    // The text round-trips, and writing reserved enough room up front.
    assert!(text.capacity() >= text.len());
    assert_eq!(&*KeyFile::from_json(&text).unwrap().to_json().unwrap(), &*text);
}
