#!/usr/bin/env bash
# The viewer's data modules (frames.jsonl parsing, OBJ reader, colours, adaptive resolution)
# under node's test runner; no browser needed. Exits 77 (skip) without node.
set -uo pipefail
src="$2"
command -v node >/dev/null || { echo "SKIP: node not found (run scripts/setup.sh)"; exit 77; }
exec node --test "$src/tests/viewer/test_viewer_modules.mjs"
