#!/usr/bin/env python3
"""The rule values of docs/limits.md are the core's constants, and no wrapper restates them.

1. Every row of docs/limits.md's table states a value and the core constant (or a small
   expression of constants) it is: the constants are read from the Rust source of
   concordia-core (`pub const NAME: T = EXPR;`, and the fields of `impl Default for Timing`)
   and the value must equal it.
2. The wrappers' docs (Rust doc comments of the C, Python, UniFFI and wasm crates, the Go
   doc comments, the C header, the Python stubs, index.d.ts, the wrappers' READMEs and the
   generated Swift/Kotlin bindings) name the rule and point at docs/limits.md: a line there
   that states one of these values next to the rule's words fails.
3. UniFFI's `Timing` record defaults (literals, an attribute cannot name a constant)
   equal the core's `Timing::default()`.
4. The user docs that do state values (README.md, SECURITY.md, docs/adr/) state the ones
   of the table: a time bound there (`N s` on a line about freshness or the window) that
   is no rule value fails, so a changed constant cannot leave a stale number behind.

    tools/ci/limits.py              # exit 1 with path:line for each problem
    tools/ci/limits.py --self-test  # the patterns flag known restatements and nothing else
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import ci_report

ROOT = Path(__file__).resolve().parents[2]
LIMITS = ROOT / "docs/limits.md"
CORE = ROOT / "core/src"

# The wrappers: (folder or file, suffixes); of source files only the comment lines.
WRAPPERS = [
    ("bindings-js/src", (".rs",)),
    ("bindings-js/index.d.ts", ()),
    ("bindings-js/README.md", ()),
    ("bindings-python/src", (".rs",)),
    ("bindings-python/python/concordia_rs", (".pyi", ".py")),
    ("bindings-python/README.md", ()),
    ("ffi-uniffi/src", (".rs",)),
    ("ffi-uniffi/bindings", (".kt",)),
    ("bindings-swift/Sources", (".swift",)),
    ("bindings-swift/README.md", ()),
    ("ffi-c/src", (".rs",)),
    ("ffi-c/go", (".go",)),
    ("ffi-c/README.md", ()),
    ("include/concordia.h", ()),
]
USER_DOCS = ["README.md", "SECURITY.md", "docs/adr"]
# Words of the time rules: a number of seconds next to them states a rule value.
RULE_WORDS = re.compile(
    r"created_?at|createdAt|replay|window|ahead|\bold\b|cold|guard|remember|kept|fresh|session|ttl|timing|default",
    re.I,
)
# The same for the user docs (prose: "a fresh machine" is no rule).
USER_RULE_WORDS = re.compile(r"created_?at|createdAt|replay window|ahead|cold.start|guard|freshness|\bold\b|session token", re.I)


def module_file(path: list[str]) -> Path:
    for p in (CORE.joinpath(*path).with_suffix(".rs"), CORE.joinpath(*path, "mod.rs")):
        if p.is_file():
            return p
    raise SystemExit(f"limits.py: no core module {'::'.join(path)}")


def rust_int(expr: str) -> int:
    expr = expr.replace("_", "")
    if not re.fullmatch(r"[\d\s*+\-()]+", expr):
        raise SystemExit(f"limits.py: cannot evaluate `{expr}`")
    return int(eval(expr, {"__builtins__": {}}))  # digits and operators only


def core_value(name: str) -> int:
    """`aip::replay::WINDOW`, `session::Timing::default().max_rounds`."""
    m = re.fullmatch(r"((?:\w+::)+)Timing::default\(\)\.(\w+)", name)
    if m:
        src = module_file(m.group(1).strip(":").split("::")).read_text()
        body = re.search(r"impl Default for Timing \{.*?Timing \{([^}]*)\}", src, re.S)
        fields = dict(re.findall(r"(\w+):\s*([\d_]+)", body.group(1))) if body else {}
        if m.group(2) not in fields:
            raise SystemExit(f"limits.py: no field {m.group(2)} in Timing::default()")
        return rust_int(fields[m.group(2)])
    *path, const = name.split("::")
    src = module_file(path).read_text()
    c = re.search(rf"^pub const {const}: \w+ = ([^;]+);", src, re.M)
    if not c:
        raise SystemExit(f"limits.py: no `pub const {const}` in {module_file(path).relative_to(ROOT)}")
    return rust_int(c.group(1))


UNITS = {"s": 1, "minutes": 60, "rounds": 1, "levels": 1}


def table() -> list[tuple[int, str, int, str]]:
    """(line, rule, stated value in base units, unit) of each row, checked against the core."""
    rows, problems = [], []
    for n, line in enumerate(LIMITS.read_text().splitlines(), 1):
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 3 or not cells[2].startswith("`") or cells[0] == "rule":
            continue
        rule, value, expr = cells
        v = re.fullmatch(r"([\d,]+) (\w+)", value)
        if not v or v.group(2) not in UNITS:
            problems.append(f"docs/limits.md:{n}: value `{value}` is not `<number> <{'|'.join(UNITS)}>`")
            continue
        stated = int(v.group(1).replace(",", "")) * UNITS[v.group(2)]
        names = re.findall(r"[\w:]+(?:\(\)\.\w+)?", expr.replace("`", ""))
        actual = sum(core_value(x) for x in names)  # a sum of constants at most
        if "+" in expr and expr.count("+") != len(names) - 1 or not names:
            problems.append(f"docs/limits.md:{n}: `{expr}` is not a sum of core constants")
        elif stated != actual:
            problems.append(f"docs/limits.md:{n}: states {value} for {expr}, the core has {actual}")
        rows.append((n, rule, stated, v.group(2)))
    if not rows:
        problems.append("docs/limits.md: no rule rows found")
    return rows, problems


def patterns(rows) -> list[re.Pattern]:
    """The spellings of each value a wrapper doc could restate."""
    out = []
    for _, rule, stated, unit in rows:
        if unit == "s" or unit == "minutes":
            n = stated
            digits = rf"{n:,}".replace(",", "[,_ ]?")
            out.append(re.compile(rf"(?<![\d.])({digits})\s?(s|secs?|seconds)\b"))
            if n % 60 == 0:
                out.append(re.compile(rf"(?<![\d.]){n // 60}\s?(min|mins|minutes)\b"))
            if n % 3600 == 0:
                out.append(re.compile(rf"(?<![\d.]){n // 3600}\s?(h|hours?)\b"))
            # A bare number of seconds on a line about the time rules (`capacity / 600`).
            out.append(re.compile(rf"(?<![\w.])({digits})(?![\w.])(?=.*)"))
        elif unit == "rounds":
            out.append(re.compile(rf"(?<![\d.]){stated}\s?rounds\b"))
        elif unit == "levels":
            out.append(re.compile(rf"(?<![\d.]){stated}\s?(nesting |nested )?(levels|containers|deep)\b|depth \({stated}\)"))
    return out


def comment(line: str, suffix: str) -> bool:
    """Of source files only the comment lines are docs (`86400` in code is a default value)."""
    s = line.lstrip()
    if suffix not in (".rs", ".go", ".swift", ".kt", ".h"):
        return True
    return s.startswith(("//", "/*")) or (s.startswith("*") and not s.startswith("*/"))


def files(entry: str, suffixes) -> list[Path]:
    p = ROOT / entry
    if p.is_file():
        return [p]
    return sorted(f for f in p.rglob("*") if f.suffix in suffixes and not f.name.endswith("_test.go"))


def wrappers(rows) -> list[str]:
    pats = patterns(rows)
    bare = {p for p in pats if p.pattern.endswith("(?=.*)")}
    problems = []
    for entry, suffixes in WRAPPERS:
        for f in files(entry, suffixes):
            for n, line in enumerate(f.read_text(encoding="utf-8").splitlines(), 1):
                if not comment(line, f.suffix):
                    continue
                for p in pats:
                    m = p.search(line)
                    if m and (p not in bare or RULE_WORDS.search(line)):
                        problems.append(
                            f"{f.relative_to(ROOT)}:{n}: restates a rule value ({m.group(0).strip()}): "
                            "name the rule and refer to docs/limits.md"
                        )
                        break
    return problems


def user_docs(rows) -> list[str]:
    seconds = {stated for _, _, stated, unit in rows if unit in ("s", "minutes")}
    problems = []
    for entry in USER_DOCS:
        for f in files(entry, (".md",)):
            for n, line in enumerate(f.read_text(encoding="utf-8").splitlines(), 1):
                if not USER_RULE_WORDS.search(line):
                    continue
                for m in re.finditer(r"(?<![\d.,])(\d[\d,]*)\s?s\b", line):
                    if int(m.group(1).replace(",", "")) not in seconds:
                        problems.append(f"{f.relative_to(ROOT)}:{n}: {m.group(0)} is no rule value of docs/limits.md")
    return problems


def self_test() -> int:
    """The checks fail where they must: restated values, a stale user-doc number, a wrong row."""
    rows, _ = table()
    pats = patterns(rows)
    bare = {p for p in pats if p.pattern.endswith("(?=.*)")}

    def flagged(line: str) -> bool:
        return any(p.search(line) and (p not in bare or RULE_WORDS.search(line)) for p in pats)

    must = [
        "/// remembers message ids for 600 s and", "created_at at most 300 seconds ahead",
        "until `now + 900 s`", "a session token lives 20 minutes", "(`None`: 86400 s, 3600 s, 20 rounds)",
        "defaults 86400, 3600, 20", "capacity / 600 is the rate the window accepts", "128 nesting levels",
        "containers nested deeper than the maximum depth (128)", "default timing (24 h, 1 h, 20 rounds)",
    ]
    must_not = ["remembers ids for `WINDOW` (docs/limits.md)", "a 600-byte buffer", "took 60 s", "line 300 of the file"]
    bad = [f"not flagged: {x}" for x in must if not flagged(x)] + [f"flagged: {x}" for x in must_not if flagged(x)]
    seconds = {stated for _, _, stated, unit in rows if unit in ("s", "minutes")}
    if 700 in seconds or 600 not in seconds:
        bad.append("the table's seconds are not the core's")
    for b in bad:
        print(f"limits.py --self-test: {b}")
    if not bad:
        print(f"limits.py --self-test: {len(must)} restatements flagged, {len(must_not)} other numbers not")
    return 1 if bad else 0


def uniffi_defaults() -> list[str]:
    """UniFFI's record defaults must be literals: those of its `Timing` are the core's."""
    path = ROOT / "ffi-uniffi/src/session.rs"
    body = re.search(r"pub struct Timing \{(.*?)\n\}", path.read_text(encoding="utf-8"), re.S)
    fields = re.findall(r"#\[uniffi\(default = ([\d_]+)\)\]\s*pub (\w+):", body.group(1)) if body else []
    if len(fields) != 3:
        return [f"{path.relative_to(ROOT)}: expected the 3 defaults of the Timing record, found {len(fields)}"]
    out = []
    for value, field in fields:
        core = core_value(f"session::Timing::default().{field}")
        if rust_int(value) != core:
            out.append(f"{path.relative_to(ROOT)}: Timing.{field} defaults to {value}, the core's Timing::default() to {core}")
    return out


def main() -> int:
    if sys.argv[1:] == ["--self-test"]:
        return self_test()
    rows, problems = table()
    problems += wrappers(rows) + user_docs(rows) + uniffi_defaults()
    return ci_report.finish(
        "limits.py",
        problems,
        failed=f"{len(problems)} problems",
        passed=f"{len(rows)} rule values of docs/limits.md equal the core's constants; no wrapper restates them",
    )


if __name__ == "__main__":
    sys.exit(main())
