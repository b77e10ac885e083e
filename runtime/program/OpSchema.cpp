//===- OpSchema.cpp - The ops a program may hold --------------------------===//

#include "runtime/program/OpSchema.h"
#include "runtime/program/program.pb.h"

#include <stdexcept>
#include <unordered_map>

namespace tpc {

const std::vector<OpSchema> &op_schemas() {
  static const std::vector<OpSchema> schemas = {
#define TPC_GET_OP_SCHEMAS
#include "runtime/program/OpSchema.inc"
  };
  return schemas;
}

const OpSchema *find_op_schema(std::string_view name) {
  static const std::unordered_map<std::string_view, const OpSchema *> by_name =
      [] {
        std::unordered_map<std::string_view, const OpSchema *> m;
        for (const OpSchema &s : op_schemas())
          m.emplace(s.name, &s);
        return m;
      }();
  auto it = by_name.find(name);
  return it == by_name.end() ? nullptr : it->second;
}

const AttrSchema *OpSchema::attr(std::string_view name) const {
  for (const AttrSchema &a : attrs)
    if (name == a.name)
      return &a;
  return nullptr;
}

const char *attr_kind_text(AttrKind kind) {
  switch (kind) {
  case AttrKind::Integer:
    return "an integer";
  case AttrKind::Real:
    return "a number";
  case AttrKind::String:
    return "a string";
  case AttrKind::Flag:
    return "a flag";
  case AttrKind::Layout:
    return "a layout";
  }
  return "?";
}

namespace {
bool has_kind(const program::Attribute &attr, AttrKind kind) {
  switch (kind) {
  case AttrKind::Integer:
    return attr.value_case() == program::Attribute::kI;
  case AttrKind::Real:
    return attr.value_case() == program::Attribute::kF ||
           attr.value_case() == program::Attribute::kI;
  case AttrKind::String:
    return attr.value_case() == program::Attribute::kS;
  case AttrKind::Flag:
    return attr.value_case() == program::Attribute::kFlag;
  case AttrKind::Layout:
    return attr.value_case() == program::Attribute::kLayout;
  }
  return false;
}
} // namespace

std::string schema_problem(const program::Instruction &inst) {
  const OpSchema *schema = find_op_schema(inst.op());
  if (!schema)
    return "is no op of this tpc-run's dialect; this tpc-run is older than "
           "the compiler that wrote the program";
  int fixed = 0, optional = 0;
  bool variadic = false;
  for (const OperandSchema &o : schema->operands) {
    fixed += o.arity == Arity::Single;
    optional += o.arity == Arity::Optional;
    variadic |= o.arity == Arity::Variadic;
  }
  int n = inst.inputs_size();
  if (n < fixed || (!variadic && n > fixed + optional))
    return "has " + std::to_string(n) + " operands";
  // Results are fixed except a variadic one; its count follows from the
  // operands and attributes, which the op family checks.
  int results = 0;
  bool variadic_results = false;
  for (const OperandSchema &r : schema->results) {
    results += r.arity == Arity::Single;
    variadic_results |= r.arity != Arity::Single;
  }
  if (variadic_results ? inst.outputs_size() < results
                       : inst.outputs_size() != results)
    return "has " + std::to_string(inst.outputs_size()) +
           " results, expected " + std::to_string(results);
  for (const AttrSchema &a : schema->attrs) {
    auto it = inst.attrs().find(a.name);
    if (it == inst.attrs().end()) {
      if (a.required)
        return "has no attribute '" + std::string(a.name) +
               "'; recompile the model with tpc-compile";
      continue;
    }
    if (!has_kind(it->second, a.kind))
      return "attribute '" + std::string(a.name) + "' is not " +
             attr_kind_text(a.kind);
    if (a.values.empty())
      continue;
    bool known = false;
    std::string allowed;
    for (const char *v : a.values) {
      known |= it->second.s() == v;
      allowed += std::string(allowed.empty() ? "" : ", ") + "'" + v + "'";
    }
    if (!known)
      return "has " + std::string(a.name) + " '" + it->second.s() +
             "', which is none of " + allowed +
             "; recompile the model with this tpc-compile";
  }
  return "";
}

const program::Attribute *find_attr(const program::Instruction &inst,
                                    std::string_view name) {
  const OpSchema *schema = find_op_schema(inst.op());
  if (!schema || !schema->attr(name))
    throw std::logic_error("op '" + inst.op() + "' has no attribute '" +
                           std::string(name) +
                           "' in its ODS definition (dialects/tpc/*.td)");
  auto it = inst.attrs().find(std::string(name));
  return it == inst.attrs().end() ? nullptr : &it->second;
}

} // namespace tpc
