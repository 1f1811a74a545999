#!/usr/bin/env bash
# Writes a small output directory by hand (the layout of docs/cli.md, "Output directory") for
# the CLI tests of view, export, render and plot: two cubes (a 1 m one turning as it falls, a
# static 0.5 m one), a ground plane, and FRAMES frames 0.01 s apart.
#   make_small_output.sh DIR [FRAMES]
set -euo pipefail
dir="$1"
frames="${2:-5}"
mkdir -p "$dir/meshes"
cube() {  # cube HALF_SIDE
    local h="$1"
    for i in 0 1 2 3 4 5 6 7; do
        local x=-$h y=-$h z=-$h
        (( i & 1 )) && x=$h
        (( i & 2 )) && y=$h
        (( i & 4 )) && z=$h
        echo "v $x $y $z"
    done
    printf 'f 1 3 4\nf 1 4 2\nf 5 6 8\nf 5 8 7\nf 1 2 6\nf 1 6 5\nf 3 7 8\nf 3 8 4\nf 1 5 7\nf 1 7 3\nf 2 4 8\nf 2 8 6\n'
}
cube 0.5 > "$dir/meshes/box.obj"
cube 0.25 > "$dir/meshes/small.obj"
cat > "$dir/scene.json" <<'JSON'
{"name": "two-boxes", "time_step": 0.01, "gravity": [0, -9.81, 0],
 "planes": [{"point": [0, 0, 0], "normal": [0, 1, 0]}]}
JSON
cat > "$dir/bodies.json" <<'JSON'
[{"name": "box", "mesh": "meshes/box.obj", "motion": "dynamic"},
 {"name": "small", "mesh": "meshes/small.obj", "motion": "static"}]
JSON
: > "$dir/frames.jsonl"
for ((k = 0; k < frames; k++)); do
    awk -v k="$k" 'BEGIN {
        a = 0.3 * k; c = cos(a); s = sin(a); y = 2 - 0.1 * k
        printf "{\"frame\": %d, \"time\": %.2f, \"q\": [[0,%.6f,0,%.17g,0,%.17g,0,1,0,%.17g,0,%.17g],[1.5,0.25,0,1,0,0,0,1,0,0,0,1]], ", k, k * 0.01, y, c, s, -s, c
        printf "\"stats\": {\"newton_iterations\": %d, \"contacts\": %d, \"candidates\": 2, \"min_distance\": 0.01, \"t_coll\": 0.001, \"t_solve\": 0.002, \"t_frame\": 0.004}}\n", 2 + k % 3, k % 2
    }' >> "$dir/frames.jsonl"
done
