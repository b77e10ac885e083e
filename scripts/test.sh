#!/usr/bin/env bash
# The test command: set up (install, configure, build), then run every test
# (the lit suite and the gtest suites) through ctest, then the sanitizer
# build's gtests, end-to-end subset and fuzz targets (scripts/sanitize.sh).
# Prints the wall time of each part.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${TPC_BUILD_DIR:-$root/build}
part() {
  local name=$1 start
  shift
  start=$(date +%s)
  "$@"
  echo "test.sh: $name took $(($(date +%s) - start)) s"
}
part "setup and build" "$root/scripts/setup.sh" "$build"
part "ctest" ctest --test-dir "$build" --output-on-failure -j "$(nproc)"
part "the sanitizer run" "$root/scripts/sanitize.sh" "$build"
