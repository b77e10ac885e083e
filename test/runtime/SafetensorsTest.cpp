//===- SafetensorsTest.cpp - Checkpoint format ----------------------------===//

#include "runtime/io/Safetensors.h"
#include "runtime/util/Float16.h"

#include "TestUtil.h"

#include <fstream>
#include <limits>

using namespace tpc;
using namespace tpc::test;

namespace {

std::string write_file(const std::string &path, const std::string &header,
                       const std::string &data) {
  std::ofstream f(path, std::ios::binary);
  uint64_t len = header.size();
  for (int i = 0; i < 8; ++i)
    f.put(char(len >> (8 * i)));
  f << header << data;
  return path;
}

std::string error_of(const std::string &path) {
  try {
    SafetensorsReader r(path);
  } catch (const std::runtime_error &e) {
    return e.what();
  }
  return "";
}

} // namespace

TEST(Safetensors, RoundTripDtypesAndMetadata) {
  std::string path = temp_dir() / "ckpt.safetensors";
  auto w = random_vector(12 * 36, 1);
  std::vector<uint16_t> bf(w.size()), hf(w.size());
  for (size_t i = 0; i < w.size(); ++i) {
    bf[i] = f32_to_bf16(w[i]);
    hf[i] = f32_to_f16(w[i]);
  }
  std::vector<int32_t> i32{1, -2, 3};
  std::vector<int64_t> i64{int64_t(1) << 40, -5};
  SafetensorsWriter wr;
  wr.set_metadata("step", "42");
  wr.set_metadata("format", "pt");
  wr.add_f32("h.0.attn.c_attn.weight", {12, 36}, w.data());
  wr.add("bf", DType::BF16, {12, 36}, bf.data());
  wr.add("hf", DType::F16, {12, 36}, hf.data());
  wr.add("i32", DType::I32, {3}, i32.data());
  wr.add("i64", DType::I64, {2}, i64.data());
  wr.write(path);
  EXPECT_FALSE(std::filesystem::exists(path + ".tmp"));

  SafetensorsReader r(path);
  EXPECT_EQ(r.metadata().at("step"), "42");
  EXPECT_EQ(r.names().size(), 5u);
  std::vector<float> got(w.size());
  r.read_f32("h.0.attn.c_attn.weight", {12, 36}, got.data());
  expect_close(got, w, 0, 0, "f32");
  r.read_f32("bf", {12, 36}, got.data());
  for (size_t i = 0; i < w.size(); ++i)
    ASSERT_EQ(got[i], bf16_to_f32(bf[i]));
  expect_close(got, w, 1e-6f, 1.0f / 128, "bf16");
  r.read_f32("hf", {12, 36}, got.data());
  expect_close(got, w, 1e-4f, 1.0f / 1024, "f16");
  std::vector<int32_t> gi32(3);
  r.read("i32", DType::I32, {3}, gi32.data());
  EXPECT_EQ(gi32, i32);
  std::vector<int64_t> gi64(2);
  r.read("i64", DType::I64, {2}, gi64.data());
  EXPECT_EQ(gi64, i64);

  // The header length is a multiple of 8 so the data is aligned.
  std::ifstream f(path, std::ios::binary);
  uint64_t len = 0;
  f.read(reinterpret_cast<char *>(&len), 8);
  EXPECT_EQ(len % 8, 0u);
}

TEST(Safetensors, HalfConversions) {
  EXPECT_EQ(f16_to_f32(f32_to_f16(1.0f)), 1.0f);
  EXPECT_EQ(f16_to_f32(f32_to_f16(65504.0f)), 65504.0f);
  EXPECT_TRUE(std::isinf(f16_to_f32(f32_to_f16(70000.0f))));
  EXPECT_EQ(f16_to_f32(f32_to_f16(5.9604645e-08f)), 5.9604645e-08f);
  EXPECT_EQ(f16_to_f32(0x0001), 5.9604645e-08f); // smallest subnormal
  EXPECT_EQ(f32_to_bf16(1.0f), 0x3f80);
  EXPECT_EQ(bf16_to_f32(f32_to_bf16(-2.5f)), -2.5f);
  // Round to nearest even: 1 + 2^-8 is halfway between bf16 1 and 1+2^-7.
  EXPECT_EQ(f32_to_bf16(1.00390625f), 0x3f80);
}

// Every rank reads its slice of the global tensor straight from the file,
// including the per-block column split of the fused QKV weight.
TEST(Safetensors, SlicedReads) {
  std::string path = temp_dir() / "ckpt.safetensors";
  std::vector<int64_t> qkv_shape{12, 36}, proj_shape{16, 12};
  auto qkv = random_vector(12 * 36, 2), proj = random_vector(16 * 12, 3);
  std::vector<uint16_t> qkv_bf(qkv.size());
  for (size_t i = 0; i < qkv.size(); ++i)
    qkv_bf[i] = f32_to_bf16(qkv[i]);
  SafetensorsWriter wr;
  wr.add_f32("qkv", qkv_shape, qkv.data());
  wr.add("qkv_bf", DType::BF16, qkv_shape, qkv_bf.data());
  wr.add_f32("proj", proj_shape, proj.data());
  wr.write(path);
  SafetensorsReader r(path);
  for (int tp : {1, 2, 4})
    for (int rank = 0; rank < tp; ++rank) {
      struct Case {
        const char *name;
        std::vector<int64_t> shape;
        int dim, blocks;
        const std::vector<float> *full;
      };
      for (const Case &c : {Case{"qkv", qkv_shape, 1, 3, &qkv},
                            Case{"qkv_bf", qkv_shape, 1, 3, nullptr},
                            Case{"proj", proj_shape, 0, 1, &proj},
                            Case{"proj", proj_shape, 1, 1, &proj}}) {
        SliceSpec s = SliceSpec::split(c.shape, c.dim, rank, tp, c.blocks);
        GlobalIndexMap map(c.shape, s);
        std::vector<float> local(local_num_elements(c.shape, s));
        r.read_f32(c.name, c.shape, local.data(), s);
        for (size_t i = 0; i < local.size(); ++i) {
          float expect =
              c.full ? (*c.full)[map(i)] : bf16_to_f32(qkv_bf[map(i)]);
          ASSERT_EQ(local[i], expect)
              << c.name << " tp=" << tp << " rank=" << rank << " dim " << c.dim;
        }
      }
    }
}

TEST(Safetensors, CallerExpectationsAreChecked) {
  std::string path = temp_dir() / "ckpt.safetensors";
  std::vector<float> w(6, 1.0f);
  std::vector<int32_t> ids(6, 1);
  SafetensorsWriter wr;
  wr.add_f32("wte.weight", {2, 3}, w.data());
  wr.add("ids", DType::I32, {6}, ids.data());
  wr.write(path);
  SafetensorsReader r(path);
  std::vector<float> out(6);
  auto message = [&](auto fn) {
    try {
      fn();
    } catch (const std::runtime_error &e) {
      return std::string(e.what());
    }
    return std::string();
  };
  std::string e = message([&] {
    r.read_f32("wte.weight", {3, 2}, out.data());
  });
  EXPECT_NE(e.find("tensor 'wte.weight' has shape [2,3] but [3,2] was "
                   "expected"),
            std::string::npos)
      << e;
  e = message([&] { r.read("wte.weight", DType::BF16, {2, 3}, out.data()); });
  EXPECT_NE(e.find("is F32 but BF16 was expected"), std::string::npos) << e;
  e = message([&] { r.read_f32("ids", {6}, out.data()); });
  EXPECT_NE(e.find("tensor 'ids' is I32"), std::string::npos) << e;
  e = message([&] { r.read_f32("wpe.weight", {2, 3}, out.data()); });
  EXPECT_NE(e.find("has no tensor 'wpe.weight'"), std::string::npos) << e;
}

TEST(Safetensors, CorruptFilesAreNamed) {
  auto dir = temp_dir();
  std::string p = dir / "bad.safetensors";
  const std::string ok_header =
      R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})";

  // Truncated: the data section is shorter than the offsets say.
  write_file(p, ok_header, std::string(4, '\0'));
  EXPECT_NE(error_of(p).find("tensor 'a' has data_offsets [0, 8] outside the "
                             "4 data bytes"),
            std::string::npos)
      << error_of(p);

  // Header length beyond the file.
  {
    std::ofstream f(p, std::ios::binary);
    uint64_t len = 1000;
    f.write(reinterpret_cast<const char *>(&len), 8);
    f << "{}";
  }
  EXPECT_NE(error_of(p).find("header length 1000 exceeds"), std::string::npos)
      << error_of(p);

  std::ofstream(p, std::ios::binary) << "abc";
  EXPECT_NE(error_of(p).find("too short"), std::string::npos);

  write_file(p, R"({"a":{"dtype":"F32",)", "");
  EXPECT_NE(error_of(p).find("not valid JSON"), std::string::npos)
      << error_of(p);
  // A number beyond double's range is a parse error too (found by the
  // safetensors fuzz target: it escaped as nlohmann's out_of_range).
  write_file(p, R"({"__metadata__":{"n":33333333E33333333333333}})", "");
  EXPECT_NE(error_of(p).find("not valid JSON"), std::string::npos)
      << error_of(p);

  write_file(p, R"({"a":{"dtype":"F33","shape":[2],"data_offsets":[0,8]}})",
             std::string(8, '\0'));
  EXPECT_NE(error_of(p).find("unknown safetensors dtype 'F33'"),
            std::string::npos)
      << error_of(p);

  write_file(p, R"({"a":{"dtype":"F32","shape":[3],"data_offsets":[0,8]}})",
             std::string(8, '\0'));
  EXPECT_NE(error_of(p).find("holds 8 bytes but F32 [3] needs 12"),
            std::string::npos)
      << error_of(p);

  write_file(p,
             R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},)"
             R"("b":{"dtype":"F32","shape":[2],"data_offsets":[4,12]}})",
             std::string(12, '\0'));
  EXPECT_NE(error_of(p).find("overlaps"), std::string::npos) << error_of(p);

  write_file(p, R"({"a":{"dtype":"F32","shape":[2]}})", "");
  EXPECT_NE(error_of(p).find("needs \"dtype\""), std::string::npos);

  write_file(p, R"({"__metadata__":{"step":1}})", "");
  EXPECT_NE(error_of(p).find("is not a string"), std::string::npos);

  write_file(p, ok_header, std::string(8, '\0'));
  EXPECT_EQ(error_of(p), "");
}

TEST(Safetensors, DataSectionIsCoveredExactly) {
  auto dir = temp_dir();
  std::string p = dir / "cover.safetensors";
  const std::string header =
      R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}} )";

  // Bytes appended after the last tensor.
  write_file(p, header, std::string(9, '\0'));
  EXPECT_NE(error_of(p).find("the tensors end at data byte 8 but the data "
                             "section holds 9 bytes"),
            std::string::npos)
      << error_of(p);

  // A header length one short: the padding space becomes a data byte, and
  // every tensor would otherwise be read one byte off.
  {
    std::ofstream f(p, std::ios::binary);
    uint64_t len = header.size() - 1;
    for (int i = 0; i < 8; ++i)
      f.put(char(len >> (8 * i)));
    f << header << std::string(8, '\0');
  }
  EXPECT_NE(error_of(p).find("the file is corrupt"), std::string::npos)
      << error_of(p);

  // A gap between two tensors.
  write_file(p,
             R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},)"
             R"("b":{"dtype":"F32","shape":[1],"data_offsets":[8,12]}})",
             std::string(12, '\0'));
  EXPECT_NE(error_of(p).find("data bytes [4, 8) before tensor 'b' belong to "
                             "no tensor"),
            std::string::npos)
      << error_of(p);

  // A shape whose byte count overflows 64 bits must not wrap to a match.
  write_file(p,
             R"({"a":{"dtype":"F32","shape":[4611686018427387904,4],)"
             R"("data_offsets":[0,0]}})",
             "");
  EXPECT_NE(error_of(p).find("larger than any file"), std::string::npos)
      << error_of(p);

  // An empty file of tensors and a zero-sized tensor are fine.
  write_file(p, "{}", "");
  EXPECT_EQ(error_of(p), "");
  write_file(p, R"({"a":{"dtype":"F32","shape":[0],"data_offsets":[0,0]}})",
             "");
  EXPECT_EQ(error_of(p), "");
}

TEST(Safetensors, NonFiniteValuesAreRefusedByName) {
  auto dir = temp_dir();
  std::string p = dir / "nan.safetensors";
  std::vector<float> w = {1, 2, 3, 4, 5, 6};
  w[4] = std::numeric_limits<float>::quiet_NaN();
  SafetensorsWriter out;
  out.add_f32("h.0.mlp.c_fc.weight", {2, 3}, w.data());
  std::vector<uint16_t> half = {f32_to_f16(1.0f), 0x7c00 /* +inf */};
  out.add("wpe.weight", DType::F16, {2}, half.data());
  out.write(p);
  SafetensorsReader in(p);
  std::vector<float> got(6);
  try {
    in.read_f32("h.0.mlp.c_fc.weight", {2, 3}, got.data());
    ADD_FAILURE() << "a NaN was accepted";
  } catch (const std::runtime_error &e) {
    EXPECT_NE(std::string(e.what()).find(
                  "tensor 'h.0.mlp.c_fc.weight' holds nan at flat index 4"),
              std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find(p), std::string::npos) << e.what();
  }
  // Row 1 (a slice along dim 0) holds the NaN at global index 4 too.
  std::vector<float> slice(3);
  try {
    in.read_f32("h.0.mlp.c_fc.weight", {2, 3}, slice.data(),
                SliceSpec::split({2, 3}, 0, 1, 2));
    ADD_FAILURE() << "a NaN in a slice was accepted";
  } catch (const std::runtime_error &e) {
    EXPECT_NE(std::string(e.what()).find("at flat index 4"),
              std::string::npos)
        << e.what();
  }
  try {
    in.read_f32("wpe.weight", {2}, got.data());
    ADD_FAILURE() << "an infinity was accepted";
  } catch (const std::runtime_error &e) {
    EXPECT_NE(std::string(e.what()).find("holds inf at flat index 1"),
              std::string::npos)
        << e.what();
  }
}


TEST(Safetensors, MetadataCountsAreChecked) {
  std::map<std::string, std::string> m = {
      {"tpc.optimizer_step", "-1"},
      {"tpc.grad_accum", "0"},
      {"tpc.seed", "99999999999999999999"},
      {"tpc.trainer_step", "12"}};
  auto error_of_count = [&](const std::string &key, uint64_t min) {
    try {
      metadata_count(m, key, "ckpt.safetensors", min);
    } catch (const std::runtime_error &e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_EQ(metadata_count(m, "tpc.trainer_step", "ckpt.safetensors"), 12u);
  EXPECT_NE(error_of_count("tpc.optimizer_step", 0)
                .find("ckpt.safetensors: metadata tpc.optimizer_step = '-1' "
                      "is not a count"),
            std::string::npos);
  EXPECT_NE(error_of_count("tpc.grad_accum", 1)
                .find("tpc.grad_accum = '0' is not a count between 1 and"),
            std::string::npos);
  // Larger than 2^64 - 1: refused, not std::stoull's out_of_range.
  EXPECT_NE(error_of_count("tpc.seed", 0).find("the file is corrupt"),
            std::string::npos);
  EXPECT_NE(error_of_count("tpc.missing", 0).find("without tpc.missing"),
            std::string::npos);
}
