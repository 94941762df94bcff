#!/usr/bin/env bash
# CI for the UniFFI bindings (issue 7). Builds concordia-uniffi (cdylib + the pinned
# `uniffi-bindgen` binary of the crate), regenerates the Swift and Kotlin bindings and
# fails if the committed copies differ, then generates the Python bindings into a
# temporary folder, loads the built cdylib and runs ffi-uniffi/tests/test_uniffi_python.py
# (every export and error variant, the conformance suite through verify_profile, the
# `concordia demo` transcript and attestation), checks the root Package.swift, and builds
# the mobile static libraries (tools/build-mobile-libs.sh). tools/ci/doc_links.py fails on
# Rust intra-doc link syntax in the wrappers' doc comments and in the generated bindings.
#
#   tools/ci/uniffi.sh               # check (CI)
#   tools/ci/uniffi.sh --regenerate  # rewrite the committed Swift/Kotlin bindings
#
# Idempotent; run from anywhere. Needs cargo and python3 (+ venv, installed if missing).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"
# shellcheck source=tools/ci/apt.sh
. tools/ci/apt.sh

readonly LIB=target/debug/libconcordia_uniffi.so
readonly BINDGEN=target/debug/uniffi-bindgen
readonly SWIFT_SOURCES=bindings-swift/Sources/Concordia
readonly SWIFT_HEADERS=bindings-swift/Headers/ConcordiaFFI
readonly KOTLIN_DIR=ffi-uniffi/bindings/kotlin
readonly KOTLIN_FILE=io/github/concordia_rs/concordia/concordia_uniffi.kt
# The XCTest fixtures are this demo's output (the Python test runs the same command; the
# Kotlin suite, tools/ci/kotlin.sh, reads the same fixtures).
readonly DEMO_FIXTURES=bindings-swift/Tests/ConcordiaTests/Fixtures/demo
readonly DEMO_ARGS=(--seed 000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f --now 2026-01-02T03:04:05Z)
regenerate=false
[[ "${1:-}" == "--regenerate" ]] && regenerate=true
started=$SECONDS

step() {
    echo "==> $*"
    "$@"
}

ensure_python_venv() {
    if python3 -c 'import venv, ensurepip' 2>/dev/null; then
        echo "==> python3 venv: present"
    else
        apt_install "UniFFI's Python tests" python3-venv
    fi
}

build() {
    # Debug profile: shares the workspace target dir with `cargo test --workspace`.
    step cargo build --locked -p concordia-uniffi --features cli
    # The demo transcript comes from the release CLI (.ci/run has usually built it).
    step cargo build --locked --release -p concordia-cli
}

generate() { # <language>... <out-dir>
    local out="${*: -1}" langs=("${@:1:$#-1}") args=()
    for l in "${langs[@]}"; do args+=(--language "$l"); done
    "$BINDGEN" generate --library "$LIB" "${args[@]}" --no-format --out-dir "$out" >/dev/null
}

check_drift() {
    local gen
    gen="$(mktemp -d)"
    trap 'rm -rf "$gen"' RETURN
    echo "==> uniffi-bindgen generate --language swift --language kotlin (--no-format)"
    generate swift kotlin "$gen"
    step python3 tools/ci/uniffi_kotlin_guard.py "$gen/$KOTLIN_FILE"
    # No Rust intra-doc link ([`KeyPair`], [`x`](Type::x)) reaches the Swift/Kotlin docs.
    step python3 tools/ci/doc_links.py "$gen"
    echo "==> concordia demo ${DEMO_ARGS[*]} (XCTest fixtures)"
    target/release/concordia demo "${DEMO_ARGS[@]}" --out "$gen/demo" >/dev/null
    # Layout of the committed copies: the Swift source target, the C module of the
    # XCFramework (header + module map, in a subfolder so that several XCFrameworks'
    # module maps cannot collide), and the Kotlin package tree.
    local -a pairs=(
        "$gen/Concordia.swift" "$SWIFT_SOURCES/Concordia.swift"
        "$gen/ConcordiaFFI.h" "$SWIFT_HEADERS/ConcordiaFFI.h"
        "$gen/ConcordiaFFI.modulemap" "$SWIFT_HEADERS/module.modulemap"
        "$gen/$KOTLIN_FILE" "$KOTLIN_DIR/$KOTLIN_FILE"
        "$gen/demo/transcript.json" "$DEMO_FIXTURES/transcript.json"
        "$gen/demo/keys.json" "$DEMO_FIXTURES/keys.json"
        "$gen/demo/attestation.json" "$DEMO_FIXTURES/attestation.json"
    )
    if $regenerate; then
        for ((i = 0; i < ${#pairs[@]}; i += 2)); do
            mkdir -p "$(dirname "${pairs[i + 1]}")"
            cp "${pairs[i]}" "${pairs[i + 1]}"
            echo "wrote ${pairs[i + 1]}"
        done
        return
    fi
    local stale=0
    for ((i = 0; i < ${#pairs[@]}; i += 2)); do
        if ! diff -u "${pairs[i + 1]}" "${pairs[i]}" >"$gen/diff" 2>&1; then
            head -40 "$gen/diff" >&2
            echo "STALE: ${pairs[i + 1]}" >&2
            stale=1
        fi
    done
    if ((stale)); then
        echo "committed bindings differ from the pinned uniffi-bindgen's output: run tools/ci/uniffi.sh --regenerate" >&2
        exit 1
    fi
    echo "Swift and Kotlin bindings and the XCTest demo fixtures are up to date ($((${#pairs[@]} / 2)) files)"
}

# What can be checked of the root Package.swift without a Swift toolchain: its folders
# exist, its version is the workspace's and the release URL is that version's tag.
check_swift_package() {
    local version path
    version="$(sed -n 's/^version = "\(.*\)"$/\1/p' Cargo.toml | head -1)"
    grep -qx "let version = \"$version\"" Package.swift ||
        { echo "Package.swift: 'let version' is not the workspace version $version" >&2; exit 1; }
    grep -q 'releases/download/v\\(version)/ConcordiaFFI.xcframework.zip' Package.swift ||
        { echo "Package.swift: the binary target's URL is not the release asset of v<version>" >&2; exit 1; }
    while read -r path; do
        [[ $path == *.xcframework || -d $path ]] || { echo "Package.swift: no folder $path" >&2; exit 1; }
    done < <(sed -n 's/.*path: "\([^"]*\)".*/\1/p' Package.swift)
    [[ -d bindings-swift/Tests/ConcordiaTests/Fixtures ]] || { echo "Package.swift: no Fixtures resource" >&2; exit 1; }
    echo "==> Package.swift: version $version, its paths exist (not built: no Swift toolchain here)"
}

python_tests() {
    local py
    py="$(mktemp -d)"
    trap 'rm -rf "$py"' RETURN
    echo "==> uniffi-bindgen generate --language python -> $py"
    generate python "$py"
    step python3 tools/ci/doc_links.py "$py"
    cp "$LIB" "$py/"
    step tools/setup-venv.sh
    CONCORDIA_UNIFFI_PY="$py" CONCORDIA_CLI="$root/target/release/concordia" PYTHONDONTWRITEBYTECODE=1 \
        step .venv/bin/pytest -q -p no:cacheprovider ffi-uniffi/tests/test_uniffi_python.py
}

ensure_python_venv
# The doc comments UniFFI, PyO3 and wasm-bindgen copy into the bindings are plain text.
step python3 tools/ci/doc_links.py --sources
build
check_drift
$regenerate && exit 0
check_swift_package
python_tests
# The static libraries for aarch64-apple-ios and aarch64-linux-android (no linker, so no
# Xcode or NDK): measured at load 9-10 on 2 cores, 1 s unchanged, 2 min 38 s after a change
# in core/, 8 min 43 s cold (plus the two rustup targets' download once).
step tools/build-mobile-libs.sh
echo "==> uniffi CI passed in $((SECONDS - started))s"
