//===- NcclCollectives.h - The CUDA backend's collectives -------*- C++ -*-===//
//
// NCCL communicators, one per group of the job (world, tp, dp, pp,
// embedding, stack) that has more than one rank, made on the group's first
// collective or message by broadcasting a unique id over MPI (runtime/comm)
// from the group's first rank. A group of one rank needs no communicator:
// its sums are the identity and its gathers copies on the compute stream, so
// a single-GPU run never loads libnccl. Collectives run on the device's
// collective stream, ordered with the compute stream by events
// (runtime/backend/Collectives.h): a blocking call makes compute wait for its
// end; a started one lets compute go on until wait_started(). Messages
// (ncclSend, ncclRecv) run on a stream of their own, so that a receive
// posted early holds back neither; a send first copies its bytes on the
// compute stream, so that the kernels after it may change them. Every
// collective and message is watched (CollectiveWatchdog.h): one that runs
// past --comm-timeout, or a communicator that fails, aborts the
// communicators and ends the job with the MPI path's line.
//
//===----------------------------------------------------------------------===//

#ifndef TPC_RUNTIME_BACKENDS_CUDA_NCCLCOLLECTIVES_H
#define TPC_RUNTIME_BACKENDS_CUDA_NCCLCOLLECTIVES_H

#include "runtime/backend/Collectives.h"

#include <memory>

namespace tpc {

class CudaBackend;

/// Loads nothing: NCCL is opened, and a group's communicator initialized
/// collectively, on the first collective of a group of more than one rank.
std::unique_ptr<Collectives> make_nccl_collectives(CudaBackend &backend,
                                                   Comm &comm);

} // namespace tpc

#endif // TPC_RUNTIME_BACKENDS_CUDA_NCCLCOLLECTIVES_H
