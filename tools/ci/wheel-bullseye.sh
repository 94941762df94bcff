#!/usr/bin/env bash
# The x86_64 wheel's glibc floor, checked on a system older than the glibc 2.34 the plain
# build needed: a Debian 11 (bullseye, glibc 2.31) root made with debootstrap.
#
#   tools/ci/wheel-bullseye.sh target/wheels-ci/concordia_rs-0.1.0-cp310-abi3-manylinux2014_x86_64.manylinux_2_17_x86_64.whl
#
# Bullseye's system Python is 3.9, below the wheel's abi3 floor (3.10), so inside the root:
#   * a virtualenv of the system python3 (3.9): pip refuses the wheel (checked);
#   * a virtualenv of CPython 3.11 built inside the root by bullseye's own gcc against its
#     glibc 2.31 (the source is Debian bookworm's python3.11 source package, fetched with
#     `apt-get source`): pip installs the wheel, which imports and canonicalizes a
#     document there, with glibc 2.31 asserted at run time.
# Debian has no CPython 3.10+ built for glibc < 2.34 (bookworm's 3.11 needs 2.34+), and
# building one from Debian's own source inside the old root keeps everything from Debian's
# archive; the build runs once (a few minutes) and is cached with the root in
# $CONCORDIA_WHEELS_CACHE (default /var/cache/concordia-wheels/bullseye), rebuilt only when
# the recipe below changes.
#
# Needs root (debootstrap, chroot). Without root, or without debootstrap when not root, it
# says so and skips; as root it installs debootstrap with apt-get if missing.
set -euo pipefail

wheel=${1:?usage: tools/ci/wheel-bullseye.sh WHEEL}
[[ -f $wheel ]] || { echo "wheel-bullseye.sh: no wheel at $wheel" >&2; exit 2; }

if [[ $(id -u) != 0 ]]; then
    echo "==> SKIPPED: the bullseye (glibc 2.31) test needs root for debootstrap and chroot; run as root (CI does)"
    exit 0
fi
if ! command -v debootstrap >/dev/null; then
    if command -v apt-get >/dev/null; then
        echo "==> apt-get install debootstrap"
        DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=300 install -y -qq debootstrap >/dev/null
    else
        echo "==> SKIPPED: the bullseye (glibc 2.31) test needs debootstrap (not found, no apt-get)"
        exit 0
    fi
fi

cache="${CONCORDIA_WHEELS_CACHE:-/var/cache/concordia-wheels}"
broot="$cache/bullseye"
mirror=http://deb.debian.org/debian
# The recipe: a change here rebuilds the root.
packages=python3,python3-venv,gcc,make,libc6-dev,zlib1g-dev,libffi-dev,xz-utils
cpython_src=python3.11
prefix=/opt/cpython-${cpython_src#python}
recipe="bullseye minbase $packages; CPython from bookworm's $cpython_src source, configure --prefix=$prefix --with-ensurepip=no"
mkdir -p "$cache"

in_root() {
    env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 chroot "$1" /bin/sh -c "$2"
}

if [[ "$(cat "$broot/.concordia-recipe" 2>/dev/null)" != "$recipe" ]]; then
    t=$SECONDS
    tmp="$broot.tmp"
    rm -rf "$tmp"
    echo "==> debootstrap --variant=minbase bullseye $tmp (once; a few minutes)"
    debootstrap --variant=minbase --include="$packages" bullseye "$tmp" "$mirror" >"$cache/bullseye.log" 2>&1 ||
        { tail -n 20 "$cache/bullseye.log" >&2; exit 1; }
    rm -f "$tmp"/var/cache/apt/archives/*.deb
    echo "==> (debootstrap took $((SECONDS - t)) s)"

    # The CPython source: Debian bookworm's source package, through apt with a private
    # source list and state (the host's apt configuration is left alone); apt checks it
    # against the signed Release file.
    t=$SECONDS
    src="$cache/apt-src"
    rm -rf "$src"
    mkdir -p "$src/parts" "$src/lists/partial" "$src/cache" "$src/files"
    printf 'Types: deb-src\nURIs: %s\nSuites: bookworm\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' \
        "$mirror" >"$src/parts/bookworm-src.sources"
    apt_opts=(-o Dir::Etc::SourceList=/dev/null -o Dir::Etc::SourceParts="$src/parts"
        -o Dir::State::Lists="$src/lists" -o Dir::Cache="$src/cache" -o APT::Sandbox::User=root)
    apt-get "${apt_opts[@]}" update -qq
    (cd "$src/files" && apt-get "${apt_opts[@]}" source --download-only -qq "$cpython_src" >/dev/null)
    orig="$(ls "$src"/files/"${cpython_src}"_*.orig.tar.*)"
    mkdir -p "$tmp/opt/src"
    tar -xf "$orig" -C "$tmp/opt/src"
    srcdir="$(cd "$tmp/opt/src" && ls -d Python-3.*)"
    echo "==> building $srcdir inside the root with bullseye's gcc (once)"
    if ! in_root "$tmp" "cd /opt/src/$srcdir && ./configure --prefix=$prefix --with-ensurepip=no >/opt/src/build.log 2>&1 &&
            make -j\"\$(nproc)\" >>/opt/src/build.log 2>&1 && make install >>/opt/src/build.log 2>&1"; then
        tail -n 30 "$tmp/opt/src/build.log" >&2
        exit 1
    fi
    rm -rf "$tmp/opt/src/$srcdir" "$src"
    echo "==> (CPython source and build took $((SECONDS - t)) s)"
    echo "$recipe" >"$tmp/.concordia-recipe"
    rm -rf "$broot"
    mv "$tmp" "$broot"
fi

# The test, in a fresh directory inside the root.
work="/tmp/concordia-wheel-test.$$"
rm -rf "$broot$work"
mkdir -p "$broot$work"
trap 'rm -rf "$broot$work"' EXIT
cp "$wheel" "$broot$work/"
w="$work/${wheel##*/}"

in_root "$broot" "
set -e
export PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_INPUT=1 PYTHONDONTWRITEBYTECODE=1
echo \"==> bullseye: \$(ldd --version | head -n 1)\"
/usr/bin/python3 -m venv $work/py39
if $work/py39/bin/python -m pip install --no-index --no-deps $w >$work/pip39.log 2>&1; then
    echo 'wheel-bullseye.sh: pip installed the wheel on bullseye CPython 3.9, below its floor' >&2
    exit 1
fi
grep -q 'is not a supported wheel on this platform' $work/pip39.log || { cat $work/pip39.log >&2; exit 1; }
echo \"==> bullseye: pip refuses the wheel on the system CPython \$(/usr/bin/python3 -c 'import platform; print(platform.python_version())')\"
$prefix/bin/python3 -m venv $work/py3
$work/py3/bin/python -m pip install --quiet --no-index --no-deps $w
cd $work
$work/py3/bin/python - <<'PY'
import os, platform
import concordia_rs, json
libc = os.confstr('CS_GNU_LIBC_VERSION')
major, minor = (int(x) for x in libc.split()[1].split('.')[:2])
assert (major, minor) < (2, 34), libc
assert concordia_rs._native.__file__.startswith('$work/py3/'), concordia_rs._native.__file__
out = concordia_rs.canonical_json({'b': [1, 2.5, '\u00e9'], 'a': None})
assert out == b'{\"a\":null,\"b\":[1,2.5,\"\xc3\xa9\"]}', out
assert json.loads(out) == {'a': None, 'b': [1, 2.5, '\u00e9']}
print('==> bullseye: CPython %s on %s installs and imports the wheel:' % (platform.python_version(), libc), out.decode())
PY
"
