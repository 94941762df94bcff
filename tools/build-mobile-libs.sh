#!/usr/bin/env bash
# Builds libconcordia_uniffi.a, the UniFFI crate as a static library, for mobile targets
# that need no platform SDK to compile:
#   aarch64-apple-ios      the device slice of ConcordiaFFI.xcframework
#                          (bindings-swift/build-xcframework.sh builds every slice on macOS)
#   aarch64-linux-android  arm64-v8a; proves the crate compiles for Android. An app loads
#                          libconcordia_uniffi.so instead, which only the NDK's linker can
#                          produce (cargo ndk; ffi-uniffi/README.md)
# A static library is an archive of the compiled objects: no linker runs, so neither
# Xcode nor the NDK is needed. Each archive must contain the UniFFI scaffolding's symbols
# (checked below), and is left at target/<target>/release/libconcordia_uniffi.a.
#
#   tools/build-mobile-libs.sh                 # both targets
#   tools/build-mobile-libs.sh TARGET...       # e.g. aarch64-apple-ios-sim x86_64-linux-android
#
# Installs the rustup targets when missing (network once). Run from anywhere.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

readonly CRATE=concordia-uniffi
# One exported function of the scaffolding per kind: a free function, a method, the
# contract checks the generated Kotlin and Swift run at load.
readonly SYMBOLS=(uniffi_concordia_uniffi_fn_func_canonicalize uniffi_concordia_uniffi_fn_method_keypair_sign ffi_concordia_uniffi_uniffi_contract_version)
targets=("$@")
((${#targets[@]})) || targets=(aarch64-apple-ios aarch64-linux-android)

step() {
    echo "==> $*"
    "$@"
}

installed="$(rustup target list --installed)"
for target in "${targets[@]}"; do
    grep -qx "$target" <<<"$installed" || step rustup target add "$target"
done

for target in "${targets[@]}"; do
    t=$SECONDS
    # `cargo rustc --crate-type staticlib` overrides the crate's list (lib, cdylib,
    # staticlib) for this build: the cdylib would need the target's linker. No `cli`
    # feature: the bindings generator's dependencies are not built for the device.
    step cargo rustc --locked --release -p "$CRATE" --lib --crate-type staticlib --target "$target"
    lib="${CARGO_TARGET_DIR:-target}/$target/release/libconcordia_uniffi.a"
    [[ "$(head -c 8 "$lib")" == '!<arch>' ]] || { echo "build-mobile-libs.sh: $lib is not an ar archive" >&2; exit 1; }
    for symbol in "${SYMBOLS[@]}"; do
        grep -qa "$symbol" "$lib" || { echo "build-mobile-libs.sh: $lib lacks $symbol" >&2; exit 1; }
    done
    echo "==> $lib: $(wc -c <"$lib") bytes, the scaffolding's symbols present ($((SECONDS - t)) s)"
done
