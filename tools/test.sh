#!/usr/bin/env bash
# The project's test command: Rust tests, the release CLI, then the Python
# differential tests (tests-py/) that compare `concordia jcs` against
# independent RFC 8785 implementations (rfc8785, the reference SDK, V8).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

step() {
    echo "==> $*"
    "$@"
}

rust_tests() {
    step cargo test --locked --workspace
}

build_cli() {
    step cargo build --locked --release -p concordia-cli
}

python_tests() {
    step tools/setup-venv.sh
    # No bytecode or pytest cache left in the work tree.
    PYTHONDONTWRITEBYTECODE=1 step .venv/bin/pytest -q -p no:cacheprovider tests-py
}

rust_tests
build_cli
python_tests
