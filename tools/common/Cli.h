//===- Cli.h - The flag conventions of every tpc tool -----------*- C++ -*-===//
//
// Every tool parses its flags with CLI11 through these helpers, so that all
// of them accept the same spellings (`--tp 2` and `--tp=2`), print --help in
// the same layout, and refuse the same mistakes: an unknown flag, a value of
// the wrong type, and a flag given twice (`--tp=2 --tp=4` is refused rather
// than silently taking one of the two). Header-only and free of LLVM, so
// that the runtime's tools and the compiler's share it.
//
//===----------------------------------------------------------------------===//

#ifndef TPC_TOOLS_COMMON_CLI_H
#define TPC_TOOLS_COMMON_CLI_H

#include <CLI/CLI.hpp>

#include <string>

namespace tpc::cli {

/// Applies the conventions to `app`; call it before adding options or
/// subcommands (they inherit them).
inline void configure(CLI::App &app) {
  // Repeats are counted and refused by refuse_repeats(), with one message
  // for options and flags alike.
  app.option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  app.get_formatter()->column_width(34);
}

/// Throws CLI::ArgumentMismatch naming the first flag of `app` or of a
/// subcommand it ran that was given more than once.
inline void refuse_repeats(const CLI::App &app) {
  for (const CLI::Option *o : app.get_options())
    if (o->get_items_expected_max() <= 1 && o->count() > 1)
      throw CLI::ArgumentMismatch(o->get_name() + " is given " +
                                  std::to_string(o->count()) +
                                  " times; give it once");
  for (const CLI::App *sub : app.get_subcommands())
    refuse_repeats(*sub);
}

/// Parses argv into `app` and refuses repeated flags. Returns -1 when the
/// tool should go on; otherwise the exit status after --help (0) or an
/// error (non-zero), which is printed when `print` is set.
inline int parse(CLI::App &app, int argc, char **argv, bool print = true) {
  try {
    app.parse(argc, argv);
    refuse_repeats(app);
  } catch (const CLI::ParseError &e) {
    if (print)
      return app.exit(e);
    return e.get_exit_code();
  }
  return -1;
}

} // namespace tpc::cli

#endif // TPC_TOOLS_COMMON_CLI_H
