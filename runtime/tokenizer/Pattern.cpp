//===- Pattern.cpp - pre-tokenizer regular expressions --------------------===//

#include "runtime/tokenizer/Pattern.h"

#include "runtime/tokenizer/Unicode.h"

#include <algorithm>
#include <cctype>
#include <stdexcept>

namespace tpc {

const char *const kGpt2Pattern =
    R"('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+)";
const char *const kLlama3Pattern =
    R"((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)";

namespace {

constexpr uint8_t class_bit(CharClass c) {
  return uint8_t(1u << static_cast<unsigned>(c));
}
constexpr uint8_t kAllClasses =
    class_bit(CharClass::Letter) | class_bit(CharClass::Number) |
    class_bit(CharClass::Space) | class_bit(CharClass::Other);
constexpr uint32_t kLowLimit = 0x800;

struct Node {
  enum Kind { Empty, Set, Concat, Alt, Repeat, Look } kind = Empty;
  size_t offset = 0; // in the source, for errors
  int set = -1;
  std::vector<Node> children;
  int min = 0, max = -1; // max -1: unbounded
  bool greedy = true, negative = false;
};

bool nullable(const Node &n) {
  switch (n.kind) {
  case Node::Empty:
  case Node::Look:
    return true;
  case Node::Set:
    return false;
  case Node::Concat:
    for (const Node &c : n.children)
      if (!nullable(c))
        return false;
    return true;
  case Node::Alt:
    for (const Node &c : n.children)
      if (nullable(c))
        return true;
    return false;
  case Node::Repeat:
    return n.min == 0 || nullable(n.children[0]);
  }
  return true;
}

class Parser {
public:
  Parser(std::string_view src, std::vector<Pattern::CharSet> &sets)
      : src_(src), sets_(sets) {}

  Node parse() {
    Node n = alternation(false);
    if (pos_ < src_.size())
      fail("an unmatched ')'");
    return n;
  }

private:
  [[noreturn]] void fail(const std::string &what) const {
    throw std::runtime_error("pre-tokenizer pattern: " + what + " at offset " +
                             std::to_string(pos_) + " of '" +
                             std::string(src_) +
                             "' is not supported (supported: literals, "
                             "classes, \\s \\S \\p{L} \\p{N}, groups, (?i:), "
                             "lookahead, | and quantifiers)");
  }
  bool at(char c) const { return pos_ < src_.size() && src_[pos_] == c; }
  bool eat(char c) {
    if (!at(c))
      return false;
    ++pos_;
    return true;
  }
  bool eat(std::string_view s) {
    if (src_.substr(pos_, s.size()) != s)
      return false;
    pos_ += s.size();
    return true;
  }

  int add_set(Pattern::CharSet set, bool fold) {
    if (fold) {
      auto ranges = set.ranges;
      for (auto [lo, hi] : ranges) {
        for (uint32_t c = std::max<uint32_t>(lo, 'a');
             c <= std::min<uint32_t>(hi, 'z'); ++c)
          set.ranges.push_back({c - 32, c - 32});
        for (uint32_t c = std::max<uint32_t>(lo, 'A');
             c <= std::min<uint32_t>(hi, 'Z'); ++c)
          set.ranges.push_back({c + 32, c + 32});
      }
    }
    sets_.push_back(std::move(set));
    return static_cast<int>(sets_.size()) - 1;
  }

  Node set_node(int set, size_t offset) {
    Node n;
    n.kind = Node::Set;
    n.set = set;
    n.offset = offset;
    return n;
  }

  Node alternation(bool fold) {
    size_t start = pos_;
    std::vector<Node> alts;
    alts.push_back(sequence(fold));
    while (eat('|'))
      alts.push_back(sequence(fold));
    if (alts.size() == 1)
      return std::move(alts[0]);
    Node n;
    n.kind = Node::Alt;
    n.offset = start;
    n.children = std::move(alts);
    return n;
  }

  Node sequence(bool fold) {
    Node n;
    n.kind = Node::Concat;
    n.offset = pos_;
    while (pos_ < src_.size() && !at('|') && !at(')')) {
      Node atom_node = atom(fold);
      n.children.push_back(quantified(std::move(atom_node)));
    }
    return n;
  }

  // An unsigned decimal number, or -1 when there is none.
  int number() {
    size_t start = pos_;
    long value = 0;
    while (pos_ < src_.size() && src_[pos_] >= '0' && src_[pos_] <= '9') {
      value = value * 10 + (src_[pos_++] - '0');
      if (value > 1000)
        fail("a repetition count above 1000");
    }
    return pos_ == start ? -1 : static_cast<int>(value);
  }

  Node quantified(Node atom_node) {
    size_t start = pos_;
    int min, max;
    if (eat('?')) {
      min = 0, max = 1;
    } else if (eat('*')) {
      min = 0, max = -1;
    } else if (eat('+')) {
      min = 1, max = -1;
    } else if (eat('{')) {
      min = number();
      if (min < 0)
        fail("a '{' that does not start a count");
      max = min;
      if (eat(',')) {
        max = number();
        if (max >= 0 && max < min)
          fail("a count {n,m} with m < n");
      }
      if (!eat('}'))
        fail("a count without its '}'");
    } else {
      return atom_node;
    }
    Node n;
    n.kind = Node::Repeat;
    n.offset = start;
    n.min = min;
    n.max = max;
    n.greedy = !eat('?');
    if (at('+') || at('*') || at('?') || at('{'))
      fail("a quantifier of a quantifier (possessive or nested)");
    if (max != 1 && nullable(atom_node)) {
      pos_ = start;
      fail("repeating a part that can match the empty string");
    }
    n.children.push_back(std::move(atom_node));
    return n;
  }

  uint32_t code_point() {
    Utf8Step step = decode_utf8(src_, pos_);
    if (!step.valid)
      fail("a byte that is not UTF-8");
    pos_ += step.length;
    return step.cp;
  }

  uint32_t hex(int digits) {
    uint32_t value = 0;
    for (int i = 0; i < digits; ++i) {
      if (pos_ >= src_.size() || !std::isxdigit(uint8_t(src_[pos_])))
        fail("a hexadecimal escape without its digits");
      char c = src_[pos_++];
      value = value * 16 + (c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10);
    }
    return value;
  }

  // After a backslash: a class (\s \S \p{..} \P{..}) into `set`, returning
  // true, or a literal code point into `cp`, returning false.
  bool escape(Pattern::CharSet &set, uint32_t &cp) {
    if (pos_ >= src_.size())
      fail("a '\\' at the end");
    size_t start = pos_ - 1;
    char c = src_[pos_++];
    switch (c) {
    case 's':
      set.classes |= class_bit(CharClass::Space);
      return true;
    case 'S':
      set.classes |= kAllClasses & ~class_bit(CharClass::Space);
      return true;
    case 'p':
    case 'P': {
      uint8_t bit;
      if (eat("{L}") || eat("{Letter}"))
        bit = class_bit(CharClass::Letter);
      else if (eat("{N}") || eat("{Number}"))
        bit = class_bit(CharClass::Number);
      else {
        pos_ = start;
        fail("a Unicode property other than \\p{L} and \\p{N}");
      }
      set.classes |= c == 'p' ? bit : uint8_t(kAllClasses & ~bit);
      return true;
    }
    case 'r':
      cp = '\r';
      return false;
    case 'n':
      cp = '\n';
      return false;
    case 't':
      cp = '\t';
      return false;
    case 'f':
      cp = '\f';
      return false;
    case 'v':
      cp = '\v';
      return false;
    case 'x':
      cp = hex(2);
      return false;
    case 'u':
      cp = hex(4);
      return false;
    default:
      if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
          (c >= '0' && c <= '9') || (uint8_t(c) & 0x80)) {
        pos_ = start;
        fail(std::string("the escape \\") + c);
      }
      cp = uint8_t(c);
      return false;
    }
  }

  Node char_class(bool fold) {
    size_t start = pos_ - 1;
    Pattern::CharSet set;
    set.negated = eat('^');
    if (at(']'))
      fail("an empty class");
    while (!eat(']')) {
      if (pos_ >= src_.size()) {
        pos_ = start;
        fail("a '[' without its ']'");
      }
      uint32_t lo;
      if (eat('\\')) {
        if (escape(set, lo))
          continue;
      } else {
        lo = code_point();
      }
      uint32_t hi = lo;
      if (at('-') && pos_ + 1 < src_.size() && src_[pos_ + 1] != ']') {
        ++pos_;
        Pattern::CharSet unused;
        if (eat('\\')) {
          if (escape(unused, hi))
            fail("a range that ends in a class");
        } else {
          hi = code_point();
        }
        if (hi < lo)
          fail("a range whose end is below its start");
      }
      set.ranges.push_back({lo, hi});
    }
    return set_node(add_set(std::move(set), fold), start);
  }

  Node atom(bool fold) {
    size_t start = pos_;
    if (eat('(')) {
      Node n;
      if (eat("?:")) {
        n = alternation(fold);
      } else if (eat("?i:")) {
        n = alternation(true);
      } else if (eat("?=") || eat("?!")) {
        n.kind = Node::Look;
        n.negative = src_[pos_ - 1] == '!';
        n.children.push_back(alternation(fold));
      } else if (at('?')) {
        fail("a group of this kind");
      } else {
        n = alternation(fold); // capturing: the match alone matters
      }
      n.offset = start;
      if (!eat(')')) {
        pos_ = start;
        fail("a '(' without its ')'");
      }
      return n;
    }
    if (eat('['))
      return char_class(fold);
    char c = src_[pos_];
    if (c == '*' || c == '+' || c == '?' || c == '{')
      fail("a quantifier with nothing to repeat");
    if (c == '.' || c == '^' || c == '$')
      fail(std::string("'") + c + "'");
    Pattern::CharSet set;
    uint32_t cp;
    if (eat('\\')) {
      if (escape(set, cp))
        return set_node(add_set(std::move(set), fold), start);
    } else {
      cp = code_point();
    }
    set.ranges.push_back({cp, cp});
    return set_node(add_set(std::move(set), fold), start);
  }

  std::string_view src_;
  std::vector<Pattern::CharSet> &sets_;
  size_t pos_ = 0;
};

class Compiler {
public:
  explicit Compiler(std::vector<Pattern::Inst> &program) : p_(program) {}

  void emit(const Node &n) {
    switch (n.kind) {
    case Node::Empty:
      return;
    case Node::Set:
      push(Pattern::Inst::Set, n.set);
      return;
    case Node::Concat:
      for (const Node &c : n.children)
        emit(c);
      return;
    case Node::Alt: {
      std::vector<int> to_end;
      for (size_t i = 0; i < n.children.size(); ++i) {
        int split = -1;
        if (i + 1 < n.children.size())
          split = push(Pattern::Inst::Split);
        if (split >= 0)
          p_[split].x = here();
        emit(n.children[i]);
        if (split >= 0) {
          to_end.push_back(push(Pattern::Inst::Jump));
          p_[split].y = here();
        }
      }
      for (int j : to_end)
        p_[j].x = here();
      return;
    }
    case Node::Repeat: {
      const Node &body = n.children[0];
      for (int i = 0; i < n.min; ++i)
        emit(body);
      if (n.max < 0) {
        int split = push(Pattern::Inst::Split);
        emit(body);
        int jump = push(Pattern::Inst::Jump);
        p_[jump].x = split;
        branch(split, split + 1, here(), n.greedy);
      } else {
        std::vector<int> splits;
        for (int i = n.min; i < n.max; ++i) {
          splits.push_back(push(Pattern::Inst::Split));
          emit(body);
        }
        for (int s : splits)
          branch(s, s + 1, here(), n.greedy);
      }
      return;
    }
    case Node::Look: {
      int look = push(Pattern::Inst::Look);
      p_[look].negative = n.negative;
      p_[look].x = here();
      emit(n.children[0]);
      push(Pattern::Inst::Match);
      p_[look].y = here();
      return;
    }
    }
  }

  int push(Pattern::Inst::Op op, int x = 0) {
    Pattern::Inst inst;
    inst.op = op;
    inst.x = x;
    p_.push_back(inst);
    return static_cast<int>(p_.size()) - 1;
  }

private:
  int here() const { return static_cast<int>(p_.size()); }
  void branch(int split, int body, int out, bool greedy) {
    p_[split].x = greedy ? body : out;
    p_[split].y = greedy ? out : body;
  }
  std::vector<Pattern::Inst> &p_;
};

} // namespace

Pattern::Pattern(std::string_view source) : source_(source) {
  Parser parser(source_, sets_);
  Node root = parser.parse();
  Compiler compiler(program_);
  compiler.emit(root);
  compiler.push(Inst::Match);
  for (CharSet &set : sets_) {
    set.low.assign(kLowLimit / 64, 0);
    for (uint32_t cp = 0; cp < kLowLimit; ++cp) {
      bool in = set.classes & class_bit(classify_code_point(cp));
      for (auto [lo, hi] : set.ranges)
        in = in || (cp >= lo && cp <= hi);
      if (in != set.negated)
        set.low[cp / 64] |= uint64_t(1) << (cp % 64);
    }
  }
}

bool Pattern::in_set(const CharSet &set, std::string_view text, size_t pos,
                     int &length) const {
  uint8_t b = static_cast<uint8_t>(text[pos]);
  if (b < 0x80) {
    length = 1;
    return (set.low[b / 64] >> (b % 64)) & 1;
  }
  Utf8Step step = decode_utf8(text, pos);
  length = step.length;
  if (!step.valid)
    return bool(set.classes & class_bit(CharClass::Other)) != set.negated;
  if (step.cp < kLowLimit)
    return (set.low[step.cp / 64] >> (step.cp % 64)) & 1;
  bool in = set.classes & class_bit(classify_code_point(step.cp));
  for (auto [lo, hi] : set.ranges)
    in = in || (step.cp >= lo && step.cp <= hi);
  return in != set.negated;
}

size_t Pattern::run(int pc, std::string_view text, size_t pos) const {
  // Backtracking points; one stack per thread, shared by nested lookaheads.
  thread_local std::vector<std::pair<int, size_t>> stack;
  const size_t base = stack.size();
  const size_t n = text.size();
  for (;;) {
    const Inst &inst = program_[pc];
    bool ok = true;
    switch (inst.op) {
    case Inst::Set: {
      int length;
      ok = pos < n && in_set(sets_[inst.x], text, pos, length);
      if (ok) {
        pos += length;
        ++pc;
      }
      break;
    }
    case Inst::Split:
      stack.emplace_back(inst.y, pos);
      pc = inst.x;
      break;
    case Inst::Jump:
      pc = inst.x;
      break;
    case Inst::Look:
      ok = (run(inst.x, text, pos) != std::string_view::npos) != inst.negative;
      pc = inst.y;
      break;
    case Inst::Match:
      stack.resize(base);
      return pos;
    }
    if (ok)
      continue;
    if (stack.size() == base)
      return std::string_view::npos;
    pc = stack.back().first;
    pos = stack.back().second;
    stack.pop_back();
  }
}

size_t Pattern::match(std::string_view text, size_t pos) const {
  size_t end = run(0, text, pos);
  return end == std::string_view::npos || end == pos ? std::string_view::npos
                                                     : end - pos;
}

void Pattern::split(std::string_view text,
                    std::vector<std::string_view> &out) const {
  size_t gap = 0, pos = 0;
  while (pos < text.size()) {
    size_t length = match(text, pos);
    if (length == std::string_view::npos) {
      pos += decode_utf8(text, pos).length;
      continue;
    }
    if (gap < pos)
      out.push_back(text.substr(gap, pos - gap));
    out.push_back(text.substr(pos, length));
    pos += length;
    gap = pos;
  }
  if (gap < text.size())
    out.push_back(text.substr(gap));
}

} // namespace tpc
