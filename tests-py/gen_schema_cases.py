"""Ground truth for concordia_core::schema over the vendored conformance vectors.

For every vector, Python `jsonschema` (Draft 2020-12, the reference runner's
configuration: frozen schema store for $ref, `date-time` asserted by the contract's
rule) decides the schema check of the vector's profile. For mandate and delegation
vectors it also decides the run-time checks: is each constraint schema valid
(`check_schema`), and does `context.action` satisfy the effective constraints.

Writes core/tests/data/unit/schema_vector_cases.jsonl, one JSON object per line:
  {"file": ..., "pointer": ..., "schema": ..., "valid": bool}
  {"file": ..., "constraints": [[pointer, kind], ...], "check": bool,
   "action": pointer | null, "valid": bool | null}
where kind is "schema" (a JSON Schema object) or "max_spend" (the legacy shorthand,
which means {"type": "object", "properties": {"max_spend": {"type": "number",
"maximum": N}}}).

Run with the reference runner's environment:
  /tmp/refvenv/bin/python tests-py/gen_schema_cases.py
"""

import json
import warnings
from datetime import datetime
from pathlib import Path

from jsonschema import Draft202012Validator, FormatChecker
from jsonschema.exceptions import SchemaError

warnings.filterwarnings("ignore", category=DeprecationWarning)
from jsonschema import RefResolver  # noqa: E402  (what the reference runner uses)

ROOT = Path(__file__).resolve().parent.parent
VECTORS = ROOT / "conformance" / "vectors"
SCHEMAS = VECTORS / "schemas"

FORMATS = FormatChecker(formats=())


@FORMATS.checks("date-time", raises=ValueError)
def _date_time(value):
    if not isinstance(value, str):
        return True
    return datetime.fromisoformat(value.replace("Z", "+00:00")).tzinfo is not None


def load(path):
    return json.loads(path.read_text(encoding="utf-8"))


STORE = {}
for p in SCHEMAS.glob("*.json"):
    s = load(p)
    if isinstance(s, dict) and isinstance(s.get("$id"), str):
        STORE[s["$id"]] = s


def frozen_valid(schema_name, instance):
    schema = load(SCHEMAS / schema_name)
    resolver = RefResolver.from_schema(schema, store=STORE)
    v = Draft202012Validator(schema, resolver=resolver, format_checker=FORMATS)
    return not any(True for _ in v.iter_errors(instance))


SINGLE = {
    "receipt-v1": ("approval_receipt.schema.json", "/input"),
    "revocation-v1": ("revocation_record.schema.json", "/input"),
    "cascade-decision-v1": ("cascade_decision_record.schema.json", "/input"),
    "fulfillment-attestation-v1": ("fulfillment_attestation.schema.json", "/input"),
    "attestation-v1": ("attestation.schema.json", "/input"),
    "attestation-countersign-v1": ("attestation.schema.json", "/input"),
    "predicate-v1": ("predicate.json", "/input"),
    "mandate-v1": ("mandate.schema.json", "/input"),
    "delegation-chain-v1": ("mandate.schema.json", "/input"),
    "conditional-commitment-v1": ("conditional_commitment.schema.json", "/input"),
    "atomic-activation-proof-v1": ("atomic_activation_proof.schema.json", "/input"),
    "unwind-record-v1": ("unwind_record.schema.json", "/input"),
    "closure-predicate-v1": ("closure_predicate.schema.json", "/input"),
    "chain-session-v1": ("chain_session.schema.json", "/input"),
    "chain-session-transition-v1": ("chain_session.schema.json", "/input/initial_session"),
    "receipt-bundle-v1": ("receipt_bundle.schema.json", "/input"),
    "message-chain-v1": ("attestation.schema.json", "/input/receipt"),
}

SCHEMA_KEYS = {
    "$schema", "$id", "$ref", "$defs", "type", "properties", "required", "additionalProperties", "items",
    "allOf", "anyOf", "oneOf", "not", "enum", "const", "minimum", "maximum", "exclusiveMinimum",
    "exclusiveMaximum", "minLength", "maxLength", "pattern", "minItems", "maxItems", "format",
}


def pointer_get(doc, pointer):
    cur = doc
    for tok in pointer.split("/")[1:]:
        tok = tok.replace("~1", "/").replace("~0", "~")
        if isinstance(cur, dict) and tok in cur:
            cur = cur[tok]
        elif isinstance(cur, list) and tok.isdigit() and int(tok) < len(cur):
            cur = cur[int(tok)]
        else:
            raise KeyError(pointer)
    return cur


def checks_schema(s):
    if not isinstance(s, dict):
        return False
    try:
        Draft202012Validator.check_schema(s)
        return True
    except SchemaError:
        return False


def runtime_case(rel, vector):
    """The mandate profiles' run-time schema checks, or None when they are not reached."""
    inp = vector.get("input")
    ctx = vector.get("context")
    if not isinstance(inp, dict) or not isinstance(ctx, dict):
        return None
    pieces = [("/input/constraints", "schema")]
    chain = inp.get("delegation_chain")
    if vector["verification_profile"] == "delegation-chain-v1" and isinstance(chain, list):
        for i, link in enumerate(chain):
            if isinstance(link, dict) and "scope_restriction" in link:
                scope = link["scope_restriction"]
                p = f"/input/delegation_chain/{i}/scope_restriction"
                if isinstance(scope, dict) and any(k in SCHEMA_KEYS for k in scope):
                    pieces.append((p, "schema"))
                elif (isinstance(scope, dict) and set(scope) == {"max_spend"}
                      and isinstance(scope["max_spend"], (int, float)) and not isinstance(scope["max_spend"], bool)):
                    pieces.append((p, "max_spend"))
                else:
                    return None  # rejected before any schema check
    schemas = []
    for p, kind in pieces:
        try:
            s = pointer_get(vector, p)
        except KeyError:
            return None  # no constraints: rejected before any schema check
        if kind == "max_spend":
            s = {"type": "object", "properties": {"max_spend": {"type": "number", "maximum": s["max_spend"]}}}
        schemas.append(s)
    ok = all(checks_schema(s) for s in schemas)
    action = "/context/action" if ctx.get("action") is not None else None
    valid = None
    if ok and action is not None:
        effective = schemas[0] if len(schemas) == 1 else {"allOf": schemas}
        if checks_schema(effective):
            valid = not any(True for _ in Draft202012Validator(effective).iter_errors(ctx["action"]))
    return {"file": rel, "constraints": [list(p) for p in pieces], "check": ok, "action": action, "valid": valid}


def main():
    out = ROOT / "core" / "tests" / "data" / "unit" / "schema_vector_cases.jsonl"
    lines = []
    counts = {"valid": 0, "invalid": 0, "runtime": 0}
    for sub in ("positive", "mutation", "canary"):
        for path in sorted((VECTORS / sub).glob("*.json")):
            rel = f"{sub}/{path.name}"
            vector = load(path)
            spec = SINGLE.get(vector.get("verification_profile"))
            if spec is None:
                continue
            schema_name, pointer = spec
            try:
                instance = pointer_get(vector, pointer)
            except KeyError:
                continue
            valid = frozen_valid(schema_name, instance)
            counts["valid" if valid else "invalid"] += 1
            lines.append(json.dumps({"file": rel, "pointer": pointer, "schema": schema_name, "valid": valid}))
            if vector["verification_profile"] in ("mandate-v1", "delegation-chain-v1"):
                case = runtime_case(rel, vector)
                if case is not None:
                    counts["runtime"] += 1
                    lines.append(json.dumps(case))
    out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(f"wrote {len(lines)} cases {counts} to {out}")


if __name__ == "__main__":
    main()
