//===- OpSchema.h - Operands, results and attributes of each op -*- C++ -*-===//
//
// The ops a program may hold, as the ODS definitions of the tpc dialect
// declare them: generated into OpSchema.inc by tpc-schema-gen and checked
// in, so that the runtime needs no LLVM. The executor checks every
// instruction against its op's entry before the op family sees it.
//
//===----------------------------------------------------------------------===//

#ifndef TPC_RUNTIME_PROGRAM_OPSCHEMA_H
#define TPC_RUNTIME_PROGRAM_OPSCHEMA_H

#include <string>
#include <vector>

namespace tpc {

enum class Arity { Single, Optional, Variadic };

/// How tpc-export writes an attribute (program.proto's Attribute).
enum class AttrKind { Integer, Real, String, Flag, Layout };

struct OperandSchema {
  const char *name;
  Arity arity;
};

struct AttrSchema {
  const char *name;
  AttrKind kind;
  /// Absent only when the ODS attribute is optional or a flag.
  bool required;
};

struct OpSchema {
  const char *name; // without the dialect prefix: "linear_grad"
  std::vector<OperandSchema> operands, results;
  std::vector<AttrSchema> attrs;
};

/// Every op of the dialect, by name.
const std::vector<OpSchema> &op_schemas();
/// Null when the dialect has no op `name`.
const OpSchema *find_op_schema(const std::string &name);
/// "an integer", "a number", ...
const char *attr_kind_text(AttrKind kind);

} // namespace tpc

#endif // TPC_RUNTIME_PROGRAM_OPSCHEMA_H
