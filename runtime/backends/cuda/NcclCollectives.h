//===- NcclCollectives.h - The CUDA backend's collectives -------*- C++ -*-===//
//
// NCCL communicators, one per group of the job (world, tp, dp, stack),
// bootstrapped by broadcasting each group's unique id over MPI (runtime/comm)
// from the group's first rank. Collectives run on the device's collective
// stream, ordered with the compute stream by events (runtime/backend/
// Collectives.h): a blocking call makes compute wait for its end; a started
// one lets compute go on until wait_started().
//
//===----------------------------------------------------------------------===//

#ifndef TPC_RUNTIME_BACKENDS_CUDA_NCCLCOLLECTIVES_H
#define TPC_RUNTIME_BACKENDS_CUDA_NCCLCOLLECTIVES_H

#include "runtime/backend/Collectives.h"

#include <memory>

namespace tpc {

class CudaBackend;

/// Every rank of the job calls it at the same point (it initializes one
/// communicator per group, collectively).
std::unique_ptr<Collectives> make_nccl_collectives(CudaBackend &backend,
                                                   Comm &comm);

} // namespace tpc

#endif // TPC_RUNTIME_BACKENDS_CUDA_NCCLCOLLECTIVES_H
