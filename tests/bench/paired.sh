#!/usr/bin/env bash
# bench_paired (bench/paired/bench_paired.cpp): one JSON object per step and a summary; the
# distributed fluid takes the single machine's pressure iterations in every step (the split is
# exact to rounding); the summary's sums and ratio are those of the steps it lists; bad
# arguments are a usage message with exit code 2; the driver's per-seed table.
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

# The driver's per-trajectory table (scripts/bench_distributed.py paired --seeds): each seed's
# variant draws the scene's jitter from it, one column per seed and the geometric mean.
python3 "$src/scripts/bench_distributed.py" --work "$tmp/work" paired \
    --scene "$src/scenes/spheres-in-box.json" --frames 2 --layouts 2 --repeat 1 --seeds 5,6 \
    --bench "$bench" >"$tmp/seeds.md" 2>"$tmp/err.log" || fail "paired --seeds: $(tail -3 "$tmp/err.log")"
if python3 - "$tmp/seeds.md" "$tmp/work" <<'PY'; then ok "paired --seeds"; else fail "paired --seeds"; fi
import json, math, os, sys
rows = [l for l in open(sys.argv[1]) if l.startswith("| 2 ")]
assert len(rows) == 1, rows
cells = [c.strip().strip("*") for c in rows[0].strip().strip("|").split("|")]
seeds = [float(c.rstrip("x")) for c in cells[1:3]]
geo = float(cells[4].rstrip("x"))
assert all(x > 0 for x in seeds) and abs(geo - math.sqrt(seeds[0] * seeds[1])) < 0.011, cells
for seed in (5, 6):
    scene = json.load(open(os.path.join(sys.argv[2], "paired-w2-x-seed%d.json" % seed)))
    assert [b["array"]["jitter"]["seed"] for b in scene["bodies"] if "array" in b] == [seed]
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
