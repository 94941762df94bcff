//! Canonical JSON of typed serde structs: `concordia_core::serde` against serde_jcs and
//! serde_json_canonicalizer (both build a `serde_json::Value` on the heap first), with
//! serde_json's plain (not canonical) `to_vec` as the baseline, all in one criterion group.
//!
//! The input is 64 negotiation messages as Rust structs (`#[derive(Serialize)]`, fields in
//! the order a producer declares them, not sorted), about 1.5 KB of canonical JSON each.
//!
//! Run: `cargo bench -p concordia-core --features serde --bench serde -- --warm-up-time 1 --measurement-time 3`
//! (figures and method in BENCHMARKS.md).
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::collections::BTreeMap;
use std::hint::black_box;

use common::Rng;
use concordia_core::serde as cser;
use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use serde::Serialize;

const COUNT: usize = 64;

#[derive(Serialize)]
struct Message {
    #[serde(rename = "type")]
    kind: &'static str,
    id: String,
    session_id: String,
    timestamp: String,
    from: Party,
    to: Vec<Party>,
    prev_hash: String,
    body: Body,
    #[serde(skip_serializing_if = "Option::is_none")]
    reasoning: Option<String>,
    concordia: &'static str,
    signature: String,
}

#[derive(Serialize)]
struct Party {
    agent_id: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    principal_id: Option<String>,
}

#[derive(Serialize)]
struct Body {
    offer_id: String,
    terms: Terms,
    valid_until: String,
    conditions: Vec<Condition>,
    metadata: BTreeMap<String, i64>,
}

#[derive(Serialize)]
struct Terms {
    price: Price,
    quantity: u32,
    delivery: Delivery,
    payment: Payment,
    items: Vec<Item>,
}

#[derive(Serialize)]
struct Price {
    value: f64,
    currency: &'static str,
}

#[derive(Serialize)]
struct Delivery {
    method: &'static str,
    location: Location,
    window_days: u16,
}

#[derive(Serialize)]
struct Location {
    city: &'static str,
    country: &'static str,
    lat: f64,
    lon: f64,
}

#[derive(Serialize)]
struct Payment {
    method: &'static str,
    net_days: u16,
    deposit_pct: f64,
}

#[derive(Serialize)]
struct Item {
    sku: String,
    description: String,
    qty: u32,
    unit_price: f64,
    tags: Vec<&'static str>,
}

#[derive(Serialize)]
struct Condition {
    term: &'static str,
    op: &'static str,
    value: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    note: Option<String>,
}

const CITIES: &[&str] = &["Zürich", "東京", "São Paulo", "Berlin", "Kraków"];
const WORDS: &[&str] = &["steel", "bolt", "crate — pallet", "widget ✓", "gear", "\"premium\"", "cable\nroll"];

fn message(rng: &mut Rng, i: usize) -> Message {
    let items = (0..3 + rng.below(3))
        .map(|j| Item {
            sku: format!("SKU-{i}-{j}"),
            description: format!("{} {} 🤝", rng.pick(WORDS), rng.pick(WORDS)),
            qty: rng.below(1000) as u32 + 1,
            unit_price: (rng.below(100_000) as f64) / 100.0,
            tags: vec![rng.pick(&["a", "bulk", "eu", "fragile"]), rng.pick(&["x", "y"])],
        })
        .collect();
    let conditions = (0..2 + rng.below(3))
        .map(|_| Condition {
            term: rng.pick(&["price", "quantity", "delivery.window_days"]),
            op: rng.pick(&["<=", ">=", "=="]),
            value: rng.below(5000) as f64 * 0.5,
            note: (rng.below(2) == 0).then(|| format!("note {}", rng.pick(WORDS))),
        })
        .collect();
    Message {
        kind: "negotiate.offer",
        id: format!("msg_{i:04}_{:x}", rng.next()),
        session_id: format!("ses_{:x}", rng.next()),
        timestamp: "2026-03-21T14:30:00Z".to_string(),
        from: Party { agent_id: format!("seller-{}", rng.below(100)), principal_id: Some("acme".into()) },
        to: vec![Party { agent_id: format!("buyer-{}", rng.below(100)), principal_id: None }],
        prev_hash: format!("sha256:{:016x}{:016x}{:016x}{:016x}", rng.next(), rng.next(), rng.next(), rng.next()),
        body: Body {
            offer_id: format!("offer-{i}"),
            terms: Terms {
                price: Price { value: 1000.0 + rng.below(100_000) as f64 / 10.0, currency: "EUR" },
                quantity: rng.below(10_000) as u32,
                delivery: Delivery {
                    method: "freight",
                    location: Location { city: rng.pick(CITIES), country: "CH", lat: 47.3769, lon: 8.5417 },
                    window_days: 14,
                },
                payment: Payment { method: "wire", net_days: 30, deposit_pct: 0.15 },
                items,
            },
            valid_until: "2026-03-28T00:00:00Z".into(),
            conditions,
            metadata: [("zone".to_string(), 3), ("revision".to_string(), rng.below(9) as i64), ("ε".to_string(), -1)]
                .into_iter()
                .collect(),
        },
        reasoning: Some(format!("Counter at {} — firm on delivery.", rng.below(5000))),
        concordia: "0.1.0",
        signature: "QQ".repeat(43) + "==",
    }
}

fn bench(c: &mut Criterion) {
    let mut rng = Rng::new(26);
    let corpus: Vec<Message> = (0..COUNT).map(|i| message(&mut rng, i)).collect();
    let mut out = vec![0u8; 8192];
    let mut bytes = 0usize;
    for m in &corpus {
        // Same bytes as both serde-based canonicalizers, and the same digest streamed.
        let n = cser::to_canonical_slice(m, &mut out).unwrap();
        assert_eq!(&out[..n], &serde_jcs::to_vec(m).unwrap()[..]);
        assert_eq!(&out[..n], &serde_json_canonicalizer::to_vec(m).unwrap()[..]);
        assert_eq!(cser::sha256(m).unwrap(), concordia_core::digest::sha256(&out[..n]));
        bytes += n;
    }
    eprintln!(
        "corpus: {COUNT} typed messages, {bytes} bytes canonical, {:.0} bytes/message",
        bytes as f64 / COUNT as f64
    );

    let mut g = c.benchmark_group("serde_typed");
    g.throughput(Throughput::Bytes(bytes as u64));
    g.bench_function("concordia_core_to_canonical_slice", |b| {
        b.iter(|| {
            let mut total = 0;
            for m in &corpus {
                total += cser::to_canonical_slice(black_box(m), &mut out).unwrap();
            }
            total
        });
    });
    g.bench_function("serde_jcs", |b| {
        b.iter(|| {
            let mut total = 0;
            for m in &corpus {
                total += black_box(serde_jcs::to_vec(black_box(m)).unwrap()).len();
            }
            total
        });
    });
    g.bench_function("serde_json_canonicalizer", |b| {
        b.iter(|| {
            let mut total = 0;
            for m in &corpus {
                total += black_box(serde_json_canonicalizer::to_vec(black_box(m)).unwrap()).len();
            }
            total
        });
    });
    g.bench_function("serde_json_to_vec_not_canonical", |b| {
        b.iter(|| {
            let mut total = 0;
            for m in &corpus {
                total += black_box(serde_json::to_vec(black_box(m)).unwrap()).len();
            }
            total
        });
    });
    g.bench_function("concordia_core_sha256_streamed", |b| {
        b.iter(|| {
            let mut total = 0u8;
            for m in &corpus {
                total ^= cser::sha256(black_box(m)).unwrap().0[0];
            }
            total
        });
    });
    g.bench_function("concordia_core_sha256_via_buffer", |b| {
        b.iter(|| {
            let mut total = 0u8;
            for m in &corpus {
                let n = cser::to_canonical_slice(black_box(m), &mut out).unwrap();
                total ^= concordia_core::digest::sha256(&out[..n]).0[0];
            }
            total
        });
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
