//===- MpiCollectives.h - The CPU backend's collectives over MPI -*- C++ -*-===//

#ifndef TPC_RUNTIME_BACKENDS_CPU_MPICOLLECTIVES_H
#define TPC_RUNTIME_BACKENDS_CPU_MPICOLLECTIVES_H

#include "runtime/backend/Collectives.h"

#include <memory>

namespace tpc {

/// Collectives on host memory through the job's MPI communicators.
std::unique_ptr<Collectives> make_mpi_collectives(Comm &comm);

} // namespace tpc

#endif // TPC_RUNTIME_BACKENDS_CPU_MPICOLLECTIVES_H
