//===- BytesTest.cpp - Sizes in bytes as people read them -----------------===//

#include "runtime/util/Bytes.h"

#include <gtest/gtest.h>

using namespace tpc;

TEST(Bytes, LargestUnitThatFits) {
  EXPECT_EQ(format_bytes(0), "0 bytes");
  EXPECT_EQ(format_bytes(1023), "1023 bytes");
  EXPECT_EQ(format_bytes(1048575), "1048575 bytes");
  EXPECT_EQ(format_bytes(1 << 20), "1.0 MiB");
  EXPECT_EQ(format_bytes(1.5 * (1 << 20)), "1.5 MiB");
  EXPECT_EQ(format_bytes(1023.96 * (1 << 20)), "1024.0 MiB");
  EXPECT_EQ(format_bytes(double(1 << 30)), "1.0 GiB");
  EXPECT_EQ(format_bytes(2.25 * (1 << 30) * 1024), "2304.0 GiB");
}

TEST(Bytes, FixedMiB) {
  EXPECT_EQ(format_bytes(0, ByteUnit::MiB), "0.0 MiB");
  EXPECT_EQ(format_bytes(512 * 1024, ByteUnit::MiB), "0.5 MiB");
  EXPECT_EQ(format_bytes(3.0 * (1 << 30), ByteUnit::MiB), "3072.0 MiB");
}
