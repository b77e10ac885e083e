#!/usr/bin/env bash
# Writes the checked-in model modules with tpc-model, or checks them.
#
#   models/regenerate.sh [TPC_MODEL]          rewrite models/*.mlir
#   models/regenerate.sh --check [TPC_MODEL]  fail if any of them differs
#
# TPC_MODEL defaults to build/bin/tpc-model. The lit test
# test/models/regenerate.test runs the check; after an intended change to
# the builders, run this script and commit the rewritten files.
set -euo pipefail

dir=$(cd "$(dirname "$0")" && pwd)
check=0
if [[ ${1:-} == --check ]]; then
  check=1
  shift
fi
tool=${1:-$dir/../build/bin/tpc-model}

# file name (without .mlir), then the tpc-model arguments.
models=(
  "gpt2-124m gpt2 --preset 124m"
  "megatron-8.3b gpt2 --preset megatron-8.3b"
  "gpt2-tiny gpt2 --layers 2 --hidden 64 --heads 4 --vocab 512 --seq 64"
  "stagformer-tiny stagformer --stacks 2 --layers 2 --hidden 64 --heads 4 --vocab 512 --seq 64"
  "llama-tiny llama --layers 2 --hidden 64 --heads 4 --kv-heads 2 --intermediate 176 --vocab 512 --seq 64"
  "bigram-tiny bigram --vocab 512"
)

status=0
for entry in "${models[@]}"; do
  read -r name args <<<"$entry"
  file=$dir/$name.mlir
  # shellcheck disable=SC2086 # args is a list of words
  if ((check)); then
    if ! cmp -s "$file" <("$tool" $args); then
      diff -u "$file" <("$tool" $args) | head -n 40 || true
      echo "error: models/$name.mlir differs from 'tpc-model $args';" \
        "if the change is intended, run models/regenerate.sh and commit" \
        "the result" >&2
      status=1
    fi
  else
    "$tool" $args -o "$file"
    echo "wrote models/$name.mlir"
  fi
done
exit $status
