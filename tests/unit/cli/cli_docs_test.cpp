// The man page and shell completions generated from a CLI11 table
// (cli/cli_docs.h), on a small table and on the launcher's own.
#include "cli/cli_docs.h"

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "cli/cli_options.h"
#include "cli/gpu_probe.h"

namespace rangereplay::cli {
namespace {

std::optional<std::string> no_env(const std::string&) { return std::nullopt; }

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// prog: a flag, a value option with choices, a file option with a short
// name, a repeatable option, a hidden option, and a subcommand with a
// positional; `run` takes a command after its options.
struct SmallApp {
  SmallApp() : app("prog: does things. More words here.", "prog") {
    app.add_flag("--dry-run", dry_run, "Do nothing");
    app.add_option("--mode", mode, "How to do it")->type_name("fast|slow");
    app.add_option("--secret", secret, "Not for users")->group("");
    CLI::App* show = app.add_subcommand("show", "Show a file: show <file>");
    show->add_option("file", file, "The file to show")->required();
    show->add_option("-o,--output", output, "Write to PATH")->type_name("PATH");
    show->footer(".dot at the start\nback\\slash");
    CLI::App* run = app.add_subcommand("run", "Run a command");
    run->prefix_command();
    run->add_option("--tag", tags, "A tag (repeatable)")
        ->type_name("TAG")
        ->expected(1)
        ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  }
  CLI::App app;
  bool dry_run = false;
  std::string mode, secret, file, output;
  std::vector<std::string> tags;
};

TEST(CliDocs, man_page_names_every_visible_option_escaped_for_roff) {
  SmallApp s;
  const std::string page = man_page(s.app, "prog 1.2.3");
  EXPECT_TRUE(contains(page, ".TH PROG 1 \"\" \"prog 1.2.3\" \"User Commands\"\n")) << page;
  EXPECT_TRUE(contains(page, ".SH NAME\nprog \\- does things\n")) << page;
  EXPECT_TRUE(contains(page, "\\fBprog\\fR \\fBshow\\fR [\\fIoptions\\fR] \\fIfile\\fR\n")) << page;
  EXPECT_TRUE(contains(page, "\\fBprog\\fR \\fBrun\\fR [\\fIoptions\\fR] [\\fB\\-\\-\\fR] \\fIcommand\\fR")) << page;
  EXPECT_TRUE(contains(page, ".TP\n\\fB\\-\\-dry\\-run\\fR\nDo nothing\n")) << page;
  EXPECT_TRUE(contains(page, ".TP\n\\fB\\-\\-mode\\fR \\fIfast|slow\\fR\nHow to do it\n")) << page;
  EXPECT_TRUE(contains(page, ".SS show\n")) << page;
  EXPECT_TRUE(contains(page, ".TP\n\\fB\\-o\\fR, \\fB\\-\\-output\\fR \\fIPATH\\fR\nWrite to PATH\n")) << page;
  EXPECT_TRUE(contains(page, ".TP\n\\fIfile\\fR\nThe file to show\n")) << page;
  // The description says "repeatable" already: not said twice.
  EXPECT_TRUE(contains(page, "A tag (repeatable)\n")) << page;
  // A footer line starting with '.' is text, not a request; '\' is escaped.
  EXPECT_TRUE(contains(page, ".nf\n\\&.dot at the start\nback\\eslash\n.fi\n")) << page;
  EXPECT_FALSE(contains(page, "secret")) << page;
}

TEST(CliDocs, bash_completion_offers_commands_options_and_choices) {
  SmallApp s;
  const std::string script = bash_completion(s.app);
  EXPECT_TRUE(contains(script, "complete -o bashdefault -o default -F _prog prog\n")) << script;
  EXPECT_TRUE(contains(script, "compgen -W 'show run' -- \"$cur\"")) << script;
  EXPECT_TRUE(contains(script, "    ' --mode') COMPREPLY=($(compgen -W 'fast slow' -- \"$cur\")); return 0 ;;\n"))
      << script;
  EXPECT_TRUE(contains(script, "    'show -o' | 'show --output') COMPREPLY=($(compgen -f -- \"$cur\")); return 0 ;;\n"))
      << script;
  EXPECT_TRUE(contains(script, "    '') words='-h --help --dry-run --mode' ;;\n")) << script;
  EXPECT_TRUE(contains(script, "    'run') words='-h --help --tag' ;;\n")) << script;
  // Only `run` starts a command at its first word that is not an option's.
  EXPECT_TRUE(contains(script, "    case $cmd in run)\n")) << script;
  EXPECT_FALSE(contains(script, "secret")) << script;
}

TEST(CliDocs, zsh_completion_has_one_arguments_call_per_command) {
  SmallApp s;
  const std::string script = zsh_completion(s.app);
  EXPECT_EQ(script.rfind("#compdef prog\n", 0), 0u) << script;
  EXPECT_TRUE(contains(script, "'--mode=[How to do it]:fast|slow:(fast slow)'")) << script;
  EXPECT_TRUE(contains(script, "'-o+[Write to PATH]:PATH:_files'")) << script;
  EXPECT_TRUE(contains(script, "'--output=[Write to PATH]:PATH:_files'")) << script;
  EXPECT_TRUE(contains(script, "'1:file:_files'")) << script;
  EXPECT_TRUE(contains(script, "'*--tag=[A tag (repeatable)]:TAG: '")) << script;
  EXPECT_TRUE(contains(script, "        run)\n          _arguments -S")) << script;
  EXPECT_TRUE(contains(script, "'(-)1:command:_command_names -e'")) << script;
  EXPECT_TRUE(contains(script, "        'show:Show a file\\: show <file>'\n") ||
              contains(script, "        'show:Show a file: show <file>'\n"))
      << script;
  EXPECT_FALSE(contains(script, "secret")) << script;
}

CommandLine parse_ok(std::vector<std::string> args) {
  args.insert(args.begin(), "rangereplay");
  StatusOr<CommandLine> c = parse_command_line(args, no_env);
  EXPECT_TRUE(c.ok()) << c.status().message();
  return c.ok() ? *c : CommandLine{};
}

// The launcher's own table: every subcommand and every option of `profile`
// is in the man page and the completions, the hidden generators are not.
TEST(CliDocs, the_launchers_page_and_completions_name_its_options) {
  const CommandLine man = parse_ok({"--help-man"});
  EXPECT_EQ(man.action, Action::kHelp);
  EXPECT_FALSE(man.help_is_error);
  EXPECT_TRUE(contains(man.text, ".TH RANGEREPLAY 1 \"\" \"rangereplay ")) << man.text;
  const CommandLine bash = parse_ok({"--completion", "bash"});
  const CommandLine zsh = parse_ok({"--completion=zsh"});
  for (const char* sub : {"profile", "list-metrics", "list-sets", "diff", "merge", "report"}) {
    std::string roff_sub;
    for (char c : std::string(sub)) roff_sub += c == '-' ? std::string("\\-") : std::string(1, c);
    EXPECT_TRUE(contains(man.text, ".SS " + roff_sub + "\n")) << sub;
    EXPECT_TRUE(contains(bash.text, std::string("'") + sub + "') words=")) << sub;
    EXPECT_TRUE(contains(zsh.text, std::string("        ") + sub + ")\n")) << sub;
  }
  for (std::string option : {"--nvtx-include",
                             "--nvtx-exclude",
                             "--profiler-api",
                             "--kernel-range",
                             "--metrics",
                             "--set",
                             "--range-metrics",
                             "--range-count",
                             "--skip",
                             "--range-list",
                             "--output",
                             "--csv-page",
                             "--verify",
                             "--restore",
                             "--snapshot-device-limit",
                             "--snapshot-host-limit",
                             "--cache-control",
                             "--batch-ranges",
                             "--collectives",
                             "--rendezvous",
                             "--replay-mode",
                             "--fallback",
                             "--max-app-runs",
                             "--quiet"}) {
    std::string roff_name;
    for (char c : option) roff_name += c == '-' ? std::string("\\-") : std::string(1, c);
    EXPECT_TRUE(contains(man.text, "\\fB" + roff_name + "\\fR")) << option;
    EXPECT_TRUE(contains(bash.text, " " + option + " ") || contains(bash.text, " " + option + "'")) << option;
    EXPECT_TRUE(contains(zsh.text, "'" + option + "[") || contains(zsh.text, "'" + option + "=[") ||
                contains(zsh.text, "'*" + option + "=["))
        << option;
  }
  EXPECT_TRUE(contains(bash.text, "'profile --restore') COMPREPLY=($(compgen -W 'full differential'")) << bash.text;
  // "N|off" names a number or off: no word list (the shell would offer "N").
  EXPECT_FALSE(contains(bash.text, "'profile --batch-ranges') COMPREPLY")) << bash.text;
  EXPECT_FALSE(contains(zsh.text, "(N off)")) << zsh.text;
  EXPECT_TRUE(contains(man.text, "\\fB\\-\\-batch\\-ranges\\fR \\fIN|off\\fR")) << man.text;
  // The hidden generators are in none of them.
  EXPECT_TRUE(contains(bash.text, "    '') words='-h --help --list-metrics --list-sets --version' ;;\n")) << bash.text;
  EXPECT_FALSE(contains(man.text, "\\fB\\-\\-help\\-man") || contains(man.text, "\\fB\\-\\-completion")) << man.text;
  EXPECT_FALSE(contains(zsh.text, "'--help-man") || contains(zsh.text, "'--completion")) << zsh.text;
}

TEST(CliDocs, completion_needs_bash_or_zsh) {
  StatusOr<CommandLine> c = parse_command_line({"rangereplay", "--completion", "fish"}, no_env);
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().message(), "--completion 'fish': give bash or zsh");
  c = parse_command_line({"rangereplay", "--help-man", "--version"}, no_env);
  ASSERT_FALSE(c.ok());
}

// Without a GPU the driver is "no driver (...)"; with one, its CUDA version.
// It never fails (tests/unit/cli/version_test.sh plants drivers).
TEST(CliDocs, driver_version_text_names_the_driver_or_its_absence) {
  const std::string text = driver_version_text();
  EXPECT_TRUE(text.starts_with("CUDA ") || text.starts_with("no driver (")) << text;
}

}  // namespace
}  // namespace rangereplay::cli
