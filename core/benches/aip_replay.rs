//! Replay-window checks per second at capacity 65,536 (issue 10: at least 1 million/s).
//!
//! Steady state at capacity: the window is pre-filled with 65,536 ids whose `created_at`
//! spans the 600 s window, and the clock advances 9.156 ms per new message, so every
//! fresh check also evicts about one expired entry (lookup + insert + eviction, each
//! O(log n)). One check in four repeats a recent id (a relay redelivery: `Duplicate`).
//!
//! Run: `cargo bench -p concordia-core --bench aip_replay -- --warm-up-time 1 --measurement-time 3`
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::hint::black_box;

use concordia_core::aip::replay::{FixedReplayWindow, Verdict};
use concordia_core::time::Timestamp;
use criterion::{criterion_group, criterion_main, Criterion, Throughput};

const CAP: usize = 65_536;
const STEP_NS: i64 = 9_156_000;
const BATCH: u64 = 1000;

struct Clock(i64);

impl Clock {
    fn tick(&mut self) -> Timestamp {
        self.0 += STEP_NS;
        Timestamp::from_unix_nanos(self.0.div_euclid(1_000_000_000), self.0.rem_euclid(1_000_000_000) as u32).unwrap()
    }
}

fn next_id(x: &mut u64) -> u128 {
    *x ^= *x << 13;
    *x ^= *x >> 7;
    *x ^= *x << 17;
    u128::from(*x) << 64 | u128::from(x.wrapping_mul(0x9e37_79b9_7f4a_7c15)) | 0x4000
}

fn replay(c: &mut Criterion) {
    let mut w: Box<FixedReplayWindow<CAP>> = Box::default();
    let mut clock = Clock(1_800_000_000 * 1_000_000_000);
    let mut seed = 0x2545_f491_4f6c_dd1d_u64;
    let mut recent = [0u128; 64];
    for i in 0..CAP {
        let now = clock.tick();
        let id = next_id(&mut seed);
        recent[i % 64] = id;
        assert_eq!(w.check(id, now, now), Ok(Verdict::Fresh));
    }
    assert!(w.len() > CAP - 16, "pre-filled to capacity: {}", w.len());
    let mut g = c.benchmark_group("aip_replay");
    g.throughput(Throughput::Elements(BATCH));
    g.bench_function("check_at_capacity_65536", |b| {
        let mut k = 0usize;
        b.iter(|| {
            for _ in 0..BATCH {
                k += 1;
                let now = clock.tick();
                let id = if k.is_multiple_of(4) { recent[(k / 4) % 64] } else { next_id(&mut seed) };
                if !k.is_multiple_of(4) {
                    recent[k % 64] = id;
                }
                let _ = black_box(w.check(black_box(id), now, now));
            }
        });
    });
    g.finish();
    assert!(w.len() <= CAP);
}

criterion_group!(benches, replay);
criterion_main!(benches);
