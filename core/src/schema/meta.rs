//! The part of the Draft 2020-12 meta-schema check (`Draft202012Validator.check_schema`)
//! that concerns the keywords the validator knows, recursively through subschemas.

use super::{is_integral, keyword, regex, INVALID_SCHEMA, MAX_DEPTH};
use crate::error::{Error, Limit, Result};
use crate::json::{Kind, Str, Value};

const SIMPLE_TYPES: [&str; 7] = ["array", "boolean", "integer", "null", "number", "object", "string"];

/// Checks one schema (object or boolean) and everything below it.
#[allow(clippy::collapsible_match)] // One arm per keyword reads better than guards.
pub(super) fn check(schema: Value<'_>, depth: u32) -> Result<()> {
    if depth >= MAX_DEPTH {
        return Err(Error::limit(Limit::Depth, schema.offset()));
    }
    match schema.kind() {
        Kind::True | Kind::False => return Ok(()),
        Kind::Object => {}
        _ => return Err(INVALID_SCHEMA),
    }
    let d = depth + 1;
    for (k, v) in schema.members() {
        let mut buf = [0u8; 24];
        match keyword(&k, &mut buf) {
            "$id" => {
                // A URI reference with at most an empty fragment: `^[^#]*#?$`.
                let s = v.as_str().ok_or(INVALID_SCHEMA)?;
                let mut chars = s.chars().skip_while(|&c| c != '#');
                if chars.next().is_some() && chars.next().is_some() {
                    return Err(INVALID_SCHEMA);
                }
            }
            "$anchor" | "$dynamicAnchor" => {
                let s = v.as_str().ok_or(INVALID_SCHEMA)?;
                if !is_anchor(&s) {
                    return Err(INVALID_SCHEMA);
                }
            }
            "$schema" | "$ref" | "$dynamicRef" | "$recursiveRef" | "$comment" | "title" | "description" | "format"
            | "contentEncoding" | "contentMediaType" => string(v)?,
            "$vocabulary" => {
                object(v)?;
                for (_, x) in v.members() {
                    boolean(x)?;
                }
            }
            "$recursiveAnchor" | "deprecated" | "readOnly" | "writeOnly" | "uniqueItems" => boolean(v)?,
            "$defs" | "definitions" | "properties" | "dependentSchemas" => {
                object(v)?;
                for (_, sub) in v.members() {
                    check(sub, d)?;
                }
            }
            "patternProperties" => {
                object(v)?;
                for (pat, sub) in v.members() {
                    valid_regex(&pat)?;
                    check(sub, d)?;
                }
            }
            "dependencies" => {
                object(v)?;
                for (_, x) in v.members() {
                    if x.kind() == Kind::Array {
                        string_array(x)?;
                    } else {
                        check(x, d)?;
                    }
                }
            }
            "prefixItems" | "allOf" | "anyOf" | "oneOf" => {
                if v.kind() != Kind::Array || v.is_empty() {
                    return Err(INVALID_SCHEMA);
                }
                for sub in v.elements() {
                    check(sub, d)?;
                }
            }
            "items"
            | "contains"
            | "additionalProperties"
            | "propertyNames"
            | "if"
            | "then"
            | "else"
            | "not"
            | "unevaluatedItems"
            | "unevaluatedProperties"
            | "contentSchema" => check(v, d)?,
            "type" => match v.kind() {
                Kind::String => simple_type(v)?,
                Kind::Array => {
                    if v.is_empty() {
                        return Err(INVALID_SCHEMA);
                    }
                    for t in v.elements() {
                        simple_type(t)?;
                    }
                    distinct(v)?;
                }
                _ => return Err(INVALID_SCHEMA),
            },
            "enum" | "examples" => {
                if v.kind() != Kind::Array {
                    return Err(INVALID_SCHEMA);
                }
            }
            "multipleOf" => {
                if !v.as_f64().is_some_and(|m| m > 0.0) {
                    return Err(INVALID_SCHEMA);
                }
            }
            "maximum" | "exclusiveMaximum" | "minimum" | "exclusiveMinimum" => {
                if v.kind() != Kind::Number {
                    return Err(INVALID_SCHEMA);
                }
            }
            "maxLength" | "minLength" | "maxItems" | "minItems" | "maxContains" | "minContains" | "maxProperties"
            | "minProperties" => {
                if !v.as_f64().is_some_and(|f| f >= 0.0 && is_integral(f)) {
                    return Err(INVALID_SCHEMA);
                }
            }
            "pattern" => valid_regex(&v.as_str().ok_or(INVALID_SCHEMA)?)?,
            "required" => string_array(v)?,
            "dependentRequired" => {
                object(v)?;
                for (_, x) in v.members() {
                    string_array(x)?;
                }
            }
            _ => {}
        }
    }
    Ok(())
}

fn string(v: Value<'_>) -> Result<()> {
    if v.kind() == Kind::String {
        Ok(())
    } else {
        Err(INVALID_SCHEMA)
    }
}

fn boolean(v: Value<'_>) -> Result<()> {
    if matches!(v.kind(), Kind::True | Kind::False) {
        Ok(())
    } else {
        Err(INVALID_SCHEMA)
    }
}

fn object(v: Value<'_>) -> Result<()> {
    if v.kind() == Kind::Object {
        Ok(())
    } else {
        Err(INVALID_SCHEMA)
    }
}

fn simple_type(v: Value<'_>) -> Result<()> {
    let s = v.as_str().ok_or(INVALID_SCHEMA)?;
    if SIMPLE_TYPES.iter().any(|t| s.eq_str(t)) {
        Ok(())
    } else {
        Err(INVALID_SCHEMA)
    }
}

/// An array of distinct strings (the meta-schema's `stringArray`).
fn string_array(v: Value<'_>) -> Result<()> {
    if v.kind() != Kind::Array {
        return Err(INVALID_SCHEMA);
    }
    for s in v.elements() {
        string(s)?;
    }
    distinct(v)
}

/// `uniqueItems: true`. Quadratic, over keyword arrays of the schema itself.
fn distinct(v: Value<'_>) -> Result<()> {
    for (i, a) in v.elements().enumerate() {
        if v.elements().skip(i + 1).any(|b| a.equals(&b)) {
            return Err(INVALID_SCHEMA);
        }
    }
    Ok(())
}

/// The meta-schema's `anchorString`: `^[A-Za-z_][-A-Za-z0-9._]*$`.
fn is_anchor(s: &Str<'_>) -> bool {
    let mut chars = s.chars();
    let ok_first = chars.next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_');
    // `$` also matches before a final newline.
    let mut rest = chars.peekable();
    while let Some(c) = rest.next() {
        if c == '\n' && rest.peek().is_none() {
            break;
        }
        if !(c.is_ascii_alphanumeric() || matches!(c, '-' | '.' | '_')) {
            return false;
        }
    }
    ok_first
}

/// The `regex` format: the pattern must compile (in the subset this crate supports).
#[inline(never)]
fn valid_regex(pattern: &Str<'_>) -> Result<()> {
    let mut buf = [0u8; 512];
    let p = match pattern.as_plain() {
        Some(p) => p,
        None => pattern.decode_into(&mut buf).map_err(|_| Error::Schema("unsupported pattern"))?,
    };
    regex::Regex::new(p).map(|_| ())
}
