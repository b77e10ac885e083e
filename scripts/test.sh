#!/usr/bin/env bash
# The test command: set up (install, configure, build), then run every test
# (the lit suite and the gtest suites) through ctest.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${TPC_BUILD_DIR:-$root/build}
"$root/scripts/setup.sh" "$build"
cd "$build"
ctest --output-on-failure -j "$(nproc)"
