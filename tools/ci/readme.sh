#!/usr/bin/env bash
# CI for README.md (issue 20): every transcript block (a fence whose first line starts with
# `$ `) runs in a scratch copy of examples/ with the release `concordia` on PATH, and what it
# prints must match what the README shows (`…` for variable text; the convention is in
# tools/ci/readme_check.py). Needs cargo and python3 (standard library only).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"
echo "==> cargo build --locked --release -p concordia-cli"
cargo build --locked --release -p concordia-cli
echo "==> tools/ci/readme_check.py README.md"
python3 tools/ci/readme_check.py README.md
