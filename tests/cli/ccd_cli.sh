#!/usr/bin/env bash
# End-to-end test of `concord ccd-generate` and `concord ccd`: generated queries give valid JSON
# with zero false negatives; bad input exits 2 with a one-line message.
# Usage: ccd_cli.sh CONCORD_BINARY SOURCE_DIR
set -euo pipefail
concord="${1:?usage: ccd_cli.sh CONCORD_BINARY SOURCE_DIR}"
source_dir="${2:?usage: ccd_cli.sh CONCORD_BINARY SOURCE_DIR}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

fail() { echo "FAIL: $*" >&2; exit 1; }

# The last output line must be one JSON object with zero false negatives and the right count.
check_json() {  # check_json OUTPUT_FILE EXPECTED_QUERIES
    local last
    last="$(tail -n 1 "$1")"
    python3 - "$last" "$2" <<'PY' || fail "bad JSON summary: $last"
import json, sys
s = json.loads(sys.argv[1])
assert set(s) == {"queries", "positives", "false_negatives", "false_positives", "mean_us"}, s
assert s["queries"] == int(sys.argv[2]), s
assert s["false_negatives"] == 0, s
assert 0 <= s["false_positives"] <= s["positives"] <= s["queries"], s
assert s["mean_us"] >= 0, s
PY
}

for type in vf ee; do
    for kind in ordinary hard; do
        csv="$work/$type-$kind.csv"
        "$concord" ccd-generate "$csv" --type "$type" --count 300 --seed 5 --kind "$kind" \
            > "$work/gen.out" || fail "ccd-generate $type $kind"
        [ "$(wc -l < "$csv")" -eq 2400 ] || fail "$csv should have 8 rows per query"
        "$concord" ccd "$csv" --type "$type" > "$work/run.out" || fail "ccd $type $kind"
        check_json "$work/run.out" 300
    done
done

# Same seed, same file; a minimum separation and repeats are accepted.
"$concord" ccd-generate "$work/again.csv" --type vf --count 300 --seed 5 > /dev/null
cmp -s "$work/again.csv" "$work/vf-ordinary.csv" || fail "ccd-generate is not deterministic"
"$concord" ccd "$work/vf-ordinary.csv" --type vf --min-separation 1e-3 --repeat 3 > "$work/run.out"
check_json "$work/run.out" 300

# The hand-made fixtures (with a header line and big-integer rationals).
"$concord" ccd "$source_dir/tests/data/ccd/vf_handmade.csv" --type vf > "$work/run.out"
check_json "$work/run.out" 6
"$concord" ccd "$source_dir/tests/data/ccd/ee_handmade.csv" --type ee > "$work/run.out"
check_json "$work/run.out" 5

# Bad input: exit code 2 and one line on stderr naming the problem.
expect_bad_input() {  # expect_bad_input PATTERN ARGS...
    local pattern="$1"
    shift
    set +e
    "$concord" "$@" > "$work/out" 2> "$work/err"
    local rc=$?
    set -e
    [ "$rc" -eq 2 ] || fail "'$*' exited $rc, expected 2"
    [ "$(wc -l < "$work/err")" -eq 1 ] || fail "'$*' should print one line: $(cat "$work/err")"
    grep -q -- "$pattern" "$work/err" || fail "'$*': message lacks '$pattern': $(cat "$work/err")"
}

expect_bad_input "missing.csv" ccd "$work/missing.csv" --type vf
head -n 12 "$work/vf-ordinary.csv" > "$work/short.csv"
expect_bad_input "short.csv:9: incomplete query" ccd "$work/short.csv" --type vf
{ head -n 3 "$work/ee-hard.csv"; echo "1,2,3,x,5,6,0"; tail -n +5 "$work/ee-hard.csv"; } \
    > "$work/malformed.csv"
expect_bad_input "malformed.csv:4: column y_den is not an integer" ccd "$work/malformed.csv" --type ee
expect_bad_input "" ccd "$work/vf-ordinary.csv" --type xx
expect_bad_input "" ccd "$work/vf-ordinary.csv"
expect_bad_input "rescaling" ccd "$work/vf-ordinary.csv" --type vf --rescaling 1.5
expect_bad_input "" ccd-generate "$work/x.csv" --type vf --count -1
expect_bad_input "cannot open" ccd-generate "$work/no/such/dir/x.csv" --type ee --count 3
echo "ccd_cli: ok"
