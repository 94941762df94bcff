#!/usr/bin/env bash
# CI for the C ABI (issue 5): installs what a fresh Debian machine lacks (gcc, valgrind,
# pkg-config, golang-go, cbindgen 0.29.4), builds libconcordia, checks the committed
# header for drift, runs the Rust tests of concordia-ffi, the C tests in ffi-c/tests/c
# (plain, under valgrind, and with -fsanitize=address,undefined), the README's pkg-config
# commands verbatim in an empty environment (shared library with rpath, and static), and
# `go vet` / `go test` of the Go module ffi-c/go (table tests, examples, demo transcript +
# attestation, conformance suite through concordia_verify_profile) plus the README's Go
# example. Idempotent; run from anywhere.
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

# The fenced block after the marker line `<!-- ci: NAME -->` in ffi-c/README.md.
readme_block() {
    awk -v m="<!-- ci: $1 -->" '$0 == m {f = 1; next} f && /^```/ {if (p) exit; p = 1; next} p' ffi-c/README.md
}

pkg_config_build() {
    # The README's pkg-config commands, verbatim, in an empty environment (no
    # LD_LIBRARY_PATH, no PKG_CONFIG_PATH): the shared route (rpath) and the static route.
    local block
    block="$(readme_block pkg-config)"
    [[ -n "$block" ]] || { echo "ffi-c/README.md: no pkg-config block" >&2; exit 1; }
    echo "==> README pkg-config block in a clean environment"
    env -i PATH="$PATH" HOME="$HOME" ${CARGO_HOME:+CARGO_HOME="$CARGO_HOME"} ${RUSTUP_HOME:+RUSTUP_HOME="$RUSTUP_HOME"} \
        bash -euo pipefail -c "$block"
    if ! grep -q "libconcordia.so => $root/target/release/libconcordia.so" <<<"$(ldd target/app-shared)"; then
        echo "target/app-shared does not load target/release/libconcordia.so" >&2
        exit 1
    fi
    if grep -q libconcordia <<<"$(ldd target/app-static)"; then
        echo "target/app-static is not linked statically" >&2
        exit 1
    fi
    # The full C test suite once more, against the shared library found through pkg-config.
    export PKG_CONFIG_PATH="$root/target/release/pkgconfig"
    echo "==> pkg-config: $(pkg-config --modversion concordia): $(pkg-config --cflags --libs concordia)"
    # shellcheck disable=SC2046
    step gcc "${CFLAGS[@]}" ffi-c/tests/c/test_concordia.c $(pkg-config --cflags --libs concordia) \
        -o "$out/test_concordia_shared"
    step env -u LD_LIBRARY_PATH "$out/test_concordia_shared"
}

go_tests() {
    (
        cd ffi-c/go
        # Strict: the summary must be the reference line of the issue, not only the Rust runner's.
        export CONCORDIA_CLI="$root/target/release/concordia" CONCORDIA_STRICT_SUMMARY=1 GOFLAGS=-count=1 GOPROXY=off
        step go vet ./...
        step go test -v ./...
    )
    # The README's Go example, run as a user would: a module that requires ffi-c/go.
    local dir="$out/go-example"
    rm -rf "$dir" && mkdir -p "$dir"
    readme_block go-example > "$dir/main.go"
    (
        cd "$dir"
        export GOPROXY=off GOFLAGS=-mod=mod
        go mod init example.com/concordia-readme >/dev/null 2>&1
        go mod edit -require=github.com/concordia-rs/concordia-rs/ffi-c/go@v0.0.0 \
            -replace=github.com/concordia-rs/concordia-rs/ffi-c/go="$root/ffi-c/go"
        step go run .
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
