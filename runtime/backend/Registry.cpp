//===- Registry.cpp - The backends of this build --------------------------===//
//
// The CPU backend is always built; the CUDA backend when the CUDA toolkit
// was found at configure time (TPC_HAVE_CUDA). A built backend may still be
// unavailable at run time (no GPU): make_backend then throws
// BackendUnavailable with the reason.
//
//===----------------------------------------------------------------------===//

#include "runtime/backend/Backend.h"
#include "runtime/backends/cpu/CpuBackend.h"
#ifdef TPC_HAVE_CUDA
#include "runtime/backends/cuda/CudaBackend.h"
#endif

namespace tpc {

std::vector<std::string> backend_names() {
#ifdef TPC_HAVE_CUDA
  return {"cpu", "cuda"};
#else
  return {"cpu"};
#endif
}

namespace {

[[noreturn]] void unknown_backend(const std::string &name) {
  if (name == "cuda")
    throw std::invalid_argument(
        "this build has no CUDA backend: it was configured without the CUDA "
        "toolkit (install it under /usr/local/cuda and rebuild)");
  std::string names;
  for (const std::string &n : backend_names())
    names += (names.empty() ? "" : ", ") + n;
  throw std::invalid_argument("unknown backend '" + name +
                              "'; this build has: " + names);
}

} // namespace

std::unique_ptr<Backend> make_backend(const std::string &name,
                                      const BackendOptions &options) {
  if (name == "cpu")
    return std::make_unique<CpuBackend>(options.cpu_gemm);
#ifdef TPC_HAVE_CUDA
  if (name == "cuda")
    return std::make_unique<CudaBackend>(options);
#else
  (void)options;
#endif
  unknown_backend(name);
}

std::string describe_backend(const std::string &name,
                             const BackendOptions &options) {
  if (name == "cpu")
    return CpuBackend::describe(options.cpu_gemm);
#ifdef TPC_HAVE_CUDA
  if (name == "cuda")
    return describe_cuda(options.device);
#else
  (void)options;
#endif
  unknown_backend(name);
}

} // namespace tpc
