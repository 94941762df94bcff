#!/usr/bin/env bash
# Release builds of the Python package `concordia-rs` (bindings-python/): manylinux2014 wheels
# (glibc 2.17; one abi3 wheel per architecture covers CPython 3.10 and later) for x86_64 and
# aarch64, cross-compiled with maturin and zig, and the source distribution.
#
#   tools/build-wheels.sh [--out DIR] [--target x86_64|aarch64|all]
#
#   --out DIR     where the wheels and the sdist go (default: target/wheels)
#   --target T    which wheels: x86_64, aarch64 or all (default: all); the sdist is always built
#
# Needs: rustup and cargo, python3 with the venv module, the network the first time. The
# build tools (maturin, zig from PyPI's `ziglang`, auditwheel), pinned in
# bindings-python/requirements-wheels.txt, go into a virtualenv under the target directory
# (target/wheel-tools). A missing Rust target is added with `rustup target add`.
#
# The native module is built with the `wheel` cargo profile (release without debug info,
# stripped; see the workspace Cargo.toml). zig links against glibc 2.17 symbol versions, so
# the wheels run on any Linux with glibc 2.17 or later (RHEL/CentOS 7, Debian 9+, Ubuntu
# 18.04+, Amazon Linux 2); `auditwheel show` on each wheel says which tag it is consistent
# with (tools/ci/wheels.sh checks it).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

usage() {
    sed -n '6,9p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2
    exit 2
}

out="$root/target/wheels"
which=all
while (($#)); do
    case "$1" in
        --out) out="${2:?--out needs a directory}"; shift 2 ;;
        --out=*) out="${1#--out=}"; shift ;;
        --target) which="${2:?--target needs x86_64, aarch64 or all}"; shift 2 ;;
        --target=*) which="${1#--target=}"; shift ;;
        -h | --help) usage ;;
        *) echo "build-wheels.sh: unknown argument \`$1\`" >&2; usage ;;
    esac
done
case "$which" in
    x86_64 | aarch64) arches=("$which") ;;
    all) arches=(x86_64 aarch64) ;;
    *) echo "build-wheels.sh: --target must be x86_64, aarch64 or all, not \`$which\`" >&2; exit 2 ;;
esac
mkdir -p "$out"
out="$(cd "$out" && pwd)"

export PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_INPUT=1 PYTHONDONTWRITEBYTECODE=1

# The build tools, in their own virtualenv; pip runs only when the pins changed.
target_dir="${CARGO_TARGET_DIR:-$root/target}"
tools="$target_dir/wheel-tools"
req="$root/bindings-python/requirements-wheels.txt"
if [[ ! -x $tools/bin/python ]]; then
    echo "==> creating $tools (the wheel build tools)"
    "${PYTHON:-python3}" -m venv "$tools"
fi
if ! cmp -s "$req" "$tools/.installed" 2>/dev/null; then
    echo "==> installing $(grep -vcE '^\s*(#|$)' "$req") pinned build tools into $tools"
    "$tools/bin/python" -m pip install --quiet --requirement "$req"
    cp "$req" "$tools/.installed"
fi
# maturin finds zig as `python -m ziglang` of the first python on PATH.
export PATH="$tools/bin:$PATH"

installed_targets="$(rustup target list --installed)"
for arch in "${arches[@]}"; do
    triple="$arch-unknown-linux-gnu"
    if ! grep -qx "$triple" <<<"$installed_targets"; then
        echo "==> rustup target add $triple"
        rustup target add "$triple"
    fi
done

for arch in "${arches[@]}"; do
    triple="$arch-unknown-linux-gnu"
    rm -f "$out"/concordia_rs-*"_$arch.whl"
    echo "==> maturin build: manylinux2014 $arch ($triple, zig)"
    maturin build --locked --quiet --profile wheel --zig --compatibility manylinux2014 \
        --target "$triple" -m bindings-python/Cargo.toml -o "$out"
done

rm -f "$out"/concordia_rs-*.tar.gz
echo "==> maturin sdist"
maturin sdist -m bindings-python/Cargo.toml -o "$out" >/dev/null

echo "==> built into $out:"
for f in "$out"/concordia_rs-*; do
    printf '    %s (%s bytes)\n' "${f##*/}" "$(stat -c %s "$f")"
done
