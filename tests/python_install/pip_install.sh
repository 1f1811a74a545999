#!/usr/bin/env bash
# `pip install .` from scratch (issue 19): copies the source tree to a scratch folder (the files
# git tracks plus untracked ones it does not ignore, as they are in the working tree: no build
# folder, no viewer/node_modules, no out/), makes a virtual environment that sees the system's
# packages, installs the module into it with `pip install --no-build-isolation .` without
# CONCORD_CMAKE_BUILD_DIR and without any index (nothing from PyPI), so that setup.py configures
# and builds its own build-python/ from nothing, then imports `concord` from the venv outside the
# source tree and simulates a few steps.
#
#   tests/python_install/pip_install.sh SOURCE_DIR
#
# CTest runs it as python.pip_install (labels python and long). It compiles the library once, which
# takes ~7 minutes on 2 cores; with ccache and an earlier build of the same sources made with
# CCACHE_BASEDIR set to their tree (scripts/setup.sh sets it), the compiler cache serves the
# objects and it takes about half a minute. Exits 77 (skip) when something it needs is missing
# (python3-venv, python3-setuptools, python3-wheel, python3-numpy, pybind11-dev).
# PYTHON picks the interpreter (default /usr/bin/python3); KEEP=1 keeps the scratch folder.
set -euo pipefail
src="$(cd "${1:?usage: pip_install.sh SOURCE_DIR}" && pwd)"
python="${PYTHON:-/usr/bin/python3}"

skip() { echo "SKIP: $1"; exit 77; }
[ -x "$python" ] || skip "no $python"
for m in venv ensurepip setuptools wheel numpy; do
    "$python" -c "import $m" 2>/dev/null || skip "python module $m missing for $python (Debian: python3-venv, python3-setuptools, python3-wheel, python3-numpy)"
done
pybind11_config=""
for d in /usr/lib/cmake/pybind11 /usr/share/cmake/pybind11 /usr/local/lib/cmake/pybind11 /usr/local/share/cmake/pybind11; do
    if [ -f "$d/pybind11Config.cmake" ]; then pybind11_config="$d"; break; fi
done
[ -n "$pybind11_config" ] || "$python" -c "import pybind11" 2>/dev/null || skip "pybind11 not found (Debian: pybind11-dev)"
for tool in cmake ninja; do command -v "$tool" >/dev/null || skip "$tool missing"; done

scratch="$(mktemp -d "${TMPDIR:-/tmp}/concord-pip-install.XXXXXX")"
cleanup() {
    if [ "${KEEP:-0}" = 1 ]; then echo "kept $scratch"; else rm -rf "$scratch"; fi
}
trap cleanup EXIT
copy="$scratch/concord"
mkdir -p "$copy"

# The copy: git's view of the working tree when SOURCE_DIR is a checkout, else everything but
# the usual build products.
start=$SECONDS
if git -C "$src" rev-parse --show-toplevel >/dev/null 2>&1 &&
   [ "$(git -C "$src" rev-parse --show-toplevel)" = "$src" ]; then
    git -C "$src" ls-files -z --cached --others --exclude-standard |
        while IFS= read -r -d '' f; do
            if [ -f "$src/$f" ]; then printf '%s\0' "$f"; fi   # not files deleted in the work tree
        done |
        tar -C "$src" --null -T - -cf - | tar -C "$copy" -xf -
else
    tar -C "$src" --exclude='./build*' --exclude='./out' --exclude='node_modules' \
        --exclude='./viewer/dist' -cf - . | tar -C "$copy" -xf -
fi
if compgen -G "$copy/build*" >/dev/null; then
    echo "FAIL: the scratch copy has a build folder: $(echo "$copy"/build*)"; exit 1
fi
echo "copied $(find "$copy" -type f | wc -l) files to $copy in $((SECONDS - start)) s"

start=$SECONDS
"$python" -m venv --system-site-packages "$scratch/venv"
venv_python="$scratch/venv/bin/python"
echo "venv: $("$venv_python" --version) in $scratch/venv"

# pip builds in the tree (pip >= 21.3); setup.py picks build-python/ itself. CCACHE_BASEDIR makes
# the compiler cache's keys independent of where the copy lies.
log="$scratch/pip.log"
status=0
(cd "$copy" && env -u CONCORD_CMAKE_BUILD_DIR CCACHE_BASEDIR="$copy" PIP_NO_INDEX=1 \
     PIP_DISABLE_PIP_VERSION_CHECK=1 "$venv_python" -m pip install -v --no-build-isolation .) \
    >"$log" 2>&1 || status=$?
if [ "$status" -ne 0 ]; then
    tail -n 80 "$log"
    echo "FAIL: pip install exited with $status"; exit 1
fi
# Warnings: the compiler's and the linker's fail the test; other tools' are shown.
diagnostics='^\s*\S+:[0-9]+:([0-9]+:)? warning:|(^|\s|/)ld: warning:'
echo "pip install: $((SECONDS - start)) s ($(grep -c '\] Building CXX' "$log" || true) compiled," \
     "$(grep -cE "$diagnostics" "$log" || true) compiler or linker warnings)"
grep -v -E "$diagnostics" "$log" | grep -i 'warning' | sed 's/^ */  note: /' || true
if grep -E "$diagnostics" "$log"; then echo "FAIL: the build has warnings"; exit 1; fi
[ -d "$copy/build-python" ] || { echo "FAIL: setup.py made no build-python/ in the copy"; exit 1; }

# Import from the venv, away from the source tree, and simulate.
cd "$scratch"
"$venv_python" - "$copy/scenes/box-on-ground.json" "$scratch/venv" <<'PY'
import os
import sys

import concord

scene, venv = sys.argv[1], os.path.realpath(sys.argv[2])
where = os.path.realpath(concord.__file__)
assert where.startswith(venv + os.sep), f"concord imported from {where}, not from the venv {venv}"
world = concord.World(scene)
stats = world.step(5)
assert world.step_count == 5 and world.time > 0, (world.step_count, world.time)
print(f"concord {concord.__version__} from {where}: {world.num_bodies} bodies, t = {world.time:.3f} s, "
      f"{stats.newton_iterations} Newton iterations in the last step")
PY
echo "PASS"
