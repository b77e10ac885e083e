//===- RepeatedOptions.h - Refuse options given twice -----------*- C++ -*-===//
//
// LLVM's command line lets a single-valued option appear any number of
// times and keeps the last value, so `--tp=2 --tp=4` compiles for tp 4
// without a word. The tools refuse that instead, as tpc-run and tpc-data
// (CLI11) do. Options that collect values (cl::list, the pass flags of
// tpc-opt) may repeat.
//
//===----------------------------------------------------------------------===//

#ifndef TPC_TOOLS_REPEATEDOPTIONS_H
#define TPC_TOOLS_REPEATEDOPTIONS_H

#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

namespace tpc {

/// Call after cl::ParseCommandLineOptions. Prints an error naming every
/// single-valued option given more than once; returns false if there was
/// one.
inline bool checkRepeatedOptions(llvm::StringRef tool) {
  bool ok = true;
  llvm::SmallPtrSet<llvm::cl::Option *, 8> seen;
  auto check = [&](llvm::cl::SubCommand &sub) {
    for (auto &entry : llvm::cl::getRegisteredOptions(sub)) {
      llvm::cl::Option *option = entry.second;
      if (option->getNumOccurrences() < 2 ||
          option->getNumOccurrencesFlag() != llvm::cl::Optional ||
          option->isPositional() || !seen.insert(option).second)
        continue;
      llvm::WithColor::error(llvm::errs(), tool)
          << (option->ArgStr.size() == 1 ? "-" : "--") << option->ArgStr
          << " is given " << option->getNumOccurrences()
          << " times; give it once (a repeated option would silently take "
             "the last value)\n";
      ok = false;
    }
  };
  check(llvm::cl::SubCommand::getTopLevel());
  for (llvm::cl::SubCommand *sub : llvm::cl::getRegisteredSubcommands())
    check(*sub);
  return ok;
}

} // namespace tpc

#endif // TPC_TOOLS_REPEATEDOPTIONS_H
