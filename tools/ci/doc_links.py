#!/usr/bin/env python3
"""Rust intra-doc link syntax must not reach the generated Swift, Kotlin and Python docs.

UniFFI copies the `///` doc comments of ffi-uniffi's exports into the Swift, Kotlin and
Python bindings, PyO3 makes the wheel's docstrings (`help()`) of bindings-python's, and
wasm-bindgen copies bindings-js's into its TypeScript: there a link such as
``[`KeyPair`]``, ``[`restore`](AipReplayWindow::restore)`` or ``[crate::aip::open]``
resolves to nothing and shows its brackets. Wrapper docs name items in plain code spans.

    doc_links.py --sources                # the wrappers' Rust doc comments, stubs, index.d.ts
    doc_links.py FILE_OR_DIR...           # generated bindings (doc comments, docstrings)
    doc_links.py --python-module MODULE   # the docstrings of an importable module, recursively
    doc_links.py --fix FILE...            # rewrite the links of Rust `///` lines as plain text
    doc_links.py --self-test              # the patterns flag known links and nothing else

Exit status 1 lists every hit as path:line: text.
"""

from __future__ import annotations

import importlib
import inspect
import re
import sys
from pathlib import Path

import ci_report

ROOT = Path(__file__).resolve().parents[2]
# The crates whose doc comments a generator copies, and the hand-written declarations.
SOURCE_DIRS = ("ffi-uniffi/src", "bindings-python/src", "bindings-js/src")
SOURCE_FILES = ("bindings-js/index.d.ts",)
SOURCE_GLOBS = (("bindings-python/python/concordia_rs", "*.pyi"),)

_PATH = r"[A-Za-z_][A-Za-z0-9_]*(?:::[A-Za-z0-9_]+)*(?:\(\))?!?"
# [`x`](path) / [x](path) with a Rust path as target (URLs, anchors and files are not).
INLINE = re.compile(r"\[(`?)([^\]\n]+?)\1\]\((" + _PATH + r")\)")
# [`x`] not followed by a link target: rustdoc's shortcut link.
CODE = re.compile(r"\[`([^`\]\n]+)`\](?![(\[])(?!:\s+\S+\s*$)")
# [crate::x] / [Type::method]: a bare path with `::`.
BARE_PATH = re.compile(r"(?<![\w\]`])\[(" + r"[A-Za-z_][A-Za-z0-9_]*(?:::[A-Za-z0-9_]+)+" + r")\](?![(\[])(?!:\s+\S+\s*$)")
# `[x]: path` reference definitions.
REFDEF = re.compile(r"^\s*\[[^\]]+\]:\s+(?:crate|super|self|Self)?::?" + _PATH + r"\s*$")


def hits(text: str) -> list[str]:
    found = []
    for rx in (INLINE, CODE, BARE_PATH):
        found += [m.group(0) for m in rx.finditer(text)]
    if REFDEF.match(text):
        found.append(text.strip())
    return found


def rust_doc_lines(path: Path):
    """(line number, text) of the `///` and `#[doc = ...]` lines outside code fences."""
    fence = False
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        s = line.strip()
        if not s.startswith("///"):
            if s.startswith("#[doc") or s.startswith('#[pyo3(text_signature'):
                yield n, s
            continue
        body = s[3:].strip()
        if body.startswith("```"):
            fence = not fence
            continue
        if not fence:
            yield n, body


def comment_lines(path: Path):
    """Doc comment lines of a generated Swift/Kotlin/TypeScript file; every line of others."""
    text = path.read_text(encoding="utf-8", errors="replace").splitlines()
    code_comment = path.suffix in (".swift", ".kt", ".ts", ".h")
    for n, line in enumerate(text, 1):
        s = line.strip()
        if code_comment and not s.startswith(("*", "/**", "///", "//")):
            continue
        yield n, line


def scan(lines, where: str) -> list[str]:
    return [f"{where}:{n}: {h}" for n, t in lines for h in hits(t)]


def sources() -> list[str]:
    out = []
    for d in SOURCE_DIRS:
        for p in sorted((ROOT / d).rglob("*.rs")):
            out += scan(rust_doc_lines(p), str(p.relative_to(ROOT)))
    files = [ROOT / f for f in SOURCE_FILES]
    for d, g in SOURCE_GLOBS:
        files += sorted((ROOT / d).glob(g))
    for p in files:
        out += scan(comment_lines(p), str(p.relative_to(ROOT)))
    return out


def generated(paths: list[str]) -> list[str]:
    out = []
    for arg in paths:
        p = Path(arg)
        files = sorted(f for f in p.rglob("*") if f.is_file()) if p.is_dir() else [p]
        for f in files:
            if f.suffix in (".swift", ".kt", ".py", ".ts", ".h", ".pyi"):
                out += scan(comment_lines(f), str(f))
    return out


def python_module(name: str) -> list[str]:
    out, seen = [], set()

    def walk(obj, qual: str) -> None:
        if id(obj) in seen:
            return
        seen.add(id(obj))
        doc = obj.__doc__ if isinstance(getattr(obj, "__doc__", None), str) else None
        if doc:
            out.extend(scan(enumerate(doc.splitlines(), 1), qual))
        if inspect.ismodule(obj) or inspect.isclass(obj):
            for k, v in vars(obj).items():
                if k.startswith("__") and k != "__init__":
                    continue
                mod = getattr(v, "__module__", None) or ""
                if inspect.ismodule(v) and not v.__name__.startswith(name):
                    continue
                if (inspect.isclass(v) or inspect.isfunction(v)) and not mod.startswith(name):
                    continue  # imported from elsewhere (typing, datetime, ...)
                if callable(v) or inspect.ismodule(v) or inspect.isgetsetdescriptor(v) or isinstance(v, (property, staticmethod, classmethod)):
                    walk(v, f"{qual}.{k}")

    walk(importlib.import_module(name), name)
    return out


def fix(paths: list[str]) -> None:
    def plain(m: re.Match) -> str:
        tick, text = m.group(1), m.group(2)
        return f"`{text}`" if tick else text

    for arg in paths:
        p = Path(arg)
        lines = p.read_text(encoding="utf-8").splitlines(keepends=True)
        for i, line in enumerate(lines):
            if line.lstrip().startswith("///"):
                line = INLINE.sub(plain, line)
                line = CODE.sub(lambda m: f"`{m.group(1)}`", line)
                line = BARE_PATH.sub(lambda m: f"`{m.group(1)}`", line)
                lines[i] = line
        p.write_text("".join(lines), encoding="utf-8")


def self_test() -> int:
    must = ["As [`aip_open`].", "see [`restore`](AipReplayWindow::restore)", "[`x`](crate::a::b)",
            "through [crate::aip::open] now", "a [link](Self::method)", "[`KeyPair`]: crate::KeyPair"]
    must_not = ["`KeyPair` in code", "[RFC 8785](https://www.rfc-editor.org/rfc/rfc8785)", "list[str]",
                "Optional[KeyPair]", "[0, 1]", "[docs](../docs/limits.md)", "-> [String]"]
    bad = [f"not flagged: {x}" for x in must if not hits(x)] + [f"flagged: {x}" for x in must_not if hits(x)]
    fixed = INLINE.sub(lambda m: f"`{m.group(2)}`" if m.group(1) else m.group(2), "/// [`a`](B::a) and [c](D)")
    if fixed != "/// `a` and c":
        bad.append(f"--fix gives {fixed!r}")
    for b in bad:
        print(f"doc_links.py --self-test: {b}")
    if not bad:
        print(f"doc_links.py --self-test: {len(must)} links flagged, {len(must_not)} other brackets not")
    return 1 if bad else 0


def main(argv: list[str]) -> int:
    if argv[:1] == ["--self-test"]:
        return self_test()
    if argv[:1] == ["--fix"]:
        fix(argv[1:])
        return 0
    if argv[:1] == ["--sources"]:
        found, what = sources(), "the wrappers' doc sources"
    elif argv[:1] == ["--python-module"] and len(argv) == 2:
        found, what = python_module(argv[1]), f"the docstrings of {argv[1]}"
    elif argv:
        found, what = generated(argv), " ".join(argv)
    else:
        print(__doc__, file=sys.stderr)
        return 2
    return ci_report.finish(
        "doc_links.py",
        found,
        failed=f"{len(found)} Rust intra-doc links in {what}: write them as plain `code` text",
        passed=f"no Rust intra-doc links in {what}",
    )


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
