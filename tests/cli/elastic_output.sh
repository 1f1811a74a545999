#!/usr/bin/env bash
# An elastic scene's output directory: bodies.json names each elastic body's modes file, q rows
# carry the modal coordinates, `concord audit` places the deformed meshes, `concord export`
# (OBJ) writes the deformed vertices x = p + A (X + Phi eta), `concord export` (glTF) adds one
# morph target per mode, and `concord render` draws them.
set -euo pipefail
concord="$1"
src="$2"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

"$concord" run "$src/scenes/elastic-cantilever.json" --out "$tmp/out" --frames 30 >/dev/null 2>&1 ||
    fail "concord run exited with $?"
"$concord" audit "$tmp/out" --quiet | grep -q "^audit: clean: no intersection in 31 frames" ||
    fail "audit: $("$concord" audit "$tmp/out" --quiet 2>&1)"
"$concord" export "$tmp/out" --format obj --out "$tmp/obj" --frames 30:30 >/dev/null ||
    fail "export obj exited with $?"
"$concord" render "$tmp/out" --frame 30 --out "$tmp/frame.png" --width 160 --height 120 >/dev/null ||
    fail "render exited with $?"
[ -s "$tmp/frame.png" ] || fail "render wrote no image"

python3 - "$tmp/out" "$tmp/obj/frame_00030.obj" <<'PY' || fail "exported vertices are not the deformed ones"
import json, sys
out, obj = sys.argv[1], sys.argv[2]
bodies = json.load(open(f"{out}/bodies.json"))
beam = next(i for i, b in enumerate(bodies) if b["name"] == "beam")
assert bodies[beam]["dofs"] > 12 and bodies[beam]["modes"].endswith(".modes.json"), bodies[beam]
modes = json.load(open(f"{out}/{bodies[beam]['modes']}"))
m, n, phi = modes["num_modes"], modes["num_vertices"], modes["values"]
row = [json.loads(l) for l in open(f"{out}/frames.jsonl")][30]["q"][beam]
assert len(row) == 12 + m
p, A, eta = row[:3], row[3:12], row[12:]
X = [[float(t) for t in l.split()[1:4]] for l in open(f"{out}/{bodies[beam]['mesh']}") if l.startswith("v ")]
assert len(X) == n
# The exported OBJ lists the bodies in order; take the beam's block.
objects, current = {}, None
for l in open(obj):
    if l.startswith("o "):
        current = l.split()[1]
        objects[current] = []
    elif l.startswith("v "):
        objects[current].append([float(t) for t in l.split()[1:4]])
xs = objects["beam"]
worst, bent = 0.0, 0.0
for v in range(n):
    Y = [X[v][i] + sum(phi[(3 * v + i) * m + k] * eta[k] for k in range(m)) for i in range(3)]
    x = [p[i] + sum(A[3 * i + j] * Y[j] for j in range(3)) for i in range(3)]
    rigid = [p[i] + sum(A[3 * i + j] * X[v][j] for j in range(3)) for i in range(3)]
    worst = max(worst, max(abs(x[i] - xs[v][i]) for i in range(3)))
    bent = max(bent, max(abs(x[i] - rigid[i]) for i in range(3)))
assert worst < 1e-12, worst
assert bent > 1e-3, bent  # the beam sags under its weight and the hanging load
print(f"ok: {n} beam vertices exported deformed (largest modal displacement {bent:.4f} m)")
PY
# glTF: the beam's modes as morph targets (checked in detail by tests/export/test_gltf_export.cpp);
# the Khronos glTF-Validator and three.js must accept the file when scripts/setup.sh installed them.
out="$("$concord" export "$tmp/out" --format gltf --out "$tmp/elastic.glb" --frames 20:30 2>&1)" ||
    fail "export gltf: $out"
grep -q "1 elastic bodies with one morph target per mode" <<<"$out" || fail "export gltf summary: $out"
if command -v node >/dev/null && [ -d "$src/viewer/node_modules/gltf-validator" ] &&
    [ -d "$src/viewer/node_modules/three" ]; then
    v="$(node "$src/tests/export/validate_gltf.mjs" "$src/viewer" "$tmp/elastic.glb")" ||
        fail "glTF validation of the elastic export: $v"
    # beam, weight and ball move: 3 x (T, R, S) tracks plus the beam's morph weights.
    grep -q "three.js: .*, 10 tracks, 0.1000 s" <<<"$v" || fail "three.js clip: $v"
    echo "$v"
else
    echo "note: gltf-validator or three not installed in viewer/ (scripts/setup.sh); glTF not validated"
fi
echo "elastic output: ok"
