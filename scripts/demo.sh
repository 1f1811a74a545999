#!/usr/bin/env bash
# The default demo: runs after scripts/setup.sh has built the project.
set -euo pipefail
build_dir="${1:?usage: demo.sh BUILD_DIR}"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
concord="$build_dir/apps/concord/concord"
out="$root/out/demo-ccd"
mkdir -p "$out"
"$concord" ccd-generate --type vf --count 20000 --seed 1 "$out/vf.csv"
"$concord" ccd "$out/vf.csv" --type vf
echo "demo: queries in $out/vf.csv"
