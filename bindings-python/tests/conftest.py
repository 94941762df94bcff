"""Shared fixtures for the concordia_rs tests (run against the installed wheel)."""

from __future__ import annotations

import os
import pathlib

import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def repo_root() -> pathlib.Path:
    return REPO


@pytest.fixture(scope="session")
def vectors_dir() -> pathlib.Path:
    return REPO / "conformance" / "vectors"


@pytest.fixture(scope="session")
def concordia_cli() -> pathlib.Path:
    """The release `concordia` binary (built by tools/ci/python.sh or .ci/run)."""
    path = pathlib.Path(os.environ.get("CONCORDIA_CLI", REPO / "target" / "release" / "concordia"))
    if not path.exists():
        pytest.fail(f"{path} not found: build it with `cargo build --release -p concordia-cli`")
    return path
