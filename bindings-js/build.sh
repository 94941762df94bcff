#!/usr/bin/env bash
# Builds the WebAssembly of the npm package `concordia-rs` into bindings-js/wasm/ (the
# folder package.json's `exports` point at): the crate concordia-wasm for
# wasm32-unknown-unknown (profile `wasm`: LTO, no debug info), then the ES module glue by
# wasm-bindgen-cli (`--target web`: node.js instantiates it from the file, browser.js with
# fetch). wasm-bindgen-cli must be exactly the `wasm-bindgen` version in Cargo.lock:
#   cargo install --locked wasm-bindgen-cli --version <that version>
# (tools/ci/js.sh installs it). Run from anywhere.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
cd "$root"

version="$(awk '/^name = "wasm-bindgen"$/ { getline; gsub(/version = |"/, ""); print; exit }' Cargo.lock)"
if [[ -z $version ]]; then
    echo "build.sh: no wasm-bindgen in Cargo.lock" >&2
    exit 2
fi
if ! wasm-bindgen --version 2>/dev/null | grep -qx "wasm-bindgen $version"; then
    echo "build.sh: wasm-bindgen-cli $version is needed (the crate's version in Cargo.lock): cargo install --locked wasm-bindgen-cli --version $version" >&2
    exit 2
fi
if command -v rustup >/dev/null && ! rustup target list --installed | grep -qx wasm32-unknown-unknown; then
    echo "==> rustup target add wasm32-unknown-unknown"
    rustup target add wasm32-unknown-unknown
fi

echo "==> cargo build --locked -p concordia-wasm --target wasm32-unknown-unknown --profile wasm"
cargo build --locked -p concordia-wasm --target wasm32-unknown-unknown --profile wasm
echo "==> wasm-bindgen --target web --out-dir bindings-js/wasm"
rm -rf "$here/wasm"
# With its TypeScript declarations (wasm/concordia_wasm.d.ts, not published: index.d.ts is
# checked against them by tools/ci/js_types.mjs).
wasm-bindgen --target web --out-dir "$here/wasm" --out-name concordia_wasm \
    target/wasm32-unknown-unknown/wasm/concordia_wasm.wasm
wc -c "$here/wasm/concordia_wasm_bg.wasm" | awk '{ print "==> concordia_wasm_bg.wasm: " $1 " bytes" }'
