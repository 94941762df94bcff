//! The canaries discriminate: each is rejected by the conforming core and accepted only
//! when the one check it targets is deliberately weakened (the core's test-only
//! `__test-regressions-weakens-checks` feature: this file is built only by
//! `cargo test -p concordia-conformance --features __test-regressions-weakens-checks --test
//! regressions`, never by `cargo test --workspace`; see Cargo.toml).

#![allow(clippy::expect_used, clippy::unwrap_used, clippy::panic)]

use concordia_conformance::{regression_from_name, run_suite, vendored_dir, RunOptions};

const CANARIES: [(&str, &str); 5] = [
    ("canary-preimage-includes-signature", "preimage-includes-signature"),
    ("canary-schema-skipped", "schema-skipped"),
    ("canary-decision-id-not-recomputed", "decision-id-not-recomputed"),
    ("canary-chain-splice", "skip-linkage-walk"),
    ("canary-receipt-set-unchecked", "receipt-set-unchecked"),
];

fn verdict(report: &concordia_conformance::Report, id: &str) -> &'static str {
    report.results.iter().find(|r| r.id == id).map_or("missing", |r| r.got)
}

#[test]
fn each_canary_is_rejected_normally_and_accepted_under_its_regression() {
    let normal = run_suite(&vendored_dir(), &RunOptions::default()).expect("manifest");
    for (canary, _) in CANARIES {
        assert_eq!(verdict(&normal, canary), "reject", "{canary} must be rejected by the conforming core");
    }
    for (canary, name) in CANARIES {
        let regression = regression_from_name(name).expect("known regression");
        let weakened = run_suite(&vendored_dir(), &RunOptions { regression: Some(regression) }).expect("manifest");
        assert_eq!(verdict(&weakened, canary), "accept", "{canary} must be accepted under RUNNER_REGRESS={name}");
        // The other canaries still reject: each canary targets exactly one check.
        for (other, _) in CANARIES.iter().filter(|(c, _)| *c != canary) {
            assert_eq!(verdict(&weakened, other), "reject", "{other} under RUNNER_REGRESS={name}");
        }
    }
}

#[test]
fn regression_switch_is_test_only() {
    assert!(regression_from_name("no-such-regression").is_err());
}
