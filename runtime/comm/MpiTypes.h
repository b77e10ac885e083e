//===- MpiTypes.h - MPI datatypes, reductions and error checks --*- C++ -*-===//
//
// What the communicators ask of MPI besides the calls themselves: the
// datatype and reduction of each element type (16-bit floats reduced in
// f32 by a user operation, as NCCL does) and a check of every call's status.
// Only runtime/comm includes it: nothing else needs <mpi.h>.
//
//===----------------------------------------------------------------------===//

#ifndef TPC_RUNTIME_COMM_MPITYPES_H
#define TPC_RUNTIME_COMM_MPITYPES_H

#include "runtime/backend/ElementType.h"
#include "runtime/comm/Comm.h"

#include <mpi.h>

/// Reports a failed MPI call with its file and line and ends the job: an MPI
/// error leaves the communicators unusable, so no rank could recover.
#define mpiCheck(call) ::tpc::mpi_check((call), #call, __FILE__, __LINE__)

namespace tpc {

/// mpiCheck's work: returns when `status` is MPI_SUCCESS.
void mpi_check(int status, const char *call, const char *file, int line);

/// The MPI datatype of an element type: 16-bit floats travel as uint16.
MPI_Datatype mpi_type(ElementType type);

/// The reduction of MPI's own types (f32, i32, double).
MPI_Op mpi_op(ReduceOp op);
/// The reduction of `type`: for bf16 and f16 a user operation that widens
/// each pair to f32, combines it and rounds once.
MPI_Op mpi_op(ElementType type, ReduceOp op);

} // namespace tpc

#endif // TPC_RUNTIME_COMM_MPITYPES_H
