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
# are off), then installs the packed tarball into a fresh project outside the repository
# (`package_install`). Idempotent; run from anywhere.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"
# shellcheck source=tools/ci/apt.sh
. tools/ci/apt.sh
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
        # Built from crates.io (not a downloaded binary), once: 325 s of CPU time (35 min
        # wall clock on a 2-core machine at load 14-20). It stays in ~/.cargo/bin: cache
        # that folder, keyed by the pinned version (bindings-js/README.md).
        step cargo install wasm-bindgen-cli --version "=$version" --locked
    fi
    command -v node >/dev/null || { echo "tools/ci/js.sh: node not found: apt-get install nodejs npm" >&2; exit 2; }
    local major
    major="$(node -p 'process.versions.node.split(".")[0]')"
    if ((major < 20)); then
        echo "tools/ci/js.sh: node $(node --version) is too old: the package needs Node 20 or later" >&2
        exit 2
    fi
    command -v chromium >/dev/null || apt_install "the real-browser test" chromium
}

# The published types (index.d.ts) against wasm-bindgen's own declarations
# (bindings-js/wasm/concordia_wasm.d.ts) and the entry points, with the TypeScript compiler
# API (tools/ci/js_types.mjs), and no Rust intra-doc link in the doc comments wasm-bindgen
# copied there (tools/ci/doc_links.py). Needs the build and the npm devDependencies.
types_check() {
    step node tools/ci/js_types.mjs
    step python3 tools/ci/doc_links.py bindings-js/wasm/concordia_wasm.d.ts
}

# The package as its users install it. `npm pack --dry-run --json` must list exactly the
# files below (LICENSE and NOTICE included, no test or source file); the tarball is then
# installed into a fresh npm project in a temporary folder outside the repository
# (`npm init -y`, `npm install <tarball>`), where bindings-js/install-test/ imports it as an
# ES module, requires it from CommonJS (the same module instance) and checks known values,
# and `tsc --strict --noEmit` compiles a .mts and a .cts against its declarations
# (TypeScript pinned to the devDependency, from npm's cache when present).
readonly PACKED_FILES="LICENSE NOTICE README.md api.js browser.js errors.js index.d.ts node.js package.json wasm/concordia_wasm.js wasm/concordia_wasm_bg.wasm"

package_install() {
    local tmp tgz version typescript
    tmp="$(mktemp -d)"
    trap 'rm -rf "$tmp"' RETURN
    case "$tmp/" in "$root"/*) echo "tools/ci/js.sh: the temporary folder $tmp is inside the repository" >&2; return 1 ;; esac
    version="$(node -p 'require("./bindings-js/package.json").version')"
    typescript="$(node -p 'require("./bindings-js/package.json").devDependencies.typescript')"
    cmp LICENSE bindings-js/LICENSE
    cmp core/NOTICE bindings-js/NOTICE
    echo "==> npm pack --dry-run --json (bindings-js)"
    (cd bindings-js && npm pack --dry-run --json --ignore-scripts) >"$tmp/pack.json"
    # shellcheck disable=SC2016 # the JavaScript's template literals
    node -e '
      const [entry] = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
      const got = entry.files.map((f) => f.path).sort().join(" ");
      if (got !== process.argv[2]) {
        console.error(`npm pack lists:\n  ${got}\nexpected:\n  ${process.argv[2]}`);
        process.exit(1);
      }
      console.log(`==> ${entry.filename}: ${entry.entryCount} files, ${entry.size} bytes packed, ${entry.unpackedSize} unpacked`);
    ' "$tmp/pack.json" "$PACKED_FILES"
    tgz="$(cd bindings-js && npm pack --json --ignore-scripts --pack-destination "$tmp" | node -p 'JSON.parse(require("fs").readFileSync(0, "utf8"))[0].filename')"
    mkdir "$tmp/app"
    cp bindings-js/install-test/* "$tmp/app/"
    (
        cd "$tmp/app"
        npm init -y >/dev/null
        step npm install --no-audit --no-fund --prefer-offline "$tmp/$tgz" "typescript@$typescript"
        CONCORDIA_VERSION="$version" step node esm.mjs
        CONCORDIA_VERSION="$version" step node cjs.cjs
        step node node_modules/typescript/bin/tsc --strict --noEmit --module nodenext --moduleResolution nodenext \
            --target es2022 consumer.mts consumer.cts
    )
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
package_install
gzip -9 -c bindings-js/wasm/concordia_wasm_bg.wasm | wc -c | awk '{ print "==> concordia_wasm_bg.wasm gzipped: " $1 " bytes" }'
echo "==> tools/ci/js.sh passed in $((SECONDS - started)) s"
