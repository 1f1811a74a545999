#!/usr/bin/env bash
# scripts/al_column_study.py (issue 17 item 5; docs/benchmarks.md, "Twelfth pass"): a dropped,
# offset column of ten crates comes to rest under the barrier (the reference the AL is measured
# against), the study reports it so, and bad options are refused with a message.
set -euo pipefail
source "$2/tests/cli/data/checks.sh" "$@"
command -v python3 >/dev/null || { echo "python3 is needed" >&2; exit 1; }
study="$src/scripts/al_column_study.py"

out="$(python3 "$study" --concord "$concord" --work "$tmp/w" --heights 10 --seeds 1 \
           --set contact.model=barrier)"
echo "$out"
if grep -Eq '^col10-seed1 +(rest|creep) ' <<<"$out" && grep -q 'at rest or creeping: 1 of 1' <<<"$out"; then
    ok "barrier: the dropped column settles"
else
    fail "barrier: the dropped column did not settle"
fi
if [ -f "$tmp/w/col10-seed1/frames.jsonl" ] && [ "$(wc -l < "$tmp/w/col10-seed1/frames.jsonl")" -eq 401 ]; then
    ok "400 frames written"
else
    fail "frames.jsonl missing or short"
fi
if python3 - "$tmp/w/col10-seed1.json" <<'PY'; then
import json, sys
d = json.load(open(sys.argv[1]))
a = d["bodies"][0]["array"]
assert d["contact"]["model"] == "barrier", d["contact"]
assert a["count"] == [1, 10, 1] and a["spacing"] == [0, 0.209, 0], a
assert a["jitter"] == {"position": 0.004, "seed": 1}, a["jitter"]
PY
    ok "the scene has the study's column"
else
    fail "the scene is not the study's column"
fi

# refused DESCRIPTION MESSAGE ARGS...: the study exits non-zero with MESSAGE on stderr.
refused() {
    local what="$1" message="$2"
    shift 2
    if python3 "$study" --concord "$concord" --work "$tmp/b" "$@" 2>"$tmp/err"; then
        fail "$what accepted"
    elif grep -q "$message" "$tmp/err"; then
        ok "$what refused"
    else
        fail "$what: no message"; cat "$tmp/err" >&2
    fi
}
refused "--set without a value" 'expected section.key=value' --set contact.model
refused "--frames below 60" 'at least 60' --frames 30
refused "--heights that is not a list of integers" 'expected integers separated by commas' --heights 1x
finish
