// Documents generated from a CLI11 option table: a man page and bash and zsh
// completion scripts. The launcher prints them for its own table
// (`rangereplay --help-man`, `rangereplay --completion bash|zsh`, hidden
// options), and the build installs what it printed, so the page and the
// completions name exactly the options the parser takes.
//
// What is read from the table: the program's and each subcommand's name,
// description and footer; each option's names, description and type name
// (a type name "a|b|c" is a list of choices, "PATH" a file name); whether it
// takes a value (expected items > 0), repeats (MultiOptionPolicy::TakeAll) or
// is positional. Options in the empty group are hidden, as in CLI11's help.
#pragma once

#include <CLI/CLI.hpp>

#include <string>
#include <string_view>

namespace rangereplay::cli {

/// The man(7) page of `app` (section 1): NAME, SYNOPSIS, DESCRIPTION, the
/// top-level OPTIONS, then COMMANDS with one subsection per visible
/// subcommand (its options and footer). `version` goes in the page's
/// header (e.g. "rangereplay 0.1.0"). No date: the same table gives the
/// same bytes. Text is escaped for roff (backslashes, '-', a leading '.'
/// or '\''). Thread-safe for a table nobody changes meanwhile.
std::string man_page(const CLI::App& app, std::string_view version);

/// A bash completion script for `app`: `complete -F _<name> <name>` with a
/// function that offers subcommands, then the subcommand's options; a value
/// of an option with choices completes to them, a PATH value to file names;
/// after `--` (or where an application command goes) bash's default
/// completion takes over. Thread-safe as man_page.
std::string bash_completion(const CLI::App& app);

/// A zsh completion script for `app` (#compdef, _arguments with one state
/// per subcommand; choices and PATH values as in bash_completion; a
/// prefix-command subcommand completes a command and its arguments after its
/// options). Thread-safe as man_page.
std::string zsh_completion(const CLI::App& app);

}  // namespace rangereplay::cli
