//===- OpRegistryTest.cpp - The op families against the ODS schema --------===//

#include "runtime/exec/ops/Op.h"
#include "runtime/program/OpSchema.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

using namespace tpc;

// Every op of the dialect that a program can hold has a prepare function,
// and every registered op is one of them: adding an op to the ODS without
// its ops/ entry, or registering a name the compiler never writes, fails
// here.
TEST(OpRegistry, CoversTheSchemaExactly) {
  std::set<std::string> schema, registered;
  for (const OpSchema &s : op_schemas())
    schema.insert(s.name);
  for (const std::string &op : op_registry().ops())
    registered.insert(op);
  for (const std::string &op : schema)
    EXPECT_TRUE(registered.count(op))
        << "no op family registers '" << op << "'";
  for (const std::string &op : registered)
    EXPECT_TRUE(schema.count(op)) << "'" << op << "' is not in OpSchema.inc";
  EXPECT_GE(schema.size(), 38u);
}

TEST(OpRegistry, SchemaEntriesFollowTheOds) {
  const OpSchema *linear = find_op_schema("linear");
  ASSERT_NE(linear, nullptr);
  ASSERT_EQ(linear->operands.size(), 3u);
  EXPECT_EQ(linear->operands[2].arity, Arity::Optional);
  ASSERT_EQ(linear->attrs.size(), 1u);
  EXPECT_EQ(std::string(linear->attrs[0].name), "transposed");
  EXPECT_EQ(linear->attrs[0].kind, AttrKind::Flag);
  EXPECT_FALSE(linear->attrs[0].required);

  const OpSchema *layernorm = find_op_schema("layernorm");
  ASSERT_NE(layernorm, nullptr);
  ASSERT_EQ(layernorm->attrs.size(), 1u);
  EXPECT_EQ(layernorm->attrs[0].kind, AttrKind::Real);
  EXPECT_TRUE(layernorm->attrs[0].required);

  EXPECT_EQ(find_op_schema("get_param"), nullptr);
  EXPECT_EQ(find_op_schema("softplus"), nullptr);
}
