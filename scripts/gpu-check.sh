#!/usr/bin/env bash
# Runs on the GPU machine, from the folder scripts/gpu-bundle.sh made, as one
# command that prints one table:
#   bash gpu-check.sh
# The check keeps to one deadline, TPC_CHECK_DEADLINE seconds from now (420
# by default, inside the machine's 10-minute command limit): a step that
# would not fit is skipped with a line saying so, and each row is printed as
# soon as it is measured. Logs go to logs/ here; at the end $OUT (out/ here
# when it is unset) holds exactly table.md and logs.tar.gz.
# cuBLASLt and NCCL come from that machine: its CUDA installation or the
# nvidia-* packages next to its PyTorch. Everything else tpc-run needs is in
# lib.tar.xz, unpacked into lib/ and given to tpc-run alone (PyTorch keeps
# the machine's own libraries).
set -uo pipefail
export TPC_CHECK_STARTED=${TPC_CHECK_STARTED:-$(date +%s)}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
cd "$here" || exit 1

# The machine may have no xz binary: Python's tarfile (lzma) unpacks it too.
# Into a folder of its own first, so that a broken unpack leaves no lib/.
unpack() {
  rm -rf .unpack && mkdir .unpack || return 1
  if ! { command -v xz >/dev/null && tar -C .unpack -xJf "$1" 2>/dev/null; }; then
    echo "gpu-check: unpacking $1 with Python's tarfile (no working xz)"
    rm -rf .unpack && mkdir .unpack || return 1
    python3 - "$1" .unpack <<'PY' || return 1
import sys, tarfile
with tarfile.open(sys.argv[1], 'r:*') as tar:
    if hasattr(tarfile, 'data_filter'):
        tar.extractall(sys.argv[2], filter='data')
    else:
        tar.extractall(sys.argv[2])
PY
  fi
  mv .unpack/lib lib && rm -rf .unpack
}
if [ -f lib.tar.xz ] && [ ! -d lib ]; then
  unpack lib.tar.xz || { echo "gpu-check: cannot unpack lib.tar.xz" >&2; exit 1; }
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
export TPC_CHECK_LOGS=$here/logs
mkdir -p "$TPC_CHECK_OUT"
PYTHONUNBUFFERED=1 exec python3 "$here/gpu_check.py" "$@"
