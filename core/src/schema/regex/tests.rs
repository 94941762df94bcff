use super::*;
use std::collections::BTreeSet;
use std::string::String;

/// Patterns Python compiles but this engine refuses on purpose (see the module docs).
const REFUSED: &[&str] = &[
    "a*+",
    "(a)\\1",
    "(?=a)",
    "(?!a)",
    "(?<=a)b",
    "(?i)a",
    "(?#c)",
    "(?>a)",
    "[[:alpha:]]",
    "^a{256}$",
    "^a{257}$",
    "a{1000000}",
    "^(((((((((((((((((a)))))))))))))))))$",
];

fn search(p: &str, t: &str) -> bool {
    Regex::new(p).unwrap_or_else(|e| panic!("{p:?}: {e:?}")).search(t.chars())
}

/// Every (pattern, text) decision of Python 3.11 `re.search` (tests-py/gen_regex_cases.py).
#[test]
fn matches_python_re_search() {
    let Some(data) = crate::test_fixtures::read_string("tests/data/unit/re_search_cases.jsonl") else { return };
    let mut lines = data.lines();
    let nd: serde_json::Value = serde_json::from_str(lines.next().unwrap()).unwrap();
    let zeros: std::vec::Vec<u32> = nd[1].as_array().unwrap().iter().map(|v| v.as_u64().unwrap() as u32).collect();
    // Every zero of a Python 3.11 Nd run starts a run of ten digits in the shared table.
    for &z in &zeros {
        for d in 0..10 {
            let c = char::from_u32(z + d).unwrap();
            assert_eq!(crate::pyre::digit_value(c), Some(d), "U+{:04X}", z + d);
            assert!(is_decimal(c));
        }
    }
    let mut refused = BTreeSet::new();
    let mut checked = 0;
    for line in lines {
        let case: serde_json::Value = serde_json::from_str(line).unwrap();
        let p = case[0].as_str().unwrap();
        if case[2] == "error" {
            assert!(Regex::new(p).is_err(), "{p:?}: Python refuses it");
            continue;
        }
        let re = match Regex::new(p) {
            Ok(re) => re,
            Err(e) => {
                assert_eq!(e, UNSUPPORTED, "{p:?}");
                assert!(REFUSED.contains(&p), "{p:?} unexpectedly unsupported");
                refused.insert(String::from(p));
                continue;
            }
        };
        let t = case[1].as_str().unwrap();
        assert_eq!(re.search(t.chars()), case[2].as_bool().unwrap(), "{p:?} on {t:?}");
        checked += 1;
    }
    assert_eq!(refused.len(), REFUSED.len());
    assert!(checked > 5000, "{checked}");
}

#[test]
fn schema_patterns_compile() {
    for p in [
        "^sha256:[a-f0-9]{64}$",
        "^(0-100|100-500|500-1000|1000-5000|5000-10000|10000-50000|50000-100000|100000-500000|500000-1000000|1000000\\+)_[A-Z]{3}$",
        "^(?:0\\.(?:[5-9]|[1-9][0-9]+)\\.[0-9]+|[1-9][0-9]*\\.[0-9]+\\.[0-9]+)$",
        "^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}Z$",
    ] {
        let re = Regex::new(p).unwrap();
        assert!(re.n < MAX_STATES / 2, "{p}: {} states", re.n);
    }
    assert!(search("^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}Z$", "2026-05-10T14:25:00Z"));
    assert!(search("^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}Z$", "2026-05-10T14:25:00Z\n"));
    assert!(!search("^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}Z$", "2026-05-10T14:25:00+00:00"));
}

#[test]
fn escaped_json_text_is_matched_decoded() {
    let mut nodes = [crate::json::Node::EMPTY; 4];
    let doc = crate::json::parse(br#""sha256:\u0061bc""#, &mut nodes).unwrap();
    let s = doc.root().as_str().unwrap();
    assert!(Regex::new("^sha256:abc$").unwrap().search(s.chars()));
}

#[test]
fn limits_are_errors() {
    let mut deep = String::new();
    for _ in 0..=MAX_GROUP_DEPTH {
        deep.push('(');
    }
    deep.push('a');
    for _ in 0..=MAX_GROUP_DEPTH {
        deep.push(')');
    }
    assert_eq!(Regex::new(&deep).err(), Some(UNSUPPORTED));
    assert_eq!(Regex::new("(?:a{200}){200}").err(), Some(UNSUPPORTED));
    assert_eq!(
        Regex::new(
            "[a][b][c][d][e][f][g][h][i][j][k][l][m][n][o][p][q][r][s][t][u][v][w][x][y][z][0][1][2][3][4][5][6]"
        )
        .err(),
        Some(UNSUPPORTED)
    );
    // Pathological for a backtracker, linear here.
    let long = "a".repeat(10_000);
    assert!(!search("(a*)*c", &long));
    assert!(!search("^(a|a)*$", &(long.clone() + "b")));
}

#[test]
fn unicode_classes() {
    assert!(search("^\\d$", "\u{0663}"));
    assert!(!search("^\\d$", "\u{00b2}")); // superscript two is No, not Nd
    assert!(search("^\\d$", "\u{1D7FF}"));
    assert!(search("^\\s$", "\u{1c}"));
    assert!(!search("^\\s$", "\u{200b}"));
    assert!(search("^\\S+$", "a\u{00e9}"));
    assert!(search("^\\w+$", "\u{00e9}_1"));
}
