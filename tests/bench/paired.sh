#!/usr/bin/env bash
# bench_paired (bench/paired/bench_paired.cpp): one JSON object per step and a summary; the
# distributed fluid takes the single machine's pressure iterations in every step (the split is
# exact to rounding); the summary's sums and ratio are those of the steps it lists; bad
# arguments are a usage message with exit code 2.
set -uo pipefail
source "$2/tests/cli/data/checks.sh" "$@"
bench="$1"

# The fluid CLI test's scene: a tank of water with a cork box.
scene="$src/tests/cli/data/fluid_cork.json"

"$bench" "$scene" 2 4 --skip 1 >"$tmp/out.jsonl" 2>"$tmp/err.log" ||
    fail "bench_paired: $(tail -3 "$tmp/err.log")"
if python3 - "$tmp/out.jsonl" <<'PY'; then ok "steps and summary"; else fail "steps and summary"; fi
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
assert len(rows) == 5, rows
steps, s = rows[:4], rows[4]
assert [r["step"] for r in steps] == [1, 2, 3, 4]
for r in steps:
    assert r["t_frame"] > 0 and r["t_parallel"] > 0, r
    assert r["iterations"][0] == r["iterations"][1] >= 2, r  # pressure iterations, both sides
assert s["workers"] == 2 and s["steps"] == 4 and s["skipped"] == 1, s
t1 = sum(r["t_frame"] for r in steps[1:]); tp = sum(r["t_parallel"] for r in steps[1:])
assert abs(s["t_frame"] - t1) < 1e-5 and abs(s["t_parallel"] - tp) < 1e-5, (s, t1, tp)
assert abs(s["speedup"] - t1 / tp) < 1e-3 * s["speedup"], s
PY

for args in "$scene 1 4" "$scene 2 0" "$scene 2 4 --frames 3"; do
    # shellcheck disable=SC2086
    "$bench" $args >/dev/null 2>"$tmp/err.log"
    code=$?
    [ "$code" -eq 2 ] || fail "bench_paired $args: exit $code, expected 2"
    grep -q "usage: bench_paired" "$tmp/err.log" || fail "bench_paired $args: no usage message"
done
"$bench" "$tmp/missing.json" 2 4 >/dev/null 2>"$tmp/err.log"
[ $? -eq 1 ] || fail "a missing scene: expected exit 1"
grep -q "bench_paired: " "$tmp/err.log" || fail "a missing scene: no message"
finish
