"""`concordia jcs --lines` against the RFC 8785 test data vendored in
core/tests/data/rfc8785 (see its README.md and NOTICE):

- cyberphone/input/X.json must canonicalize to exactly cyberphone/output/X.json
  (the inputs are pretty-printed; JSON strings never hold a raw newline, so
  joining the lines with spaces keeps the JSON text equivalent);
- each double of es6-numbers/es6testfile-first10000.txt, written as a JSON
  number in two spellings, must print as the expected ECMAScript form; the
  negative-zero bit pattern must be rejected (documented choice).
"""

from __future__ import annotations

import struct
from pathlib import Path

import pytest

from conftest import REPO_ROOT, check_alignment, run_jcs_lines, show

RFC8785 = REPO_ROOT / "core" / "tests" / "data" / "rfc8785"


def _require_data() -> None:
    # Vendored in the repository: a missing copy is a broken checkout, never a skip.
    if not RFC8785.is_dir():
        pytest.fail(f"{RFC8785} is missing (vendored RFC 8785 test data)")


def test_cyberphone_vectors(tmp_path: Path) -> None:
    _require_data()
    inputs = sorted((RFC8785 / "cyberphone" / "input").glob("*.json"))
    assert inputs
    lines = [p.read_bytes().replace(b"\r", b" ").replace(b"\n", b" ") for p in inputs]
    f = tmp_path / "cyberphone.jsonl"
    f.write_bytes(b"".join(line + b"\n" for line in lines))
    out = run_jcs_lines(f)
    check_alignment(lines, out, "cyberphone vectors")
    bad = []
    for p, got in zip(inputs, out):
        want = (RFC8785 / "cyberphone" / "output" / p.name).read_bytes().rstrip(b"\n")
        if got != want:
            bad.append(f"{p.name}:\n    ours {show(got)}\n    want {show(want)}")
    assert not bad, "\n".join(bad)


def test_es6_numbers(tmp_path: Path) -> None:
    _require_data()
    rows = []
    for raw in (RFC8785 / "es6-numbers" / "es6testfile-first10000.txt").read_text().splitlines():
        hexbits, expected = raw.split(",")
        f = struct.unpack(">d", int(hexbits, 16).to_bytes(8, "big"))[0]
        rows.append((hexbits, f, expected))
    lines, want = [], []
    for hexbits, f, expected in rows:
        for spelling in (repr(f), "%.17e" % f):
            lines.append(spelling.encode())
            want.append(None if (f == 0.0 and spelling.startswith("-")) else expected.encode())
    path = tmp_path / "es6.jsonl"
    path.write_bytes(b"".join(line + b"\n" for line in lines))
    out = run_jcs_lines(path)
    check_alignment(lines, out, "es6 numbers")
    bad = []
    for line, got, exp in zip(lines, out, want):
        if exp is None:
            if not got.startswith(b"!error"):
                bad.append(f"{line.decode()}: negative zero must be rejected, got {show(got)}")
        elif got != exp:
            bad.append(f"{line.decode()}: ours {show(got)} want {exp.decode()}")
    assert not bad, f"{len(bad)} of {len(lines)} numbers wrong:\n" + "\n".join(bad[:10])
