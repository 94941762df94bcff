//! `unsafe` lives in one file: src/boundary.rs holds every raw-pointer conversion of the C
//! ABI, each `unsafe` block under a `// SAFETY:` comment; no export or other module has an
//! `unsafe` block, `unsafe fn` or `unsafe extern` of its own (see boundary.rs, "The pointer
//! rule"). The only other file allowed one is a test that reads dropped memory on purpose.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::Path;

/// Test-only files that need `unsafe` for what they check, with the reason.
const TEST_EXCEPTIONS: &[&str] = &[
    // reads a key pair's storage after dropping it (the secrets must be erased)
    "aip_secret_tests.rs",
];

fn sources(dir: &str) -> Vec<(String, String)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join(dir);
    let mut v: Vec<(String, String)> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "rs"))
        .map(|p| (p.file_name().unwrap().to_string_lossy().into_owned(), std::fs::read_to_string(&p).unwrap()))
        .collect();
    v.sort();
    v
}

/// The code of a line: what precedes a `//` comment (good enough for this crate, which has
/// no `//` inside string literals on lines that also say `unsafe`).
fn code(line: &str) -> &str {
    line.split("//").next().unwrap_or("")
}

/// Whether `code` has the keyword `unsafe` (not a lint name such as
/// `undocumented_unsafe_blocks`).
fn has_unsafe(code: &str) -> bool {
    let word = |c: char| c.is_alphanumeric() || c == '_';
    code.match_indices("unsafe").any(|(at, w)| {
        !code[..at].chars().next_back().is_some_and(word) && !code[at + w.len()..].chars().next().is_some_and(word)
    })
}

#[test]
fn unsafe_appears_only_in_the_boundary_module() {
    let mut offenders = Vec::new();
    let mut boundary_blocks = 0;
    for (name, text) in sources("src").into_iter().chain(sources("benches")) {
        let lines: Vec<&str> = text.lines().collect();
        for (i, line) in lines.iter().enumerate() {
            if !has_unsafe(code(line)) {
                continue;
            }
            if name == "boundary.rs" {
                assert!(code(line).contains("unsafe {"), "boundary.rs:{}: only `unsafe` blocks: {line}", i + 1);
                // The block's comment: the closest comment line above starts `// SAFETY:`.
                let above = lines[..i].iter().rev().take_while(|l| l.trim_start().starts_with("//"));
                assert!(
                    above.last().is_some_and(|l| l.trim_start().starts_with("// SAFETY: ")),
                    "boundary.rs:{}: an unsafe block without a SAFETY comment",
                    i + 1
                );
                boundary_blocks += 1;
            } else if !TEST_EXCEPTIONS.contains(&name.as_str()) {
                offenders.push(format!("{name}:{}: {}", i + 1, line.trim()));
            }
        }
    }
    assert!(offenders.is_empty(), "unsafe outside src/boundary.rs:\n{}", offenders.join("\n"));
    assert!(boundary_blocks >= 5, "found only {boundary_blocks} unsafe blocks in boundary.rs");
}
