//! Replay window, trust and credential tests.

use std::boxed::Box;
use std::collections::HashMap;
use std::string::String;
use std::vec;
use std::vec::Vec;

use proptest::prelude::*;

use super::super::replay::{FixedReplayWindow, IdSlot, ReplayWindow, TimeSlot, Verdict, MAX_FUTURE_SKEW, WINDOW};
use super::super::trust::{self, Candidate, Edge, Event};
use super::super::vc::{self, VerifyOptions};
use crate::error::{Error, Limit};
use crate::json::{self, Node};
use crate::sign::KeyPair;
use crate::time::Timestamp;

fn t(secs: i64) -> Timestamp {
    Timestamp::from_unix(secs)
}

fn tn(secs: i64, nanos: u32) -> Timestamp {
    Timestamp::from_unix_nanos(secs, nanos).unwrap()
}

// ---- replay window ----

#[test]
fn replay_skew_bounds_are_exact() {
    let now = tn(1_000_000, 500);
    let mut w = FixedReplayWindow::<8>::new();
    assert_eq!(w.check(1, tn(1_000_000 + MAX_FUTURE_SKEW, 500), now), Ok(Verdict::Fresh));
    assert!(matches!(w.check(2, tn(1_000_000 + MAX_FUTURE_SKEW, 501), now), Err(Error::Temporal(_))));
    assert_eq!(w.check(3, tn(1_000_000 - WINDOW, 500), now), Ok(Verdict::Fresh));
    assert!(matches!(w.check(4, tn(1_000_000 - WINDOW, 499), now), Err(Error::Temporal(_))));
    assert_eq!(w.check(3, tn(1_000_000 - WINDOW, 500), now), Ok(Verdict::Duplicate));
    // One nanosecond later id 3 has left the window: its copies are too old (and a refused
    // check changes nothing), and the next accepted check evicts it.
    let later = tn(1_000_000, 501);
    assert!(matches!(w.check(3, tn(1_000_000 - WINDOW, 500), later), Err(Error::Temporal(_))));
    assert!(w.contains(3));
    assert_eq!(w.check(5, later, later), Ok(Verdict::Fresh));
    assert!(!w.contains(3));
    assert!(w.contains(1));
    w.check_invariants();
}

#[test]
fn replay_full_window_fails_closed() {
    let mut w = FixedReplayWindow::<4>::new();
    for id in 0..4u128 {
        assert_eq!(w.check(id, t(100 + id as i64), t(100)), Ok(Verdict::Fresh));
    }
    assert_eq!(w.check(9, t(100), t(100)), Err(Error::Limit { kind: Limit::Capacity, offset: 0 }));
    assert_eq!(w.check(2, t(102), t(100)), Ok(Verdict::Duplicate), "duplicates still recognised when full");
    assert_eq!(w.len(), 4);
    // At 100 + 600 + 0.x nothing has left yet (created_at 100 is exactly at the edge) ...
    assert!(w.check(9, t(700), t(700)).is_err());
    // ... one second later the oldest entry has left and the new id fits.
    assert_eq!(w.check(9, t(701), t(701)), Ok(Verdict::Fresh));
    assert!(!w.contains(0) && w.contains(1));
    w.check_invariants();
    let w0 = FixedReplayWindow::<0>::new();
    assert_eq!(w0.capacity(), 0);
}

#[test]
fn replay_clock_stepping_back_does_not_resurrect() {
    let mut w = FixedReplayWindow::<4>::new();
    assert_eq!(w.check(7, t(1000), t(1000)), Ok(Verdict::Fresh));
    assert_eq!(w.check(8, t(2000), t(2000)), Ok(Verdict::Fresh)); // evicts 7
    assert!(!w.contains(7));
    // The caller's clock jumps back to 1000: 7 must still be refused.
    assert!(w.check(7, t(1000), t(1000)).is_err());
}

#[derive(Clone, Debug)]
struct Op {
    id: u8,
    created: i64,
    advance: i64,
    /// 0..=12: a check; 13: the third window is replaced by one restored from a snapshot
    /// of the first; 14: cold start (the first window through a refused snapshot, the
    /// others directly); 15: the third window is restored from a snapshot of the first
    /// taken at this step, into storage pre-filled with garbage.
    action: u8,
}

fn op() -> impl Strategy<Value = Op> {
    (0u8..24, -700i64..400, -50i64..120, 0u8..16).prop_map(|(id, created, advance, action)| Op {
        id,
        created,
        advance,
        action,
    })
}

type Boxed = ReplayWindow<Box<[IdSlot]>, Box<[TimeSlot]>>;

fn boxed(cap: usize) -> Boxed {
    ReplayWindow::new_in(vec![IdSlot::EMPTY; cap].into_boxed_slice(), vec![TimeSlot::EMPTY; cap].into_boxed_slice())
}

fn snapshot_of<T: AsRef<[IdSlot]> + AsMut<[IdSlot]>, H: AsRef<[TimeSlot]> + AsMut<[TimeSlot]>>(
    w: &mut ReplayWindow<T, H>,
) -> Vec<u8> {
    let mut out = vec![0u8; w.snapshot_len()];
    let g = w.generation();
    assert_eq!(w.snapshot(&mut []), Err(Error::BufferTooSmall { needed: out.len() }));
    assert_eq!(w.generation(), g, "a size query does not move the generation");
    let n = w.snapshot(&mut out).unwrap();
    assert_eq!(n, out.len());
    assert_eq!(w.generation(), g + 1, "every snapshot is one generation more");
    assert_eq!(u64::from_le_bytes(out[8..16].try_into().unwrap()), g + 1);
    out
}

/// A snapshot without its generation and seal: the window's state alone.
fn state(s: &[u8]) -> Vec<u8> {
    [&s[..8], &s[16..s.len() - 32]].concat()
}

/// The window's state (see [`state`]).
fn state_of<T: AsRef<[IdSlot]> + AsMut<[IdSlot]>, H: AsRef<[TimeSlot]> + AsMut<[TimeSlot]>>(
    w: &mut ReplayWindow<T, H>,
) -> Vec<u8> {
    state(&snapshot_of(w))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Against a model: same verdicts, exact bounds, a failed check changes nothing (its
    /// clock included), and no id accepted twice while a previous acceptance of it is still
    /// inside the window, for any interleaving of ids, timestamps and clock movements
    /// (including backwards), cold starts, and snapshots restored into a new window (which
    /// must then give the uninterrupted window's verdicts, and write the same snapshot).
    #[test]
    fn replay_matches_model(ops in proptest::collection::vec(op(), 1..300)) {
        const CAP: usize = 16;
        let mut w = FixedReplayWindow::<CAP>::new();
        // The same window over borrowed storage (pre-filled with garbage) must agree.
        let (mut ids, mut times) = ([IdSlot::EMPTY; CAP], [TimeSlot::EMPTY; CAP + 3]);
        {
            let mut junk = ReplayWindow::new_in(&mut ids[..], &mut times[..]);
            for k in 0..CAP as u128 {
                let _ = junk.check(k + 77, t(10_000), t(10_000));
            }
        }
        let mut borrowed = ReplayWindow::new_in(&mut ids[..], &mut times[..]);
        // A window restored from snapshots of `w` along the way (of the same capacity, which
        // is not in the snapshot: a larger window would accept where `w` is full).
        let mut restored = boxed(CAP);
        let mut model: HashMap<u128, i64> = HashMap::new();
        let mut accepted: HashMap<u128, i64> = HashMap::new();
        let mut guard: Option<i64> = None;
        let mut forgotten: Vec<(u128, i64)> = Vec::new();
        let mut now = 10_000i64;
        let mut latest = i64::MIN;
        for o in ops {
            now += o.advance;
            let cand = latest.max(now);
            match o.action {
                13 => {
                    let snap = snapshot_of(&mut w);
                    if snap[5] & 1 == 0 {
                        // No clock yet: restores as a cold start (tests_replay_store.rs).
                        continue;
                    }
                    restored = boxed(CAP);
                    prop_assert_eq!(restored.restore(&snap, t(now - 5_000)), Ok(()));
                    prop_assert_eq!(restored.generation(), w.generation());
                    prop_assert_eq!(state_of(&mut restored), state(&snap), "a restored window writes the same snapshot");
                    continue;
                }
                14 => {
                    let mut snap = snapshot_of(&mut w);
                    let flip = usize::from(o.id) % snap.len();
                    snap[flip] ^= 1 << (o.id % 8);
                    prop_assert!(w.restore(&snap, t(now)).is_err(), "a bit-flipped snapshot is refused");
                    borrowed.cold_start(t(now));
                    restored.cold_start(t(now));
                    model.clear();
                    latest = cand;
                    guard = Some(cand + MAX_FUTURE_SKEW);
                    // The same envelope (id and created_at) accepted before the cold start is
                    // never accepted again, whatever its skew (up to 300 s ahead of the clock
                    // of that time, which was not after the start).
                    forgotten.extend(accepted.drain());
                    prop_assert_eq!(w.cold_start_guard(), Some(t(cand + MAX_FUTURE_SKEW)));
                    prop_assert_eq!(w.len(), 0);
                    continue;
                }
                15 => {
                    let snap = snapshot_of(&mut w);
                    if snap[5] & 1 == 0 {
                        continue;
                    }
                    let (mut ids2, mut times2) = ([IdSlot::EMPTY; CAP], [TimeSlot::EMPTY; CAP]);
                    let mut junk = ReplayWindow::new_in(&mut ids2[..], &mut times2[..]);
                    for k in 0..CAP as u128 {
                        let _ = junk.check(k * 3 + 1, t(now), t(now));
                    }
                    prop_assert_eq!(junk.restore(&snap, t(now)), Ok(()));
                    let again = snapshot_of(&mut junk);
                    prop_assert_eq!(state(&again), state(&snap));
                    restored = boxed(CAP);
                    prop_assert_eq!(restored.restore(&again, t(now)), Ok(()));
                    continue;
                }
                _ => {}
            }
            let created = cand + o.created;
            let id = u128::from(o.id).wrapping_mul(0x9e37_79b9_7f4a_7c15_f39c_c060_5ced_c835);
            let mut next = model.clone();
            next.retain(|_, c| *c >= cand - WINDOW);
            let expect = if created > cand + MAX_FUTURE_SKEW || created < cand - WINDOW || guard.is_some_and(|g| created <= g) {
                Err("temporal")
            } else if next.contains_key(&id) {
                Ok(Verdict::Duplicate)
            } else if next.len() >= CAP {
                Err("full")
            } else {
                next.insert(id, created);
                Ok(Verdict::Fresh)
            };
            if expect.is_ok() {
                model = next;
                latest = cand;
                if guard.is_some_and(|g| g < cand - WINDOW) {
                    guard = None;
                }
            }
            let before = state_of(&mut w);
            let got = w.check(id, t(created), t(now));
            prop_assert_eq!(&got, &borrowed.check(id, t(created), t(now)));
            prop_assert_eq!(&got, &restored.check(id, t(created), t(now)));
            match (&expect, &got) {
                (Ok(a), Ok(b)) => prop_assert_eq!(a, b),
                (Err("temporal"), Err(Error::Temporal(_))) => {}
                (Err("full"), Err(Error::Limit { kind: Limit::Capacity, .. })) => {}
                _ => prop_assert!(false, "model {:?} window {:?}", expect, got),
            }
            if got.is_err() {
                prop_assert_eq!(state_of(&mut w), before, "a failed check leaves the window unchanged");
            }
            if got == Ok(Verdict::Fresh) {
                if let Some(prev) = accepted.get(&id) {
                    prop_assert!(*prev < latest - WINDOW, "id accepted twice inside the window");
                }
                prop_assert!(!forgotten.contains(&(id, created)), "an envelope accepted again after a cold start");
                accepted.insert(id, created);
            }
            prop_assert_eq!(w.cold_start_guard(), guard.map(t));
            prop_assert_eq!(state_of(&mut borrowed), state_of(&mut w));
            prop_assert_eq!(w.check_invariants(), model.len());
            prop_assert_eq!(borrowed.check_invariants(), model.len());
            prop_assert_eq!(restored.check_invariants(), model.len());
        }
    }

    /// Arbitrary bytes are refused without a panic, and leave a cold-started window.
    #[test]
    fn replay_restore_refuses_arbitrary_bytes(bytes in proptest::collection::vec(any::<u8>(), 0..400)) {
        let mut w = FixedReplayWindow::<8>::new();
        prop_assert!(w.restore(&bytes, t(5_000)).is_err());
        prop_assert_eq!(w.len(), 0);
        prop_assert_eq!(w.cold_start_guard(), Some(t(5_000 + MAX_FUTURE_SKEW)));
        w.check_invariants();
    }

    /// Every truncation and every single-bit flip of a real snapshot is refused without a
    /// panic, and the window fails closed (cold start); the intact snapshot still restores.
    #[test]
    fn replay_restore_refuses_damaged_snapshots(n in 1usize..12, seed in any::<u64>(), cut in any::<prop::sample::Index>(), bit in any::<prop::sample::Index>()) {
        let mut src = FixedReplayWindow::<12>::new();
        let mut x = seed | 1;
        for k in 0..n as i64 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let _ = src.check(u128::from(x), t(100_000 + k), t(100_000 + k));
        }
        let snap = snapshot_of(&mut src);
        let mut w = FixedReplayWindow::<12>::new();
        let cut = cut.index(snap.len());
        prop_assert!(w.restore(&snap[..cut], t(200_000)).is_err());
        prop_assert_eq!((w.len(), w.cold_start_guard()), (0, Some(t(200_000 + MAX_FUTURE_SKEW))));
        let mut flipped = snap.clone();
        let b = bit.index(snap.len() * 8);
        flipped[b / 8] ^= 1 << (b % 8);
        prop_assert!(w.restore(&flipped, t(200_000)).is_err());
        prop_assert_eq!((w.len(), w.cold_start_guard()), (0, Some(t(200_000 + MAX_FUTURE_SKEW))));
        let mut longer = snap.clone();
        longer.push(0);
        prop_assert!(w.restore(&longer, t(200_000)).is_err());
        prop_assert_eq!(w.restore(&snap, t(200_000)), Ok(()));
        prop_assert_eq!(w.len(), src.len());
        prop_assert_eq!(state_of(&mut w), state(&snap));
        w.check_invariants();
    }
}

/// Snapshots whose checksum is right but whose contents are inconsistent (as a writer other
/// than `snapshot` could make them) are refused.
#[test]
fn replay_restore_refuses_inconsistent_snapshots() {
    fn reseal(mut s: Vec<u8>) -> Vec<u8> {
        let n = s.len() - 32;
        let sum = crate::digest::sha256(&s[..n]);
        s[n..].copy_from_slice(sum.as_bytes());
        s
    }
    let mut src = FixedReplayWindow::<4>::new();
    for k in 0..3 {
        src.check(k + 1, t(1_000 + k as i64), t(1_000)).unwrap();
    }
    let good = snapshot_of(&mut src);
    let mut w = FixedReplayWindow::<4>::new();
    assert_eq!(w.restore(&good, t(0)), Ok(()));
    type Edit = Box<dyn Fn(&mut Vec<u8>)>;
    let edits: Vec<(&str, Edit)> = vec![
        ("version 3", Box::new(|s| s[4] = 3)),
        ("unknown flag", Box::new(|s| s[5] |= 8)),
        ("reserved byte", Box::new(|s| s[6] = 1)),
        ("no clock with ids", Box::new(|s| s[5] &= !1)),
        ("nanoseconds out of range", Box::new(|s| s[24..28].copy_from_slice(&2_000_000_000u32.to_le_bytes()))),
        ("clock at the end of time", Box::new(|s| s[16..24].copy_from_slice(&i64::MAX.to_le_bytes()))),
        ("count too large", Box::new(|s| s[40] = 4)),
        (
            "guard after what the clock could accept",
            Box::new(|s| {
                s[5] |= 2;
                s[28..36].copy_from_slice(&1_301i64.to_le_bytes());
            }),
        ),
        (
            "key twice",
            Box::new(|s| {
                let first: Vec<u8> = s[44..60].to_vec();
                s[72..88].copy_from_slice(&first);
            }),
        ),
        ("created_at too old for the clock", Box::new(|s| s[60..68].copy_from_slice(&100i64.to_le_bytes()))),
        ("out of heap order", Box::new(|s| s[60..68].copy_from_slice(&1_002i64.to_le_bytes()))),
    ];
    for (what, edit) in edits {
        let mut s = good.clone();
        edit(&mut s);
        let s = reseal(s);
        let mut w = FixedReplayWindow::<4>::new();
        assert!(w.restore(&s, t(1_000)).is_err(), "{what}");
        assert_eq!((w.len(), w.cold_start_guard()), (0, Some(t(1_000 + MAX_FUTURE_SKEW))), "{what}");
    }
    // More ids than the window holds: refused with Capacity.
    let mut small = FixedReplayWindow::<2>::new();
    assert_eq!(small.restore(&good, t(0)), Err(Error::Limit { kind: Limit::Capacity, offset: 0 }));
    // A cold start after a later clock starts at the later time.
    let mut w = FixedReplayWindow::<4>::new();
    w.check(1, t(2_000), t(2_000)).unwrap();
    assert!(w.restore(b"", t(1_500)).is_err());
    assert_eq!(w.cold_start_guard(), Some(t(2_000 + MAX_FUTURE_SKEW)));
}

#[test]
fn replay_cold_start_guard() {
    let mut w = FixedReplayWindow::<8>::new();
    w.cold_start(t(10_000));
    assert!(matches!(w.check(1, t(9_999), t(10_000)), Err(Error::Temporal(_))), "created before the start");
    assert!(matches!(w.check(1, t(10_000), t(10_000)), Err(Error::Temporal(_))), "created at the start");
    // Issue 32: what the lost window could have accepted ahead of its clock is refused too.
    assert!(matches!(w.check(1, t(10_300), t(10_000)), Err(Error::Temporal(_))), "created at start + 300 s");
    assert!(matches!(w.check(1, t(10_200), t(10_500)), Err(Error::Temporal(_))), "created 200 s after the start");
    assert_eq!(w.check(2, tn(10_300, 1), t(10_001)), Ok(Verdict::Fresh));
    assert!(matches!(w.check(1, t(10_300), t(10_900)), Err(Error::Temporal(_))), "still guarded at start + 900 s");
    assert_eq!(w.cold_start_guard(), Some(t(10_300)));
    // Once everything the guard covers is too old for the window, it is dropped.
    assert_eq!(w.check(3, tn(10_900, 1), tn(10_900, 1)), Ok(Verdict::Fresh));
    assert_eq!(w.cold_start_guard(), None);
    assert!(matches!(w.check(1, t(10_300), tn(10_900, 1)), Err(Error::Temporal(_))), "too old by the window's rule");
    // The explicit opt-out.
    let mut w = FixedReplayWindow::<8>::new();
    w.cold_start(t(10_000));
    w.end_cold_start();
    assert_eq!(w.check(1, t(9_999), t(10_000)), Ok(Verdict::Fresh));
    // The guard survives a snapshot.
    let mut w = FixedReplayWindow::<8>::new();
    w.cold_start(t(10_000));
    let mut r = FixedReplayWindow::<8>::new();
    r.restore(&snapshot_of(&mut w), t(0)).unwrap();
    assert!(r.check(1, t(10_300), t(10_000)).is_err());
}

/// Issue 19: a check that fails on time with a later `now` does not move the clock.
#[test]
fn replay_failed_check_keeps_the_clock() {
    let mut w = FixedReplayWindow::<8>::new();
    assert_eq!(w.check(1, t(1_000), t(1_000)), Ok(Verdict::Fresh));
    // Refused (created far in the past for a `now` of 5000): the clock stays at 1000 ...
    assert!(matches!(w.check(2, t(1_000), t(5_000)), Err(Error::Temporal(_))));
    assert!(w.contains(1));
    // ... so an envelope that is fresh at 1000 is still judged at 1000.
    assert_eq!(w.check(3, t(900), t(1_000)), Ok(Verdict::Fresh));
    assert_eq!(w.check(1, t(1_000), t(1_000)), Ok(Verdict::Duplicate));
    // A full window that refuses a new id does not evict or move either.
    let mut f = FixedReplayWindow::<1>::new();
    f.check(1, t(1_000), t(1_000)).unwrap();
    assert!(f.check(2, t(1_000), t(1_000)).is_err());
    assert!(f.check(1, t(1_000), t(1_000)).is_ok());
}

#[test]
fn replay_large_capacity_stays_balanced() {
    let mut w: Box<FixedReplayWindow<4096>> = Box::default();
    let mut x: u64 = 0x1234_5678;
    for i in 0..20_000i64 {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let now = t(1_000_000 + i / 20);
        let _ = w.check(u128::from(x), now, now);
    }
    assert!(w.check_invariants() > 0);
}

// ---- trust ----

#[test]
fn trust_rule_properties() {
    assert_eq!(trust::score(1.0, []), 0.0);
    let mut s = 0.0;
    let mut last = 0.0;
    for i in 1..=200 {
        s = trust::update(s, 1.0, Event::Success);
        assert!(s > last && s <= 1.0, "rises monotonically within [0, 1]");
        assert!(s - last <= trust::ALPHA + 1e-12, "rises slowly");
        if i == 13 {
            assert!(s < 0.5);
        }
        if i == 14 {
            assert!(s >= 0.5);
        }
        last = s;
    }
    let before = s;
    let after = trust::update(s, 1.0, Event::Failure);
    assert_eq!(after, before * 0.5, "falls fast");
    // From any score of at least 0.5, regaining it after one failure takes at least 8
    // successes (and 77 from 0.99).
    for start in [0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 0.99] {
        let mut s = trust::update(start, 1.0, Event::Failure);
        let mut n = 0;
        while s < start {
            s = trust::update(s, 1.0, Event::Success);
            n += 1;
        }
        assert!(n >= 8, "{start}: {n}");
        if start == 0.99 {
            assert_eq!(n, 77);
        }
    }
    assert_eq!(trust::update(0.9, 1.0, Event::Revocation), 0.0);
    assert_eq!(trust::update(0.9, 0.5, Event::Success), 0.5, "never above the ceiling");
    assert_eq!(trust::score(0.0, core::iter::repeat_n(Event::Success, 1000)), 0.0, "no credentials, no trust");
    for (s, c) in [(f64::NAN, 1.0), (2.0, 1.0), (-1.0, 1.0), (0.5, f64::NAN), (0.5, 7.0)] {
        for e in [Event::Success, Event::Failure, Event::Revocation] {
            let n = trust::update(s, c, e);
            assert!((0.0..=1.0).contains(&n));
        }
    }
}

#[test]
fn credential_ceiling_from_dag() {
    let anchor = "did:key:anchor";
    let edges = [
        Edge { issuer: anchor, subject: "did:a", revoked: false },
        Edge { issuer: "did:a", subject: "did:b", revoked: false },
        Edge { issuer: "did:b", subject: "did:a", revoked: false }, // cycle
        Edge { issuer: "did:x", subject: "did:y", revoked: false },
        Edge { issuer: anchor, subject: "did:r", revoked: true },
    ];
    let c = |s: &str| trust::credential_ceiling(s, &edges, &[anchor]).unwrap();
    assert_eq!(c(anchor), 1.0);
    assert_eq!(c("did:a"), 0.5);
    assert_eq!(c("did:b"), 0.25);
    assert_eq!(c("did:y"), 0.0);
    assert_eq!(c("did:r"), 0.0, "revoked edges give nothing");
    let chain: Vec<Edge<'_>> = ["did:1", "did:2", "did:3", "did:4", "did:5"]
        .windows(2)
        .map(|p| Edge { issuer: p[0], subject: p[1], revoked: false })
        .chain([Edge { issuer: anchor, subject: "did:1", revoked: false }])
        .collect();
    assert_eq!(trust::credential_ceiling("did:4", &chain, &[anchor]).unwrap(), 0.0625);
    assert_eq!(trust::credential_ceiling("did:5", &chain, &[anchor]).unwrap(), 0.0, "beyond MAX_DEPTH");
}

#[test]
fn rrf_and_ranking() {
    assert_eq!(trust::rrf(Some(1), Some(1)).unwrap(), 2.0 / 61.0);
    assert_eq!(trust::rrf(Some(1), None).unwrap(), 1.0 / 61.0);
    assert_eq!(trust::rrf(None, None).unwrap(), 0.0);
    assert!(trust::rrf(Some(0), None).is_err());
    assert_eq!(trust::final_score(0.5, 1.0).unwrap(), 0.5 * 1.3);
    assert!(trust::final_score(0.5, 1.5).is_err() && trust::final_score(0.5, f64::NAN).is_err());
    let c = [
        Candidate { semantic_rank: Some(2), fts_rank: None, trust_score: 0.9 },
        Candidate { semantic_rank: Some(1), fts_rank: Some(3), trust_score: 0.1 },
        Candidate { semantic_rank: None, fts_rank: Some(1), trust_score: 1.0 },
        Candidate { semantic_rank: None, fts_rank: Some(1), trust_score: 1.0 },
    ];
    let mut out = [trust::Ranked::default(); 4];
    assert_eq!(trust::rank(&c, &mut out).unwrap(), 4);
    let order: Vec<usize> = out.iter().map(|r| r.index).collect();
    assert_eq!(order, [1, 2, 3, 0]);
    assert!(trust::rank(&c, &mut [trust::Ranked::default(); 3]).is_err());
}

// ---- verifiable credentials ----

fn credential(issuer: &str) -> String {
    std::format!(
        r#"{{"@context":["https://www.w3.org/ns/credentials/v2"],"id":"urn:uuid:58172aac-d8ba-11ed-83dd-0b3aef56cc33","type":["VerifiableCredential","OrganizationVerification"],"issuer":"{issuer}","validFrom":"2026-01-01T00:00:00Z","validUntil":"2027-01-01T00:00:00Z","credentialSubject":{{"id":"did:aip:aigentix.org:etagi","legalName":"Etazhi LLC","inn":"7224052984","verified":true}}}}"#
    )
}

fn issue(kp: &KeyPair, text: &str) -> String {
    let mut nodes = vec![Node::EMPTY; text.len()];
    let doc = json::parse(text.as_bytes(), &mut nodes).unwrap();
    let mut out = vec![0u8; 10];
    let need = match vc::issue(doc.root(), kp, Some("2026-05-10T14:25:00Z"), &mut out) {
        Err(Error::BufferTooSmall { needed }) => needed,
        other => panic!("{other:?}"),
    };
    out.resize(need, 0);
    let n = vc::issue(doc.root(), kp, Some("2026-05-10T14:25:00Z"), &mut out).unwrap();
    String::from_utf8(out[..n].to_vec()).unwrap()
}

fn verify(text: &str, opts: &VerifyOptions<'_>) -> crate::Result<()> {
    let mut nodes = vec![Node::EMPTY; text.len()];
    let doc = json::parse(text.as_bytes(), &mut nodes)?;
    vc::verify(doc.root(), opts).map(|_| ())
}

#[test]
fn vc_issue_verify_and_tamper() {
    let kp = KeyPair::from_seed(&[0x44; 32]);
    let did = crate::did_key::encode(&kp.public_key());
    let signed = issue(&kp, &credential(&did));
    assert!(signed.contains("\"cryptosuite\":\"eddsa-jcs-2022\""));
    assert!(signed.contains("\"proofValue\":\"z"));
    let anchors = [did.as_str()];
    let now = Some(crate::time::parse_datetime("2026-06-01T00:00:00Z").unwrap());
    let opts = VerifyOptions { now, anchors: Some(&anchors), revoked: &[], ..VerifyOptions::default() };
    verify(&signed, &opts).unwrap();
    let mut nodes = vec![Node::EMPTY; signed.len()];
    let v = vc::verify(json::parse(signed.as_bytes(), &mut nodes).unwrap().root(), &opts).unwrap();
    assert_eq!(v.subject, Some("did:aip:aigentix.org:etagi"));
    // Tampering with any field fails.
    for (from, to) in [
        ("Etazhi LLC", "Etazhi LLD"),
        ("7224052984", "7224052985"),
        ("\"verified\":true", "\"verified\":false"),
        ("\"created\":\"2026-05-10T14:25:00Z\"", "\"created\":\"2026-05-10T14:25:01Z\""),
        ("OrganizationVerification", "OrganizationVerificatioN"),
        ("2027-01-01", "2028-01-01"),
        ("\"proofPurpose\":\"assertionMethod\"", "\"proofPurpose\":\"authentication\""),
        ("\"cryptosuite\":\"eddsa-jcs-2022\"", "\"cryptosuite\":\"eddsa-rdfc-2022\""),
        ("\"type\":\"DataIntegrityProof\"", "\"type\":\"Ed25519Signature2020\""),
        ("\"proofValue\":\"z", "\"proofValue\":\"u"),
        (
            "\"@context\":[\"https://www.w3.org/ns/credentials/v2\"],\"created\"",
            "\"@context\":[\"https://example.org\"],\"created\"",
        ),
    ] {
        assert!(signed.contains(from), "{from}");
        let bad = signed.replacen(from, to, 1);
        assert!(verify(&bad, &opts).is_err(), "{to}");
    }
    let bad_sig = {
        let i = signed.find("\"proofValue\":\"z").unwrap() + 16;
        let mut b = signed.clone().into_bytes();
        b[i] = if b[i] == b'A' { b'B' } else { b'A' };
        String::from_utf8(b).unwrap()
    };
    assert!(verify(&bad_sig, &opts).is_err());
    // Anchors, revocation, validity period.
    assert!(matches!(
        verify(&signed, &VerifyOptions { anchors: Some(&["did:key:other"]), ..opts }),
        Err(Error::Binding(_))
    ));
    let revoked = ["urn:uuid:58172aac-d8ba-11ed-83dd-0b3aef56cc33"];
    assert!(matches!(verify(&signed, &VerifyOptions { revoked: &revoked, ..opts }), Err(Error::Binding(_))));
    let late = Some(crate::time::parse_datetime("2027-01-01T00:00:01Z").unwrap());
    assert!(matches!(verify(&signed, &VerifyOptions { now: late, ..opts }), Err(Error::Temporal(_))));
    let early = Some(crate::time::parse_datetime("2025-12-31T23:59:59Z").unwrap());
    assert!(matches!(verify(&signed, &VerifyOptions { now: early, ..opts }), Err(Error::Temporal(_))));
    // Signed by another key than the issuer's: rejected at issue and at verification.
    let other = KeyPair::from_seed(&[0x45; 32]);
    let mut nodes = vec![Node::EMPTY; 1000];
    let text = credential(&did);
    let doc = json::parse(text.as_bytes(), &mut nodes).unwrap();
    assert!(vc::issue(doc.root(), &other, None, &mut [0u8; 4096]).is_err());
    let forged = issue(&other, &credential(&crate::did_key::encode(&other.public_key())))
        .replace(crate::did_key::encode(&other.public_key()).as_str().split('#').next().unwrap(), &did);
    assert!(verify(&forged, &VerifyOptions::default()).is_err());
    // Already has a proof.
    let mut nodes = vec![Node::EMPTY; signed.len()];
    let doc = json::parse(signed.as_bytes(), &mut nodes).unwrap();
    assert!(vc::issue(doc.root(), &kp, None, &mut [0u8; 4096]).is_err());
}

/// The hash construction written out by hand from the specification, independently of
/// `vc::issue`: `SHA-256(JCS(proof config)) || SHA-256(JCS(document))`.
#[test]
fn vc_hash_construction_by_hand() {
    let kp = KeyPair::from_seed(&[0x44; 32]);
    let did = crate::did_key::encode(&kp.public_key());
    let unsigned = credential(&did);
    let signed = issue(&kp, &unsigned);
    let mut nodes = vec![Node::EMPTY; signed.len()];
    let doc = json::parse(signed.as_bytes(), &mut nodes).unwrap();
    let proof = doc.root().get("proof").unwrap();
    let pv = proof.get("proofValue").unwrap().as_plain_str().unwrap();
    let mut sig = [0u8; 64];
    assert_eq!(crate::encoding::decode_base58(&pv.as_bytes()[1..], &mut sig).unwrap(), 64);
    let vm = std::format!("{did}#{}", &did["did:key:".len()..]);
    let config = std::format!(
        r#"{{"@context":["https://www.w3.org/ns/credentials/v2"],"created":"2026-05-10T14:25:00Z","cryptosuite":"eddsa-jcs-2022","proofPurpose":"assertionMethod","type":"DataIntegrityProof","verificationMethod":"{vm}"}}"#
    );
    let mut n2 = vec![Node::EMPTY; unsigned.len()];
    let udoc = json::parse(unsigned.as_bytes(), &mut n2).unwrap();
    let mut data = Vec::new();
    data.extend_from_slice(crate::digest::sha256(config.as_bytes()).as_bytes());
    data.extend_from_slice(crate::digest::sha256_jcs(udoc.root()).as_bytes());
    crate::sign::verify(&kp.public_key(), &data, &crate::sign::Signature::from_array(sig)).unwrap();
}

#[test]
fn replay_slots_are_48_bytes_and_storage_can_be_boxed() {
    assert_eq!(std::mem::size_of::<IdSlot>() + std::mem::size_of::<TimeSlot>(), 48);
    let mut w = ReplayWindow::new_in(
        std::vec![IdSlot::EMPTY; 3].into_boxed_slice(),
        std::vec![TimeSlot::EMPTY; 5].into_boxed_slice(),
    );
    assert_eq!(w.capacity(), 3);
    for id in 0..3u128 {
        assert_eq!(w.check(id, t(10_000), t(10_000)), Ok(Verdict::Fresh));
    }
    assert!(matches!(w.check(9, t(10_000), t(10_000)), Err(Error::Limit { kind: Limit::Capacity, .. })));
    // An id leaves exactly when its created_at leaves the window, freeing its slot.
    assert_eq!(w.check(9, t(10_001), t(10_000 + WINDOW + 1)), Ok(Verdict::Fresh));
    assert_eq!(w.len(), 1);
    assert_eq!(w.into_storage().1.len(), 5);
}
