//! Canonicalization throughput (MB/s of input text) on a corpus of ~2 KB negotiation
//! messages: concordia-core against serde_jcs, serde_json_canonicalizer and a plain
//! serde_json parse + serialize (the "transcode" baseline), all in one criterion group.
//!
//! Run: `cargo bench -p concordia-core --bench jcs -- --warm-up-time 1 --measurement-time 3`
//! (figures and method in BENCHMARKS.md).
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::hint::black_box;

use concordia_core::{jcs, json};
use criterion::{criterion_group, criterion_main, Criterion, Throughput};

/// Messages in the corpus and their target size.
const COUNT: usize = 64;
const SIZE: usize = 2048;

fn check_agreement(corpus: &[String]) {
    // All four produce the same canonical bytes for this corpus (serde_json's transcode
    // only agrees on the set of values, not on the bytes, so it is not compared).
    let mut nodes = vec![json::Node::EMPTY; 4096];
    let mut out = vec![0u8; 8192];
    for m in corpus {
        let doc = json::parse(m.as_bytes(), &mut nodes).unwrap();
        let n = jcs::write_to_slice(doc.root(), &mut out).unwrap();
        let v: serde_json::Value = serde_json::from_str(m).unwrap();
        let a = serde_jcs::to_vec(&v).unwrap();
        let b = serde_json_canonicalizer::to_vec(&v).unwrap();
        assert_eq!(&out[..n], &a[..], "serde_jcs disagrees on {m}");
        assert_eq!(&out[..n], &b[..], "serde_json_canonicalizer disagrees on {m}");
    }
}

fn canonicalize(c: &mut Criterion) {
    let corpus = common::corpus(COUNT, SIZE);
    let bytes = common::total_len(&corpus);
    check_agreement(&corpus);
    eprintln!(
        "corpus: {COUNT} messages, {bytes} bytes, {:.0} bytes/message, {} non-ASCII bytes",
        bytes as f64 / COUNT as f64,
        corpus.iter().flat_map(|m| m.bytes()).filter(|b| *b >= 0x80).count()
    );

    let mut g = c.benchmark_group("canonicalize_2k");
    g.throughput(Throughput::Bytes(bytes as u64));

    // Caller-owned buffers, reused across messages, as an embedded or server caller would.
    let mut nodes = vec![json::Node::EMPTY; SIZE * 2];
    let mut out = vec![0u8; SIZE * 4];
    g.bench_function("concordia_core", |b| {
        b.iter(|| {
            let mut total = 0;
            for m in &corpus {
                let doc = json::parse(black_box(m.as_bytes()), &mut nodes).unwrap();
                total += jcs::write_to_slice(doc.root(), &mut out).unwrap();
                black_box(&out[..]);
            }
            total
        });
    });
    g.bench_function("serde_jcs", |b| {
        b.iter(|| {
            let mut total = 0;
            for m in &corpus {
                let v: serde_json::Value = serde_json::from_str(black_box(m)).unwrap();
                total += black_box(serde_jcs::to_vec(&v).unwrap()).len();
            }
            total
        });
    });
    g.bench_function("serde_json_canonicalizer", |b| {
        b.iter(|| {
            let mut total = 0;
            for m in &corpus {
                let v: serde_json::Value = serde_json::from_str(black_box(m)).unwrap();
                total += black_box(serde_json_canonicalizer::to_vec(&v).unwrap()).len();
            }
            total
        });
    });
    g.bench_function("serde_json_transcode", |b| {
        b.iter(|| {
            let mut total = 0;
            for m in &corpus {
                let v: serde_json::Value = serde_json::from_str(black_box(m)).unwrap();
                total += black_box(serde_json::to_vec(&v).unwrap()).len();
            }
            total
        });
    });
    g.finish();

    // The two halves of ours, for the profile in BENCHMARKS.md.
    let mut g = c.benchmark_group("concordia_core_parts_2k");
    g.throughput(Throughput::Bytes(bytes as u64));
    g.bench_function("parse_only", |b| {
        b.iter(|| {
            let mut total = 0;
            for m in &corpus {
                total += json::parse(black_box(m.as_bytes()), &mut nodes).unwrap().node_count();
            }
            total
        });
    });
    // Parse every message once into its own tape, then time only the writer.
    let mut tapes: Vec<Vec<json::Node>> = corpus.iter().map(|m| vec![json::Node::EMPTY; m.len() / 2 + 2]).collect();
    let docs: Vec<json::Doc<'_>> =
        tapes.iter_mut().zip(&corpus).map(|(t, m)| json::parse(m.as_bytes(), t).unwrap()).collect();
    g.bench_function("write_only", |b| {
        b.iter(|| {
            let mut total = 0;
            for d in &docs {
                total += jcs::write_to_slice(black_box(d.root()), &mut out).unwrap();
            }
            total
        });
    });
    g.finish();
}

criterion_group!(benches, canonicalize);
criterion_main!(benches);
