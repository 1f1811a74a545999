#!/usr/bin/env bash
# `concord view` refuses bad input with one clear line and exit code 2: a missing or truncated
# output directory, a port in use, viewer assets that are not there. A broken frame line is only
# a warning (the page shows the message and the frames before it).
set -uo pipefail
source "$2/tests/cli/data/checks.sh" "$@"
# The shared set-up's trap, plus stopping a server still running.
pid=""
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$tmp"' EXIT

mkdir -p "$tmp/assets"
echo '<html></html>' >"$tmp/assets/index.html"

check() {  # check NAME TEXT ARGS...: wants exit 2 and TEXT on one stderr line
    local name="$1" text="$2" out rc
    shift 2
    out="$(timeout 20 "$concord" view "$@" --assets "$tmp/assets" --max-seconds 1 2>&1 >/dev/null)"
    rc=$?
    if [ "$rc" -ne 2 ]; then
        fail "$name: exit code $rc, expected 2 ($out)"
    elif ! grep -qF -- "$text" <<<"$out"; then
        fail "$name: stderr lacks '$text': $out"
    elif [ "$(wc -l <<<"$out")" -ne 1 ]; then
        fail "$name: expected one line, got: $out"
    else
        ok "$name: $out"
    fi
}

check missing-dir "$tmp/nope: not an output directory" "$tmp/nope"
bash "$src/tests/export/make_small_output.sh" "$tmp/no-frames" 3
rm "$tmp/no-frames/frames.jsonl"
check no-frames "frames.jsonl: cannot read file" "$tmp/no-frames"
bash "$src/tests/export/make_small_output.sh" "$tmp/no-bodies" 3
rm "$tmp/no-bodies/bodies.json"
check no-bodies "bodies.json: cannot read file" "$tmp/no-bodies"
bash "$src/tests/export/make_small_output.sh" "$tmp/no-mesh" 3
rm "$tmp/no-mesh/meshes/small.obj"
check no-mesh "mesh file not found" "$tmp/no-mesh"
bash "$src/tests/export/make_small_output.sh" "$tmp/empty" 0
check empty "no frames" "$tmp/empty"

bash "$src/tests/export/make_small_output.sh" "$tmp/ok" 3
out="$("$concord" view "$tmp/ok" --assets "$tmp/nothing-here" 2>&1 >/dev/null)"
[ $? -eq 2 ] && grep -q "no index.html" <<<"$out" && ok "no-assets: $out" ||
    fail "no-assets: $out"

# A port in use: hold one with a first server, then ask for the same port.
"$concord" view "$tmp/ok" --assets "$tmp/assets" --max-seconds 20 >"$tmp/first" 2>&1 &
pid=$!
for _ in $(seq 50); do grep -q 'http://' "$tmp/first" && break; sleep 0.1; done
port="$(grep -o '127.0.0.1:[0-9]*' "$tmp/first" | head -1 | cut -d: -f2)"
check port-in-use "127.0.0.1:$port: port already in use" "$tmp/ok" --port "$port"
kill "$pid"
wait "$pid" 2>/dev/null
pid=""

# A truncated last line (e.g. a run still writing) is a warning, and serving goes on.
bash "$src/tests/export/make_small_output.sh" "$tmp/cut" 3
printf '{"frame": 3, "time": 0.03, "q": [[0, 1' >>"$tmp/cut/frames.jsonl"
out="$(timeout 20 "$concord" view "$tmp/cut" --assets "$tmp/assets" --max-seconds 0.5 2>&1)"
if [ $? -eq 0 ] && grep -q "note: .*stopped after frame 2.*partial frame line" <<<"$out" &&
    ! grep -q "warning" <<<"$out"; then
    ok "truncated-line: a killed run's torn last line is skipped with a note"
else
    fail "truncated-line: $out"
fi

finish
