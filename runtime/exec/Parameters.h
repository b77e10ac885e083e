//===- Parameters.h - One rank's slices of the model parameters -*- C++ -*-===//
//
// A program parameter carries its global shape (vocabulary dimensions padded
// to a multiple of 128 * tp), its layout over the tensor-parallel group and,
// for a padded dimension, its valid extent. Everything keyed by element
// position uses the index in the *unpadded* global tensor, so initial
// weights and checkpoints do not depend on the tensor-parallel size or its
// padding; padding entries are zero.
//
//===----------------------------------------------------------------------===//

#ifndef TPC_RUNTIME_EXEC_PARAMETERS_H
#define TPC_RUNTIME_EXEC_PARAMETERS_H

#include "runtime/io/Safetensors.h"
#include "runtime/program/program.pb.h"
#include "runtime/util/GlobalIndex.h"

#include <cstdint>
#include <string>
#include <vector>

namespace tpc {

/// Where rank tp_rank's slice of a parameter lies.
struct ParamSlice {
  std::vector<int64_t> global_shape;   // padded
  std::vector<int64_t> unpadded_shape; // what checkpoints hold
  std::vector<int64_t> local_shape;
  SliceSpec slice;  // within global_shape
  int pad_dim = -1; // the padded dimension, -1 when none
  /// The part of the slice that is not padding, within unpadded_shape;
  /// valid_length = 0 when the slice is all padding.
  SliceSpec valid;
  int64_t valid_length = 0;

  uint64_t local_elements() const;
};

/// Throws std::runtime_error naming the parameter when its layout does not
/// fit its shape or the program's local shape.
ParamSlice param_slice(const program::Parameter &param,
                       const program::Tensor &local, int tp_rank, int tp);

/// Initial values of the local slice (local_elements floats): N(0, std^2)
/// keyed by (seed, name, unpadded global index), or the constant.
void init_parameter(float *out, const program::Parameter &param,
                    const ParamSlice &slice, uint64_t seed);

/// The checkpoint name: Hugging Face GPT-2's (`wte` -> `wte.weight`).
std::string checkpoint_name(const std::string &param);

/// Checks that `file` holds only tensors a program reads: its parameters
/// (checkpoint or parameter names, with or without a `transformer.` prefix)
/// and their optimizer state (`optimizer.<key>.<name>`). Of a Hugging Face
/// GPT-2 checkpoint it also accepts and ignores the attention buffers
/// `h.<i>.attn.bias` and `h.<i>.attn.masked_bias`, and GPT2LMHeadModel's
/// `lm_head.weight` for a model whose output layer is tied to wte when it
/// equals wte.weight. Throws naming the first other tensor and the fix.
void check_checkpoint_tensors(const SafetensorsReader &file,
                              const program::Program &program);

/// Reads the local slice from a checkpoint of global tensors, accepting a
/// `transformer.` prefix and converting F16/BF16 to float. Throws naming
/// the tensor, the expected and the found shape.
void load_parameter(const SafetensorsReader &file,
                    const program::Parameter &param, const ParamSlice &slice,
                    float *out);

/// Reads the local slice of the global tensor `name` (unpadded shape
/// slice.unpadded_shape) into local_elements floats, padding zero: how
/// optimizer state parallel to a parameter is read.
void load_slice(const SafetensorsReader &file, const std::string &name,
                const ParamSlice &slice, float *out);

/// The unpadded global tensor from the local slices of tp ranks, rank r's at
/// slices + r * local_elements.
std::vector<float> assemble_parameter(const program::Parameter &param,
                                      const program::Tensor &local, int tp,
                                      const float *slices);

} // namespace tpc

#endif // TPC_RUNTIME_EXEC_PARAMETERS_H
