#!/usr/bin/env bash
# Fetch the Concordia reference runner (conformance/reference-runner/runner.py)
# from the concordia-protocol source distribution on PyPI, for the differential
# conformance test (tests-py/test_conformance_differential.py).
#
# The runner is downloaded at test time into a git-ignored cache and never
# vendored. Prints the absolute path of runner.py on stdout (last line).
#
#   tools/fetch-reference-runner.sh [CACHE_DIR]
#
# CACHE_DIR defaults to <repo>/.cache/reference-sdk. Idempotent: an already
# unpacked runner is reused without touching the network.
# Environment: REFERENCE_SDK_VERSION (default 0.10.0), PYTHON (default: the
# repo's .venv python if present, else python3; used for pip and unpacking).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
version="${REFERENCE_SDK_VERSION:-0.10.0}"
cache="${1:-$root/.cache/reference-sdk}"
if [[ -z "${PYTHON:-}" ]]; then
    if [[ -x "$root/.venv/bin/python" ]]; then PYTHON="$root/.venv/bin/python"; else PYTHON=python3; fi
fi

name="concordia_protocol-$version"
unpacked="$cache/$name"
runner="$unpacked/conformance/reference-runner/runner.py"

if [[ ! -f "$runner" ]]; then
    mkdir -p "$cache"
    sdist="$cache/$name.tar.gz"
    if [[ ! -f "$sdist" ]]; then
        export PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_INPUT=1
        # Source distribution only (--no-binary :all:), without dependencies: the
        # wheel does not ship the conformance runner.
        "$PYTHON" -m pip download --quiet --no-deps --no-binary :all: \
            "concordia-protocol==$version" -d "$cache" >&2
    fi
    if [[ ! -f "$sdist" ]]; then
        echo "fetch-reference-runner: $sdist not found after pip download" >&2
        exit 1
    fi
    # Unpack into a temporary directory first so an interrupted run never leaves
    # a half-unpacked tree that later runs would trust.
    tmp="$(mktemp -d "$cache/.unpack.XXXXXX")"
    trap 'rm -rf "$tmp"' EXIT
    "$PYTHON" - "$sdist" "$tmp" <<'PY'
import sys, tarfile
with tarfile.open(sys.argv[1]) as tar:
    try:
        tar.extractall(sys.argv[2], filter="data")
    except TypeError:  # Python without extraction filters
        tar.extractall(sys.argv[2])
PY
    if [[ ! -f "$tmp/$name/conformance/reference-runner/runner.py" ]]; then
        echo "fetch-reference-runner: $name has no conformance/reference-runner/runner.py" >&2
        exit 1
    fi
    rm -rf "$unpacked"
    mv "$tmp/$name" "$unpacked"
fi

echo "$runner"
