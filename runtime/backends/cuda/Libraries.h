//===- Libraries.h - cuBLASLt and NCCL, loaded at run time ------*- C++ -*-===//
//
// The CUDA runtime is linked statically; cuBLASLt (libcublasLt.so.13) and
// NCCL (libnccl.so.2) are opened with dlopen the first time a CUDA backend
// needs them, and their entry points are kept in a small table. So one
// tpc-run starts on machines with and without the GPU libraries, a CPU run
// never loads them, and a GPU machine may take them from wherever it has
// them (its CUDA installation, PyTorch's wheels) through LD_LIBRARY_PATH.
//
//===----------------------------------------------------------------------===//

#ifndef TPC_RUNTIME_BACKENDS_CUDA_LIBRARIES_H
#define TPC_RUNTIME_BACKENDS_CUDA_LIBRARIES_H

#include <cublasLt.h>
#include <nccl.h>

#include <string>

namespace tpc::cuda {

struct CublasLtApi {
  decltype(&cublasLtCreate) create;
  decltype(&cublasLtDestroy) destroy;
  decltype(&cublasLtGetVersion) get_version;
  decltype(&cublasLtMatmul) matmul;
  decltype(&cublasLtMatmulDescCreate) desc_create;
  decltype(&cublasLtMatmulDescDestroy) desc_destroy;
  decltype(&cublasLtMatmulDescSetAttribute) desc_set;
  decltype(&cublasLtMatrixLayoutCreate) layout_create;
  decltype(&cublasLtMatrixLayoutDestroy) layout_destroy;
  decltype(&cublasLtMatrixLayoutSetAttribute) layout_set;
  decltype(&cublasLtMatmulPreferenceCreate) pref_create;
  decltype(&cublasLtMatmulPreferenceDestroy) pref_destroy;
  decltype(&cublasLtMatmulPreferenceSetAttribute) pref_set;
  decltype(&cublasLtMatmulAlgoGetHeuristic) heuristic;
};

struct NcclApi {
  decltype(&ncclGetVersion) get_version;
  decltype(&ncclGetUniqueId) get_unique_id;
  decltype(&ncclCommInitRank) comm_init_rank;
  decltype(&ncclCommDestroy) comm_destroy;
  decltype(&ncclCommAbort) comm_abort;
  decltype(&ncclCommGetAsyncError) comm_get_async_error;
  decltype(&ncclGetErrorString) get_error_string;
  decltype(&ncclAllReduce) all_reduce;
  decltype(&ncclReduceScatter) reduce_scatter;
  decltype(&ncclAllGather) all_gather;
  decltype(&ncclSend) send;
  decltype(&ncclRecv) recv;
};

/// The tables, loaded on first use. Throws std::runtime_error naming the
/// library, why dlopen failed and how to point the loader at it.
const CublasLtApi &cublaslt();
const NcclApi &nccl();

/// "libcublasLt.so.13 (cuBLASLt 13.0.2)", for `tpc-run info`; the reason
/// it could not be loaded otherwise.
std::string cublaslt_description();
std::string nccl_description();

} // namespace tpc::cuda

#define cublasCheck(call)                                                      \
  do {                                                                         \
    cublasStatus_t tpc_cublas_st_ = (call);                                    \
    if (tpc_cublas_st_ != CUBLAS_STATUS_SUCCESS)                               \
      throw std::runtime_error(std::string("cuBLASLt error at ") + __FILE__ +  \
                               ":" + std::to_string(__LINE__) +                \
                               " (" #call "): status " +                       \
                               std::to_string(int(tpc_cublas_st_)));           \
  } while (0)

#define ncclCheck(call)                                                        \
  do {                                                                         \
    ncclResult_t tpc_nccl_r_ = (call);                                         \
    if (tpc_nccl_r_ != ncclSuccess)                                            \
      throw std::runtime_error(                                                \
          std::string("NCCL error at ") + __FILE__ + ":" +                     \
          std::to_string(__LINE__) + " (" #call "): " +                        \
          ::tpc::cuda::nccl().get_error_string(tpc_nccl_r_));                  \
  } while (0)

#endif // TPC_RUNTIME_BACKENDS_CUDA_LIBRARIES_H
