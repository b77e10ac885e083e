#!/usr/bin/env bash
# The demo command: set up (install, configure, build), then show tpc on the
# default models: GPT-2 124M written as a tpc module and its parameter
# summary.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${TPC_BUILD_DIR:-$root/build}
"$root/scripts/setup.sh" "$build"
bin=$build/bin
out=${TPC_DEMO_DIR:-$root/out/demo}
mkdir -p "$out"

echo
echo "== GPT-2 124M, written once at its global size"
"$bin/tpc-model" gpt2 --preset 124m -o "$out/gpt2-124m.mlir"
"$bin/tpc-model" gpt2 --preset 124m --summary
