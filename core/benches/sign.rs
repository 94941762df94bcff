//! Messages per second for signing and verifying a 1.7 KB negotiation message, end to end
//! from wire bytes: parse + RFC 8785 preimage (top-level `signature` dropped) + Ed25519.
//! The bare Ed25519 operation on the same preimage is measured alongside, so the cost of
//! parsing and canonicalizing shows as the difference.
//!
//! Run: `cargo bench -p concordia-core --bench sign -- --warm-up-time 1 --measurement-time 3`
//! (figures and method in BENCHMARKS.md).
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::hint::black_box;

use concordia_core::message::{sign_object, verify_signed_object};
use concordia_core::preimage::WithoutSignature;
use concordia_core::sign::{self, KeyPair, VerifySink};
use concordia_core::{jcs, json};
use criterion::{criterion_group, criterion_main, Criterion, Throughput};

/// Target size of the signed message, signature included.
const SIZE: usize = 1700;

fn sign_verify(c: &mut Criterion) {
    let kp = KeyPair::from_seed(&[0x5e; 32]);
    let pk = kp.public_key();
    // A message of about 1.7 KB, signed for real (the generator's placeholder is replaced).
    let draft = common::message(0x51_6e, SIZE);
    let mut nodes = vec![json::Node::EMPTY; draft.len() / 2 + 2];
    let mut buf = vec![0u8; draft.len() * 2];
    let doc = json::parse(draft.as_bytes(), &mut nodes).unwrap();
    let n = sign_object(doc.root(), &kp, &mut buf).unwrap();
    let signed = buf[..n].to_vec();
    let doc = json::parse(&signed, &mut nodes).unwrap();
    verify_signed_object(doc.root(), &pk).unwrap();
    let mut pre = vec![0u8; signed.len()];
    let pre_len = jcs::write_to_slice_with(doc.root(), &WithoutSignature, &mut pre).unwrap();
    let preimage = pre[..pre_len].to_vec();
    let sig = kp.sign(&preimage);
    eprintln!("signed message: {} bytes, preimage {} bytes", signed.len(), preimage.len());

    let mut g = c.benchmark_group("sign_1k7");
    g.throughput(Throughput::Elements(1));
    g.bench_function("parse_jcs_sign", |b| {
        b.iter(|| {
            let doc = json::parse(black_box(&signed), &mut nodes).unwrap();
            let n = jcs::write_to_slice_with(doc.root(), &WithoutSignature, &mut pre).unwrap();
            kp.sign(&pre[..n])
        });
    });
    g.bench_function("parse_sign_object", |b| {
        // Parse, sign, and write the signed canonical object (message::sign_object).
        b.iter(|| {
            let doc = json::parse(black_box(&signed), &mut nodes).unwrap();
            sign_object(doc.root(), &kp, &mut buf).unwrap()
        });
    });
    g.bench_function("ed25519_sign_only", |b| b.iter(|| kp.sign(black_box(&preimage))));
    g.finish();

    let mut g = c.benchmark_group("verify_1k7");
    g.throughput(Throughput::Elements(1));
    g.bench_function("parse_jcs_verify_streaming", |b| {
        // verify_signed_object: the preimage streams through VerifySink, no output buffer.
        b.iter(|| {
            let doc = json::parse(black_box(&signed), &mut nodes).unwrap();
            verify_signed_object(doc.root(), &pk).unwrap();
        });
    });
    g.bench_function("parse_jcs_verify_sink_explicit", |b| {
        b.iter(|| {
            let doc = json::parse(black_box(&signed), &mut nodes).unwrap();
            let mut sink = VerifySink::new(&pk, &sig).unwrap();
            jcs::write_with(doc.root(), &WithoutSignature, &mut sink).unwrap();
            sink.finish().unwrap();
        });
    });
    g.bench_function("ed25519_verify_only", |b| {
        b.iter(|| sign::verify(&pk, black_box(&preimage), &sig).unwrap());
    });
    // Anchor: the backend used before the verification policy (ed25519-compact, cofactored,
    // refused since: docs/adr/0004-verification-policy.md), on the same preimage.
    let compact_pk = ed25519_compact::PublicKey::new(*pk.as_bytes());
    let compact_sig = ed25519_compact::Signature::new(*sig.as_bytes());
    g.bench_function("ed25519_compact_cofactored_verify_only", |b| {
        b.iter(|| compact_pk.verify(black_box(&preimage), &compact_sig).unwrap());
    });
    g.finish();
}

/// ES256 (issue 24) on the same message: parse + preimage + ECDSA P-256, and the bare
/// operations on the ready preimage, beside the Ed25519 figures above.
fn es256_sign_verify(c: &mut Criterion) {
    use concordia_core::es256;
    use concordia_core::message::{sign_object_es256, verify_signed_object_es256};
    let kp = es256::KeyPair::from_scalar(&[0x5e; 32]).unwrap();
    let pk = kp.public_key();
    let draft = common::message(0x51_6e, SIZE);
    let mut nodes = vec![json::Node::EMPTY; draft.len() / 2 + 2];
    let mut buf = vec![0u8; draft.len() * 2];
    let doc = json::parse(draft.as_bytes(), &mut nodes).unwrap();
    let n = sign_object_es256(doc.root(), &kp, &mut buf).unwrap();
    let signed = buf[..n].to_vec();
    let doc = json::parse(&signed, &mut nodes).unwrap();
    verify_signed_object_es256(doc.root(), &pk).unwrap();
    let mut pre = vec![0u8; signed.len()];
    let pre_len = jcs::write_to_slice_with(doc.root(), &WithoutSignature, &mut pre).unwrap();
    let preimage = pre[..pre_len].to_vec();
    let sig = kp.sign(&preimage);

    let mut g = c.benchmark_group("es256_1k7");
    g.throughput(Throughput::Elements(1));
    g.bench_function("parse_sign_object", |b| {
        b.iter(|| {
            let doc = json::parse(black_box(&signed), &mut nodes).unwrap();
            sign_object_es256(doc.root(), &kp, &mut buf).unwrap()
        });
    });
    g.bench_function("parse_jcs_verify_streaming", |b| {
        b.iter(|| {
            let doc = json::parse(black_box(&signed), &mut nodes).unwrap();
            verify_signed_object_es256(doc.root(), &pk).unwrap();
        });
    });
    g.bench_function("es256_sign_only", |b| b.iter(|| kp.sign(black_box(&preimage))));
    g.bench_function("es256_verify_only", |b| {
        b.iter(|| es256::verify(&pk, black_box(&preimage), &sig).unwrap());
    });
    g.finish();
}

criterion_group!(benches, sign_verify, es256_sign_verify);
criterion_main!(benches);
