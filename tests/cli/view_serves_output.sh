#!/usr/bin/env bash
# `concord view` end to end without a browser: it prints the URL, serves the viewer and the
# output directory on 127.0.0.1, refuses paths outside them, and stops by itself (--max-seconds).
set -uo pipefail
source "$2/tests/cli/data/checks.sh" "$@"
# The shared set-up's trap, plus stopping a server still running.
pid=""
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$tmp"' EXIT

bash "$src/tests/export/make_small_output.sh" "$tmp/out" 4
mkdir -p "$tmp/assets"
echo '<html>test viewer</html>' >"$tmp/assets/index.html"
echo 'secret' >"$tmp/secret.txt"

"$concord" view "$tmp/out" --assets "$tmp/assets" --max-seconds 20 >"$tmp/stdout" 2>"$tmp/stderr" &
pid=$!
url=""
for _ in $(seq 50); do
    url="$(grep -o 'http://127.0.0.1:[0-9]*/' "$tmp/stdout" | head -1)"
    [ -n "$url" ] && break
    sleep 0.1
done
[ -n "$url" ] || { cat "$tmp/stdout" "$tmp/stderr"; fail "no URL printed"; exit 1; }
ok "printed $(head -1 "$tmp/stdout")"
port="${url#http://127.0.0.1:}"
port="${port%/}"

# get PATH: the raw HTTP response to "GET PATH" (bash's /dev/tcp; no curl needed).
get() {
    exec 3<>"/dev/tcp/127.0.0.1/$port" || return 1
    printf 'GET %s HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n' "$1" >&3
    timeout 5 cat <&3
    exec 3<&-
}
expect() {  # expect PATH STATUS [TEXT]
    local reply
    reply="$(get "$1" | tr -d '\r')"
    if ! head -1 <<<"$reply" | grep -q " $2 "; then
        fail "GET $1: expected $2, got: $(head -1 <<<"$reply")"
    elif [ -n "${3:-}" ] && ! grep -qF -- "$3" <<<"$reply"; then
        fail "GET $1: body lacks '$3'"
    elif grep -q secret <<<"$reply"; then
        fail "GET $1: leaked a file outside the served folders"
    else
        ok "GET $1 -> $2"
    fi
}
expect / 200 "test viewer"
expect /data/bodies.json 200 '"name": "box"'
expect /data/frames.jsonl 200 '"frame": 3'
expect /data/meshes/box.obj 200 "v -0.5 -0.5 -0.5"
expect /data/missing.json 404
expect /../secret.txt 400
expect /data/../../secret.txt 400
expect /data/%2e%2e/%2e%2e/secret.txt 400
expect "/data/..%2Fsecret.txt" 400

kill "$pid"
wait "$pid"
rc=$?
pid=""
[ "$rc" -eq 0 ] || fail "view exited with $rc after SIGTERM"
if grep -q "stopped after" "$tmp/stdout"; then
    ok "stops cleanly on SIGTERM"
else
    fail "no stop message"
fi

finish
