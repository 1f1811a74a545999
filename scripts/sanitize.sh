#!/usr/bin/env bash
# The whole test suite under AddressSanitizer + UndefinedBehaviorSanitizer (issue 18).
#
#   scripts/sanitize.sh [ctest arguments ...]
#
# Builds the `sanitize` preset (RelWithDebInfo, -fsanitize=address,undefined, every UB report
# fatal) in build-sanitize/ and runs ctest there (the `long` label is left out: the pip install
# test builds a release module of its own). Leaks are reported (LeakSanitizer); the few that
# come from libraries outside the project (Open MPI's start-up) are suppressed by
# scripts/lsan.supp. Exit code: ctest's.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$root}"
cmake --preset sanitize >/dev/null
cmake --build --preset sanitize -- -j "${JOBS:-$(nproc)}" | grep -v "^\[" || true
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:strict_string_checks=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
export LSAN_OPTIONS="${LSAN_OPTIONS:-suppressions=$root/scripts/lsan.supp:print_suppressions=0}"
cd build-sanitize
exec ctest --output-on-failure -j "${JOBS:-$(nproc)}" -LE long --timeout 1800 "$@"
