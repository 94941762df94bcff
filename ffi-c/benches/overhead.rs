//! Per-call overhead of the C ABI versus calling the core directly, same process: the
//! canonical form and the top-level signature check of a ~1.7 KB signed message.
//!
//! `core/reused` parses into a node buffer the caller keeps (the embedded pattern);
//! `core/fresh` allocates the node buffer per call, as the C ABI does; `ffi` calls the
//! exported `extern "C"` functions with caller buffers.
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

use std::hint::black_box;

use concordia::{concordia_canonicalize, concordia_result, concordia_verify_object};
use concordia_core::jcs;
use concordia_core::json::{self, Node};
use concordia_core::message::{verify_signed_object, Envelope, Party};
use concordia_core::sign::KeyPair;
use criterion::{criterion_group, criterion_main, Criterion};

/// A signed negotiate.offer of about 1.7 KB, not in canonical order.
fn message() -> (Vec<u8>, [u8; 32]) {
    let kp = KeyPair::from_seed(&[7u8; 32]);
    let mut terms = String::from("{");
    for i in 0..14 {
        if i > 0 {
            terms.push(',');
        }
        terms.push_str(&format!(
            r#""term_{i:02}": {{"value": {}, "currency": "USD", "type": "numeric", "note": "unit price é"}}"#,
            1000 + i * 37
        ));
    }
    terms.push('}');
    let body = format!(r#"{{"offer_id": "off_0001", "complete": true, "terms": {terms}}}"#);
    let mut nodes = vec![Node::EMPTY; body.len()];
    let body = json::parse(body.as_bytes(), &mut nodes).unwrap();
    let to = [Party::new("did:concordia:agent:camera-buyer")];
    let mut env = Envelope::new(
        "negotiate.offer",
        "msg_0001",
        "ses_0001",
        "2026-03-21T14:30:00Z",
        Party::new("did:concordia:agent:camera-seller"),
        body.root(),
    );
    env.to = &to;
    env.reasoning = Some("Opening at list price; shipping included.");
    let mut out = vec![0u8; 4096];
    let n = env.write_signed(&kp, &mut out).unwrap();
    out.truncate(n);
    // Canonical already: the common case on the wire.
    (out, *kp.public_key().as_bytes())
}

fn bench(c: &mut Criterion) {
    let (msg, pk_bytes) = message();
    let pk = concordia_core::sign::PublicKey::from_array(pk_bytes);
    eprintln!("message: {} bytes", msg.len());
    let mut out = vec![0u8; msg.len()];
    let mut nodes = vec![Node::EMPTY; msg.len() / 2 + 2];

    let mut g = c.benchmark_group("canonicalize_1.7KB");
    g.bench_function("core/reused", |b| {
        b.iter(|| {
            let doc = json::parse(black_box(&msg), &mut nodes).unwrap();
            jcs::write_to_slice(doc.root(), &mut out).unwrap()
        })
    });
    g.bench_function("core/fresh", |b| {
        b.iter(|| {
            let mut nodes = vec![Node::EMPTY; msg.len() / 2 + 2];
            let doc = json::parse(black_box(&msg), &mut nodes).unwrap();
            jcs::write_to_slice(doc.root(), &mut out).unwrap()
        })
    });
    g.bench_function("ffi", |b| {
        b.iter(|| {
            let mut n = 0usize;
            let r = concordia_canonicalize(black_box(msg.as_ptr()), msg.len(), out.as_mut_ptr(), out.len(), &mut n);
            assert_eq!(r, concordia_result::CONCORDIA_OK);
            n
        })
    });
    g.finish();

    // The fixed cost of the boundary, on an input too small for the work to hide it.
    let tiny = br#"{"b":2,"a":1}"#;
    let mut tiny_nodes = [Node::EMPTY; 8];
    let mut g = c.benchmark_group("canonicalize_tiny");
    g.bench_function("core/reused", |b| {
        b.iter(|| {
            let doc = json::parse(black_box(tiny), &mut tiny_nodes).unwrap();
            jcs::write_to_slice(doc.root(), &mut out).unwrap()
        })
    });
    g.bench_function("ffi", |b| {
        b.iter(|| {
            let mut n = 0usize;
            let r = concordia_canonicalize(black_box(tiny.as_ptr()), tiny.len(), out.as_mut_ptr(), out.len(), &mut n);
            assert_eq!(r, concordia_result::CONCORDIA_OK);
            n
        })
    });
    g.finish();

    let mut g = c.benchmark_group("verify_1.7KB");
    g.bench_function("core/reused", |b| {
        b.iter(|| {
            let doc = json::parse(black_box(&msg), &mut nodes).unwrap();
            verify_signed_object(doc.root(), &pk).unwrap()
        })
    });
    g.bench_function("core/fresh", |b| {
        b.iter(|| {
            let mut nodes = vec![Node::EMPTY; msg.len() / 2 + 2];
            let doc = json::parse(black_box(&msg), &mut nodes).unwrap();
            verify_signed_object(doc.root(), &pk).unwrap()
        })
    });
    g.bench_function("ffi", |b| {
        b.iter(|| {
            let r = concordia_verify_object(black_box(msg.as_ptr()), msg.len(), pk_bytes.as_ptr(), 32);
            assert_eq!(r, concordia_result::CONCORDIA_OK);
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
