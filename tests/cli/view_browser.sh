#!/usr/bin/env bash
# The web viewer in a real browser: `concord view` serves four small runs (a synthetic one with
# the distributed-run stats, a single-machine one with an unreadable frame line, a real
# `concord run scenes/box-stack.json --frames 3 --workers 2`, a real run with a reduced elastic
# body, scenes/elastic-cantilever.json --frames 20, and a real run with a fluid,
# scenes/dam-break.json --frames 4, also served with one fluid file removed) and tests/viewer/viewer_browser_test.mjs
# drives headless chromium through them. Needs what scripts/setup.sh installs: chromium, node
# and viewer/node_modules + viewer/dist; exits 77 (skip) naming what is missing otherwise.
set -uo pipefail
concord="$1"
src="$2"
tmp="$(mktemp -d)"
pids=()
cleanup() {
    for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
    rm -rf "$tmp"
}
trap cleanup EXIT

chromium="${CHROMIUM:-/usr/bin/chromium}"
for need in "$chromium" "$src/viewer/node_modules/playwright-core/package.json" "$src/viewer/dist/index.html"; do
    if [ ! -e "$need" ]; then
        echo "SKIP: $need not found (run scripts/setup.sh)"
        exit 77
    fi
done
command -v node >/dev/null || { echo "SKIP: node not found (run scripts/setup.sh)"; exit 77; }

make="$src/tests/viewer/make_synthetic_output.mjs"
node "$make" "$tmp/good" --bodies 12 --frames 30 --distributed >/dev/null || exit 1
node "$make" "$tmp/broken" --bodies 4 --frames 10 --bad-line 6 >/dev/null || exit 1
"$concord" run "$src/scenes/box-stack.json" --frames 3 --workers 2 --out "$tmp/dist" >"$tmp/dist-run.log" 2>&1 ||
    { echo "FAIL distributed run: $(cat "$tmp/dist-run.log")"; exit 1; }
"$concord" run "$src/scenes/elastic-cantilever.json" --frames 20 --out "$tmp/elastic" >"$tmp/elastic-run.log" 2>&1 ||
    { echo "FAIL elastic run: $(cat "$tmp/elastic-run.log")"; exit 1; }
"$concord" run "$src/scenes/dam-break.json" --frames 4 --out "$tmp/fluid" >"$tmp/fluid-run.log" 2>&1 ||
    { echo "FAIL fluid run: $(cat "$tmp/fluid-run.log")"; exit 1; }
cp -r "$tmp/fluid" "$tmp/fluid-gap" && rm "$tmp/fluid-gap/fluid/000002.npy" || exit 1

serve() {  # serve DIR LOG: starts concord view, prints its URL
    "$concord" view "$1" --max-seconds 180 >"$2" 2>&1 &
    pids+=($!)
    for _ in $(seq 100); do
        if grep -q 'http://127.0.0.1:' "$2"; then
            grep -o 'http://127.0.0.1:[0-9]*/' "$2" | head -1
            return 0
        fi
        sleep 0.1
    done
    echo "concord view did not start: $(cat "$2")" >&2
    return 1
}
good="$(serve "$tmp/good" "$tmp/good.log")" || exit 1
broken="$(serve "$tmp/broken" "$tmp/broken.log")" || exit 1
dist="$(serve "$tmp/dist" "$tmp/dist.log")" || exit 1
elastic="$(serve "$tmp/elastic" "$tmp/elastic.log")" || exit 1
fluid="$(serve "$tmp/fluid" "$tmp/fluid.log")" || exit 1
fluid_gap="$(serve "$tmp/fluid-gap" "$tmp/fluid-gap.log")" || exit 1
CHROMIUM="$chromium" timeout 150 node "$src/tests/viewer/viewer_browser_test.mjs" "$src/viewer" "$good" "$broken" "$dist" "$elastic" \
    "$fluid" "$fluid_gap"
