"""pytest plugin: run the reference SDK's own test suite with concordia_rs.accelerate()
active, skipping the tests listed (each with a reason) in sdk_skips.txt.

    pytest -p sdk_plugin <sdk-sdist>/tests      (with this folder on PYTHONPATH)

The summary line reports how many SDK functions were patched.
"""

from __future__ import annotations

import importlib
import pathlib
import pkgutil
from typing import Dict, List

import pytest

SKIP_FILE = pathlib.Path(__file__).with_name("sdk_skips.txt")
_patched: List[str] = []


def load_skips() -> Dict[str, str]:
    """`node-id-prefix  # reason` lines; every entry must carry a reason."""
    skips: Dict[str, str] = {}
    for n, raw in enumerate(SKIP_FILE.read_text(encoding="utf-8").splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        target, sep, reason = line.partition("#")
        if not sep or not reason.strip():
            raise pytest.UsageError(f"{SKIP_FILE.name}:{n}: skip entry without a reason: {raw!r}")
        skips[target.strip()] = reason.strip()
    return skips


def pytest_configure(config: pytest.Config) -> None:
    import concordia

    import concordia_rs

    # Load every SDK module first so that names imported from concordia.signing are
    # patched everywhere, not only in modules loaded later.
    for info in pkgutil.walk_packages(concordia.__path__, "concordia."):
        try:
            importlib.import_module(info.name)
        except Exception:  # noqa: BLE001 - optional modules (e.g. extras) may not import
            pass
    _patched[:] = concordia_rs.accelerate()
    if not _patched:
        raise pytest.UsageError("concordia_rs.accelerate() patched nothing")


def pytest_collection_modifyitems(config: pytest.Config, items: List[pytest.Item]) -> None:
    skips = load_skips()
    used = set()
    for item in items:
        rel = item.nodeid
        for target, reason in skips.items():
            if rel == target or rel.startswith(target + "::") or rel.startswith(target + "["):
                item.add_marker(pytest.mark.skip(reason=f"sdk_skips.txt: {reason}"))
                used.add(target)
                break
    config._concordia_unused_skips = sorted(set(skips) - used)  # type: ignore[attr-defined]


def pytest_terminal_summary(terminalreporter, exitstatus, config) -> None:  # type: ignore[no-untyped-def]
    import concordia.signing

    import concordia_rs

    assert getattr(concordia.signing.canonical_json, "__concordia_rs__", None) is concordia_rs.canonical_json
    terminalreporter.write_line(f"concordia_rs.accelerate(): {len(_patched)} SDK attributes patched for the whole run")
    unused = getattr(config, "_concordia_unused_skips", [])
    for u in unused:
        terminalreporter.write_line(f"sdk_skips.txt entry matched no test: {u}")
