#!/usr/bin/env bash
# CI for the C ABI (issue 5): installs what a fresh Debian machine lacks (gcc, valgrind,
# pkg-config, golang-go, cbindgen 0.29.4), builds libconcordia, checks the committed
# header for drift, runs the Rust tests of concordia-ffi, the C tests (plain, under
# valgrind, and with -fsanitize=address,undefined), a pkg-config build against the shared
# library, and the Go example's `go test` (demo transcript + attestation, conformance
# suite through concordia_verify_profile). Idempotent; run from anywhere.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"

readonly CBINDGEN_VERSION=0.29.4
readonly CFLAGS=(-std=c99 -Wall -Wextra -Werror -pedantic -g -Iinclude)
readonly LIBS=(-lpthread -ldl -lm)
out="$root/target/ffi-c"
started=$SECONDS

step() {
    echo "==> $*"
    "$@"
}

ensure_apt_packages() {
    local missing=()
    command -v gcc >/dev/null || missing+=(gcc libc6-dev)
    command -v valgrind >/dev/null || missing+=(valgrind)
    command -v pkg-config >/dev/null || missing+=(pkg-config)
    command -v go >/dev/null || missing+=(golang-go)
    if ((${#missing[@]})); then
        echo "==> apt-get install ${missing[*]}"
        apt-get update -qq
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
    else
        echo "==> gcc, valgrind, pkg-config, go: present"
    fi
}

ensure_cbindgen() {
    if cbindgen --version 2>/dev/null | grep -qx "cbindgen $CBINDGEN_VERSION"; then
        echo "==> cbindgen $CBINDGEN_VERSION: present"
    else
        step cargo install cbindgen --version "=$CBINDGEN_VERSION" --locked
    fi
}

check_header() {
    echo "==> header drift check (cbindgen $CBINDGEN_VERSION)"
    mkdir -p "$out"
    cbindgen --quiet --config ffi-c/cbindgen.toml --crate concordia-ffi --output "$out/concordia.h" ffi-c
    if ! diff -u include/concordia.h "$out/concordia.h"; then
        echo "include/concordia.h is stale: regenerate with" >&2
        echo "  cbindgen --config ffi-c/cbindgen.toml --crate concordia-ffi --output include/concordia.h ffi-c" >&2
        exit 1
    fi
    echo "include/concordia.h is up to date"
}

c_tests() {
    local lib=target/release/libconcordia.a src name
    for src in ffi-c/tests/c/test_*.c; do
        name="$(basename "$src" .c)"
        step gcc "${CFLAGS[@]}" "$src" "$lib" "${LIBS[@]}" -o "$out/$name"
        step "$out/$name"
        step valgrind -q --error-exitcode=1 --leak-check=full --errors-for-leak-kinds=definite,indirect,possible \
            "$out/$name"
        step gcc "${CFLAGS[@]}" -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all \
            "$src" "$lib" "${LIBS[@]}" -o "$out/${name}_asan"
        ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
            step "$out/${name}_asan"
    done
}

pkg_config_build() {
    # The pkg-config file, and a build against the shared library found through it.
    step ffi-c/gen-pkgconfig.sh "$root/target/release" "$root/include" target/release/pkgconfig/concordia.pc
    export PKG_CONFIG_PATH="$root/target/release/pkgconfig"
    echo "==> pkg-config: $(pkg-config --modversion concordia): $(pkg-config --cflags --libs concordia)"
    # shellcheck disable=SC2046
    step gcc "${CFLAGS[@]}" ffi-c/tests/c/test_concordia.c $(pkg-config --cflags --libs concordia) \
        -Wl,-rpath,"$root/target/release" -o "$out/test_concordia_shared"
    step "$out/test_concordia_shared"
}

go_tests() {
    (
        cd ffi-c/examples/go
        # Strict: the summary must be the reference line of the issue, not only the Rust runner's.
        export CONCORDIA_CLI="$root/target/release/concordia" CONCORDIA_STRICT_SUMMARY=1 GOFLAGS=-count=1
        step go vet .
        step go test -v .
    )
}

ensure_apt_packages
ensure_cbindgen
step cargo build --locked --release -p concordia-ffi -p concordia-cli
check_header
step cargo test --locked -p concordia-ffi
c_tests
pkg_config_build
go_tests
echo "==> ffi-c CI passed in $((SECONDS - started))s"
