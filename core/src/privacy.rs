//! The six raw-deal-term detectors of SPEC §9.6.6, without a heap and without a regex
//! engine.
//!
//! The SPEC states them as Python regular expressions, compiled with `re.IGNORECASE`:
//!
//! ```text
//! [$€£¥]\s*\d
//! \b(?:USD|EUR|GBP|JPY|CAD|AUD|CHF|CNY|INR)\s*\d
//! \b\d+(?:[.,]\d+)?\s*(?:USD|EUR|GBP|JPY|CAD|AUD|CHF|CNY|INR)\b
//! \bprice\s*:
//! \b(?:qty|quantity)\s*[:=]?\s*\d+\b
//! \b\d+\s*(?:units?|items?|pcs|pieces)\b
//! ```
//!
//! Each is matched here by a small hand-written matcher that is equivalent to Python
//! `re`'s backtracking on these patterns (the character classes that follow each other
//! are disjoint, so greedy matching never needs to give characters back). The character
//! classes are those of Python `re` on `str` patterns: `\d` is Unicode category `Nd`,
//! `\s` is `str.isspace()`, `\w` is `str.isalnum()` or `_`, and `\b` is a `\w`/non-`\w`
//! boundary; the tables below were generated from Python 3.11 (Unicode 14.0.0).
//! `IGNORECASE` also folds `İ` and `ı` to `i` and `ſ` to `s`, as Python does.
//!
//! Work is linear in the length of the text (each start position does a bounded amount of
//! look-ahead except across runs of digits or spaces, which a later start cannot re-enter
//! without a preceding boundary).

use crate::json::{Kind, Str, Value};

/// Whether `text` matches any of the six SPEC §9.6.6 raw-deal-term detectors.
#[must_use]
pub fn matches_raw_term(text: Str<'_>) -> bool {
    let mut prev: Option<char> = None;
    let mut it = text.chars();
    loop {
        let here = it.clone();
        let Some(c) = it.next() else { return false };
        let boundary = !prev.is_some_and(is_word);
        if at_chars(here, boundary) {
            return true;
        }
        prev = Some(c);
    }
}

/// Whether `s` matches any detector (a `&str` convenience for callers and tests).
#[must_use]
pub fn matches_raw_term_str(s: &str) -> bool {
    let mut prev: Option<char> = None;
    let mut idx = 0;
    while let Some(c) = s.get(idx..).and_then(|r| r.chars().next()) {
        let boundary = !prev.is_some_and(is_word);
        if at_chars(s.get(idx..).unwrap_or("").chars(), boundary) {
            return true;
        }
        prev = Some(c);
        idx += c.len_utf8();
    }
    false
}

/// Tries every detector at the position of `it`; `boundary` says whether the previous
/// character is not a word character (so a `\b` holds before a word character here).
fn at_chars<I: Iterator<Item = char> + Clone>(it: I, boundary: bool) -> bool {
    p1(it.clone()) || (boundary && (p2(it.clone()) || p3(it.clone()) || p4(it.clone()) || p5(it.clone()) || p6(it)))
}

/// `[$€£¥]\s*\d`
fn p1<I: Iterator<Item = char> + Clone>(mut it: I) -> bool {
    if !matches!(it.next(), Some('$' | '€' | '£' | '¥')) {
        return false;
    }
    let (next, _) = skip_space(&mut it);
    next.is_some_and(is_digit)
}

const CURRENCIES: [&str; 9] = ["usd", "eur", "gbp", "jpy", "cad", "aud", "chf", "cny", "inr"];

/// `\b(?:USD|...)\s*\d` (the leading `\b` is checked by the caller).
fn p2<I: Iterator<Item = char> + Clone>(it: I) -> bool {
    CURRENCIES.iter().any(|cur| {
        let mut i = it.clone();
        if !literal(&mut i, cur) {
            return false;
        }
        let (next, _) = skip_space(&mut i);
        next.is_some_and(is_digit)
    })
}

/// `\b\d+(?:[.,]\d+)?\s*(?:USD|...)\b`
fn p3<I: Iterator<Item = char> + Clone>(mut it: I) -> bool {
    let (next, n) = skip_digits(&mut it);
    if n == 0 {
        return false;
    }
    // `it` is now past `next`; rebuild a cursor positioned at `next`.
    let mut rest = Rewind { first: next, rest: it };
    if matches!(next, Some('.' | ',')) {
        let mut probe = rest.rest.clone();
        let (after, m) = skip_digits(&mut probe);
        if m > 0 {
            rest = Rewind { first: after, rest: probe };
        }
    }
    let (next, _) = skip_space(&mut rest);
    let tail = Rewind { first: next, rest: rest.rest };
    CURRENCIES.iter().any(|cur| {
        let mut i = tail.clone();
        literal(&mut i, cur) && !i.next().is_some_and(is_word)
    })
}

/// `\bprice\s*:`
fn p4<I: Iterator<Item = char> + Clone>(mut it: I) -> bool {
    if !literal(&mut it, "price") {
        return false;
    }
    let (next, _) = skip_space(&mut it);
    next == Some(':')
}

/// `\b(?:qty|quantity)\s*[:=]?\s*\d+\b`
fn p5<I: Iterator<Item = char> + Clone>(it: I) -> bool {
    ["qty", "quantity"].iter().any(|word| {
        let mut i = it.clone();
        if !literal(&mut i, word) {
            return false;
        }
        let (mut next, _) = skip_space(&mut i);
        if matches!(next, Some(':' | '=')) {
            next = skip_space(&mut i).0;
        }
        if !next.is_some_and(is_digit) {
            return false;
        }
        let (after, _) = skip_digits(&mut i);
        !after.is_some_and(is_word)
    })
}

/// `\b\d+\s*(?:units?|items?|pcs|pieces)\b`
fn p6<I: Iterator<Item = char> + Clone>(mut it: I) -> bool {
    let (next, n) = skip_digits(&mut it);
    if n == 0 {
        return false;
    }
    let mut rest = Rewind { first: next, rest: it };
    let (next, _) = skip_space(&mut rest);
    let tail = Rewind { first: next, rest: rest.rest };
    ["unit", "item"].iter().any(|word| {
        let mut i = tail.clone();
        if !literal(&mut i, word) {
            return false;
        }
        let mut after = i.next();
        if after.is_some_and(|c| fold(c) == 's') {
            after = i.next();
        }
        !after.is_some_and(is_word)
    }) || ["pcs", "pieces"].iter().any(|word| {
        let mut i = tail.clone();
        literal(&mut i, word) && !i.next().is_some_and(is_word)
    })
}

/// An iterator that yields `first` (if any) before continuing with `rest`: a cursor
/// "un-reading" one character.
#[derive(Clone)]
struct Rewind<I> {
    first: Option<char>,
    rest: I,
}

impl<I: Iterator<Item = char>> Iterator for Rewind<I> {
    type Item = char;
    fn next(&mut self) -> Option<char> {
        match self.first.take() {
            Some(c) => Some(c),
            None => self.rest.next(),
        }
    }
}

/// Consumes `\s*`; returns the first non-space character (consumed) and the count.
fn skip_space<I: Iterator<Item = char>>(it: &mut I) -> (Option<char>, usize) {
    let mut n = 0;
    loop {
        match it.next() {
            Some(c) if is_space(c) => n += 1,
            other => return (other, n),
        }
    }
}

/// Consumes `\d*`; returns the first non-digit character (consumed) and the count.
fn skip_digits<I: Iterator<Item = char>>(it: &mut I) -> (Option<char>, usize) {
    let mut n = 0;
    loop {
        match it.next() {
            Some(c) if is_digit(c) => n += 1,
            other => return (other, n),
        }
    }
}

/// Consumes a case-insensitive match of the lowercase ASCII `word`.
fn literal<I: Iterator<Item = char>>(it: &mut I, word: &str) -> bool {
    word.chars().all(|w| it.next().is_some_and(|c| fold(c) == w))
}

/// Python `re.IGNORECASE` folding, as far as the detectors' letters need it.
fn fold(c: char) -> char {
    match c {
        'A'..='Z' => c.to_ascii_lowercase(),
        '\u{130}' | '\u{131}' => 'i',
        '\u{17f}' => 's',
        '\u{212a}' => 'k',
        _ => c,
    }
}

pub use crate::pyre::{digit_value, is_digit, is_space, is_word};

/// Whether any object key or string value in `value` matches a raw-deal-term detector,
/// skipping signature material as the contract does: `/signature/value`, every member
/// named `signature` (its key and its string value), and everything under a top-level
/// `countersignatures`.
#[must_use]
pub fn contains_raw_term(value: Value<'_>) -> bool {
    scan(value, Path::Root)
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Path {
    /// The value itself is the root.
    Root,
    /// The value is the top-level `signature` member.
    TopSignature,
    /// Anything else.
    Other,
}

fn scan(value: Value<'_>, path: Path) -> bool {
    match value.kind() {
        Kind::Object => value.members().any(|(k, v)| {
            let is_signature = k.eq_str("signature") || (path == Path::TopSignature && k.eq_str("value"));
            let under_countersignatures = path == Path::Root && k.eq_str("countersignatures");
            if !is_signature && matches_raw_term(k) {
                return true;
            }
            match v.kind() {
                Kind::String => !is_signature && matches_raw_term_value(v),
                Kind::Object | Kind::Array if under_countersignatures => false,
                _ => {
                    let child =
                        if path == Path::Root && k.eq_str("signature") { Path::TopSignature } else { Path::Other };
                    scan(v, child)
                }
            }
        }),
        Kind::Array => value.elements().any(|v| scan(v, Path::Other)),
        Kind::String => matches_raw_term_value(value),
        _ => false,
    }
}

fn matches_raw_term_value(v: Value<'_>) -> bool {
    v.as_str().is_some_and(matches_raw_term)
}

#[cfg(test)]
mod tests {
    use super::matches_raw_term_str;

    #[test]
    fn detectors_agree_with_python_re_on_samples() {
        let cases: &[(&str, bool)] = &[
            ("$5", true),
            ("$ x", false),
            ("€\u{3000}٣", true),
            ("usd5", true),
            ("xusd5", false),
            ("12.5 eur", true),
            ("12.5eurx", false),
            ("1. eur", false),
            ("Price :", true),
            ("pricey:", false),
            ("qty=3", true),
            ("qty 3a", false),
            ("5 unitsx", false),
            ("5 unit", true),
            ("3 piece", false),
            ("5 ıtems", true),
            ("5 ſtems", false),
            ("5 İTEMS", true),
            ("٣ units", true),
            ("x3 units", false),
            ("3\u{a0}units", true),
            ("chf\u{85}9", true),
            ("INR\u{1c}7", true),
            ("the price is right", false),
            ("1000USD", true),
        ];
        for (text, want) in cases {
            assert_eq!(matches_raw_term_str(text), *want, "{text:?}");
        }
    }

    /// Optional: a larger sample generated by Python `re` (set PRIVACY_CASES to its path).
    #[test]
    fn detectors_agree_with_python_re_on_generated_cases() {
        let Ok(path) = std::env::var("PRIVACY_CASES") else { return };
        let text = std::fs::read_to_string(path).unwrap();
        let cases: std::vec::Vec<(std::string::String, bool)> = serde_json::from_str(&text).unwrap();
        for (text, want) in cases {
            assert_eq!(matches_raw_term_str(&text), want, "{text:?}");
        }
    }
}
