#!/usr/bin/env bash
# CI smoke run of every cargo-fuzz target (issue 8; see FUZZING.md).
#
#   FUZZ_SMOKE_SECONDS=30 tools/ci/fuzz-smoke.sh          # every target, 30 s each (default)
#   FUZZ_SMOKE_SECONDS=5 tools/ci/fuzz-smoke.sh json_parse jcs_differential
#
# Installs cargo-fuzz (pinned) if missing, builds the targets once with the nightly
# toolchain (`cargo +nightly fuzz`, debug assertions and overflow checks on, no sanitizer:
# the core forbids `unsafe`), then runs each target for FUZZ_SMOKE_SECONDS seconds from its
# committed seed corpus (fuzz/seeds/<target>.tar.gz, checked and unpacked into a scratch
# directory by tools/fuzz-seeds.sh). The seeds are read, never written: new inputs go to a
# scratch directory. Any crash, panic, timeout (> FUZZ_SMOKE_TIMEOUT s for one input) or
# out-of-memory fails the script after all targets ran; the crashing input is kept under
# FUZZ_SMOKE_ARTIFACTS (default fuzz/artifacts/smoke/<target>/) and printed in base64.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root/fuzz"

readonly CARGO_FUZZ_VERSION=0.13.1
secs="${FUZZ_SMOKE_SECONDS:-30}"
unit_timeout="${FUZZ_SMOKE_TIMEOUT:-25}"
artifacts="${FUZZ_SMOKE_ARTIFACTS:-$root/fuzz/artifacts/smoke}"

if ! cargo fuzz --version >/dev/null 2>&1; then
    echo "==> installing cargo-fuzz $CARGO_FUZZ_VERSION"
    cargo install cargo-fuzz --locked --version "$CARGO_FUZZ_VERSION"
fi
echo "==> $(cargo fuzz --version), $(cargo +nightly --version)"

if [[ $# -gt 0 ]]; then
    targets=("$@")
else
    mapfile -t targets < <(cargo fuzz list)
fi

echo "==> building ${#targets[@]} fuzz targets"
cargo +nightly fuzz build -s none

scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
# The committed seeds (fuzz/seeds/<target>.tar.gz), unpacked for this run only.
"$root/tools/fuzz-seeds.sh" check
"$root/tools/fuzz-seeds.sh" unpack "$scratch/seeds" >/dev/null
failed=()
printf '%-28s %10s %8s %6s  %s\n' target execs exec/s cov result > "$scratch/summary"
for t in "${targets[@]}"; do
    echo "==> fuzz smoke: $t (${secs}s)"
    mkdir -p "$scratch/corpus/$t" "$artifacts/$t"
    seeds=()
    [[ -d "$scratch/seeds/$t" ]] && seeds=("$scratch/seeds/$t")
    set +e
    cargo +nightly fuzz run -s none "$t" "$scratch/corpus/$t" "${seeds[@]}" -- \
        -max_total_time="$secs" -timeout="$unit_timeout" -rss_limit_mb=2048 \
        -dict=json.dict -print_final_stats=1 -artifact_prefix="$artifacts/$t/" \
        > "$scratch/$t.log" 2>&1
    rc=$?
    set -e
    execs="$(sed -n 's/^stat::number_of_executed_units: *//p' "$scratch/$t.log" | tail -1)"
    rate="$(sed -n 's/^stat::average_exec_per_sec: *//p' "$scratch/$t.log" | tail -1)"
    cov="$(grep -Eo 'cov: [0-9]+' "$scratch/$t.log" | tail -1 | cut -d' ' -f2 || true)"
    if [[ $rc -eq 0 ]]; then
        result=ok
    else
        result="FAILED (exit $rc)"
        failed+=("$t")
        grep -E 'panicked|ERROR: libFuzzer|SUMMARY|Test unit written|assert' "$scratch/$t.log" | head -20 || true
        for f in "$artifacts/$t"/*; do
            [[ -f "$f" ]] && echo "crash input $f (base64): $(base64 -w0 "$f" | head -c 4000)"
        done
    fi
    printf '%-28s %10s %8s %6s  %s\n' "$t" "${execs:-?}" "${rate:-?}" "${cov:-?}" "$result" | tee -a "$scratch/summary"
done
echo "==> fuzz smoke summary (${secs}s per target)"
cat "$scratch/summary"
if [[ ${#failed[@]} -gt 0 ]]; then
    echo "fuzz smoke FAILED: ${failed[*]}"
    exit 1
fi
echo "fuzz-smoke: ${#targets[@]} passed, 0 failed"
