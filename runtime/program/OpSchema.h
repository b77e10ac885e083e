//===- OpSchema.h - The ops a program may hold ------------------*- C++ -*-===//
//
// The ops a program may hold, as the ODS definitions of the tpc dialect
// declare them: generated into OpSchema.inc by tpc-schema-gen and checked
// in, so that the runtime needs no LLVM. It gives the runtime the only
// spelling of op names (tpc::op::kLinear) and of enum attribute keywords
// (tpc::enums::reduce_kind::kSum), and the operands, results and attributes
// of every op, which the program loader checks every instruction against.
//
//===----------------------------------------------------------------------===//

#ifndef TPC_RUNTIME_PROGRAM_OPSCHEMA_H
#define TPC_RUNTIME_PROGRAM_OPSCHEMA_H

#include <string>
#include <string_view>
#include <vector>

namespace tpc {

namespace program {
class Attribute;
class Instruction;
} // namespace program

/// The name of every op, as instructions spell it: op::kLinear == "linear".
namespace op {
#define TPC_GET_OP_NAMES
#include "runtime/program/OpSchema.inc"
} // namespace op

/// The keywords of every enum attribute: enums::group::kTp == "tp".
namespace enums {
#define TPC_GET_ENUM_VALUES
#include "runtime/program/OpSchema.inc"
} // namespace enums

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
  /// An enum attribute's keywords (a String); empty for other attributes.
  std::vector<const char *> values = {};
};

struct OpSchema {
  const char *name; // without the dialect prefix: "linear_grad"
  std::vector<OperandSchema> operands, results;
  std::vector<AttrSchema> attrs;

  /// Null when the op has no attribute `name`.
  const AttrSchema *attr(std::string_view name) const;
};

/// Every op of the dialect, by name.
const std::vector<OpSchema> &op_schemas();
/// Null when the dialect has no op `name`.
const OpSchema *find_op_schema(std::string_view name);
/// "an integer", "a number", ...
const char *attr_kind_text(AttrKind kind);

/// What is wrong with `inst` against its op's schema: an unknown op, the
/// count of operands or results, an attribute that is missing, of another
/// kind, or an enum keyword the op does not know. Empty when nothing is.
/// The text starts with what it is about ("has 3 operands", "unknown op
/// 'x'"), for the caller to say where the instruction is.
std::string schema_problem(const program::Instruction &inst);

/// Attribute `name` of `inst`, or null when the instruction does not carry
/// it. This is the one way to read an attribute: it throws std::logic_error
/// when the op's schema has no attribute `name` (a misspelt or renamed
/// attribute, which would otherwise read as absent).
const program::Attribute *find_attr(const program::Instruction &inst,
                                    std::string_view name);

} // namespace tpc

#endif // TPC_RUNTIME_PROGRAM_OPSCHEMA_H
