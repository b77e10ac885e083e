// RUN: tpc-opt %s -split-input-file -verify-diagnostics

func.func @dynamic() -> tensor<?xf32> {
  // expected-error @+1 {{'tpc.fill' op result 'tensor<?xf32>' must have a static shape; a fill has no operand to size it}}
  %x = tpc.fill 1.0 : tensor<?xf32>
  return %x : tensor<?xf32>
}

// -----

func.func @not_finite() -> tensor<f32> {
  // expected-error @+1 {{'tpc.fill' op value must be finite, got INF}}
  %x = "tpc.fill"() <{value = 0x7FF0000000000000 : f64}> : () -> tensor<f32>
  return %x : tensor<f32>
}

// -----

func.func @integer() -> tensor<i32> {
  // expected-error @+1 {{'tpc.fill' op result #0 must be ranked tensor of 32-bit float or bfloat16 type or 16-bit float values}}
  %x = tpc.fill 1.0 : tensor<i32>
  return %x : tensor<i32>
}
