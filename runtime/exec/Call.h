//===- Call.h - One instruction as the op handlers see it ------*- C++ -*-===//
//
// Private to runtime/exec: the instruction being checked or run, its
// attribute accessors with errors that name it, and shape helpers shared by
// the op handlers.
//
//===----------------------------------------------------------------------===//

#ifndef TPC_RUNTIME_EXEC_CALL_H
#define TPC_RUNTIME_EXEC_CALL_H

#include "runtime/exec/Executor.h"
#include "runtime/program/ProgramFile.h"

#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace tpc {

using program::Attribute;

/// One instruction being checked or run.
struct Executor::Call {
  const program::Function &fn;
  int index;
  const program::Instruction &inst;

  int in(int i) const { return inst.inputs(i); }
  int out(int i) const { return inst.outputs(i); }
  int num_inputs() const { return inst.inputs_size(); }

  std::string where() const {
    return "instruction " + std::to_string(index) + " (" + inst.op() +
           ") of function '" + fn.name() + "'";
  }
  std::runtime_error error(const std::string &what) const {
    return std::runtime_error(where() + ": " + what);
  }

  const Attribute *find(const std::string &name) const {
    auto it = inst.attrs().find(name);
    return it == inst.attrs().end() ? nullptr : &it->second;
  }
  const Attribute &need(const std::string &name) const {
    const Attribute *a = find(name);
    if (!a)
      throw error("has no attribute '" + name +
                  "'; recompile the model with tpc-compile");
    return *a;
  }
  int64_t integer(const std::string &name) const {
    const Attribute &a = need(name);
    if (a.value_case() != Attribute::kI)
      throw error("attribute '" + name + "' is not an integer");
    return a.i();
  }
  std::optional<int64_t> optional_integer(const std::string &name) const {
    if (!find(name))
      return std::nullopt;
    return integer(name);
  }
  double real(const std::string &name) const {
    const Attribute &a = need(name);
    if (a.value_case() == Attribute::kI)
      return double(a.i());
    if (a.value_case() != Attribute::kF)
      throw error("attribute '" + name + "' is not a number");
    return a.f();
  }
  std::string string(const std::string &name) const {
    const Attribute &a = need(name);
    if (a.value_case() != Attribute::kS)
      throw error("attribute '" + name + "' is not a string");
    return a.s();
  }
  /// Unit attributes: present means true.
  bool flag(const std::string &name) const {
    const Attribute *a = find(name);
    if (!a)
      return false;
    if (a->value_case() != Attribute::kFlag)
      throw error("attribute '" + name + "' is not a flag");
    return a->flag();
  }
  const program::Layout &layout(const std::string &name) const {
    const Attribute &a = need(name);
    if (a.value_case() != Attribute::kLayout)
      throw error("attribute '" + name + "' is not a layout");
    return a.layout();
  }
  Group group() const {
    std::string name = string("group");
    try {
      return parse_group(name);
    } catch (const std::runtime_error &e) {
      throw error(e.what());
    }
  }
};

namespace exec_detail {
inline int checked_int(int64_t v, const Executor::Call &c, const char *what) {
  if (v < 0 || v > INT32_MAX)
    throw c.error(std::string(what) + " = " + std::to_string(v) +
                  " is out of range");
  return int(v);
}

struct Rows {
  int N, C; // N rows of C: a tensor [..., C]
};

inline Rows rows_of(const std::vector<int64_t> &shape,
                    const Executor::Call &c) {
  if (shape.empty())
    throw c.error("expects a tensor of rank >= 1");
  int64_t n = 1;
  for (size_t d = 0; d + 1 < shape.size(); ++d)
    n *= shape[d];
  return {checked_int(n, c, "rows"), checked_int(shape.back(), c, "columns")};
}

inline void expect_shape(const std::vector<int64_t> &got,
                         const std::vector<int64_t> &want,
                         const Executor::Call &c, const char *what) {
  if (got != want)
    throw c.error(std::string(what) + " has shape " + shape_string(got) +
                  ", expected " + shape_string(want));
}
} // namespace exec_detail

} // namespace tpc

#endif // TPC_RUNTIME_EXEC_CALL_H
