#!/usr/bin/env bash
# The project's test command (README: "run all the tests"):
#   1. the Rust tests of the workspace (core, CLI, conformance runner, C ABI crate);
#   2. the Python tests in tests-py/: canonical JSON against rfc8785, the reference SDK and
#      V8; interop with the reference SDK; the conformance suite against the reference
#      runner on thousands of new mutations;
#   3. each wrapper's own test script in tools/ci/ (C and Go, the Python wheel, UniFFI),
#      which installs what a fresh machine lacks.
# Set CONCORDIA_TEST_ONLY=rust|python|wrappers to run one part.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

step() {
    echo "==> $*"
    "$@"
}

rust_tests() {
    step cargo test --locked --workspace
    # `small` (the embedded feature) takes other code paths: merge sort only, one writer.
    step cargo test --locked -p concordia-core --features small
}

build_cli() {
    step cargo build --locked --release -p concordia-cli
}

python_tests() {
    step tools/setup-venv.sh
    # No bytecode or pytest cache left in the work tree.
    PYTHONDONTWRITEBYTECODE=1 step .venv/bin/pytest -q -p no:cacheprovider tests-py
}

wrapper_tests() {
    local script
    for script in tools/ci/ffi-c.sh tools/ci/python.sh tools/ci/uniffi.sh; do
        if [[ -x $script ]]; then
            step "$script"
        fi
    done
}

part="${CONCORDIA_TEST_ONLY:-all}"
if [[ $part == all || $part == rust ]]; then rust_tests; fi
if [[ $part == all || $part == python ]]; then build_cli; python_tests; fi
if [[ $part == all || $part == wrappers ]]; then build_cli; wrapper_tests; fi
