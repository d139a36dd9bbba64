// CLI11's parse errors as one line naming the cause and the fix, for the
// project's command-line tools (the rangereplay launcher, metrics-probe).
// CLI11's own report spans two lines ("The following argument was not
// expected: --bogus" / "Run with --help for more information.") and exits with
// its own codes (109 for an unknown option); ours print "<tool>: <line>" and
// exit 2, like every other usage error.
//
//   CLI::App app{"..."};  ... options ...
//   if (std::optional<int> stop = parse_or_exit(app, words, "metrics-probe", std::cout, std::cerr)) return *stop;
//
// Thread-safety: pure functions of their arguments (parse_or_exit writes to
// the given streams).
#pragma once

#include <CLI/CLI.hpp>

#include <functional>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace rangereplay::cli {

/// The exit code of a command-line usage error.
inline constexpr int kExitUsageError = 2;

/// `text` with its line breaks turned into spaces, trailing spaces removed.
std::string one_line(std::string text);

/// The option `word` names ("--x", "--x=v", "-o") among `app`'s own options
/// (not its subcommands'); nullptr when none.
const CLI::Option* option_named(const CLI::App& app, const std::string& word);

/// "unknown option 'WORD' (did you mean --NAME?); see 'HELP'": the nearest
/// of `app`'s long option names to WORD (its part before any '='), when one
/// is within plausible_typo_distance (core/base/closest_names.h); without the
/// parenthesis otherwise.
std::string unknown_option_line(const CLI::App& app, const std::string& word, const std::string& help);

/// The text for an option given no value, e.g. "--set needs a value (a set
/// name; ...)". Empty function: "<option> needs a value".
using ValueHint = std::function<std::string(const std::string& option)>;

/// One line for `error`, thrown by CLI11 while it parsed `words` (words[0] is
/// the program name) with `apps`: the app and those of its subcommands whose
/// options may appear, looked up in order; apps.front() holds the unparsed
/// words of an ExtrasError. `help` is the command that prints the help
/// ("metrics-probe --help"). The lines:
///   unknown option '--bogus'; see 'metrics-probe --help'       (an unknown option)
///   unexpected 'word'; see 'metrics-probe --help'              (a stray word)
///   --list takes no value; write --list alone                  (a flag given "=value")
///   --chip needs a value                                       (or value_hint's text)
///   --chip was given 2 times; give it once (see 'metrics-probe --help')
///   <CLI11's message on one line>; see 'metrics-probe --help'  (anything else)
std::string cli11_error_line(const CLI::ParseError& error, const std::vector<const CLI::App*>& apps,
                             const std::vector<std::string>& words, const std::string& help,
                             const ValueHint& value_hint = nullptr);

/// Parses `words` (words[0] is the program name) with `app` for a tool whose
/// messages read "<program>: <line>". Returns the exit code when the tool
/// should stop: 0 after the help on `out` (--help); kExitUsageError after the
/// help on `err` when no argument was given; kExitUsageError after one line
/// (cli11_error_line, help "<program> --help") on `err` for a parse error.
/// nullopt: parsed, go on.
std::optional<int> parse_or_exit(CLI::App& app, const std::vector<std::string>& words, const std::string& program,
                                 std::ostream& out, std::ostream& err);

}  // namespace rangereplay::cli
