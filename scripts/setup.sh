#!/usr/bin/env bash
# Sets up Concord on a fresh Debian 12 machine and then runs the demo or the test suite.
#
#   scripts/setup.sh demo   install what is missing, build (Release), run the default demo
#   scripts/setup.sh test   install what is missing, build (Release), run the whole test suite
#   scripts/setup.sh build  install what is missing and build only
#
# Idempotent: packages already installed are not touched, apt-get update runs at most once,
# and an existing build directory is reused. BUILD_DIR (default: build) and JOBS (default: nproc)
# may be set in the environment.
set -euo pipefail

mode="${1:-build}"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build_dir="${BUILD_DIR:-$root/build}"
jobs="${JOBS:-$(nproc)}"

# Every dependency comes from Debian's archive.
packages=(
    build-essential cmake ninja-build pkg-config git ccache
    libeigen3-dev libtbb-dev libgmp-dev
    nlohmann-json3-dev libcli11-dev libspdlog-dev libfmt-dev
    libassimp-dev
    libgtest-dev libgmock-dev libbenchmark-dev
    libpng-dev chromium ffmpeg
    libopenmpi-dev openmpi-bin
    pybind11-dev python3-dev python3-numpy python3-pytest python3-venv
)
# The web viewer is built with Node.js and npm (viewer/). A machine that already has them (e.g.
# from another source) keeps its own: Debian's npm package would clash with it.
if ! command -v npm >/dev/null 2>&1; then packages+=(nodejs npm); fi

install_missing() {
    local missing=()
    for p in "${packages[@]}"; do
        if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
            missing+=("$p")
        fi
    done
    if [ ${#missing[@]} -eq 0 ]; then
        echo "setup: all ${#packages[@]} packages present"
        return
    fi
    echo "setup: installing ${missing[*]}"
    local sudo=""
    if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
}

build() {
    cmake -S "$root" -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
    cmake --build "$build_dir" -j "$jobs"
}

# viewer/dist: the web viewer's static assets (three.js bundled in) that `concord view` serves.
# npm ci runs only when package-lock.json changed since the last install, and the bundle is
# rebuilt only when its sources changed (build.mjs --if-changed).
build_viewer() {
    local dir="$root/viewer"
    local stamp="$dir/node_modules/.concord-lock-sha256"
    local want
    want="$(sha256sum "$dir/package-lock.json" | cut -d' ' -f1)"
    if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
        echo "setup: installing the viewer's npm packages (npm ci)"
        (cd "$dir" && npm ci --no-audit --no-fund --loglevel=error)
        echo "$want" > "$stamp"
    fi
    (cd "$dir" && node build.mjs --if-changed)
}

case "$mode" in
    build|demo|test) ;;
    *) echo "usage: scripts/setup.sh demo|test|build" >&2; exit 2 ;;
esac

install_missing
build_viewer
build

case "$mode" in
    demo) exec "$root/scripts/demo.sh" "$build_dir" ;;
    test) cd "$build_dir" && exec ctest --output-on-failure -j "$jobs" ;;
    build) echo "setup: built in $build_dir (binary: $build_dir/apps/concord/concord)" ;;
esac
