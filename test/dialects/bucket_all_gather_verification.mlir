// RUN: tpc-opt %s -split-input-file -verify-diagnostics

tpc.param @wte : tensor<64x16xf32> init <normal, std = 0.02>

func.func @tp_group() {
  // expected-error @+1 {{'tpc.bucket_all_gather' op gathers the optimizer's shards over group dp, not tp}}
  tpc.bucket_all_gather [@wte] group tp
  return
}

// -----

func.func @empty() {
  // expected-error @+1 {{'tpc.bucket_all_gather' op needs at least one parameter}}
  tpc.bucket_all_gather [] group dp
  return
}

// -----

tpc.param @wte : tensor<64x16xf32> init <normal, std = 0.02>

func.func @twice() {
  // expected-error @+1 {{'tpc.bucket_all_gather' op lists parameter @wte twice; each belongs to one bucket}}
  tpc.bucket_all_gather [@wte, @wte] group dp
  return
}

// -----

// The gathered copies are the ones functions read: their compute types.
tpc.param @wte : tensor<64x16xf32> init <normal, std = 0.02> compute bf16 grad f32
tpc.param @ln_f.weight : tensor<16xf32> init <ones>

func.func @mixed_compute() {
  // expected-error @+1 {{'tpc.bucket_all_gather' op mixes compute element types: @wte is 'bf16' but @ln_f.weight is 'f32'; one collective moves one element type, so put them in separate buckets}}
  tpc.bucket_all_gather [@wte, @ln_f.weight] group dp
  return
}

// -----

tpc.param @wte : tensor<64x16xf32> init <normal, std = 0.02>
tpc.param @wpe : tensor<32x16xf32> init <normal, std = 0.02>
tpc.param @ln_f.weight : tensor<16xf32> init <ones>

func.func @gap() {
  // expected-error @+1 {{'tpc.bucket_all_gather' op parameters of a bucket must be consecutive tpc.params of the module, so that their gradients are one contiguous buffer; 2 parameters span 3 positions}}
  tpc.bucket_all_gather [@ln_f.weight, @wte] group dp
  return
}
