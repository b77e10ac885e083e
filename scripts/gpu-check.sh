#!/usr/bin/env bash
# Runs on the GPU machine, from the folder scripts/gpu-bundle.sh made, as one
# command that prints one table (and writes it, with the logs, under $OUT
# when that is set):
#   bash gpu-check.sh
# cuBLASLt and NCCL come from that machine: its CUDA installation or the
# nvidia-* packages next to its PyTorch. Everything else tpc-run needs is in
# lib.tar.xz, unpacked into lib/ and given to tpc-run alone (PyTorch keeps
# the machine's own libraries).
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
cd "$here"

if [ -f lib.tar.xz ] && [ ! -d lib ]; then
  tar -xJf lib.tar.xz || { echo "gpu-check: cannot unpack lib.tar.xz" >&2; exit 1; }
fi
gpu_libs=""
add_dir() {
  case ":$gpu_libs:" in *":$1:"*) ;; *) gpu_libs=${gpu_libs:+$gpu_libs:}$1 ;; esac
}
for lib in libcublasLt.so.13 libnccl.so.2; do
  found=""
  for dir in /usr/local/cuda/lib64 /usr/local/cuda/targets/x86_64-linux/lib \
             $(python3 -c 'import site; print(" ".join(site.getsitepackages()))' 2>/dev/null); do
    [ -d "$dir" ] || continue
    found=$(find "$dir" -maxdepth 5 -name "$lib" 2>/dev/null | head -n 1)
    [ -n "$found" ] && break
  done
  if [ -n "$found" ]; then
    add_dir "$(dirname "$found")"
  else
    echo "gpu-check: $lib not found under /usr/local/cuda or Python's site-packages" >&2
  fi
done
export TPC_RUN_LIBRARY_PATH="$here/lib${gpu_libs:+:$gpu_libs}"
export TPC_CHECK_OUT=${OUT:-$here/out}
mkdir -p "$TPC_CHECK_OUT"
PYTHONUNBUFFERED=1 exec python3 "$here/gpu_check.py" "$@"
