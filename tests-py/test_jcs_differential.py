"""Differential test: `concordia jcs --lines` against two Python oracles.

Oracles, applied to ``json.loads(line)``:
  (a) ``rfc8785.dumps`` (Trail of Bits' pure-Python RFC 8785), and
  (b) ``concordia.canonicalization.canonicalize_jcs`` from the reference SDK
      (``concordia-protocol``).

Every accepted line must be byte-identical to both. Lines carrying one of
concordia-rs's documented rejections (see ``conftest.DOCUMENTED``) must be
rejected, and the summary records what each oracle would have done instead.
A line an oracle raises on must be rejected by us as well.
"""

from __future__ import annotations

import collections
from typing import Any, Callable

import pytest
import rfc8785
from concordia.canonicalization import canonicalize_jcs

from conftest import DOCUMENTED, ERROR_LINE, NOT_JSON, Classified, add_summary, check_alignment, run_jcs_lines, show

ORACLES: dict[str, Callable[[Any], bytes]] = {
    "rfc8785": rfc8785.dumps,
    "sdk": canonicalize_jcs,
}


def _run_oracle(fn: Callable[[Any], bytes], value: Any) -> tuple[bytes | None, str]:
    try:
        return fn(value), "ok"
    except Exception as e:  # noqa: BLE001 - any failure is an oracle rejection
        return None, "raises " + type(e).__name__


def test_error_lines_are_well_formed(corpus_lines: list[bytes], ours: list[bytes]) -> None:
    bad = []
    for i, (line, out) in enumerate(zip(corpus_lines, ours)):
        if not out.startswith(b"!"):
            continue
        m = ERROR_LINE.match(out)
        if not m:
            bad.append(f"line {i + 1}: malformed error line {show(out)}")
        elif int(m.group(2)) > len(line):
            bad.append(f"line {i + 1}: offset {m.group(2).decode()} beyond the line's "
                       f"{len(line)} bytes: {show(out)} for {show(line)}")
    assert not bad, f"{len(bad)} bad error lines:\n" + "\n".join(bad[:10])


def test_stdin_matches_file(corpus_lines: list[bytes], ours: list[bytes]) -> None:
    head = corpus_lines[:2000]
    out = run_jcs_lines(None, stdin=b"".join(line + b"\n" for line in head))
    check_alignment(head, out, "concordia jcs --lines (stdin)")
    diff = [i for i, (a, b) in enumerate(zip(out, ours)) if a != b]
    assert not diff, f"stdin output differs from FILE output at lines {[i + 1 for i in diff[:10]]}"


def test_differential(corpus_lines: list[bytes], classified: list[Classified], ours: list[bytes]) -> None:
    identical = collections.Counter()  # oracle -> lines byte-identical to ours
    accepted = 0
    rejected_by_design = collections.Counter()  # reason -> count
    would_have = collections.defaultdict(collections.Counter)  # reason -> "oracle: outcome" -> count
    not_json = collections.Counter()
    error_classes = collections.Counter()
    oracle_disagree = 0
    notes = collections.Counter()
    failures: list[tuple[int, str]] = []  # (input length, text): smallest inputs are shown first

    for i, (c, out) in enumerate(zip(classified, ours)):
        n = i + 1
        rejected = out.startswith(b"!error")
        if rejected:
            m = ERROR_LINE.match(out)
            error_classes[m.group(1).decode() if m else "?"] += 1

        if c.reasons:
            if not rejected:
                failures.append((len(c.line), f"line {n}: expected rejection ({', '.join(c.reasons)}) but got "
                                f"{show(out)} for input {show(c.line)}"))
                continue
            documented = [r for r in c.reasons if r in DOCUMENTED]
            if documented:
                reason = documented[0]
                rejected_by_design[reason] += 1
                if c.parsed:
                    for name, fn in ORACLES.items():
                        _, outcome = _run_oracle(fn, c.value)
                        would_have[reason][f"{name} {outcome}"] += 1
                else:
                    would_have[reason]["python json.loads fails"] += 1
            else:
                not_json[c.reasons[0]] += 1
            continue

        # A line with no documented reason: both oracles should produce output.
        results = {name: _run_oracle(fn, c.value) for name, fn in ORACLES.items()}
        raised = {name: oc for name, (res, oc) in results.items() if res is None}
        if raised:
            if not rejected:
                failures.append((len(c.line), f"line {n}: oracle(s) {raised} but we accepted: "
                                f"ours {show(out)} for input {show(c.line)}"))
            else:
                rejected_by_design["oracle raises: " + ", ".join(f"{k} {v}" for k, v in raised.items())] += 1
            continue
        if rejected:
            failures.append((len(c.line), f"line {n}: we rejected a line both oracles accept: {show(out)} "
                            f"for input {show(c.line)}; rfc8785 gives {show(results['rfc8785'][0])}"))
            continue
        accepted += 1
        notes.update(c.notes)
        if results["rfc8785"][0] != results["sdk"][0]:
            oracle_disagree += 1
        for name, (res, _) in results.items():
            if res == out:
                identical[name] += 1
            else:
                failures.append((len(c.line), f"line {n}: differs from {name}:\n    input  {show(c.line)}\n"
                                f"    ours   {show(out)}\n    {name:<6} {show(res)}"))

    total = len(corpus_lines)
    lines = [
        "== JCS differential (concordia jcs --lines vs rfc8785 / reference SDK) ==",
        f"  {total} documents; {accepted} accepted by both oracles and us",
        f"  byte-identical to rfc8785: {identical['rfc8785']}",
        f"  byte-identical to SDK:     {identical['sdk']}",
        f"  rfc8785 and SDK disagree on {oracle_disagree} accepted lines",
    ]
    if notes["big-integer-es-form"]:
        lines.append(f"  accepted big integer literals already in ECMAScript form: {notes['big-integer-es-form']}"
                     " (rfc8785 refuses such Python ints; compared as doubles)")
    lines += [
        f"  rejected by design: {sum(rejected_by_design.values())}",
    ]
    for reason, k in sorted(rejected_by_design.items()):
        outcomes = ", ".join(f"{o}: {m}" for o, m in sorted(would_have[reason].items()))
        lines.append(f"    {k:5d}  {reason}" + (f"  [oracles would: {outcomes}]" if outcomes else ""))
    lines.append(f"  not JSON for any parser (rejected): {sum(not_json.values())}")
    for reason, k in sorted(not_json.items()):
        lines.append(f"    {k:5d}  {reason} ({NOT_JSON[reason]})")
    lines.append("  our error classes: " + ", ".join(f"{k}={v}" for k, v in sorted(error_classes.items())))
    lines.append(f"  unexplained differences: {len(failures)}")
    add_summary("\n".join(lines))

    if failures:
        failures.sort(key=lambda f: f[0])
        pytest.fail(f"{len(failures)} unexplained differences; the smallest inputs:\n"
                    + "\n".join(text for _, text in failures[:8]),
                    pytrace=False)
