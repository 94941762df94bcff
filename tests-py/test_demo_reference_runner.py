"""The attestation `concordia demo` produces passes the reference runner's profiles.

The demo's attestation and transcript are wrapped as conformance vectors for
`attestation-v1` (party signatures, schema, privacy scan), `attestation-countersign-v1`
(countersignatures over the outcome) and `message-chain-v1` with the attestation as the
receipt (chain links, message signatures, and receipt set-binding). Both the reference
runner (conformance/reference-runner/runner.py from concordia-protocol 0.10.0, fetched at
test time, never vendored) and `concordia conformance` must accept all three, and both
must treat a copy whose outcome was edited after signing the same way (the countersignature
and receipt profiles reject it).
"""

from __future__ import annotations

import copy
import json
import subprocess
from pathlib import Path

import pytest

import mutate_vectors
from conftest import concordia_bin
import re
import sys

from test_conformance_differential import RUNNER_LAUNCHER, _reference_runner, _run_ours


def reference_verdicts(runner: Path, suite: Path) -> list[str]:
    """The reference runner's verdict per vector: `[OK] id` means it agreed with
    `expected` (accept here), `[FAIL] id expected=.. got=X` gives X."""
    proc = subprocess.run([sys.executable, "-c", RUNNER_LAUNCHER, str(runner), str(suite)],
                          capture_output=True, text=True, timeout=300)
    verdicts = []
    for line in proc.stdout.splitlines():
        if m := re.match(r"^\[(OK|FAIL)\] \S+(?: expected=\S+ got=(accept|reject))?$", line):
            verdicts.append("accept" if m.group(1) == "OK" else m.group(2))
    assert verdicts, proc.stdout[-1000:] + proc.stderr[-1000:]
    return verdicts


def vector(vid: str, profile: str, record: str, inp: dict, ctx: dict) -> mutate_vectors.Mutation:
    v = {
        "schema_version": "concordia-conformance-vector/v1-draft",
        "id": vid,
        "title": f"concordia demo output under {profile}",
        "source_fixture": "synthetic/concordia-rs-demo",
        "record_type": record,
        "verification_profile": profile,
        "input": inp,
        "context": ctx,
        "expected": "accept",
        "expected_reason_class": None,
        "notes": "",
    }
    return mutate_vectors.Mutation(0, vid, "demo", profile, "none", "", "input", "", v)


def demo_vectors(out: Path, forge: bool) -> list[mutate_vectors.Mutation]:
    transcript = json.loads((out / "transcript.json").read_text())
    keys = json.loads((out / "keys.json").read_text())
    att = json.loads((out / "attestation.json").read_text())
    if forge:
        att = copy.deepcopy(att)
        att["outcome"]["rounds"] += 1
    parties = [p["agent_id"] for p in att["parties"]]
    tag = "forged" if forge else "demo"
    return [
        vector(f"{tag}-attestation", "attestation-v1", "attestation", att,
               {"public_keys_b64url": keys, "expected_verified_parties": parties, "forbid_raw_deal_terms": True}),
        vector(f"{tag}-countersign", "attestation-countersign-v1", "attestation", att,
               {"public_keys_b64url": keys, "countersigners": parties}),
        vector(f"{tag}-receipt", "message-chain-v1", "message_chain", {"messages": transcript, "receipt": att},
               {"public_keys_b64url": keys, "expected_message_count": len(transcript)}),
    ]


def test_demo_attestation_passes_the_reference_runner(tmp_path: Path) -> None:
    out = tmp_path / "demo"
    r = subprocess.run([str(concordia_bin()), "demo", "--out", str(out), "--seed", "2a" * 32,
                        "--now", "2026-03-21T14:00:00Z"], capture_output=True)
    assert r.returncode == 0, r.stderr.decode()
    runner = _reference_runner()
    # An edited outcome keeps every party signature valid (they cover only each party's own
    # record), so attestation-v1 still accepts; the countersignatures and the receipt
    # binding cover the whole record and must reject.
    for forge, expected in ((False, ["accept"] * 3), (True, ["accept", "reject", "reject"])):
        vectors = demo_vectors(out, forge)
        suite = mutate_vectors.write_suite(tmp_path / f"suite-{forge}", vectors)
        ref_verdicts = reference_verdicts(runner, suite)
        ours = [res.get("got") or res.get("verdict") for res in _run_ours(suite)]
        assert ref_verdicts == expected, (forge, ref_verdicts)
        assert ours == expected, (forge, ours)
