#!/usr/bin/env bash
# `concord render`: one PNG of a frame, a numbered sequence (and an mp4 when ffmpeg is
# installed), the colour modes, and one-line errors for bad input.
set -uo pipefail
source "$2/tests/cli/data/checks.sh" "$@"

# png_size FILE: "WIDTHxHEIGHT" from the IHDR chunk, or nothing for a file that is not a PNG.
png_size() {
    [ "$(head -c 8 "$1" | od -An -tx1 | tr -d ' \n')" = "89504e470d0a1a0a" ] || return
    od -An -tu1 -j16 -N8 "$1" | awk '{ printf "%dx%d", $1*16777216+$2*65536+$3*256+$4, $5*16777216+$6*65536+$7*256+$8 }'
}

bash "$src/tests/export/make_small_output.sh" "$tmp/out" 6

out="$("$concord" render "$tmp/out" --frame 3 --out "$tmp/a.png" --width 320 --height 200 2>&1)" &&
    [ "$(png_size "$tmp/a.png")" = "320x200" ] && ok "single frame: $out" || fail "single frame: $out"
"$concord" render "$tmp/out" --out "$tmp/last.png" >/dev/null 2>&1 && [ "$(png_size "$tmp/last.png")" = "960x540" ] &&
    ok "default: the last frame at 960x540" || fail "default render"
# Different frames of a moving body give different pictures; the same frame the same picture.
"$concord" render "$tmp/out" --frame 3 --out "$tmp/a2.png" --width 320 --height 200 >/dev/null
"$concord" render "$tmp/out" --frame 0 --out "$tmp/b.png" --width 320 --height 200 >/dev/null
cmp -s "$tmp/a.png" "$tmp/a2.png" && ok "deterministic" || fail "same frame rendered differently"
cmp -s "$tmp/a.png" "$tmp/b.png" && fail "frames 0 and 3 look the same" || ok "frames differ"
# A picture of the scene is not one flat colour: compressed, a flat 320x200 PNG is tiny.
[ "$(stat -c %s "$tmp/a.png")" -gt 2000 ] && ok "picture has content ($(stat -c %s "$tmp/a.png") bytes)" ||
    fail "picture looks empty"

for mode in speed contacts; do
    out="$("$concord" render "$tmp/out" --frame 2 --out "$tmp/$mode.png" --color "$mode" --width 160 --height 100 2>&1)" &&
        [ -n "$(png_size "$tmp/$mode.png")" ] && ok "--color $mode: $(tr '\n' ' ' <<<"$out")" ||
        fail "--color $mode: $out"
done
"$concord" render "$tmp/out" --frame 2 --out "$tmp/cam.png" --camera 0,8,0.01:0,0,0 --fov 60 --no-planes \
    --width 160 --height 100 --supersample 1 >/dev/null 2>&1 && ok "--camera, --fov, --no-planes" || fail "camera options"

out="$("$concord" render "$tmp/out" --frames 2:4 --out "$tmp/seq" --width 160 --height 100 2>&1)"
if [ "$(ls "$tmp/seq"/frame_*.png 2>/dev/null | wc -l)" -eq 3 ] && [ -f "$tmp/seq/frame_00004.png" ]; then
    ok "sequence: $(tr '\n' ' ' <<<"$out")"
else
    fail "sequence: $out"
fi
if command -v ffmpeg >/dev/null; then
    [ -s "$tmp/seq/animation.mp4" ] && ok "mp4 with ffmpeg" || fail "ffmpeg present but no mp4: $out"
else
    grep -q "ffmpeg not found" <<<"$out" && ok "says no mp4 without ffmpeg" || fail "no ffmpeg note: $out"
fi

bad() {  # bad NAME TEXT ARGS...
    local name="$1" text="$2" o rc
    shift 2
    o="$("$concord" render "$@" 2>&1)"
    rc=$?
    [ "$rc" -eq 2 ] && grep -qF -- "$text" <<<"$o" && [ "$(wc -l <<<"$o")" -eq 1 ] && ok "$name: $o" ||
        fail "$name: rc $rc: $o"
}
bad frame-out-of-range "no saved frame 9 (saved frames: 0..5)" "$tmp/out" --frame 9 --out "$tmp/x.png"
bad missing-dir "not an output directory" "$tmp/none" --out "$tmp/x.png"
bad not-png "expected a .png file name" "$tmp/out" --out "$tmp/x.jpg"
bad bad-camera "--camera: expected 3 numbers" "$tmp/out" --out "$tmp/x.png" --camera 1,2
bad bad-color "--color" "$tmp/out" --out "$tmp/x.png" --color rainbow
bad both-frame-options "excludes" "$tmp/out" --out "$tmp/x" --frame 1 --frames 1:2
# Worker colours need a distributed run (tests/cli/render_worker_colours.sh renders one).
bad worker-single-machine "frames.jsonl: --color worker needs a distributed run" "$tmp/out" --out "$tmp/x.png" --color worker
bad unwritable "cannot write PNG" "$tmp/out" --out "$tmp/no/such/dir/x.png"

finish
