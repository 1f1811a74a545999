#!/usr/bin/env bash
# Ctrl-C (SIGINT) stops `concord run` after the current frame with exit code 130 and leaves a
# valid output directory that `concord audit` reads.
set -uo pipefail
concord="$1"
src="$2"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

fail() {
    echo "FAIL: $*" >&2
    exit 1
}

# Many frames, so the run is still going when the signal comes.
"$concord" run "$src/tests/cli/data/box_on_ground.json" --out "$tmp/out" --frames 100000 >"$tmp/stdout" 2>"$tmp/stderr" &
pid=$!
for _ in $(seq 1 600); do
    if [ -f "$tmp/out/frames.jsonl" ] && [ "$(wc -l <"$tmp/out/frames.jsonl")" -ge 3 ]; then break; fi
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
done
kill -INT "$pid" 2>/dev/null || fail "the run ended before it could be interrupted ($(cat "$tmp/stderr"))"
wait "$pid"
rc=$?
cat "$tmp/stdout"
[ "$rc" -eq 130 ] || fail "exit code $rc, expected 130 ($(tail -3 "$tmp/stderr"))"
grep -q "interrupted after frame" "$tmp/stdout" || fail "no interruption summary"
lines="$(wc -l <"$tmp/out/frames.jsonl")"
[ "$lines" -ge 3 ] && [ "$lines" -lt 100001 ] || fail "unexpected frame count $lines"
tail -c 1 "$tmp/out/frames.jsonl" | od -c | grep -q '\\n' || fail "frames.jsonl does not end with a complete line"
"$concord" audit "$tmp/out" || fail "the interrupted output is not valid and clean"
echo "PASS"
