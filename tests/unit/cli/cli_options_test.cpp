// parse_command_line: argument vectors -> ProfileConfig, or the one-line error.
#include "cli/cli_options.h"

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "cli/launcher.h"
#include "temp_tree.h"

namespace rangereplay::cli {
namespace {

std::optional<std::string> no_env(const std::string&) { return std::nullopt; }
std::optional<std::string> rank_env(const std::string& name) {
  if (name == "RANK") return std::string("5");
  return std::nullopt;
}

CommandLine parse(std::vector<std::string> args, const EnvLookup& env = no_env) {
  args.insert(args.begin(), "rangereplay");
  StatusOr<CommandLine> c = parse_command_line(args, env);
  EXPECT_TRUE(c.ok()) << c.status().to_string();
  return c.ok() ? *c : CommandLine{};
}

// The texts of parsed NVTX expressions, as the user wrote them.
std::vector<std::string> texts(const std::vector<range::NvtxExpression>& expressions) {
  std::vector<std::string> out;
  for (const range::NvtxExpression& e : expressions) out.push_back(e.text);
  return out;
}

std::string error_of(std::vector<std::string> args) {
  args.insert(args.begin(), "rangereplay");
  StatusOr<CommandLine> c = parse_command_line(args, no_env);
  EXPECT_FALSE(c.ok());
  if (c.ok()) return "";
  EXPECT_EQ(c.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(c.status().message().find('\n'), std::string::npos) << "errors are one line";
  return c.status().message();
}

TEST(CliOptions, minimal_profile_uses_defaults_and_the_basic_set) {
  CommandLine c = parse({"profile", "--nvtx-include", "step/", "--", "./app", "a", "-b"});
  ASSERT_EQ(c.action, Action::kProfile);
  const ProfileRequest& r = c.profile;
  EXPECT_EQ(texts(r.config.nvtx_include), (std::vector<std::string>{"step/"}));
  EXPECT_TRUE(r.config.nvtx_exclude.empty());
  EXPECT_FALSE(r.config.profiler_api);
  EXPECT_FALSE(r.config.kernel_windows.has_value());
  EXPECT_EQ(r.config.ranges, range::RangeSelector());
  EXPECT_EQ(r.config.ranges.to_string(), "0-");
  EXPECT_EQ(r.config.range_count, 0u);
  EXPECT_TRUE(r.config.metrics.empty());
  EXPECT_EQ(r.config.range_metrics, RangeMetrics::kPerKernel);
  EXPECT_FALSE(r.config.verify);
  EXPECT_EQ(r.config.restore, RestoreMode::kDifferential);
  EXPECT_EQ(r.config.snapshot_device_limit, 0u);
  EXPECT_EQ(r.config.snapshot_host_limit, 0u);
  EXPECT_EQ(r.config.batch_ranges, 16u);  // batched by default
  EXPECT_EQ(r.config.report_path, "");
  EXPECT_FALSE(r.config.quiet);
  EXPECT_EQ(r.config.command, (std::vector<std::string>{"./app", "a", "-b"}));
  EXPECT_EQ(r.metrics_csv, "");
  EXPECT_EQ(r.set_name, "basic");
  EXPECT_EQ(r.output_pattern, "");
}

TEST(CliOptions, every_profile_option_reaches_the_config) {
  CommandLine c = parse({"profile",
                         "--nvtx-include",
                         "A/",
                         "--nvtx-include=D@B/C",
                         "--nvtx-exclude",
                         "warm/",
                         "--metrics",
                         "dram__bytes_read.sum,smsp__inst_executed.sum",
                         "--set",
                         "full",
                         "--range-metrics",
                         "whole",
                         "--range-count",
                         "3",
                         "--skip",
                         "2",
                         "--output",
                         "run_%p.csv",
                         "--verify",
                         "--restore",
                         "full",
                         "--cache-control",
                         "all",
                         "--batch-ranges",
                         "4",
                         "--collectives",
                         "replay",
                         "--rendezvous",
                         "10.0.0.1:29501",
                         "--snapshot-device-limit",
                         "512MiB",
                         "--snapshot-host-limit",
                         "6GB",
                         "--quiet",
                         "--",
                         "python",
                         "train.py",
                         "--",
                         "--epochs",
                         "1"});
  ASSERT_EQ(c.action, Action::kProfile);
  const ProfileRequest& r = c.profile;
  EXPECT_EQ(texts(r.config.nvtx_include), (std::vector<std::string>{"A/", "D@B/C"}));
  EXPECT_EQ(texts(r.config.nvtx_exclude), (std::vector<std::string>{"warm/"}));
  EXPECT_FALSE(r.config.profiler_api);
  EXPECT_FALSE(r.config.kernel_windows.has_value());
  EXPECT_EQ(r.metrics_csv, "dram__bytes_read.sum,smsp__inst_executed.sum");
  EXPECT_EQ(r.set_name, "full");
  EXPECT_EQ(r.config.range_metrics, RangeMetrics::kWholeRange);
  EXPECT_EQ(r.config.range_count, 3u);
  EXPECT_EQ(r.config.ranges.to_string(), "2-4");  // --skip 2 --range-count 3
  EXPECT_EQ(r.output_pattern, "run_%p.csv");
  EXPECT_EQ(r.output_format, OutputFormat::kCsv);
  EXPECT_TRUE(r.config.verify);
  EXPECT_EQ(r.config.restore, RestoreMode::kFull);
  EXPECT_EQ(r.config.cache_control, CacheControl::kAll);
  EXPECT_EQ(r.config.batch_ranges, 4u);
  EXPECT_EQ(r.config.collectives, CollectivesMode::kReplay);
  EXPECT_EQ(r.config.rendezvous, "10.0.0.1:29501");
  EXPECT_EQ(r.config.snapshot_device_limit, 512ull << 20);
  EXPECT_EQ(r.config.snapshot_host_limit, 6000000000ull);
  EXPECT_TRUE(r.config.quiet);
  // Everything after the first "--" is the application's, a second "--" included.
  EXPECT_EQ(r.config.command, (std::vector<std::string>{"python", "train.py", "--", "--epochs", "1"}));
}

TEST(CliOptions, metrics_alone_selects_no_set) {
  CommandLine c = parse({"profile", "--profiler-api", "--metrics", "a.sum", "--", "./app"});
  EXPECT_EQ(c.profile.metrics_csv, "a.sum");
  EXPECT_EQ(c.profile.set_name, "");
}

TEST(CliOptions, application_may_follow_the_last_option_without_dashes) {
  CommandLine c = parse({"profile", "--nvtx-include", "s/", "--quiet", "./app", "--quiet", "-x"});
  EXPECT_EQ(c.profile.config.command, (std::vector<std::string>{"./app", "--quiet", "-x"}));
  EXPECT_TRUE(c.profile.config.quiet);
}

TEST(CliOptions, dashes_after_the_application_belong_to_it) {
  CommandLine c = parse({"profile", "--nvtx-include", "s/", "./app", "--", "x"});
  EXPECT_EQ(c.profile.config.command, (std::vector<std::string>{"./app", "--", "x"}));
}

TEST(CliOptions, each_nvtx_include_takes_exactly_one_expression) {
  CommandLine c = parse({"profile", "--nvtx-include", "a/", "./app", "b/"});
  EXPECT_EQ(texts(c.profile.config.nvtx_include), (std::vector<std::string>{"a/"}));
  EXPECT_EQ(c.profile.config.command, (std::vector<std::string>{"./app", "b/"}));
}

TEST(CliOptions, output_expands_percent_q_from_the_environment_to_check_it) {
  CommandLine c = parse({"profile", "--profiler-api", "-o", "r%q{RANK}.json", "--", "./app"}, rank_env);
  EXPECT_EQ(c.profile.output_pattern, "r%q{RANK}.json");  // expanded again after launch, with the pid
  EXPECT_EQ(c.profile.output_format, OutputFormat::kJson);
}

TEST(CliOptions, no_range_selection_is_an_error_naming_the_options) {
  EXPECT_EQ(error_of({"profile", "--", "./app"}),
            "no range selected; give --nvtx-include EXPR, --profiler-api or --kernel-range A:B");
}

TEST(CliOptions, a_one_value_option_given_twice_is_named_with_the_fix) {
  EXPECT_EQ(error_of({"profile", "--profiler-api", "--set", "basic", "--set", "full", "--", "./app"}),
            "--set was given 2 times; give it once (see 'rangereplay profile --help')");
  EXPECT_EQ(error_of({"profile", "--profiler-api", "--skip", "1", "--skip", "2", "--", "./app"}),
            "--skip was given 2 times; give it once (see 'rangereplay profile --help')");
}

TEST(CliOptions, range_options_after_the_application_are_named_in_the_error) {
  EXPECT_EQ(error_of({"profile", "/bin/ls", "--nvtx-include", "step/"}),
            "no range selected; give --nvtx-include EXPR, --profiler-api or --kernel-range A:B ('--nvtx-include' "
            "comes after the application '/bin/ls', so it is the application's argument: put rangereplay's options "
            "before the application, e.g. profile --nvtx-include step/ -- ./app)");
}

TEST(CliOptions, kernel_range_alone_is_a_range_selection) {
  CommandLine c = parse({"profile", "--kernel-range", "0:1", "--", "./app"});
  ASSERT_TRUE(c.profile.config.kernel_windows.has_value());
  EXPECT_EQ(std::vector<range::KernelWindow>(c.profile.config.kernel_windows->windows().begin(),
                                             c.profile.config.kernel_windows->windows().end()),
            (std::vector<range::KernelWindow>{{0, 1}}));
}

TEST(CliOptions, missing_application_is_an_error) {
  EXPECT_EQ(error_of({"profile", "--profiler-api"}),
            "no application given; write 'rangereplay profile [options] -- <app> [args]'");
  EXPECT_EQ(error_of({"profile", "--profiler-api", "--"}),
            "no application given; write 'rangereplay profile [options] -- <app> [args]'");
  EXPECT_EQ(error_of({"profile", "--nvtx-include", "step/", "--", ""}),
            "the application name is empty; write 'rangereplay profile [options] -- <app> [args]'");
}

// With several faults, the first in checking order is reported: the
// application, empty values, the range source, the range numbers, the metric
// selection, the replay options, the output name.
TEST(CliOptions, the_first_fault_in_checking_order_is_reported) {
  EXPECT_EQ(error_of({"profile", "--profiler-api", "--range-list", "1", "--skip", "2"}),
            "no application given; write 'rangereplay profile [options] -- <app> [args]'");
  EXPECT_EQ(error_of({"profile", "--range-metrics", "none"}),
            "no application given; write 'rangereplay profile [options] -- <app> [args]'");
  EXPECT_EQ(error_of({"profile", "--restore", "bad", "--metrics", "", "--", "./app"}),
            "--metrics needs a value (metric names separated by commas, e.g. dram__bytes_read.sum)");
  EXPECT_EQ(error_of({"profile", "--kernel-range", "5", "--nvtx-include", "A//B", "--", "./app"}),
            "--nvtx-include 'A//B': empty range name at column 3; write A/B");
  EXPECT_EQ(error_of({"profile", "--range-list", "1", "--skip", "2", "--", "./app"}),
            "no range selected; give --nvtx-include EXPR, --profiler-api or --kernel-range A:B");
  EXPECT_EQ(error_of({"profile", "--profiler-api", "--range-list", "1", "--skip", "2", "--set", "nope", "--", "./app"}),
            "--range-list cannot be combined with --skip or --range-count; use one or the other");
  EXPECT_EQ(error_of({"profile", "--profiler-api", "--set", "nope", "--restore", "bad", "--", "./app"}),
            "unknown set 'nope'; 'rangereplay --list-sets' lists the sets");
  EXPECT_EQ(error_of({"profile", "--profiler-api", "--restore", "bad", "--range-metrics", "bad", "--", "./app"}),
            "--range-metrics must be kernel or whole, not 'bad'");
  EXPECT_EQ(error_of({"profile", "--profiler-api", "--snapshot-device-limit", "0", "-o", "x.txt", "--", "./app"}),
            "--snapshot-device-limit 0 is below the minimum of 4KiB (one page, the smallest snapshot buffer); give "
            "4KiB or more, or leave it out for no cap");
}

TEST(CliOptions, snapshot_limits_below_a_page_are_refused) {
  EXPECT_EQ(error_of({"profile", "--profiler-api", "--snapshot-device-limit", "1", "--", "./app"}),
            "--snapshot-device-limit 1 is below the minimum of 4KiB (one page, the smallest snapshot buffer); give "
            "4KiB or more, or leave it out for no cap");
  EXPECT_EQ(error_of({"profile", "--profiler-api", "--snapshot-host-limit", "4095", "--", "./app"}),
            "--snapshot-host-limit 4095 is below the minimum of 4KiB (one page, the smallest snapshot buffer); give "
            "4KiB or more, or leave it out for no cap");
  for (const char* size : {"4096", "4KiB", "64KiB"}) {
    StatusOr<CommandLine> c = parse_command_line(
        {"rangereplay", "profile", "--profiler-api", "--snapshot-device-limit", size, "--", "./app"}, no_env);
    ASSERT_TRUE(c.ok()) << size << ": " << c.status().message();
    EXPECT_GE(c->profile.config.snapshot_device_limit, kMinSnapshotLimitBytes);
  }
}

TEST(CliOptions, unknown_options_and_missing_values_are_errors) {
  EXPECT_EQ(error_of({"profile", "--profiler-api", "--bogus", "./app"}),
            "unknown option '--bogus'; see 'rangereplay profile --help'");
  EXPECT_EQ(error_of({"profile", "--nvtx-include"}), "--nvtx-include needs a value (an NVTX expression, e.g. step/)");
}

TEST(CliOptions, cli11_wording_is_replaced_by_one_line_with_the_fix) {
  // A missing value (end of the options, or another option next).
  EXPECT_EQ(error_of({"profile", "--profiler-api", "--restore"}), "--restore needs a value (full or differential)");
  EXPECT_EQ(error_of({"profile", "--profiler-api", "--restore", "--", "./app"}),
            "--restore needs a value (full or differential)");
  EXPECT_EQ(error_of({"profile", "--nvtx-include", "--", "./app"}),
            "--nvtx-include needs a value (an NVTX expression, e.g. step/)");
  EXPECT_EQ(error_of({"profile", "--nvtx-exclude", "--", "./app"}),
            "--nvtx-exclude needs a value (an NVTX expression, e.g. warmup/)");
  EXPECT_EQ(error_of({"profile", "--profiler-api", "-o"}),
            "--output needs a value (a file name ending in .json, .csv or .html)");
  EXPECT_EQ(error_of({"profile", "--profiler-api", "--set"}),
            "--set needs a value (a set name; 'rangereplay --list-sets' lists them)");
  // A flag given a value.
  EXPECT_EQ(error_of({"profile", "--profiler-api", "--verify=maybe", "--", "./app"}),
            "--verify takes no value; write --verify alone");
  // The list commands take nothing.
  EXPECT_EQ(error_of({"list-sets", "--verbose"}), "list-sets takes no options; write 'rangereplay list-sets'");
  EXPECT_EQ(error_of({"list-sets", "memory"}), "list-sets takes no arguments; write 'rangereplay list-sets'");
  EXPECT_EQ(error_of({"list-metrics", "--chip", "GH100"}),
            "list-metrics takes no options; write 'rangereplay list-metrics'");
  // An unknown option before any command.
  EXPECT_EQ(error_of({"--bogus"}), "unknown option '--bogus'; see 'rangereplay --help'");
}

TEST(CliOptions, a_profile_option_without_profile_shows_the_command_with_it) {
  EXPECT_EQ(error_of({"--nvtx-include", "step/", "--", "app"}),
            "--nvtx-include is an option of `profile`: write 'rangereplay profile --nvtx-include step/ -- app'");
  EXPECT_EQ(error_of({"--verify", "--kernel-range=0:4", "./app", "a b"}),
            "--verify is an option of `profile`: write 'rangereplay profile --verify --kernel-range=0:4 ./app 'a b''");
  EXPECT_EQ(error_of({"-o", "r.json", "--profiler-api", "--", "./app", "it's"}),
            "-o is an option of `profile`: write 'rangereplay profile -o r.json --profiler-api -- ./app 'it'\\''s''");
}

TEST(CliOptions, a_commands_option_before_the_command_shows_the_command_with_it_after) {
  EXPECT_EQ(error_of({"--set", "full", "profile", "--", "./app"}),
            "--set is an option of `profile` and goes after it: write 'rangereplay profile --set full -- ./app'");
  EXPECT_EQ(error_of({"--page", "summary", "report", "x.json"}),
            "--page is an option of `report` and goes after it: write 'rangereplay report --page summary x.json'");
  EXPECT_EQ(error_of({"-o", "job.json", "merge", "a.json", "b.json"}),
            "-o is an option of `merge` and goes after it: write 'rangereplay merge -o job.json a.json b.json'");
}

TEST(CliOptions, a_missing_report_is_named_as_what_the_command_needs) {
  EXPECT_EQ(error_of({"report"}),
            "report needs the report to read: write 'rangereplay report <x.json>' (or a killed run's "
            "<report.PID.journal>)");
  EXPECT_EQ(error_of({"diff"}),
            "diff needs two reports, the base first: write 'rangereplay diff <base.json> <new.json>'");
  EXPECT_EQ(error_of({"diff", "a.json"}),
            "diff needs two reports, the base first: write 'rangereplay diff <base.json> <new.json>'");
  // An option CLI11 leaves unnamed in its message is named from the line.
  EXPECT_EQ(error_of({"--completion"}), "--completion needs a value");
}

TEST(CliOptions, a_regex_that_begins_with_a_bracket_warns_that_the_bracket_is_the_stack_anchor) {
  const auto warnings = [](const std::string& include, const std::string& exclude = "") {
    std::vector<std::string> words{"profile", "--nvtx-include", include};
    if (!exclude.empty()) words.insert(words.end(), {"--nvtx-exclude", exclude});
    words.insert(words.end(), {"--", "./app"});
    return nvtx_expression_warnings(parse(words).profile.config);
  };
  EXPECT_EQ(warnings("regex:[0-9]+_step/"),
            std::vector<std::string>{"--nvtx-include 'regex:[0-9]+_step/': the '[' anchors the range at the bottom of "
                                     "the NVTX stack, as in a plain expression; for a character class write "
                                     "'regex:/[0-9]+_step/'"});
  EXPECT_EQ(warnings("step/", "regex:io@[a-z]+"),
            std::vector<std::string>{"--nvtx-exclude 'regex:io@[a-z]+': the '[' anchors the range at the bottom of "
                                     "the NVTX stack, as in a plain expression; for a character class write "
                                     "'regex:io@/[a-z]+'"});
  // A class that ends the pattern: its ']' is the top anchor too, written '/]'.
  EXPECT_EQ(warnings("regex:[0-9]"),
            std::vector<std::string>{"--nvtx-include 'regex:[0-9]': the '[' anchors the range at the bottom of the "
                                     "NVTX stack, as in a plain expression; for a character class write "
                                     "'regex:/[0-9/]'"});
  // A class written as one, anchors before a name or a class, a plain anchored
  // expression and a class later on: nothing to say.
  EXPECT_TRUE(warnings("regex:/[0-9]+/").empty());
  EXPECT_TRUE(warnings("regex:[step_.*/").empty());
  EXPECT_TRUE(warnings("regex:[[0-9]+/").empty());
  EXPECT_TRUE(warnings("[step/").empty());
  EXPECT_TRUE(warnings("regex:step_[0-9]+/").empty());
}

TEST(CliOptions, metric_names_are_separated_by_commas) {
  EXPECT_EQ(
      error_of({"profile", "--profiler-api", "--metrics", "dram__bytes_read.sum dram__bytes_write.sum", "--", "./app"}),
      "--metrics: metric names are separated by commas, not spaces or ';': write "
      "'dram__bytes_read.sum,dram__bytes_write.sum'");
  EXPECT_EQ(
      error_of({"profile", "--profiler-api", "--metrics", "dram__bytes_read.sum;dram__bytes_write.sum", "--", "./app"}),
      "--metrics: metric names are separated by commas, not spaces or ';': write "
      "'dram__bytes_read.sum,dram__bytes_write.sum'");
  EXPECT_EQ(error_of({"profile", "--profiler-api", "--metrics", "a.sum; b.sum,c.sum  d.sum", "--", "./app"}),
            "--metrics: metric names are separated by commas, not spaces or ';': write 'a.sum,b.sum,c.sum,d.sum'");
  // Spaces around commas are fine.
  EXPECT_EQ(parse({"profile", "--profiler-api", "--metrics", " a.sum, b.sum ", "--", "./app"}).profile.metrics_csv,
            " a.sum, b.sum ");
}

TEST(CliOptions, nvtx_options_take_one_expression_each_and_repeat) {
  const std::string text = parse({"profile", "--help"}).text;
  EXPECT_NE(text.find("--nvtx-include EXPR  "), std::string::npos) << text;
  EXPECT_NE(text.find("--nvtx-exclude EXPR  "), std::string::npos) << text;
  EXPECT_EQ(text.find("EXPR ..."), std::string::npos) << text;
  CommandLine c = parse({"profile", "--nvtx-include", "A/", "--nvtx-include", "B/", "--nvtx-exclude", "C/",
                         "--nvtx-exclude=D/", "--", "./app"});
  EXPECT_EQ(texts(c.profile.config.nvtx_include), (std::vector<std::string>{"A/", "B/"}));
  EXPECT_EQ(texts(c.profile.config.nvtx_exclude), (std::vector<std::string>{"C/", "D/"}));
  // The word after the expression is the application, not a second expression.
  EXPECT_EQ(parse({"profile", "--nvtx-include", "A/", "./app"}).profile.config.command,
            (std::vector<std::string>{"./app"}));
}

TEST(CliOptions, sizes_are_checked) {
  EXPECT_EQ(error_of({"profile", "--profiler-api", "--snapshot-device-limit", "5XB", "--", "./app"}),
            "--snapshot-device-limit: bad size '5XB': expected bytes (4096) or a number with a unit (512MiB, "
            "1.5GiB, 6GB; units B, KB, MB, GB, TB, KiB, MiB, GiB, TiB)");
  EXPECT_EQ(error_of({"profile", "--profiler-api", "--snapshot-host-limit", "0", "--", "./app"}),
            "--snapshot-host-limit 0 is below the minimum of 4KiB (one page, the smallest snapshot buffer); give "
            "4KiB or more, or leave it out for no cap");
  EXPECT_NE(error_of({"profile", "--profiler-api", "--snapshot-host-limit", "99999999999TiB", "--", "./app"})
                .find("is larger than 2^64 - 1 bytes"),
            std::string::npos);
}

TEST(CliOptions, counts_are_checked) {
  EXPECT_EQ(error_of({"profile", "--profiler-api", "--skip", "-1", "--", "./app"}),
            "--skip '-1' is not a whole number from 0 to 4294967295");
  EXPECT_EQ(error_of({"profile", "--profiler-api", "--range-count", "0", "--", "./app"}),
            "--range-count 0 must be at least 1; leave it out to profile every matched range");
  EXPECT_EQ(error_of({"profile", "--profiler-api", "--range-count", "4294967296", "--", "./app"}),
            "--range-count '4294967296' is not a whole number from 1 to 4294967295");
  EXPECT_EQ(
      parse({"profile", "--profiler-api", "--skip", "4294967295", "--", "./app"}).profile.config.ranges.to_string(),
      "4294967295-");
}

TEST(CliOptions, range_list_is_checked_and_excludes_skip_and_count) {
  for (const char* list : {"2,5-7", "0", "3-"}) {
    const ProfileConfig c = parse({"profile", "--profiler-api", "--range-list", list, "--", "./app"}).profile.config;
    EXPECT_EQ(c.ranges, range::RangeSelector::parse_list(list).value()) << list;
    EXPECT_EQ(c.range_count, 0u) << list;
  }
  EXPECT_EQ(error_of({"profile", "--profiler-api", "--range-list", "2,7-5", "--", "./app"}),
            "--range-list '2,7-5': reversed span at column 3; write 5-7");
  EXPECT_EQ(error_of({"profile", "--profiler-api", "--range-list", "2,,3", "--", "./app"}),
            "--range-list '2,,3': empty item at column 3; write 2,3");
  EXPECT_EQ(error_of({"profile", "--profiler-api", "--range-list", "a", "--", "./app"}),
            "--range-list 'a': unexpected 'a' at column 1; write range numbers from 0 and spans, e.g. 2,5-7");
  EXPECT_EQ(error_of({"profile", "--profiler-api", "--range-list", "1", "--skip", "1", "--", "./app"}),
            "--range-list cannot be combined with --skip or --range-count; use one or the other");
}

TEST(CliOptions, kernel_range_is_checked_with_the_column_of_the_error) {
  EXPECT_TRUE(parse_kernel_range("0:1").ok());
  EXPECT_TRUE(parse_kernel_range("100:164").ok());
  EXPECT_TRUE(parse_kernel_range("0:10,100:164").ok());
  EXPECT_EQ(parse_kernel_range("5").status().message(),
            "--kernel-range '5': missing ':' at column 2; write FIRST:END, e.g. 5:6 for launch 5 alone");
  EXPECT_EQ(parse_kernel_range("7:7").status().message(),
            "--kernel-range '7:7': end 7 is not after first 7 at column 3; END is exclusive: write 7:8 for one "
            "launch");
  EXPECT_EQ(parse_kernel_range("9:3").status().message(),
            "--kernel-range '9:3': end 3 is not after first 9 at column 3; write 3:9");
  EXPECT_EQ(parse_kernel_range("a:3").status().message(),
            "--kernel-range 'a:3': unexpected 'a' at column 1; write FIRST:END, launch indices from 0, END "
            "exclusive, e.g. 100:164");
  EXPECT_EQ(parse_kernel_range(":3").status().message(),
            "--kernel-range ':3': unexpected ':' at column 1; write FIRST:END, launch indices from 0, END "
            "exclusive, e.g. 100:164");
  EXPECT_EQ(parse_kernel_range("-1:3").status().message(),
            "--kernel-range '-1:3': unexpected '-' at column 1; write FIRST:END, launch indices from 0, END "
            "exclusive, e.g. 100:164");
  EXPECT_EQ(parse_kernel_range("10:20,5:8").status().message(),
            "--kernel-range '10:20,5:8': window 5:8 overlaps or precedes 10:20 at column 7; list windows in "
            "ascending order without overlap");
  EXPECT_EQ(error_of({"profile", "--kernel-range", "3", "--", "./app"}),
            "--kernel-range '3': missing ':' at column 2; write FIRST:END, e.g. 3:4 for launch 3 alone");
}

TEST(CliOptions, nvtx_expressions_are_parsed_before_the_application_starts) {
  CommandLine c = parse({"profile", "--nvtx-include", "regex:^train$/fwd", "--nvtx-include", "A,B", "--nvtx-include",
                         "D@[A/*/B]", "--nvtx-exclude", "A/+/C", "--", "./app"});
  EXPECT_EQ(texts(c.profile.config.nvtx_include), (std::vector<std::string>{"regex:^train$/fwd", "A,B", "D@[A/*/B]"}));
  EXPECT_EQ(texts(c.profile.config.nvtx_exclude), (std::vector<std::string>{"A/+/C"}));
  EXPECT_EQ(error_of({"profile", "--nvtx-include", "A//B", "--", "./app"}),
            "--nvtx-include 'A//B': empty range name at column 3; write A/B");
  EXPECT_EQ(error_of({"profile", "--nvtx-include", "step/", "--nvtx-exclude", "layer[3]/", "--", "./app"}),
            "--nvtx-exclude 'layer[3]/': unescaped '[' inside a range name at column 6; '[' marks the stack "
            "bottom only as the first character; write \\[ for a literal '['");
  EXPECT_EQ(error_of({"profile", "--nvtx-include", "D1@A,D2@B", "--", "./app"}),
            "--nvtx-include 'D1@A,D2@B': second domain '@' at column 8; an expression names one domain; use one "
            "--nvtx-include per domain");
  // Our words for the regex engine's errors, not the standard library's.
  EXPECT_EQ(error_of({"profile", "--nvtx-include", "regex:x/(", "--", "./app"}),
            "--nvtx-include 'regex:x/(': regex: unbalanced parentheses in the range pattern '(' at column 9; close "
            "each '(' with ')', or write \\( for a literal '('");
  // Start/end names have no wildcards: in regex mode a lone '*' is a regex.
  EXPECT_EQ(error_of({"profile", "--nvtx-include", "regex:*", "--", "./app"}),
            "--nvtx-include 'regex:*': regex: repeat '*', '+', '?' or '{' with nothing to repeat in the range pattern "
            "'*' at column 7; put it after a character, or write \\* for a literal '*'");
  EXPECT_EQ(error_of({"profile", "--nvtx-include", "regex:a{1001}", "--", "./app"}),
            "--nvtx-include 'regex:a{1001}': regex: invalid repeat count {1001} in the range pattern 'a{1001}' at "
            "column 7; write {N}, {N,} or {N,M} with N <= M <= 1000 (RE2's largest count, also for nested repeats)");
  // What RE2 does not have is named, with the syntax rangereplay uses.
  EXPECT_EQ(error_of({"profile", "--nvtx-include", "regex:(a)\\1/", "--", "./app"}),
            "--nvtx-include 'regex:(a)\\1/': regex: backreference '\\1' (rangereplay's regex: names use RE2 "
            "syntax, which has no backreferences) in the range pattern '(a)\\1' at column 7; repeat the group's "
            "text instead, e.g. (ab)ab for (ab)\\1");
  EXPECT_EQ(error_of({"profile", "--nvtx-include", "step/", "--nvtx-exclude", "regex:fwd(?=_mm)/", "--", "./app"}),
            "--nvtx-exclude 'regex:fwd(?=_mm)/': regex: lookahead '(?=' (rangereplay's regex: names use RE2 "
            "syntax, which has no lookaround) in the range pattern 'fwd(?=_mm)' at column 7; match the text "
            "itself, or leave it to an --nvtx-exclude");
  // The first malformed expression is reported, in the order given.
  EXPECT_EQ(
      error_of({"profile", "--nvtx-include", "ok/", "--nvtx-include", "/A", "--nvtx-include", "A//", "--", "./app"}),
      "--nvtx-include '/A': empty range name at column 1; write A/");
}

TEST(CliOptions, a_30000_deep_nested_regex_is_parsed_not_a_crash) {
  // A recursive regex compiler (std::regex) overflows its stack on this pattern.
  const auto start = std::chrono::steady_clock::now();
  const std::string deep = "regex:" + std::string(30000, '(') + "step" + std::string(30000, ')') + "/";
  CommandLine c = parse({"profile", "--nvtx-include", deep, "--", "./app"});
  ASSERT_EQ(c.profile.config.nvtx_include.size(), 1u);
  EXPECT_TRUE(c.profile.config.nvtx_include[0].matches_stack(std::vector<std::string>{"train step 3"}));
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));
}

TEST(CliOptions, one_range_source_per_run) {
  const std::string message =
      "give one range source: --nvtx-include, --profiler-api or --kernel-range (ranges from different sources "
      "would overlap and be numbered separately)";
  EXPECT_EQ(error_of({"profile", "--nvtx-include", "A/", "--profiler-api", "--", "./app"}), message);
  EXPECT_EQ(error_of({"profile", "--nvtx-include", "A/", "--kernel-range", "0:4", "--", "./app"}), message);
  EXPECT_EQ(error_of({"profile", "--profiler-api", "--kernel-range", "0:4", "--", "./app"}), message);
}

TEST(CliOptions, nvtx_exclude_needs_an_nvtx_include) {
  EXPECT_EQ(error_of({"profile", "--profiler-api", "--nvtx-exclude", "warm/", "--", "./app"}),
            "--nvtx-exclude only filters --nvtx-include ranges; add --nvtx-include EXPR");
}

TEST(CliOptions, nvtx_exclude_alone_names_the_missing_nvtx_include) {
  // Not the generic "no range selected": the exclude is there, its include is not.
  EXPECT_EQ(error_of({"profile", "--nvtx-exclude", "x/", "--", "./app"}),
            "--nvtx-exclude only filters --nvtx-include ranges; add --nvtx-include EXPR");
}

TEST(CliOptions, every_option_given_an_empty_value_is_an_error) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"--metrics", "--metrics needs a value (metric names separated by commas, e.g. dram__bytes_read.sum)"},
      {"--set", "--set needs a value (a set name; 'rangereplay --list-sets' lists them)"},
      {"--snapshot-host-limit", "--snapshot-host-limit needs a value (a size, e.g. 32GiB)"},
      {"--snapshot-device-limit", "--snapshot-device-limit needs a value (a size, e.g. 8GiB)"},
      {"-o", "--output needs a value (a file name ending in .json, .csv or .html)"},
      {"--output", "--output needs a value (a file name ending in .json, .csv or .html)"},
      {"--range-list", "--range-list needs a value (matched range numbers, e.g. 2,5-7)"},
      {"--range-count", "--range-count needs a value (a whole number from 1)"},
      {"--skip", "--skip needs a value (a whole number)"},
      {"--range-metrics", "--range-metrics needs a value (kernel or whole)"},
      {"--restore", "--restore needs a value (full or differential)"},
      {"--csv-page", "--csv-page needs a value (details or raw)"},
  };
  for (const auto& [option, message] : cases) {
    EXPECT_EQ(error_of({"profile", "--profiler-api", option, "", "--", "./app"}), message) << option;
    EXPECT_EQ(error_of({"profile", "--profiler-api", option, " ", "--", "./app"}), message) << option << " blank";
  }
  EXPECT_EQ(error_of({"profile", "--profiler-api", "--metrics=", "--", "./app"}),
            "--metrics needs a value (metric names separated by commas, e.g. dram__bytes_read.sum)");
  EXPECT_EQ(error_of({"profile", "--profiler-api", "--output=", "--", "./app"}),
            "--output needs a value (a file name ending in .json, .csv or .html)");
  // After "--" the words are the application's, never ours.
  EXPECT_EQ(parse({"profile", "--profiler-api", "--", "./app", "--metrics="}).profile.config.command,
            (std::vector<std::string>{"./app", "--metrics="}));
  EXPECT_EQ(error_of({"profile", "--kernel-range", "", "--", "./app"}),
            "--kernel-range needs a value (launch windows A:B, e.g. 100:164)");
}

TEST(CliOptions, set_names_are_checked_before_the_gpu_is_asked) {
  EXPECT_EQ(error_of({"profile", "--profiler-api", "--set", "fulll", "--", "./app"}),
            "unknown set 'fulll' (closest: full); 'rangereplay --list-sets' lists the sets");
  EXPECT_EQ(error_of({"profile", "--profiler-api", "--metrics", "a.sum", "--set", "zzzzzzzzzz", "--", "./app"}),
            "unknown set 'zzzzzzzzzz'; 'rangereplay --list-sets' lists the sets");
  EXPECT_EQ(parse({"profile", "--profiler-api", "--set", "single-pass", "--", "./app"}).profile.set_name,
            "single-pass");
}

TEST(CheckSetName, known_names_pass_and_unknown_ones_get_up_to_three_closest) {
  const std::vector<std::string> sets = {"basic", "memory", "full"};
  EXPECT_TRUE(check_set_name("full", sets).ok());
  EXPECT_TRUE(check_set_name("anything", std::vector<std::string>{}).ok());  // nothing to compare against
  Status s = check_set_name("ful", sets);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(), "unknown set 'ful' (closest: full); 'rangereplay --list-sets' lists the sets");
  EXPECT_EQ(check_set_name("memroy", sets).message(),
            "unknown set 'memroy' (closest: memory); 'rangereplay --list-sets' lists the sets");
}

TEST(CheckSetName, a_name_typed_in_capitals_gets_its_lower_case_spelling) {
  const std::vector<std::string> sets = {"basic", "single-pass", "full"};
  EXPECT_EQ(check_set_name("FULL", sets).message(),
            "unknown set 'FULL'; set names are lower case: did you mean 'full'?");
  EXPECT_EQ(check_set_name("Single-Pass", sets).message(),
            "unknown set 'Single-Pass'; set names are lower case: did you mean 'single-pass'?");
  EXPECT_EQ(check_set_name("FULL", sets).code(), StatusCode::kInvalidArgument);
  // A typo in capitals gets the closest names, ignoring case.
  EXPECT_EQ(check_set_name("FULLL", sets).message(),
            "unknown set 'FULLL' (closest: full); 'rangereplay --list-sets' lists the sets");
}

TEST(CliOptions, set_full_typed_in_capitals_is_refused_with_full_suggested) {
  EXPECT_EQ(error_of({"profile", "--profiler-api", "--set", "FULL", "--", "./app"}),
            "unknown set 'FULL'; set names are lower case: did you mean 'full'?");
}

TEST(CliOptions, help_keeps_a_gap_between_every_option_and_its_description) {
  const std::string text = parse({"profile", "--help"}).text;
  EXPECT_NE(text.find("--restore full|differential  "), std::string::npos) << text;
  EXPECT_NE(text.find("--snapshot-device-limit SIZE  "), std::string::npos) << text;
  EXPECT_NE(text.find("--snapshot-host-limit SIZE  "), std::string::npos) << text;
}

TEST(CliOptions, choices_are_checked) {
  EXPECT_EQ(error_of({"profile", "--profiler-api", "--restore", "partial", "--", "./app"}),
            "--restore must be differential or full, not 'partial'");
  EXPECT_EQ(error_of({"profile", "--profiler-api", "--cache-control", "l2", "--", "./app"}),
            "--cache-control must be all or none, not 'l2'");
  EXPECT_EQ(error_of({"profile", "--profiler-api", "--range-metrics", "range", "--", "./app"}),
            "--range-metrics must be kernel or whole, not 'range'");
}

TEST(CliOptions, batch_ranges_takes_a_size_from_two_or_off) {
  const auto batch = [](std::vector<std::string> value) {
    std::vector<std::string> args = {"profile", "--profiler-api"};
    args.insert(args.end(), value.begin(), value.end());
    args.insert(args.end(), {"--", "./app"});
    return parse(args).profile.config.batch_ranges;
  };
  EXPECT_EQ(batch({}), 16u);
  EXPECT_EQ(batch({"--batch-ranges", "off"}), 0u);
  EXPECT_EQ(batch({"--batch-ranges=2"}), 2u);
  EXPECT_EQ(batch({"--batch-ranges", "10"}), 10u);
  EXPECT_EQ(batch({"--batch-ranges", "4294967295"}), 4294967295u);
}

TEST(CliOptions, batch_ranges_below_two_or_not_a_number_is_one_error_line) {
  const std::string too_small =
      " is no batch (it is the most ranges replayed together); give 2 or more, or off to replay each range at its end";
  EXPECT_EQ(error_of({"profile", "--profiler-api", "--batch-ranges", "1", "--", "./app"}),
            "--batch-ranges 1" + too_small);
  EXPECT_EQ(error_of({"profile", "--profiler-api", "--batch-ranges", "0", "--", "./app"}),
            "--batch-ranges 0" + too_small);
  for (const char* bad : {"OFF", "-3", "4x", "4294967296", "on"}) {
    EXPECT_EQ(error_of({"profile", "--profiler-api", "--batch-ranges", bad, "--", "./app"}),
              std::string("--batch-ranges '") + bad +
                  "' is neither off nor a whole number from 2 to 4294967295; give e.g. 16, or off")
        << bad;
  }
  EXPECT_EQ(error_of({"profile", "--profiler-api", "--batch-ranges=", "--", "./app"}),
            "--batch-ranges needs a value (a whole number from 2, or off)");
}

TEST(CliOptions, an_empty_metric_name_between_commas_is_an_error) {
  EXPECT_EQ(error_of({"profile", "--profiler-api", "--metrics", "dram__bytes_read.sum,,", "--", "./app"}),
            "--metrics 'dram__bytes_read.sum,,' has an empty name between commas; drop the extra comma");
  EXPECT_NE(error_of({"profile", "--profiler-api", "--metrics", ",a.sum", "--", "./app"}).find("empty name"),
            std::string::npos);
  EXPECT_EQ(parse({"profile", "--profiler-api", "--metrics", "a.sum, b.sum", "--", "./app"}).profile.metrics_csv,
            "a.sum, b.sum");
}

TEST(CliOptions, the_rendezvous_is_checked_and_needs_collectives_replay) {
  EXPECT_EQ(error_of({"profile", "--profiler-api", "--collectives", "lockstep", "--", "./app"}),
            "--collectives must be decline or replay, not 'lockstep'");
  EXPECT_EQ(error_of({"profile", "--profiler-api", "--rendezvous", "h:1", "--", "./app"}),
            "--rendezvous is for --collectives replay; add --collectives replay or drop it");
  EXPECT_EQ(error_of({"profile", "--profiler-api", "--collectives", "replay", "--rendezvous", "h", "--", "./app"})
                .rfind("--rendezvous 'h': ", 0),
            0u);
}

TEST(CliOptions, output_names_are_checked_before_launch) {
  EXPECT_EQ(error_of({"profile", "--profiler-api", "-o", "report", "--", "./app"}),
            "output 'report' must end in .json, .csv or .html (the extension picks the format)");
  // RANK is set in each rank by the job's launcher, not where rangereplay starts.
  EXPECT_EQ(parse({"profile", "--profiler-api", "-o", "r%q{RANK}.json", "--", "./app"}).profile.output_format,
            OutputFormat::kJson);
  EXPECT_NE(error_of({"profile", "--profiler-api", "-o", "r%q{RANK", "--", "./app"}).find("no closing"),
            std::string::npos);
  EXPECT_NE(error_of({"profile", "--profiler-api", "-o", "r%x.json", "--", "./app"}).find("unknown placeholder"),
            std::string::npos);
  // Named as typed, not with the stand-in values.
  EXPECT_EQ(error_of({"profile", "--profiler-api", "-o", "run_%p", "--", "./app"}),
            "output 'run_%p' must end in .json, .csv or .html (the extension picks the format)");
}

TEST(CliOptions, empty_nvtx_expressions_are_rejected) {
  EXPECT_EQ(error_of({"profile", "--nvtx-include", "", "--", "./app"}),
            "--nvtx-include needs a value (an NVTX expression, e.g. step/)");
  EXPECT_EQ(error_of({"profile", "--nvtx-include", "A/", "--nvtx-exclude", " ", "--", "./app"}),
            "--nvtx-exclude needs a value (an NVTX expression, e.g. warmup/)");
}

TEST(CliOptions, list_commands_have_flag_and_word_forms) {
  EXPECT_EQ(parse({"--list-metrics"}).action, Action::kListMetrics);
  EXPECT_EQ(parse({"list-metrics"}).action, Action::kListMetrics);
  EXPECT_EQ(parse({"--list-sets"}).action, Action::kListSets);
  EXPECT_EQ(parse({"list-sets"}).action, Action::kListSets);
}

TEST(CliOptions, version_and_help) {
  CommandLine v = parse({"--version"});
  EXPECT_EQ(v.action, Action::kVersion);
  EXPECT_EQ(v.text, version_text());
  EXPECT_EQ(version_text().rfind("rangereplay ", 0), 0u);
  // The version, the commit and what it was built with, one line each.
  EXPECT_NE(version_text().find("\ncommit: "), std::string::npos) << version_text();
  EXPECT_NE(version_text().find("\nbuilt with: CUDA 13."), std::string::npos) << version_text();
  EXPECT_NE(version_text().find(", CUPTI API 13"), std::string::npos) << version_text();
  EXPECT_EQ(version_text().back(), '\n');
  CommandLine h = parse({"--help"});
  EXPECT_EQ(h.action, Action::kHelp);
  EXPECT_FALSE(h.help_is_error);
  EXPECT_NE(h.text.find("profile"), std::string::npos);
  CommandLine ph = parse({"profile", "--help"});
  EXPECT_EQ(ph.action, Action::kHelp);
  EXPECT_NE(ph.text.find("--snapshot-device-limit"), std::string::npos);
  CommandLine nothing = parse({});
  EXPECT_EQ(nothing.action, Action::kHelp);
  EXPECT_TRUE(nothing.help_is_error);
}

TEST(CliOptions, mistyped_commands_get_a_suggestion) {
  EXPECT_EQ(
      error_of({"list-setz"}),
      "unknown command 'list-setz' (did you mean list-sets?); commands are profile, diff, merge, report, list-metrics "
      "and list-sets");
  EXPECT_EQ(error_of({"profil", "--profiler-api"}).substr(0, 50), "unknown command 'profil' (did you mean profile?); ");
}

TEST(CliOptions, two_actions_or_an_application_without_profile_are_errors) {
  EXPECT_EQ(
      error_of({"--list-sets", "--list-metrics"}),
      "give one of profile, diff, merge, report, --list-metrics, --list-sets or --version; see 'rangereplay --help'");
  EXPECT_EQ(error_of({"--", "./app"}), "to run an application, write 'rangereplay profile [options] -- <app> [args]'");
}

// The configuration file the injection reads, for a whole command line: what
// the launcher writes (write_profile_config) before the metric names are
// expanded and the report path is chosen.
std::string config_json(const std::vector<std::string>& args) {
  testing::TempTree tree;
  const std::string path = tree.path("config.json");
  const Status written = write_profile_config(parse(args).profile.config, path);
  EXPECT_TRUE(written.ok()) << written.to_string();
  std::ostringstream text;
  text << std::ifstream(path).rdbuf();
  return text.str();
}

TEST(CliOptions, config_json_of_nvtx_ranges_with_every_replay_option) {
  EXPECT_EQ(config_json({"profile",
                         "--nvtx-include",
                         "A/",
                         "--nvtx-include=D@B/C",
                         "--nvtx-exclude",
                         "warm/",
                         "--metrics",
                         "a.sum",
                         "--range-metrics",
                         "whole",
                         "--skip",
                         "2",
                         "--range-count",
                         "3",
                         "--verify",
                         "--restore",
                         "full",
                         "--cache-control",
                         "all",
                         "--batch-ranges",
                         "off",
                         "--collectives",
                         "replay",
                         "--rendezvous",
                         "10.0.0.1:29501",
                         "--snapshot-device-limit",
                         "512MiB",
                         "--snapshot-host-limit",
                         "6GB",
                         "--quiet",
                         "-o",
                         "r.csv",
                         "--",
                         "./app",
                         "--",
                         "x"}),
            R"json({
  "app_range": null,
  "batch_ranges": 0,
  "cache_control": "all",
  "collectives": "replay",
  "command": [
    "./app",
    "--",
    "x"
  ],
  "kernel_windows": null,
  "metric_set": "",
  "metrics": [],
  "nvtx_exclude": [
    {
      "bottom_anchored": false,
      "domain": null,
      "elements": [
        {
          "kind": "name",
          "name": "warm",
          "regex": false
        }
      ],
      "kind": "push_pop",
      "text": "warm/",
      "top_anchored": false
    }
  ],
  "nvtx_include": [
    {
      "bottom_anchored": false,
      "domain": null,
      "elements": [
        {
          "kind": "name",
          "name": "A",
          "regex": false
        }
      ],
      "kind": "push_pop",
      "text": "A/",
      "top_anchored": false
    },
    {
      "bottom_anchored": false,
      "domain": {
        "name": "D",
        "regex": false
      },
      "elements": [
        {
          "kind": "name",
          "name": "B",
          "regex": false
        },
        {
          "kind": "name",
          "name": "C",
          "regex": false
        }
      ],
      "kind": "push_pop",
      "text": "D@B/C",
      "top_anchored": false
    }
  ],
  "profiler_api": false,
  "quiet": true,
  "range_count": 3,
  "range_metrics": "whole",
  "ranges": [
    {
      "first": 2,
      "last": 4
    }
  ],
  "rendezvous": "10.0.0.1:29501",
  "rendezvous_token": "",
  "report_environment": [],
  "report_path": "",
  "restore": "full",
  "snapshot_device_limit": 536870912,
  "snapshot_host_limit": 6000000000,
  "verify": true
}
)json");
}

TEST(CliOptions, config_json_of_kernel_windows_and_a_range_list) {
  EXPECT_EQ(
      config_json({"profile", "--kernel-range", "10:20,30:40", "--range-list", "1,5-7", "--set", "full", "./app", "a"}),
      R"json({
  "app_range": null,
  "batch_ranges": 16,
  "cache_control": "all",
  "collectives": "decline",
  "command": [
    "./app",
    "a"
  ],
  "kernel_windows": [
    {
      "end": 20,
      "first": 10
    },
    {
      "end": 40,
      "first": 30
    }
  ],
  "metric_set": "",
  "metrics": [],
  "nvtx_exclude": [],
  "nvtx_include": [],
  "profiler_api": false,
  "quiet": false,
  "range_count": 0,
  "range_metrics": "kernel",
  "ranges": [
    {
      "first": 1,
      "last": 1
    },
    {
      "first": 5,
      "last": 7
    }
  ],
  "rendezvous": "",
  "rendezvous_token": "",
  "report_environment": [],
  "report_path": "",
  "restore": "differential",
  "snapshot_device_limit": 0,
  "snapshot_host_limit": 0,
  "verify": false
}
)json");
}

TEST(CliOptions, config_json_of_profiler_api_ranges_with_the_defaults) {
  EXPECT_EQ(config_json({"profile", "--profiler-api", "--", "./app"}), R"json({
  "app_range": null,
  "batch_ranges": 16,
  "cache_control": "all",
  "collectives": "decline",
  "command": [
    "./app"
  ],
  "kernel_windows": null,
  "metric_set": "",
  "metrics": [],
  "nvtx_exclude": [],
  "nvtx_include": [],
  "profiler_api": true,
  "quiet": false,
  "range_count": 0,
  "range_metrics": "kernel",
  "ranges": [
    {
      "first": 0,
      "last": null
    }
  ],
  "rendezvous": "",
  "rendezvous_token": "",
  "report_environment": [],
  "report_path": "",
  "restore": "differential",
  "snapshot_device_limit": 0,
  "snapshot_host_limit": 0,
  "verify": false
}
)json");
}

// --- Application range replay options ------------------------------------

// `profile --profiler-api <options> -- ./app`, parsed.
StatusOr<CommandLine> app_run_request(std::vector<std::string> options) {
  std::vector<std::string> args = {"rangereplay", "profile", "--profiler-api"};
  args.insert(args.end(), options.begin(), options.end());
  args.insert(args.end(), {"--", "./app"});
  return parse_command_line(args, no_env);
}

// The one-line error of `profile --profiler-api <options> -- ./app`.
std::string app_run_error(std::vector<std::string> options) {
  options.insert(options.begin(), {"profile", "--profiler-api"});
  options.insert(options.end(), {"--", "./app"});
  return error_of(std::move(options));
}

TEST(AppRunOptions, the_defaults_are_range_replay_without_fallback_or_cap) {
  StatusOr<CommandLine> c = app_run_request({});
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(c->profile.replay_mode, ReplayMode::kRange);
  EXPECT_EQ(c->profile.fallback, Fallback::kNone);
  EXPECT_EQ(c->profile.max_app_runs, 0u);
}

TEST(AppRunOptions, each_option_reaches_the_request) {
  StatusOr<CommandLine> c = app_run_request({"--fallback", "app-range", "--max-app-runs", "41"});
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(c->profile.replay_mode, ReplayMode::kRange);
  EXPECT_EQ(c->profile.fallback, Fallback::kAppRange);
  EXPECT_EQ(c->profile.max_app_runs, 41u);
  StatusOr<CommandLine> mode = app_run_request({"--replay-mode", "app-range", "--max-app-runs", "1"});
  ASSERT_TRUE(mode.ok()) << mode.status().message();
  EXPECT_EQ(mode->profile.replay_mode, ReplayMode::kAppRange);
  EXPECT_EQ(mode->profile.fallback, Fallback::kNone);
  EXPECT_EQ(mode->profile.max_app_runs, 1u);
}

TEST(AppRunOptions, unknown_choices_name_the_choices) {
  EXPECT_EQ(app_run_error({"--replay-mode", "application"}),
            "--replay-mode must be range or app-range, not 'application'");
  EXPECT_EQ(app_run_error({"--fallback", "yes"}), "--fallback must be none or app-range, not 'yes'");
}

TEST(AppRunOptions, a_cap_must_be_a_whole_number_from_one) {
  EXPECT_EQ(app_run_error({"--fallback", "app-range", "--max-app-runs", "0"}), "--max-app-runs 0 must be at least 1");
  EXPECT_EQ(app_run_error({"--fallback", "app-range", "--max-app-runs", "-3"}),
            "--max-app-runs '-3' is not a whole number from 1 to 4294967295");
}

TEST(AppRunOptions, a_cap_without_application_range_replay_is_refused) {
  EXPECT_EQ(app_run_error({"--max-app-runs", "10"}),
            "--max-app-runs caps application range replay; give --replay-mode app-range or --fallback app-range, or "
            "drop --max-app-runs");
}

TEST(AppRunOptions, fallback_with_app_range_mode_is_refused) {
  EXPECT_EQ(app_run_error({"--replay-mode", "app-range", "--fallback", "app-range"}),
            "--fallback app-range applies to --replay-mode range (with --replay-mode app-range no range is replayed, "
            "so none falls back); drop --fallback");
}

TEST(AppRunOptions, range_replay_options_are_refused_with_app_range_mode) {
  EXPECT_EQ(app_run_error({"--replay-mode", "app-range", "--batch-ranges", "off"}),
            "--batch-ranges applies to range replay; --replay-mode app-range neither snapshots, restores nor "
            "replays; drop --batch-ranges");
  EXPECT_EQ(app_run_error({"--replay-mode", "app-range", "--verify"}),
            "--verify applies to range replay; --replay-mode app-range neither snapshots, restores nor replays; drop "
            "--verify");
  EXPECT_EQ(app_run_error({"--replay-mode", "app-range", "--snapshot-host-limit", "1GiB"}),
            "--snapshot-host-limit applies to range replay; --replay-mode app-range neither snapshots, restores nor "
            "replays; drop --snapshot-host-limit");
  EXPECT_EQ(app_run_error({"--replay-mode", "app-range", "--range-metrics", "kernel"}),
            "--replay-mode app-range gives whole-range values (one counter range per range and pass); drop "
            "--range-metrics kernel, or profile with --replay-mode range for per-kernel values");
  EXPECT_EQ(app_run_error({"--replay-mode", "app-range", "--collectives", "replay"}),
            "--collectives replay makes the ranks replay a range together; --replay-mode app-range does not replay "
            "(it runs the application again); drop --collectives replay");
  EXPECT_TRUE(app_run_request({"--replay-mode", "app-range", "--collectives", "decline"}).ok());
  EXPECT_TRUE(app_run_request({"--fallback", "app-range", "--collectives", "replay"}).ok());
  EXPECT_TRUE(app_run_request({"--replay-mode", "app-range", "--range-metrics", "whole"}).ok());
  EXPECT_TRUE(app_run_request({"--fallback", "app-range", "--verify"}).ok());  // run 1 replays
}

TEST(AppRunOptions, a_cap_of_one_leaves_the_fallback_no_run) {
  EXPECT_EQ(app_run_error({"--fallback", "app-range", "--max-app-runs", "1"}),
            "--max-app-runs 1 leaves --fallback app-range no run: it needs the first run and one more per pass; give "
            "at least 2");
  EXPECT_TRUE(app_run_request({"--replay-mode", "app-range", "--max-app-runs", "1"}).ok());
}

TEST(AppRunOptions, a_missing_value_is_named_with_its_hint) {
  EXPECT_EQ(app_run_error({"--fallback="}), "--fallback needs a value (none or app-range)");
}

// --set triage samples each range once in the application's own run: the
// options of replay, of other metric lists and of application range replay
// are one-line errors naming the option and the fix.
TEST(CliOptions, set_triage_parses_and_refuses_what_it_cannot_honour) {
  const CommandLine c = parse({"profile", "--nvtx-include", "step/", "--set", "triage", "--", "./app"});
  EXPECT_EQ(c.profile.set_name, "triage");
  EXPECT_EQ(c.profile.replay_mode, ReplayMode::kRange);
  EXPECT_EQ(parse({"profile", "--nvtx-include", "step/", "--set", "triage", "--range-metrics", "whole", "--", "./app"})
                .profile.set_name,
            "triage");
  const std::string lead =
      "--set triage samples each range once in the application's own run (PM sampling, no replay); ";
  const std::vector<std::pair<std::vector<std::string>, std::string>> refused = {
      {{"--metrics", "dram__bytes_read.sum"},
       "--metrics does not apply to it: drop --metrics (triage counts its own list), or give --metrics without --set "
       "triage"},
      {{"--verify"}, "--verify does not apply to it: drop --verify"},
      {{"--restore", "full"}, "--restore does not apply to it: drop --restore"},
      {{"--batch-ranges", "4"}, "--batch-ranges does not apply to it: drop --batch-ranges"},
      {{"--snapshot-device-limit", "1GiB"},
       "--snapshot-device-limit does not apply to it: drop --snapshot-device-limit"},
      {{"--snapshot-host-limit", "1GiB"}, "--snapshot-host-limit does not apply to it: drop --snapshot-host-limit"},
      {{"--range-metrics", "kernel"},
       "--range-metrics kernel does not apply to it: drop it (triage gives whole-range totals), or profile with "
       "another --set"},
      {{"--replay-mode", "app-range"},
       "--replay-mode app-range does not apply to it: drop it (triage makes one application run already)"},
      {{"--fallback", "app-range"},
       "--fallback app-range does not apply to it: drop it (triage declines nothing that a replay would)"},
      {{"--collectives", "replay"}, "--collectives replay does not apply to it: drop --collectives replay"},
  };
  for (const auto& [options, message] : refused) {
    std::vector<std::string> args = {"profile", "--nvtx-include", "step/", "--set", "triage"};
    args.insert(args.end(), options.begin(), options.end());
    args.insert(args.end(), {"--", "./app"});
    EXPECT_EQ(error_of(args), lead + message) << options.front();
  }
}

}  // namespace
}  // namespace rangereplay::cli

namespace rangereplay::cli {
namespace {

TEST(CliOptions, diff_and_report_take_reports_and_name_their_mistakes) {
  const CommandLine diff = parse({"diff", "--csv", "a.json", "b.json"});
  EXPECT_EQ(diff.action, Action::kDiff);
  EXPECT_EQ(diff.diff.base_path, "a.json");
  EXPECT_EQ(diff.diff.new_path, "b.json");
  EXPECT_EQ(diff.diff.format, DiffFormat::kCsv);
  const CommandLine report = parse({"report", "x.json", "-o", "x.csv", "--csv-page", "raw"});
  EXPECT_EQ(report.action, Action::kReport);
  EXPECT_EQ(report.report.format, OutputFormat::kCsv);
  EXPECT_EQ(report.report.csv_page, CsvPage::kRaw);
  EXPECT_EQ(error_of({"diff", "--csv", "--json", "a.json", "b.json"}),
            "diff prints CSV or JSON: give --csv or --json, not both");
  EXPECT_EQ(error_of({"diff", "--bogus", "a.json", "b.json"}),
            "unknown option '--bogus'; see 'rangereplay diff --help'");
  EXPECT_EQ(error_of({"diff", "a.json", "b.json", "c.json"}),
            "diff compares two reports: write 'rangereplay diff [--csv|--json] <base.json> <new.json>'");
  EXPECT_EQ(error_of({"report", "x.json", "-o", "x.html", "--csv-page", "raw"}),
            "--csv-page needs an output ending in .csv");
  EXPECT_EQ(error_of({"report", "x.json", "-o", "x.csv", "--csv-page", "wide"}),
            "--csv-page must be details or raw (ncu's --page layouts), not 'wide'");
}

TEST(CliOptions, report_without_an_output_prints_a_page_with_filters) {
  const CommandLine plain = parse({"report", "x.json"});
  EXPECT_EQ(plain.action, Action::kReport);
  EXPECT_EQ(plain.report.output_path, "");
  EXPECT_EQ(plain.report.page, ReportPage::kDetails);
  const CommandLine summary =
      parse({"report", "x.json", "--page", "summary", "--kernel-name", "regex:gemm|conv", "--range", "0,2-3"});
  EXPECT_EQ(summary.report.page, ReportPage::kSummary);
  EXPECT_EQ(summary.report.kernel_name, "regex:gemm|conv");
  EXPECT_EQ(summary.report.range, "0,2-3");
  EXPECT_EQ(parse({"report", "x.json", "--page", "raw"}).report.page, ReportPage::kRaw);
  const CommandLine filtered_file = parse({"report", "x.json", "--range", "step", "-o", "x.html"});
  EXPECT_EQ(filtered_file.report.output_path, "x.html");
  EXPECT_EQ(filtered_file.report.range, "step");
  EXPECT_EQ(error_of({"report", "x.json", "--page", "wide"}), "--page 'wide': give summary, details or raw");
  EXPECT_EQ(error_of({"report", "x.json", "--page", "raw", "-o", "x.csv"}),
            "--page picks what the terminal shows: leave out -o to print the report, or use --csv-page with a .csv "
            "output");
  EXPECT_EQ(error_of({"report", "x.json", "--csv-page", "raw"}),
            "--csv-page picks the layout of a .csv output: give -o <out.csv> with it, or --page for the terminal");
  EXPECT_EQ(error_of({"report", "x.json", "--kernel-name="}),
            "--kernel-name needs a value (a part of a kernel name, or regex:<RE2 pattern>)");
  EXPECT_EQ(error_of({"report", "x.json", "-o", ""}),
            "--output needs a value (a file name ending in .json, .csv or .html)");
}

TEST(CliOptions, diff_takes_metrics_a_change_threshold_and_an_order) {
  const CommandLine plain = parse({"diff", "a.json", "b.json"});
  EXPECT_TRUE(plain.diff.metrics.empty());
  EXPECT_FALSE(plain.diff.changed_above_pct.has_value());
  EXPECT_TRUE(plain.diff.sort_by_change);
  const CommandLine picked =
      parse({"diff", "a.json", "b.json", "--metrics", "gpu__time_duration.sum, dram__bytes_read.sum", "--changed-above",
             "12.5%", "--sort", "report"});
  EXPECT_EQ(picked.diff.metrics, (std::vector<std::string>{"gpu__time_duration.sum", "dram__bytes_read.sum"}));
  ASSERT_TRUE(picked.diff.changed_above_pct.has_value());
  EXPECT_EQ(*picked.diff.changed_above_pct, 12.5);
  EXPECT_FALSE(picked.diff.sort_by_change);
  EXPECT_EQ(*parse({"diff", "--changed-above", "0", "a.json", "b.json"}).diff.changed_above_pct, 0.0);
  EXPECT_EQ(error_of({"diff", "a.json", "b.json", "--changed-above", "ten"}),
            "--changed-above 'ten': give a percentage of 0 or more, e.g. --changed-above 10");
  EXPECT_EQ(error_of({"diff", "a.json", "b.json", "--changed-above", "-5"}),
            "--changed-above '-5': give a percentage of 0 or more, e.g. --changed-above 10");
  EXPECT_EQ(error_of({"diff", "a.json", "b.json", "--sort", "name"}),
            "--sort 'name': give change (the largest change first) or report");
  EXPECT_EQ(error_of({"diff", "a.json", "b.json", "--metrics="}),
            "--metrics needs a value (metric names separated by commas, e.g. dram__bytes_read.sum)");
}

TEST(CliOptions, merge_takes_the_ranks_reports_in_order_and_an_optional_json_or_csv_output) {
  const CommandLine table = parse({"merge", "r0.json", "r1.json", "r2.json"});
  EXPECT_EQ(table.action, Action::kMerge);
  EXPECT_EQ(table.merge.report_paths, (std::vector<std::string>{"r0.json", "r1.json", "r2.json"}));
  EXPECT_EQ(table.merge.output_path, "");
  const CommandLine csv = parse({"merge", "-o", "job.csv", "r0.json", "r1.json"});
  EXPECT_EQ(csv.merge.output_path, "job.csv");
  EXPECT_EQ(csv.merge.format, OutputFormat::kCsv);
  EXPECT_EQ(parse({"merge", "r0.json", "r1.json", "--output", "job.json"}).merge.format, OutputFormat::kJson);
}

TEST(CliOptions, merge_names_its_mistakes_with_the_fix) {
  EXPECT_EQ(error_of({"merge", "r0.json"}),
            "merge needs the reports of at least two ranks, rank 0 first: write 'rangereplay merge r0.json "
            "rank1.json ...'");
  EXPECT_EQ(error_of({"merge"}),
            "merge needs the reports of at least two ranks, rank 0 first: write 'rangereplay merge rank0.json "
            "rank1.json ...'");
  EXPECT_EQ(error_of({"merge", "r0.json", "r1.json", "./r0.json"}),
            "merge: ./r0.json is given twice (ranks 0 and 2); give each rank's report once");
  EXPECT_EQ(error_of({"merge", "r0.json", "r1.json", "-o", "job.html"}),
            "merge writes JSON or CSV: give --output a name ending in .json or .csv, not 'job.html'");
  EXPECT_EQ(error_of({"merge", "r0.json", "r1.json", "-o", ""}),
            "--output needs a value (a file name ending in .json or .csv)");
  EXPECT_EQ(error_of({"merge", "--csv", "r0.json", "r1.json"}),
            "unknown option '--csv'; see 'rangereplay merge --help'");
  EXPECT_EQ(error_of({"merge", "r0.json", "r1.json", "-o", "job"}),
            "merge writes JSON or CSV: give --output a name ending in .json or .csv, not 'job'");
  EXPECT_EQ(error_of({"merge", "r0.json", "r1.json", "-o", "./r1.json"}),
            "merge: --output ./r1.json is one of the reports it reads; name another file");
}

TEST(CliOptions, an_nvtx_exclude_equal_to_every_include_is_an_error) {
  EXPECT_EQ(error_of({"profile", "--nvtx-include", "step/", "--nvtx-exclude", "step/", "--", "./app"}),
            "--nvtx-exclude step/ excludes every range --nvtx-include step/ selects; drop one of the two");
  // One include left standing still selects ranges.
  EXPECT_TRUE(parse({"profile", "--nvtx-include", "a/", "--nvtx-include", "b/", "--nvtx-exclude", "a/", "--", "./x"})
                  .profile.config.nvtx_exclude.size() == 1);
}

TEST(CliOptions, a_selection_of_none_of_the_kernel_windows_is_an_error) {
  EXPECT_EQ(error_of({"profile", "--kernel-range", "0:5", "--skip", "3", "--", "./app"}),
            "--kernel-range 0:5 makes 1 range (number 0) and --skip 3 selects none of them; select among those "
            "numbers or drop --skip");
  EXPECT_EQ(error_of({"profile", "--kernel-range", "0:5,10:20", "--range-list", "2-4", "--", "./app"}),
            "--kernel-range 0:5,10:20 makes 2 ranges (numbers 0-1) and --range-list 2-4 selects none of them; "
            "select among those numbers or drop --range-list");
  EXPECT_EQ(
      parse({"profile", "--kernel-range", "0:5,10:20", "--skip", "1", "--", "./app"}).profile.config.ranges.selects(1),
      true);
}

TEST(CliOptions, an_unknown_option_near_a_known_one_names_it) {
  EXPECT_EQ(error_of({"profile", "--metric", "dram__bytes_read.sum", "--nvtx-include", "step/", "--", "./app"}),
            "unknown option '--metric' (did you mean --metrics?); see 'rangereplay profile --help'");
  EXPECT_EQ(error_of({"profile", "--nvtx-include", "step/", "--cache-contrl=all", "--", "./app"}),
            "unknown option '--cache-contrl=all' (did you mean --cache-control?); see 'rangereplay profile --help'");
  EXPECT_EQ(error_of({"merge", "--outptu", "x.json", "a.json", "b.json"}),
            "unknown option '--outptu' (did you mean --output?); see 'rangereplay merge --help'");
  EXPECT_EQ(error_of({"profile", "--zzzzzzzzzz", "--", "./app"}),
            "unknown option '--zzzzzzzzzz'; see 'rangereplay profile --help'");
}

TEST(CliOptions, report_names_an_empty_output_or_csv_page_as_missing) {
  EXPECT_EQ(error_of({"report", "run.json", "-o", ""}),
            "--output needs a value (a file name ending in .json, .csv or .html)");
  EXPECT_EQ(error_of({"report", "run.json", "-o", "run.csv", "--csv-page", ""}),
            "--csv-page needs a value (details or raw)");
}

TEST(CliOptions, a_size_in_two_words_names_the_option_not_the_unit_as_the_application) {
  EXPECT_EQ(error_of({"profile", "--nvtx-include", "step/", "--snapshot-host-limit", "6", "GB", "--", "./app"}),
            "'GB' after --snapshot-host-limit 6 would be the application; write the size as one word: "
            "--snapshot-host-limit 6GB");
  // A program named like a unit, not after a size option, is the application.
  EXPECT_EQ(parse({"profile", "--nvtx-include", "step/", "B", "--", "x"}).profile.config.command,
            (std::vector<std::string>{"B", "--", "x"}));
  // An application before "--" still takes the rest verbatim.
  EXPECT_EQ(parse({"profile", "--nvtx-include", "step/", "./app", "--", "x"}).profile.config.command,
            (std::vector<std::string>{"./app", "--", "x"}));
}

TEST(CliOptions, merge_compares_its_reports_and_output_as_files_not_as_text) {
  testing::TempTree tree;
  const std::string r0 = tree.file("run/r0.json");
  const std::string r1 = tree.file("run/r1.json");
  std::filesystem::create_symlink(r0, tree.path("run/link.json"));
  const std::string dotted = tree.path("run/../run/r0.json");
  EXPECT_EQ(error_of({"merge", r0, r1, "-o", dotted}),
            "merge: --output " + dotted + " is one of the reports it reads; name another file");
  EXPECT_EQ(error_of({"merge", r0, tree.path("run/link.json")}),
            "merge: " + tree.path("run/link.json") + " is given twice (ranks 0 and 1); give each rank's report once");
  // Text that normalizes alike but names two files (`..` after a link to a
  // folder elsewhere) is two reports.
  tree.file("real/r0.json");
  tree.folder("real/sub");
  std::filesystem::create_symlink(tree.path("real/sub"), tree.path("run/to_sub"));
  const std::string through_link = tree.path("run/to_sub/../r0.json");  // real/r0.json
  EXPECT_EQ(parse({"merge", r0, through_link}).merge.report_paths, (std::vector<std::string>{r0, through_link}));
  // A new file beside them, named through `..`, is another file.
  EXPECT_EQ(parse({"merge", r0, r1, "-o", tree.path("run/../run/job.json")}).merge.output_path,
            tree.path("run/../run/job.json"));
}

}  // namespace
}  // namespace rangereplay::cli
