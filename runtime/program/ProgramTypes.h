//===- ProgramTypes.h - Sizes and names of program tensors ------*- C++ -*-===//
//
// What the reader, the validator, the executor and the reports all ask of a
// program's tensors: bytes per element, element counts, bytes per tensor,
// and the spelling of dtypes and of list attributes.
//
//===----------------------------------------------------------------------===//

#ifndef TPC_RUNTIME_PROGRAM_PROGRAMTYPES_H
#define TPC_RUNTIME_PROGRAM_PROGRAMTYPES_H

#include "runtime/program/program.pb.h"

#include <cstdint>
#include <string>
#include <vector>

namespace tpc {

/// Bytes per element of a program dtype; 0 for DTYPE_UNSPECIFIED.
int64_t dtype_bytes(program::DType dtype);
/// "f32", "bf16", "f16", "i32" or "unspecified".
const char *dtype_text(program::DType dtype);

/// The names of a list attribute ("a,b,c" -> {a, b, c}), as instructions
/// spell lists of parameters (bucket_all_reduce's `params`).
std::vector<std::string> split_name_list(const std::string &list);

/// Elements of a tensor of the given shape; -1 for a negative dimension or
/// a product that overflows.
int64_t num_elements(const google::protobuf::RepeatedField<int64_t> &shape);

/// Bytes of a tensor (elements times bytes per element), or -1 when its
/// dtype is unknown or its size does not fit in 62 bits (a damaged
/// dimension, not a real tensor).
int64_t tensor_bytes(const program::Tensor &t);
/// The same for a tensor of `t`'s shape and another dtype: a parameter's
/// master copy or gradient.
int64_t tensor_bytes(const google::protobuf::RepeatedField<int64_t> &shape,
                     program::DType dtype);

} // namespace tpc

#endif // TPC_RUNTIME_PROGRAM_PROGRAMTYPES_H
