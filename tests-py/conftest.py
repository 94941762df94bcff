"""Shared fixtures for the differential canonicalization tests.

The generated corpus is written once per session, the CLI is run once over
it, and each line is classified once (which of concordia-rs's documented
rejections apply). Test modules compare the CLI's output against independent
oracles and register a summary that is printed at the end of the run.
"""

from __future__ import annotations

import json
import math
import os
import re
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import rfc8785

import gen_docs

REPO_ROOT = Path(__file__).resolve().parent.parent
MAX_SAFE = 2**53 - 1

# `!error <class> <byte-offset> <message>`; the message may be empty.
ERROR_LINE = re.compile(rb"^!error ([A-Za-z0-9_.-]+) ([0-9]+)(?: (.*))?$")

# Reasons for which concordia-rs rejects a line by documented choice although
# some oracle would produce output for it.
DOCUMENTED = {
    "duplicate-name": "duplicate member names (I-JSON); oracles keep the last one",
    "lone-surrogate": "unpaired surrogate escape (I-JSON)",
    "big-integer": "integer literal beyond 2^53-1 that is not the ECMAScript form of its double",
    "negative-zero": "number evaluates to negative zero",
    "nan-infinity": "NaN/Infinity literal (not JSON)",
    "number-overflow": "number overflows a double",
    "invalid-utf8": "input is not valid UTF-8",
    "bom": "byte order mark before the JSON text",
}
# Not JSON at all for the Python parser either (the oracles cannot run).
NOT_JSON = {
    "trailing-bytes": "bytes after the JSON text",
    "syntax": "not RFC 8259 JSON",
}


# --------------------------------------------------------------------------
# summaries printed after the run


_SUMMARIES: list[str] = []


def add_summary(text: str) -> None:
    _SUMMARIES.append(text)


def pytest_terminal_summary(terminalreporter: Any) -> None:
    for text in _SUMMARIES:
        terminalreporter.write_line("")
        for line in text.splitlines():
            terminalreporter.write_line(line)


# --------------------------------------------------------------------------
# classification


@dataclass
class Classified:
    line: bytes
    reasons: list[str] = field(default_factory=list)
    value: Any = None  # parsed value (Python json), when parseable
    parsed: bool = False
    notes: list[str] = field(default_factory=list)  # accepted edge cases worth counting
    detail: str = ""  # parse error text when not parseable


class _Collector:
    """json.loads hooks that record (rather than reject) the cases Python's
    json module accepts but concordia-rs rejects."""

    def __init__(self) -> None:
        self.reasons: set[str] = set()
        self.notes: set[str] = set()

    def pairs(self, pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        d = dict(pairs)
        if len(d) != len(pairs):
            self.reasons.add("duplicate-name")
        return d

    def constant(self, name: str) -> float:
        self.reasons.add("nan-infinity")
        return float(name)

    def parse_int(self, s: str) -> int | float:
        v = int(s)
        if abs(v) > MAX_SAFE:
            # concordia-rs accepts a big literal only when it is already the
            # ECMAScript form of its double (100000000000000000000 is how 1e20
            # is written canonically), so every implementation agrees on it.
            # It is a double then: hand the oracles the float, since rfc8785
            # refuses Python ints beyond 2^53-1.
            f = float(s) if len(s) < 400 else math.inf
            if math.isfinite(f) and rfc8785.dumps(f).decode() == s:
                self.notes.add("big-integer-es-form")
                return f
            self.reasons.add("big-integer")
        if v == 0 and s.startswith("-"):
            self.reasons.add("negative-zero")
        return v

    def parse_float(self, s: str) -> float:
        f = float(s)
        if math.isinf(f):
            self.reasons.add("number-overflow")
        elif f == 0.0 and s.startswith("-"):
            self.reasons.add("negative-zero")
        return f


def _has_lone_surrogate(v: Any) -> bool:
    stack = [v]
    while stack:
        x = stack.pop()
        if isinstance(x, str):
            try:
                x.encode("utf-8")
            except UnicodeEncodeError:
                return True
        elif isinstance(x, dict):
            stack.extend(x.keys())
            stack.extend(x.values())
        elif isinstance(x, list):
            stack.extend(x)
    return False


def classify(line: bytes) -> Classified:
    c = Classified(line)
    if line.startswith(b"\xef\xbb\xbf"):
        c.reasons.append("bom")
    try:
        text = line.decode("utf-8")  # strict: rejects overlongs, surrogates, > U+10FFFF
    except UnicodeDecodeError as e:
        c.reasons.append("invalid-utf8")
        c.detail = str(e)
        return c
    if text.startswith("\ufeff"):
        text = text[1:]
    col = _Collector()
    try:
        c.value = json.loads(text, object_pairs_hook=col.pairs, parse_constant=col.constant,
                             parse_int=col.parse_int, parse_float=col.parse_float)
        c.parsed = True
    except json.JSONDecodeError as e:
        c.reasons.append("trailing-bytes" if e.msg == "Extra data" else "syntax")
        c.detail = str(e)
        return c
    c.reasons.extend(sorted(col.reasons))
    c.notes.extend(sorted(col.notes))
    if _has_lone_surrogate(c.value):
        c.reasons.append("lone-surrogate")
    return c


# --------------------------------------------------------------------------
# running the CLI


def concordia_bin() -> Path:
    if os.environ.get("CONCORDIA_BIN"):
        return Path(os.environ["CONCORDIA_BIN"])
    target = Path(os.environ.get("CARGO_TARGET_DIR", REPO_ROOT / "target"))
    if not target.is_absolute():
        target = REPO_ROOT / target
    return target / "release" / "concordia"


def split_output(out: bytes) -> list[bytes]:
    if out.endswith(b"\n"):
        out = out[:-1]
    return out.split(b"\n") if out else []


def run_jcs_lines(path: Path | None, stdin: bytes | None = None) -> list[bytes]:
    exe = concordia_bin()
    if not exe.exists():
        pytest.fail(f"concordia binary not found at {exe} "
                    "(build it with `cargo build --release -p concordia-cli` or set CONCORDIA_BIN)")
    cmd = [str(exe), "jcs", "--lines"] + ([str(path)] if path is not None else [])
    proc = subprocess.run(cmd, input=stdin if stdin is not None else b"",
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=600)
    if proc.returncode != 0:
        pytest.fail(f"{' '.join(cmd)} exited {proc.returncode}; stderr:\n"
                    f"{proc.stderr.decode('utf-8', 'replace')[:2000]}")
    return split_output(proc.stdout)


def check_alignment(lines: list[bytes], out: list[bytes], what: str) -> None:
    if len(out) != len(lines):
        pytest.fail(f"{what}: {len(lines)} input lines but {len(out)} output lines; "
                    "`jcs --lines` must write exactly one line per input line")


def show(b: bytes, limit: int = 300) -> str:
    s = repr(b)
    return s if len(s) <= limit else s[:limit] + "...(%d bytes)" % len(b)


# --------------------------------------------------------------------------
# fixtures


@pytest.fixture(scope="session")
def corpus_lines() -> list[bytes]:
    count = int(os.environ.get("JCS_CORPUS_COUNT", gen_docs.DEFAULT_COUNT))
    seed = int(os.environ.get("JCS_CORPUS_SEED", gen_docs.DEFAULT_SEED))
    return gen_docs.generate(count, seed)


@pytest.fixture(scope="session")
def corpus_path(corpus_lines: list[bytes], tmp_path_factory: pytest.TempPathFactory) -> Path:
    p = tmp_path_factory.mktemp("jcs") / "corpus.jsonl"
    p.write_bytes(b"".join(line + b"\n" for line in corpus_lines))
    return p


@pytest.fixture(scope="session")
def classified(corpus_lines: list[bytes]) -> list[Classified]:
    return [classify(line) for line in corpus_lines]


@pytest.fixture(scope="session")
def ours(corpus_lines: list[bytes], corpus_path: Path) -> list[bytes]:
    out = run_jcs_lines(corpus_path)
    check_alignment(corpus_lines, out, "concordia jcs --lines FILE")
    return out
