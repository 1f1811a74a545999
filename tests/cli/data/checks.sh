# Shared set-up of the CLI check scripts that count their checks: source it with the script's
# arguments (`source "$2/tests/cli/data/checks.sh" "$@"`). It sets concord (the binary) and src
# (the source tree), makes a scratch folder $tmp removed on exit, and defines ok / fail (one
# line per check, counted) and finish (the summary line; exit status 1 if any check failed).
concord="$1"
src="$2"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
failures=0
passed=0
fail() { echo "FAIL $*" >&2; failures=$((failures + 1)); }
ok() { echo "ok   $*"; passed=$((passed + 1)); }
finish() {
    echo "$passed passed, $failures failed"
    [ "$failures" -eq 0 ]
}
