// RUN: tpc-opt %s -split-input-file -verify-diagnostics --tpc-plan-memory | FileCheck %s

// A chain: each buffer dies after its single use, so the third reuses the
// first. Each 4x8xf32 buffer is 128 bytes, rounded up to the 256 alignment.
// CHECK-LABEL: func.func @chain
// CHECK-SAME: tpc.arena_bytes = 512
func.func @chain(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // CHECK: tpc.gelu %{{.*}} {tpc.offsets = array<i64: 0>}
  %a = tpc.gelu %x : tensor<4x8xf32>
  // CHECK: tpc.gelu %{{.*}} {tpc.offsets = array<i64: 256>}
  %b = tpc.gelu %a : tensor<4x8xf32>
  // CHECK: tpc.gelu %{{.*}} {tpc.offsets = array<i64: 0>}
  %c = tpc.gelu %b : tensor<4x8xf32>
  return %c : tensor<4x8xf32>
}

// -----

// A value used again later stays live; a returned value is never reused.
// CHECK-LABEL: func.func @live
// CHECK-SAME: tpc.arena_bytes = 768
func.func @live(%x: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  // CHECK: tpc.gelu %{{.*}} {tpc.offsets = array<i64: 0>}
  %a = tpc.gelu %x : tensor<4x8xf32>
  // CHECK: tpc.gelu %{{.*}} {tpc.offsets = array<i64: 256>}
  %b = tpc.gelu %a : tensor<4x8xf32>
  // CHECK: tpc.add %{{.*}} {tpc.offsets = array<i64: 512>}
  %c = tpc.add %a, %b : tensor<4x8xf32>
  // %b dies at the add, so the next result takes its place.
  // CHECK: tpc.gelu %{{.*}} {tpc.offsets = array<i64: 256>}
  %d = tpc.gelu %c : tensor<4x8xf32>
  return %a, %d : tensor<4x8xf32>, tensor<4x8xf32>
}

// -----

// Freed neighbours merge into one range that a larger buffer can take.
// CHECK-LABEL: func.func @merge
// CHECK-SAME: tpc.arena_bytes = 1024
func.func @merge(%x: tensor<4x8xf32>, %w: tensor<8x32xf32>) -> tensor<4x32xf32> {
  // CHECK: tpc.gelu %{{.*}} {tpc.offsets = array<i64: 0>}
  %a = tpc.gelu %x : tensor<4x8xf32>
  // CHECK: tpc.gelu %{{.*}} {tpc.offsets = array<i64: 256>}
  %b = tpc.gelu %a : tensor<4x8xf32>
  // CHECK: tpc.add %{{.*}} {tpc.offsets = array<i64: 512>}
  %c = tpc.add %a, %b : tensor<4x8xf32>
  // %a and %b are free now: 512 contiguous bytes at offset 0.
  // CHECK: tpc.linear %{{.*}} {tpc.offsets = array<i64: 0>}
  %d = tpc.linear %c, %w : tensor<4x8xf32>, tensor<8x32xf32>
  // CHECK: tpc.gelu %{{.*}} {tpc.offsets = array<i64: 512>}
  %e = tpc.gelu %d : tensor<4x32xf32>
  return %e : tensor<4x32xf32>
}

// -----

// Parameters have storage of their own; both results of a loss are placed.
tpc.param @w : tensor<8x16xf32> init <normal, std = 2.000000e-02>
// CHECK-LABEL: func.func @params
func.func @params(%x: tensor<2x4x8xf32>, %t: tensor<2x4xi32>) -> (tensor<f32>, tensor<i32>) {
  // CHECK: tpc.get_param @w : tensor<8x16xf32>
  %w = tpc.get_param @w : tensor<8x16xf32>
  // CHECK: tpc.linear {{.*}} {tpc.offsets = array<i64: 0>}
  %l = tpc.linear %x, %w : tensor<2x4x8xf32>, tensor<8x16xf32>
  // CHECK: tpc.cross_entropy {{.*}} {tpc.offsets = array<i64: 512, 768>}
  %s, %n = tpc.cross_entropy %l, %t ignore_index -1 : tensor<2x4x16xf32>, tensor<2x4xi32>
  return %s, %n : tensor<f32>, tensor<i32>
}

// -----

// A gradient buffer is the runtime's, as a parameter is: get_grad's result
// takes no arena bytes, and the optimizer step's arena holds its scalars.
tpc.param @w : tensor<64x64xf32> init <normal, std = 2.000000e-02>
// CHECK-LABEL: func.func @apply_step
// CHECK-SAME: tpc.arena_bytes = 768
func.func @apply_step(%lr: tensor<f32>, %inv: tensor<f32>) -> tensor<f32> {
  // CHECK: = tpc.get_grad @w : tensor<64x64xf32>
  %g = tpc.get_grad @w : tensor<64x64xf32>
  // CHECK: tpc.sum_squares %{{.*}} {tpc.offsets = array<i64: 0>}
  %sq = tpc.sum_squares %g : tensor<64x64xf32>
  // CHECK: tpc.grad_norm {{.*}} {tpc.offsets = array<i64: 256, 512>}
  %norm, %scale = tpc.grad_norm %sq, %inv
  tpc.adamw_update @w, %g, %lr, %scale beta1 9.000000e-01 beta2 9.500000e-01 eps 1.000000e-08 weight_decay 0.000000e+00 : tensor<64x64xf32>
  return %norm : tensor<f32>
}

// -----

func.func @dynamic(%x: tensor<?x8xf32>) -> tensor<?x8xf32> {
  // expected-error @+1 {{has no static shape; fix the batch and sequence length first}}
  %a = tpc.gelu %x : tensor<?x8xf32>
  return %a : tensor<?x8xf32>
}

// -----

// f, g and all_reduce take the bytes of an operand that dies there; one
// read again later, or a function argument, keeps its own.
// CHECK-LABEL: func.func @in_place
// CHECK-SAME: tpc.arena_bytes = 768
func.func @in_place(%x: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  // CHECK: tpc.gelu %{{.*}} {tpc.offsets = array<i64: 0>}
  %a = tpc.gelu %x : tensor<4x8xf32>
  // CHECK: tpc.f %{{.*}} {tpc.offsets = array<i64: 0>}
  %b = tpc.f %a group tp : tensor<4x8xf32>
  // CHECK: tpc.g %{{.*}} {tpc.offsets = array<i64: 0>}
  %c = tpc.g %b group tp : tensor<4x8xf32>
  // CHECK: tpc.all_reduce %{{.*}} {tpc.offsets = array<i64: 256>}
  %d = tpc.all_reduce %c max group dp : tensor<4x8xf32>
  // CHECK: tpc.add %{{.*}} {tpc.offsets = array<i64: 512>}
  %e = tpc.add %c, %d : tensor<4x8xf32>
  // CHECK: tpc.all_reduce %{{.*}} {tpc.offsets = array<i64: 512>}
  %f = tpc.all_reduce %e sum group dp : tensor<4x8xf32>
  // CHECK: tpc.f %{{.*}} {tpc.offsets = array<i64: 0>}
  %g = tpc.f %x group tp : tensor<4x8xf32>
  return %f, %g : tensor<4x8xf32>, tensor<4x8xf32>
}

// -----

// In place, %b would keep %a's bytes, %d would go on top and %e (two
// buffers' worth) above it: 1280 bytes. Apart, %d takes %a's freed bytes
// and %e grows the arena from %b's: 1024, so the plan keeps %b apart.
tpc.param @w : tensor<8x32xf32> init <normal, std = 2.000000e-02>
// CHECK-LABEL: func.func @in_place_only_where_smaller
// CHECK-SAME: tpc.arena_bytes = 1024
func.func @in_place_only_where_smaller(%x: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x32xf32>) {
  // CHECK: tpc.gelu %{{.*}} {tpc.offsets = array<i64: 0>}
  %a = tpc.gelu %x : tensor<4x8xf32>
  // CHECK: tpc.gelu %{{.*}} {tpc.offsets = array<i64: 256>}
  %y = tpc.gelu %x : tensor<4x8xf32>
  // CHECK: tpc.f %{{.*}} {tpc.offsets = array<i64: 512>}
  %b = tpc.f %a group tp : tensor<4x8xf32>
  // CHECK: tpc.gelu %{{.*}} {tpc.offsets = array<i64: 0>}
  %d = tpc.gelu %b : tensor<4x8xf32>
  %w = tpc.get_param @w : tensor<8x32xf32>
  // CHECK: tpc.linear %{{.*}} {tpc.offsets = array<i64: 512>}
  %e = tpc.linear %d, %w : tensor<4x8xf32>, tensor<8x32xf32>
  return %y, %e : tensor<4x8xf32>, tensor<4x32xf32>
}
