//===- BpeTokenizer.cpp - byte-level BPE ----------------------------------===//

#include "runtime/tokenizer/BpeTokenizer.h"

#include "runtime/tokenizer/Unicode.h"

#include <algorithm>
#include <functional>
#include <stdexcept>

namespace tpc {

std::array<uint32_t, 256> gpt2_byte_to_unicode() {
  std::array<uint32_t, 256> table{};
  auto printable = [](int b) {
    return (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) ||
           (b >= 0xAE && b <= 0xFF);
  };
  uint32_t next = 256;
  for (int b = 0; b < 256; ++b)
    table[b] = printable(b) ? b : next++;
  return table;
}

namespace {

uint64_t pair_key(int left, int right) {
  return (static_cast<uint64_t>(left) << 32) | static_cast<uint32_t>(right);
}

} // namespace

std::string byte_level_spelling(std::string_view bytes) {
  static const std::array<uint32_t, 256> table = gpt2_byte_to_unicode();
  std::string s;
  for (char b : bytes)
    append_utf8(table[static_cast<uint8_t>(b)], s);
  return s;
}

BpeTokenizer::BpeTokenizer(
    const std::unordered_map<std::string, int> &encoder,
    const std::vector<std::pair<std::string, std::string>> &merges,
    const std::string &origin, Options options)
    : pattern_(std::move(options.pattern)),
      ignore_merges_(options.ignore_merges), added_(std::move(options.added)) {
  auto fail = [&](const std::string &what) {
    return std::runtime_error(origin + ": " + what +
                              (options.fix.empty() ? "" : "; " + options.fix));
  };
  if (!pattern_) {
    static const std::shared_ptr<const Pattern> gpt2 =
        std::make_shared<const Pattern>(kGpt2Pattern);
    pattern_ = gpt2;
  }
  const std::array<uint32_t, 256> byte_to_unicode = gpt2_byte_to_unicode();
  // The table's code points are below 0x144; -1 marks the others.
  std::array<int, 0x200> unicode_to_byte;
  unicode_to_byte.fill(-1);
  for (int b = 0; b < 256; ++b)
    unicode_to_byte[byte_to_unicode[b]] = b;

  // The ids are dense, so none reaches the number of entries; test that
  // before sizing the table by the largest, so that a stray large id is an
  // error rather than an allocation of its size.
  const size_t entries = encoder.size() + added_.size();
  auto out_of_range = [&](const std::string &spelling, int id) {
    return fail("token '" + spelling + "' has id " + std::to_string(id) +
                ", but the ids of the " + std::to_string(entries) +
                " tokens must be 0.." + std::to_string(entries - 1) +
                ", each once");
  };
  int n = 0;
  for (const auto &[spelling, id] : encoder) {
    if (id >= 0 && static_cast<size_t>(id) >= entries)
      throw out_of_range(spelling, id);
    n = std::max(n, id + 1);
  }
  for (const AddedToken &t : added_) {
    if (t.id >= 0 && static_cast<size_t>(t.id) >= entries)
      throw out_of_range(t.content, t.id);
    n = std::max(n, t.id + 1);
  }
  token_bytes_.assign(n, std::string());
  std::vector<bool> seen(n, false);
  for (const auto &[spelling, id] : encoder) {
    if (id < 0 || seen[id])
      throw fail("token '" + spelling + "' has id " + std::to_string(id) +
                 ", but the ids of the " + std::to_string(n) +
                 " tokens must be 0.." + std::to_string(n - 1) + ", each once");
    seen[id] = true;
    // Special tokens such as GPT-2's <|endoftext|> are spelled in printable
    // ASCII, which stands for itself.
    std::string bytes;
    for (size_t pos = 0; pos < spelling.size();) {
      Utf8Step step = decode_utf8(spelling, pos);
      int byte = step.valid && step.cp < unicode_to_byte.size()
                     ? unicode_to_byte[step.cp]
                     : -1;
      if (byte < 0)
        throw fail("token '" + spelling +
                   "' is not spelled in the byte-level (GPT-2 "
                   "byte-to-unicode) alphabet");
      bytes += static_cast<char>(byte);
      pos += step.length;
    }
    token_bytes_[id] = std::move(bytes);
  }
  if (ignore_merges_)
    for (const auto &entry : encoder)
      vocab_ids_.emplace(token_bytes_[entry.second], entry.second);
  // An added token may repeat a vocabulary entry (GPT-2's <|endoftext|>).
  for (const AddedToken &t : added_) {
    if (t.id < 0 || t.content.empty())
      throw fail("added token '" + t.content + "' has id " +
                 std::to_string(t.id) +
                 "; added tokens need a non-negative id and some text");
    if (seen[t.id] && token_bytes_[t.id] != t.content)
      throw fail("added token '" + t.content + "' has id " +
                 std::to_string(t.id) + ", which token '" + token_bytes_[t.id] +
                 "' has too");
    seen[t.id] = true;
    token_bytes_[t.id] = t.content;
    added_first_byte_[static_cast<uint8_t>(t.content[0])] = true;
  }
  for (int id = 0; id < n; ++id)
    if (!seen[id])
      throw fail("no token has id " + std::to_string(id) + ", but the ids of " +
                 "the " + std::to_string(n) + " tokens must be 0.." +
                 std::to_string(n - 1) + ", each once");
  // Longest first, so that added_at finds the longest token at a position.
  std::stable_sort(added_.begin(), added_.end(),
                   [](const AddedToken &a, const AddedToken &b) {
                     return a.content.size() > b.content.size();
                   });

  for (int b = 0; b < 256; ++b) {
    auto it = encoder.find(byte_level_spelling(std::string(1, char(b))));
    if (it == encoder.end())
      throw fail("no token for the single byte " + std::to_string(b) +
                 "; a byte-level vocabulary needs all 256");
    byte_id_[b] = it->second;
  }
  // The document markers: an added token of that text, else a vocabulary
  // entry (GPT-2's <|endoftext|> is both).
  auto find_token = [&](const std::string &content) {
    for (const AddedToken &t : added_)
      if (t.content == content)
        return t.id;
    auto it = encoder.find(content);
    return it == encoder.end() ? -1 : it->second;
  };
  end_of_text_ = find_token(options.end_of_text);
  if (!options.begin_of_text.empty()) {
    begin_of_text_ = find_token(options.begin_of_text);
    if (begin_of_text_ < 0)
      throw fail("the token '" + options.begin_of_text +
                 "' that starts a document is not in the vocabulary");
  }

  merges_.reserve(merges.size());
  for (size_t rank = 0; rank < merges.size(); ++rank) {
    const auto &[left, right] = merges[rank];
    auto l = encoder.find(left), r = encoder.find(right),
         m = encoder.find(left + right);
    if (l == encoder.end() || r == encoder.end() || m == encoder.end())
      throw fail("merge " + std::to_string(rank + 1) + " '" + left + " " +
                 right +
                 "' names a token missing from the vocabulary; the "
                 "merges and the vocabulary must come from the same "
                 "tokenizer");
    // As in the references, a repeated pair keeps its last rank.
    merges_[pair_key(l->second, r->second)] = {static_cast<int>(rank),
                                               m->second};
  }
}

const AddedToken *BpeTokenizer::added_at(std::string_view text,
                                         size_t pos) const {
  for (const AddedToken &t : added_)
    if (text.compare(pos, t.content.size(), t.content) == 0)
      return &t;
  return nullptr;
}

void BpeTokenizer::encode(std::string_view text, std::vector<int> &out) {
  if (!special_in_text_ || added_.empty())
    return encode_plain(text, out);
  size_t start = 0;
  for (size_t pos = 0; pos < text.size();) {
    const AddedToken *t = added_first_byte_[static_cast<uint8_t>(text[pos])]
                              ? added_at(text, pos)
                              : nullptr;
    if (!t) {
      ++pos;
      continue;
    }
    encode_plain(text.substr(start, pos - start), out);
    out.push_back(t->id);
    pos += t->content.size();
    start = pos;
  }
  encode_plain(text.substr(start), out);
}

void BpeTokenizer::encode_plain(std::string_view text, std::vector<int> &out) {
  pieces_.clear();
  pattern_->split(text, pieces_);
  for (std::string_view piece : pieces_)
    bpe(piece, out);
}

void BpeTokenizer::bpe(std::string_view piece, std::vector<int> &out) {
  std::string key(piece);
  if (ignore_merges_) {
    auto whole = vocab_ids_.find(key);
    if (whole != vocab_ids_.end()) {
      out.push_back(whole->second);
      return;
    }
  }
  auto cached = cache_.find(key);
  if (cached != cache_.end()) {
    out.insert(out.end(), cached->second.begin(), cached->second.end());
    return;
  }
  // A doubly linked list of symbols and a heap of candidate merges ordered
  // by (rank, position): the best-ranked pair merges first, equal ranks left
  // to right, as in Hugging Face's tokenizers and the JavaScript references.
  // A candidate is stale once the pair at its position is no longer the one
  // it was made for.
  struct Symbol {
    int id, prev, next;
    bool alive;
  };
  struct Candidate {
    int rank, pos, merged;
    bool operator>(const Candidate &o) const {
      return rank != o.rank ? rank > o.rank : pos > o.pos;
    }
  };
  const int n = static_cast<int>(piece.size());
  std::vector<Symbol> symbols(n);
  for (int i = 0; i < n; ++i)
    symbols[i] = {byte_id_[static_cast<uint8_t>(piece[i])], i - 1,
                  i + 1 < n ? i + 1 : -1, true};
  std::vector<Candidate> heap;
  auto consider = [&](int pos) {
    int next = symbols[pos].next;
    if (next < 0)
      return;
    auto it = merges_.find(pair_key(symbols[pos].id, symbols[next].id));
    if (it == merges_.end())
      return;
    heap.push_back({it->second.first, pos, it->second.second});
    std::push_heap(heap.begin(), heap.end(), std::greater<>());
  };
  for (int i = 0; i + 1 < n; ++i)
    consider(i);
  while (!heap.empty()) {
    std::pop_heap(heap.begin(), heap.end(), std::greater<>());
    Candidate c = heap.back();
    heap.pop_back();
    Symbol &left = symbols[c.pos];
    if (!left.alive || left.next < 0)
      continue;
    auto it = merges_.find(pair_key(left.id, symbols[left.next].id));
    if (it == merges_.end() || it->second.first != c.rank)
      continue;
    Symbol &right = symbols[left.next];
    right.alive = false;
    left.id = c.merged;
    left.next = right.next;
    if (right.next >= 0)
      symbols[right.next].prev = c.pos;
    if (left.prev >= 0)
      consider(left.prev);
    consider(c.pos);
  }
  std::vector<int> word;
  for (int i = 0; i >= 0 && i < n; i = symbols[i].next)
    word.push_back(symbols[i].id);
  // Bounded: a corpus of unusual pieces must not grow the cache forever.
  if (cache_.size() >= (1u << 20))
    cache_.clear();
  out.insert(out.end(), word.begin(), word.end());
  cache_.emplace(std::move(key), std::move(word));
}

const std::string &BpeTokenizer::token_bytes(int id) const {
  check_id(id);
  return token_bytes_[id];
}

} // namespace tpc
