#!/usr/bin/env bash
# A long fuzz campaign over some targets, one after another (issue 8; see FUZZING.md).
#
#   tools/fuzz-campaign.sh SECONDS TARGET...     # e.g. 1200 json_parse jcs_roundtrip
#
# Run two of these side by side on a 2-core machine. Each target starts from its committed
# seed corpus (fuzz/seeds/<target>.tar.gz, unpacked into fuzz/corpus/<target>/) and, when present, its full corpus
# fuzz/corpus-full/<target>/ (gitignored; FUZZING.md says how to get it and merge into it),
# both read-only, and writes new inputs to fuzz/corpus-new/<target>/ (gitignored); a
# failing input goes to fuzz/artifacts/campaign/<target>/. For each target the script prints
# one Markdown row for FUZZING.md's Campaigns table: start (UTC), duration, execs, exec/s,
# edges (libFuzzer `cov:`), result. FUZZ_NICE (default 10) is the scheduling niceness, so
# builds and benchmarks on the same machine keep priority.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root/fuzz"
secs="$1"; shift
logs="$root/fuzz/artifacts/campaign/logs"
mkdir -p "$logs"
# The committed seeds, unpacked into corpus/ (gitignored) where a target has no folder yet.
"$root/tools/fuzz-seeds.sh" unpack "$root/fuzz/corpus" >/dev/null
for t in "$@"; do
    mkdir -p "corpus-new/$t" "$root/fuzz/artifacts/campaign/$t"
    seeds=("corpus/$t")
    [[ -d "corpus-full/$t" ]] && seeds+=("corpus-full/$t")
    cargo +nightly fuzz build -s none "$t" >/dev/null 2>&1
    start="$(date -u '+%Y-%m-%d %H:%M')"
    t0=$(date +%s)
    set +e
    nice -n "${FUZZ_NICE:-10}" cargo +nightly fuzz run -s none "$t" "corpus-new/$t" "${seeds[@]}" -- \
        -dict=json.dict -max_total_time="$secs" -timeout=25 -rss_limit_mb=2048 \
        -print_final_stats=1 -artifact_prefix="$root/fuzz/artifacts/campaign/$t/" \
        > "$logs/$t.log" 2>&1
    rc=$?
    set -e
    t1=$(date +%s)
    execs="$(sed -n 's/^stat::number_of_executed_units: *//p' "$logs/$t.log" | tail -1)"
    rate="$(sed -n 's/^stat::average_exec_per_sec: *//p' "$logs/$t.log" | tail -1)"
    cov="$(grep -Eo 'cov: [0-9]+' "$logs/$t.log" | tail -1 | cut -d' ' -f2)"
    result=none
    [[ $rc -ne 0 ]] && result="FAILED (exit $rc), see $logs/$t.log"
    printf '| `%s` | %s | %s s | %s | %s | %s | %s |\n' "$t" "$start" "$((t1 - t0))" \
        "${execs:-?}" "${rate:-?}" "${cov:-?}" "$result" | tee -a "$logs/rows.md"
done
