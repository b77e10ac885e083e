//===- Collectives.cpp - The collectives of each backend ------------------===//

#include "runtime/backend/Collectives.h"
#include "runtime/backend/Backend.h"
#include "runtime/backends/cpu/MpiCollectives.h"
#ifdef TPC_HAVE_CUDA
#include "runtime/backends/cuda/CudaBackend.h"
#include "runtime/backends/cuda/NcclCollectives.h"
#endif

#include <stdexcept>
#include <string>

namespace tpc {

std::unique_ptr<Collectives> make_collectives(Backend &backend, Comm &comm) {
  if (backend.name() == "cpu")
    return make_mpi_collectives(comm);
#ifdef TPC_HAVE_CUDA
  if (auto *cuda = dynamic_cast<CudaBackend *>(&backend))
    return make_nccl_collectives(*cuda, comm);
#endif
  throw std::invalid_argument("the " + backend.name() +
                              " backend has no collectives in this build");
}

} // namespace tpc
