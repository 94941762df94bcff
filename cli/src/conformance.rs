//! `concordia conformance`: runs the Concordia conformance suite through the core.

use std::path::PathBuf;

use concordia_conformance::{active_regression, run_suite, vendored_dir, RunOptions};

use crate::util::{usage, write_stdout, Args, CliResult, Fail};

pub const HELP: &str = "concordia conformance [DIR] [--json]
  Runs every vector of the conformance manifest through the core's profiles and prints
  `[FAIL] <id> expected=<x> got=<y>` per miss, then the summary line
  `[SUMMARY] positive=.. mutation=.. canary=.. ok=.. fail=..`.
  DIR     a conformance/vectors directory or its manifest.json; default
          ./conformance/vectors, else the suite vendored with this build
  --json  per-vector results (with the reason class the core reported) and the summary,
          including how many rejections carried the vector's expected_reason_class
  Exit 0 all vectors as expected, 1 any miss, 2 usage or unreadable manifest.";

pub fn run(mut args: Args) -> CliResult {
    let as_json = args.flag("--json");
    let pos = args.positionals(1)?;
    let dir = match pos.first() {
        Some(d) => PathBuf::from(d),
        None => {
            let local = PathBuf::from("conformance/vectors");
            if local.join("manifest.json").is_file() {
                local
            } else {
                vendored_dir()
            }
        }
    };
    let regression = active_regression().map_err(usage)?;
    let report = run_suite(&dir, &RunOptions { regression }).map_err(usage)?;
    let text = if as_json { report.json() } else { report.text() };
    write_stdout(text.as_bytes())?;
    if report.passed() {
        Ok(())
    } else {
        Err(Fail::Rejected(format!("{} conformance vector(s) failed", report.summary.fail)))
    }
}
