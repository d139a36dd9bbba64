#include "core/config/profile_config.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/range/range_json.h"

namespace rangereplay {
namespace {

// The config's text after write_profile_config.
std::string written(const ProfileConfig& c, const std::string& path) {
  EXPECT_TRUE(write_profile_config(c, path).ok());
  std::ifstream in(path);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// read_profile_config of `text` (a file's content); the file is removed. The
// name holds the process id: CTest runs the tests that call this at once.
StatusOr<ProfileConfig> read_text(const std::string& text) {
  const std::string path = ::testing::TempDir() + "rr_config_text." + std::to_string(::getpid()) + ".json";
  std::ofstream(path) << text;
  StatusOr<ProfileConfig> back = read_profile_config(path);
  std::remove(path.c_str());
  return back;
}

range::NvtxExpression expression(std::string_view text) { return range::parse_nvtx_expression(text).value(); }

TEST(ProfileConfig, round_trips_through_a_json_file) {
  ProfileConfig c;
  c.nvtx_include = {expression("step/"), expression("D@[A/*/B]"), expression("regex:^train$/fw+d"), expression("A,B"),
                    expression("X/+/Y")};
  c.nvtx_exclude = {expression("regex:warm.*@w/")};
  c.kernel_windows = range::KernelWindows::parse("0:10,100:164").value();
  c.ranges = range::RangeSelector::parse_list("2,5-7,9-").value();
  c.metrics = {"smsp__inst_executed.sum", "dram__bytes_read.sum"};
  c.metric_set = "memory";
  c.range_metrics = RangeMetrics::kWholeRange;
  c.restore = RestoreMode::kFull;
  c.cache_control = CacheControl::kAll;
  c.range_count = 5;
  c.snapshot_device_limit = 512ull << 20;
  c.snapshot_host_limit = 6ull << 30;
  c.verify = true;
  c.quiet = true;
  c.report_path = "/tmp/r.%p.json";
  c.report_environment = {"RANK", "SLURM_PROCID"};
  c.rendezvous_token = "0123456789abcdef0123456789abcdef";
  c.batch_ranges = 3;
  c.command = {"./app", "--n", "3"};
  std::string path = ::testing::TempDir() + "rr_config_test.json";
  ASSERT_TRUE(write_profile_config(c, path).ok());
  auto back = read_profile_config(path);
  ASSERT_TRUE(back.ok()) << back.status().to_string();
  EXPECT_EQ(*back, c);
  ASSERT_EQ(back->nvtx_include.size(), 5u);
  EXPECT_EQ(back->nvtx_include[2].text, "regex:^train$/fw+d");
  EXPECT_EQ(back->ranges.to_string(), "2,5-7,9-");
  ASSERT_TRUE(back->kernel_windows.has_value());
  EXPECT_EQ(back->kernel_windows->window_name(1), "kernels 100:164");
  // A regex read back is compiled again and matches as the parsed one does.
  const std::vector<std::string> stack{"train", "fwwd"};
  EXPECT_TRUE(c.nvtx_include[2].matches_stack(stack));
  EXPECT_TRUE(back->nvtx_include[2].matches_stack(stack));
  EXPECT_FALSE(back->nvtx_include[2].matches_stack(std::vector<std::string>{"pretrain", "fwd"}));
  std::remove(path.c_str());
}

TEST(ProfileConfig, an_application_range_run_round_trips_and_names_what_it_collects) {
  ProfileConfig c;
  c.app_range = AppRangeRun{3, "/tmp/rr-state", false, {0, 4}};
  const std::string path = ::testing::TempDir() + "rr_config_app_range.json";
  ASSERT_TRUE(write_profile_config(c, path).ok());
  auto back = read_profile_config(path);
  std::remove(path.c_str());
  ASSERT_TRUE(back.ok()) << back.status().to_string();
  EXPECT_EQ(*back, c);
  EXPECT_TRUE(back->app_range->collects(4));
  EXPECT_FALSE(back->app_range->collects(1));
  EXPECT_TRUE((AppRangeRun{0, "/tmp/x", true, {}}).collects(7));
  EXPECT_FALSE(ProfileConfig{}.app_range.has_value());
  StatusOr<ProfileConfig> no_dir = read_text(R"({"app_range": {"pass": 1, "state_dir": ""}})");
  ASSERT_FALSE(no_dir.ok());
  EXPECT_NE(no_dir.status().message().find("app_range.state_dir"), std::string::npos) << no_dir.status().message();
  StatusOr<ProfileConfig> bad_pass = read_text(R"({"app_range": {"pass": "one", "state_dir": "/tmp"}})");
  ASSERT_FALSE(bad_pass.ok());
  EXPECT_NE(bad_pass.status().message().find("app_range.pass"), std::string::npos) << bad_pass.status().message();
}

TEST(ProfileConfig, a_default_config_round_trips_and_selects_every_range) {
  const std::string path = ::testing::TempDir() + "rr_config_default.json";
  ASSERT_TRUE(write_profile_config(ProfileConfig{}, path).ok());
  auto back = read_profile_config(path);
  ASSERT_TRUE(back.ok()) << back.status().to_string();
  EXPECT_EQ(*back, ProfileConfig{});
  EXPECT_FALSE(back->kernel_windows.has_value());
  EXPECT_EQ(back->ranges.to_string(), "0-");
  std::remove(path.c_str());
}

TEST(ProfileConfig, the_file_holds_parsed_values_not_expression_text_to_parse_again) {
  ProfileConfig c;
  c.nvtx_include = {expression("D@[A/*/B")};
  c.kernel_windows = range::KernelWindows::parse("100:164").value();
  c.ranges = range::RangeSelector::from_skip_count(2, 3).value();
  const std::string path = ::testing::TempDir() + "rr_config_form.json";
  const nlohmann::json j = nlohmann::json::parse(written(c, path));
  std::remove(path.c_str());
  const nlohmann::json& e = j.at("nvtx_include").at(0);
  EXPECT_EQ(e.at("text"), "D@[A/*/B");
  EXPECT_EQ(e.at("kind"), "push_pop");
  EXPECT_EQ(e.at("domain"), (nlohmann::json{{"name", "D"}, {"regex", false}}));
  EXPECT_EQ(e.at("bottom_anchored"), true);
  EXPECT_EQ(e.at("top_anchored"), false);
  EXPECT_EQ(e.at("elements"), nlohmann::json::parse(R"([{"kind": "name", "name": "A", "regex": false},
                                                         {"kind": "any_many"},
                                                         {"kind": "name", "name": "B", "regex": false}])"));
  EXPECT_EQ(j.at("kernel_windows"), nlohmann::json::parse(R"([{"first": 100, "end": 164}])"));
  EXPECT_EQ(j.at("ranges"), nlohmann::json::parse(R"([{"first": 2, "last": 4}])"));
  EXPECT_EQ(ProfileConfig{}.ranges, range::RangeSelector());
  // The form tests/e2e/e2e_common.py's push_pop_range writes for the e2e
  // tests that configure the injection without the launcher.
  EXPECT_EQ(range::nvtx_expression_json(expression("step/")),
            nlohmann::json::parse(R"({"text": "step/", "kind": "push_pop", "domain": null, "bottom_anchored": false,
                                      "top_anchored": false,
                                      "elements": [{"kind": "name", "name": "step", "regex": false}]})"));
}

TEST(ProfileConfig, a_bad_field_is_named_in_the_error) {
  const std::string name = R"({"kind": "name", "name": "A", "regex": false})";
  const std::pair<std::string, std::string> cases[] = {
      {R"({"nvtx_include": ["step/"]})", "nvtx_include[0]: must be an object, not string"},
      {R"({"nvtx_include": {}})", "nvtx_include: must be an array, not object"},
      {R"({"nvtx_include": [{"kind": "push_pop"}]})", "nvtx_include[0].elements: missing"},
      {R"({"nvtx_include": [{"kind": "stack", "elements": [)" + name + "]}]}",
       "nvtx_include[0].kind: unknown value 'stack'; one of push_pop, start_end"},
      {R"({"nvtx_exclude": [{"kind": "push_pop", "elements": [)" + name + R"(, {"kind": "all"}]}]})",
       "nvtx_exclude[0].elements[1].kind: unknown value 'all'; one of name, any_one, any_many"},
      {R"({"nvtx_include": [{"kind": "push_pop", "elements": [{"kind": "name", "regex": true}]}]})",
       "nvtx_include[0].elements[0].name: missing"},
      {R"({"nvtx_include": [{"kind": "push_pop", "elements": [{"kind": "any_one"}]}]})",
       "nvtx_include[0].elements: a push/pop pattern starts and ends with a name"},
      {R"({"nvtx_include": [{"kind": "push_pop", "elements": []}]})",
       "nvtx_include[0].elements: no element; an expression names at least one range"},
      {R"({"nvtx_include": [{"kind": "start_end", "top_anchored": true, "elements": [)" + name + "]}]}",
       "nvtx_include[0]: a start/end expression has no stack anchor"},
      {R"({"kernel_windows": [{"first": 10, "end": 20}, {"first": 5, "end": 8}]})",
       "kernel_windows: window 1 (5:8) overlaps or precedes window 0"},
      {R"({"kernel_windows": [{"first": 7, "end": 7}]})",
       "kernel_windows: window 0 (7:7) is empty: its end is not after its first launch"},
      {R"({"kernel_windows": [{"first": -1, "end": 7}]})",
       "kernel_windows[0].first: must be a whole number from 0 to 18446744073709551615"},
      {R"({"kernel_windows": []})", "kernel_windows: no kernel window"},
      {R"({"ranges": [{"first": 7, "last": 5}]})", "ranges: span 0 ends at 5, before its first 7"},
      {R"({"ranges": [{"last": 5}]})", "ranges[0].first: missing"},
      {R"({"range_count": 4294967296})", "range_count: must be a whole number from 0 to 4294967295"},
      {R"([1, 2])", "the document: must be an object, not array"},
      {R"({"restore": "some"})", "restore: unknown value 'some'; one of differential, full"},
      {R"({"range_metrics": "all"})", "range_metrics: unknown value 'all'; one of kernel, whole"},
      {R"({"nvtx_include": [{"elements": []}]})", "nvtx_include[0].kind: missing"},
      {R"({"batch_ranges": 1})", "batch_ranges: 1 is no batch; give 0 (off) or a whole number from 2"},
      {R"({"batch_ranges": -2})", "batch_ranges: must be a whole number from 0 to 4294967295"},
  };
  for (const auto& [text, want] : cases) {
    StatusOr<ProfileConfig> back = read_text(text);
    ASSERT_FALSE(back.ok()) << text;
    EXPECT_EQ(back.status().code(), StatusCode::kInvalidArgument) << text;
    const std::string message = back.status().message();
    const std::string::size_type at = message.find(".json: ");
    ASSERT_NE(at, std::string::npos) << message;
    EXPECT_EQ(message.substr(at + 7), want) << text;
  }
  // A wrong JSON type: the field, then the JSON library's reason.
  StatusOr<ProfileConfig> back = read_text(R"({"verify": "yes"})");
  ASSERT_FALSE(back.ok());
  EXPECT_NE(back.status().message().find(".json: verify: "), std::string::npos) << back.status().message();
  // A regex that does not compile.
  back = read_text(
      R"({"nvtx_include": [{"kind": "push_pop", "elements": [{"kind": "name", "name": "(", "regex": true}]}]})");
  ASSERT_FALSE(back.ok());
  EXPECT_NE(back.status().message().find("nvtx_include[0].elements[0].name: the regex does not compile: "),
            std::string::npos)
      << back.status().message();
  // A construct RE2 lacks, in the same words as the launcher's.
  back = read_text(
      R"json({"nvtx_include": [{"kind": "push_pop", "elements": [{"kind": "name", "name": "a(?=b)", "regex": true}]}]})json");
  ASSERT_FALSE(back.ok());
  EXPECT_NE(back.status().message().find("nvtx_include[0].elements[0].name: the regex does not compile: lookahead "
                                         "'(?=' (rangereplay's regex: names use RE2 syntax, which has no lookaround); "
                                         "match the text itself, or leave it to an --nvtx-exclude"),
            std::string::npos)
      << back.status().message();
}

TEST(ProfileConfig, a_30000_deep_nested_regex_in_the_file_is_read_not_a_crash) {
  // The injection reads this file in the application at cuInit: a recursive
  // regex compiler (std::regex) overflows its stack there.
  const auto start = std::chrono::steady_clock::now();
  const std::string deep = std::string(30000, '(') + "step" + std::string(30000, ')');
  const nlohmann::json doc = {
      {"nvtx_include", {{{"kind", "push_pop"}, {"elements", {{{"kind", "name"}, {"name", deep}, {"regex", true}}}}}}}};
  StatusOr<ProfileConfig> back = read_text(doc.dump());
  ASSERT_TRUE(back.ok()) << back.status().message().substr(0, 300);
  ASSERT_EQ(back->nvtx_include.size(), 1u);
  EXPECT_TRUE(back->nvtx_include[0].matches_stack(std::vector<std::string>{"warm step 1"}));
  EXPECT_FALSE(back->nvtx_include[0].matches_stack(std::vector<std::string>{"warm"}));
  // Past the memory bound: one error line naming the field, no crash.
  std::string huge;
  for (int i = 0; i < 2000; ++i) huge += "[a-z]{1000}";
  const nlohmann::json big = {
      {"nvtx_include", {{{"kind", "push_pop"}, {"elements", {{{"kind", "name"}, {"name", huge}, {"regex", true}}}}}}}};
  back = read_text(big.dump());
  ASSERT_FALSE(back.ok());
  EXPECT_NE(back.status().message().find("nvtx_include[0].elements[0].name: the regex does not compile: pattern too "
                                         "large (its program needs over 8 MiB); shorten it or lower its repeat counts"),
            std::string::npos)
      << back.status().message();
  EXPECT_EQ(back.status().message().find('\n'), std::string::npos);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));
}

TEST(ProfileConfig, restore_defaults_to_differential_in_code_and_in_a_file_without_the_field) {
  EXPECT_EQ(ProfileConfig{}.restore, RestoreMode::kDifferential);
  std::string path = ::testing::TempDir() + "rr_config_no_restore.json";
  std::ofstream(path) << R"({"metrics": ["smsp__inst_executed.sum"]})";
  auto back = read_profile_config(path);
  ASSERT_TRUE(back.ok()) << back.status().to_string();
  EXPECT_EQ(back->restore, RestoreMode::kDifferential);
  std::remove(path.c_str());
}

TEST(ProfileConfig, restore_modes_are_written_by_name_and_read_back) {
  for (RestoreMode mode : {RestoreMode::kDifferential, RestoreMode::kFull}) {
    ProfileConfig c;
    c.restore = mode;
    std::string path = ::testing::TempDir() + "rr_config_restore.json";
    ASSERT_TRUE(write_profile_config(c, path).ok());
    std::ifstream in(path);
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    EXPECT_NE(text.find(mode == RestoreMode::kFull ? R"("restore": "full")" : R"("restore": "differential")"),
              std::string::npos)
        << text;
    auto back = read_profile_config(path);
    ASSERT_TRUE(back.ok()) << back.status().to_string();
    EXPECT_EQ(back->restore, mode);
    std::remove(path.c_str());
  }
}

TEST(ProfileConfig, batch_ranges_defaults_to_16_in_code_and_in_a_file_without_the_field) {
  EXPECT_EQ(ProfileConfig{}.batch_ranges, 16u);
  EXPECT_EQ(kDefaultBatchRanges, 16u);
  StatusOr<ProfileConfig> back = read_text(R"({"metrics": ["smsp__inst_executed.sum"]})");
  ASSERT_TRUE(back.ok()) << back.status().to_string();
  EXPECT_EQ(back->batch_ranges, 16u);
}

TEST(ProfileConfig, batch_ranges_off_and_sizes_are_written_as_numbers_and_read_back) {
  const std::string path = ::testing::TempDir() + "rr_config_batch." + std::to_string(::getpid()) + ".json";
  for (std::uint32_t n : {0u, 2u, 16u, 4294967295u}) {
    ProfileConfig c;
    c.batch_ranges = n;
    const std::string text = written(c, path);
    EXPECT_NE(text.find("\"batch_ranges\": " + std::to_string(n) + ",\n"), std::string::npos) << text;
    StatusOr<ProfileConfig> back = read_profile_config(path);
    ASSERT_TRUE(back.ok()) << back.status().to_string();
    EXPECT_EQ(back->batch_ranges, n);
    EXPECT_EQ(*back, c);
  }
  std::remove(path.c_str());
}

TEST(ProfileConfig, malformed_file_names_the_file) {
  std::string path = ::testing::TempDir() + "rr_config_bad.json";
  std::ofstream(path) << "{not json";
  auto back = read_profile_config(path);
  ASSERT_FALSE(back.ok());
  EXPECT_NE(back.status().message().find(path), std::string::npos);
  std::remove(path.c_str());
}

TEST(ProfileConfig, report_path_names_the_writing_process) {
  ProfileConfig c;
  c.report_path = "/tmp/rr.X/report.%p.json";
  EXPECT_EQ(report_path_for_process(c, 4242), "/tmp/rr.X/report.4242.json");
  c.report_path = "/tmp/report.json";
  EXPECT_EQ(report_path_for_process(c, 7), "/tmp/report.json");
  c.report_path = "%p-%p%";
  EXPECT_EQ(report_path_for_process(c, 7), "7-7%");
}

TEST(ProfileConfig, missing_file_is_not_found) {
  EXPECT_EQ(read_profile_config("/nonexistent/rr.json").status().code(), StatusCode::kNotFound);
}

TEST(ProfileConfig, the_file_is_readable_by_its_owner_only_as_it_may_hold_the_rendezvous_token) {
  const std::string path = ::testing::TempDir() + "rr_config_mode.json";
  std::remove(path.c_str());
  { std::ofstream(path) << "old"; }
  ::chmod(path.c_str(), 0644);  // an existing file is narrowed too
  ProfileConfig c;
  c.rendezvous_token = "secret";
  ASSERT_TRUE(write_profile_config(c, path).ok());
  struct stat st {};
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  StatusOr<ProfileConfig> back = read_profile_config(path);
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(back->rendezvous_token, "secret");
  std::remove(path.c_str());
}

TEST(ProfileConfig, a_folder_or_a_device_is_one_error_line_not_an_exception) {
  const std::string folder = ::testing::TempDir();
  StatusOr<ProfileConfig> dir = read_profile_config(folder);
  ASSERT_FALSE(dir.ok());
  EXPECT_EQ(dir.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(dir.status().message(), "configuration file " + folder +
                                        " is a folder; RANGEREPLAY_CONFIG must name the file `rangereplay profile` "
                                        "writes");
  StatusOr<ProfileConfig> zero = read_profile_config("/dev/zero");
  ASSERT_FALSE(zero.ok());
  EXPECT_EQ(zero.status().message(),
            "configuration file /dev/zero is not a regular file; RANGEREPLAY_CONFIG must name the file `rangereplay "
            "profile` writes");
  // A FIFO with no writer: refused at once, not waited on.
  const std::string fifo = ::testing::TempDir() + "rr_config_fifo";
  std::remove(fifo.c_str());
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  StatusOr<ProfileConfig> from_fifo = read_profile_config(fifo);
  std::remove(fifo.c_str());
  ASSERT_FALSE(from_fifo.ok());
  EXPECT_EQ(from_fifo.status().code(), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace rangereplay
