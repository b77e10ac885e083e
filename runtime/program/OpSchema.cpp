//===- OpSchema.cpp - Operands, results and attributes of each op ---------===//

#include "runtime/program/OpSchema.h"

#include <unordered_map>

namespace tpc {

const std::vector<OpSchema> &op_schemas() {
  static const std::vector<OpSchema> schemas = {
#include "runtime/program/OpSchema.inc"
  };
  return schemas;
}

const OpSchema *find_op_schema(const std::string &name) {
  static const std::unordered_map<std::string, const OpSchema *> by_name = [] {
    std::unordered_map<std::string, const OpSchema *> m;
    for (const OpSchema &s : op_schemas())
      m.emplace(s.name, &s);
    return m;
  }();
  auto it = by_name.find(name);
  return it == by_name.end() ? nullptr : it->second;
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

} // namespace tpc
