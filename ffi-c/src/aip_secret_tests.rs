//! Issue 32 class 10: an AIP key pair's storage holds neither secret once it is dropped
//! (the secret types erase themselves; the C object has no Drop of its own).

use std::mem::{size_of, ManuallyDrop};

use super::*;

fn bytes_at<T>(p: *const T) -> Vec<u8> {
    (0..size_of::<T>())
        // SAFETY: `p` points to the caller's live ManuallyDrop slot of `size_of::<T>()`
        // bytes; reading its (dropped or not) initialized bytes moves or drops nothing.
        .map(|i| unsafe { std::ptr::read_volatile(p.cast::<u8>().wrapping_add(i)) })
        .collect()
}

fn contains(hay: &[u8], needle: &[u8]) -> bool {
    hay.windows(needle.len()).any(|w| w == needle)
}

#[test]
fn dropped_keypair_storage_holds_no_secret() {
    let seed = [0x42u8; 32];
    let (x, _) = hpke::derive_keypair(&[0x17u8; 32]);
    let xb = x.0;
    let mut slot = ManuallyDrop::new(concordia_aip_keypair { ed: KeyPair::from_seed(&seed), x });
    // One raw pointer for the reads and the drop (a pointer from a shared reference would be
    // invalidated by the `&mut` the drop needs, which Miri reports).
    let p: *mut concordia_aip_keypair = &mut *slot;
    let before = bytes_at(p);
    assert!(contains(&before, &seed) && contains(&before, &xb));
    // SAFETY: `slot` holds a valid key pair, dropped exactly once here and never used as
    // one again; ManuallyDrop keeps its storage alive for the read below.
    unsafe { std::ptr::drop_in_place(p) };
    let after = bytes_at(p);
    assert!(!contains(&after, &seed), "the Ed25519 seed survived the drop");
    assert!(!contains(&after, &xb), "the X25519 secret survived the drop");
}
