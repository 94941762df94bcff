#!/usr/bin/env bash
# The core builds in parts (core/Cargo.toml [features]): checks that every combination that
# matters compiles without a warning, fast (`cargo check`, no codegen): the library with no
# feature (canonical JSON, digests, Ed25519, messages, sessions, offers), with each feature
# alone, with `default`, with every feature, and `small` with and without the defaults; and
# the tests and benches with no feature. The test-only `__test-regressions-weakens-checks`
# is left out of "every feature": it is checked on its own (debug only: a release build
# with it must not compile, which the last step proves).
# Usage: tools/ci/core-features.sh   (from anywhere; uses the workspace target dir)
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"

features=(aip attestation consensus es256 profiles schema serde small)
all="$(IFS=,; echo "${features[*]}")"

# A warning (dead code left behind by a gate, an unused import) fails the check. Not
# RUSTFLAGS=-D warnings: that would rebuild every dependency apart from the other builds;
# cargo replays a cached crate's warnings, so reading them is enough.
check() {
    echo "==> cargo check -p concordia-core $*"
    local out
    out=$(cargo check --locked -p concordia-core --message-format short "$@" 2>&1) || {
        echo "$out" >&2
        exit 1
    }
    if grep -q "warning" <<<"$out"; then
        echo "$out" >&2
        echo "core-features: warnings with $*" >&2
        exit 1
    fi
}

check --lib --no-default-features
for f in "${features[@]}"; do
    check --lib --no-default-features --features "$f"
done
check --lib
check --lib --no-default-features --features "$all"
check --lib --features small
check --lib --no-default-features --features __test-regressions-weakens-checks
# The tests and benches of the smallest core compile too (those of a part it lacks are
# gated off by that part's feature).
check --all-targets --no-default-features

# The weakened checks never ship: an optimized build with the test-only feature fails with
# the guard's message (src/profiles.rs), and fails for that reason, not another.
echo "==> cargo check -p concordia-core --release --features __test-regressions-weakens-checks (must fail)"
if out=$(cargo check --locked --quiet -p concordia-core --lib --release \
    --features __test-regressions-weakens-checks 2>&1); then
    echo "core-features: a release build with __test-regressions-weakens-checks compiled" >&2
    exit 1
fi
grep -q "cannot be enabled in a release build" <<<"$out" || {
    echo "core-features: the release build failed for another reason:" >&2
    echo "$out" >&2
    exit 1
}
echo "core-features: every feature combination checked"
