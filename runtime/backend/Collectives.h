//===- Collectives.h - Collectives on device buffers ------------*- C++ -*-===//
//
// All-reduce, reduce-scatter and all-gather over the job's groups, and
// messages between two ranks of a group (a pipeline's stages), on device
// buffers and ordered with the device's compute stream: a collective or a
// send sees every kernel issued before it, and kernels issued after a
// collective or a wait_recv see its result, with no synchronize() by the
// caller. An implementation on a device with streams records an event on the
// compute stream, makes its collective stream wait for it, issues the
// collective there and makes the compute stream wait for its end (NCCL's
// way); the CPU's MPI implementation runs the collective when it is issued,
// because the CPU's kernels have completed by then.
//
//===----------------------------------------------------------------------===//

#ifndef TPC_RUNTIME_BACKEND_COLLECTIVES_H
#define TPC_RUNTIME_BACKEND_COLLECTIVES_H

#include "runtime/backend/ElementType.h"
#include "runtime/comm/Comm.h"

#include <cstddef>
#include <memory>

namespace tpc {

class Backend;

class Collectives {
public:
  virtual ~Collectives() = default;
  /// In place; dtype: F32, BF16, F16 or I32 (16-bit floats are combined in
  /// f32 and rounded once per combination).
  virtual void all_reduce(void *data, size_t n, ElementType dtype, ReduceOp op,
                          Group group) = 0;
  /// `in` holds size(group) * n elements; `out` receives n of them: the sum
  /// over the group of everyone's [rank * n, (rank + 1) * n).
  virtual void reduce_scatter(const void *in, void *out, size_t n,
                              ElementType dtype, Group group) = 0;
  /// Start an all-reduce or a reduce-scatter that ends in wait_started(),
  /// ordered with the compute stream as the blocking calls are; meanwhile
  /// the compute stream goes on and must leave the buffers alone. Every
  /// rank starts the same collectives in the same order.
  virtual void start_all_reduce(void *data, size_t n, ElementType dtype,
                                ReduceOp op, Group group) = 0;
  virtual void start_reduce_scatter(const void *in, void *out, size_t n,
                                    ElementType dtype, Group group) = 0;
  /// Lets started collectives move on (between kernels).
  virtual void progress() = 0;
  /// Orders every started collective before the kernels issued next.
  virtual void wait_started() = 0;
  /// out holds size(group) * n elements: rank i's `in` at out + i * n.
  virtual void all_gather(const void *in, void *out, size_t n,
                          ElementType dtype, Group group) = 0;

  /// Sends `bytes` of `data` to rank `peer` of `group` as they are once
  /// the kernels issued before have run, and returns at once; the kernels
  /// issued after may change `data`. Every message sent is received.
  virtual void send(const void *data, size_t bytes, int peer, Group group,
                    int tag) = 0;
  /// Posts the receive of a message of `bytes` from rank `peer` of `group`
  /// into `data`, after the kernels issued before, and returns at once:
  /// the compute stream goes on, and leaves `data` alone, until
  /// wait_recv(handle), after which its kernels see the message. A receive
  /// may be posted long before its message is sent.
  ///
  /// Messages between two ranks of a group match in the order they are
  /// issued. MPI keeps that order per tag, so a receiver may take two tags
  /// in either order. NCCL has no tags, and runs a rank's sends and
  /// receives over one group in the order they are issued, each waiting
  /// for its peer: on the CUDA backend, two ranks issue the messages
  /// between them in the same order whatever their tags, and a receive
  /// posted early holds back the messages that rank issues over the group
  /// after it (but not its kernels or its other groups' collectives).
  virtual RecvHandle start_recv(void *data, size_t bytes, int peer, Group group,
                                int tag) = 0;
  /// Orders the receive before the kernels issued next. Throws
  /// std::invalid_argument for a handle that is not a pending receive.
  virtual void wait_recv(RecvHandle handle) = 0;
};

/// The collectives of `backend`'s devices over `comm`'s groups (MPI for the
/// CPU backend). Throws std::invalid_argument for a backend without them.
std::unique_ptr<Collectives> make_collectives(Backend &backend, Comm &comm);

} // namespace tpc

#endif // TPC_RUNTIME_BACKEND_COLLECTIVES_H
