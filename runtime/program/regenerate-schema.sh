#!/usr/bin/env bash
# Writes runtime/program/OpSchema.inc from the dialect's ODS definitions, or
# checks it.
#
#   runtime/program/regenerate-schema.sh [TPC_SCHEMA_GEN]          rewrite it
#   runtime/program/regenerate-schema.sh --check [TPC_SCHEMA_GEN]  fail if it differs
#
# TPC_SCHEMA_GEN defaults to build/bin/tpc-schema-gen. The lit test
# test/tools/tpc_schema_gen.test runs the check; after a change to an op's
# operands, results or attributes in dialects/tpc/*.td, run this script and
# commit the rewritten file.
set -euo pipefail

dir=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$dir/../.." && pwd)
check=0
if [[ ${1:-} == --check ]]; then
  check=1
  shift
fi
tool=${1:-$root/build/bin/tpc-schema-gen}
file=$dir/OpSchema.inc
if [[ ! -x $tool ]]; then
  echo "error: $tool is not built; build it first (cmake --build build" \
    "--target tpc-schema-gen) or name it as the last argument" >&2
  exit 1
fi
generate() { "$tool" -I "$root" "$root/dialects/tpc/TpcOps.td"; }

if ((check)); then
  if ! cmp -s "$file" <(generate); then
    diff -u "$file" <(generate) | head -n 40 || true
    echo "error: runtime/program/OpSchema.inc differs from the ODS" \
      "definitions; if the change is intended, run" \
      "runtime/program/regenerate-schema.sh and commit the result" >&2
    exit 1
  fi
else
  # Through a temporary file, so that a failing generator leaves the
  # checked-in schema as it was.
  tmp=$(mktemp "$file.XXXXXX")
  trap 'rm -f "$tmp"' EXIT
  generate >"$tmp"
  mv "$tmp" "$file"
  echo "wrote runtime/program/OpSchema.inc"
fi
