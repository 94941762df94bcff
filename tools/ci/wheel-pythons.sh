#!/usr/bin/env bash
# The wheel's CPython floor, checked as users meet it: for every CPython found on this
# machine (python3 on PATH, python3.N on PATH, pyenv's versions), a fresh virtualenv, then
# `pip install` of the wheel alone (no index, no dependencies):
#   * 3.10 and later: it installs, imports, and canonicalizes and hashes a document;
#   * older: pip refuses it (the abi3 tag and requires-python say 3.10), so no user gets a
#     wheel that fails at import.
# At least one 3.10+ interpreter must be found.
#
#   tools/ci/wheel-pythons.sh target/wheels/concordia_rs-0.1.0-cp310-abi3-manylinux2014_x86_64.manylinux_2_17_x86_64.whl
set -euo pipefail

wheel=${1:?usage: tools/ci/wheel-pythons.sh WHEEL}
[[ -f $wheel ]] || { echo "wheel-pythons.sh: no wheel at $wheel" >&2; exit 2; }

candidates=()
for name in python3 python3.9 python3.10 python3.11 python3.12 python3.13 python3.14; do
    p="$(command -v "$name" || true)"
    [[ -n $p ]] && candidates+=("$p")
done
pyenv_root="${PYENV_ROOT:-$HOME/.pyenv}"
for p in "$pyenv_root"/versions/3.*/bin/python3; do
    [[ -x $p ]] && candidates+=("$p")
done

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
declare -A seen=()
ok=0
refused=0
for p in "${candidates[@]}"; do
    # The interpreter itself (a pyenv shim or a symlink names another's executable).
    real="$("$p" -c 'import os, sys; print(os.path.realpath(sys.executable))' 2>/dev/null)" || continue
    [[ -n ${seen[$real]:-} ]] && continue
    seen[$real]=1
    version="$("$p" -c 'import sys; print("%d.%d.%d" % sys.version_info[:3])')"
    minor="$("$p" -c 'import sys; print(sys.version_info[1])')"
    "$p" -c 'import venv, ensurepip' 2>/dev/null || { echo "==> CPython $version ($p): no venv module, not tried"; continue; }
    venv="$work/py-$version"
    "$p" -m venv "$venv" >/dev/null
    if ((minor >= 10)); then
        "$venv/bin/python" -m pip install --quiet --no-index --no-deps "$wheel"
        "$venv/bin/python" - <<'PY'
import concordia_rs, hashlib
out = concordia_rs.canonical_json({"b": [1, 2.5, "\u00e9"], "a": None})
assert out == b'{"a":null,"b":[1,2.5,"\xc3\xa9"]}', out
PY
        echo "==> CPython $version ($real): the wheel installs and imports"
        ok=$((ok + 1))
    else
        if "$venv/bin/python" -m pip install --quiet --no-index --no-deps "$wheel" >"$work/pip.log" 2>&1; then
            echo "wheel-pythons.sh: pip installed the wheel on CPython $version, below its floor" >&2
            exit 1
        fi
        echo "==> CPython $version ($real): pip refuses the wheel ($(grep -m1 -oE 'not a supported wheel|requires a different Python[^;]*' "$work/pip.log" || echo refused))"
        refused=$((refused + 1))
    fi
done
((ok > 0)) || { echo "wheel-pythons.sh: no CPython 3.10+ found to install the wheel into" >&2; exit 1; }
echo "==> wheel-pythons.sh: installed on $ok CPython(s) 3.10+, refused by $refused older one(s)"
