#!/usr/bin/env bash
# The simulator is deterministic in the thread count: the same scene run with --threads 1 and
# --threads 2 writes bit-identical q in every frame of frames.jsonl. The scenes have real
# contact with friction (64 spheres piling up in a box; a stack of 10 boxes), so the parallel
# broad phase, contact assembly and island solves all take part. Timing statistics differ from
# run to run and are not compared; the work counts (Newton iterations, contacts, per-body
# contacts) must match.
set -euo pipefail
concord="$1"
src="$2"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

fail() {
    echo "FAIL: $*" >&2
    exit 1
}

command -v python3 >/dev/null || fail "python3 is needed to compare frames.jsonl"

# name:frames. spheres-in-box reaches ~120 contacts by frame 25; box-stack settles all 10
# boxes (~1000 contact pairs) within 10 frames; elastic-beams has elastic-elastic contact (the
# upper beam lands at frame ~20) and the gripper elastic pads, joints and friction.
runs=(spheres-in-box:25 box-stack:20 elastic-beams:30 gripper:60)

for run in "${runs[@]}"; do
    scene="${run%%:*}"
    frames="${run##*:}"
    for threads in 1 2; do
        out="$tmp/$scene-t$threads"
        "$concord" run "$src/scenes/$scene.json" --out "$out" --frames "$frames" --threads "$threads" \
            >/dev/null 2>"$out.log" || fail "$scene --threads $threads exited with $? ($(tail -n 1 "$out.log"))"
    done
    python3 - "$tmp/$scene-t1" "$tmp/$scene-t2" "$frames" <<'PY' || fail "$scene: --threads 1 and --threads 2 differ"
import json, sys

one, two, frames = sys.argv[1], sys.argv[2], int(sys.argv[3])
# Numbers are written in shortest round-trip form and Python parses them with correct
# rounding, so comparing the floats with == compares the simulator's doubles bit for bit.
a = [json.loads(line) for line in open(f"{one}/frames.jsonl")]
b = [json.loads(line) for line in open(f"{two}/frames.jsonl")]
assert len(a) == frames + 1, f"{one}: {len(a)} lines, expected {frames + 1}"
assert len(b) == frames + 1, f"{two}: {len(b)} lines, expected {frames + 1}"
contacts = 0
for fa, fb in zip(a, b):
    k = fa["frame"]
    assert fb["frame"] == k, (k, fb["frame"])
    for body, (qa, qb) in enumerate(zip(fa["q"], fb["q"])):
        if qa != qb:
            diff = max(abs(x - y) for x, y in zip(qa, qb))
            sys.exit(f"frame {k}: q[{body}] differs (largest difference {diff:.3g})")
    assert len(fa["q"]) == len(fb["q"]), k
    for key in ("newton_iterations", "contacts", "body_contacts"):
        assert fa["stats"][key] == fb["stats"][key], f"frame {k}: {key} {fa['stats'][key]} vs {fb['stats'][key]}"
    contacts = max(contacts, fa["stats"]["contacts"])
# Identical q would prove little if nothing ever touched.
assert contacts > 0, "no contact in the run: the comparison does not exercise contact"
# And the bodies must have moved, or the comparison is vacuous too.
assert a[-1]["q"] != a[0]["q"], "nothing moved"
print(f"identical q in {len(a)} frames, {len(a[0]['q'])} bodies, up to {contacts} contacts")
PY
    echo "$scene: --threads 1 and --threads 2 agree"
done
echo "PASS"
