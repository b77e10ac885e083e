//===- Device.h - Memory, streams and events of one device ------*- C++ -*-===//
//
// What the executor needs of a device apart from its kernels: memory,
// copies, and the order of work. Work is issued to streams and runs in
// issue order on each; an event marks a point in a stream that another
// stream (or the host) can wait for. Kernels run on the compute stream;
// collectives may run on a stream of their own and synchronise with
// compute through events (runtime/backend/Collectives.h).
//
// A device whose calls complete before they return (the CPU) implements
// streams and events as no-ops: issue order is then execution order.
//
//===----------------------------------------------------------------------===//

#ifndef TPC_RUNTIME_BACKEND_DEVICE_H
#define TPC_RUNTIME_BACKEND_DEVICE_H

#include <cstddef>
#include <optional>
#include <string>

namespace tpc {

enum class Stream { Compute, Collective };

/// An opaque handle; null is no event.
using Event = void *;

class Device {
public:
  virtual ~Device() = default;
  virtual std::string name() const = 0;

  /// At least 64-byte aligned; throws std::bad_alloc when out of memory.
  virtual void *alloc(size_t bytes) = 0;
  virtual void free(void *ptr) = 0;
  /// The most memory of its own the device has held at once so far, in
  /// bytes (a GPU's allocations); none where the device's memory is the
  /// host's (the CPU), whose figure is the process's peak resident set.
  virtual std::optional<size_t> peak_allocated_bytes() const {
    return std::nullopt;
  }

  /// Ordered on the compute stream. A host-to-device copy has read `src`
  /// when it returns.
  virtual void copy_host_to_device(void *dst, const void *src,
                                   size_t bytes) = 0;
  /// Waits for the compute stream's earlier work, then copies.
  virtual void copy_device_to_host(void *dst, const void *src,
                                   size_t bytes) = 0;
  virtual void copy_device_to_device(void *dst, const void *src,
                                     size_t bytes) = 0;
  virtual void zero(void *ptr, size_t bytes) = 0;
  /// Waits until the work issued to every stream so far has finished.
  virtual void synchronize() = 0;

  virtual Event create_event() = 0;
  virtual void destroy_event(Event event) = 0;
  /// Marks the current end of `stream`.
  virtual void record(Event event, Stream stream) = 0;
  /// Work issued to `stream` from now on starts after the event.
  virtual void wait(Stream stream, Event event) = 0;
};

} // namespace tpc

#endif // TPC_RUNTIME_BACKEND_DEVICE_H
