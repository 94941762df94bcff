//! The files the published crate carries as copies of repository files stay byte-identical
//! to their originals: `core/schemas/` (compiled in by `build.rs`) to the vendored suite's
//! `conformance/vectors/schemas/`, and `core/LICENSE` to the repository's `LICENSE`.
//! `tools/sync-core-schemas.sh` refreshes both. This test is repository-only (it is not
//! in the published package: `include` in core/Cargo.toml).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};

fn core_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn json_files(dir: &Path) -> BTreeSet<String> {
    fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.ends_with(".json"))
        .collect()
}

#[test]
fn core_schemas_equal_the_vendored_suite() {
    let ours = core_dir().join("schemas");
    let vendored = core_dir().join("../conformance/vectors/schemas");
    let names = json_files(&vendored);
    assert!(names.len() >= 14, "{names:?}");
    assert_eq!(json_files(&ours), names, "run tools/sync-core-schemas.sh");
    for name in &names {
        assert!(
            fs::read(ours.join(name)).unwrap() == fs::read(vendored.join(name)).unwrap(),
            "core/schemas/{name} differs from conformance/vectors/schemas/{name}: run tools/sync-core-schemas.sh"
        );
    }
    // Nothing else in core/schemas (build.rs reads only *.json, but the package takes the directory).
    let all: BTreeSet<String> =
        fs::read_dir(&ours).unwrap().map(|e| e.unwrap().file_name().into_string().unwrap()).collect();
    assert_eq!(all, names);
}

#[test]
fn core_license_equals_the_repository_license() {
    assert!(
        fs::read(core_dir().join("LICENSE")).unwrap() == fs::read(core_dir().join("../LICENSE")).unwrap(),
        "core/LICENSE differs from LICENSE: run tools/sync-core-schemas.sh"
    );
}
