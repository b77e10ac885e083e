// RUN: tpc-opt %s | tpc-opt | FileCheck %s
// RUN: tpc-opt %s --mlir-print-op-generic | tpc-opt | FileCheck %s

tpc.param @h.0.mlp.c_fc.weight : tensor<16x64xf32> init <normal, std = 0.02>
tpc.param @h.0.mlp.c_fc.bias : tensor<64xf32> init <zeros>
tpc.param @ln_f.weight : tensor<16xf32> init <ones>

// CHECK-LABEL: func.func @bucket_all_gather
func.func @bucket_all_gather() {
  // Consecutive parameters, listed newest gradient first.
  // CHECK-NEXT: tpc.bucket_all_gather [@ln_f.weight, @h.0.mlp.c_fc.bias] group dp
  tpc.bucket_all_gather [@ln_f.weight, @h.0.mlp.c_fc.bias] group dp
  // CHECK-NEXT: tpc.bucket_all_gather [@h.0.mlp.c_fc.weight] group dp
  tpc.bucket_all_gather [@h.0.mlp.c_fc.weight] group dp
  // Module order is as good as reverse order.
  // CHECK-NEXT: tpc.bucket_all_gather [@h.0.mlp.c_fc.weight, @h.0.mlp.c_fc.bias, @ln_f.weight] group dp
  tpc.bucket_all_gather [@h.0.mlp.c_fc.weight, @h.0.mlp.c_fc.bias, @ln_f.weight] group dp
  // CHECK-NEXT: return
  return
}
