#!/usr/bin/env bash
# `concord render --color worker` on a real distributed run (`concord run --workers 2`): bodies
# in the colours of their owning workers from the frame's stats.owners (frame 0, whose stats are
# the defaults, shows frame 1's owners), and a one-line error with exit code 2 for a
# single-machine run. Pixels are checked by decoding the PNG with python3's zlib.
set -uo pipefail
source "$2/tests/cli/data/checks.sh" "$@"
command -v python3 >/dev/null || { echo "SKIP: python3 not found"; exit 77; }

"$concord" run "$src/scenes/box-stack.json" --frames 3 --workers 2 --out "$tmp/dist" >"$tmp/run.log" 2>&1 ||
    { echo "FAIL distributed run: $(cat "$tmp/run.log")"; exit 1; }
"$concord" run "$src/scenes/box-stack.json" --frames 2 --out "$tmp/single" >"$tmp/run1.log" 2>&1 ||
    { echo "FAIL single-machine run: $(cat "$tmp/run1.log")"; exit 1; }

# count_colours PNG R,G,B ...: pixels of each colour, shaded (tests/cli/data/count_colours.py).
count_colours() { python3 "$src/tests/cli/data/count_colours.py" "$@"; }
# Worker colours 0 and 1 (src/concord/export/palette.cpp) and body 0's colour.
w0="0.12,0.47,0.71"
w1="1.0,0.50,0.05"
b0="0.7975,0.3025,0.3025"

python3 - "$tmp/dist/frames.jsonl" >"$tmp/owners.txt" <<'PY' || fail "frames.jsonl has no owners"
import json, sys
frames = [json.loads(l) for l in open(sys.argv[1])]
assert "owners" not in frames[0]["stats"]
for f in frames[1:]:
    print(f["frame"], " ".join(map(str, f["stats"]["owners"])))
PY
owners_of() { awk -v k="$1" '$1 == k { $1 = ""; print }' "$tmp/owners.txt"; }
echo "owners per frame: $(tr '\n' ';' <"$tmp/owners.txt")"

for k in 0 1 3; do
    out="$("$concord" render "$tmp/dist" --frame "$k" --color worker --out "$tmp/w$k.png" --width 240 --height 240 \
        --supersample 1 --no-planes 2>&1)" || { fail "--color worker --frame $k: $out"; continue; }
    owners="$(owners_of $((k == 0 ? 1 : k)))"
    read -r n0 n1 nb <<<"$(count_colours "$tmp/w$k.png" "$w0" "$w1" "$b0")"
    has0=0; has1=0
    grep -qw 0 <<<"$owners" && has0=1
    grep -qw 1 <<<"$owners" && has1=1
    # A worker that owns bodies shows up; one that owns none does not; body colours never do.
    if [ $(( n0 > 50 )) -eq "$has0" ] && [ $(( n1 > 50 )) -eq "$has1" ] && [ "$nb" -eq 0 ] &&
        [ $((has0 + has1)) -ge 1 ]; then
        ok "--color worker --frame $k: owners [$owners]: $n0 px worker 0, $n1 px worker 1, $nb px body colour"
    else
        fail "--color worker --frame $k: owners [$owners]: $n0 px worker 0, $n1 px worker 1, $nb px body colour"
    fi
done
# The same frame in body colours has no worker colours.
"$concord" render "$tmp/dist" --frame 1 --out "$tmp/b1.png" --width 240 --height 240 --supersample 1 --no-planes \
    >/dev/null 2>&1
read -r n0 n1 nb <<<"$(count_colours "$tmp/b1.png" "$w0" "$w1" "$b0")"
[ "$nb" -gt 50 ] && [ "$n0" -eq 0 ] && ok "--color body: body colours ($nb px)" ||
    fail "--color body: $n0 px worker 0, $nb px body 0"
# A sequence in worker colours.
"$concord" render "$tmp/dist" --frames 0:3 --color worker --out "$tmp/seq" --width 80 --height 60 --no-video \
    >/dev/null 2>&1 && [ "$(ls "$tmp/seq"/frame_*.png | wc -l)" -eq 4 ] && ok "--frames 0:3 --color worker" ||
    fail "--frames 0:3 --color worker"

# A single-machine run has no owners: one line, exit code 2.
o="$("$concord" render "$tmp/single" --frame 1 --color worker --out "$tmp/x.png" 2>&1)"
rc=$?
[ "$rc" -eq 2 ] && [ "$(wc -l <<<"$o")" -eq 1 ] && grep -q "frames.jsonl: --color worker needs a distributed run" <<<"$o" &&
    [ ! -e "$tmp/x.png" ] && ok "single-machine run: $o" || fail "single-machine run: rc $rc: $o"

finish
