#!/usr/bin/env bash
# `concord info` on a small valid scene: exit 0 and the documented summary lines.
set -euo pipefail
concord="$1"
src="$2"
out="$("$concord" info "$src/tests/cli/data/box_on_ground.json")"
echo "$out"
expect() {
    if ! grep -qF -- "$1" <<<"$out"; then
        echo "FAIL: expected a line containing: $1" >&2
        exit 1
    fi
}
expect "scene        box-on-ground"
expect "bodies       2 (1 dynamic, 1 static, 0 kinematic)"
expect "planes       1"
expect "triangles    24 (16 vertices)"
expect "DoFs         12 (12 per dynamic body)"
# 7800 kg/m^3 * 1 m^3 + 1000 kg/m^3 * 0.125 m^3
expect "total mass   7925 kg (dynamic bodies 7800 kg)"
expect "bounding box [-0.5, 0.0011, -0.5] to [3.25, 1.25, 0.5] m"
expect "time         10 frames x 1 substeps x 0.01 s = 0.1 s"
expect "the scene is valid"

# --bodies lists every body.
list="$("$concord" info --bodies "$src/tests/cli/data/box_on_ground.json")"
grep -q "crate .*mesh .*static" <<<"$list" || { echo "FAIL: --bodies did not list crate" >&2; exit 1; }
echo "PASS"
