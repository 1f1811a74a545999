#!/usr/bin/env bash
# The viewer's data modules (frames.jsonl parsing, OBJ reader, colours, adaptive resolution,
# levels of detail, draw list) under node's test runner; no browser needed. Exits 77 (skip)
# without node or without viewer/node_modules (three.js), which scripts/setup.sh installs.
set -uo pipefail
src="$2"
command -v node >/dev/null || { echo "SKIP: node not found (run scripts/setup.sh)"; exit 77; }
[ -e "$src/viewer/node_modules/three/package.json" ] ||
    { echo "SKIP: $src/viewer/node_modules/three not found (run scripts/setup.sh)"; exit 77; }
exec node --test "$src/tests/viewer/test_viewer_modules.mjs"
