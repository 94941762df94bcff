#!/usr/bin/env bash
# CI for the C ABI (issues 5, 34): installs what a fresh Debian machine lacks (gcc,
# valgrind, pkg-config, golang-go, cbindgen 0.29.4), checks the committed header for drift,
# runs the Rust tests of concordia-ffi, runs ffi-c/README.md's install block verbatim in an
# empty environment (tools/install-c.sh into a temp prefix; programs built with pkg-config
# only, shared with an rpath and static) and checks the prefix (SONAME, links, no debug
# sections, pkg-config fields), builds the C test suites against it and a staged
# (--destdir) install, runs the C tests against the library as built (plain, under
# valgrind, with -fsanitize=address,undefined), and `go vet` / `go test` of the Go module
# ffi-c/go against the prefix (pkg-config; table tests, examples, demo transcript +
# attestation, conformance suite through concordia_verify_profile) plus the README's Go
# example as a module outside the repository. Idempotent; run from anywhere.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"
# shellcheck source=tools/ci/apt.sh
. tools/ci/apt.sh

readonly CBINDGEN_VERSION=0.29.4
readonly CFLAGS=(-std=c99 -Wall -Wextra -Werror -pedantic -g -Iinclude)
readonly LIBS=(-lpthread -ldl -lm)
out="$root/target/ffi-c"
mkdir -p "$out"
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
        apt_install "the C and Go tests" "${missing[@]}"
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

# Fails with a message unless the command succeeds.
check() {
    local what="$1"
    shift
    if ! "$@"; then
        echo "FAILED: $what" >&2
        exit 1
    fi
    echo "ok: $what"
}

# The ABI version the SONAME must carry for a crate version (ffi-c/README.md, "ABI
# policy"), spelled here independently of ffi-c/build.rs: 0.0.z, 0.y, x.
abi_version() {
    local major minor patch
    IFS=. read -r major minor patch <<<"${1%%[-+]*}"
    if [[ "$major" == 0 && "$minor" == 0 ]]; then
        echo "0.0.$patch"
    elif [[ "$major" == 0 ]]; then
        echo "0.$minor"
    else
        echo "$major"
    fi
}

# pkg-config's output as single-spaced words (it ends lines with a space).
pc() {
    local words
    read -ra words <<<"$(pkg-config "$@")"
    echo "${words[*]}"
}

has_no_debug_sections() {
    ! readelf -S -W "$1" | grep -Eq '\] \.(debug_|zdebug_|llvmbc)'
}

c_install_tests() {
    # The README's install block, verbatim, in an empty environment whose HOME is a temp
    # dir (so --prefix "$HOME/.local" is a fresh prefix): no LD_LIBRARY_PATH, no
    # PKG_CONFIG_PATH, no -I or -L into the source tree; the programs find the header and
    # the library through pkg-config only.
    local block home prefix lib abi static_libs out_shared out_static
    block="$(readme_block c-install)"
    [[ -n "$block" ]] || { echo "ffi-c/README.md: no c-install block" >&2; exit 1; }
    home="$tmp/home" && mkdir -p "$home"
    prefix="$home/.local" lib="$home/.local/lib"
    echo "==> README install block in a clean environment (HOME=$home)"
    env -i PATH="$PATH" HOME="$home" CARGO_HOME="${CARGO_HOME:-$HOME/.cargo}" RUSTUP_HOME="${RUSTUP_HOME:-$HOME/.rustup}" \
        bash -euo pipefail -c "$block" 2>&1 | tee "$tmp/install.log"

    # Globals: go_tests checks the same names.
    version="$(cargo pkgid --locked -p concordia-ffi)" && version="${version##*[#@]}"
    abi="$(abi_version "$version")" && soname="libconcordia.so.$abi"
    echo "==> the installed prefix (libconcordia $version, ABI $abi)"
    check "header installed as committed" cmp include/concordia.h "$prefix/include/concordia.h"
    check "libconcordia.so.$version is a file" test -f "$lib/libconcordia.so.$version" -a ! -L "$lib/libconcordia.so.$version"
    check "$soname -> libconcordia.so.$version" test "$(readlink "$lib/$soname")" = "libconcordia.so.$version"
    check "libconcordia.so -> $soname" test "$(readlink "$lib/libconcordia.so")" = "$soname"
    check "libconcordia.a is a file" test -f "$lib/libconcordia.a"
    check "SONAME of the installed library is $soname" \
        grep -q "(SONAME) *Library soname: \[$soname\]" <<<"$(readelf -d "$lib/libconcordia.so.$version")"
    check "no debug sections in the installed .so" has_no_debug_sections "$lib/libconcordia.so.$version"
    check "no debug sections or bitcode in the installed .a" has_no_debug_sections "$lib/libconcordia.a"
    check "the .so exports concordia_version_number" \
        grep -qw concordia_version_number <<<"$(nm -D --defined-only "$lib/libconcordia.so.$version")"

    export PKG_CONFIG_PATH="$lib/pkgconfig"
    unset PKG_CONFIG_SYSROOT_DIR LD_LIBRARY_PATH
    static_libs="$(sed -n 's/^note: native-static-libs: //p' "$tmp/install.log" | tail -n 1)"
    check "rustc reported the static libraries" test -n "$static_libs"
    check "pkg-config --modversion concordia is $version" test "$(pkg-config --modversion concordia)" = "$version"
    check "concordia.pc: Cflags" test "$(pc --cflags concordia)" = "-I$prefix/include"
    check "concordia.pc: Libs" test "$(pc --libs concordia)" = "-L$lib -lconcordia"
    check "concordia.pc: Libs.private are rustc's ($static_libs)" \
        test "$(pc --static --libs concordia)" = "-L$lib -lconcordia $static_libs"
    check "concordia-static.pc: Libs" test "$(pc --libs concordia-static)" = "$lib/libconcordia.a $static_libs"

    # What the README block built: the shared program loads the installed library through
    # its SONAME and the rpath; the static one needs no libconcordia at run time. The
    # digest it prints is the SHA-256 of the canonical form it prints (sha256sum's).
    check "target/app-shared needs $soname" grep -q "(NEEDED) *Shared library: \[$soname\]" <<<"$(readelf -d target/app-shared)"
    check "target/app-shared loads $lib/$soname" grep -q "$soname => $lib/$soname " <<<"$(ldd target/app-shared)"
    check "target/app-static needs no libconcordia" bash -c '! readelf -d target/app-static | grep -q libconcordia'
    out_shared="$(env -u LD_LIBRARY_PATH target/app-shared)" out_static="$(target/app-static)"
    check "shared and static programs print the same" test "$out_shared" = "$out_static"
    local canon digest
    read -r canon digest <<<"$(head -n 1 <<<"$out_shared")"
    check "digest = sha256(canonical form)" test "$digest" = "sha256:$(printf '%s' "$canon" | sha256sum | cut -d' ' -f1)"
    check "no debug sections in the static program" has_no_debug_sections target/app-static
    echo "==> sizes: .so $(stat -c %s "$lib/libconcordia.so.$version"), .a $(stat -c %s "$lib/libconcordia.a"), static app (--gc-sections) $(stat -c %s target/app-static), shared app $(stat -c %s target/app-shared) bytes"

    # The C test suites, copied out of the tree, against the prefix: shared (rpath) and
    # static, with nothing but pkg-config for the header and the library.
    local suite="$tmp/c-suite" name libdir
    cp -r ffi-c/tests/c "$suite"
    libdir="$(pkg-config --variable=libdir concordia)"
    for src in "$suite"/test_*.c; do
        name="$(basename "$src" .c)"
        # shellcheck disable=SC2046
        step gcc -std=c99 -Wall -Wextra -Werror -pedantic "$src" $(pkg-config --cflags --libs concordia) \
            -Wl,-rpath,"$libdir" -o "$suite/${name}_shared"
        (cd "$suite" && step env -u LD_LIBRARY_PATH "./${name}_shared")
        # shellcheck disable=SC2046
        step gcc -std=c99 -Wall -Wextra -Werror -pedantic "$src" $(pkg-config --cflags --libs concordia-static) \
            -Wl,--gc-sections -o "$suite/${name}_static"
        (cd "$suite" && step "./${name}_static")
    done

    # A staged install for a package (--destdir, --libdir lib64), with CARGO_TARGET_DIR
    # set (a link to this tree's target dir, so nothing is rebuilt): files land under the
    # stage, the pkg-config files name the final prefix, and a program links from the
    # stage by redefining the prefix.
    local stage="$tmp/stage" final=/opt/concordia
    ln -sfn "$root/target" "$tmp/cargo-target"
    CARGO_TARGET_DIR="$tmp/cargo-target" tools/install-c.sh --prefix "$final" --libdir lib64 --destdir "$stage" \
        2>&1 | tee "$tmp/stage.log"
    check "the staged install read CARGO_TARGET_DIR" grep -q " from $tmp/cargo-target/release into " "$tmp/stage.log"
    check "nothing written to $final" test ! -e "$final"
    check "staged $final/lib64/libconcordia.so.$version" test -f "$stage$final/lib64/libconcordia.so.$version"
    check "staged $final/include/concordia.h" test -f "$stage$final/include/concordia.h"
    check "staged concordia.pc names prefix $final" grep -qx "prefix=$final" "$stage$final/lib64/pkgconfig/concordia.pc"
    # shellcheck disable=SC2016
    check "staged concordia.pc: libdir" grep -qx 'libdir=${prefix}/lib64' "$stage$final/lib64/pkgconfig/concordia.pc"
    # shellcheck disable=SC2046
    step gcc -std=c99 ffi-c/examples/c/app.c \
        $(PKG_CONFIG_PATH="$stage$final/lib64/pkgconfig" pkg-config --define-variable=prefix="$stage$final" --cflags --libs concordia-static) \
        -o "$tmp/app-staged"
    check "a program linked from the stage prints the same" test "$("$tmp/app-staged")" = "$out_static"
}

go_tests() {
    # Go finds libconcordia through pkg-config only (#cgo pkg-config: concordia, or
    # concordia-static with -tags concordia_static), here the prefix of c_install_tests;
    # CARGO_TARGET_DIR points elsewhere to show that no path into the build tree is used.
    # GOPATH and the build cache live in the temp dir (Go's cache key does not cover
    # pkg-config's output, golang/go#24544); no network: the module has no dependencies.
    local lib="$tmp/home/.local/lib"
    export PKG_CONFIG_PATH="$lib/pkgconfig" GOPATH="$tmp/gopath" GOCACHE="$tmp/gocache" GOPROXY=off GOFLAGS=-count=1 \
        CARGO_TARGET_DIR="$tmp/no-cargo-target-here"
    unset LD_LIBRARY_PATH
    local module repository
    module="$(sed -n 's/^module //p' ffi-c/go/go.mod)"
    repository="$(sed -n 's|^repository = "https://\(.*\)"$|\1|p' Cargo.toml)"
    check "Go module path $module is the repository's ffi-c/go" test "$module" = "$repository/ffi-c/go"
    (
        cd ffi-c/go
        # Strict: the summary must be the reference line of the issue, not only the Rust runner's.
        export CONCORDIA_CLI="$root/target/release/concordia" CONCORDIA_STRICT_SUMMARY=1
        export CGO_LDFLAGS="-Wl,-rpath,$lib"
        check "Go sources are gofmt-clean" test -z "$(gofmt -l .)"
        step go vet ./...
        step go test -v ./...
        step go test -tags concordia_static -run 'Example|Canonicalize' ./...
    )
    # The README's Go example as a user's own module outside the repository. A user runs
    # `go get github.com/concordia-rs/concordia-rs/ffi-c/go`; nothing is published from
    # here, so the require is replaced by this checkout (the same files go get would fetch).
    local dir="$tmp/go-app" out_shared out_static
    mkdir -p "$dir"
    readme_block go-example > "$dir/main.go"
    (
        cd "$dir"
        export GOFLAGS=-mod=mod
        step go mod init example.com/app
        step go mod edit -require="$module@v0.0.0" -replace="$module=$root/ffi-c/go"
        CGO_LDFLAGS="-Wl,-rpath,$lib" step go build -o app-shared .
        step go build -tags concordia_static -o app-static .
    )
    check "Go app (shared) loads $lib/$soname" grep -q "$soname => $lib/$soname " <<<"$(ldd "$dir/app-shared")"
    check "Go app (static) needs no libconcordia" bash -c "! readelf -d '$dir/app-static' | grep -q libconcordia"
    out_shared="$("$dir/app-shared")" out_static="$("$dir/app-static")"
    echo "$out_shared"
    check "Go app: shared and static print the same" test "$out_shared" = "$out_static"
    check "Go app: the signed object verifies" test "$(sed -n 1p <<<"$out_shared" | awk '{print $NF}')" = "<nil>"
    echo "==> sizes: Go app shared $(stat -c %s "$dir/app-shared"), static $(stat -c %s "$dir/app-static") bytes"
}

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
ensure_apt_packages
ensure_cbindgen
# libconcordia itself is built by tools/install-c.sh (c_install_tests, before c_tests).
step cargo build --locked --release -p concordia-cli
check_header
step cargo test --locked -p concordia-ffi
c_install_tests
c_tests
go_tests
echo "==> ffi-c CI passed in $((SECONDS - started))s"
