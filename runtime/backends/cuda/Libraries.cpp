//===- Libraries.cpp - cuBLASLt and NCCL, loaded at run time --------------===//

#include "runtime/backends/cuda/Libraries.h"

#include <dlfcn.h>

#include <mutex>
#include <stdexcept>

namespace tpc::cuda {
namespace {

#define TPC_STR2(x) #x
#define TPC_STR(x) TPC_STR2(x)
constexpr const char *kCublasLt = "libcublasLt.so." TPC_STR(CUBLAS_VER_MAJOR);
constexpr const char *kNccl = "libnccl.so." TPC_STR(NCCL_MAJOR);

void *open_library(const char *soname, const char *what) {
  dlerror();
  void *h = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    const char *why = dlerror();
    throw std::runtime_error(
        std::string("the CUDA backend needs ") + what + " (" + soname +
        ") and the loader cannot open it: " + (why ? why : "unknown error") +
        ". Install it (the CUDA toolkit has it under /usr/local/cuda/lib64; "
        "PyTorch's wheels carry it under site-packages/nvidia/*/lib) and "
        "add its directory to LD_LIBRARY_PATH");
  }
  return h;
}

template <class F>
void bind(F &f, void *h, const char *symbol, const char *soname) {
  dlerror();
  void *p = dlsym(h, symbol);
  if (!p)
    throw std::runtime_error(std::string(soname) + " has no " + symbol +
                             "; it is older than the " + soname +
                             " this build was compiled against");
  f = reinterpret_cast<F>(p);
}

/// The table of one library, loaded once per process: `bind_all(handle,
/// table)` fills it. A failure is kept and thrown again on every call.
template <class Api, class BindAll>
const Api &load_once(const char *soname, const char *what, BindAll bind_all) {
  static std::once_flag once;
  static std::string error;
  static Api api;
  std::call_once(once, [&] {
    try {
      bind_all(open_library(soname, what), api);
    } catch (const std::exception &e) {
      error = e.what();
    }
  });
  if (!error.empty())
    throw std::runtime_error(error);
  return api;
}

std::string version_text(const char *soname, const char *name, long v) {
  return std::string(soname) + " (" + name + " " + std::to_string(v / 10000) +
         "." + std::to_string(v / 100 % 100) + "." + std::to_string(v % 100) +
         ")";
}

} // namespace

const CublasLtApi &cublaslt() {
  return load_once<CublasLtApi>(
      kCublasLt, "cuBLASLt", [](void *h, CublasLtApi &api) {
#define B(field, symbol) bind(api.field, h, #symbol, kCublasLt)
        B(create, cublasLtCreate);
        B(destroy, cublasLtDestroy);
        B(get_version, cublasLtGetVersion);
        B(matmul, cublasLtMatmul);
        B(desc_create, cublasLtMatmulDescCreate);
        B(desc_destroy, cublasLtMatmulDescDestroy);
        B(desc_set, cublasLtMatmulDescSetAttribute);
        B(layout_create, cublasLtMatrixLayoutCreate);
        B(layout_destroy, cublasLtMatrixLayoutDestroy);
        B(layout_set, cublasLtMatrixLayoutSetAttribute);
        B(pref_create, cublasLtMatmulPreferenceCreate);
        B(pref_destroy, cublasLtMatmulPreferenceDestroy);
        B(pref_set, cublasLtMatmulPreferenceSetAttribute);
        B(heuristic, cublasLtMatmulAlgoGetHeuristic);
#undef B
      });
}

const NcclApi &nccl() {
  return load_once<NcclApi>(kNccl, "NCCL", [](void *h, NcclApi &api) {
#define B(field, symbol) bind(api.field, h, #symbol, kNccl)
    B(get_version, ncclGetVersion);
    B(get_unique_id, ncclGetUniqueId);
    B(comm_init_rank, ncclCommInitRank);
    B(comm_destroy, ncclCommDestroy);
    B(comm_abort, ncclCommAbort);
    B(comm_get_async_error, ncclCommGetAsyncError);
    B(get_error_string, ncclGetErrorString);
    B(all_reduce, ncclAllReduce);
    B(reduce_scatter, ncclReduceScatter);
    B(all_gather, ncclAllGather);
    B(send, ncclSend);
    B(recv, ncclRecv);
#undef B
  });
}

std::string cublaslt_description() {
  try {
    return version_text(kCublasLt, "cuBLASLt", long(cublaslt().get_version()));
  } catch (const std::exception &e) {
    return e.what();
  }
}

std::string nccl_description() {
  try {
    int v = 0;
    if (nccl().get_version(&v) != ncclSuccess)
      return std::string(kNccl) + " (version unknown)";
    return version_text(kNccl, "NCCL", v);
  } catch (const std::exception &e) {
    return e.what();
  }
}

} // namespace tpc::cuda
