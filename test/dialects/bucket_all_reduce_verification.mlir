// RUN: tpc-opt %s -split-input-file -verify-diagnostics

tpc.param @wte : tensor<64x16xf32> init <normal, std = 0.02>

func.func @tp_group() {
  // expected-error @+1 {{'tpc.bucket_all_reduce' op reduces gradients over group dp, not tp: tensor-parallel ranks hold slices of one gradient or, for replicated parameters, equal ones}}
  tpc.bucket_all_reduce [@wte] group tp
  return
}

// -----

func.func @empty() {
  // expected-error @+1 {{'tpc.bucket_all_reduce' op needs at least one parameter}}
  tpc.bucket_all_reduce [] group dp
  return
}

// -----

tpc.param @wte : tensor<64x16xf32> init <normal, std = 0.02>

func.func @twice() {
  // expected-error @+1 {{'tpc.bucket_all_reduce' op lists parameter @wte twice; each belongs to one bucket}}
  tpc.bucket_all_reduce [@wte, @wte] group dp
  return
}

// -----

func.func @missing() {
  // expected-error @+1 {{'tpc.bucket_all_reduce' op no parameter named @wte; declare it with tpc.param}}
  tpc.bucket_all_reduce [@wte] group dp
  return
}

// -----

func.func @function() {
  // expected-error @+1 {{'tpc.bucket_all_reduce' op symbol @function is a 'func.func', not a tpc.param}}
  tpc.bucket_all_reduce [@function] group dp
  return
}

// -----

tpc.param @wte : tensor<64x16xf32> init <normal, std = 0.02>
tpc.param @ln_f.weight : tensor<16xbf16> init <ones>

func.func @mixed() {
  // expected-error @+1 {{'tpc.bucket_all_reduce' op mixes gradient element types: @wte is 'f32' but @ln_f.weight is 'bf16'; one collective moves one element type, so put them in separate buckets}}
  tpc.bucket_all_reduce [@wte, @ln_f.weight] group dp
  return
}

// -----

tpc.param @wte : tensor<64x16xf32> init <normal, std = 0.02>
tpc.param @wpe : tensor<32x16xf32> init <normal, std = 0.02>
tpc.param @ln_f.weight : tensor<16xf32> init <ones>

// A bucket is one contiguous range of the gradient buffers.
func.func @gap() {
  // expected-error @+1 {{'tpc.bucket_all_reduce' op parameters of a bucket must be consecutive tpc.params of the module, so that their gradients are one contiguous buffer; 2 parameters span 3 positions}}
  tpc.bucket_all_reduce [@ln_f.weight, @wte] group dp
  return
}

// -----

// Buckets group gradient types, not parameter types.
tpc.param @wte : tensor<64x16xf32> init <normal, std = 0.02> compute bf16
tpc.param @ln_f.weight : tensor<16xf32> init <ones> compute bf16 grad f32

func.func @mixed_grads() {
  // expected-error @+1 {{'tpc.bucket_all_reduce' op mixes gradient element types: @wte is 'bf16' but @ln_f.weight is 'f32'}}
  tpc.bucket_all_reduce [@wte, @ln_f.weight] group dp
  return
}
