// RUN: tpc-opt %s -split-input-file -verify-diagnostics

func.func @two_positions(%qkv: tensor<1x2x48xf32>, %pos: tensor<i32>) {
  // expected-error @+1 {{'tpc.decode_attention' op qkv tensor<1x2x48xf32> must hold one position [B, 1, ...]; decode one token at a time}}
  %a = tpc.decode_attention %qkv, %pos heads 4 capacity 8 : tensor<1x2x48xf32>, tensor<i32>
  return
}

// -----

func.func @not_three_blocks(%qkv: tensor<1x1x40xf32>, %pos: tensor<i32>) {
  // expected-error @+1 {{'tpc.decode_attention' op qkv tensor<1x1x40xf32> must hold three equal blocks [q | k | v]}}
  %a = tpc.decode_attention %qkv, %pos heads 4 capacity 8 : tensor<1x1x40xf32>, tensor<i32>
  return
}

// -----

func.func @heads(%qkv: tensor<1x1x48xf32>, %pos: tensor<i32>) {
  // expected-error @+1 {{'tpc.decode_attention' op hidden size 16 is not a multiple of heads 3}}
  %a = tpc.decode_attention %qkv, %pos heads 3 capacity 8 : tensor<1x1x48xf32>, tensor<i32>
  return
}

// -----

func.func @capacity(%qkv: tensor<1x1x48xf32>, %pos: tensor<i32>) {
  // expected-error @+1 {{'tpc.decode_attention' op capacity must be >= 1, got 0}}
  %a = tpc.decode_attention %qkv, %pos heads 4 capacity 0 : tensor<1x1x48xf32>, tensor<i32>
  return
}

// -----

func.func @window(%qkv: tensor<1x1x48xf32>, %pos: tensor<i32>) {
  // expected-error @+1 {{'tpc.decode_attention' op window must be >= 1, got 0}}
  %a = tpc.decode_attention %qkv, %pos heads 4 capacity 8 window 0 : tensor<1x1x48xf32>, tensor<i32>
  return
}

// -----

func.func @position_type(%qkv: tensor<1x1x48xf32>, %pos: tensor<1xi32>) {
  // expected-error @+1 {{'tpc.decode_attention' op operand #1 must be 0D tensor of 32-bit signless integer values}}
  %a = tpc.decode_attention %qkv, %pos heads 4 capacity 8 : tensor<1x1x48xf32>, tensor<1xi32>
  return
}

// -----

func.func @rope_theta(%qkv: tensor<1x1x48xf32>, %pos: tensor<i32>) {
  // expected-error @+1 {{'tpc.decode_attention' op rope theta must be a finite number >= 0, got -2.000000e+00}}
  %a = tpc.decode_attention %qkv, %pos heads 2 capacity 8 rope -2.0 : tensor<1x1x48xf32>, tensor<i32>
  return
}
