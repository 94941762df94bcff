//! Rules shared by several kinds of record, each written once.
//!
//! * [`version_at_least`]: the protocol version gate (`concordia_attestation` and the like),
//!   as the reference SDK and runner read it.

use crate::json::Value;
use crate::privacy::digit_value;

/// Whether `v` is a version string `^\d+\.\d+\.\d+\Z` whose `(major, minor)` is at least
/// the one given, read as the reference SDK (`attestation._attestation_version_at_least`)
/// and runner do: Python's `re` `\d` matches every Unicode decimal digit and `int()` reads
/// them, so `"٠.٥.٠"` is version 0.5.0. Anything else (not a string, other shapes, no
/// digits) is "legacy": `false`, never an error. Escaped text is read decoded.
///
/// ```
/// use concordia_core::{json, record::version_at_least};
///
/// let mut nodes = [json::Node::EMPTY; 4];
/// let doc = json::parse(br#"["0.3.0", "1.0", "\u0660.\u0665.\u0660"]"#, &mut nodes).unwrap();
/// let v: Vec<_> = doc.root().elements().map(|v| version_at_least(Some(v), 0, 3)).collect();
/// assert_eq!(v, [true, false, true]);
/// ```
#[must_use]
pub fn version_at_least(v: Option<Value<'_>>, major: u64, minor: u64) -> bool {
    let Some(s) = v.and_then(|v| v.as_str()) else { return false };
    let mut parts = [0u64; 3];
    let mut idx = 0usize;
    let mut digits = 0usize;
    for c in s.chars() {
        if c == '.' {
            if digits == 0 || idx >= 2 {
                return false;
            }
            idx += 1;
            digits = 0;
        } else if let Some(d) = digit_value(c) {
            if let Some(p) = parts.get_mut(idx) {
                *p = p.saturating_mul(10).saturating_add(u64::from(d));
            }
            digits += 1;
        } else {
            return false;
        }
    }
    idx == 2 && digits > 0 && (parts[0], parts[1]) >= (major, minor)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::json::{parse, Node};

    fn check(text: &str) -> bool {
        let mut nodes = [Node::EMPTY; 2];
        let doc = parse(text.as_bytes(), &mut nodes).unwrap();
        version_at_least(Some(doc.root()), 0, 3)
    }

    /// The SDK's `_SEMVER_RE.match(v)` and `(int(a), int(b)) >= (0, 3)`, case by case.
    #[test]
    fn matches_the_sdk_rule() {
        for (text, sdk) in [
            (r#""0.3.0""#, true),
            (r#""0.2.9""#, false),
            (r#""0.10.0""#, true),
            (r#""1.0.0""#, true),
            (r#""00.03.00""#, true),
            (r#""0.3""#, false),
            (r#""0.3.0.1""#, false),
            (r#""0.3.0 ""#, false),
            (r#""v0.3.0""#, false),
            (r#""0..3""#, false),
            (r#""""#, false),
            (r#""\u0660.\u0665.\u0660""#, true), // Arabic-Indic digits: 0.5.0
            (r#""\u0966.\u0968.\u0967""#, false), // Devanagari 0.2.1
            (r#""99999999999999999999999.0.0""#, true),
            ("3", false),
            ("null", false),
        ] {
            assert_eq!(check(text), sdk, "{text}");
        }
    }
}
