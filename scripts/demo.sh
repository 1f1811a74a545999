#!/usr/bin/env bash
# The default demo (scripts/setup.sh demo): simulates 64 spheres falling into a box for 0.4 s
# (40 frames, under a minute on 2 cores), audits every saved frame for intersections, renders
# the last frame to a PNG when this build has `concord render`, and prints how to look at it.
#
#   scripts/demo.sh BUILD_DIR [SCENE] [FRAMES]
#
# SCENE is a name from scenes/ (default spheres-in-box); FRAMES defaults to 40 for the default
# scene and to the scene's own frame count otherwise. The output goes to out/demo-SCENE and is
# replaced on every run.
set -euo pipefail
build_dir="${1:?usage: demo.sh BUILD_DIR [SCENE] [FRAMES]}"
scene="${2:-spheres-in-box}"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
concord="$build_dir/apps/concord/concord"
scene_file="$root/scenes/$scene.json"
out="$root/out/demo-$scene"

[ -x "$concord" ] || { echo "demo: $concord not found; build first (scripts/setup.sh build)" >&2; exit 2; }
[ -f "$scene_file" ] || { echo "demo: no scene $scene_file" >&2; exit 2; }

frames_flag=()
if [ -n "${3:-}" ]; then
    frames_flag=(--frames "$3")
elif [ "$scene" = spheres-in-box ]; then
    frames_flag=(--frames 40)
fi

has_command() { "$concord" help 2>/dev/null | grep -qE "^ +$1 "; }

"$concord" info "$scene_file"
echo
"$concord" run "$scene_file" --out "$out" "${frames_flag[@]}" --force
"$concord" audit "$out" --quiet

picture=""
if has_command render; then
    camera=()
    # The default view looks at the box from the side; this one looks in from above.
    if [ "$scene" = spheres-in-box ]; then camera=(--camera 2.2,6,3.4:0,1.1,0); fi
    if "$concord" render "$out" --out "$out/last-frame.png" "${camera[@]}" >/dev/null 2>&1; then
        picture="$out/last-frame.png"
    fi
fi

rel="${out#"$PWD"/}"
echo
echo "demo: the output of scenes/$scene.json is in $rel"
echo "  frames and per-frame solver statistics: $rel/frames.jsonl (format: docs/cli.md)"
echo "  audit it again (exact intersection test of every frame):  $concord audit $rel"
echo "  timing, Newton iterations and contacts:  python3 $root/scripts/frame_stats.py $rel"
if [ -n "$picture" ]; then
    echo "  last frame rendered to ${picture#"$PWD"/}"
fi
if has_command view; then
    echo "  watch it in a browser:  $concord view $rel   (then open the address it prints)"
fi
if has_command render; then
    echo "  render every frame (and an mp4 if ffmpeg is installed):  $concord render $rel --frames 0: --out $rel/png"
fi
