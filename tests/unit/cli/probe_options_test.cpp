// metrics-probe's command line: no argument prints the usage on stderr and
// exits 2; parse errors are one line through the launcher's CLI11 error
// handling (cli11_errors.h), exit 2, never CLI11's two lines and exit 109.
#include "metrics-probe/probe_options.h"

#include <gtest/gtest.h>

#include <sstream>

#include "cli/cli11_errors.h"

namespace rangereplay::probe {
namespace {

struct ProbeRun {
  ProbeCommandLine command_line;
  std::string out;
  std::string err;
};

ProbeRun run(std::vector<std::string> args) {
  args.insert(args.begin(), "metrics-probe");
  std::ostringstream out, err;
  ProbeRun r{parse_probe_options(args, out, err), "", ""};
  r.out = out.str();
  r.err = err.str();
  return r;
}

TEST(ProbeOptions, no_argument_prints_the_usage_on_stderr_and_exits_2) {
  const ProbeRun r = run({});
  EXPECT_EQ(r.command_line.exit_code, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err.rfind("Ask CUPTI's profiler host API about a chip's metrics (no GPU needed)\nUsage: metrics-probe "
                        "[OPTIONS]\n",
                        0),
            0u)
      << r.err;
  EXPECT_NE(r.err.find("--list-all"), std::string::npos);
}

TEST(ProbeOptions, an_unknown_option_is_one_line_and_exits_2) {
  const ProbeRun r = run({"--bogus"});
  EXPECT_EQ(r.command_line.exit_code, 2);
  EXPECT_EQ(r.err, "metrics-probe: unknown option '--bogus'; see 'metrics-probe --help'\n");
  EXPECT_EQ(run({"--sets", "--bogus=1"}).err,
            "metrics-probe: unknown option '--bogus=1'; see 'metrics-probe --help'\n");
}

TEST(ProbeOptions, other_usage_errors_are_one_line_naming_the_fix) {
  EXPECT_EQ(run({"--sets", "stray"}).err, "metrics-probe: unexpected 'stray'; see 'metrics-probe --help'\n");
  EXPECT_EQ(run({"--sets", "--chip"}).err, "metrics-probe: --chip needs a value\n");
  EXPECT_EQ(run({"--list=maybe"}).err, "metrics-probe: --list takes no value; write --list alone\n");
  EXPECT_EQ(run({"--sets", "--chip", "GH100", "--chip", "AD102"}).err,
            "metrics-probe: --chip was given 2 times; give it once (see 'metrics-probe --help')\n");
  const ProbeRun r = run({"--chip", "GH100"});
  EXPECT_EQ(r.command_line.exit_code, 2);
  EXPECT_EQ(r.err,
            "metrics-probe: nothing to show; give --list, --list-all, --sets, --metrics LIST or --set NAME (see "
            "'metrics-probe --help')\n");
}

TEST(ProbeOptions, the_installed_probe_names_itself_by_how_it_was_invoked) {
  std::ostringstream out, err;
  const ProbeCommandLine cl = parse_probe_options({"/opt/rr/bin/rangereplay-metrics-probe", "--bogus"}, out, err);
  EXPECT_EQ(cl.program, "rangereplay-metrics-probe");
  EXPECT_EQ(err.str(), "rangereplay-metrics-probe: unknown option '--bogus'; see 'rangereplay-metrics-probe --help'\n");
  std::ostringstream help_out, help_err;
  parse_probe_options({"rangereplay-metrics-probe", "--help"}, help_out, help_err);
  EXPECT_NE(help_out.str().find("Usage: rangereplay-metrics-probe [OPTIONS]"), std::string::npos) << help_out.str();
  std::ostringstream none_out, none_err;
  parse_probe_options({"bin/rangereplay-metrics-probe", "--chip", "GH100"}, none_out, none_err);
  EXPECT_EQ(none_err.str(),
            "rangereplay-metrics-probe: nothing to show; give --list, --list-all, --sets, --metrics LIST or --set "
            "NAME (see 'rangereplay-metrics-probe --help')\n");
}

TEST(ProbeOptions, program_name_is_the_basename_of_the_first_word) {
  EXPECT_EQ(program_name({"./build/tools/metrics-probe/metrics-probe"}), "metrics-probe");
  EXPECT_EQ(program_name({"rangereplay-metrics-probe", "--sets"}), "rangereplay-metrics-probe");
  EXPECT_EQ(program_name({}), "rangereplay-metrics-probe");
  EXPECT_EQ(program_name({"dir/"}), "rangereplay-metrics-probe");
}

TEST(ProbeOptions, help_goes_to_stdout_and_exits_0) {
  const ProbeRun r = run({"--help"});
  EXPECT_EQ(r.command_line.exit_code, 0);
  EXPECT_EQ(r.err, "");
  EXPECT_NE(r.out.find("Usage: metrics-probe [OPTIONS]"), std::string::npos) << r.out;
}

TEST(ProbeOptions, two_modes_at_once_are_one_line_not_one_dropped) {
  const std::string line =
      "metrics-probe: give one of --list, --list-all, --sets, or --metrics/--set (with --each), not several; run the "
      "probe once for each\n";
  for (const std::vector<std::string>& words : {std::vector<std::string>{"--sets", "--list-all"},
                                                {"--sets", "--set", "full"},
                                                {"--list", "--metrics", "a.sum"}}) {
    const ProbeRun r = run(words);
    EXPECT_EQ(r.command_line.exit_code, 2) << words[0] << " " << words[1];
    EXPECT_EQ(r.err, line);
  }
  // --metrics and --set together are one question: the set's names and these.
  EXPECT_EQ(run({"--set", "basic", "--metrics", "a.sum"}).command_line.exit_code, std::nullopt);
}

TEST(ProbeOptions, a_valid_command_line_goes_on_with_its_options) {
  const ProbeRun r = run({"--chip", "AD102", "--set", "full", "--each"});
  EXPECT_EQ(r.command_line.exit_code, std::nullopt);
  EXPECT_EQ(r.err, "");
  EXPECT_EQ(r.command_line.options.chip, "AD102");
  EXPECT_EQ(r.command_line.options.set_name, "full");
  EXPECT_TRUE(r.command_line.options.each);
  EXPECT_FALSE(r.command_line.options.list);
  const ProbeRun sets = run({"--sets"});
  EXPECT_EQ(sets.command_line.exit_code, std::nullopt);
  EXPECT_EQ(sets.command_line.options.chip, "GH100");
  EXPECT_TRUE(sets.command_line.options.sets);
}

TEST(Cli11Errors, one_line_joins_lines_and_drops_trailing_spaces) {
  EXPECT_EQ(cli::one_line("a\nb \n"), "a b");
  EXPECT_EQ(cli::one_line(""), "");
  EXPECT_EQ(cli::one_line("\n\n"), "");
}

}  // namespace
}  // namespace rangereplay::probe
