//===- TokenFile.cpp - llm.c token files ----------------------------------===//

#include "runtime/io/TokenFile.h"
#include "runtime/io/FileUtil.h"

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstring>
#include <fcntl.h>
#include <stdexcept>
#include <sys/stat.h>
#include <unistd.h>

// Tokens and header are little endian on disk and read as they lie.
static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
              "token files are little endian; reading them needs a "
              "little-endian host");

namespace tpc {

static std::runtime_error token_error(const std::string &path,
                                      const std::string &what) {
  return std::runtime_error(path + ": " + what);
}

int32_t token_file_version_for(const std::vector<uint32_t> &tokens) {
  for (uint32_t t : tokens)
    if (t > UINT16_MAX)
      return kTokenFileVersion32;
  return kTokenFileVersion16;
}

void write_token_file(const std::string &path,
                      const std::vector<uint32_t> &tokens, int32_t version) {
  if (version == 0)
    version = token_file_version_for(tokens);
  if (version != kTokenFileVersion16 && version != kTokenFileVersion32)
    throw token_error(path, "cannot write token file version " +
                                std::to_string(version) +
                                "; the versions are 1 (uint16 tokens) and 2 "
                                "(uint32 tokens)");
  if (tokens.size() > uint64_t(INT32_MAX))
    throw token_error(path, "cannot hold " + std::to_string(tokens.size()) +
                                " tokens; the header counts at most 2^31-1");
  if (version == kTokenFileVersion16) {
    auto big = std::find_if(tokens.begin(), tokens.end(),
                            [](uint32_t t) { return t > UINT16_MAX; });
    if (big != tokens.end())
      throw token_error(path, "token " + std::to_string(*big) +
                                  " at position " +
                                  std::to_string(big - tokens.begin()) +
                                  " does not fit a version-1 file's uint16 "
                                  "tokens; write version 2 (uint32 tokens) "
                                  "instead");
  }
  std::vector<int32_t> header(kTokenFileHeaderInts, 0);
  header[0] = kTokenFileMagic;
  header[1] = version;
  header[2] = int32_t(tokens.size());
  AtomicFileWriter out(path);
  out.write(header.data(), header.size() * sizeof(int32_t));
  if (version == kTokenFileVersion32) {
    out.write(tokens.data(), tokens.size() * sizeof(uint32_t));
  } else {
    // In pieces, so a large corpus needs no second copy in memory.
    const size_t piece = size_t(1) << 16;
    std::vector<uint16_t> narrow(std::min(tokens.size(), piece));
    for (size_t i = 0; i < tokens.size(); i += piece) {
      size_t m = std::min(piece, tokens.size() - i);
      for (size_t j = 0; j < m; ++j)
        narrow[j] = uint16_t(tokens[i + j]);
      out.write(narrow.data(), m * sizeof(uint16_t));
    }
  }
  out.commit();
}

TokenFile::TokenFile(const std::string &path) : path_(path) {
  fd_ = FileDescriptor(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd_.is_open())
    throw token_error(path,
                      std::string("cannot open: ") + std::strerror(errno));
  struct stat st;
  if (::fstat(fd_.get(), &st) != 0)
    throw token_error(path,
                      std::string("cannot stat: ") + std::strerror(errno));
  uint64_t size = uint64_t(st.st_size);
  const uint64_t header_bytes = kTokenFileHeaderInts * sizeof(int32_t);
  if (size < header_bytes)
    throw token_error(path, "holds " + std::to_string(size) +
                                " bytes, less than the 1024-byte header; "
                                "not an llm.c token file (write one with "
                                "tpc-data encode)");
  int32_t header[kTokenFileHeaderInts];
  pread_all(fd_.get(), header, header_bytes, 0, path);
  if (header[0] != kTokenFileMagic)
    throw token_error(path, "bad magic number " + std::to_string(header[0]) +
                                " (expected " +
                                std::to_string(kTokenFileMagic) +
                                "); not an llm.c token file");
  if (header[1] != kTokenFileVersion16 && header[1] != kTokenFileVersion32)
    throw token_error(
        path, "token file version " + std::to_string(header[1]) +
                  " is not supported (version 1 holds uint16 tokens, "
                  "version 2 uint32 tokens); regenerate it with tpc-data "
                  "encode");
  if (header[2] < 0)
    throw token_error(path, "header says " + std::to_string(header[2]) +
                                " tokens; the header is corrupt");
  const int32_t version = header[1];
  const uint64_t width = token_file_width(version);
  const std::string kind =
      std::string(version == kTokenFileVersion16 ? "uint16" : "uint32") +
      " tokens (version " + std::to_string(version) + ")";
  uint64_t count = uint64_t(header[2]);
  uint64_t data = size - header_bytes;
  if (data % width != 0)
    throw token_error(path, "token data is " + std::to_string(data) +
                                " bytes, not a whole number of " + kind +
                                "; the file is corrupt — regenerate it "
                                "with tpc-data encode");
  uint64_t held = data / width;
  if (held != count)
    throw token_error(path, "header says " + std::to_string(count) +
                                " tokens but the file holds " +
                                std::to_string(held) + " " + kind +
                                (held < count ? "; the file is truncated"
                                              : "; the file has trailing "
                                                "data") +
                                " — regenerate it with tpc-data encode");
  version_ = version;
  num_tokens_ = count;
}

void TokenFile::read(uint64_t pos, uint64_t n, uint32_t *out) const {
  if (pos > num_tokens_ || n > num_tokens_ - pos)
    throw token_error(path_, "tokens [" + std::to_string(pos) + ", " +
                                 std::to_string(pos + n) +
                                 ") are past the end of the file (" +
                                 std::to_string(num_tokens_) + " tokens)");
  const size_t width = token_width();
  pread_all(fd_.get(), out, n * width,
            kTokenFileHeaderInts * sizeof(int32_t) + pos * width, path_);
  if (width == sizeof(uint32_t))
    return;
  // Widen in place from the end: token i's two bytes lie at 2i, below the
  // four bytes at 4i it becomes, and every token before it lies lower still.
  const unsigned char *bytes = reinterpret_cast<const unsigned char *>(out);
  for (uint64_t i = n; i-- > 0;) {
    uint16_t t;
    std::memcpy(&t, bytes + 2 * i, sizeof(t));
    out[i] = t;
  }
}

std::vector<uint32_t> TokenFile::read_all() const {
  std::vector<uint32_t> tokens(num_tokens_);
  read(0, num_tokens_, tokens.data());
  return tokens;
}

std::optional<std::pair<uint64_t, uint32_t>>
TokenFile::first_token_at_least(uint32_t limit) const {
  const uint64_t piece = uint64_t(1) << 18;
  std::vector<uint32_t> buffer(std::min(piece, num_tokens_));
  for (uint64_t pos = 0; pos < num_tokens_; pos += piece) {
    uint64_t n = std::min(piece, num_tokens_ - pos);
    read(pos, n, buffer.data());
    // The largest first (a loop the compiler vectorizes), the position
    // only for a piece that holds a bad token.
    uint32_t largest = 0;
    for (uint64_t i = 0; i < n; ++i)
      largest = std::max(largest, buffer[i]);
    if (largest < limit)
      continue;
    for (uint64_t i = 0;; ++i)
      if (buffer[i] >= limit)
        return std::make_pair(pos + i, buffer[i]);
  }
  return std::nullopt;
}

Batcher::Batcher(const TokenFile &file, int B, int T, int dp_rank, int dp_size)
    : file_(file), B_(B), T_(T), dp_rank_(dp_rank), dp_size_(dp_size) {
  if (B <= 0 || T <= 0 || dp_size <= 0 || dp_rank < 0 || dp_rank >= dp_size)
    throw std::invalid_argument("Batcher: bad batch B=" + std::to_string(B) +
                                " T=" + std::to_string(T) +
                                " dp_rank=" + std::to_string(dp_rank) +
                                " dp_size=" + std::to_string(dp_size));
}

void Batcher::next(int *inputs, int *targets, const BatchExtras &extras) {
  next(inputs, targets);
  if (extras.token_types)
    std::fill_n(extras.token_types, size_t(B_) * T_, 0);
  if (extras.key_lengths)
    std::fill_n(extras.key_lengths, B_, T_);
  if (extras.sentence_order)
    std::fill_n(extras.sentence_order, B_, 0);
}

void Batcher::seek(uint64_t position) {
  if (position % global() != 0 || position / global() > batches_per_epoch())
    throw std::invalid_argument(
        file_.path() + ": data position " + std::to_string(position) +
        " is not the start of a global batch of " + std::to_string(global()) +
        " tokens within the file; the checkpoint was written with another "
        "batch shape");
  position_ = position;
}

namespace {
/// Refuses a token file with an id at or past `vocab_size` (> 0), or past
/// an int without a vocabulary.
void check_token_ids(const TokenFile &file, int vocab_size) {
  // Ids become ints: without a vocabulary, a token must still fit one.
  const uint64_t limit =
      vocab_size > 0 ? uint64_t(vocab_size) : uint64_t(INT32_MAX) + 1;
  if (auto bad = file.first_token_at_least(uint32_t(limit)))
    throw token_error(
        file.path(),
        "token " + std::to_string(bad->second) + " at position " +
            std::to_string(bad->first) +
            (vocab_size > 0
                 ? " is outside the model's vocabulary of " +
                       std::to_string(vocab_size) +
                       "; the file was encoded with another tokenizer: "
                       "encode it with the model's (tpc-data encode)"
                 : " does not fit an int token id; the file is corrupt "
                   "— regenerate it with tpc-data encode"));
}
} // namespace

TokenBatcher::TokenBatcher(const TokenFile &file, int B, int T, int dp_rank,
                           int dp_size, int vocab_size)
    : Batcher(file, B, T, dp_rank, dp_size), buffer_(size_t(B) * T + 1) {
  if (batches_per_epoch() == 0)
    throw token_error(file.path(),
                      "holds " + std::to_string(file.num_tokens()) +
                          " tokens, fewer than one global batch needs (" +
                          std::to_string(uint64_t(dp_size) * B * T + 1) +
                          " = dp " + std::to_string(dp_size) + " x B " +
                          std::to_string(B) + " x T " + std::to_string(T) +
                          " + 1); use a larger file or a smaller batch");
  check_token_ids(file, vocab_size);
}

uint64_t TokenBatcher::batches_per_epoch() const {
  uint64_t n = file_.num_tokens();
  return n < 1 ? 0 : (n - 1) / global();
}

void TokenBatcher::next(int *inputs, int *targets) {
  if (position_ + global() + 1 > file_.num_tokens())
    position_ = 0;
  uint64_t start = position_ + uint64_t(dp_rank_) * B_ * T_;
  size_t n = size_t(B_) * T_;
  // Every token lies below the limit (checked when the batcher was made).
  file_.read(start, n + 1, buffer_.data());
  for (size_t i = 0; i < n; ++i) {
    inputs[i] = buffer_[i];
    targets[i] = buffer_[i + 1];
  }
  position_ += global();
}

MaskedBatcher::MaskedBatcher(const TokenFile &file, const std::string &masks,
                             int mask_id, int ignore_index, int B, int T,
                             int dp_rank, int dp_size, int vocab_size)
    : Batcher(file, B, T, dp_rank, dp_size), masks_path_(masks),
      mask_id_(mask_id), ignore_index_(ignore_index), tokens_(size_t(B) * T),
      predicted_(size_t(B) * T) {
  if (vocab_size > 0 && (mask_id < 0 || mask_id >= vocab_size))
    throw std::runtime_error("--mask-id " + std::to_string(mask_id) +
                             " is not an id of the model's vocabulary of " +
                             std::to_string(vocab_size) +
                             "; give the id of the mask token ([MASK] is "
                             "103 in bert-base-uncased)");
  if (batches_per_epoch() == 0)
    throw token_error(file.path(),
                      "holds " + std::to_string(file.num_tokens()) +
                          " tokens, fewer than one global batch needs (" +
                          std::to_string(global()) + " = dp " +
                          std::to_string(dp_size) + " x B " +
                          std::to_string(B) + " x T " + std::to_string(T) +
                          "); use a larger file or a smaller batch");
  check_token_ids(file, vocab_size);
  masks_ = FileDescriptor(::open(masks.c_str(), O_RDONLY | O_CLOEXEC));
  if (!masks_.is_open())
    throw std::runtime_error(masks + ": cannot open the mask file (" +
                             std::strerror(errno) + ")");
  struct stat st {};
  if (::fstat(masks_.get(), &st) != 0 ||
      uint64_t(st.st_size) != file.num_tokens())
    throw std::runtime_error(
        masks + ": " + std::to_string(uint64_t(st.st_size)) +
        " mask bytes for the " + std::to_string(file.num_tokens()) +
        " tokens of " + file.path() +
        "; a mask file holds one byte per token of its token file");
  std::vector<uint8_t> piece(1 << 20);
  for (uint64_t pos = 0; pos < file.num_tokens(); pos += piece.size()) {
    size_t n =
        size_t(std::min<uint64_t>(piece.size(), file.num_tokens() - pos));
    pread_all(masks_.get(), piece.data(), n, pos, masks);
    for (size_t i = 0; i < n; ++i)
      if (piece[i] > 1)
        throw std::runtime_error(masks + ": mask byte " +
                                 std::to_string(int(piece[i])) +
                                 " at position " + std::to_string(pos + i) +
                                 "; mask bytes are 1 (predicted) or 0 (not)");
  }
}

uint64_t MaskedBatcher::batches_per_epoch() const {
  return file_.num_tokens() / global();
}

void MaskedBatcher::next(int *inputs, int *targets) {
  if (position_ + global() > file_.num_tokens())
    position_ = 0;
  uint64_t start = position_ + uint64_t(dp_rank_) * B_ * T_;
  size_t n = tokens_.size();
  file_.read(start, n, tokens_.data());
  pread_all(masks_.get(), predicted_.data(), n, start, masks_path_);
  for (size_t i = 0; i < n; ++i) {
    inputs[i] = predicted_[i] ? mask_id_ : int(tokens_[i]);
    targets[i] = predicted_[i] ? int(tokens_[i]) : ignore_index_;
  }
  position_ += global();
}

} // namespace tpc
