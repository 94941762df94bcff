#!/usr/bin/env bash
# CI for the release artifacts of the Python package `concordia-rs`: builds them with
# tools/build-wheels.sh (manylinux2014 x86_64 and aarch64 wheels, the sdist) and checks them
# as users meet them:
#
#   tools/ci/wheels.sh [--out DIR]      (default DIR: target/wheels-ci)
#
# 1. each wheel: `auditwheel show` says it is consistent with manylinux_2_17_<arch> and its
#    file name carries that tag; the wheel and its native module are under 5 MB
#    (WHEEL_MAX_BYTES), the module has no debug sections and is an ELF of the wheel's
#    architecture;
# 2. the x86_64 wheel in a fresh virtualenv of every CPython here (tools/ci/wheel-pythons.sh:
#    3.10+ import and canonicalize, older ones refuse it);
# 3. the aarch64 wheel, under qemu-user: pip run by Debian bookworm's arm64 CPython 3.11
#    installs it (and refuses the x86_64 one), and that CPython imports it and canonicalizes
#    a document (qemu-aarch64-static -L ROOT; no binfmt_misc needed). The arm64 root is made
#    once with debootstrap's first stage (its packages unpacked with dpkg-deb) and cached in
#    $CONCORDIA_WHEELS_CACHE (default /var/cache/concordia-wheels);
# 4. the glibc floor: tools/ci/wheel-bullseye.sh (Debian 11, glibc 2.31);
# 5. the sdist: `pip install` builds it in a clean virtualenv (maturin from PyPI, as for any
#    user), and the installed module imports and canonicalizes outside the source tree.
#
# As root, installs what is missing with apt-get (debootstrap, qemu-user-static, binutils).
# Without root and those tools, steps 3 and 4 are skipped with a message saying so; CI runs as
# root, where nothing is skipped.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"
started=$SECONDS
export PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_INPUT=1 PYTHONDONTWRITEBYTECODE=1

out="$root/target/wheels-ci"
while (($#)); do
    case "$1" in
        --out) out="${2:?--out needs a directory}"; shift 2 ;;
        *) echo "usage: tools/ci/wheels.sh [--out DIR]" >&2; exit 2 ;;
    esac
done
max_bytes="${WHEEL_MAX_BYTES:-5000000}"
cache="${CONCORDIA_WHEELS_CACHE:-/var/cache/concordia-wheels}"
python="${PYTHON:-python3}"

step() {
    echo "==> $*"
    "$@"
}
timed() {
    local t=$SECONDS
    "$@"
    echo "==> ($* took $((SECONDS - t)) s)"
}

# Debian packages this script needs, installed when root.
need_apt=()
command -v readelf >/dev/null || need_apt+=(binutils)
command -v qemu-aarch64-static >/dev/null || need_apt+=(qemu-user-static)
command -v debootstrap >/dev/null || need_apt+=(debootstrap)
if ((${#need_apt[@]})) && [[ $(id -u) == 0 ]] && command -v apt-get >/dev/null; then
    echo "==> apt-get install ${need_apt[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get -o DPkg::Lock::Timeout=300 update -qq
    apt-get -o DPkg::Lock::Timeout=300 install -y -qq "${need_apt[@]}" >/dev/null
fi
command -v readelf >/dev/null || { echo "wheels.sh: readelf not found: apt-get install binutils" >&2; exit 2; }

timed step tools/build-wheels.sh --out "$out" --target all
tools="${CARGO_TARGET_DIR:-$root/target}/wheel-tools"

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# The document every import test canonicalizes, and its RFC 8785 form (an independent
# oracle: written out by hand, UTF-8 of U+00E9 and shortest number forms).
smoke='import concordia_rs, json
out = concordia_rs.canonical_json({"b": [1, 2.5, "\u00e9"], "a": None})
assert out == b"{\"a\":null,\"b\":[1,2.5,\"\xc3\xa9\"]}", out
assert json.loads(out) == {"a": None, "b": [1, 2.5, "\u00e9"]}
print("canonical_json ok:", out.decode())'

# 1. Tags, sizes, stripping, architecture.
declare -A wheel_of=()
for arch in x86_64 aarch64; do
    shopt -s nullglob
    found=("$out"/concordia_rs-*-cp310-abi3-*"_$arch.whl")
    shopt -u nullglob
    ((${#found[@]} == 1)) || { echo "wheels.sh: expected one $arch wheel in $out, found ${#found[@]}" >&2; exit 1; }
    wheel="${found[0]}"
    wheel_of[$arch]="$wheel"
    name="${wheel##*/}"
    echo "==> $name"
    [[ $name == *manylinux_2_17_$arch* ]] || { echo "wheels.sh: $name is not tagged manylinux_2_17_$arch" >&2; exit 1; }
    "$tools/bin/auditwheel" show "$wheel" >"$work/audit.txt"
    sed 's/^/    /' "$work/audit.txt"
    tag="$(tr -s ' \n' ' ' <"$work/audit.txt" | sed -n 's/.*is consistent with the following platform tag: "\([^"]*\)".*/\1/p')"
    [[ $tag == "manylinux_2_17_$arch" ]] || { echo "wheels.sh: auditwheel: $name is consistent with \`$tag\`, not manylinux_2_17_$arch" >&2; exit 1; }
    bytes="$(stat -c %s "$wheel")"
    rm -rf "$work/unpacked"
    "$python" -m zipfile -e "$wheel" "$work/unpacked"
    so="$(ls "$work"/unpacked/concordia_rs/_native*.so)"
    so_bytes="$(stat -c %s "$so")"
    echo "    wheel $bytes bytes, native module ${so##*/} $so_bytes bytes (limit $max_bytes each)"
    ((bytes < max_bytes && so_bytes < max_bytes)) || { echo "wheels.sh: $name or its native module is not under $max_bytes bytes" >&2; exit 1; }
    if readelf -S -W "$so" | grep -qE '\.debug_|\.symtab'; then
        echo "wheels.sh: the native module of $name is not stripped:" >&2
        readelf -S -W "$so" | grep -E '\.debug_|\.symtab' >&2
        exit 1
    fi
    machine="$(readelf -h "$so" | sed -n 's/^ *Machine: *//p')"
    case "$arch:$machine" in
        x86_64:*X86-64* | aarch64:AArch64) echo "    ELF machine: $machine, no debug sections or symbol table" ;;
        *) echo "wheels.sh: the native module of $name is an ELF for \`$machine\`" >&2; exit 1 ;;
    esac
done

# 2. Every CPython of this machine.
timed step tools/ci/wheel-pythons.sh "${wheel_of[x86_64]}"

# 3. aarch64 under qemu-user.
aarch64_smoke() {
    local arm_root="$cache/bookworm-arm64"
    if [[ ! -f $arm_root/.concordia-complete ]]; then
        if [[ $(id -u) != 0 ]] || ! command -v debootstrap >/dev/null; then
            echo "==> SKIPPED: the aarch64 import test needs root and debootstrap to make the arm64 root in $arm_root (CI runs it)"
            return 0
        fi
        echo "==> making the arm64 CPython root $arm_root (debootstrap --foreign, once)"
        rm -rf "$arm_root.tmp"
        mkdir -p "$cache"
        debootstrap --foreign --arch=arm64 --variant=minbase --include=python3 bookworm "$arm_root.tmp" \
            http://deb.debian.org/debian >"$cache/bookworm-arm64.log" 2>&1 ||
            { tail -n 20 "$cache/bookworm-arm64.log" >&2; exit 1; }
        # The first stage unpacks only the essential packages; the others (python3 and its
        # dependencies) wait in the apt cache for a second stage that needs arm64 execution.
        local deb
        for deb in "$arm_root.tmp"/var/cache/apt/archives/*.deb; do
            dpkg-deb -x "$deb" "$arm_root.tmp"
        done
        rm -f "$arm_root.tmp"/var/cache/apt/archives/*.deb
        touch "$arm_root.tmp/.concordia-complete"
        rm -rf "$arm_root"
        mv "$arm_root.tmp" "$arm_root"
    fi
    command -v qemu-aarch64-static >/dev/null || {
        echo "==> SKIPPED: the aarch64 import test needs qemu-aarch64-static (apt-get install qemu-user-static)"
        return 0
    }
    local py="$arm_root/usr/bin/python3"
    # pip (pure Python: the build tools' copy, alone on the path) run by the arm64 CPython, so
    # the tags it accepts are that interpreter's own: it installs the aarch64 wheel and
    # refuses the x86_64 one.
    mkdir -p "$work/pip-only"
    ln -s "$("$tools/bin/python" -c 'import os, pip; print(os.path.dirname(pip.__file__))')" "$work/pip-only/pip"
    arm_pip() {
        PYTHONPATH="$work/pip-only" PIP_ROOT_USER_ACTION=ignore qemu-aarch64-static -L "$arm_root" "$py" \
            -m pip install --no-index --no-deps --no-compile "$@"
    }
    echo "==> qemu-aarch64-static: pip of Debian bookworm's arm64 CPython installs the aarch64 wheel"
    arm_pip --quiet --target "$work/arm64-site" "${wheel_of[aarch64]}"
    if arm_pip --target "$work/arm64-x86" "${wheel_of[x86_64]}" >"$work/arm-pip.log" 2>&1; then
        echo "wheels.sh: pip on aarch64 installed the x86_64 wheel" >&2
        exit 1
    fi
    grep -q 'is not a supported wheel on this platform' "$work/arm-pip.log" || { cat "$work/arm-pip.log" >&2; exit 1; }
    echo "==> qemu-aarch64-static: and refuses the x86_64 wheel (not a supported wheel on this platform)"
    echo "==> qemu-aarch64-static: Debian bookworm's arm64 CPython imports the aarch64 wheel"
    PYTHONPATH="$work/arm64-site" qemu-aarch64-static -L "$arm_root" "$py" -c "$smoke
import platform, sys
assert platform.machine() == 'aarch64', platform.machine()
assert concordia_rs._native.__file__.startswith('$work/arm64-site/'), concordia_rs._native.__file__
print('aarch64: CPython %d.%d.%d' % sys.version_info[:3], platform.libc_ver())"
}
timed aarch64_smoke

# 4. The glibc floor.
timed step tools/ci/wheel-bullseye.sh "${wheel_of[x86_64]}"

# 5. The sdist, built by pip in a clean virtualenv. Its own target directory under target/
#    keeps a rebuild incremental.
sdist_install() {
    local sdist
    sdist="$(ls "$out"/concordia_rs-*.tar.gz)"
    echo "==> pip install ${sdist##*/} (a clean virtualenv; pip builds it with maturin)"
    "$python" -m venv "$work/sdist-venv"
    CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$root/target}/sdist-build" \
        "$work/sdist-venv/bin/python" -m pip install --quiet "$sdist"
    (cd "$work" && "$work/sdist-venv/bin/python" -c "$smoke
import os, concordia_rs
path = concordia_rs._native.__file__
assert path.startswith('$work/sdist-venv/'), path
print('sdist: installed', os.path.basename(path), os.path.getsize(path), 'bytes')
assert os.path.getsize(path) < $max_bytes")
}
timed sdist_install

echo "==> tools/ci/wheels.sh passed in $((SECONDS - started)) s"
