#!/usr/bin/env bash
# The published concordia-core crate is self-contained, carries only what it needs, and
# builds on its own (issue 34):
#
#   tools/ci/package.sh
#
# 1. core/schemas and core/LICENSE equal conformance/vectors/schemas and LICENSE
#    (tools/sync-core-schemas.sh refreshes them);
# 2. `cargo package --list`: every file is in the intended set (manifest, build.rs,
#    src/**/*.rs, schemas/*.json, README.md, LICENSE, NOTICE and the files cargo adds), and
#    LICENSE, NOTICE, README.md and every schema are there;
# 3. `cargo package` builds the unpacked crate on its own (cargo's verify step), and the
#    .crate is under PACKAGE_MAX_BYTES (default 500 KiB); the .crate holds exactly the
#    listed files.
#
# Network: none. cargo runs with --offline: packaging resolves the crate's lockfile from
# the crates.io index cache and builds from the registry cache that the workspace build
# already filled (.ci/run builds and tests before this step). On a machine where cargo has
# never fetched the dependencies, run `cargo fetch --locked` first (that needs the
# network). `cargo publish --dry-run` additionally asks crates.io whether the version
# exists, so it is not part of this check.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"

readonly CRATE=concordia-core
max_bytes="${PACKAGE_MAX_BYTES:-512000}"
target="${CARGO_TARGET_DIR:-$root/target}"
fail=0

echo "==> copies inside the crate equal their originals"
if ! diff -r conformance/vectors/schemas core/schemas; then
    echo "FAIL: core/schemas differs from conformance/vectors/schemas: run tools/sync-core-schemas.sh" >&2
    fail=1
fi
if ! cmp LICENSE core/LICENSE; then
    echo "FAIL: core/LICENSE differs from LICENSE: run tools/sync-core-schemas.sh" >&2
    fail=1
fi

echo "==> cargo package -p $CRATE --list"
list="$(cargo package -p "$CRATE" --locked --offline --allow-dirty --list 2>/dev/null)"
unexpected="$(grep -Ev '^(\.cargo_vcs_info\.json|Cargo\.lock|Cargo\.toml|Cargo\.toml\.orig|build\.rs|README\.md|LICENSE|NOTICE|schemas/[A-Za-z0-9_.-]+\.json|src/[A-Za-z0-9_/-]+\.rs)$' <<<"$list" || true)"
if [[ -n "$unexpected" ]]; then
    echo "FAIL: files outside the intended set are packaged:" >&2
    sed 's/^/    /' <<<"$unexpected" >&2
    fail=1
fi
for f in Cargo.toml build.rs src/lib.rs README.md LICENSE NOTICE; do
    grep -qx "$f" <<<"$list" || { echo "FAIL: $f is not packaged" >&2; fail=1; }
done
for s in conformance/vectors/schemas/*.json; do
    grep -qx "schemas/${s##*/}" <<<"$list" || { echo "FAIL: schemas/${s##*/} is not packaged" >&2; fail=1; }
done
count="$(wc -l <<<"$list")"
echo "$count files"

echo "==> cargo package -p $CRATE (builds the unpacked crate)"
version="$(cargo pkgid -p "$CRATE" --offline | sed 's/.*[@#]//')"
crate_file="$target/package/$CRATE-$version.crate"
rm -f "$crate_file"
cargo package -p "$CRATE" --locked --offline --allow-dirty 2>&1 | grep -v '^warning: ignoring \(test\|benchmark\) ' || {
    echo "FAIL: cargo package" >&2
    exit 1
}
bytes="$(stat -c %s "$crate_file")"
echo "$crate_file: $bytes bytes ($((bytes / 1024)) KiB), limit $max_bytes"
if ((bytes > max_bytes)); then
    echo "FAIL: the .crate is larger than $max_bytes bytes" >&2
    fail=1
fi
in_tar="$(tar -tzf "$crate_file" | sed "s|^$CRATE-$version/||" | grep -v '/$' | sort)"
if [[ "$in_tar" != "$(sort <<<"$list")" ]]; then
    echo "FAIL: the .crate does not hold exactly the listed files:" >&2
    diff <(sort <<<"$list") <(cat <<<"$in_tar") >&2 || true
    fail=1
fi

if ((fail)); then
    echo "==> package check FAILED" >&2
    exit 1
fi
echo "==> $CRATE packages: $count files, $bytes bytes"
