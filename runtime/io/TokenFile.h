//===- TokenFile.h - llm.c token files --------------------------*- C++ -*-===//
//
// The format of llm.c's data files: a header of 256 int32 (magic 20240520,
// version, token count, the rest zero), then the tokens, little endian.
// Version 1 (llm.c's) holds uint16 tokens; version 2 holds uint32 tokens, for
// vocabularies past 65536 ids such as Llama 3's 128,256.
//
//===----------------------------------------------------------------------===//

#ifndef TPC_RUNTIME_IO_TOKENFILE_H
#define TPC_RUNTIME_IO_TOKENFILE_H

#include "runtime/io/FileUtil.h"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace tpc {

constexpr int32_t kTokenFileMagic = 20240520;
/// uint16 tokens: llm.c's format.
constexpr int32_t kTokenFileVersion16 = 1;
/// uint32 tokens.
constexpr int32_t kTokenFileVersion32 = 2;
constexpr size_t kTokenFileHeaderInts = 256;

/// The bytes of one token in a file of `version` (1 or 2).
constexpr size_t token_file_width(int32_t version) {
  return version == kTokenFileVersion16 ? 2 : 4;
}

/// The version write_token_file picks: 1, which llm.c's tools read, when
/// every token is below 65536, else 2.
int32_t token_file_version_for(const std::vector<uint32_t> &tokens);

/// Writes `tokens` to `path` (through path.tmp and a rename, so a reader
/// never sees half a file) as `version`: kTokenFileVersion16,
/// kTokenFileVersion32, or 0 for token_file_version_for(tokens). Forcing
/// version 1 with a token >= 65536 throws std::runtime_error naming the token
/// and its position, never truncating it.
void write_token_file(const std::string &path,
                      const std::vector<uint32_t> &tokens, int32_t version = 0);

/// An open, validated token file. Reads go straight to the file (pread), so
/// a large corpus is never loaded whole. Errors are std::runtime_error
/// naming the file, the problem and the fix.
class TokenFile {
public:
  explicit TokenFile(const std::string &path);
  TokenFile(TokenFile &&other) noexcept = default;
  TokenFile &operator=(TokenFile &&other) noexcept = default;
  TokenFile(const TokenFile &) = delete;
  TokenFile &operator=(const TokenFile &) = delete;

  const std::string &path() const { return path_; }
  uint64_t num_tokens() const { return num_tokens_; }
  /// The header's version: kTokenFileVersion16 or kTokenFileVersion32.
  int32_t version() const { return version_; }
  /// The bytes of one token on disk (2 or 4).
  size_t token_width() const { return token_file_width(version_); }

  /// Tokens [pos, pos + n) into out, whatever the width on disk.
  void read(uint64_t pos, uint64_t n, uint32_t *out) const;
  /// The whole file.
  std::vector<uint32_t> read_all() const;
  /// The position and value of the first token >= `limit`, found in one
  /// pass over the file; nullopt when every token lies below it.
  std::optional<std::pair<uint64_t, uint32_t>>
  first_token_at_least(uint32_t limit) const;

private:
  std::string path_;
  FileDescriptor fd_;
  int32_t version_ = kTokenFileVersion16;
  uint64_t num_tokens_ = 0;
};

/// The inputs of an encoder's batch beside its tokens and targets; a null
/// pointer is one the program does not take.
struct BatchExtras {
  int *token_types = nullptr;    ///< B*T, the segment of each token (0 or 1)
  int *key_lengths = nullptr;    ///< B, real positions per row; padding ends it
  int *sentence_order = nullptr; ///< B, 1 where the two segments are swapped
};

/// Where training and evaluation read their batches: B rows of T inputs and
/// T targets per call, data-parallel ranks reading disjoint rows of each
/// global batch, positions counted in tokens of the file.
class Batcher {
public:
  virtual ~Batcher() = default;
  /// Fills inputs (B*T) and targets (B*T) with the next batch.
  virtual void next(int *inputs, int *targets) = 0;
  /// The same, and the extras the program takes. Batchers of one segment
  /// without padding give every token type 0, every row its full length
  /// and every row order 0.
  virtual void next(int *inputs, int *targets, const BatchExtras &extras);
  /// Global batches per pass over the file.
  virtual uint64_t batches_per_epoch() const = 0;
  /// The token offset of the next global batch (for checkpoints).
  uint64_t position() const { return position_; }
  /// Back to the first batch (deterministic evaluation).
  void reset() { position_ = 0; }
  /// Continues at `position`, the start of a global batch of the file.
  void seek(uint64_t position);
  /// Training's count of global batches drawn before the next one (its
  /// step times the accumulation, plus the micro-batch): batchers that
  /// draw anew on every pass over the file (masked-LM batches) take the
  /// pass from it. Others ignore it.
  virtual void set_global_batch(uint64_t index) { (void)index; }

protected:
  Batcher(const TokenFile &file, int B, int T, int dp_rank, int dp_size);
  /// Tokens of one global batch (dp_size * B * T).
  uint64_t global() const { return uint64_t(dp_size_) * B_ * T_; }

  const TokenFile &file_;
  int B_, T_, dp_rank_, dp_size_;
  uint64_t position_ = 0;
};

/// Batches of B windows of T+1 tokens: inputs are a window's first T tokens,
/// targets the last T (inputs shifted by one). As in llm.c, a batch is B*T+1
/// consecutive tokens and window b starts at b*T.
///
/// With dp_size data-parallel ranks, the global batch at step s covers
/// dp_size consecutive blocks of B*T tokens and rank r reads block r, so the
/// ranks' windows are disjoint and together cover what one rank with
/// dp_size*B rows would read. When the next global batch would run past the
/// end of the file, reading starts again from the beginning (an epoch).
class TokenBatcher : public Batcher {
public:
  /// Checks every token of the file once, here: below vocab_size when it is
  /// > 0, else below 2^31 (an int). A bad id anywhere is refused before the
  /// first batch, never when a window reaches it.
  TokenBatcher(const TokenFile &file, int B, int T, int dp_rank = 0,
               int dp_size = 1, int vocab_size = 0);

  using Batcher::next;
  void next(int *inputs, int *targets) override;
  uint64_t batches_per_epoch() const override;

private:
  std::vector<uint32_t> buffer_;
};

/// Masked-language-model batches with the positions to predict given by a
/// mask file (`tpc-run --masks`): one byte per token of the token file, 1
/// where the token is predicted, 0 elsewhere. Window w holds tokens
/// [w*T, (w+1)*T) (no shift); a global batch is dp_size*B consecutive
/// windows and rank r reads windows [r*B, (r+1)*B) of it, so one rank with
/// dp_size*B rows reads the same windows. A predicted position's input is
/// `mask_id` and its target the original token; every other target is
/// `ignore_index`. When the next global batch would run past the end of
/// the file, reading starts again from the beginning.
class MaskedBatcher : public Batcher {
public:
  /// Checks the tokens as TokenBatcher does, the mask file's size (one byte
  /// per token) and every mask byte (0 or 1), here.
  MaskedBatcher(const TokenFile &file, const std::string &masks, int mask_id,
                int ignore_index, int B, int T, int dp_rank, int dp_size,
                int vocab_size);

  using Batcher::next;
  void next(int *inputs, int *targets) override;
  uint64_t batches_per_epoch() const override;

private:
  std::string masks_path_;
  FileDescriptor masks_;
  int mask_id_, ignore_index_;
  std::vector<uint32_t> tokens_;
  std::vector<uint8_t> predicted_;
};

} // namespace tpc

#endif // TPC_RUNTIME_IO_TOKENFILE_H
