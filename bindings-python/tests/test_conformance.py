"""The conformance suite through concordia_rs.verify_profile, iterated in Python, gives
the same summary line as the Rust runner (`concordia conformance`)."""

from __future__ import annotations

import json
import subprocess
from typing import Any, Dict, List, Optional, Tuple

import concordia_rs

SCHEMA_VERSION = "concordia-conformance-vector/v1-draft"
RECORD_TYPES = {
    "decision_object", "approval_receipt", "revocation_record", "cascade_decision_record",
    "fulfillment_attestation", "attestation", "predicate", "mandate", "cosign_receipt",
    "conditional_commitment", "atomic_activation_proof", "unwind_record", "closure_predicate",
    "chain_session", "chain_session_transition", "agent_profile", "competence_proof",
    "receipt_bundle", "message_chain",
}
REASON_CLASSES = {"schema", "signature", "digest", "binding", "temporal", "privacy", "transition"}
REQUIRED = ["schema_version", "id", "title", "source_fixture", "record_type", "verification_profile", "input", "context", "expected"]


def _strict_pairs(pairs: List[Tuple[str, Any]]) -> Dict[str, Any]:
    out: Dict[str, Any] = {}
    for k, v in pairs:
        if k in out:
            raise ValueError(f"duplicate key {k!r}")
        out[k] = v
    return out


def _reject_constant(name: str) -> Any:
    raise ValueError(f"non-JSON constant {name}")


def load_strict(text: str) -> Any:
    return json.loads(text, object_pairs_hook=_strict_pairs, parse_constant=_reject_constant)


def check_shape(v: Any) -> Optional[str]:
    """Why a vector is malformed (rejected before evaluation), or None."""
    if not isinstance(v, dict):
        return "vector is not an object"
    if any(f not in v for f in REQUIRED):
        return "vector is missing required fields"
    if v["schema_version"] != SCHEMA_VERSION:
        return "vector schema_version is unsupported"
    if not isinstance(v["id"], str) or not v["id"]:
        return "vector id is invalid"
    if v["record_type"] not in RECORD_TYPES:
        return "record_type is unsupported"
    if v["verification_profile"] not in concordia_rs.profile_names():
        return "verification_profile is unsupported"
    if v["expected"] not in ("accept", "reject"):
        return "expected outcome is invalid"
    if not isinstance(v["context"], dict):
        return "context is not an object"
    erc = v.get("expected_reason_class")
    if erc is not None and erc not in REASON_CLASSES:
        return "expected_reason_class is not an allowed class"
    return None


def suite_base(vectors_dir):
    """Manifest paths are relative to the repository root for <root>/conformance/vectors."""
    d = vectors_dir.resolve()
    if d.name == "vectors" and d.parent.name == "conformance":
        return d.parent.parent
    return d


def run_suite(vectors_dir) -> Tuple[str, List[str]]:
    base = suite_base(vectors_dir)
    manifest = load_strict((vectors_dir / "manifest.json").read_text(encoding="utf-8"))
    counts = {"positive": 0, "mutation": 0, "canary": 0, "ok": 0, "fail": 0}
    fails: List[str] = []
    files = manifest.get("files")
    for section in ("positive", "mutation", "canary"):
        entries = files.get(section) if isinstance(files, dict) else None
        if not isinstance(entries, list):
            counts["fail"] += 1
            continue
        for rel in entries:
            counts[section] += 1
            got, expected, vid = "reject", "<unreadable>", str(rel)
            try:
                vector = load_strict((base / rel).read_text(encoding="utf-8"))
            except (OSError, ValueError, UnicodeDecodeError):
                vector = None
            if isinstance(vector, dict) and isinstance(vector.get("id"), str):
                vid = vector["id"]
                expected = vector.get("expected") if isinstance(vector.get("expected"), str) else "<invalid>"
            if vector is not None and check_shape(vector) is None:
                try:
                    concordia_rs.verify_profile(
                        vector["verification_profile"],
                        json.dumps(vector["input"], ensure_ascii=False),
                        json.dumps(vector["context"], ensure_ascii=False),
                    )
                    got = "accept"
                except concordia_rs.ConcordiaError:
                    got = "reject"
            if got == expected:
                counts["ok"] += 1
            else:
                counts["fail"] += 1
                fails.append(f"{section} {vid} expected={expected} got={got}")
    line = "[SUMMARY] positive={positive} mutation={mutation} canary={canary} ok={ok} fail={fail}".format(**counts)
    return line, fails


def rust_summary(cli, vectors_dir) -> str:
    out = subprocess.run([str(cli), "conformance", str(vectors_dir)], capture_output=True, text=True, check=False)
    lines = [l for l in out.stdout.splitlines() if l.startswith("[SUMMARY]")]
    assert lines, out.stdout + out.stderr
    return lines[-1]


def test_profile_names_are_the_22_profiles() -> None:
    names = concordia_rs.profile_names()
    assert len(names) == 22 and len(set(names)) == 22


def test_summary_line_matches_rust_runner(vectors_dir, concordia_cli) -> None:
    line, fails = run_suite(vectors_dir)
    expected = rust_summary(concordia_cli, vectors_dir)
    print(line)
    assert line == expected, "\n".join([f"python: {line}", f"rust:   {expected}", *fails[:40]])


def test_verify_profile_reports_reason_class(vectors_dir) -> None:
    manifest = json.loads((vectors_dir / "manifest.json").read_text(encoding="utf-8"))
    seen = 0
    for rel in manifest["files"]["mutation"][:200]:
        v = json.loads((suite_base(vectors_dir) / rel).read_text(encoding="utf-8"))
        if check_shape(v) is not None or v["expected"] != "reject":
            continue
        try:
            concordia_rs.verify_profile(v["verification_profile"], v["input"], v["context"])
        except concordia_rs.ConcordiaError as e:
            assert e.reason_class in REASON_CLASSES | {"input", "limit"}
            seen += 1
    assert seen > 0


def test_unknown_profile_is_an_invalid_argument() -> None:
    try:
        concordia_rs.verify_profile("no-such-profile-v1", "{}", "{}")
    except concordia_rs.InvalidArgumentError as e:
        assert isinstance(e, ValueError)
    else:
        raise AssertionError("expected InvalidArgumentError")
