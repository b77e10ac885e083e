#!/usr/bin/env bash
# Runs every libFuzzer target for a bounded time, starting from the seed
# corpora under test/fuzz/corpus, and fails on the first crash, leak-free
# timeout or sanitizer report (the reproducer is kept under <build>/fuzz-artifacts).
#
# Usage: scripts/fuzz.sh [SECONDS-PER-TARGET] [TARGET...]
#   SECONDS-PER-TARGET  default 20; use 3600 for a long run
# With TPC_FUZZ_RUNS=N each target instead runs N inputs from the fixed seed
# TPC_FUZZ_SEED (default 1): a repeatable run, which is what CI does, so
# that a submission's CI does not pass or fail by the luck of the draw; the
# time-bounded runs draw a new seed each time and are how new bugs are found.
#   TARGET              program safetensors token-file bpe vocab frontend
#                       (default: all that are built)
# The runtime's targets come from $TPC_SAN_DIR (default build-san, made by
# scripts/sanitize.sh), the front end's from $TPC_FUZZ_DIR (default
# build-fuzz). Each target's corpus grows in <build>/fuzz-corpus/<target>.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
seconds=${1:-20}
shift || true
san=${TPC_SAN_DIR:-$root/build-san}
front=${TPC_FUZZ_DIR:-$root/build-fuzz}
targets=("$@")
if ((${#targets[@]} == 0)); then
  targets=(program safetensors token-file bpe vocab frontend)
fi
# Leak checking is off: OpenMP and Open MPI keep allocations for the life
# of the process. Every other ASan and UBSan report is fatal.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0:abort_on_error=1:allocator_may_return_null=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
export OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1

status=0
for t in "${targets[@]}"; do
  dir=$san
  [ "$t" = frontend ] && dir=$front
  bin=$dir/fuzz/tpc-fuzz-$t
  if [ ! -x "$bin" ]; then
    echo "fuzz: $bin is not built; skipping $t" >&2
    continue
  fi
  work=$dir/fuzz-corpus/$t
  artifacts=$dir/fuzz-artifacts/$t
  mkdir -p "$work" "$artifacts"
  start=$(date +%s)
  if [ -n "${TPC_FUZZ_RUNS:-}" ]; then
    budget=(-runs="$TPC_FUZZ_RUNS" -seed="${TPC_FUZZ_SEED:-1}")
  else
    budget=(-max_total_time="$seconds")
  fi
  if "$bin" "$work" "$root/test/fuzz/corpus/$t" "${budget[@]}" \
      -timeout=20 -rss_limit_mb=3072 -print_final_stats=1 \
      -artifact_prefix="$artifacts/" >"$dir/fuzz-$t.log" 2>&1; then
    runs=$(grep -m1 -o 'stat::number_of_executed_units: *[0-9]*' "$dir/fuzz-$t.log" | grep -o '[0-9]*$' || echo '?')
    echo "fuzz: $t: $runs inputs in $(($(date +%s) - start)) s, no crash"
  else
    echo "fuzz: $t FAILED; log $dir/fuzz-$t.log, reproducer under $artifacts" >&2
    tail -40 "$dir/fuzz-$t.log" >&2
    status=1
  fi
done
exit $status
