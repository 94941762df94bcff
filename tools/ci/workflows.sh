#!/usr/bin/env bash
# The GitHub Actions workflows (.github/workflows/ci.yml and release.yml) are valid:
# actionlint checks their syntax, job graph (`needs`), expressions and their types, action
# inputs and runtimes, and, through shellcheck, the shell of every `run:` step. The
# workflows cannot run here; everything they run is a repository script that does
# (.ci/run, tools/ci/bootstrap-debian.sh, tools/ci/tag-version.sh, tools/build-wheels.sh,
# tools/install-c.sh, tools/ci/js.sh, tools/build-jar.sh, tools/ci/package.sh), except the
# macOS and Windows wheel steps (maturin on those runners), the xcframework
# (bindings-swift/build-xcframework.sh needs macOS with Xcode) and the publishing actions.
#
#   tools/ci/workflows.sh
#
# Installs the pinned linter (tools/ci/requirements-lint.txt) into .venv, and shellcheck
# with apt-get when run as root (otherwise it names the line to run). Before linting the
# workflows it lints a broken one and requires a failure, so a linter that checks nothing
# cannot pass. Part of tools/test.sh's readme part.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"
# shellcheck source=tools/ci/apt.sh
. tools/ci/apt.sh
export PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_INPUT=1

step() {
    echo "==> $*"
    "$@"
}

step tools/setup-venv.sh
req=tools/ci/requirements-lint.txt
if ! cmp -s "$req" .venv/.lint.installed 2>/dev/null; then
    step .venv/bin/python -m pip install --quiet --requirement "$req"
    cp "$req" .venv/.lint.installed
fi
actionlint=.venv/bin/actionlint

command -v shellcheck >/dev/null || apt_install "actionlint's checks of run: steps" shellcheck

# The linter must catch a broken workflow: an unknown job in `needs`, an undefined
# expression context and an unquoted variable in a run: step (shellcheck SC2086).
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
cat >"$scratch/broken.yml" <<'YAML'
on: push
jobs:
  a:
    needs: missing
    runs-on: ubuntu-latest
    steps:
      - run: echo ${{ nothing.here }} $FOO
YAML
if "$actionlint" -shellcheck="$(command -v shellcheck)" "$scratch/broken.yml" >"$scratch/out" 2>&1; then
    echo "tools/ci/workflows.sh: actionlint accepted a broken workflow" >&2
    exit 1
fi
for want in '"missing"' 'nothing' 'SC2086'; do
    grep -q -- "$want" "$scratch/out" || {
        echo "tools/ci/workflows.sh: actionlint did not report $want in the broken workflow:" >&2
        cat "$scratch/out" >&2
        exit 1
    }
done
echo "==> actionlint rejects a broken workflow (unknown needs, undefined context, SC2086)"

workflows=(.github/workflows/ci.yml .github/workflows/release.yml)
for w in "${workflows[@]}"; do
    [[ -f $w ]] || { echo "tools/ci/workflows.sh: $w is missing" >&2; exit 1; }
done
step "$actionlint" -version
step "$actionlint" -shellcheck="$(command -v shellcheck)" "${workflows[@]}"
# Every repository script the workflows run is in the repository.
missing=()
while read -r script; do
    [[ -f $script ]] || missing+=("$script")
done < <(grep -ohE '(bash )?(\.ci/run|(tools|bindings-[a-z]+)/[A-Za-z0-9_./-]+\.sh)' "${workflows[@]}" | sed 's/^bash //' | sort -u)
if ((${#missing[@]})); then
    echo "tools/ci/workflows.sh: the workflows run scripts that are not in the repository: ${missing[*]}" >&2
    exit 1
fi
echo "==> tools/ci/workflows.sh: ${#workflows[@]} workflows valid; every script they run is here"
