#!/usr/bin/env bash
# CI for the npm package `concordia-rs` (issue 23, bindings-js/): installs what a fresh
# machine lacks (the rustup target wasm32-unknown-unknown; wasm-bindgen-cli pinned to the
# `wasm-bindgen` version in Cargo.lock, with cargo install --locked; the package's npm
# devDependencies from the committed package-lock.json with npm ci; Debian's chromium with
# apt-get when root), builds the package (bindings-js/build.sh), runs its Node tests
# (`node --test test/`: every export and error, the conformance suite through
# verifyProfile with the Rust runner's summary line, the demo's transcript and
# attestation, interop with the release CLI both ways) and the real-browser test (headless
# Chromium through puppeteer-core verifies the demo transcript on a page served from
# 127.0.0.1; the network stays closed: background networking, sync and component updates
# are off). Idempotent; run from anywhere.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"
started=$SECONDS

step() {
    echo "==> $*"
    "$@"
}

wasm_bindgen_version() {
    awk '/^name = "wasm-bindgen"$/ { getline; gsub(/version = |"/, ""); print; exit }' Cargo.lock
}

ensure_tools() {
    if ! rustup target list --installed | grep -qx wasm32-unknown-unknown; then
        step rustup target add wasm32-unknown-unknown
    fi
    local version
    version="$(wasm_bindgen_version)"
    if wasm-bindgen --version 2>/dev/null | grep -qx "wasm-bindgen $version"; then
        echo "==> wasm-bindgen-cli $version: present"
    else
        # Built from crates.io (not a downloaded binary): 17 minutes on this 2-core machine
        # with other builds running.
        step cargo install wasm-bindgen-cli --version "=$version" --locked
    fi
    command -v node >/dev/null || { echo "tools/ci/js.sh: node not found: apt-get install nodejs npm" >&2; exit 2; }
    local major
    major="$(node -p 'process.versions.node.split(".")[0]')"
    if ((major < 20)); then
        echo "tools/ci/js.sh: node $(node --version) is too old: the package needs Node 20 or later" >&2
        exit 2
    fi
    if ! command -v chromium >/dev/null; then
        if [[ $(id -u) == 0 ]] && command -v apt-get >/dev/null; then
            echo "==> apt-get install chromium (the real-browser test)"
            export DEBIAN_FRONTEND=noninteractive
            apt-get -o DPkg::Lock::Timeout=120 update -qq
            apt-get -o DPkg::Lock::Timeout=120 install -y -qq chromium >/dev/null
        else
            echo "tools/ci/js.sh: chromium not found (the real-browser test): apt-get install chromium (as root)" >&2
            exit 2
        fi
    fi
}

# The published types (index.d.ts) against wasm-bindgen's own declarations
# (bindings-js/wasm/concordia_wasm.d.ts) and the entry points, with the TypeScript compiler
# API (tools/ci/js_types.mjs), and no Rust intra-doc link in the doc comments wasm-bindgen
# copied there (tools/ci/doc_links.py). Needs the build and the npm devDependencies.
types_check() {
    step node tools/ci/js_types.mjs
    step python3 tools/ci/doc_links.py bindings-js/wasm/concordia_wasm.d.ts
}

ensure_tools
# The CLI is the other end of the interop tests (.ci/run has usually built it).
step cargo build --locked --release -p concordia-cli
step bindings-js/build.sh
(
    cd bindings-js
    if ! cmp -s package-lock.json node_modules/.concordia-installed 2>/dev/null; then
        step npm ci --no-audit --no-fund
        cp package-lock.json node_modules/.concordia-installed
    fi
    CONCORDIA_CLI="$root/target/release/concordia" step node --test test/
    CONCORDIA_CLI="$root/target/release/concordia" CHROMIUM="$(command -v chromium)" step node --test browser-test/
)
types_check
gzip -9 -c bindings-js/wasm/concordia_wasm_bg.wasm | wc -c | awk '{ print "==> concordia_wasm_bg.wasm gzipped: " $1 " bytes" }'
echo "==> tools/ci/js.sh passed in $((SECONDS - started)) s"
