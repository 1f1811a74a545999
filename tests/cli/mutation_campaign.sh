#!/usr/bin/env bash
# Bad input stays a tested property (issue 18): 80 seeded mutants of the example scenes through
# `concord run --frames 1`; every outcome is exit 0 or one line on stderr with exit 2, none over
# 30 s (scripts/mutate_scenes.py; the longer campaigns are in docs/benchmarks.md). Under the
# sanitizers the limit is CONCORD_TIME_SCALE times longer (tests/CMakeLists.txt).
set -uo pipefail
concord="$1"
src="$2"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
limit=$((30 * ${CONCORD_TIME_SCALE:-1}))
python3 "$src/scripts/mutate_scenes.py" --concord "$concord" --count 80 --seed 3 --timeout "$limit" \
    --artifacts "$tmp/mutants" || { echo "FAIL: see the mutants listed above" >&2; exit 1; }
echo PASS
