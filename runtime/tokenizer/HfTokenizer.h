//===- HfTokenizer.h - Hugging Face tokenizer.json -------------*- C++ -*-===//
//
// Byte-level BPE tokenizers from the tokenizer.json files of Hugging Face's
// tokenizers library: model type BPE (vocab, merges, ignore_merges), a
// pre-tokenizer that is ByteLevel with its regex (GPT-2's pattern) or a
// Sequence of a Split by a regular expression (behavior Isolated, as Llama
// 3's) and ByteLevel, no normalizer, and added_tokens. The post-processor's
// template names the token that starts a document (Llama 3's
// <|begin_of_text|>); <|end_of_text|> or else <|endoftext|> separates
// documents. The flags of added tokens (lstrip, rstrip, single_word) are not
// applied: their text matches exactly when special tokens are encoded.
// Anything else is refused, naming what the file has.
//
//===----------------------------------------------------------------------===//

#ifndef TPC_RUNTIME_TOKENIZER_HFTOKENIZER_H
#define TPC_RUNTIME_TOKENIZER_HFTOKENIZER_H

#include "runtime/tokenizer/BpeTokenizer.h"

#include <memory>
#include <string>

namespace tpc {

/// Reads the tokenizer.json at `path`. Errors are std::runtime_error naming
/// the file, what it holds and the fix.
std::unique_ptr<BpeTokenizer> load_tokenizer_json(const std::string &path);

/// The same from the file's contents; errors name `origin`.
std::unique_ptr<BpeTokenizer> parse_tokenizer_json(const std::string &text,
                                                   const std::string &origin);

} // namespace tpc

#endif // TPC_RUNTIME_TOKENIZER_HFTOKENIZER_H
