# Shared set-up of the Python CI scripts (tools/ci/python.sh, tools/ci/verdict.sh), sourced
# by them: strict mode, the repository root as working directory, `step`, `$python`, the
# venv module (installed with apt when missing), and the repository .venv (tools/setup-venv.sh).
# The wheel build tools are tools/build-wheels.sh's own. Sets `root` and `started`.
# shellcheck shell=bash
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

step tools/setup-venv.sh
