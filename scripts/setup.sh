#!/usr/bin/env bash
# Sets up Concord on a fresh Debian 12 machine and then runs the demo or the test suite.
#
#   scripts/setup.sh demo   install what the demo needs, build the library, the `concord` tool and
#                           the web viewer (Release), run the default demo
#   scripts/setup.sh test   install everything, build everything (Release), run the whole test suite
#   scripts/setup.sh build  install everything and build everything only
#
# `demo` is the newcomer's path: it installs only the packages of the library, the command-line
# tool and the viewer (no GoogleTest, Google Benchmark, pybind11, MPI, chromium or ffmpeg) and
# builds only the `concord` target, configuring a new build directory without the tests, the
# benchmarks and the Python module. A later `test` or `build` in the same directory installs the
# rest and turns them on again (docs/benchmarks.md, "Newcomer set-up (issue 19)").
#
# Idempotent: packages already installed are not touched, apt-get update runs at most once,
# and an existing build directory is reused. BUILD_DIR (default: build) and JOBS (default: nproc)
# may be set in the environment. A compiler cache (Debian's ccache, installed here) is used when
# present; CCACHE_BASEDIR defaults to the source tree so that other copies of it (a second
# checkout, the scratch copy of the pip-install test) hit the same cache entries.
set -euo pipefail

mode="${1:-build}"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build_dir="${BUILD_DIR:-$root/build}"
jobs="${JOBS:-$(nproc)}"
export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$root}"

# Every dependency comes from Debian's archive.
# The library, the `concord` tool (`concord render` and `export` included: libpng; jemalloc, its
# allocator: apps/concord/allocator.cpp) and a compiler
# cache: all that `demo` installs, besides Node.js for the viewer below.
demo_packages=(
    build-essential cmake ninja-build pkg-config ccache
    libeigen3-dev libtbb-dev libgmp-dev
    nlohmann-json3-dev libcli11-dev libspdlog-dev libfmt-dev
    libassimp-dev liburdfdom-dev libpng-dev libjemalloc-dev
)
# The rest, for `test` and `build`: the test suite and benchmarks, MPI runs, the Python module
# and its pip install (tests/python_install), the tools some CLI tests drive (chromium for the
# viewer's browser test, ffmpeg for `concord render`'s mp4, git for the scratch copy), and clang
# with its libFuzzer and sanitizer runtimes for the fuzz harnesses (fuzz/README.md).
full_packages=(
    git clang libclang-rt-14-dev
    libgtest-dev libgmock-dev libbenchmark-dev
    chromium ffmpeg
    libopenmpi-dev openmpi-bin
    pybind11-dev python3-dev python3-numpy python3-pytest
    python3-venv python3-setuptools python3-wheel
)

# Node.js and npm build the web viewer (viewer/). A machine that already has them (e.g. from
# another source) keeps its own: Debian's npm package would clash with it.
node_packages=()
if ! command -v npm >/dev/null 2>&1; then node_packages=(nodejs npm); fi

apt_updated=0
install_missing() {
    local missing=()
    for p in "$@"; do
        if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
            missing+=("$p")
        fi
    done
    if [ ${#missing[@]} -eq 0 ]; then
        echo "setup: all $# packages present"
        return
    fi
    echo "setup: installing ${missing[*]}"
    local sudo=""
    if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
    if [ "$apt_updated" = 0 ]; then
        $sudo apt-get update -qq
        apt_updated=1
    fi
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
}

# build_all: every target, with the tests, the benchmarks and the Python module switched on
# (explicitly, so that a build directory first configured by `demo` gets them back).
build_all() {
    cmake -S "$root" -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=Release \
          -DCONCORD_BUILD_TESTS=ON -DCONCORD_BUILD_BENCHMARKS=ON -DCONCORD_BUILD_PYTHON=ON >/dev/null
    cmake --build "$build_dir" -j "$jobs"
}

# build_demo: only the `concord` executable and the libraries it links. A new build directory is
# configured without the tests, benchmarks and Python module (their packages are not installed);
# an existing one keeps its options (after a `test` they are on, and cost nothing unbuilt).
build_demo() {
    local options=()
    if [ ! -f "$build_dir/CMakeCache.txt" ]; then
        options=(-DCONCORD_BUILD_TESTS=OFF -DCONCORD_BUILD_BENCHMARKS=OFF -DCONCORD_BUILD_PYTHON=OFF)
    fi
    cmake -S "$root" -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=Release "${options[@]}" >/dev/null &&
        cmake --build "$build_dir" -j "$jobs" --target concord
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
    demo)
        # The viewer is not needed for the first frame: Node.js and npm (Debian's npm brings ~350
        # small packages, ~1.5 min of dpkg), npm ci and the bundle are installed and built in the
        # background while the C++ build runs; its output goes to a log, shown when it fails.
        install_missing "${demo_packages[@]}"
        mkdir -p "$build_dir"
        viewer_log="$build_dir/setup-viewer.log"
        # sudo asks for a password here, in the foreground, if it has to.
        if [ ${#node_packages[@]} -gt 0 ] && [ "$(id -u)" -ne 0 ]; then sudo -v; fi
        echo "setup: building the viewer in the background (log: $viewer_log)"
        ( if [ ${#node_packages[@]} -gt 0 ]; then install_missing "${node_packages[@]}"; fi
          build_viewer ) >"$viewer_log" 2>&1 &
        viewer_pid=$!
        build_status=0
        build_demo || build_status=$?
        viewer_status=0
        wait "$viewer_pid" || viewer_status=$?
        [ "$build_status" -eq 0 ] || exit "$build_status"
        if [ "$viewer_status" -ne 0 ]; then
            tail -n 30 "$viewer_log" >&2
            echo "setup: installing or building the viewer failed (exit $viewer_status; log: $viewer_log)" >&2
            exit 1
        fi
        grep -E "^(setup|viewer):" "$viewer_log" || true
        exec "$root/scripts/demo.sh" "$build_dir"
        ;;
    build|test)
        install_missing "${demo_packages[@]}" "${full_packages[@]}" "${node_packages[@]}"
        build_viewer
        build_all
        if [ "$mode" = test ]; then
            (cd "$build_dir" && ctest --output-on-failure -j "$jobs")
            # Then every fuzz harness for a short budget (FUZZ_SECONDS each; fuzz/README.md).
            exec "$root/scripts/fuzz.sh" --seconds "${FUZZ_SECONDS:-15}"
        fi
        echo "setup: built in $build_dir (binary: $build_dir/apps/concord/concord)"
        ;;
    *) echo "usage: scripts/setup.sh demo|test|build" >&2; exit 2 ;;
esac
