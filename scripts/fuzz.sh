#!/usr/bin/env bash
# Runs every libFuzzer harness of fuzz/ for a bounded time (issue 18; fuzz/README.md).
#
#   scripts/fuzz.sh [--seconds S] [--runs N] [--seed K] [HARNESS ...]
#
# Builds the `fuzz` preset (clang, AddressSanitizer + UndefinedBehaviorSanitizer + libFuzzer
# coverage) in build-fuzz/, then runs each harness (all by default) on a working copy of its seed
# corpus fuzz/corpus/NAME (the seeds in the repository are never changed; new inputs collect in
# build-fuzz/corpus/NAME) for S seconds (default 30) or N runs, with libFuzzer's random seed K
# (default 1, so that a run repeats; 0 lets libFuzzer choose). Limits per input: 10 s, 2 GB.
# Any crash, leak, timeout or out-of-memory stops that harness with its reproducer in
# build-fuzz/artifacts/ and makes the script exit 1. One line per harness: runs, seconds, result.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
seconds=30
runs=""
seed=1
harnesses=()
while [ $# -gt 0 ]; do
    case "$1" in
        --seconds) seconds="$2"; shift 2 ;;
        --runs) runs="$2"; shift 2 ;;
        --seed) seed="$2"; shift 2 ;;
        -h|--help) sed -n 2,12p "$0"; exit 0 ;;
        *) harnesses+=("$1"); shift ;;
    esac
done
if [ ${#harnesses[@]} -eq 0 ]; then
    harnesses=(fuzz_scene_parser fuzz_mesh_reader fuzz_ccd_csv fuzz_state_reader fuzz_output_reader
               fuzz_http_request)
fi
command -v clang++ >/dev/null || { echo "fuzz: clang++ not found (scripts/setup.sh installs clang)" >&2; exit 2; }

cd "$root"
export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$root}"
cmake --preset fuzz >/dev/null
cmake --build --preset fuzz -- -j "${JOBS:-$(nproc)}" "${harnesses[@]}" | grep -v "^\[" || true

# Leaks inside libraries outside the project (assimp) are suppressed; see scripts/lsan.supp.
export LSAN_OPTIONS="${LSAN_OPTIONS:-suppressions=$root/scripts/lsan.supp:print_suppressions=0}"
work="$root/build-fuzz"
mkdir -p "$work/artifacts"
failed=0
for h in "${harnesses[@]}"; do
    corpus="$work/corpus/$h"
    mkdir -p "$corpus"
    cp -n "$root/fuzz/corpus/$h/"* "$corpus/" 2>/dev/null || true
    limit=(-max_total_time="$seconds")
    [ -n "$runs" ] && limit=(-runs="$runs")
    log="$work/$h.log"
    if "$work/fuzz/$h" "${limit[@]}" -seed="$seed" -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
        -artifact_prefix="$work/artifacts/$h-" -print_final_stats=1 "$corpus" >"$log" 2>&1; then
        stats="$(grep -a -o 'Done [0-9]* runs in [0-9]* second(s)' "$log" | tail -1)"
        echo "$h: ${stats:-done}, $(ls "$corpus" | wc -l) inputs in the corpus, no crash, leak or timeout"
    else
        failed=1
        echo "$h: FAILED (log: $log; reproducer in $work/artifacts/):"
        grep -a -E "ERROR|SUMMARY|Test unit written" "$log" | head -5
    fi
done
exit "$failed"
