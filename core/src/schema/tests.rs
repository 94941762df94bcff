use super::*;
use crate::json::{parse, parse_with, Node, Options};
use std::string::String;
use std::vec;
use std::vec::Vec;

fn nodes_for(text: &[u8]) -> Vec<Node> {
    vec![Node::EMPTY; text.len() / 2 + 2]
}

/// The build-time tapes are exactly what the reader builds from the emitted texts.
#[test]
fn frozen_tapes_match_the_reader() {
    assert_eq!(FROZEN.len(), SchemaId::ALL.len());
    let mut total = 0;
    for f in &FROZEN {
        let text = f.doc.source();
        let mut nodes = nodes_for(text.as_bytes());
        let parsed = parse(text.as_bytes(), &mut nodes).unwrap_or_else(|e| panic!("{}: {e}", f.file));
        assert_eq!(parsed.node_count(), f.doc.node_count(), "{}", f.file);
        for i in 0..parsed.node_count() as u32 {
            assert_eq!(parsed.node(i), f.doc.node(i), "{} node {i}", f.file);
        }
        total += f.doc.node_count();
    }
    assert!(total > 1000, "{total}");
}

/// The frozen schema equals the vendored file apart from the dropped annotations.
#[test]
fn frozen_schemas_follow_the_files() {
    for id in SchemaId::ALL {
        assert_eq!(SchemaId::from_file_name(id.file_name()), Some(id));
        assert!(FROZEN.iter().any(|f| f.file == id.file_name()), "{id:?}");
        // The copy build.rs compiles (core/tests/vendored_copies.rs: equal to the vendored suite).
        let text = std::fs::read(crate::test_fixtures::path("schemas").join(id.file_name())).unwrap();
        let mut nodes = nodes_for(&text);
        let file = parse(&text, &mut nodes).unwrap();
        // Every keyword of the frozen form is in the file with the same value, except
        // where a dropped annotation sat below it.
        let frozen = id.schema();
        assert_eq!(frozen.get("$id").map(|v| v.as_plain_str()), file.root().get("$id").map(|v| v.as_plain_str()));
        assert_eq!(frozen.get("required").is_some(), file.root().get("required").is_some());
        if let Some(req) = file.root().get("required") {
            assert!(req.equals(&frozen.get("required").unwrap()));
        }
        assert!(frozen.get("description").is_none() && frozen.get("title").is_none());
    }
    assert_eq!(SchemaId::from_file_name("nope.json"), None);
}

fn vector_doc(file: &str) -> (Vec<u8>, Vec<Node>) {
    let text = std::fs::read(crate::test_fixtures::path("../conformance/vectors").join(file)).unwrap();
    let nodes = nodes_for(&text);
    (text, nodes)
}

/// Every decision of Python `jsonschema` on the conformance vectors
/// (tests-py/gen_schema_cases.py) is reproduced.
#[test]
fn conformance_vectors_match_jsonschema() {
    let Some(data) = crate::test_fixtures::read_string("tests/data/unit/schema_vector_cases.jsonl") else { return };
    if !crate::test_fixtures::dir_present("../conformance/vectors") {
        return;
    }
    let (mut frozen_cases, mut runtime_cases, mut invalid) = (0, 0, 0);
    let mut unreadable = Vec::new();
    for line in data.lines() {
        let case: serde_json::Value = serde_json::from_str(line).unwrap();
        let file = case["file"].as_str().unwrap();
        let (text, mut nodes) = vector_doc(file);
        let doc = match parse_with(&text, &mut nodes, &Options::rfc8785()) {
            Ok(d) => d,
            Err(e) => {
                unreadable.push(std::format!("{file}: {e}"));
                continue;
            }
        };
        if let Some(schema) = case["schema"].as_str() {
            let id = SchemaId::from_file_name(schema).unwrap();
            let inst = doc.root().pointer(case["pointer"].as_str().unwrap()).unwrap();
            let got = validate(id, inst);
            let want = case["valid"].as_bool().unwrap();
            assert_eq!(got.is_ok(), want, "{file} against {schema}: {got:?}");
            if let Err(e) = got {
                assert_eq!(e.class(), crate::Class::Schema, "{file}: {e:?}");
                invalid += 1;
            }
            frozen_cases += 1;
            continue;
        }
        // Run-time constraint schemas of mandate-v1 / delegation-chain-v1.
        let mut pieces: Vec<String> = Vec::new();
        let mut checks = true;
        for piece in case["constraints"].as_array().unwrap() {
            let v = doc.root().pointer(piece[0].as_str().unwrap()).unwrap();
            let text = if piece[1] == "max_spend" {
                let n = v.get("max_spend").unwrap().number_text().unwrap();
                std::format!(r#"{{"type":"object","properties":{{"max_spend":{{"type":"number","maximum":{n}}}}}}}"#)
            } else {
                checks &= check_schema(v).is_ok();
                let mut out = vec![0u8; 1 << 16];
                let n = crate::jcs::write_to_slice(v, &mut out).unwrap();
                String::from_utf8(out[..n].to_vec()).unwrap()
            };
            pieces.push(text);
        }
        assert_eq!(checks, case["check"].as_bool().unwrap(), "{file}: check_schema");
        if let Some(want) = case["valid"].as_bool() {
            let effective = if pieces.len() == 1 {
                pieces[0].clone()
            } else {
                std::format!(r#"{{"allOf":[{}]}}"#, pieces.join(","))
            };
            let mut snodes = nodes_for(effective.as_bytes());
            let schema = parse(effective.as_bytes(), &mut snodes).unwrap();
            let action = doc.root().pointer(case["action"].as_str().unwrap()).unwrap();
            let got = validate_with(schema.root(), action);
            assert_eq!(got.is_ok(), want, "{file}: action: {got:?}");
        }
        runtime_cases += 1;
    }
    assert!(unreadable.is_empty(), "vectors the strict reader refuses: {unreadable:?}");
    assert!(frozen_cases > 1000 && invalid > 300 && runtime_cases > 100, "{frozen_cases} {invalid} {runtime_cases}");
}

/// Keyword-level decisions of Python `jsonschema` (tests-py/gen_keyword_cases.py).
#[test]
fn keywords_match_jsonschema() {
    let Some(data) = crate::test_fixtures::read_string("tests/data/unit/schema_keyword_cases.jsonl") else { return };
    let mut n = 0;
    for line in data.lines() {
        let case: serde_json::Value = serde_json::from_str(line).unwrap();
        let schema_text = serde_json::to_string(&case[0]).unwrap();
        let inst_text = serde_json::to_string(&case[1]).unwrap();
        let mut sn = nodes_for(schema_text.as_bytes());
        let mut inn = nodes_for(inst_text.as_bytes());
        let schema = parse(schema_text.as_bytes(), &mut sn).unwrap().root();
        let inst = parse(inst_text.as_bytes(), &mut inn).unwrap().root();
        let check_ok = case[2].as_bool().unwrap();
        // The runner requires an object; booleans are schemas to jsonschema but not there.
        let checked = if schema.kind() == Kind::Object { check_schema(schema) } else { meta::check(schema, 0) };
        assert_eq!(checked.is_ok(), check_ok, "check_schema({schema_text}): {checked:?}");
        if let Some(valid) = case[3].as_bool() {
            let got = Eval { steps: 0, formats: false }.eval(schema, schema, inst, 0);
            assert_eq!(got.is_ok(), valid, "{schema_text} on {inst_text}: {got:?}");
            if schema.kind() == Kind::Object {
                assert_eq!(validate_with(schema, inst).is_ok(), valid, "{schema_text} on {inst_text}");
            }
        }
        n += 1;
    }
    assert!(n > 150, "{n}");
}

fn with<R>(schema: &str, inst: &str, f: impl FnOnce(Value<'_>, Value<'_>) -> R) -> R {
    let mut sn = nodes_for(schema.as_bytes());
    let mut inn = nodes_for(inst.as_bytes());
    let s = parse(schema.as_bytes(), &mut sn).unwrap().root();
    let i = parse(inst.as_bytes(), &mut inn).unwrap().root();
    f(s, i)
}

#[test]
fn errors_name_the_keyword() {
    let r = with(r#"{"type":"object","required":["a"]}"#, "{}", validate_with);
    assert_eq!(r, Err(Error::Schema("required")));
    let r = with(r#"{"properties":{"a":{"maxLength":1}}}"#, r#"{"a":"\ud83d\ude00x"}"#, validate_with);
    assert_eq!(r, Err(Error::Schema("maxLength")));
    let r = with(r#"{"properties":{"a":{"maxLength":1}}}"#, r#"{"a":"\ud83d\ude00"}"#, validate_with);
    assert_eq!(r, Ok(()));
    let r = with(r#"{"type":"numbeA"}"#, "1", validate_with);
    assert_eq!(r, Err(Error::Schema("invalid schema")));
    assert_eq!(with(r#"[1]"#, "1", |s, _| check_schema(s)), Err(Error::Schema("invalid schema")));
}

#[test]
fn format_is_asserted_only_for_frozen_schemas() {
    let schema = r#"{"properties":{"t":{"type":"string","format":"date-time"}}}"#;
    assert_eq!(with(schema, r#"{"t":"2026-05-10T14:25:00"}"#, validate_with), Ok(()));
    let r = with(schema, r#"{"t":"2026-05-10T14:25:00"}"#, |s, i| Eval { steps: 0, formats: true }.eval(s, s, i, 0));
    assert_eq!(r, Err(Error::Schema("format")));
    let r =
        with(schema, r#"{"t":"2026-05-10T14:25:00\u005a"}"#, |s, i| Eval { steps: 0, formats: true }.eval(s, s, i, 0));
    assert_eq!(r, Ok(()));
}

#[test]
fn refs_resolve_into_the_frozen_store() {
    // A run-time schema may name a frozen one by $id (reference.schema.json).
    let s = r#"{"$ref":"urn:concordia:schema:reference:v0.5"}"#;
    let bad = with(s, r#"{"x":1}"#, validate_with);
    assert_eq!(bad.map_err(|e| e.class()), Err(crate::Class::Schema));
    let unknown = with(r#"{"$ref":"urn:nowhere"}"#, "1", validate_with);
    assert_eq!(unknown, Err(Error::Schema("unresolvable $ref")));
    let missing = with(r##"{"$ref":"#/$defs/none"}"##, "1", validate_with);
    assert_eq!(missing, Err(Error::Schema("unresolvable $ref")));
    // An unresolvable $ref under `not` is an error, not a pass.
    let hidden = with(r#"{"not":{"$ref":"urn:nowhere"}}"#, "1", validate_with);
    assert_eq!(hidden, Err(Error::Schema("unresolvable $ref")));
}

#[test]
fn recursion_and_work_are_bounded() {
    let r = with(r##"{"$ref":"#"}"##, "1", validate_with);
    assert!(matches!(r, Err(Error::Limit { kind: Limit::Depth, .. })), "{r:?}");
    // Exponential fan-out is cut by the step budget.
    let r = with(r##"{"anyOf":[{"$ref":"#"},{"$ref":"#"}]}"##, "1", validate_with);
    assert!(matches!(r, Err(Error::Limit { kind: Limit::Steps | Limit::Depth, .. })), "{r:?}");
    let r = with(
        r##"{"$defs":{"a":{"allOf":[{"$ref":"#/$defs/a"},{"$ref":"#/$defs/a"}]}},"$ref":"#/$defs/a"}"##,
        "1",
        validate_with,
    );
    assert!(matches!(r, Err(Error::Limit { .. })), "{r:?}");
    // Deeply nested schemas are refused by check_schema before evaluation.
    let mut deep = String::new();
    for _ in 0..40 {
        deep.push_str(r#"{"not":"#);
    }
    deep.push_str("true");
    for _ in 0..40 {
        deep.push('}');
    }
    let r = with(&deep, "1", validate_with);
    assert!(matches!(r, Err(Error::Limit { kind: Limit::Depth, .. })), "{r:?}");
    // uniqueItems over a big array is bounded too.
    let big: String = std::format!("[{}]", (0..3000).map(|i| std::format!("{i}")).collect::<Vec<_>>().join(","));
    let r = with(r#"{"uniqueItems":true}"#, &big, validate_with);
    assert!(matches!(r, Err(Error::Limit { kind: Limit::Steps, .. })), "{r:?}");
}

#[test]
fn dynamic_keywords_fail_closed() {
    let r = with(r#"{"unevaluatedProperties":false}"#, r#"{"a":1}"#, validate_with);
    assert_eq!(r, Err(Error::Schema("unsupported keyword")));
    let r = with(r#"{"pattern":"(?=a)"}"#, r#""a""#, validate_with);
    assert_eq!(r, Err(Error::Schema("unsupported pattern")));
}

#[test]
fn every_positive_record_validates() {
    // A direct spot check next to the generated cases: the positive approval receipt.
    if !crate::test_fixtures::dir_present("../conformance/vectors") {
        return;
    }
    let (text, mut nodes) = vector_doc("positive/pos-1404-approval-receipt.json");
    let doc = parse(&text, &mut nodes).unwrap();
    assert_eq!(validate(SchemaId::ApprovalReceipt, doc.root().get("input").unwrap()), Ok(()));
    assert!(validate(SchemaId::Mandate, doc.root().get("input").unwrap()).is_err());
}
