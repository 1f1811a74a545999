#!/usr/bin/env bash
# `concord render --frames A:B` with ffmpeg on PATH: besides the PNG sequence, an mp4 that
# ffprobe reads as H.264 in yuv420p with one video frame per selected frame, the picture size
# (odd sizes padded to even), and the frame rate asked for; --no-video makes none. Skipped
# (exit 77) on a machine without ffmpeg/ffprobe; scripts/setup.sh installs them.
set -uo pipefail
source "$2/tests/cli/data/checks.sh" "$@"
for tool in ffmpeg ffprobe; do
    command -v "$tool" >/dev/null || { echo "SKIP: $tool not found (scripts/setup.sh installs ffmpeg)"; exit 77; }
done

bash "$src/tests/export/make_small_output.sh" "$tmp/out" 8

# probe FILE: "codec pix_fmt WIDTHxHEIGHT frames rate" of the first video stream.
probe() {
    ffprobe -v error -select_streams v:0 -count_frames \
        -show_entries stream=codec_name,pix_fmt,width,height,nb_read_frames,r_frame_rate \
        -of default=noprint_wrappers=1 "$1" |
        awk -F= '{ v[$1] = $2 } END { printf "%s %s %sx%s %s %s", v["codec_name"], v["pix_fmt"], v["width"], v["height"], v["nb_read_frames"], v["r_frame_rate"] }'
}

# Frames 2..6 (five pictures); the run's frames are 0.01 s apart, so real time is 100 frames/s.
out="$("$concord" render "$tmp/out" --frames 2:6 --out "$tmp/seq" --width 160 --height 96 2>&1)"
grep -q "wrote $tmp/seq/animation.mp4 at 100 frames/s" <<<"$out" && ok "says: $(tail -1 <<<"$out")" ||
    fail "no mp4 line: $out"
got="$(probe "$tmp/seq/animation.mp4")"
[ "$got" = "h264 yuv420p 160x96 5 100/1" ] && ok "mp4: $got" || fail "mp4: expected h264 yuv420p 160x96 5 100/1, got '$got'"

# Odd sizes are padded by one pixel; --fps sets the rate.
out="$("$concord" render "$tmp/out" --frames 0:2 --out "$tmp/odd" --width 81 --height 45 --fps 24 2>&1)"
got="$(probe "$tmp/odd/animation.mp4")"
[ "$got" = "h264 yuv420p 82x46 3 24/1" ] && ok "odd size, --fps 24: $got" ||
    fail "odd size, --fps 24: expected h264 yuv420p 82x46 3 24/1, got '$got' ($out)"

# The video shows the pictures: its first frame differs from its last, as frames 0 and 2 do.
ffmpeg -v error -i "$tmp/seq/animation.mp4" -f framemd5 - 2>/dev/null | awk -F, '!/^#/ { print $NF }' >"$tmp/md5"
[ "$(wc -l <"$tmp/md5")" -eq 5 ] && [ "$(head -1 "$tmp/md5")" != "$(tail -1 "$tmp/md5")" ] &&
    ok "decoded frames differ" || fail "decoded frames: $(tr '\n' ' ' <"$tmp/md5")"

"$concord" render "$tmp/out" --frames 0:2 --out "$tmp/novideo" --width 80 --height 48 --no-video >/dev/null 2>&1 &&
    [ ! -e "$tmp/novideo/animation.mp4" ] && [ "$(ls "$tmp/novideo"/frame_*.png | wc -l)" -eq 3 ] &&
    ok "--no-video: PNGs only" || fail "--no-video"

finish
