// RUN: tpc-opt %s -split-input-file -verify-diagnostics | FileCheck %s

// A pipeline chunk's messages print as they parse.
// CHECK-LABEL: func.func @messages
// CHECK-NEXT: [[X:%.*]] = tpc.recv from chunk 0 index 1 : tensor<2x8x16xbf16>
// CHECK-NEXT: tpc.send [[X]] to chunk 2 index 0 : tensor<2x8x16xbf16>
// CHECK-NEXT: [[G:%.*]] = tpc.recv from chunk 2 index 0 grad : tensor<2x8x16xf32>
// CHECK-NEXT: tpc.send [[G]] to chunk 0 index 0 grad : tensor<2x8x16xf32>
func.func @messages() {
  %x = tpc.recv from chunk 0 index 1 : tensor<2x8x16xbf16>
  tpc.send %x to chunk 2 index 0 : tensor<2x8x16xbf16>
  %g = tpc.recv from chunk 2 index 0 grad : tensor<2x8x16xf32>
  tpc.send %g to chunk 0 index 0 grad : tensor<2x8x16xf32>
  return
}

// -----

func.func @negative_chunk() {
  // expected-error @+1 {{'tpc.recv' op names chunk -1 and index 0; both count from 0 (tpc-pipeline builds these ops)}}
  %x = tpc.recv from chunk -1 index 0 : tensor<4xf32>
  return
}

// -----

func.func @negative_index(%x: tensor<4xi32>) {
  // expected-error @+1 {{'tpc.send' op names chunk 1 and index -2; both count from 0 (tpc-pipeline builds these ops)}}
  tpc.send %x to chunk 1 index -2 : tensor<4xi32>
  return
}
