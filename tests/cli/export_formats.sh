#!/usr/bin/env bash
# `concord export`: glTF binary (checked by the Khronos glTF-Validator and loaded by three.js's
# GLTFLoader when scripts/setup.sh installed them), OBJ and PLY sequences, and bad input.
set -uo pipefail
source "$2/tests/cli/data/checks.sh" "$@"

bash "$src/tests/export/make_small_output.sh" "$tmp/out" 6

out="$("$concord" export "$tmp/out" --format gltf 2>&1)" && [ -s "$tmp/out/animation.glb" ] &&
    grep -q "2 bodies, 2 distinct meshes, 6 keyframes, 1 animated bodies" <<<"$out" &&
    ok "gltf default path: $out" || fail "gltf default: $out"
# The first four bytes of a .glb are "glTF".
[ "$(head -c 4 "$tmp/out/animation.glb")" = "glTF" ] && ok "glb magic" || fail "glb magic"

"$concord" export "$tmp/out" --format gltf --out "$tmp/part.glb" --frames 2:4 --no-planes >/dev/null &&
    ok "gltf --frames 2:4" || fail "gltf --frames"

if command -v node >/dev/null && [ -d "$src/viewer/node_modules/gltf-validator" ] &&
    [ -d "$src/viewer/node_modules/three" ]; then
    if v="$(node "$src/tests/export/validate_gltf.mjs" "$src/viewer" "$tmp/out/animation.glb" "$tmp/part.glb")"; then
        ok "glTF-Validator and three.js accept both files"
        echo "$v"
    else
        fail "glTF validation: $v"
    fi
    grep -q "part.glb: three.js: 2 nodes, 1 clip(s), 3 tracks, 0.0200 s" <<<"$v" &&
        ok "three.js plays 3 keyframes over 0.02 s" || fail "three.js clip of part.glb: $v"
else
    echo "note: gltf-validator or three not installed in viewer/ (scripts/setup.sh); structure checks only"
fi

out="$("$concord" export "$tmp/out" --format obj --out "$tmp/obj" --frames 1: 2>&1)" &&
    [ "$(ls "$tmp/obj" | wc -l)" -eq 5 ] && [ -f "$tmp/obj/frame_00005.obj" ] &&
    ok "obj sequence: $out" || fail "obj sequence: $out"
[ "$(grep -c '^v ' "$tmp/obj/frame_00003.obj")" -eq 16 ] && [ "$(grep -c '^f ' "$tmp/obj/frame_00003.obj")" -eq 24 ] &&
    grep -q '^o box$' "$tmp/obj/frame_00003.obj" && ok "obj frame holds both bodies" || fail "obj content"
# The static 0.5 m cube sits at (1.5, 0.25, 0): its corner (+,+,+) is at (1.75, 0.5, 0.25).
grep -q '^v 1.75 0.5 0.25$' "$tmp/obj/frame_00003.obj" && ok "static body's world vertex" ||
    fail "static body vertex missing: $(grep '^v 1.2' "$tmp/obj/frame_00003.obj" | head -3)"

out="$("$concord" export "$tmp/out" --format ply 2>&1)" && [ -f "$tmp/out/ply/frame_00000.ply" ] &&
    head -c 40 "$tmp/out/ply/frame_00000.ply" | grep -q "format binary_little_endian" &&
    ok "ply sequence: $out" || fail "ply: $out"

bad() {  # bad NAME TEXT ARGS...
    local name="$1" text="$2" o rc
    shift 2
    o="$("$concord" export "$@" 2>&1)"
    rc=$?
    [ "$rc" -eq 2 ] && grep -qF -- "$text" <<<"$o" && [ "$(wc -l <<<"$o")" -eq 1 ] && ok "$name: $o" ||
        fail "$name: rc $rc: $o"
}
bad missing-dir "not an output directory" "$tmp/none" --format gltf
bad frame-out-of-range "no saved frame 50 (saved frames: 0..5)" "$tmp/out" --format obj --frames 50
bad bad-range "--frames: the first frame comes after the last" "$tmp/out" --format gltf --frames 4:2
bad not-glb "a glTF binary's name ends in .glb" "$tmp/out" --format gltf --out "$tmp/x.gltf"
bad bad-format "--format" "$tmp/out" --format fbx
# A killed run's torn last line is skipped with a note; a torn line followed by others is an error.
printf '{"frame": 6, "time": 0.06, "q": [[0' >>"$tmp/out/frames.jsonl"
if out="$("$concord" export "$tmp/out" --format gltf --out "$tmp/t.glb" 2>&1)" &&
    grep -q "note: .*stopped after frame 5.*partial frame line" <<<"$out" && [ -s "$tmp/t.glb" ]; then
    ok "torn-last-line: $(head -1 <<<"$out")"
else
    fail "torn-last-line: $out"
fi
printf '\n{"frame": 7, "time": 0.07, "q": []}\n' >>"$tmp/out/frames.jsonl"
bad truncated "frames.jsonl: line 7" "$tmp/out" --format gltf --out "$tmp/t2.glb"

finish
