//! The committed header matches this crate: version macros equal Cargo.toml's version,
//! and every `#[no_mangle]` export of the crate is declared.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::Path;

fn header() -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../include/concordia.h");
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn define(h: &str, name: &str) -> String {
    let prefix = format!("#define {name} ");
    h.lines()
        .find_map(|l| l.strip_prefix(&prefix))
        .unwrap_or_else(|| panic!("{name} not defined in concordia.h"))
        .trim()
        .to_string()
}

#[test]
fn version_macros_equal_cargo_toml() {
    let h = header();
    let major: u32 = define(&h, "CONCORDIA_VERSION_MAJOR").parse().unwrap();
    let minor: u32 = define(&h, "CONCORDIA_VERSION_MINOR").parse().unwrap();
    let patch: u32 = define(&h, "CONCORDIA_VERSION_PATCH").parse().unwrap();
    let number: u32 = define(&h, "CONCORDIA_VERSION_NUMBER").parse().unwrap();
    assert_eq!(format!("{major}.{minor}.{patch}"), env!("CARGO_PKG_VERSION"), "regenerate include/concordia.h");
    assert_eq!(number, major * 10000 + minor * 100 + patch);
    assert_eq!(number, concordia::concordia_version_number());
}

#[test]
fn every_export_is_declared() {
    let h = header();
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut exports = 0;
    for entry in std::fs::read_dir(&src).unwrap() {
        let text = std::fs::read_to_string(entry.unwrap().path()).unwrap();
        let mut lines = text.lines();
        while let Some(l) = lines.next() {
            if l.trim() != "#[no_mangle]" {
                continue;
            }
            let sig = lines.next().unwrap();
            let name = sig.split("fn ").nth(1).unwrap().split('(').next().unwrap();
            assert!(h.contains(&format!(" {name}(")), "{name} is not in include/concordia.h");
            exports += 1;
        }
    }
    assert!(exports >= 30, "found only {exports} exports");
}
