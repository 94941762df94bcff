//! A normal build cannot weaken a check. `cargo test --workspace` builds the core once for
//! every member; if any member (or a dev-dependency of one) turned on the core's test-only
//! `__test-regressions-weakens-checks` feature, cargo would unify it into that one build and
//! this test would see the canaries accepted. Compiled out only in the explicit canary run
//! (`--features __test-regressions-weakens-checks`, tools/test.sh), where weakening is the point.

#![cfg(not(feature = "__test-regressions-weakens-checks"))]
#![allow(clippy::expect_used, clippy::unwrap_used, clippy::panic)]

use concordia_conformance::{regression_from_name, run_suite, vendored_dir, RunOptions};
use concordia_core::profiles::{Regression, VerifyOptions};

#[test]
fn the_core_refuses_every_regression() {
    for &r in Regression::ALL {
        assert!(VerifyOptions::default().with_regression(r).is_err(), "{r:?} accepted by a normal build");
    }
}

#[test]
fn the_runner_refuses_a_regressed_run() {
    let regression = regression_from_name("schema-skipped").expect("known regression");
    let Err(err) = run_suite(&vendored_dir(), &RunOptions { regression: Some(regression) }) else {
        panic!("a normal build must refuse RUNNER_REGRESS");
    };
    assert!(err.contains("__test-regressions-weakens-checks"), "{err}");
}
