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

if python3 "$study" --concord "$concord" --work "$tmp/b" --set contact.model 2>"$tmp/err"; then
    fail "--set without a value accepted"
elif grep -q 'expected section.key=value' "$tmp/err"; then
    ok "--set without a value refused"
else
    fail "--set without a value: no message"; cat "$tmp/err" >&2
fi
if python3 "$study" --concord "$concord" --work "$tmp/b" --frames 30 2>"$tmp/err"; then
    fail "--frames 30 accepted"
elif grep -q 'at least 60' "$tmp/err"; then
    ok "--frames below 60 refused"
else
    fail "--frames 30: no message"; cat "$tmp/err" >&2
fi
if python3 "$study" --concord "$concord" --work "$tmp/b" --heights 1x 2>"$tmp/err"; then
    fail "--heights 1x accepted"
elif grep -q 'expected integers separated by commas' "$tmp/err"; then
    ok "--heights that is not a list of integers refused"
else
    fail "--heights 1x: no message"; cat "$tmp/err" >&2
fi
finish
