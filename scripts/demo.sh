#!/usr/bin/env bash
# The demo command: set up (install, configure, build), then show tpc on the
# default models and data: GPT-2 124M's summary, Megatron's 8.3B compiled
# for tp=8 with its cost report and the tp that fits a device, and a small
# GPT-2 compiled for tp=2, trained on the Brown corpus under mpirun, then
# sampled.
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

echo
echo "== Megatron-LM's 8.3B configuration compiled for 8-way tensor parallelism"
"$bin/tpc-compile" "$root/models/megatron-8.3b.mlir" --tp=8 --micro-batch=8 --seq=1024 --report

echo
echo "== The smallest tp that fits the 8.3B model on 80 GiB devices"
"$bin/tpc-plan" memory "$root/models/megatron-8.3b.mlir" --device-memory 80GiB \
  --micro-batch 8 --seq 1024 --precision bf16 --max-tp 32

echo
echo "== The Brown corpus, tokenized with GPT-2's vocabulary"
data=$out/data
"$root/scripts/fetch-data.sh" "$data"

echo
echo "== A small GPT-2 (4 layers, hidden 128, GPT-2's vocabulary) for tp=2"
"$bin/tpc-model" gpt2 --layers 4 --hidden 128 --heads 4 --seq 128 -o "$out/small.mlir"
"$bin/tpc-model" gpt2 --layers 4 --hidden 128 --heads 4 --seq 128 --summary | head -n 1
"$bin/tpc-compile" "$out/small.mlir" --tp=2 --micro-batch=8 --seq=128 -o "$out/small.tpc"
mpi=(mpirun --oversubscribe -np 2)
if [ "$(id -u)" -eq 0 ]; then mpi+=(--allow-run-as-root); fi
steps=${TPC_DEMO_STEPS:-300}

echo
echo "== Before training"
"${mpi[@]}" "$out/small.tpc" eval --data "$data/brown_val.bin" --max-batches 32

echo
echo "== Training on 2 ranks (tp=2), $steps steps"
"${mpi[@]}" "$out/small.tpc" train --data "$data/brown_train.bin" \
  --val "$data/brown_val.bin" --eval-every 100 --eval-batches 8 \
  --steps "$steps" --lr 3e-3 --warmup 20 \
  --schedule cosine --min-lr 3e-4 --log "$out/train.jsonl" --save "$out/small.safetensors"

echo
echo "== After training"
"${mpi[@]}" "$out/small.tpc" eval --data "$data/brown_val.bin" --load "$out/small.safetensors" --max-batches 32

echo
echo "== A sample from the trained model (tp=2, KV-cache decoding)"
"${mpi[@]}" "$out/small.tpc" generate --load "$out/small.safetensors" \
  --prompt "The jury said" --tokens 48 --temperature 0.8 --top-k 40 --seed 1
echo
echo "log: $out/train.jsonl  loss curve: $out/train.png  checkpoint: $out/small.safetensors"
