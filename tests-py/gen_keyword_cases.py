"""Keyword-level ground truth for concordia_core::schema::{check_schema, validate_with}.

For each (schema, instance) pair below, Python `jsonschema` decides what the reference
runner's `validate_action` decides: `Draft202012Validator.check_schema(schema)`, then
`Draft202012Validator(schema).iter_errors(instance)` (no format assertion).
Writes core/tests/data/unit/schema_keyword_cases.jsonl: [schema, instance, check_ok, valid|null].
Run: /tmp/refvenv/bin/python tests-py/gen_keyword_cases.py
"""

import json
from pathlib import Path

from jsonschema import Draft202012Validator
from jsonschema.exceptions import SchemaError

S = {"type": "string"}
CASES = [
    ({"type": "integer"}, [1, 1.0, 1.5, True, "1", None, 1e300]),
    ({"type": "number"}, [1, 1.5, True, "1"]),
    ({"type": ["string", "null"]}, ["a", None, 1]),
    ({"type": "boolean"}, [True, False, 0]),
    ({"type": "object"}, [{}, [], "x"]),
    ({"type": "array"}, [[], {}]),
    ({"type": "numbeA"}, [1]),
    ({"type": []}, [1]),
    ({"type": ["string", "string"]}, ["a"]),
    ({"enum": [1, "a", None, [1, 2], {"a": 1}]}, [1, 1.0, True, "a", None, [1, 2], [2, 1], {"a": 1}, {"a": 1.0}, 2]),
    ({"enum": [True]}, [True, 1]),
    ({"enum": [0]}, [False, 0, 0.0]),
    ({"enum": []}, [1]),
    ({"const": {"b": [1, {"c": None}], "a": "x"}}, [{"a": "x", "b": [1, {"c": None}]}, {"a": "x", "b": [1, {"c": False}]}]),
    ({"required": ["a", "b"]}, [{"a": 1, "b": 2}, {"a": 1}, [], "s"]),
    ({"required": ["a", "a"]}, [{"a": 1}]),
    ({"required": "a"}, [{"a": 1}]),
    ({"properties": {"a": S, "b": {"type": "integer"}}}, [{"a": "x", "b": 1}, {"a": 1}, {"c": 1}, []]),
    ({"properties": {"a": 1}}, [{}]),
    ({"properties": {"a": S}, "additionalProperties": False}, [{"a": "x"}, {"a": "x", "b": 1}, {}]),
    ({"properties": {"a": S}, "additionalProperties": {"type": "integer"}}, [{"a": "x", "b": 1}, {"b": "y"}]),
    ({"patternProperties": {"^x_": {"type": "integer"}}, "additionalProperties": False}, [{"x_a": 1}, {"x_a": "s"}, {"y": 1}]),
    ({"patternProperties": {"(": {}}}, [{}]),
    ({"propertyNames": {"pattern": "^[a-z]+$"}}, [{"abc": 1}, {"aB": 1}, {}]),
    ({"propertyNames": {"maxLength": 2}}, [{"ab": 1}, {"abc": 1}]),
    ({"minProperties": 1, "maxProperties": 2}, [{}, {"a": 1}, {"a": 1, "b": 2, "c": 3}, []]),
    ({"dependentRequired": {"a": ["b"]}}, [{"a": 1}, {"a": 1, "b": 1}, {"b": 1}]),
    ({"dependentSchemas": {"a": {"required": ["c"]}}}, [{"a": 1}, {"a": 1, "c": 1}, {}]),
    ({"items": {"type": "integer"}}, [[1, 2], [1, "a"], [], {"a": "b"}]),
    ({"prefixItems": [S, {"type": "integer"}], "items": False}, [["a", 1], ["a", 1, 2], [1], []]),
    ({"items": [S]}, [[1]]),
    ({"contains": {"type": "integer"}}, [[1], ["a"], [], ["a", 2]]),
    ({"contains": {"type": "integer"}, "minContains": 2, "maxContains": 3}, [[1], [1, 2], [1, 2, 3, 4], ["a"]]),
    ({"contains": {"type": "integer"}, "minContains": 0}, [[], ["a"]]),
    ({"minItems": 1, "maxItems": 2}, [[], [1], [1, 2, 3], "abc"]),
    ({"minItems": 1.0}, [[], [1]]),
    ({"minItems": -1}, [[]]),
    ({"minItems": True}, [[]]),
    ({"uniqueItems": True}, [[1, 2], [1, 1], [1, 1.0], [1, True], [{"a": 1}, {"a": 1}], [[1], [True]], []]),
    ({"minLength": 2, "maxLength": 3}, ["a", "ab", "abcd", "\u00e9\u00e9", "\U0001F600\U0001F600", 12]),
    ({"pattern": "^sha256:[a-f0-9]{64}$"}, ["sha256:" + "a" * 64, "sha256:" + "A" * 64, "sha256:" + "a" * 64 + "\n", 5]),
    ({"pattern": "\\d"}, ["a1", "\u0663", "abc"]),
    ({"pattern": "("}, ["a"]),
    ({"pattern": 5}, ["a"]),
    ({"format": "date-time"}, ["not a date", "2026-05-10T14:25:00Z"]),
    ({"format": 1}, ["a"]),
    ({"minimum": 1, "maximum": 3}, [0, 1, 3, 3.5, "a", True]),
    ({"exclusiveMinimum": 1, "exclusiveMaximum": 3}, [1, 2, 3]),
    ({"minimum": "1"}, [1]),
    ({"multipleOf": 3}, [9, 10, 9.0, 4.5]),
    ({"multipleOf": 0.5}, [1.5, 1.25, 2]),
    ({"multipleOf": 0.1}, [0.3, 1]),
    ({"multipleOf": 0}, [1]),
    ({"allOf": [S, {"minLength": 2}]}, ["ab", "a", 1]),
    ({"allOf": []}, [1]),
    ({"anyOf": [S, {"type": "integer"}]}, ["a", 1, 1.5]),
    ({"oneOf": [{"type": "integer"}, {"minimum": 2}]}, [1, 3, 2.5, "x"]),
    ({"not": S}, ["a", 1]),
    ({"not": 1}, [1]),
    ({"if": {"properties": {"k": {"const": "a"}}}, "then": {"required": ["x"]}, "else": {"required": ["y"]}},
     [{"k": "a", "x": 1}, {"k": "a", "y": 1}, {"k": "b", "y": 1}, {"k": "b"}]),
    ({"then": {"required": ["x"]}}, [{}]),
    ({"$defs": {"pos": {"minimum": 0}}, "properties": {"n": {"$ref": "#/$defs/pos"}}}, [{"n": 1}, {"n": -1}]),
    ({"$defs": {"a b": {"minimum": 0}}, "$ref": "#/$defs/a%20b"}, [1, -1]),
    ({"$id": "urn:x#frag"}, [1]),
    ({"$id": "urn:x#"}, [1]),
    ({"$anchor": "1a"}, [1]),
    ({"$anchor": "a-1.b_"}, [1]),
    ({"title": 1}, [1]),
    ({"description": "x", "examples": [1], "default": {}, "deprecated": False}, [1]),
    ({"examples": 1}, [1]),
    ({"$comment": 1}, [1]),
    ({"definitions": {"a": 1}}, [1]),
    ({"dependencies": {"a": ["b"]}}, [{"a": 1}]),
    ({"dependencies": {"a": 1}}, [{"a": 1}]),
    ({"x-unknown": {"type": "string"}, "foo": 1}, [1]),
    ({"type": "object", "additionalProperties": False, "properties": {"max_spend": {"type": "number", "maximum": 1000},
      "category": {"type": "string", "enum": ["software", "books"]}}, "required": ["max_spend", "category"]},
     [{"max_spend": 500, "category": "software"}, {"max_spend": 1001, "category": "software"},
      {"max_spend": 500, "category": "games"}, {"max_spend": 500}, {"max_spend": 5, "category": "books", "x": 1}]),
    ({"allOf": [{"type": "object", "properties": {"max_spend": {"type": "number", "maximum": 750}}},
                {"type": "object", "properties": {"max_spend": {"type": "number", "maximum": 1000}}}]},
     [{"max_spend": 700}, {"max_spend": 800}, {"max_spend": "x"}, {}]),
    (True, [1]),
    (False, [1]),
]


def decide(schema, instance):
    try:
        Draft202012Validator.check_schema(schema)
    except SchemaError:
        return False, None
    return True, not any(True for _ in Draft202012Validator(schema).iter_errors(instance))


def main():
    out = Path(__file__).resolve().parent.parent / "core" / "tests" / "data" / "unit" / "schema_keyword_cases.jsonl"
    lines = []
    for schema, instances in CASES:
        for inst in instances:
            ok, valid = decide(schema, inst)
            lines.append(json.dumps([schema, inst, ok, valid]))
    out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(f"wrote {len(lines)} cases to {out}")


if __name__ == "__main__":
    main()
