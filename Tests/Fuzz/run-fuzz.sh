#!/usr/bin/env bash
# Runs the libFuzzer harness (built by `make fuzz`) on each target for FUZZ_SECONDS from its
# checked-in seed corpus, one target at a time. The checked-in corpus is read, never written:
# what a run adds goes to out/fuzz/corpus/<target>/. A crash, a broken invariant (abort), a
# timeout (one input over 10 s) or an out-of-memory (2 GiB, or one allocation over it) stops
# that target and fails the run; the input is saved under out/fuzz/artifacts/<target>/.
# Each target's executions and coverage go to out/fuzz/summary.txt (docs/fuzzing.md).
#
#   run-fuzz.sh HARNESS SECONDS [TARGET]
set -uo pipefail

HARNESS=$1
SECONDS_PER_TARGET=$2
ONLY=${3:-}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
FUZZ="$ROOT/Tests/Fuzz"
OUT="$ROOT/out/fuzz"
mapfile -t TARGETS < <(FUZZ_TARGET=list "$HARNESS")
[ "${#TARGETS[@]}" -gt 0 ] || { echo "fuzz: $HARNESS lists no target" >&2; exit 1; }

if [ -n "$ONLY" ]; then
    [[ " ${TARGETS[*]} " == *" $ONLY "* ]] || { echo "fuzz: unknown FUZZ_TARGET '$ONLY'; one of: ${TARGETS[*]}" >&2; exit 64; }
    TARGETS=("$ONLY")
fi
mkdir -p "$OUT"
SUMMARY="$OUT/summary.txt"
printf '%-18s %10s %8s %8s %8s %s\n' target executions exec/s cov ft result >"$SUMMARY"
failed=0
for target in "${TARGETS[@]}"; do
    corpus="$OUT/corpus/$target"
    artifacts="$OUT/artifacts/$target"
    log="$OUT/$target.log"
    rm -rf "$corpus" "$artifacts"
    mkdir -p "$corpus" "$artifacts"
    # Room for the mutations to grow the largest seed (packages are tens of KB).
    largest=$(find "$FUZZ/corpus/$target" -type f -printf '%s\n' | sort -n | tail -1)
    max_len=$(( largest + largest / 4 + 4096 ))
    echo "fuzz: $target for ${SECONDS_PER_TARGET}s (max_len $max_len)"
    # The harness defines a custom mutator (for the archive targets), which turns libFuzzer's
    # length control off by default; it is turned back on at its default strength.
    FUZZ_TARGET=$target ASAN_OPTIONS=detect_leaks=0:allocator_may_return_null=0 "$HARNESS" \
        -max_total_time="$SECONDS_PER_TARGET" -timeout=10 -rss_limit_mb=2048 -max_len="$max_len" -len_control=100 \
        -print_final_stats=1 -artifact_prefix="$artifacts/" "$corpus" "$FUZZ/corpus/$target" >"$log" 2>&1
    status=$?
    executions=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    speed=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
    cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1 | cut -d' ' -f2)
    ft=$(grep -o 'ft: [0-9]*' "$log" | tail -1 | cut -d' ' -f2)
    if [ "$status" -eq 0 ]; then result=ok; else result="FAILED (exit $status; see $log)"; failed=1; fi
    printf '%-18s %10s %8s %8s %8s %s\n' "$target" "${executions:-?}" "${speed:-?}" "${cov:-?}" "${ft:-?}" "$result" | tee -a "$SUMMARY"
    if [ "$status" -ne 0 ]; then
        grep -E 'ERROR: (AddressSanitizer|libFuzzer)|fuzz target|Fatal error|SUMMARY' "$log" | head -5 >&2
        ls "$artifacts" >&2
    fi
done
echo "fuzz: summary in $SUMMARY"
exit "$failed"
