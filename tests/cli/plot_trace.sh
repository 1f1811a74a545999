#!/usr/bin/env bash
# `concord plot`: ADMM convergence from a synthetic trace (format in docs/export.md), per-frame
# stats from an output directory, SVG and PNG, and one-line errors.
set -uo pipefail
source "$2/tests/cli/data/checks.sh" "$@"

# Three frames of a converging ADMM: residuals halve each iteration, frame f takes 6 + f.
awk 'BEGIN {
    for (f = 0; f < 3; f++) for (i = 0; i < 6 + f; i++) {
        r = 0.5 ^ i
        printf "{\"frame\": %d, \"iteration\": %d, \"primal_residual\": %.6g, \"dual_residual\": %.6g, \"mse\": %.6g, \"rho\": 100}\n", f, i, r, r / 4, r * r
    }
}' >"$tmp/admm.jsonl"

out="$("$concord" plot "$tmp/admm.jsonl" --out "$tmp/admm.svg" 2>&1)" && grep -q "<svg" "$tmp/admm.svg" &&
    ok "ADMM svg: $out" || fail "ADMM svg: $out"
[ "$(grep -c 'data-series="primal residual"' "$tmp/admm.svg")" -eq 3 ] && ok "one primal line per frame" ||
    fail "primal lines: $(grep -c 'data-series="primal residual"' "$tmp/admm.svg")"
grep -q '>ADMM iterations per frame<' "$tmp/admm.svg" && ok "iterations-per-frame panel" || fail "no per-frame panel"
grep -q '>1e-04<' "$tmp/admm.svg" && ok "log-scale decade labels" || fail "no decade labels"
"$concord" plot "$tmp/admm.jsonl" --frame 2 --out "$tmp/f2.svg" >/dev/null &&
    grep -q 'data-series="primal residual" data-count="8"' "$tmp/f2.svg" && ok "--frame 2: 8 iterations" ||
    fail "--frame 2"
"$concord" plot "$tmp/admm.jsonl" --out "$tmp/admm.png" >/dev/null &&
    [ "$(head -c 8 "$tmp/admm.png" | od -An -tx1 | tr -d ' \n')" = "89504e470d0a1a0a" ] &&
    ok "ADMM png" || fail "ADMM png"

bash "$src/tests/export/make_small_output.sh" "$tmp/out" 7
out="$("$concord" plot "$tmp/out" --out "$tmp/stats.svg" 2>&1)" &&
    grep -q 'data-series="contacts" data-count="7"' "$tmp/stats.svg" && ok "stats from a directory: $out" ||
    fail "stats: $out"
"$concord" plot "$tmp/out/frames.jsonl" --out "$tmp/stats.png" --width 600 >/dev/null && [ -s "$tmp/stats.png" ] &&
    ok "stats from frames.jsonl as png" || fail "stats png"

bad() {  # bad NAME TEXT ARGS...
    local name="$1" text="$2" o rc
    shift 2
    o="$("$concord" plot "$@" 2>&1)"
    rc=$?
    [ "$rc" -eq 2 ] && grep -qF -- "$text" <<<"$o" && [ "$(wc -l <<<"$o")" -eq 1 ] && ok "$name: $o" ||
        fail "$name: rc $rc: $o"
}
bad bad-extension "expected a .svg or .png file name" "$tmp/admm.jsonl" --out "$tmp/x.pdf"
bad missing "no such file or folder" "$tmp/none.jsonl" --out "$tmp/x.svg"
bad missing-frame "no frame 7 in the trace (frames: 0..2)" "$tmp/admm.jsonl" --frame 7 --out "$tmp/x.svg"
echo '{"something": 1}' >"$tmp/other.jsonl"
bad not-a-trace "neither an output directory" "$tmp/other.jsonl" --out "$tmp/x.svg"
echo '{"frame": 0, "iteration": 0, "primal_residual": "big", "dual_residual": 1}' >"$tmp/badtrace.jsonl"
bad bad-trace-line "badtrace.jsonl: line 1: primal_residual" "$tmp/badtrace.jsonl" --out "$tmp/x.svg"

finish
