#!/usr/bin/env bash
# The sanitizer part of CI: builds the runtime, tpc-run, tpc-data, their
# gtests and the runtime's fuzz targets with clang-14, AddressSanitizer and
# UndefinedBehaviorSanitizer (cmake/TpcSanitizers.cmake), then runs
#   1. the runtime gtests (tpc_runtime_tests, tpc_exec_tests, and
#      tpc_cuda_emu_tests: the CUDA kernels under the host emulation; the
#      CUDA backend itself is not built here),
#   2. the end-to-end tests listed below, with the sanitized tpc-run and
#      tpc-data and the release build's compiler tools,
#   3. every fuzz target, the MLIR front end's too (built with clang in
#      build-fuzz): $TPC_FUZZ_RUNS (default 50000) inputs from the fixed
#      seed 1, a repeatable run; with TPC_FUZZ_SECONDS set, that many
#      seconds each from a new seed instead.
# Any sanitizer report fails the run. The release build must exist
# (scripts/setup.sh). Usage: scripts/sanitize.sh [release-build-dir]
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${1:-${TPC_BUILD_DIR:-$root/build}}
san=${TPC_SAN_DIR:-$root/build-san}
front=${TPC_FUZZ_DIR:-$root/build-fuzz}

timed() {
  local name=$1
  shift
  local start
  start=$(date +%s)
  "$@"
  echo "sanitize: $name took $(($(date +%s) - start)) s"
}

if [ ! -f "$san/build.ninja" ]; then
  cmake -S "$root/runtime" -B "$san" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_C_COMPILER=clang-14 -DCMAKE_CXX_COMPILER=clang++-14 \
    -DTPC_SANITIZE=ON -DTPC_FUZZ=ON >/dev/null
fi
timed "the sanitizer build" cmake --build "$san" -j "$(nproc)"

# Leak checking is off: OpenMP, OpenBLAS and Open MPI keep allocations for
# the life of the process. An allocation too large for memory returns null
# (std::bad_alloc) as it does without ASan, which tpc-run reports. Every
# other report is fatal.
export ASAN_OPTIONS=detect_leaks=0:abort_on_error=1:allocator_may_return_null=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
timed "the runtime gtests" ctest --test-dir "$san" --output-on-failure -j "$(nproc)"

# The end-to-end tests that exercise the runtime's readers, the executor on
# every entry point, checkpoints, generation, two-rank runs and BERT's
# encoder inputs and heads through tp and pipeline stages, in about
# the time of the rest of the sanitizer run (the others repeat these paths
# at more sizes).
e2e='e2e/(errors|errors_mpi|train_errors|checkpoint|train_resume|tp_parity|gradcheck|generate_matches_forward|generate_mixed_precision|train_loss_scale|bert_sentence_order_parity|train_pipeline_bert)\.test|data/(errors|encode_decode)\.test'
timed "the end-to-end subset" /usr/lib/llvm-22/bin/lit -sv "$build/test" \
  --param runtime_tools_dir="$san/bin" --filter "$e2e"

# The front end's fuzz target needs our compiler built with clang too (about
# 5 minutes cold on two cores); TPC_FUZZ_FRONTEND=0 leaves it out.
if [ "${TPC_FUZZ_FRONTEND:-1}" = 1 ] && [ ! -f "$front/build.ninja" ]; then
  cmake -S "$root" -B "$front" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_C_COMPILER=clang-14 -DCMAKE_CXX_COMPILER=clang++-14 -DTPC_FUZZ=ON \
    -DMLIR_DIR=/usr/lib/llvm-22/lib/cmake/mlir \
    -DLLVM_EXTERNAL_LIT=/usr/lib/llvm-22/bin/lit >/dev/null
fi
if [ "${TPC_FUZZ_FRONTEND:-1}" = 1 ]; then
  timed "the front end's fuzz build" cmake --build "$front" -j "$(nproc)" \
    --target tpc-fuzz-frontend
fi
if [ -n "${TPC_FUZZ_SECONDS:-}" ]; then
  timed "fuzzing" "$root/scripts/fuzz.sh" "$TPC_FUZZ_SECONDS"
else
  timed "fuzzing" env TPC_FUZZ_RUNS="${TPC_FUZZ_RUNS:-50000}" \
    "$root/scripts/fuzz.sh"
fi
