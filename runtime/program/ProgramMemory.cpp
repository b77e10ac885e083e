//===- ProgramMemory.cpp - The memory one rank of a program needs -*- C++ -*-=//

#include "runtime/program/ProgramMemory.h"
#include "runtime/program/ProgramTypes.h"
#include "runtime/util/Bytes.h"

#include <algorithm>
#include <sstream>

namespace tpc {

ProgramMemory memory_of(const program::Program &prog) {
  ProgramMemory m;
  for (const program::Parameter &p : prog.parameters()) {
    const program::Tensor &t = prog.tensors(p.tensor());
    m.parameters += double(tensor_bytes(t));
    if (p.master_dtype() != program::DTYPE_UNSPECIFIED)
      m.parameters += double(tensor_bytes(t.shape(), p.master_dtype()));
    program::DType grad = p.grad_dtype() == program::DTYPE_UNSPECIFIED
                              ? t.dtype()
                              : p.grad_dtype();
    m.gradients += double(tensor_bytes(t.shape(), grad));
    m.optimizer_state +=
        2 * double(tensor_bytes(t.shape(), program::F32)); // m, v
  }
  // The executor allocates one arena, of the largest entry point's size.
  for (const program::Function &f : prog.functions())
    m.arena = std::max(m.arena, double(f.arena_bytes()));
  return m;
}

std::string describe_memory_need(const program::Program &prog) {
  ProgramMemory m = memory_of(prog);
  std::ostringstream msg;
  msg << "out of memory: one rank of this program (tp " << prog.tp() << ", dp "
      << prog.dp() << ", micro-batch " << prog.micro_batch() << ", seq "
      << prog.seq() << ") allocates an arena of " << format_bytes(m.arena)
      << " and parameters of " << format_bytes(m.parameters)
      << " (four times that with gradients and AdamW state); compile with a "
         "smaller --micro-batch or --seq, or a larger --tp "
         "(tpc-compile --report shows the memory per rank)";
  return msg.str();
}

} // namespace tpc
