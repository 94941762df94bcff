#!/usr/bin/env bash
# CI for the Python wheel `concordia-rs` (bindings-python/): build it with maturin, install
# it into a fresh virtualenv with the reference SDK (concordia-protocol==0.10.0), check the
# stubs, and run the tests: parity and interop with the SDK, the conformance suite through
# verify_profile, and the SDK's own test suite with concordia_rs.accelerate() active.
#
#   tools/ci/python.sh
#
# Idempotent; runs as root on a fresh Debian machine (CI=true, no stdin). Installs
# python3-venv with apt only when the venv module is missing.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"
started=$SECONDS
export PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_INPUT=1 PYTHONDONTWRITEBYTECODE=1

step() {
    echo "==> $*"
    "$@"
}

python="${PYTHON:-python3}"
if ! "$python" -c 'import venv, ensurepip' 2>/dev/null; then
    echo "==> python3 venv/ensurepip missing: installing python3-venv"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq python3-venv python3-pip
fi

# Build tools in the repository .venv (tools/setup-venv.sh), maturin pinned.
step tools/setup-venv.sh
build_req=bindings-python/tests/requirements-build.txt
if ! cmp -s "$build_req" .venv/.concordia-rs-build.installed 2>/dev/null; then
    step .venv/bin/python -m pip install --quiet --requirement "$build_req"
    cp "$build_req" .venv/.concordia-rs-build.installed
fi

# The release CLI: the conformance test compares its summary line with the Rust runner's.
step cargo build --locked --release -p concordia-cli

# The wheel (abi3, CPython >= 3.9), release profile.
wheels="$root/.cache/concordia-rs-wheels"
rm -rf "$wheels"
step .venv/bin/maturin build --locked --release --quiet -m bindings-python/Cargo.toml -i .venv/bin/python -o "$wheels"
wheel="$(ls "$wheels"/concordia_rs-*-abi3-*.whl)"

# A fresh virtualenv with the wheel and the pinned test dependencies.
venv="$root/.cache/concordia-rs-venv"
step "$python" -m venv --clear "$venv"
step "$venv/bin/python" -m pip install --quiet --requirement bindings-python/tests/requirements.txt "$wheel"

# The stubs match the native module.
(cd bindings-python && step "$venv/bin/python" -m mypy.stubtest concordia_rs._native)

# Parity, interop and conformance tests (run from outside the source tree so that the
# installed wheel is what gets imported).
export CONCORDIA_CLI="$root/target/release/concordia"
(cd "$root/bindings-python/tests" && step "$venv/bin/python" -m pytest -q -p no:cacheprovider .)

# The reference SDK's own tests (from its PyPI source distribution, never vendored), with
# accelerate() active; skips listed with reasons in bindings-python/tests/sdk_skips.txt.
runner="$(PYTHON="$root/.venv/bin/python" tools/fetch-reference-runner.sh | tail -n 1)"
sdk_dir="${runner%/conformance/reference-runner/runner.py}"
(cd "$sdk_dir" && PYTHONPATH="$root/bindings-python/tests" \
    step "$venv/bin/python" -m pytest -q -p no:cacheprovider -p sdk_plugin tests -rs)

# The benchmark runs (smoke: a few calls each; `bench.py` without --quick writes BENCHMARKS.md).
step "$venv/bin/python" bindings-python/bench/bench.py --quick

echo "==> tools/ci/python.sh passed in $((SECONDS - started))s"
