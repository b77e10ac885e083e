//===- TokenFileTest.cpp - llm.c token files and batches ------------------===//

#include "runtime/io/TokenFile.h"

#include "TestUtil.h"

#include <fstream>

using namespace tpc;
using namespace tpc::test;

namespace {

std::vector<uint16_t> sequence(size_t n) {
  std::vector<uint16_t> t(n);
  for (size_t i = 0; i < n; ++i)
    t[i] = uint16_t((i * 7 + 3) % 50257);
  return t;
}

/// Writes a file with a chosen header and token payload size.
void write_raw(const std::string &path, int32_t magic, int32_t version,
               int32_t count, size_t payload_bytes) {
  std::vector<int32_t> header(256, 0);
  header[0] = magic;
  header[1] = version;
  header[2] = count;
  std::ofstream f(path, std::ios::binary);
  f.write(reinterpret_cast<const char *>(header.data()), 1024);
  std::string payload(payload_bytes, '\1');
  f.write(payload.data(), payload.size());
}

std::string error_of(const std::string &path) {
  try {
    TokenFile f(path);
  } catch (const std::runtime_error &e) {
    return e.what();
  }
  return "";
}

} // namespace

TEST(TokenFile, RoundTrip) {
  std::string path = temp_dir() / "train.bin";
  auto tokens = sequence(1001);
  write_token_file(path, tokens);
  EXPECT_FALSE(std::filesystem::exists(path + ".tmp"));
  TokenFile f(path);
  EXPECT_EQ(f.num_tokens(), 1001u);
  EXPECT_EQ(f.read_all(), tokens);
  std::vector<uint16_t> part(10);
  f.read(995, 6, part.data());
  for (int i = 0; i < 6; ++i)
    EXPECT_EQ(part[i], tokens[995 + i]);
  EXPECT_THROW(f.read(995, 7, part.data()), std::runtime_error);
  EXPECT_EQ(std::filesystem::file_size(path), 1024u + 2 * 1001);
}

TEST(TokenFile, CorruptFilesAreNamed) {
  auto dir = temp_dir();
  std::string p = dir / "val.bin";

  write_raw(p, 20240520, 1, 1000, 998 * 2);
  std::string e = error_of(p);
  EXPECT_NE(e.find("val.bin: header says 1000 tokens but the file holds 998; "
                   "the file is truncated"),
            std::string::npos)
      << e;
  EXPECT_NE(e.find("tpc-data encode"), std::string::npos) << e;

  write_raw(p, 20240520, 1, 10, 12 * 2);
  EXPECT_NE(error_of(p).find("trailing"), std::string::npos) << error_of(p);

  write_raw(p, 20240520, 1, 10, 21);
  EXPECT_NE(error_of(p).find("not a whole number"), std::string::npos);

  write_raw(p, 12345, 1, 10, 20);
  EXPECT_NE(error_of(p).find("bad magic number 12345"), std::string::npos)
      << error_of(p);

  write_raw(p, 20240520, 2, 10, 20);
  EXPECT_NE(error_of(p).find("version 2 is not supported"), std::string::npos)
      << error_of(p);

  std::ofstream(p, std::ios::binary) << "short";
  EXPECT_NE(error_of(p).find("less than the 1024-byte header"),
            std::string::npos);

  EXPECT_NE(error_of(dir / "missing.bin").find("cannot open"),
            std::string::npos);
}

TEST(TokenBatcher, WindowsAndShift) {
  std::string path = temp_dir() / "d.bin";
  auto tokens = sequence(100);
  write_token_file(path, tokens);
  TokenFile f(path);
  const int B = 2, T = 7;
  TokenBatcher batches(f, B, T);
  EXPECT_EQ(batches.batches_per_epoch(), 99u / 14);
  std::vector<int> in(B * T), tg(B * T);
  for (int step = 0; step < 9; ++step) { // wraps after 7 batches
    uint64_t start = uint64_t(step % 7) * B * T;
    batches.next(in.data(), tg.data());
    for (int i = 0; i < B * T; ++i) {
      ASSERT_EQ(in[i], tokens[start + i]) << step;
      ASSERT_EQ(tg[i], tokens[start + i + 1]) << step;
    }
  }
  batches.reset();
  batches.next(in.data(), tg.data());
  EXPECT_EQ(in[0], tokens[0]);
}

TEST(TokenBatcher, DataParallelRanksAreDisjointAndCover) {
  std::string path = temp_dir() / "d.bin";
  auto tokens = sequence(200);
  write_token_file(path, tokens);
  TokenFile f(path);
  const int B = 2, T = 5, dp = 3;
  TokenBatcher whole(f, dp * B, T);
  std::vector<TokenBatcher> ranks;
  for (int r = 0; r < dp; ++r)
    ranks.emplace_back(f, B, T, r, dp);
  for (int step = 0; step < 8; ++step) {
    std::vector<int> in(dp * B * T), tg(dp * B * T);
    whole.next(in.data(), tg.data());
    for (int r = 0; r < dp; ++r) {
      std::vector<int> ri(B * T), rt(B * T);
      ranks[r].next(ri.data(), rt.data());
      for (int i = 0; i < B * T; ++i) {
        ASSERT_EQ(ri[i], in[r * B * T + i]) << "step " << step << " rank " << r;
        ASSERT_EQ(rt[i], tg[r * B * T + i]);
      }
    }
  }
}

TEST(TokenBatcher, RejectsTokensOutsideTheVocabulary) {
  std::string path = temp_dir() / "d.bin";
  std::vector<uint16_t> tokens(50, 1);
  tokens[17] = 300;
  write_token_file(path, tokens);
  TokenFile f(path);
  TokenBatcher ok(f, 2, 7, 0, 1, 301), bad(f, 2, 7, 0, 1, 300);
  std::vector<int> in(14), tg(14);
  ok.next(in.data(), tg.data());
  bad.next(in.data(), tg.data()); // tokens 0..14
  try {
    bad.next(in.data(), tg.data());
    FAIL() << "expected an exception";
  } catch (const std::runtime_error &e) {
    EXPECT_NE(std::string(e.what()).find("token 300 at position 17"),
              std::string::npos)
        << e.what();
  }
  EXPECT_THROW(TokenBatcher(f, 8, 7), std::runtime_error); // file too small
}
