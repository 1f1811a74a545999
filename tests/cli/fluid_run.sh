#!/usr/bin/env bash
# A scene with a fluid (issue 16) through `concord run`: fluid/NNNNNN.npy for every frame (a
# NumPy 1.0 file of float32 (n, 5), read here without numpy), stats.fluid on every line, no
# particle inside a body; a resumed run writes the same fluid files as an uninterrupted one;
# a distributed run (2 workers, in-process and MPI) writes the single-machine run's particles;
# bad fluid input is a one-line error with exit code 2.
set -uo pipefail
concord="$1"
src="$2"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

fail() {
    echo "FAIL: $*" >&2
    exit 1
}

# A 0.2 m tank of water (r = 1 cm) with a cork box floating in it, 6 frames.
cp "$src/tests/cli/data/fluid_cork.json" "$tmp/scene.json"

"$concord" run "$tmp/scene.json" --out "$tmp/out" --threads 2 >"$tmp/run.log" 2>&1 ||
    fail "run: $(tail -3 "$tmp/run.log")"
python3 - "$tmp/out" <<'PY' || fail "fluid output"
import json, os, struct, sys
out = sys.argv[1]
lines = [json.loads(l) for l in open(os.path.join(out, "frames.jsonl"))]
assert len(lines) == 7, len(lines)
for line in lines:
    f = line["stats"]["fluid"]
    path = os.path.join(out, "fluid", "%06d.npy" % line["frame"])
    data = open(path, "rb").read()
    assert data[:6] == b"\x93NUMPY" and data[6:8] == b"\x01\x00", path
    hlen = struct.unpack("<H", data[8:10])[0]
    assert (10 + hlen) % 64 == 0, "header not padded to 64 bytes"
    header = data[10:10 + hlen].decode("latin1")
    n = f["particles"]
    assert header.startswith("{'descr': '<f4', 'fortran_order': False, 'shape': (%d, 5), }" % n), header
    body = data[10 + hlen:]
    assert len(body) == n * 5 * 4, (len(body), n)
    rows = struct.unpack("<%df" % (n * 5), body)
    ys = rows[1::5]
    assert min(ys) > -0.01 and max(ys) < 0.2, (min(ys), max(ys))
    assert all(p >= 0 for p in rows[4::5]), "negative pressure"
    if line["frame"] > 0:
        assert f["substeps"] >= 2 and f["pressure_iterations"] >= 4, f
        assert f["particles_in_bodies"] == 0, f
        assert f["t_fluid"] > 0, f
print("fluid output: %d frames of %d particles" % (len(lines), lines[0]["stats"]["fluid"]["particles"]))
PY

# The audit checks the fluid too: clean here, and a particle moved into the cork is found.
"$concord" audit "$tmp/out" >"$tmp/audit.log" 2>&1 || fail "audit: $(cat "$tmp/audit.log")"
grep -q "^audit: clean: .*fluid particles" "$tmp/audit.log" || fail "audit: $(cat "$tmp/audit.log")"
cp -r "$tmp/out" "$tmp/moved"
python3 - "$tmp/moved" <<'PY'
import json, struct, sys
out = sys.argv[1]
q = [json.loads(l) for l in open(out + "/frames.jsonl")][3]["q"][1]  # the cork at frame 3
path = out + "/fluid/000003.npy"
data = bytearray(open(path, "rb").read())
hlen = struct.unpack("<H", data[8:10])[0]
struct.pack_into("<3f", data, 10 + hlen, q[0], q[1], q[2])  # particle 0 at the cork's centre
open(path, "wb").write(data)
PY
"$concord" audit "$tmp/moved" >"$tmp/audit2.log" 2>&1 && fail "audit missed a particle inside the cork"
grep -q 'FLUID IN BODIES in 1 of 7 frames.*first at frame 3 .*1 particle inside body "cork"' "$tmp/audit2.log" ||
    fail "audit: $(cat "$tmp/audit2.log")"
echo "audit: $(cat "$tmp/audit2.log")"

# PLY export: a point cloud of the fluid beside each frame's meshes.
"$concord" export "$tmp/out" --format ply --out "$tmp/ply" >"$tmp/export.log" 2>&1 || fail "export: $(cat "$tmp/export.log")"
grep -q "and 7 fluid point clouds" "$tmp/export.log" || fail "export: $(cat "$tmp/export.log")"
python3 - "$tmp/ply/fluid_00006.ply" "$tmp/out/fluid/000006.npy" <<'PY' || fail "fluid point cloud"
import sys
ply, npy = open(sys.argv[1], "rb").read(), open(sys.argv[2], "rb").read()
head, _, body = ply.partition(b"end_header\n")
assert b"property float pressure" in head, head
n = int([l for l in head.split(b"\n") if l.startswith(b"element vertex")][0].split()[2])
assert len(body) == 20 * n and npy.endswith(body), "the points are not the frame's particles"
print("export: fluid_00006.ply holds the frame's %d particles" % n)
PY

# Render draws the particles: the picture with them differs from the one without.
"$concord" render "$tmp/out" --frame 6 --width 160 --height 90 --out "$tmp/with.png" >"$tmp/render.log" 2>&1 ||
    fail "render: $(cat "$tmp/render.log")"
grep -q "up to [0-9]* fluid particles per frame" "$tmp/render.log" || fail "render: $(cat "$tmp/render.log")"
"$concord" render "$tmp/out" --frame 6 --width 160 --height 90 --no-fluid --out "$tmp/without.png" >/dev/null 2>&1 ||
    fail "render --no-fluid"
cmp -s "$tmp/with.png" "$tmp/without.png" && fail "render: the particles are not in the picture"
echo "render: $(cat "$tmp/render.log")"

# Distributed (docs/fluids.md "Distributed"): 2 workers in-process, the plane through the water,
# against the single-machine run: the same particles (float32 files within 1e-6 m, pressures
# within 1e-6 of the largest or of 1 Pa), the same bodies (1e-9), the same pressure iterations; resumed from
# a checkpoint, the same bytes; with mpirun, the MPI run's files are the in-process run's bytes.
"$concord" run "$tmp/scene.json" --out "$tmp/dist" --workers 2 --threads 1 >"$tmp/dist.log" 2>&1 ||
    fail "distributed run: $(tail -3 "$tmp/dist.log")"
cat >"$tmp/compare.py" <<'PY'
import json, os, struct, sys
def npy(path):
    data = open(path, "rb").read()
    hlen = struct.unpack("<H", data[8:10])[0]
    body = data[10 + hlen:]
    return struct.unpack("<%df" % (len(body) // 4), body)
a, b = sys.argv[1], sys.argv[2]
la = [json.loads(l) for l in open(os.path.join(a, "frames.jsonl"))]
lb = [json.loads(l) for l in open(os.path.join(b, "frames.jsonl"))]
assert len(la) == len(lb) == 7, (len(la), len(lb))
worst_x = worst_p = worst_q = 0.0
for x, y in zip(la, lb):
    fa, fb = npy(os.path.join(a, "fluid", "%06d.npy" % x["frame"])), npy(os.path.join(b, "fluid", "%06d.npy" % y["frame"]))
    assert len(fa) == len(fb), "particle counts differ"
    top = max(max(fa[4::5]), 1.0)  # Pa: this shallow tank's pressures are ~0 at rest
    for i in range(0, len(fa), 5):
        worst_x = max(worst_x, max(abs(fa[i + k] - fb[i + k]) for k in range(3)))
        worst_p = max(worst_p, abs(fa[i + 4] - fb[i + 4]) / top)
    worst_q = max(worst_q, max(abs(u - v) for ra, rb in zip(x["q"], y["q"]) for u, v in zip(ra, rb)))
    if x["frame"] > 0:
        sa, sb = x["stats"]["fluid"], y["stats"]["fluid"]
        assert sa["pressure_iterations"] == sb["pressure_iterations"], (sa, sb)
        assert sb["particles_in_bodies"] == 0 and sb["particles"] == sa["particles"], sb
assert worst_x < 1e-6 and worst_p < 1e-6 and worst_q < 1e-9, (worst_x, worst_p, worst_q)
print("distributed: largest differences %.2g m, %.2g of the top pressure, %.2g in q" % (worst_x, worst_p, worst_q))
PY
python3 "$tmp/compare.py" "$tmp/out" "$tmp/dist" || fail "distributed fluid differs from one machine"
grep -q '"planes":\[\[' "$tmp/dist/frames.jsonl" || fail "distributed run: no planes in the stats"
"$concord" run "$tmp/scene.json" --out "$tmp/dres" --workers 2 --threads 1 --frames 3 --checkpoint-every 1 >/dev/null 2>&1 ||
    fail "distributed first part"
"$concord" run "$tmp/scene.json" --out "$tmp/dres" --workers 2 --threads 1 --resume >"$tmp/dres.log" 2>&1 ||
    fail "distributed resume: $(tail -3 "$tmp/dres.log")"
for k in 3 4 5 6; do
    cmp -s "$tmp/dist/fluid/00000$k.npy" "$tmp/dres/fluid/00000$k.npy" || fail "distributed resumed fluid frame $k differs"
done
echo "distributed resume: fluid frames 3-6 byte-identical"
if command -v mpirun >/dev/null 2>&1; then
    export OMPI_MCA_btl_vader_single_copy_mechanism=none
    mpi_flags=(--oversubscribe)
    [ "$(id -u)" -eq 0 ] && mpi_flags+=(--allow-run-as-root)
    OMPI_MCA_rmaps_base_oversubscribe=1 timeout 300 mpirun "${mpi_flags[@]}" -np 3 "$concord" run "$tmp/scene.json" \
        --out "$tmp/mpi" --threads 1 --mpi >"$tmp/mpi.log" 2>&1 || fail "MPI run: $(tail -3 "$tmp/mpi.log")"
    for k in 0 1 2 3 4 5 6; do
        cmp -s "$tmp/dist/fluid/00000$k.npy" "$tmp/mpi/fluid/00000$k.npy" || fail "MPI fluid frame $k differs from in-process"
    done
    python3 -c 'import json,sys; a,b=[[json.loads(l)["q"] for l in open(p)] for p in sys.argv[1:]]; sys.exit(a!=b)' \
        "$tmp/dist/frames.jsonl" "$tmp/mpi/frames.jsonl" || fail "MPI q differs from in-process"
    echo "MPI: fluid files and q identical to the in-process run"
else
    echo "note: mpirun not installed, MPI comparison skipped"
fi

# Resume: 3 frames with checkpoints, then on to 6, against the run above.
"$concord" run "$tmp/scene.json" --out "$tmp/res" --frames 3 --checkpoint-every 1 --threads 2 >"$tmp/res1.log" 2>&1 ||
    fail "first part: $(tail -3 "$tmp/res1.log")"
"$concord" run "$tmp/scene.json" --out "$tmp/res" --resume --threads 2 >"$tmp/res2.log" 2>&1 ||
    fail "resume: $(tail -3 "$tmp/res2.log")"
for k in 0 1 2 3 4 5 6; do
    cmp -s "$tmp/out/fluid/00000$k.npy" "$tmp/res/fluid/00000$k.npy" || fail "resumed fluid frame $k differs"
done
echo "resume: the same fluid files as the uninterrupted run"

expect_error() {  # name, expected text, concord arguments...
    local name="$1" text="$2"
    shift 2
    local err rc
    err="$("$concord" "$@" 2>&1 >/dev/null)"
    rc=$?
    [ "$rc" -eq 2 ] || fail "$name: exit code $rc, expected 2 ($err)"
    [ "$(wc -l <<<"$err")" -eq 1 ] || fail "$name: more than one line: $err"
    grep -qF -- "$text" <<<"$err" || fail "$name: '$text' not in: $err"
    echo "ok   $name: $err"
}
python3 - "$tmp/scene.json" "$tmp/inside.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
s["bodies"][1]["position"] = [0, 0.055, 0]
s["bodies"][1]["shape"] = {"box": {"size": [0.1, 0.1, 0.1]}}
json.dump(s, open(sys.argv[2], "w"))
PY
expect_error inside "start inside body \"cork\"" run "$tmp/inside.json" --out "$tmp/x1"
[ ! -e "$tmp/x1/frames.jsonl" ] || fail "inside: output written"
expect_error distributed-inside "start inside body \"cork\"" run "$tmp/inside.json" --out "$tmp/x2" --workers 2
[ ! -e "$tmp/x2/frames.jsonl" ] || fail "distributed-inside: output written"
python3 - "$tmp/scene.json" "$tmp/zero.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
s["fluids"][0]["particle_radius"] = 0
json.dump(s, open(sys.argv[2], "w"))
PY
expect_error zero-radius "fluids[0].particle_radius" run "$tmp/zero.json" --out "$tmp/x3"
