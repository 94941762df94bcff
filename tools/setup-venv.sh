#!/usr/bin/env bash
# Create (or refresh) the Python test environment at <repo>/.venv.
# Idempotent: re-running only installs what tests-py/requirements.txt pins and
# the venv lacks. Quiet unless something fails.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
venv="$root/.venv"
req="$root/tests-py/requirements.txt"
stamp="$venv/.requirements.installed"
python="${PYTHON:-python3}"

if [[ ! -x "$venv/bin/python" ]]; then
    "$python" -m venv "$venv"
fi

# Skip pip entirely when the pins are unchanged since the last install.
if [[ -f "$stamp" ]] && cmp -s "$req" "$stamp"; then
    exit 0
fi

export PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_INPUT=1
"$venv/bin/python" -m pip install --quiet --requirement "$req"
cp "$req" "$stamp"
echo "setup-venv: installed $(grep -cvE '^\s*(#|$)' "$req") pinned packages into .venv"
