//===- MlmBatcherTest.cpp - BERT's masked-LM pre-training batches ---------===//

#include "runtime/io/MlmBatcher.h"

#include "TestUtil.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <random>

using namespace tpc;
using namespace tpc::test;

namespace {

using Sentence = std::vector<uint32_t>;
using Document = std::vector<Sentence>;

// A vocabulary of 100 with BERT's special tokens at other ids than
// bert-base-uncased's, so that nothing relies on those.
constexpr int kVocab = 100, kIgnore = -100;
MlmVocabulary vocabulary() {
  MlmVocabulary v;
  v.pad = 5;
  v.cls = 6;
  v.sep = 7;
  v.mask = 8;
  v.size = kVocab;
  return v;
}

/// The marked file: each sentence then [SEP], an extra [SEP] between
/// documents.
std::string write_documents(const std::string &name,
                            const std::vector<Document> &docs) {
  const uint32_t sep = uint32_t(vocabulary().sep);
  std::vector<uint32_t> tokens;
  for (size_t d = 0; d < docs.size(); ++d) {
    if (d > 0)
      tokens.push_back(sep);
    for (const Sentence &s : docs[d]) {
      tokens.insert(tokens.end(), s.begin(), s.end());
      tokens.push_back(sep);
    }
  }
  std::string path = temp_dir() / name;
  write_token_file(path, tokens);
  return path;
}

/// `count` documents of sentences of 1 to `longest` tokens from
/// [10, kVocab).
std::vector<Document> random_documents(int count, int longest, uint32_t seed) {
  std::mt19937 gen(seed);
  std::uniform_int_distribution<int> sentences(1, 12), length(1, longest),
      token(10, kVocab - 1);
  std::vector<Document> docs(count);
  for (Document &d : docs) {
    d.resize(size_t(sentences(gen)));
    for (Sentence &s : d) {
      s.resize(size_t(length(gen)));
      for (uint32_t &t : s)
        t = uint32_t(token(gen));
    }
  }
  return docs;
}

/// One batch with every extra.
struct Batch {
  std::vector<int> inputs, targets, types, lengths, order;
  Batch(int B, int T)
      : inputs(size_t(B) * T), targets(size_t(B) * T), types(size_t(B) * T),
        lengths(size_t(B)), order(size_t(B)) {}
  void next(Batcher &batcher) {
    batcher.next(inputs.data(), targets.data(),
                 BatchExtras{types.data(), lengths.data(), order.data()});
  }
  bool operator==(const Batch &o) const {
    return inputs == o.inputs && targets == o.targets && types == o.types &&
           lengths == o.lengths && order == o.order;
  }
  /// The token before masking at position i.
  int original(size_t i) const {
    return targets[i] != kIgnore ? targets[i] : inputs[i];
  }
  /// Row b's segments A and B as they were before masking.
  std::pair<Sentence, Sentence> segments(int b, int T) const {
    std::pair<Sentence, Sentence> ab;
    int seps = 0;
    for (int i = 1; i < lengths[size_t(b)]; ++i) {
      int t = original(size_t(b) * T + i);
      if (t == vocabulary().sep)
        ++seps;
      else
        (seps == 0 ? ab.first : ab.second).push_back(uint32_t(t));
    }
    return ab;
  }
};

MlmOptions options(uint64_t seed, double p = 0.15, bool sop = false) {
  MlmOptions o;
  o.seed = seed;
  o.probability = p;
  o.sentence_order = sop;
  o.ignore_index = kIgnore;
  return o;
}

std::string error_of(const std::function<void()> &f) {
  try {
    f();
  } catch (const std::exception &e) {
    return e.what();
  }
  return "";
}

/// |observed - n p| within 6 standard deviations of a binomial.
void expect_binomial(double observed, double n, double p,
                     const std::string &what) {
  double sigma = std::sqrt(n * p * (1.0 - p));
  EXPECT_LE(std::fabs(observed - n * p), 6.0 * sigma)
      << what << ": " << observed << " of " << n << ", expected p = " << p;
}

} // namespace

// [CLS] A [SEP] B [SEP] then [PAD]: whole sentences, in file order, never
// across a document's end; types 0 up to the first [SEP]; the key length
// counts the real positions; long sentences cut into pieces of T-3.
TEST(MlmBatcher, RowLayout) {
  const MlmVocabulary v = vocabulary();
  const int T = 12; // 9 tokens of A and B
  std::vector<Document> docs = {
      {{10, 11, 12}, {13, 14}, {15, 16, 17, 18}, {19}},
      {{20, 21}},
      {{30, 31, 32, 33, 34, 35, 36, 37, 38, 39,
        40, 41, 42, 43, 44, 45, 46, 47, 48, 49},
       {50, 51}}};
  TokenFile f(write_documents("layout.bin", docs));
  MlmBatcher batches(f, v, options(3, 0.15), 1, T, 0, 1, kVocab);
  // Rows: 3+2+4 tokens; 1; the lone sentence of document 2; two pieces of
  // 9 of the long one; its last 2 tokens with the next sentence.
  const std::vector<std::vector<Sentence>> rows = {
      {{10, 11, 12}, {13, 14}, {15, 16, 17, 18}},
      {{19}},
      {{20, 21}},
      {{30, 31, 32, 33, 34, 35, 36, 37, 38}},
      {{39, 40, 41, 42, 43, 44, 45, 46, 47}},
      {{48, 49}, {50, 51}}};
  ASSERT_EQ(batches.rows(), rows.size());
  EXPECT_EQ(batches.batches_per_epoch(), rows.size());
  for (size_t r = 0; r < rows.size(); ++r) {
    Batch batch(1, T);
    batch.next(batches);
    Sentence whole;
    for (const Sentence &s : rows[r])
      whole.insert(whole.end(), s.begin(), s.end());
    auto [a, b] = batch.segments(0, T);
    // A is one or more whole sentences, B the rest; a lone sentence splits
    // in its middle.
    Sentence joined = a;
    joined.insert(joined.end(), b.begin(), b.end());
    EXPECT_EQ(joined, whole) << "row " << r;
    if (rows[r].size() > 1) {
      size_t at = 0, sentences = 0;
      while (at < a.size())
        at += rows[r][sentences++].size();
      EXPECT_EQ(at, a.size()) << "row " << r << ": A ends inside a sentence";
      EXPECT_GE(sentences, 1u);
      EXPECT_LT(sentences, rows[r].size());
    } else {
      EXPECT_EQ(a.size(), whole.size() - whole.size() / 2) << "row " << r;
    }
    const int length = int(3 + whole.size());
    EXPECT_EQ(batch.lengths[0], length) << "row " << r;
    EXPECT_EQ(batch.order[0], 0);
    EXPECT_EQ(batch.inputs[0], v.cls);
    EXPECT_EQ(batch.original(size_t(1 + a.size())), v.sep);
    EXPECT_EQ(batch.inputs[size_t(length - 1)], v.sep);
    for (int i = 0; i < T; ++i) {
      int type = i > int(1 + a.size()) && i < length ? 1 : 0;
      EXPECT_EQ(batch.types[size_t(i)], type) << "row " << r << " pos " << i;
      if (i >= length) {
        EXPECT_EQ(batch.inputs[size_t(i)], v.pad);
        EXPECT_EQ(batch.targets[size_t(i)], kIgnore);
      }
    }
  }
}

// 15% of the real tokens predicted; of those 80% [MASK], 10% a random
// token, 10% unchanged; never [CLS], [SEP] or [PAD]. Bounds are 6 sigma.
TEST(MlmBatcher, MaskingProportions) {
  const MlmVocabulary v = vocabulary();
  const int B = 8, T = 64;
  TokenFile f(write_documents("many.bin", random_documents(2000, 30, 1)));
  MlmBatcher batches(f, v, options(11), B, T, 0, 1, kVocab);
  double real = 0, chosen = 0, masked = 0, same = 0;
  for (uint64_t s = 0; s < batches.batches_per_epoch(); ++s) {
    Batch batch(B, T);
    batch.next(batches);
    for (int b = 0; b < B; ++b)
      for (int i = 0; i < T; ++i) {
        size_t at = size_t(b) * T + i;
        int original = batch.original(at);
        bool special =
            original == v.cls || original == v.sep || original == v.pad;
        if (special || i >= batch.lengths[size_t(b)]) {
          ASSERT_EQ(batch.targets[at], kIgnore) << "a special token chosen";
          ASSERT_EQ(batch.inputs[at], original);
          continue;
        }
        ++real;
        if (batch.targets[at] == kIgnore) {
          ASSERT_EQ(batch.inputs[at], original);
          continue;
        }
        ++chosen;
        ASSERT_GE(batch.inputs[at], 0);
        ASSERT_LT(batch.inputs[at], kVocab);
        masked += batch.inputs[at] == v.mask;
        same += batch.inputs[at] == original;
      }
  }
  ASSERT_GT(real, 100000);
  expect_binomial(chosen, real, 0.15, "chosen");
  // A random token is [MASK] or the original one time in kVocab each.
  const double other = 0.1 / kVocab;
  expect_binomial(masked, chosen, 0.8 + other, "[MASK]");
  expect_binomial(same, chosen, 0.1 + other, "unchanged");
  expect_binomial(chosen - masked - same, chosen, 0.1 - 2 * other, "random");
}

TEST(MlmBatcher, ProbabilityIsAFlag) {
  const int B = 8, T = 32;
  TokenFile f(write_documents("p.bin", random_documents(300, 20, 2)));
  MlmBatcher batches(f, vocabulary(), options(5, 0.4), B, T, 0, 1, kVocab);
  double real = 0, chosen = 0;
  for (uint64_t s = 0; s < batches.batches_per_epoch(); ++s) {
    Batch batch(B, T);
    batch.next(batches);
    for (int b = 0; b < B; ++b)
      for (int i = 1; i < batch.lengths[size_t(b)]; ++i) {
        size_t at = size_t(b) * T + i;
        if (batch.original(at) == vocabulary().sep)
          continue;
        ++real;
        chosen += batch.targets[at] != kIgnore;
      }
  }
  expect_binomial(chosen, real, 0.4, "chosen at 0.4");
}

// A batch is a function of (seed, step): the same again from another
// batcher, another at another step or seed; the extras-free next() gives the
// same tokens and targets.
TEST(MlmBatcher, Deterministic) {
  const int B = 4, T = 32;
  TokenFile f(write_documents("det.bin", random_documents(200, 20, 3)));
  MlmBatcher one(f, vocabulary(), options(7, 0.15, true), B, T, 0, 1, kVocab);
  MlmBatcher two(f, vocabulary(), options(7, 0.15, true), B, T, 0, 1, kVocab);
  MlmBatcher other(f, vocabulary(), options(8, 0.15, true), B, T, 0, 1, kVocab);
  Batch a0(B, T), a1(B, T), b0(B, T), c0(B, T);
  a0.next(one);
  a1.next(one);
  b0.next(two);
  c0.next(other);
  EXPECT_TRUE(a0 == b0);
  EXPECT_FALSE(a0 == a1);
  EXPECT_NE(a0.inputs, c0.inputs);
  MlmBatcher plain(f, vocabulary(), options(7, 0.15, true), B, T, 0, 1, kVocab);
  std::vector<int> inputs(size_t(B) * T), targets(size_t(B) * T);
  plain.next(inputs.data(), targets.data());
  EXPECT_EQ(inputs, a0.inputs);
  EXPECT_EQ(targets, a0.targets);
}

// Data-parallel ranks read disjoint rows; together they read what one rank
// with dp*B rows reads, masks and extras included.
TEST(MlmBatcher, DataParallelRanksAreDisjointAndCover) {
  const int dp = 2, B = 3, T = 24;
  TokenFile f(write_documents("dp.bin", random_documents(100, 15, 4)));
  MlmOptions o = options(9, 0.15, true);
  MlmBatcher whole(f, vocabulary(), o, dp * B, T, 0, 1, kVocab);
  std::vector<std::unique_ptr<MlmBatcher>> ranks;
  for (int r = 0; r < dp; ++r)
    ranks.push_back(
        std::make_unique<MlmBatcher>(f, vocabulary(), o, B, T, r, dp, kVocab));
  EXPECT_EQ(whole.batches_per_epoch(), ranks[0]->batches_per_epoch());
  for (int step = 0; step < 4; ++step) {
    Batch all(dp * B, T);
    all.next(whole);
    for (int r = 0; r < dp; ++r) {
      Batch part(B, T);
      part.next(*ranks[size_t(r)]);
      size_t n = size_t(B) * T;
      auto slice = [&](const std::vector<int> &v, size_t per) {
        return std::vector<int>(v.begin() + r * per, v.begin() + (r + 1) * per);
      };
      EXPECT_EQ(part.inputs, slice(all.inputs, n)) << "step " << step;
      EXPECT_EQ(part.targets, slice(all.targets, n));
      EXPECT_EQ(part.types, slice(all.types, n));
      EXPECT_EQ(part.lengths, slice(all.lengths, size_t(B)));
      EXPECT_EQ(part.order, slice(all.order, size_t(B)));
    }
    EXPECT_EQ(ranks[0]->position(), whole.position());
  }
}

// A resumed run (seek to a checkpoint's position) continues with the same
// batches; after the last batch of the file the first comes again.
TEST(MlmBatcher, SeekResumesAndEpochsWrap) {
  const int B = 4, T = 32;
  TokenFile f(write_documents("seek.bin", random_documents(60, 20, 5)));
  MlmBatcher run(f, vocabulary(), options(1), B, T, 0, 1, kVocab);
  const uint64_t epoch = run.batches_per_epoch();
  ASSERT_GE(epoch, 3u);
  std::vector<Batch> seen;
  for (uint64_t s = 0; s < epoch + 1; ++s) {
    seen.emplace_back(B, T);
    seen.back().next(run);
  }
  EXPECT_TRUE(seen[epoch] == seen[0]);
  MlmBatcher fresh(f, vocabulary(), options(1), B, T, 0, 1, kVocab);
  Batch skip(B, T);
  skip.next(fresh);
  skip.next(fresh);
  MlmBatcher resumed(f, vocabulary(), options(1), B, T, 0, 1, kVocab);
  resumed.seek(fresh.position());
  Batch again(B, T);
  again.next(resumed);
  EXPECT_TRUE(again == seen[2]);
  EXPECT_THROW(resumed.seek(fresh.position() + 1), std::invalid_argument);
  resumed.reset();
  again.next(resumed);
  EXPECT_TRUE(again == seen[0]);
}

// Each pass over the file draws anew: training's global batch count gives
// the pass, so a batch of the second pass holds the first pass's rows
// (the same tokens in the same order) split, swapped and masked another
// way, deterministically; the first pass is what evaluation reads.
TEST(MlmBatcher, EveryPassDrawsAnew) {
  const int B = 4, T = 32;
  TokenFile f(write_documents("pass.bin", random_documents(60, 20, 6)));
  MlmBatcher run(f, vocabulary(), options(3, 0.15, true), B, T, 0, 1, kVocab);
  const uint64_t epoch = run.batches_per_epoch();
  Batch first(B, T), second(B, T), again(B, T);
  run.set_global_batch(0);
  first.next(run);
  run.reset();
  run.set_global_batch(epoch);
  second.next(run);
  EXPECT_FALSE(second == first);
  // The same row's tokens: each sentence-order draw may swap the segments,
  // so compare the multisets of tokens that are not predicted or special.
  for (int b = 0; b < B; ++b) {
    auto real = [&](const Batch &x) {
      std::vector<int> v;
      for (int i = 0; i < x.lengths[size_t(b)]; ++i)
        v.push_back(x.original(size_t(b) * T + size_t(i)));
      std::sort(v.begin(), v.end());
      return v;
    };
    EXPECT_EQ(real(first), real(second)) << "row " << b;
  }
  MlmBatcher other(f, vocabulary(), options(3, 0.15, true), B, T, 0, 1, kVocab);
  other.set_global_batch(epoch);
  again.next(other);
  EXPECT_TRUE(again == second);
  // Inside a pass the count changes nothing; a batcher never told the count
  // reads the first pass.
  MlmBatcher eval(f, vocabulary(), options(3, 0.15, true), B, T, 0, 1, kVocab);
  Batch plain(B, T);
  plain.next(eval);
  EXPECT_TRUE(plain == first);
  eval.reset();
  eval.set_global_batch(epoch - 1);
  plain.next(eval);
  EXPECT_TRUE(plain == first);
}

// With sentence order, A and B swap in about half the rows, and the label
// says which.
TEST(MlmBatcher, SentenceOrder) {
  const int B = 8, T = 48;
  TokenFile f(write_documents("sop.bin", random_documents(800, 20, 6)));
  MlmBatcher sop(f, vocabulary(), options(4, 0.15, true), B, T, 0, 1, kVocab);
  MlmBatcher plain(f, vocabulary(), options(4), B, T, 0, 1, kVocab);
  double rows = 0, swapped = 0;
  for (uint64_t s = 0; s < sop.batches_per_epoch(); ++s) {
    Batch x(B, T), y(B, T);
    x.next(sop);
    y.next(plain);
    for (int b = 0; b < B; ++b) {
      auto [a, second] = y.segments(b, T);
      EXPECT_EQ(y.order[size_t(b)], 0);
      auto ab = x.segments(b, T);
      EXPECT_EQ(x.lengths[size_t(b)], y.lengths[size_t(b)]);
      if (second.empty()) { // a lone token cannot swap
        EXPECT_EQ(x.order[size_t(b)], 0);
        continue;
      }
      ++rows;
      if (x.order[size_t(b)] == 1) {
        ++swapped;
        EXPECT_EQ(ab.first, second);
        EXPECT_EQ(ab.second, a);
      } else {
        ASSERT_EQ(x.order[size_t(b)], 0);
        EXPECT_EQ(ab.first, a);
        EXPECT_EQ(ab.second, second);
      }
      // Types follow the segments as they lie.
      for (int i = 0; i < x.lengths[size_t(b)]; ++i)
        EXPECT_EQ(x.types[size_t(b) * T + i],
                  i > int(ab.first.size()) + 1 ? 1 : 0);
    }
  }
  ASSERT_GT(rows, 1000);
  expect_binomial(swapped, rows, 0.5, "swapped");
}

// A file whose sentences are not marked, or of another vocabulary, is
// refused naming the fix.
TEST(MlmBatcher, UnmarkedFilesAndBadIdsAreNamed) {
  const MlmVocabulary v = vocabulary();
  std::string dir = temp_dir();
  std::vector<uint32_t> prose(400, 20);
  write_token_file(dir + "/prose.bin", prose);
  TokenFile unmarked(dir + "/prose.bin");
  std::string e = error_of(
      [&] { MlmBatcher(unmarked, v, options(1), 2, 16, 0, 1, kVocab); });
  EXPECT_NE(e.find("does not end with [SEP]"), std::string::npos) << e;
  EXPECT_NE(e.find("tpc-data encode --tokenizer bert-uncased --sentences"),
            std::string::npos)
      << e;

  TokenFile marked(write_documents("small.bin", random_documents(20, 10, 7)));
  e = error_of([&] { MlmBatcher(marked, v, options(1), 2, 16, 0, 1, 50); });
  EXPECT_NE(e.find("vocabulary of 100 tokens does not fit the model's "
                   "vocabulary of 50"),
            std::string::npos)
      << e;
  MlmVocabulary bad = v;
  bad.mask = kVocab;
  e = error_of([&] { MlmBatcher(marked, bad, options(1), 2, 16, 0, 1, 0); });
  EXPECT_NE(e.find("[MASK]"), std::string::npos) << e;
  std::vector<uint32_t> outside = {20,  21, uint32_t(v.sep),
                                   120, 22, uint32_t(v.sep)};
  write_token_file(dir + "/outside.bin", outside);
  TokenFile other(dir + "/outside.bin");
  e = error_of([&] { MlmBatcher(other, v, options(1), 1, 16, 0, 1, kVocab); });
  EXPECT_NE(e.find("token 120 at position 3 is not an id of the vocabulary "
                   "of 100 tokens"),
            std::string::npos)
      << e;
  e = error_of([&] { MlmBatcher(marked, v, options(1), 1000, 16, 0, 1, 0); });
  EXPECT_NE(e.find("fewer than one global batch"), std::string::npos) << e;
  e = error_of([&] { MlmBatcher(marked, v, options(1), 1, 4, 0, 1, 0); });
  EXPECT_NE(e.find("[CLS] A [SEP] B [SEP]"), std::string::npos) << e;
  e = error_of([&] { MlmBatcher(marked, v, options(1, 0.0), 1, 16, 0, 1, 0); });
  EXPECT_NE(e.find("--mlm-probability"), std::string::npos) << e;
}
