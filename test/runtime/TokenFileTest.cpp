//===- TokenFileTest.cpp - llm.c token files and batches ------------------===//

#include "runtime/io/TokenFile.h"

#include "TestUtil.h"

#include <fstream>
#include <functional>

using namespace tpc;
using namespace tpc::test;

namespace {

/// n tokens below `vocab`.
std::vector<uint32_t> sequence(size_t n, uint32_t vocab = 50257) {
  std::vector<uint32_t> t(n);
  for (size_t i = 0; i < n; ++i)
    t[i] = uint32_t((i * 7919 + 3) % vocab);
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
  EXPECT_EQ(f.version(), kTokenFileVersion16);
  EXPECT_EQ(f.token_width(), 2u);
  EXPECT_EQ(f.read_all(), tokens);
  std::vector<uint32_t> part(10);
  f.read(995, 6, part.data());
  for (int i = 0; i < 6; ++i)
    EXPECT_EQ(part[i], tokens[995 + i]);
  EXPECT_THROW(f.read(995, 7, part.data()), std::runtime_error);
  EXPECT_EQ(std::filesystem::file_size(path), 1024u + 2 * 1001);
}

// Llama 3's vocabulary: ids past 65536 go to a version-2 file of uint32.
TEST(TokenFile, RoundTripVersion2) {
  std::string path = temp_dir() / "train.bin";
  auto tokens = sequence(1001, 128256);
  tokens[0] = 128255;
  tokens[1] = 65536;
  tokens[2] = 65535;
  write_token_file(path, tokens);
  EXPECT_FALSE(std::filesystem::exists(path + ".tmp"));
  EXPECT_EQ(std::filesystem::file_size(path), 1024u + 4 * 1001);
  TokenFile f(path);
  EXPECT_EQ(f.num_tokens(), 1001u);
  EXPECT_EQ(f.version(), kTokenFileVersion32);
  EXPECT_EQ(f.token_width(), 4u);
  EXPECT_EQ(f.read_all(), tokens);
  std::vector<uint32_t> part(6);
  f.read(0, 3, part.data());
  EXPECT_EQ(part[0], 128255u);
  EXPECT_EQ(part[1], 65536u);
  EXPECT_EQ(part[2], 65535u);
  f.read(995, 6, part.data());
  for (int i = 0; i < 6; ++i)
    EXPECT_EQ(part[i], tokens[995 + i]);
  EXPECT_THROW(f.read(995, 7, part.data()), std::runtime_error);

  // The header as llm.c lays it out, with version 2.
  std::ifstream in(path, std::ios::binary);
  int32_t header[3];
  in.read(reinterpret_cast<char *>(header), sizeof(header));
  EXPECT_EQ(header[0], 20240520);
  EXPECT_EQ(header[1], 2);
  EXPECT_EQ(header[2], 1001);
}

// Version 1, which llm.c's tools read, whenever every token fits uint16.
TEST(TokenFile, VersionFollowsTheLargestToken) {
  EXPECT_EQ(token_file_version_for({}), kTokenFileVersion16);
  EXPECT_EQ(token_file_version_for({0, 65535, 7}), kTokenFileVersion16);
  EXPECT_EQ(token_file_version_for({0, 65536, 7}), kTokenFileVersion32);
  EXPECT_EQ(token_file_version_for({4294967295u}), kTokenFileVersion32);

  auto dir = temp_dir();
  write_token_file(dir / "auto.bin", {1, 2, 65535});
  EXPECT_EQ(TokenFile(dir / "auto.bin").version(), kTokenFileVersion16);
  write_token_file(dir / "auto.bin", {1, 2, 65536});
  EXPECT_EQ(TokenFile(dir / "auto.bin").version(), kTokenFileVersion32);
}

TEST(TokenFile, ExplicitVersion) {
  auto dir = temp_dir();
  std::string path = dir / "forced.bin";
  std::vector<uint32_t> small = {5, 6, 7};
  write_token_file(path, small, kTokenFileVersion32);
  EXPECT_EQ(std::filesystem::file_size(path), 1024u + 4 * 3);
  EXPECT_EQ(TokenFile(path).version(), kTokenFileVersion32);
  EXPECT_EQ(TokenFile(path).read_all(), small);
  write_token_file(path, small, kTokenFileVersion16);
  EXPECT_EQ(std::filesystem::file_size(path), 1024u + 2 * 3);
  EXPECT_EQ(TokenFile(path).read_all(), small);

  // Never truncated: forcing uint16 over a larger id is refused, and the
  // file is left as it was.
  std::string big_path = dir / "big.bin";
  try {
    write_token_file(big_path, {1, 2, 70000, 3}, kTokenFileVersion16);
    FAIL() << "expected an exception";
  } catch (const std::runtime_error &e) {
    EXPECT_NE(std::string(e.what()).find(
                  "big.bin: token 70000 at position 2 does not fit a "
                  "version-1 file's uint16 tokens; write version 2"),
              std::string::npos)
        << e.what();
  }
  EXPECT_FALSE(std::filesystem::exists(big_path));
  EXPECT_FALSE(std::filesystem::exists(big_path + ".tmp"));

  try {
    write_token_file(big_path, small, 3);
    FAIL() << "expected an exception";
  } catch (const std::runtime_error &e) {
    EXPECT_NE(std::string(e.what()).find("cannot write token file version 3"),
              std::string::npos)
        << e.what();
  }
}

TEST(TokenFile, CorruptFilesAreNamed) {
  auto dir = temp_dir();
  std::string p = dir / "val.bin";

  write_raw(p, 20240520, 1, 1000, 998 * 2);
  std::string e = error_of(p);
  EXPECT_NE(e.find("val.bin: header says 1000 tokens but the file holds 998 "
                   "uint16 tokens (version 1); the file is truncated"),
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

  // Version 2 counts four bytes a token.
  write_raw(p, 20240520, 2, 1000, 998 * 4);
  e = error_of(p);
  EXPECT_NE(e.find("val.bin: header says 1000 tokens but the file holds 998 "
                   "uint32 tokens (version 2); the file is truncated"),
            std::string::npos)
      << e;
  EXPECT_NE(e.find("tpc-data encode"), std::string::npos) << e;
  write_raw(p, 20240520, 2, 10, 10 * 2); // a version-1 payload
  EXPECT_NE(error_of(p).find("holds 5 uint32 tokens (version 2); the file is "
                             "truncated"),
            std::string::npos)
      << error_of(p);
  write_raw(p, 20240520, 2, 10, 10 * 4 - 2);
  EXPECT_NE(error_of(p).find("38 bytes, not a whole number of uint32 tokens"),
            std::string::npos)
      << error_of(p);
  write_raw(p, 20240520, 2, 10, 10 * 4);
  EXPECT_EQ(error_of(p), "");

  for (int32_t version : {0, 3, -1}) {
    write_raw(p, 20240520, version, 10, 20);
    e = error_of(p);
    EXPECT_NE(e.find("val.bin: token file version " + std::to_string(version) +
                     " is not supported (version 1 holds uint16 tokens, "
                     "version 2 uint32 tokens); regenerate it with tpc-data "
                     "encode"),
              std::string::npos)
        << e;
  }

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
      ASSERT_EQ(in[i], int(tokens[start + i])) << step;
      ASSERT_EQ(tg[i], int(tokens[start + i + 1])) << step;
    }
  }
  batches.reset();
  batches.next(in.data(), tg.data());
  EXPECT_EQ(in[0], int(tokens[0]));
}

/// Over 8 steps, rank r of `ranks` (B rows each) reads rows [r*B, (r+1)*B)
/// of what `whole` (dp*B rows) reads: the ranks are disjoint and cover it.
template <class Batches>
void expect_ranks_read_the_whole(Batches &whole, std::vector<Batches> &ranks,
                                 int B, int T) {
  const int dp = int(ranks.size());
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
  expect_ranks_read_the_whole(whole, ranks, B, T);
}

// The whole file is checked when the batcher is made: a bad id past every
// window a run reads (position 48 of 50, beyond the 3 batches of 14 + 1) is
// refused as surely as one in the first window.
TEST(TokenBatcher, RejectsTokensOutsideTheVocabulary) {
  std::string path = temp_dir() / "d.bin";
  std::vector<uint32_t> tokens(50, 1);
  tokens[48] = 300;
  write_token_file(path, tokens);
  TokenFile f(path);
  TokenBatcher ok(f, 2, 7, 0, 1, 301);
  std::vector<int> in(14), tg(14);
  ok.next(in.data(), tg.data());
  try {
    TokenBatcher bad(f, 2, 7, 0, 1, 300);
    FAIL() << "expected an exception";
  } catch (const std::runtime_error &e) {
    EXPECT_NE(std::string(e.what()).find("token 300 at position 48 is outside "
                                         "the model's vocabulary of 300"),
              std::string::npos)
        << e.what();
  }
  EXPECT_THROW(TokenBatcher(f, 8, 7), std::runtime_error); // file too small
}

// A version-2 file batches like a version-1 file, ids past 65535 included,
// and the vocabulary check names the token, its position and the vocabulary.
TEST(TokenBatcher, Version2FilesAndTheVocabulary) {
  std::string path = temp_dir() / "llama.bin";
  std::vector<uint32_t> tokens(50, 1);
  tokens[3] = 128255;
  tokens[17] = 128256;
  write_token_file(path, tokens);
  TokenFile f(path);
  ASSERT_EQ(f.version(), kTokenFileVersion32);
  TokenBatcher ok(f, 2, 7, 0, 1, 128257);
  std::vector<int> in(14), tg(14);
  ok.next(in.data(), tg.data());
  EXPECT_EQ(in[3], 128255);
  EXPECT_EQ(tg[2], 128255);
  ok.next(in.data(), tg.data());
  EXPECT_EQ(in[3], 128256); // position 17 = 14 + 3
  try {
    TokenBatcher bad(f, 2, 7, 0, 1, 128256);
    FAIL() << "expected an exception";
  } catch (const std::runtime_error &e) {
    EXPECT_NE(std::string(e.what()).find(
                  "llama.bin: token 128256 at position 17 is outside the "
                  "model's vocabulary of 128256; the file was encoded with "
                  "another tokenizer"),
              std::string::npos)
        << e.what();
  }

  // Without a vocabulary, ids must still fit the int the model reads.
  tokens[17] = 0x80000000u;
  write_token_file(path, tokens);
  TokenFile g(path);
  try {
    TokenBatcher any(g, 2, 7);
    FAIL() << "expected an exception";
  } catch (const std::runtime_error &e) {
    EXPECT_NE(std::string(e.what()).find(
                  "token 2147483648 at position 17 does not fit an int"),
              std::string::npos)
        << e.what();
  }
}

namespace {
/// One mask byte per token: 1 at every position that `predicted` selects.
void write_masks(const std::string &path, size_t count,
                 const std::function<bool(size_t)> &predicted) {
  std::ofstream out(path, std::ios::binary);
  for (size_t i = 0; i < count; ++i)
    out.put(predicted(i) ? 1 : 0);
}

std::string thrown_by(const std::function<void()> &make) {
  try {
    make();
  } catch (const std::exception &e) {
    return e.what();
  }
  return "";
}
} // namespace

// Window w holds tokens [w*T, (w+1)*T), no shift; predicted inputs become
// the mask id and their targets the token, the others are ignored; the
// batches wrap to the start when the next one would run past the end.
TEST(MaskedBatcher, WindowsMasksAndTargets) {
  auto dir = temp_dir();
  auto tokens = sequence(100);
  write_token_file(dir / "d.bin", tokens);
  write_masks(dir / "m.bin", 100, [](size_t i) { return i % 3 == 1; });
  TokenFile f(dir / "d.bin");
  const int B = 2, T = 7, mask = 99, ignore = -1;
  MaskedBatcher batches(f, dir / "m.bin", mask, ignore, B, T, 0, 1, 65536);
  EXPECT_EQ(batches.batches_per_epoch(), 100u / 14);
  std::vector<int> in(B * T), tg(B * T);
  for (int step = 0; step < 9; ++step) { // wraps after 7 batches
    uint64_t start = uint64_t(step % 7) * B * T;
    batches.next(in.data(), tg.data());
    for (int i = 0; i < B * T; ++i) {
      uint64_t p = start + i;
      bool predicted = p % 3 == 1;
      ASSERT_EQ(in[i], predicted ? mask : int(tokens[p])) << step;
      ASSERT_EQ(tg[i], predicted ? int(tokens[p]) : ignore) << step;
    }
  }
  EXPECT_EQ(batches.position(), 2u * 14);
  batches.seek(14);
  batches.next(in.data(), tg.data());
  EXPECT_EQ(in[0], int(tokens[14])); // 14 % 3 == 2: not predicted
  EXPECT_EQ(tg[0], ignore);
}

// Data-parallel ranks read the rows one rank with dp * B rows reads.
TEST(MaskedBatcher, DataParallelRanksAreDisjointAndCover) {
  auto dir = temp_dir();
  write_token_file(dir / "d.bin", sequence(200));
  write_masks(dir / "m.bin", 200, [](size_t i) { return i % 4 == 0; });
  TokenFile f(dir / "d.bin");
  const int B = 2, T = 5, dp = 3;
  MaskedBatcher whole(f, dir / "m.bin", 7, -1, dp * B, T, 0, 1, 65536);
  std::vector<MaskedBatcher> ranks;
  for (int r = 0; r < dp; ++r)
    ranks.emplace_back(f, dir / "m.bin", 7, -1, B, T, r, dp, 65536);
  expect_ranks_read_the_whole(whole, ranks, B, T);
}

TEST(MaskedBatcher, BadFilesAndIdsAreNamed) {
  auto dir = temp_dir();
  write_token_file(dir / "d.bin", sequence(50, 50)); // ids below 50
  write_masks(dir / "short.bin", 49, [](size_t) { return false; });
  TokenFile f(dir / "d.bin");
  EXPECT_NE(thrown_by([&] {
              MaskedBatcher(f, dir / "short.bin", 1, -1, 2, 5, 0, 1, 60);
            }).find("49 mask bytes for the 50 tokens"),
            std::string::npos);
  std::ofstream(dir / "two.bin", std::ios::binary)
      << std::string(20, '\0') << '\2' << std::string(29, '\0');
  EXPECT_NE(thrown_by([&] {
              MaskedBatcher(f, dir / "two.bin", 1, -1, 2, 5, 0, 1, 60);
            }).find("mask byte 2 at position 20"),
            std::string::npos);
  write_masks(dir / "m.bin", 50, [](size_t) { return true; });
  EXPECT_NE(thrown_by([&] {
              MaskedBatcher(f, dir / "m.bin", 60, -1, 2, 5, 0, 1, 60);
            }).find("--mask-id 60 is not an id of the model's vocabulary"),
            std::string::npos);
  EXPECT_NE(thrown_by([&] {
              MaskedBatcher(f, dir / "m.bin", 1, -1, 2, 5, 0, 1, 40);
            }).find("is outside the model's vocabulary of 40"),
            std::string::npos);
  EXPECT_NE(thrown_by([&] {
              MaskedBatcher(f, dir / "m.bin", 1, -1, 6, 9, 0, 1, 60);
            }).find("fewer than one global batch"),
            std::string::npos);
}
