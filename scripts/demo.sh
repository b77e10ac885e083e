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

echo
echo "== Megatron-LM's 8.3B configuration compiled for 8-way tensor parallelism"
"$bin/tpc-compile" "$root/models/megatron-8.3b.mlir" --tp=8 --micro-batch=8 --seq=1024 --report

echo
echo "== A tiny GPT-2 compiled into a program for tp=2 x dp=2"
"$bin/tpc-compile" "$root/models/gpt2-tiny.mlir" --tp=2 --dp=2 --micro-batch=4 --seq=64 -o "$out/gpt2-tiny.tpc"
ls -l "$out/gpt2-tiny.tpc"

echo
echo "== Run it: the same weights and data at tp=2 x dp=2 and on one process"
# Until the corpus preparation exists, the data is a synthetic token stream.
/usr/bin/python3 "$root/test/e2e/tpc_e2e.py" tokens "$out/val.bin" 4096 512 --seed 1
"$bin/tpc-compile" "$root/models/gpt2-tiny.mlir" --tp=1 --micro-batch=8 --seq=64 -o "$out/gpt2-tiny-tp1.tpc"
mpi=(mpirun --oversubscribe -np 4)
if [ "$(id -u)" -eq 0 ]; then mpi+=(--allow-run-as-root); fi
"${mpi[@]}" "$out/gpt2-tiny.tpc" eval --data "$out/val.bin"
"$out/gpt2-tiny-tp1.tpc" eval --data "$out/val.bin"
"${mpi[@]}" "$out/gpt2-tiny.tpc" info
