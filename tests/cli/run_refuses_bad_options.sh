#!/usr/bin/env bash
# `concord run` refuses a non-empty output directory (without touching it) and bad options, with
# exit code 2 and one line on stderr.
set -uo pipefail
concord="$1"
src="$2"
scene="$src/tests/cli/data/box_on_ground.json"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
failures=0

expect_error() {
    local name="$1" text="$2"
    shift 3
    local err rc
    err="$("$concord" "$@" 2>&1 >/dev/null)"
    rc=$?
    if [ "$rc" -ne 2 ]; then
        echo "FAIL $name: exit code $rc, expected 2 (stderr: $err)" >&2
        failures=$((failures + 1))
    elif ! grep -qF -- "$text" <<<"$err"; then
        echo "FAIL $name: stderr lacks '$text': $err" >&2
        failures=$((failures + 1))
    else
        echo "ok   $name: $err"
    fi
}

mkdir -p "$tmp/full"
echo "precious" >"$tmp/full/notes.txt"
expect_error non-empty "$tmp/full: output directory is not empty (use --force" -- run "$scene" --out "$tmp/full"
if [ "$(ls "$tmp/full")" != "notes.txt" ] || [ "$(cat "$tmp/full/notes.txt")" != "precious" ]; then
    echo "FAIL non-empty: the directory was modified" >&2
    failures=$((failures + 1))
fi
echo "x" >"$tmp/file"
expect_error not-a-dir "$tmp/file: exists and is not a directory" -- run "$scene" --out "$tmp/file"
expect_error workers-zero "--workers: expected an integer >= 1" -- run "$scene" --out "$tmp/w" --workers 0
expect_error frames "--frames: expected an integer >= 0, got -1" -- run "$scene" --out "$tmp/w" --frames -1
expect_error dt "--dt: expected a positive time step" -- run "$scene" --out "$tmp/w" --dt 0
expect_error threads "--threads: expected an integer >= 1" -- run "$scene" --out "$tmp/w" --threads 0
expect_error frames-text "--frames" -- run "$scene" --out "$tmp/w" --frames many
expect_error no-out "--out is required" -- run "$scene"
expect_error missing-scene "$tmp/none.json: cannot read file" -- run "$tmp/none.json" --out "$tmp/w"
expect_error checkpoint-every "--checkpoint-every: expected an integer >= 0 or auto, got -1" -- run "$scene" --out "$tmp/w" --checkpoint-every -1
expect_error resume-and-force "--resume and --force: choose one" -- run "$scene" --out "$tmp/w" --resume --force
# --resume in a folder that holds no run, or another scene's run: refused, nothing touched.
expect_error resume-no-run "$tmp/full: no earlier run to resume" -- run "$scene" --out "$tmp/full" --resume
"$concord" run "$scene" --out "$tmp/done" --frames 3 >/dev/null 2>&1
before="$(md5sum "$tmp/done/frames.jsonl")"
expect_error resume-other-scene "the scene differs from the interrupted run's at /time_step" -- run "$scene" --out "$tmp/done" --resume --dt 0.002
[ "$(md5sum "$tmp/done/frames.jsonl")" = "$before" ] || { echo "FAIL resume-other-scene: frames.jsonl was modified" >&2; failures=$((failures + 1)); }
# Bounded work: an absurd time step ends at once with the reason, not after minutes.
expect_error absurd-dt "would move body \"beam\" about 9.81e+08 m, more than 100 times the scene's size" -- run "$src/scenes/elastic-cantilever.json" --out "$tmp/absurd" --dt 1e4 --frames 1
[ -e "$tmp/w" ] && { echo "FAIL: a refused run created its output directory" >&2; failures=$((failures + 1)); }

if [ "$failures" -ne 0 ]; then
    echo "$failures failure(s)" >&2
    exit 1
fi
echo "PASS"
