"""Differential test: `concordia jcs --lines` against a V8 oracle.

tools/node-jcs-oracle.mjs canonicalizes each corpus line with JSON.parse and
a sorted-keys JSON.stringify writer (RFC 8785 by construction). Lines V8
accepts must give byte-identical output, except where concordia-rs rejects
by documented choice: V8 keeps the last duplicate name, accepts unpaired
surrogate escapes, prints big integers as doubles and -0 as 0.
"""

from __future__ import annotations

import collections
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import DOCUMENTED, REPO_ROOT, Classified, add_summary, show, split_output

ORACLE = REPO_ROOT / "tools" / "node-jcs-oracle.mjs"


def _node() -> str:
    node = os.environ.get("NODE") or shutil.which("node") or "/usr/bin/node"
    if not Path(node).exists() and not shutil.which(node):
        # tools/test.sh checks for node before it runs; never a silent skip.
        pytest.fail("node not found (needed for the V8 oracle): apt-get install nodejs, or set NODE")
    return node


@pytest.fixture(scope="session")
def v8(corpus_lines: list[bytes], corpus_path: Path) -> list[bytes]:
    proc = subprocess.run([_node(), str(ORACLE), str(corpus_path)], stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, timeout=600)
    assert proc.returncode == 0, proc.stderr.decode("utf-8", "replace")[:2000]
    out = split_output(proc.stdout)
    assert len(out) == len(corpus_lines), "node oracle must print one line per input line"
    return out


def test_oracle_self_check() -> None:
    """The oracle itself agrees with RFC 8785's own examples."""
    src = (b'{"numbers":[333333333.33333329,1E30,4.50,2e-3,0.000000000000000000000000001],'
           b'"string":"\\u20ac$\\u000F\\u000aA\'\\u0042\\u0022\\u005c\\\\\\"\\/","literals":[null,true,false]}\n'
           b'{"\\u20ac":1,"\\r":2,"\\ud83d\\ude02":3,"\\ufb33":4,"1":5}\n'
           b'{"a":1,"a":2}\n\xff\n1e400\n')
    proc = subprocess.run([_node(), str(ORACLE)], input=src, stdout=subprocess.PIPE, timeout=60, check=True)
    assert split_output(proc.stdout) == [
        b'{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],'
        b'"string":"\xe2\x82\xac$\\u000f\\nA\'B\\"\\\\\\\\\\"/"}',
        b'{"\\r":2,"1":5,"\xe2\x82\xac":1,"\xf0\x9f\x98\x82":3,"\xef\xac\xb3":4}',
        b'{"a":2}',
        b"!error utf8",
        b"!error non-finite",
    ]


def test_against_v8(corpus_lines: list[bytes], classified: list[Classified], ours: list[bytes],
                    v8: list[bytes]) -> None:
    identical = 0
    both_reject = 0
    by_design = collections.Counter()
    failures: list[tuple[int, str]] = []
    for i, (c, out, ref) in enumerate(zip(classified, ours, v8)):
        n = i + 1
        we_reject = out.startswith(b"!error")
        v8_rejects = ref.startswith(b"!error")
        if we_reject and v8_rejects:
            both_reject += 1
        elif we_reject:
            documented = [r for r in c.reasons if r in DOCUMENTED]
            if documented:
                by_design[documented[0]] += 1
            else:
                failures.append((len(c.line), f"line {n}: we reject, V8 accepts:\n    input {show(c.line)}\n"
                                 f"    ours  {show(out)}\n    v8    {show(ref)}"))
        elif v8_rejects:
            failures.append((len(c.line), f"line {n}: V8 rejects ({ref.decode()}), we accept:\n"
                             f"    input {show(c.line)}\n    ours  {show(out)}"))
        elif out == ref:
            identical += 1
        else:
            failures.append((len(c.line), f"line {n}: differs from V8:\n    input {show(c.line)}\n"
                             f"    ours  {show(out)}\n    v8    {show(ref)}"))

    summary = [
        "== JCS differential (concordia jcs --lines vs V8 JSON.parse/JSON.stringify) ==",
        f"  {len(corpus_lines)} documents; byte-identical to V8: {identical}; rejected by both: {both_reject}",
        f"  V8 accepts, we reject by design: {sum(by_design.values())}"
        + "".join(f"\n    {k:5d}  {r}" for r, k in sorted(by_design.items())),
        f"  unexplained differences: {len(failures)}",
    ]
    add_summary("\n".join(summary))
    if failures:
        failures.sort(key=lambda f: f[0])
        pytest.fail(f"{len(failures)} unexplained differences against V8; the smallest inputs:\n"
                    + "\n".join(t for _, t in failures[:8]), pytrace=False)
