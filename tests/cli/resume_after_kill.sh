#!/usr/bin/env bash
# `concord run --resume` after SIGKILL (issue 18): a run killed at random moments (seeded) and
# resumed each time ends with the same output directory as a run never interrupted: frames.jsonl
# equal line for line but for the timings (t_*), every other file byte for byte. On one machine,
# with 2 in-process workers, and over MPI (controller + 2 workers; skipped without mpirun).
set -uo pipefail
concord="$1"
src="$2"
tmp="$(mktemp -d)"
trap 'pkill -9 -f -- "--out $tmp/" 2>/dev/null; rm -rf "$tmp"' EXIT
RANDOM=18  # the kill moments are random but the same on every run of this test

fail() {
    echo "FAIL: $*" >&2
    exit 1
}

scene="$src/scenes/spheres-in-box.json"
frames=30
common=(--frames "$frames" --checkpoint-every 3 --threads 1)

# Same frames (timings aside) and the same other files.
compare() {  # reference dir, resumed dir, label
    python3 - "$1/frames.jsonl" "$2/frames.jsonl" <<'PY' || fail "$3: frames.jsonl differs from the uninterrupted run"
import json, sys
def strip(x):
    if isinstance(x, dict): return {k: strip(v) for k, v in x.items() if not k.startswith("t_")}
    if isinstance(x, list): return [strip(v) for v in x]
    return x
a, b = ([strip(json.loads(l)) for l in open(p)] for p in sys.argv[1:3])
if len(a) != len(b): sys.exit(f"{len(a)} frames against {len(b)}")
for x, y in zip(a, b):
    if x != y: sys.exit(f"frame {x['frame']} differs")
PY
    diff -r -q -x frames.jsonl "$1" "$2" >"$tmp/diff" || fail "$3: files differ: $(cat "$tmp/diff")"
}

lines() { [ -f "$1/frames.jsonl" ] && wc -l <"$1/frames.jsonl" || echo 0; }

# Runs `launcher concord run ... --resume` until it finishes, killing it (SIGKILL, every process
# of the run) `kills` times at random moments: after a random number of new frame lines, then
# a random 0-30 ms (so some kills land inside a frame, a frame line or a checkpoint write).
killed_runs() {  # label, out dir, kills, launcher words..., -- , concord arguments...
    local label="$1" out="$2" kills="$3"
    shift 3
    local launcher=()
    while [ "$1" != "--" ]; do launcher+=("$1"); shift; done
    shift
    local k
    for k in $(seq 1 "$kills"); do
        local before target
        before="$(lines "$out")"
        target=$((before + 1 + RANDOM % 6))
        "${launcher[@]}" "$concord" run "$scene" --out "$out" "$@" --resume >"$tmp/$label.$k.log" 2>&1 &
        local pid=$!
        while kill -0 "$pid" 2>/dev/null && [ "$(lines "$out")" -lt "$target" ]; do sleep 0.01; done
        sleep "0.0$((RANDOM % 4))"
        pkill -9 -f -- "--out $out " 2>/dev/null
        wait "$pid" 2>/dev/null
        echo "$label: kill $k after $(lines "$out") frame lines"
    done
    "${launcher[@]}" "$concord" run "$scene" --out "$out" "$@" --resume >"$tmp/$label.last.log" 2>&1 ||
        fail "$label: the last resume failed: $(tail -3 "$tmp/$label.last.log")"
    grep -q "resuming\|no earlier run\|no checkpoint" "$tmp/$label".*.log || fail "$label: never resumed"
}

check_mode() {  # label, launcher words..., --, extra concord arguments...
    local label="$1"
    shift
    local launcher=()
    while [ "$1" != "--" ]; do launcher+=("$1"); shift; done
    shift
    "${launcher[@]}" "$concord" run "$scene" --out "$tmp/$label-ref" "${common[@]}" "$@" >"$tmp/$label-ref.log" 2>&1 ||
        fail "$label: reference run: $(tail -3 "$tmp/$label-ref.log")"
    killed_runs "$label" "$tmp/$label-res" 4 "${launcher[@]}" -- "${common[@]}" "$@"
    compare "$tmp/$label-ref" "$tmp/$label-res" "$label"
    "$concord" audit "$tmp/$label-res" >/dev/null 2>&1 || fail "$label: the resumed output does not audit clean"
    echo "$label: identical to the uninterrupted run"
}

check_mode single env --
check_mode workers2 env -- --workers 2
if command -v mpirun >/dev/null 2>&1; then
    check_mode mpi mpirun --allow-run-as-root --oversubscribe -np 3 -- --mpi
else
    echo "mpirun not installed: the MPI case is skipped"
fi
echo PASS
