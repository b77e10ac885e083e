//===- CudaCheck.h - Errors of the CUDA runtime and its libraries -*- C++ -*-===//
//
// cudaCheck(call) throws std::runtime_error naming the call's file and
// line and the runtime's description of the error, as llm.c's cudaCheck
// reports them; it never aborts, so a failed run can still say what its
// checkpoint holds.
//
//===----------------------------------------------------------------------===//

#ifndef TPC_RUNTIME_BACKENDS_CUDA_CUDACHECK_H
#define TPC_RUNTIME_BACKENDS_CUDA_CUDACHECK_H

#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

namespace tpc::cuda {

[[noreturn]] inline void throw_cuda_error(cudaError_t err, const char *what,
                                          const char *file, int line) {
  throw std::runtime_error(std::string("CUDA error at ") + file + ":" +
                           std::to_string(line) + " (" + what +
                           "): " + cudaGetErrorName(err) + ", " +
                           cudaGetErrorString(err));
}

} // namespace tpc::cuda

#define cudaCheck(call)                                                        \
  do {                                                                         \
    cudaError_t tpc_cuda_err_ = (call);                                        \
    if (tpc_cuda_err_ != cudaSuccess)                                          \
      ::tpc::cuda::throw_cuda_error(tpc_cuda_err_, #call, __FILE__, __LINE__); \
  } while (0)

#endif // TPC_RUNTIME_BACKENDS_CUDA_CUDACHECK_H
