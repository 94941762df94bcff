#!/usr/bin/env bash
# Copies the vendored conformance schemas (conformance/vectors/schemas/*.json, unmodified)
# into core/schemas/, the directory core/build.rs compiles into static tapes, so the
# published concordia-core crate is self-contained. Run it after updating the vendored
# suite; core/tests/vendored_copies.rs and tools/ci/package.sh fail while the copies differ.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
src="$root/conformance/vectors/schemas"
dst="$root/core/schemas"
mkdir -p "$dst"
rm -f "$dst"/*.json
cp -p "$src"/*.json "$dst"/
cp -p "$root/LICENSE" "$root/core/LICENSE"
echo "core/schemas: $(ls "$dst" | wc -l) schemas copied from conformance/vectors/schemas; core/LICENSE refreshed"
