//! Issue 32: the replay window's cold start, keys, and snapshot integrity.

use std::vec;
use std::vec::Vec;

use proptest::prelude::*;

use super::super::replay::{
    replay_key, FixedReplayWindow, Integrity, Verdict, MAX_FUTURE_SKEW, REPLAY_KEY_LABEL, SNAPSHOT_VERSION, WINDOW,
};
use crate::error::Error;
use crate::time::Timestamp;

fn t(secs: i64) -> Timestamp {
    Timestamp::from_unix(secs)
}

fn snap<const N: usize>(w: &mut FixedReplayWindow<N>, i: &Integrity<'_>) -> Vec<u8> {
    let mut out = vec![0u8; w.snapshot_len()];
    let n = w.snapshot_sealed(&mut out, i).unwrap();
    out.truncate(n);
    out
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    /// Class 2: a window that accepted envelopes with any skew the window allows (up to
    /// 600 s old, up to 300 s ahead), then lost its memory and was cold-started at a clock
    /// not before its own, never accepts any of them again, at any later `now`.
    #[test]
    fn cold_start_never_reopens_what_the_lost_window_accepted(
        steps in proptest::collection::vec((any::<u8>(), -700i64..400, 0i64..200), 1..60),
        gap in 0i64..2_000,
        probes in proptest::collection::vec((any::<prop::sample::Index>(), 0i64..2_000), 1..80),
    ) {
        let mut lost = FixedReplayWindow::<64>::new();
        let mut now = 1_000_000i64;
        let mut accepted: Vec<(u128, i64)> = Vec::new();
        for (k, skew, advance) in steps {
            now += advance;
            let key = replay_key("did:web:alice.example", u128::from(k));
            if lost.check(key, t(now + skew), t(now)) == Ok(Verdict::Fresh) {
                accepted.push((key, now + skew));
            }
        }
        prop_assume!(!accepted.is_empty());
        // The store is lost; a new window starts cold at a clock not before the lost one.
        let mut w = FixedReplayWindow::<64>::new();
        let mut at = now + gap;
        w.cold_start(t(at));
        let mut probes = probes;
        probes.sort_by_key(|p| p.1);
        for (which, later) in probes {
            at = at.max(now + gap + later);
            let (key, created) = accepted[which.index(accepted.len())];
            prop_assert_ne!(w.check(key, t(created), t(at)), Ok(Verdict::Fresh), "replayed after a cold start");
            // Fresh traffic moves the clock as it would in service.
            let _ = w.check(replay_key("did:web:bob.example", u128::from(later as u64)), t(at), t(at));
        }
    }
}

/// Class 2, at the edges: the guard covers the start plus 300 s, and lasts until all of it
/// is older than the window.
#[test]
fn cold_start_guard_covers_the_future_skew() {
    let start = 2_000_000;
    // Accepted just before the loss, dated as far ahead as the window allows.
    let mut lost = FixedReplayWindow::<4>::new();
    assert_eq!(lost.check(9, t(start + MAX_FUTURE_SKEW), t(start)), Ok(Verdict::Fresh));
    let mut w = FixedReplayWindow::<4>::new();
    w.cold_start(t(start));
    for now in [start, start + 1, start + 300, start + 600, start + MAX_FUTURE_SKEW + WINDOW] {
        assert!(matches!(w.check(9, t(start + MAX_FUTURE_SKEW), t(now)), Err(Error::Temporal(_))), "at {now}");
    }
    assert!(w.cold_start_guard().is_some());
    assert_eq!(w.check(1, t(start + 901), t(start + 901)), Ok(Verdict::Fresh));
    assert_eq!(w.cold_start_guard(), None);
}

/// Class 5: keys are sender and id, so another sender's copy of Alice's id is not a replay
/// of hers; the key is the documented SHA-256 construction.
#[test]
fn keys_are_sender_and_id() {
    let id = 0x1234_5678_9abc_4def_8123_4567_89ab_cdefu128;
    let (alice, mallory) = (replay_key("did:web:alice.example", id), replay_key("did:web:mallory.example", id));
    assert_ne!(alice, mallory);
    assert_ne!(replay_key("did:web:alice.example", id + 1), alice);
    // Length-prefixed: moving bytes between `from` and the id changes the key.
    assert_ne!(replay_key("did:web:a", id), replay_key("did:web:a\0", id));
    let mut h = crate::digest::Sha256Sink::new();
    h.update(REPLAY_KEY_LABEL);
    h.update(&21u64.to_le_bytes());
    h.update(b"did:web:alice.example");
    h.update(&id.to_be_bytes());
    let d = h.finish();
    assert_eq!(alice, u128::from_be_bytes(d.0[..16].try_into().unwrap()));
    let now = t(1_800_000_000);
    let mut w = FixedReplayWindow::<8>::new();
    assert_eq!(w.check(mallory, now, now), Ok(Verdict::Fresh), "Mallory copies Alice's id and gets in first");
    assert_eq!(w.check(alice, now, now), Ok(Verdict::Fresh), "Alice's genuine envelope is not a replay");
    assert_eq!(w.check(alice, now, now), Ok(Verdict::Duplicate));
}

/// Class 5: a version-1 snapshot (keys were bare ids) does not restore as a usable window:
/// it is a cold start at the later of its saved clock and `now`.
#[test]
fn version_1_snapshot_is_a_cold_start_at_its_clock() {
    // A version-1 snapshot of a window at clock 5000 remembering id 7 created at 4990.
    let mut v1 = Vec::new();
    v1.extend_from_slice(b"CRWS");
    v1.extend_from_slice(&[1, 1, 0, 0]);
    v1.extend_from_slice(&5_000i64.to_le_bytes());
    v1.extend_from_slice(&0u32.to_le_bytes());
    v1.extend_from_slice(&[0; 12]);
    v1.extend_from_slice(&1u32.to_le_bytes());
    v1.extend_from_slice(&7u128.to_le_bytes());
    v1.extend_from_slice(&4_990i64.to_le_bytes());
    v1.extend_from_slice(&0u32.to_le_bytes());
    let sum = crate::digest::sha256(&v1);
    v1.extend_from_slice(sum.as_bytes());
    let mut w = FixedReplayWindow::<4>::new();
    assert!(matches!(w.restore(&v1, t(1_000)), Err(Error::Encoding(_))));
    assert_eq!((w.len(), w.cold_start_guard()), (0, Some(t(5_000 + MAX_FUTURE_SKEW))));
    assert!(w.check(7, t(4_990), t(5_000)).is_err(), "its id is refused");
    // At a later now the start is now.
    let mut w = FixedReplayWindow::<4>::new();
    assert!(w.restore(&v1, t(9_000)).is_err());
    assert_eq!(w.cold_start_guard(), Some(t(9_000 + MAX_FUTURE_SKEW)));
    assert_eq!(SNAPSHOT_VERSION, 2);
}

/// Class 4: a snapshot without a clock ("never used") restores as a cold start, so such
/// bytes put over a store do not give an unguarded window.
#[test]
fn unclocked_snapshot_restores_guarded() {
    let mut fresh = FixedReplayWindow::<4>::new();
    let never = snap(&mut fresh, &Integrity::NONE);
    let mut w = FixedReplayWindow::<4>::new();
    assert_eq!(w.check(5, t(10_000), t(10_000)), Ok(Verdict::Fresh));
    assert_eq!(w.restore(&never, t(10_010)), Ok(()));
    assert_eq!(w.cold_start_guard(), Some(t(10_010 + MAX_FUTURE_SKEW)));
    assert!(w.check(5, t(10_000), t(10_010)).is_err(), "the forgotten envelope does not open");
}

/// Class 4: with a MAC, an edited snapshot (an entry deleted, the checksum recomputed),
/// another key's, another owner's, an unsealed one and an older generation are refused,
/// fail closed; the checksum alone accepts the edit (it detects accidents only).
#[test]
fn sealed_snapshots_refuse_tampering_swap_and_rollback() {
    let key = [7u8; 32];
    let alice = Integrity { mac_key: Some(&key), owner: b"did:web:alice.example", min_generation: 0 };
    let bob = Integrity { owner: b"did:web:bob.example", ..alice };
    let now = t(50_000);
    let mut w = FixedReplayWindow::<8>::new();
    w.check(1, now, now).unwrap();
    let old = snap(&mut w, &alice);
    assert_eq!(w.generation(), 1);
    w.check(2, now, now).unwrap();
    let cur = snap(&mut w, &alice);
    assert_eq!(w.generation(), 2);
    let sealed_by_bob = {
        let mut b = FixedReplayWindow::<8>::new();
        b.check(3, now, now).unwrap();
        snap(&mut b, &bob)
    };
    // An entry deleted and the checksum recomputed: the plain checksum accepts it ...
    let mut plain = FixedReplayWindow::<8>::new();
    plain.check(1, now, now).unwrap();
    plain.check(2, now, now).unwrap();
    let p = snap(&mut plain, &Integrity::NONE);
    let mut edited = [&p[..40], &1u32.to_le_bytes(), &p[44..72]].concat();
    let sum = crate::digest::sha256(&edited);
    edited.extend_from_slice(sum.as_bytes());
    let mut r = FixedReplayWindow::<8>::new();
    assert_eq!(r.restore(&edited, now), Ok(()), "the checksum does not detect tampering");
    // ... and a MAC does not.
    let mut edited_mac = [&cur[..40], &1u32.to_le_bytes(), &cur[44..72]].concat();
    let sum = crate::digest::sha256(&edited_mac);
    edited_mac.extend_from_slice(sum.as_bytes());
    let other_key = Integrity { mac_key: Some(&[8u8; 32]), ..alice };
    let rollback = Integrity { min_generation: 2, ..alice };
    let cases: [(&str, &[u8], &Integrity<'_>); 6] = [
        ("entry deleted", &edited_mac, &alice),
        ("another owner's store", &sealed_by_bob, &alice),
        ("another key", &cur, &other_key),
        ("an unsealed snapshot", &p, &alice),
        ("a sealed snapshot without the key", &cur, &Integrity::NONE),
        ("an older generation", &old, &rollback),
    ];
    for (what, bytes, i) in cases {
        let mut r = FixedReplayWindow::<8>::new();
        assert!(matches!(r.restore_sealed(bytes, now, i), Err(Error::Binding(_))), "{what}");
        assert_eq!((r.len(), r.cold_start_guard()), (0, Some(t(50_000 + MAX_FUTURE_SKEW))), "{what}");
        assert!(r.generation() >= i.min_generation, "{what}");
        assert!(r.check(2, now, now).is_err(), "{what}: the forgotten envelope does not open");
    }
    // The genuine current snapshot restores, at and above its generation's minimum.
    let mut r = FixedReplayWindow::<8>::new();
    assert_eq!(r.restore_sealed(&cur, now, &rollback), Ok(()));
    assert_eq!((r.generation(), r.check(2, now, now)), (2, Ok(Verdict::Duplicate)));
    // After a refused rollback the next snapshot restores under the same minimum.
    let mut r = FixedReplayWindow::<8>::new();
    assert!(r.restore_sealed(&old, now, &rollback).is_err());
    let next = snap(&mut r, &alice);
    assert_eq!(FixedReplayWindow::<8>::new().restore_sealed(&next, now, &rollback), Ok(()));
    // Arguments: a short key, an owner without a key.
    let short = Integrity { mac_key: Some(&[1u8; 15]), ..Integrity::NONE };
    let ownerless = Integrity { owner: b"x", ..Integrity::NONE };
    for i in [short, ownerless] {
        assert!(matches!(w.snapshot_sealed(&mut [0u8; 512], &i), Err(Error::InvalidArgument(_))));
        assert!(matches!(FixedReplayWindow::<8>::new().restore_sealed(&cur, now, &i), Err(Error::InvalidArgument(_))));
    }
    assert!(!std::format!("{alice:?}").contains("7, 7"), "the key is not in Debug");
}
