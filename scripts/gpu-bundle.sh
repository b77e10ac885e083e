#!/usr/bin/env bash
# Builds, in one folder, everything scripts/gpu-check.sh needs on a GPU machine
# that has CUDA 13, its driver and Python with PyTorch, but none of our Debian
# packages:
#   bin/     tpc-run and the runtime's unit tests (tpc_runtime_tests: the
#            conformance suite and the device's tests; tpc_exec_tests: the
#            NCCL collectives), built with the CUDA backend
#            (sm_90 + PTX) and without oneDNN (the GPU never uses it)
#   lib.tar.xz  the shared libraries they link that such a machine lacks
#            (MPI, protobuf, OpenBLAS, ...), compressed (gpu-check.sh unpacks
#            it with tar, or with Python's tarfile where there is no xz); not
#            cuBLASLt or NCCL, which tpc-run opens at run time from the
#            machine's own CUDA or PyTorch
#   progs/   compiled programs: tiny GPT-2 and StagFormer models for parity
#            (and tiny GPT-2 at tp 2 and at pp 2 for machines with two GPUs),
#            GPT-2 124M in bf16 at T 1024 for several micro-batches, and
#            GPT-2 124M for decoding
#   data/    token files
#   gpu-check.sh, gpu_check.py (the check), torch_reference.py (its peer)
# The folder must stay under 60 MiB (what travels to the GPU machine).
#
#   scripts/gpu-bundle.sh [--quick] [FOLDER]   (default: gpu-bundle/ in the repository)
# Needs the project's build (scripts/setup.sh) for tpc-model and tpc-compile,
# and the CUDA toolkit (nvcc) under /usr/local/cuda or on PATH.
# TPC_GPU_BUILD_DIR names the build of the binaries (default: build-gpu/, a
# standalone runtime build made here); --quick leaves out GPT-2 124M, for a
# dry run of the check (TPC_CHECK_BACKEND=cpu) in the test suite.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
quick=0
if [ "${1:-}" = "--quick" ]; then
  quick=1
  shift
fi
out=${1:-$root/gpu-bundle}
build=${TPC_BUILD_DIR:-$root/build}
gpu_build=${TPC_GPU_BUILD_DIR:-$root/build-gpu}
limit_mib=60

for tool in tpc-model tpc-compile; do
  if [ ! -x "$build/bin/$tool" ]; then
    echo "gpu-bundle: $build/bin/$tool is missing; run scripts/setup.sh first" >&2
    exit 1
  fi
done
nvcc=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
if [ ! -x "$nvcc" ]; then
  echo "gpu-bundle: nvcc not found (install the CUDA toolkit under /usr/local/cuda)" >&2
  exit 1
fi

# The runtime alone, standalone (it needs no LLVM), with the CUDA backend;
# a build named by TPC_GPU_BUILD_DIR is taken as it is.
if [ -z "${TPC_GPU_BUILD_DIR:-}" ]; then
  if [ ! -f "$gpu_build/build.ninja" ]; then
    CUDACXX=$nvcc cmake -S "$root/runtime" -B "$gpu_build" -G Ninja \
      -DCMAKE_BUILD_TYPE=Release -DTPC_USE_DNNL=OFF -DTPC_USE_CUDA=ON >/dev/null
  fi
  cmake --build "$gpu_build" -j "$(nproc)" --target tpc-run tpc_runtime_tests \
    tpc_exec_tests
fi
if ! grep -q "^CMAKE_CUDA_COMPILER:.*nvcc" "$gpu_build/CMakeCache.txt"; then
  echo "gpu-bundle: $gpu_build was configured without the CUDA backend" >&2
  exit 1
fi

rm -rf "$out"
mkdir -p "$out"/{bin,lib,progs,data}
cp "$gpu_build/bin/tpc-run" "$out/bin/"
for t in tpc_runtime_tests tpc_exec_tests; do
  # test/ in a standalone runtime build, runtime/test/ in the project's.
  cp "$(find "$gpu_build" -name "$t" -type f -perm -u+x | head -n 1)" "$out/bin/"
done
strip --strip-unneeded "$out/bin/"*

# Every library the binaries load except the C library's own, the C++
# runtime (the GPU machine's is newer) and the driver's.
for bin in "$out/bin/"*; do
  ldd "$bin" | awk '/=> \//{print $3}'
done | sort -u | while read -r lib; do
  case "$(basename "$lib")" in
    libc.so*|libm.so*|libpthread.so*|libdl.so*|librt.so*|ld-linux*|\
    libstdc++.so*|libgcc_s.so*|libcuda.so*) ;;
    *) cp -L "$lib" "$out/lib/" ;;
  esac
done
strip --strip-unneeded "$out/lib/"*.so* 2>/dev/null || true
# OpenBLAS alone is 36 MB: the libraries travel as one xz archive, which
# gpu-check.sh unpacks next to itself.
tar -C "$out" -I 'xz -T0 -1' -cf "$out/lib.tar.xz" lib
rm -rf "${out:?}/lib"

# Programs. Parity: tiny models in fp32 (and one in bf16); the benchmark:
# GPT-2 124M in bf16 at T 1024; decoding: GPT-2 124M at batch 1.
m=$build/bin/tpc-model
c=$build/bin/tpc-compile
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$m" gpt2 --vocab 512 --layers 2 --hidden 96 --heads 4 --seq 64 -o "$tmp/gpt2_tiny.mlir"
"$m" gpt2 --vocab 512 --layers 2 --hidden 96 --heads 4 --seq 64 --dropout 0.1 \
  -o "$tmp/gpt2_tiny_dropout.mlir"
"$m" stagformer --vocab 512 --stacks 2 --layers 2 --hidden 96 --heads 4 --seq 64 \
  -o "$tmp/stag_tiny.mlir"
"$m" stagformer --vocab 512 --stacks 3 --layers 1 --hidden 96 --heads 4 --seq 64 \
  --shared-weights --window 8 -o "$tmp/stag3_shared.mlir"
"$m" llama --vocab 512 --layers 2 --hidden 96 --heads 4 --kv-heads 2 \
  --intermediate 256 --seq 64 -o "$tmp/llama_tiny.mlir"
for name in gpt2_tiny gpt2_tiny_dropout stag_tiny stag3_shared llama_tiny; do
  "$c" "$tmp/$name.mlir" --micro-batch 4 --seq 64 -o "$out/progs/$name.tpc"
done
"$c" "$tmp/gpt2_tiny.mlir" --micro-batch 4 --seq 64 --precision bf16 \
  -o "$out/progs/gpt2_tiny_bf16.tpc"
# Two ranks (run only where there are two GPUs and mpirun): tensor
# parallelism over NCCL all-reduces, pipeline stages over NCCL send/recv.
"$c" "$tmp/gpt2_tiny.mlir" --tp 2 --micro-batch 4 --seq 64 \
  -o "$out/progs/gpt2_tiny_tp2.tpc"
"$c" "$tmp/gpt2_tiny.mlir" --pp 2 --micro-batch 2 --micro-batches 4 --seq 64 \
  -o "$out/progs/gpt2_tiny_pp2.tpc"
if [ "$quick" = 0 ]; then
  "$m" gpt2 --preset 124m -o "$tmp/gpt2_124m.mlir"
  for b in 4 8 16 32 48; do
    "$c" "$tmp/gpt2_124m.mlir" --micro-batch "$b" --seq 1024 --precision bf16 \
      -o "$out/progs/gpt2_124m_bf16_b$b.tpc"
  done
  "$c" "$tmp/gpt2_124m.mlir" --micro-batch 1 --seq 1024 \
    -o "$out/progs/gpt2_124m_decode.tpc"
  "$c" "$tmp/gpt2_124m.mlir" --micro-batch 1 --seq 1024 --precision bf16 \
    -o "$out/progs/gpt2_124m_decode_bf16.tpc"
fi

# Token files (llm.c format): random ids below each vocabulary, fixed seed.
/usr/bin/python3 - "$out/data" "$quick" <<'PY'
import random, struct, sys
def write(path, n, vocab, seed):
    r = random.Random(seed)
    header = [20240520, 1, n] + [0] * 253
    with open(path, 'wb') as f:
        f.write(struct.pack('<256i', *header))
        f.write(struct.pack('<%dH' % n, *(r.randrange(vocab) for _ in range(n))))
write(sys.argv[1] + '/tiny.bin', 8 * 4 * 65 + 1000, 512, 1)
if sys.argv[2] == '0':
    write(sys.argv[1] + '/gpt2.bin', 48 * 1025 * 12 + 16, 50257, 2)
PY

cp "$root/bench/gpu/torch_reference.py" "$root/bench/gpu/gpu_check.py" \
  "$root/scripts/gpu-check.sh" "$out/"
git -C "$root" rev-parse HEAD > "$out/COMMIT" 2>/dev/null || true

size=$(du -sm "$out" | cut -f1)
echo "gpu-bundle: $out holds $size MiB:"
du -sh "$out"/* | sed 's/^/  /'
if [ "$size" -gt "$limit_mib" ]; then
  echo "gpu-bundle: over the $limit_mib MiB that may travel" >&2
  exit 1
fi
