#!/usr/bin/env bash
# `concord info` on bad input: exit code 2 and one stderr line naming the file and key at fault.
set -uo pipefail
concord="$1"
src="$2"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
failures=0

# expect_error NAME EXPECTED-TEXT -- ARGS...: runs concord ARGS, wants exit 2 and TEXT on stderr.
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
    elif [ "$(wc -l <<<"$err")" -ne 1 ]; then
        echo "FAIL $name: expected one line on stderr, got: $err" >&2
        failures=$((failures + 1))
    else
        echo "ok   $name: $err"
    fi
}

scene() { printf '%s\n' "$2" >"$tmp/$1"; }

expect_error missing-file "$tmp/none.json: cannot read file" -- info "$tmp/none.json"

scene unknown.json '{"bodies": [{"shape": {"box": {"size": [1, 1, 1]}, "colour": "red"}}]}'
expect_error unknown-key "$tmp/unknown.json: bodies[0].shape: expected an object with exactly one key" -- info "$tmp/unknown.json"
scene unknown2.json '{"bodies": [{"shape": {"box": {}}, "colour": "red"}]}'
expect_error unknown-body-key "$tmp/unknown2.json: bodies[0].colour: unknown key" -- info "$tmp/unknown2.json"

scene nan.json '{"time_step": NaN}'
expect_error nan "$tmp/nan.json: invalid JSON at line 1" -- info "$tmp/nan.json"
scene overflow.json '{"gravity": [0, -1e999, 0]}'
expect_error overflow "$tmp/overflow.json: invalid JSON" -- info "$tmp/overflow.json"
scene syntax.json '{"frames": 3,'
expect_error syntax "$tmp/syntax.json: invalid JSON at line" -- info "$tmp/syntax.json"

scene size.json '{"bodies": [{"shape": {"box": {"size": [1, -1, 1]}}}]}'
expect_error bad-size "$tmp/size.json: bodies[0].shape.box.size: expected an array of 3 positive numbers" -- info "$tmp/size.json"
scene dt.json '{"time_step": 0}'
expect_error zero-dt "$tmp/dt.json: time_step: expected a positive number" -- info "$tmp/dt.json"
scene dup.json '{"bodies": [{"name": "a", "shape": {"box": {}}}, {"name": "a", "shape": {"box": {}}, "position": [3, 0, 0]}]}'
expect_error duplicate-name 'duplicate body name "a"' -- info "$tmp/dup.json"
scene mesh.json '{"bodies": [{"shape": {"mesh": {"file": "missing.obj"}}}]}'
expect_error missing-mesh "$tmp/mesh.json: bodies[0].shape.mesh.file: mesh file not found" -- info "$tmp/mesh.json"
scene overlap.json '{"bodies": [{"name": "a", "shape": {"box": {}}}, {"name": "b", "shape": {"box": {}}, "position": [0.5, 0, 0]}]}'
expect_error overlap "bodies 'a' and 'b' intersect in the initial state" -- info "$tmp/overlap.json"
scene below.json '{"planes": [{}], "bodies": [{"name": "a", "shape": {"box": {}}}]}'
expect_error below-plane "body 'a' is on or below planes[0]" -- info "$tmp/below.json"
printf 'v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n' >"$tmp/open.obj"
scene open.json '{"bodies": [{"name": "sheet", "shape": {"mesh": {"file": "open.obj"}}}]}'
expect_error open-mesh "$tmp/open.json: body 'sheet'" -- info "$tmp/open.json"
expect_error no-argument "scene is required" -- info

if [ "$failures" -ne 0 ]; then
    echo "$failures failure(s)" >&2
    exit 1
fi
echo "PASS"
