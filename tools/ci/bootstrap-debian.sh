#!/usr/bin/env bash
# What `.ci/run` expects to find before it starts, installed on Debian or Ubuntu as root
# (a fresh CI container such as debian:bookworm): ca-certificates, curl, git, a C toolchain,
# pkg-config, python3 with venv and pip, xz and a Rust toolchain through rustup (stable,
# with clippy and rustfmt). Everything else (valgrind, Go, a JDK and JNA, chromium,
# cbindgen, wasm-bindgen-cli, the pinned Python and npm packages, the Kotlin compiler) is
# installed by the scripts `.ci/run` calls. Node 20+ comes from the caller (the workflows use
# actions/setup-node; Debian 12's nodejs is 18).
#
#   tools/ci/bootstrap-debian.sh
#
# Idempotent: on a machine that has everything it prints what it found and changes nothing.
# Under GitHub Actions (GITHUB_PATH set) it adds ~/.cargo/bin to the later steps' PATH.
set -euo pipefail

packages=(ca-certificates curl git build-essential pkg-config python3 python3-venv python3-pip xz-utils)
missing=()
for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || missing+=("$p")
done
if ((${#missing[@]})); then
    if [[ $(id -u) != 0 ]] || ! command -v apt-get >/dev/null; then
        echo "bootstrap-debian.sh: missing ${missing[*]}: apt-get install ${missing[*]} (as root)" >&2
        exit 2
    fi
    echo "==> apt-get install ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get -o DPkg::Lock::Timeout=120 update -qq
    apt-get -o DPkg::Lock::Timeout=120 install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
else
    echo "==> packages: ${packages[*]}: present"
fi

cargo_bin="${CARGO_HOME:-$HOME/.cargo}/bin"
if command -v cargo >/dev/null || [[ -x $cargo_bin/cargo ]]; then
    echo "==> cargo: present ($(PATH="$cargo_bin:$PATH" cargo --version))"
else
    echo "==> rustup: installing the stable toolchain (minimal profile, clippy and rustfmt)"
    curl --proto '=https' --tlsv1.2 -sSf https://sh.rustup.rs |
        sh -s -- -y --no-modify-path --profile minimal --component clippy,rustfmt --default-toolchain stable
fi
if [[ -n ${GITHUB_PATH:-} ]]; then
    echo "$cargo_bin" >>"$GITHUB_PATH"
fi
