#!/usr/bin/env bash
# The release tag names the version every package carries: `vX.Y.Z` must equal the
# workspace version in Cargo.toml (the crates and the wheel) and the npm package's
# version in bindings-js/package.json. Prints the version; exits 1 on a mismatch, 2 on a
# tag that is not `v` + a version.
#
#   tools/ci/tag-version.sh v0.1.0
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
tag="${1:?usage: tools/ci/tag-version.sh vX.Y.Z}"
if [[ ! $tag =~ ^v([0-9]+\.[0-9]+\.[0-9]+([-.+][0-9A-Za-z.-]+)?)$ ]]; then
    echo "tag-version.sh: \`$tag\` is not v<version> (v0.1.0)" >&2
    exit 2
fi
version="${BASH_REMATCH[1]}"
cargo_version="$(awk '/^\[workspace.package\]/ { in_ws = 1; next } /^\[/ { in_ws = 0 } in_ws && /^version *=/ { gsub(/version *= *|"/, ""); print; exit }' "$root/Cargo.toml")"
npm_version="$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["version"])' "$root/bindings-js/package.json")"
fail=0
for pair in "Cargo.toml [workspace.package]:$cargo_version" "bindings-js/package.json:$npm_version"; do
    if [[ ${pair##*:} != "$version" ]]; then
        echo "tag-version.sh: tag $tag but ${pair%:*} says ${pair##*:}" >&2
        fail=1
    fi
done
((fail == 0)) || exit 1
echo "$version"
