// RUN: not tpc-opt %s --tpc-specialize="batch=2 seq=-7" 2>&1 | FileCheck %s
// RUN: not tpc-opt %s --tpc-specialize="batch=-1" 2>&1 | FileCheck %s --check-prefix=BATCH

// The sizes are printed as numbers.
// CHECK: error: batch and seq must be >= 0 (0 keeps the model's own), got batch=2 seq=-7
// BATCH: error: batch and seq must be >= 0 (0 keeps the model's own), got batch=-1 seq=0

func.func @forward(%x: tensor<?x?xf32>) -> tensor<?x?xf32> {
  return %x : tensor<?x?xf32>
}
