#!/usr/bin/env bash
# Loss curves of one model trained in fp32, bf16 and fp16 (dynamic loss
# scaling) from the same seed on the same data, drawn on one plot: what the
# mixed-precision figure of docs/training.md shows.
# Usage: bench/precision_curves.sh [out-dir]
# Environment: STEPS (default 300), TRAIN and VAL (token files; default the
# Brown corpus that scripts/fetch-data.sh prepares), TPC_BUILD_DIR.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${TPC_BUILD_DIR:-$root/build}
cache=${TPC_CACHE:-$HOME/.cache/tpc}
out=${1:-precision-curves}
steps=${STEPS:-300}
train=${TRAIN:-$cache/data/brown_train.bin}
val=${VAL:-$cache/data/brown_val.bin}
for f in "$train" "$val"; do
  if [ ! -f "$f" ]; then
    echo "precision_curves: $f not found; run scripts/fetch-data.sh first" >&2
    exit 1
  fi
done
mkdir -p "$out"
B=$build/bin
"$B/tpc-model" gpt2 --layers 2 --hidden 128 --heads 4 --vocab 50257 --seq 64 -o "$out/model.mlir"
for p in fp32 bf16 fp16; do
  "$B/tpc-compile" "$out/model.mlir" --micro-batch 8 --seq 64 --precision "$p" -o "$out/$p.tpc"
  start=$(date +%s)
  "$B/tpc-run" "$out/$p.tpc" --threads "$(nproc)" train --data "$train" --val "$val" \
    --eval-every 50 --eval-batches 20 --steps "$steps" --lr 1e-3 --warmup 20 \
    --log "$out/$p.jsonl" --plot none --progress lines > "$out/$p.out"
  echo "precision_curves: $p: $(($(date +%s) - start)) s, $(tail -n 1 "$out/$p.jsonl")"
done
"$B/tpc-plot" "$out/fp32.jsonl" "$out/bf16.jsonl" "$out/fp16.jsonl" --labels fp32,bf16,fp16 \
  --title "GPT-2 2x128 on $(basename "$train"), B=8, T=64: fp32, bf16, fp16" -o "$out/precision.png"
