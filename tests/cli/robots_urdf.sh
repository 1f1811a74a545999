#!/usr/bin/env bash
# Robots from URDF on the command line: the gripper example runs, audits clean with its adjacent
# links overlapping (contact.exclude in scene.json), and a bad URDF is one line with exit 2.
set -uo pipefail
concord="$1"
src="$2"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

fail() {
    echo "FAIL: $*" >&2
    exit 1
}

"$concord" run "$src/scenes/robot-gripper.json" --out "$tmp/grip" --frames 10 >"$tmp/stdout" 2>&1 ||
    fail "run: $(tail -3 "$tmp/stdout")"
grep -q '"gripper.left_finger"' "$tmp/grip/bodies.json" || fail "no body gripper.left_finger"
grep -q '"exclude"' "$tmp/grip/scene.json" || fail "scene.json has no contact.exclude"
"$concord" audit "$tmp/grip" >"$tmp/audit" 2>&1 || fail "audit: $(cat "$tmp/audit")"
# `concord info` checks the initial state with the same exclusions.
"$concord" info "$src/scenes/robot-arm.json" >"$tmp/info" 2>&1 || fail "info: $(tail -1 "$tmp/info")"
grep -q "no intersection" "$tmp/info" || fail "info: $(tail -1 "$tmp/info")"
# The resolved scene runs on its own (the URDF is expanded into it).
"$concord" run "$tmp/grip/scene.json" --out "$tmp/again" --frames 2 >/dev/null 2>&1 ||
    fail "the resolved scene.json does not run"

# Broken and unsupported URDFs: one line naming the file and the element, exit 2.
mkdir -p "$tmp/bad"
check() {  # URDF text, expected message part
    printf '%s\n' "$1" >"$tmp/bad/r.urdf"
    printf '{"robots": [{"name": "r", "urdf": "r.urdf"}]}\n' >"$tmp/bad/s.json"
    "$concord" run "$tmp/bad/s.json" --out "$tmp/bad/out" --force >"$tmp/out" 2>"$tmp/err"
    rc=$?
    [ "$rc" -eq 2 ] || fail "exit $rc for: $2"
    [ "$(wc -l <"$tmp/err")" -eq 1 ] || fail "not one line: $(cat "$tmp/err")"
    grep -q "r.urdf" "$tmp/err" || fail "the file is not named: $(cat "$tmp/err")"
    grep -qF "$2" "$tmp/err" || fail "expected '$2' in: $(cat "$tmp/err")"
}
check '<robot name="r"><link name="a">' "not a valid URDF"
check '<robot name="r"><link name="a"><collision><geometry><mesh filename="nowhere.stl"/></geometry></collision></link></robot>' \
    "link 'a': mesh 'nowhere.stl' not found"
check '<robot name="r"><link name="a"><collision><geometry><box size="1 1 1"/></geometry></collision></link><link name="b"><collision><geometry><box size="1 1 1"/></geometry></collision></link><joint name="j" type="floating"><parent link="a"/><child link="b"/><origin xyz="0 0 2"/></joint></robot>' \
    "joint 'j': type \"floating\" is not supported"
echo "PASS"
