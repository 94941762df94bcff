#!/usr/bin/env bash
# CI for the Python wheel `concordia-rs` (bindings-python/): build the release wheels and
# the sdist and check them as users install them (tools/ci/wheels.sh), install the x86_64
# manylinux2014 wheel into a fresh virtualenv with the reference SDK
# (concordia-protocol==0.10.0), check the stubs (stubtest, names both ways, mypy --strict,
# docstrings), and run the tests: parity and interop with the SDK, the conformance suite
# through verify_profile, and the SDK's own test suite with concordia_rs.accelerate() active.
#
#   tools/ci/python.sh
#
# Idempotent; runs as root on a fresh Debian machine (CI=true, no stdin). Installs
# python3-venv with apt only when the venv module is missing.
set -euo pipefail
# shellcheck source=tools/ci/python-env.sh
source "$(dirname "${BASH_SOURCE[0]}")/python-env.sh"

# The release CLI: the conformance test compares its summary line with the Rust runner's.
step cargo build --locked --release -p concordia-cli

# The release wheels (abi3, CPython >= 3.10; manylinux2014 x86_64 and aarch64, stripped)
# and the sdist, built by tools/build-wheels.sh and checked by tools/ci/wheels.sh: auditwheel
# tags and sizes, every CPython here (3.10+ import, older ones refuse it), aarch64 under
# qemu-user, glibc 2.31 in a Debian bullseye root, the sdist built by pip. The tests below
# run on the x86_64 wheel users get.
wheels="$root/.cache/concordia-rs-wheels"
rm -rf "$wheels"
step tools/ci/wheels.sh --out "$wheels"
wheel="$(ls "$wheels"/concordia_rs-*-abi3-manylinux*_x86_64.whl)"

# A fresh virtualenv with the wheel and the pinned test dependencies.
venv="$root/.cache/concordia-rs-venv"
step "$python" -m venv --clear "$venv"
step "$venv/bin/python" -m pip install --quiet --requirement bindings-python/tests/requirements.txt "$wheel"

# The stubs match the native module: stubtest checks the signatures of what they declare
# (strict mypy settings; the allowlist, for what stubtest cannot see, is empty);
# stub_names.py that no public name or class member is missing on either side (stubtest
# looks only at `__all__` when a module has one); mypy --strict that the package's own
# Python code agrees with the stubs; doc_links.py that no Rust intra-doc link reached a
# docstring (help()).
(cd bindings-python && step "$venv/bin/python" -m mypy.stubtest --mypy-config-file tests/mypy.ini \
    --allowlist tests/stubtest-allowlist.txt concordia_rs._native concordia_rs.consensus concordia_rs.aip)
(cd bindings-python && step "$venv/bin/python" "$root/tools/ci/stub_names.py" python/concordia_rs)
(cd bindings-python/tests && step "$venv/bin/python" -m mypy --config-file mypy.ini -p concordia_rs)
step "$venv/bin/python" tools/ci/doc_links.py --python-module concordia_rs

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
