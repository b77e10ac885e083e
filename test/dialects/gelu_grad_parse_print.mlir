// RUN: tpc-opt %s | tpc-opt | FileCheck %s
// RUN: tpc-opt %s --mlir-print-op-generic | tpc-opt | FileCheck %s

// CHECK-LABEL: func.func @grad
// CHECK-SAME: (%[[D:.*]]: tensor<?x?x64xf16>, %[[X:.*]]: tensor<?x?x64xf16>)
func.func @grad(%dout: tensor<?x?x64xf16>, %x: tensor<?x?x64xf16>) -> tensor<?x?x64xf16> {
  // CHECK: %[[DX:.*]] = tpc.gelu_grad %[[D]], %[[X]] : tensor<?x?x64xf16>
  %dx = tpc.gelu_grad %dout, %x : tensor<?x?x64xf16>
  // CHECK: return %[[DX]] : tensor<?x?x64xf16>
  return %dx : tensor<?x?x64xf16>
}
