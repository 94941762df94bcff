//! Test data of the unit tests that the published package leaves out (`include` in
//! core/Cargo.toml): the generated decision tables under `core/tests/data/unit/` and the
//! vendored conformance suite under `conformance/vectors/`. In the repository a missing
//! file fails the test; in an unpacked `.crate` (cargo writes `Cargo.toml.orig` into it)
//! the test skips with a note instead.

use std::path::PathBuf;
use std::string::String;
use std::vec::Vec;

/// `path` relative to `core/`.
pub(crate) fn path(rel: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(rel)
}

/// True in an unpacked published package.
fn packaged() -> bool {
    path("Cargo.toml.orig").is_file()
}

/// The bytes of `rel` (relative to `core/`), or `None` in the published package, which
/// does not carry it.
pub(crate) fn read(rel: &str) -> Option<Vec<u8>> {
    let full = path(rel);
    match std::fs::read(&full) {
        Ok(bytes) => Some(bytes),
        Err(e) if packaged() => {
            std::eprintln!("skipped: {} is repository test data, not in the package ({e})", full.display());
            None
        }
        Err(e) => panic!("{}: {e}", full.display()),
    }
}

/// [`read`] as UTF-8 text.
pub(crate) fn read_string(rel: &str) -> Option<String> {
    read(rel).map(|b| String::from_utf8(b).unwrap())
}

/// True when the directory `rel` (relative to `core/`) is there; false only in the
/// published package, which does not carry it (in the repository a missing directory
/// fails the test). Used by the `schema` and `profiles` tests only.
#[cfg_attr(not(feature = "schema"), allow(dead_code))]
pub(crate) fn dir_present(rel: &str) -> bool {
    let full = path(rel);
    if full.is_dir() {
        return true;
    }
    if packaged() {
        std::eprintln!("skipped: {} is repository test data, not in the package", full.display());
        return false;
    }
    panic!("{} is missing", full.display());
}
