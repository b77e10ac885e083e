//===- ProgramFuzzer.cpp - Fuzz the program loader and executor -----------===//
//
// The first byte chooses what the rest is: a whole program file (header,
// checksum and all), or a payload that the harness wraps in a valid header so
// that mutations reach the checks behind the checksum. A program the loader
// accepts is then prepared and, when small, every function is checked and
// run once on one rank: whatever the loader lets through must not crash the
// executor.
//
//===----------------------------------------------------------------------===//

#include "runtime/backend/Backend.h"
#include "runtime/comm/Comm.h"
#include "runtime/exec/Executor.h"
#include "runtime/program/ProgramFile.h"

#include <cstdint>
#include <stdexcept>
#include <string>

using namespace tpc;

namespace {
std::string wrap(const uint8_t *data, size_t size) {
  std::string payload(reinterpret_cast<const char *>(data), size);
  std::string file = "#!tpc-run\nTPCPROG2";
  uint64_t length = payload.size();
  uint64_t checksum = program_checksum(payload.data(), payload.size());
  for (uint64_t v : {length, checksum})
    for (int i = 0; i < 8; ++i)
      file.push_back(static_cast<char>(v >> (8 * i)));
  return file + payload;
}

/// Bytes the executor would allocate for `prog`, roughly.
double footprint(const program::Program &prog) {
  double bytes = 0;
  for (const program::Function &f : prog.functions())
    bytes += double(f.arena_bytes());
  for (const program::Tensor &t : prog.tensors())
    if (t.storage() != program::Tensor::ACTIVATION)
      bytes += double(num_elements(t.shape())) * double(dtype_bytes(t.dtype()));
  return bytes;
}
} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size == 0)
    return 0;
  std::string bytes =
      (data[0] & 1) ? std::string(reinterpret_cast<const char *>(data + 1),
                                  size - 1)
                    : wrap(data + 1, size - 1);
  program::Program prog;
  try {
    prog = parse_program_file(bytes, "fuzz.tpc");
  } catch (const std::runtime_error &) {
    return 0;
  }
  // One process has one rank; keep the arenas and the work small.
  if (prog.tp() != 1 || prog.dp() != 1 || footprint(prog) > (1 << 22))
    return 0;
  static Comm comm(nullptr, nullptr);
  static bool grouped = (comm.make_groups(1, 1), true);
  (void)grouped;
  std::unique_ptr<Backend> backend = make_backend("cpu");
  try {
    Executor ex(prog, *backend, comm);
    ex.init_parameters(1);
    for (const program::Function &fn : prog.functions()) {
      ex.check(fn);
      RunOptions options;
      options.training = true;
      ex.run(fn, options);
    }
  } catch (const std::exception &) {
  }
  return 0;
}
