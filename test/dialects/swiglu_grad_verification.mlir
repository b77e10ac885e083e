// RUN: tpc-opt %s -split-input-file -verify-diagnostics

func.func @shapes(%d: tensor<2x64xf32>, %g: tensor<2x64xf32>, %u: tensor<2x32xf32>) {
  // expected-error @+1 {{'tpc.swiglu_grad' op failed to verify that all of {dout, gate, up, dgate, dup} have same type}}
  %dg, %du = "tpc.swiglu_grad"(%d, %g, %u) : (tensor<2x64xf32>, tensor<2x64xf32>, tensor<2x32xf32>) -> (tensor<2x64xf32>, tensor<2x64xf32>)
  return
}
