#!/usr/bin/env python3
"""Every public name of the wheel's modules is in its stub, and every stub name exists.

mypy's stubtest (tools/ci/python.sh) checks the signatures of what a stub declares and,
when a module has `__all__`, only the names listed there: a runtime name missing from both
`__all__` and the stub, or a class attribute it does not report, would pass. This check
compares the names themselves, both ways, from the installed wheel:

* each native module (`concordia_rs._native`, `concordia_rs.aip`, `concordia_rs.consensus`):
  its public attributes (`dir()`, no leading `_`) against the stub's public top-level names
  (classes, functions, constants, re-exports), and its `__all__` against the stub's;
* each class of those modules: the attributes it defines itself (`vars()`) against the
  class body of the stub (methods, properties, class attributes);
* the package `concordia_rs` (pure Python, typed by its own source): every `__all__` name
  exists, and every public name it takes from a native module is in `__all__`.

    python stub_names.py STUB_DIR     # STUB_DIR: bindings-python/python/concordia_rs
"""

from __future__ import annotations

import ast
import importlib
import inspect
import sys
from pathlib import Path

MODULES = {"concordia_rs._native": "_native.pyi", "concordia_rs.aip": "aip.pyi", "concordia_rs.consensus": "consensus.pyi"}
# Stub-only typing helpers (aliases and protocols the runtime cannot have) start with `_`.


def public(names) -> set[str]:
    return {n for n in names if not n.startswith("_")}


def stub_names(body: list[ast.stmt]) -> set[str]:
    names: set[str] = set()
    for node in body:
        if isinstance(node, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            names.add(node.name)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
        elif isinstance(node, ast.Assign):
            names |= {t.id for t in node.targets if isinstance(t, ast.Name)}
        elif isinstance(node, ast.ImportFrom):
            # Only the explicit re-exports of a stub (`import X as X`) are its names.
            names |= {a.asname for a in node.names if a.asname is not None and a.asname == a.name}
        elif isinstance(node, ast.If):  # sys.version_info branches
            names |= stub_names(node.body) | stub_names(node.orelse)
    return public(names)


def stub_all(tree: ast.Module) -> set[str] | None:
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets):
            return set(ast.literal_eval(node.value))
    return None


def compare(what: str, runtime: set[str], stub: set[str]) -> list[str]:
    out = [f"{what}.{n}: at runtime, not in the stub" for n in sorted(runtime - stub)]
    out += [f"{what}.{n}: in the stub, not at runtime" for n in sorted(stub - runtime)]
    return out


def check_module(name: str, stub_path: Path) -> list[str]:
    mod = importlib.import_module(name)
    tree = ast.parse(stub_path.read_text(encoding="utf-8"))
    problems = compare(name, public(dir(mod)), stub_names(tree.body))
    runtime_all = getattr(mod, "__all__", None)
    declared_all = stub_all(tree)
    if runtime_all is not None or declared_all is not None:
        problems += compare(f"{name}.__all__", set(runtime_all or ()), declared_all or set())
    classes = {n.name: n for n in tree.body if isinstance(n, ast.ClassDef)}

    def declared(cname: str) -> set[str]:
        """The class body's names and those of its bases declared in the same stub."""
        node = classes[cname]
        names = stub_names(node.body)
        for b in node.bases:
            if isinstance(b, ast.Name) and b.id in classes:
                names |= declared(b.id)
        return names

    for cname, node in classes.items():
        cls = getattr(mod, cname, None)
        if not inspect.isclass(cls):
            continue
        # A name the class defines itself must be declared on it or on a stubbed base; a
        # name the stub gives the class must exist on it (own or inherited).
        problems += [f"{name}.{cname}.{n}: at runtime, not in the stub" for n in sorted(public(vars(cls)) - declared(cname))]
        problems += [f"{name}.{cname}.{n}: in the stub, not at runtime" for n in sorted(stub_names(node.body) - set(dir(cls)))]
    return problems


def check_package(stub_dir: Path) -> list[str]:
    pkg = importlib.import_module("concordia_rs")
    problems = [f"concordia_rs.__all__: {n} does not exist" for n in pkg.__all__ if not hasattr(pkg, n)]
    native = {m: importlib.import_module(m) for m in MODULES}
    for n in public(dir(pkg)):
        v = getattr(pkg, n)
        from_native = any(getattr(m, n, object()) is v for m in native.values()) or (
            inspect.ismodule(v) and v.__name__ in MODULES
        )
        if from_native and n not in pkg.__all__:
            problems.append(f"concordia_rs.{n}: taken from the native module but not in __all__")
    return problems


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print(__doc__, file=sys.stderr)
        return 2
    stub_dir = Path(argv[0])
    problems = [p for m, f in MODULES.items() for p in check_module(m, stub_dir / f)]
    problems += check_package(stub_dir)
    for p in problems:
        print(p)
    if problems:
        print(f"stub_names.py: {len(problems)} differences between the stubs and the runtime", file=sys.stderr)
        return 1
    counted = sum(len(public(dir(importlib.import_module(m)))) for m in MODULES)
    print(f"stub_names.py: the stubs declare exactly the {counted} public names of {len(MODULES)} native modules, and their classes' members")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
