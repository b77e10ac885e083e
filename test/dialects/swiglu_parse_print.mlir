// RUN: tpc-opt %s | tpc-opt | FileCheck %s
// RUN: tpc-opt %s --mlir-print-op-generic | tpc-opt | FileCheck %s

// CHECK-LABEL: func.func @swiglu
// CHECK-SAME: (%[[G:.*]]: tensor<?x?x64xf32>, %[[U:.*]]: tensor<?x?x64xf32>)
func.func @swiglu(%g: tensor<?x?x64xf32>, %u: tensor<?x?x64xf32>) -> tensor<?x?x64xf32> {
  // CHECK: %[[Y:.*]] = tpc.swiglu %[[G]], %[[U]] : tensor<?x?x64xf32>
  %y = tpc.swiglu %g, %u : tensor<?x?x64xf32>
  // CHECK: return %[[Y]] : tensor<?x?x64xf32>
  return %y : tensor<?x?x64xf32>
}
