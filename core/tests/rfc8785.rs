//! RFC 8785 reference data: the cyberphone input/output pairs and the first 10,000 lines of
//! the ES6 number test file (vendored under tests/data/rfc8785, see NOTICE).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::fs;
use std::path::PathBuf;

use concordia_core::jcs;
use concordia_core::json::{self, Node, Options};

fn data(p: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/rfc8785").join(p)
}

fn canonicalize(input: &[u8], options: &Options) -> Result<Vec<u8>, concordia_core::Error> {
    let mut nodes = vec![Node::EMPTY; input.len() / 2 + 2];
    let doc = json::parse_with(input, &mut nodes, options)?;
    let mut out = vec![0u8; 16];
    match jcs::write_to_slice(doc.root(), &mut out) {
        Ok(n) => out.truncate(n),
        Err(concordia_core::Error::BufferTooSmall { needed }) => {
            out = vec![0u8; needed];
            let n = jcs::write_to_slice(doc.root(), &mut out)?;
            out.truncate(n);
        }
        Err(e) => return Err(e),
    }
    Ok(out)
}

#[test]
fn cyberphone_pairs_are_byte_exact() {
    let mut count = 0;
    for entry in fs::read_dir(data("cyberphone/input")).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_owned();
        let input = fs::read(&path).unwrap();
        let expected = fs::read(data("cyberphone/output").join(&name)).unwrap();
        // The RFC's data uses RFC 8785's own number domain.
        let got = canonicalize(&input, &Options::rfc8785()).unwrap();
        assert_eq!(String::from_utf8_lossy(&got), String::from_utf8_lossy(&expected), "{name:?}");
        // outhex holds the same bytes as hex pairs.
        let stem = path.file_stem().unwrap().to_str().unwrap().to_owned();
        let hex = fs::read_to_string(data("cyberphone/outhex").join(format!("{stem}.txt"))).unwrap();
        let from_hex: Vec<u8> = hex.split_whitespace().map(|h| u8::from_str_radix(h, 16).unwrap()).collect();
        assert_eq!(got, from_hex, "{name:?} outhex");
        count += 1;
    }
    assert_eq!(count, 6);
}

#[test]
fn es6_number_lines() {
    let text = fs::read_to_string(data("es6-numbers/es6testfile-first10000.txt")).unwrap();
    let mut buf = jcs::NumberBuf::new();
    let mut lines = 0;
    for line in text.lines() {
        let (hex, expected) = line.split_once(',').unwrap();
        let bits = u64::from_str_radix(hex, 16).unwrap();
        let f = f64::from_bits(bits);
        assert_eq!(buf.format(f), expected, "bits {hex}");
        // Parsing the expected text and writing it again gives the same text.
        if !(f == 0.0 && f.is_sign_negative()) {
            let got = canonicalize(expected.as_bytes(), &Options::rfc8785()).unwrap();
            assert_eq!(std::str::from_utf8(&got).unwrap(), expected);
        }
        lines += 1;
    }
    assert_eq!(lines, 10_000);
}
