#!/usr/bin/env bash
# Runs the whole lit suite N times in a row (default 10) with -j2 while two
# busy processes load the cores, and counts the passing runs: the check that
# no timing-dependent test relies on an idle machine. Expects a built tree
# (scripts/setup.sh). Usage: scripts/test-loaded.sh [runs] [build-dir]
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
runs=${1:-10}
build=${2:-${TPC_BUILD_DIR:-$root/build}}
lit=/usr/lib/llvm-22/bin/lit

busy=()
cleanup() { kill "${busy[@]}" 2>/dev/null || true; }
trap cleanup EXIT
for _ in 1 2; do
  sh -c 'while :; do :; done' &
  busy+=($!)
done

passed=0
for i in $(seq "$runs"); do
  start=$(date +%s)
  if "$lit" -sv -j2 "$build/test" > "$build/test-loaded.$i.log" 2>&1; then
    passed=$((passed + 1))
    result=passed
  else
    result="FAILED (see $build/test-loaded.$i.log)"
  fi
  echo "run $i/$runs: $result in $(($(date +%s) - start)) s"
done
echo "$passed of $runs runs passed under load"
test "$passed" -eq "$runs"
