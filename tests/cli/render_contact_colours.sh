#!/usr/bin/env bash
# stats.body_contacts in frames.jsonl and `concord render --color contacts` on real runs: a 1 m
# box resting on the ground (its four bottom corners within dhat of the plane: 4 point-plane
# pairs, the plane is no body) next to a box falling from 2 m (no pairs), single-machine and
# with --workers 2. The rendered picture is decoded and the box in contact must be in the top
# colour of the ramp and the other one in its bottom colour. An older run without the key
# renders in body colours with a note.
set -uo pipefail
source "$2/tests/cli/data/checks.sh" "$@"
command -v python3 >/dev/null || { echo "SKIP: python3 not found"; exit 77; }
count_colours() { python3 "$src/tests/cli/data/count_colours.py" "$@"; }

cat >"$tmp/scene.json" <<'JSON'
{"name": "contact-colours", "time_step": 0.01, "frames": 3, "gravity": [0, -9.81, 0],
 "contact": {"dhat": 1e-3},
 "planes": [{"point": [0, 0, 0], "normal": [0, 1, 0]}],
 "bodies": [
   {"name": "resting", "shape": {"box": {"size": [1, 1, 1]}}, "position": [-1.5, 0.5005, 0]},
   {"name": "falling", "shape": {"box": {"size": [1, 1, 1]}}, "position": [1.5, 2.5, 0]}]}
JSON
"$concord" run "$tmp/scene.json" --out "$tmp/single" >"$tmp/run.log" 2>&1 ||
    { echo "FAIL single-machine run: $(cat "$tmp/run.log")"; exit 1; }
"$concord" run "$tmp/scene.json" --workers 2 --out "$tmp/dist" >"$tmp/run2.log" 2>&1 ||
    { echo "FAIL distributed run: $(cat "$tmp/run2.log")"; exit 1; }

# Frame 0 holds the default stats (zeros); every later frame the end-of-step counts.
for run in single dist; do
    got="$(python3 - "$tmp/$run/frames.jsonl" <<'PY'
import json, sys
for line in open(sys.argv[1]):
    s = json.loads(line)["stats"]
    print(f'{s["body_contacts"]}/{s["contacts"]}', end=" ")
PY
)"
    [ "$got" = "[0, 0]/0 [4, 0]/4 [4, 0]/4 [4, 0]/4 " ] && ok "$run: body_contacts/contacts per frame: $got" ||
        fail "$run: body_contacts/contacts per frame: $got"
done

# Ramp ends (src/concord/export/palette.cpp): 0 contacts and the run's largest count.
low="0.267,0.005,0.329"
high="0.992,0.906,0.145"
for run in single dist; do
    out="$("$concord" render "$tmp/$run" --frame 2 --color contacts --out "$tmp/$run.png" --width 240 --height 160 \
        --supersample 1 --no-planes 2>&1)" || { fail "$run: --color contacts: $out"; continue; }
    grep -q "body_contacts" <<<"$out" && fail "$run: the run has counts, yet: $out"
    read -r nl nh <<<"$(count_colours "$tmp/$run.png" "$low" "$high")"
    [ "$nl" -gt 200 ] && [ "$nh" -gt 200 ] && ok "$run: --color contacts: $nh px in contact, $nl px without" ||
        fail "$run: --color contacts: $nh px in contact, $nl px without"
    # In frame 0 (no step yet, zeros) both boxes are in the bottom colour.
    "$concord" render "$tmp/$run" --frame 0 --color contacts --out "$tmp/${run}0.png" --width 240 --height 160 \
        --supersample 1 --no-planes >/dev/null 2>&1
    read -r nl nh <<<"$(count_colours "$tmp/${run}0.png" "$low" "$high")"
    [ "$nh" -eq 0 ] && [ "$nl" -gt 400 ] && ok "$run: frame 0: no contacts ($nl px)" ||
        fail "$run: frame 0: $nh px in contact, $nl px without"
done

# A run written before stats.body_contacts existed: body colours and a note, exit 0.
bash "$src/tests/export/make_small_output.sh" "$tmp/old" 3
out="$("$concord" render "$tmp/old" --frame 1 --color contacts --out "$tmp/old.png" --width 80 --height 60 2>&1)" &&
    grep -q "no per-body contact counts in frames.jsonl (stats.body_contacts): using body colours" <<<"$out" &&
    [ -s "$tmp/old.png" ] && ok "older run: $out" || fail "older run: $out"

finish
