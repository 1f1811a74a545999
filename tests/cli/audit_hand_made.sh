#!/usr/bin/env bash
# `concord audit` on output directories written by hand: clean (exit 0), an intersection between
# bodies or with a plane (exit 1, naming frame and bodies), unreadable input (exit 2).
set -uo pipefail
concord="$1"
src="$2"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
failures=0

fail() {
    echo "FAIL $*" >&2
    failures=$((failures + 1))
}

# make_output DIR: two unit cubes "a" and "b" and the ground plane y = 0; no frames yet.
make_output() {
    mkdir -p "$1/meshes"
    cp "$src/tests/cli/data/cube.obj" "$1/meshes/a.obj"
    cp "$src/tests/cli/data/cube.obj" "$1/meshes/b.obj"
    cat >"$1/bodies.json" <<'JSON'
[{"name": "a", "mesh": "meshes/a.obj", "motion": "dynamic"},
 {"name": "b", "mesh": "meshes/b.obj", "motion": "dynamic"}]
JSON
    echo '{"planes": [{"point": [0, 0, 0], "normal": [0, 1, 0]}]}' >"$1/scene.json"
    : >"$1/frames.jsonl"
}

# frame K XA YA XB YB: a frames.jsonl line with both cubes unrotated at (XA, YA, 0), (XB, YB, 0).
frame() {
    printf '{"frame": %s, "time": %s, "q": [[%s, %s, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1], [%s, %s, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1]], "stats": {"newton_iterations": 0, "contacts": 0, "candidates": 0, "min_distance": null, "t_coll": 0, "t_solve": 0, "t_frame": 0}}\n' \
        "$1" "$1" "$2" "$3" "$4" "$5"
}

# check NAME WANT-RC TEXT DIR: runs concord audit DIR, wants exit WANT-RC and TEXT in its output.
check() {
    local name="$1" want="$2" text="$3" dir="$4" out rc
    out="$("$concord" audit "$dir" 2>&1)"
    rc=$?
    if [ "$rc" -ne "$want" ]; then
        fail "$name: exit code $rc, expected $want (output: $out)"
    elif ! grep -qF -- "$text" <<<"$out"; then
        fail "$name: output lacks '$text': $out"
    else
        echo "ok   $name: $out"
    fi
}

make_output "$tmp/clean"
for k in 0 1 2; do frame "$k" 0 0.6 1.01 0.6 >>"$tmp/clean/frames.jsonl"; done
check clean 0 "clean: no intersection in 3 frames, 2 bodies, 1 plane" "$tmp/clean"
lines="$("$concord" audit "$tmp/clean" | wc -l)"
[ "$lines" -eq 1 ] || fail "clean: expected one summary line, got $lines"

make_output "$tmp/overlap"
{
    frame 0 0 0.6 2 0.6
    frame 1 0 0.6 1.2 0.6
    frame 2 0 0.6 0.8 0.6
    frame 3 0 0.6 0.9 0.6
} >>"$tmp/overlap/frames.jsonl"
check overlap 1 'INTERSECTION in 2 of 4 frames' "$tmp/overlap"
check overlap-names 1 'first at frame 2 (t = 2): bodies "a" and "b"' "$tmp/overlap"

make_output "$tmp/plane"
{
    frame 0 0 0.6 2 0.6
    frame 1 0 0.4 2 0.6
} >>"$tmp/plane/frames.jsonl"
check plane 1 'first at frame 1 (t = 1): body "a" vertex' "$tmp/plane"

# Touching counts as an intersection: the engine promises strictly positive distances.
make_output "$tmp/touch"
frame 0 0 0.5 2 0.6 >>"$tmp/touch/frames.jsonl"
check touch-plane 1 'on or below plane 0' "$tmp/touch"

make_output "$tmp/garbled"
frame 0 0 0.6 2 0.6 >>"$tmp/garbled/frames.jsonl"
echo '{"frame": 1, "time": 1, "q": [[0, 0.6' >>"$tmp/garbled/frames.jsonl"
check garbled 2 "frames.jsonl: line 2: invalid JSON" "$tmp/garbled"

make_output "$tmp/short"
echo '{"frame": 0, "time": 0, "q": [[0, 1, 0, 1, 0, 0, 0, 1, 0, 0, 0], [2, 1, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1]], "stats": {}}' >>"$tmp/short/frames.jsonl"
check row-length 2 "frames.jsonl: line 1: q[0]: expected 12 numbers, got 11" "$tmp/short"

make_output "$tmp/nan"
echo '{"frame": 0, "time": 0, "q": [[NaN, 1, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1], [2, 1, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1]], "stats": {}}' >>"$tmp/nan/frames.jsonl"
check nan 2 "frames.jsonl: line 1: invalid JSON" "$tmp/nan"

make_output "$tmp/nomesh"
rm "$tmp/nomesh/meshes/b.obj"
check missing-mesh 2 "bodies.json: [1].mesh: mesh file not found" "$tmp/nomesh"

make_output "$tmp/badmesh"
echo "v 0 0 zero" >"$tmp/badmesh/meshes/b.obj"
check garbled-mesh 2 "b.obj" "$tmp/badmesh"

make_output "$tmp/noframes"
rm "$tmp/noframes/frames.jsonl"
check missing-frames 2 "frames.jsonl: cannot read file" "$tmp/noframes"

check missing-dir 2 "not an output directory" "$tmp/does-not-exist"

if [ "$failures" -ne 0 ]; then
    echo "$failures failure(s)" >&2
    exit 1
fi
echo "PASS"
