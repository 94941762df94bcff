//! The whole vendored conformance suite through the core: the exact reference summary.

#![allow(clippy::expect_used, clippy::unwrap_used, clippy::panic)]

use concordia_conformance::{run_suite, vendored_dir, RunOptions};

const EXPECTED: &str = "[SUMMARY] positive=53 mutation=1488 canary=5 ok=1546 fail=0";

#[test]
fn full_suite_reproduces_reference_summary() {
    let start = std::time::Instant::now();
    let report = run_suite(&vendored_dir(), &RunOptions::default()).expect("manifest readable");
    let elapsed = start.elapsed();
    let text = report.text();
    eprintln!("{text}");
    eprintln!(
        "suite: {} vectors in {:.3} s ({} build); reason-class agreement {}/{}",
        report.results.len(),
        elapsed.as_secs_f64(),
        if cfg!(debug_assertions) { "debug" } else { "release" },
        report.summary.class_agree,
        report.summary.rejections_with_class
    );
    assert_eq!(report.summary.line(), EXPECTED, "{text}");
    assert!(report.passed());
}
