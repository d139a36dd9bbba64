#include "report/report_json.h"

#include <gtest/gtest.h>
#include <unistd.h>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>

#include "report/report_file.h"
#include "unit/report/sample_report.h"

namespace rangereplay::report {
namespace {

namespace fs = std::filesystem;
using testing::sample_report;

// A fresh directory per test, removed afterwards.
class ReportJsonFile : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("rr_report_json_" + std::to_string(::getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  void write_raw(const fs::path& path, const std::string& text) { std::ofstream(path) << text; }
  fs::path dir_;
};

std::string dump(const Report& r) {
  StatusOr<std::string> text = dump_report_json(r);
  EXPECT_TRUE(text.ok()) << text.status().to_string();
  return text.ok() ? *text : std::string();
}

TEST(ReportJson, fully_populated_report_round_trips_equal) {
  const Report original = sample_report();
  StatusOr<Report> back = parse_report_json(dump(original));
  ASSERT_TRUE(back.ok()) << back.status().to_string();
  EXPECT_EQ(*back, original);
}

// The exact text of a dump: keys sorted, two-space indent, non-finite
// doubles as strings. Pins every key name and value encoding of the writer.
TEST(ReportJson, dump_text_is_pinned_byte_for_byte) {
  Report r = sample_report();
  r.ranges[0].kernels[1].metrics[1].value = std::numeric_limits<double>::quiet_NaN();
  r.ranges[0].timings.other_ms = -std::numeric_limits<double>::infinity();
  r.gate_wait_ms = std::numeric_limits<double>::infinity();
  EXPECT_EQ(dump(r), R"json({
  "cache_control": "none",
  "chip_name": "GH100",
  "command": [
    "./stream",
    "--n",
    "1000"
  ],
  "compute_capability": "9.0",
  "counter_backend": "range_profiler",
  "device_name": "NVIDIA H200",
  "driver_version": "13.0",
  "environment": {
    "LOCAL_RANK": "0",
    "RANK": "1"
  },
  "errors": [
    "counters unavailable after range 1: CUPTI_ERROR_NOT_INITIALIZED"
  ],
  "gate_wait_ms": "inf",
  "host_name": "node7",
  "launcher_ms": 98.5,
  "metrics": [
    "dram__bytes_read.sum",
    "smsp__inst_executed.sum"
  ],
  "missing_metrics": [],
  "pass_count": 3,
  "process_id": 4242,
  "range_metrics": "kernel",
  "ranges": [
    {
      "counter_ranges": "user",
      "decline_detail": "",
      "decline_reason": "",
      "declined": false,
      "footprint_bytes": 268435456,
      "index": 0,
      "kernels": [
        {
          "block": [
            256,
            1,
            1
          ],
          "grid": [
            1024,
            1,
            1
          ],
          "index": 0,
          "launch_index": 12,
          "mangled_name": "_Z5scalePfi",
          "metrics": [
            {
              "name": "dram__bytes_read.sum",
              "unit": "byte",
              "value": 6291488.0
            },
            {
              "name": "smsp__inst_executed.sum",
              "unit": "inst",
              "value": 98304.0
            }
          ],
          "name": "scale(float*, int)",
          "shared_mem_bytes": 0,
          "stream_id": 7
        },
        {
          "block": [
            128,
            1,
            1
          ],
          "grid": [
            64,
            2,
            1
          ],
          "index": 1,
          "launch_index": -1,
          "mangled_name": "_Z3addIfLi2EEvPKfPf",
          "metrics": [
            {
              "name": "dram__bytes_read.sum",
              "unit": "byte",
              "value": 1234.5678
            },
            {
              "name": "smsp__inst_executed.sum",
              "unit": "inst",
              "value": "nan"
            }
          ],
          "name": "void add<float, 2>(float const*, float*)",
          "shared_mem_bytes": 49152,
          "stream_id": 7
        }
      ],
      "name": "step",
      "notes": [
        "2 device-to-host copies not re-executed"
      ],
      "pass_records": [
        {
          "divergences": [],
          "pass": 1,
          "restored_bytes": 3145728
        },
        {
          "divergences": [
            {
              "address": 139637976731648,
              "origin": "stream.cu:42",
              "size_bytes": 4096
            }
          ],
          "pass": 2,
          "restored_bytes": 3145728
        }
      ],
      "passes": 3,
      "range_metrics": [],
      "regions": 4,
      "restore": "differential",
      "roofline": {
        "available": false,
        "missing_metrics": [
          "gpu__time_duration.sum",
          "dram__bytes.sum",
          "lts__t_bytes.sum",
          "sm__cycles_elapsed.avg.per_second",
          "dram__bytes.sum.peak_sustained",
          "dram__cycles_elapsed.avg.per_second",
          "lts__t_bytes.sum.peak_sustained",
          "lts__cycles_elapsed.avg.per_second"
        ]
      },
      "tiers": [
        {
          "arena_bytes": 268435456,
          "bytes": 201326592,
          "new_allocation": true,
          "tier": "device"
        },
        {
          "arena_bytes": 67108864,
          "bytes": 67108864,
          "new_allocation": false,
          "tier": "pinned"
        }
      ],
      "timings": {
        "begin_ms": 1.75,
        "capture_ms": 1.5,
        "counters_ms": 40.0,
        "decode_ms": 2.0,
        "kernels_ms": 10.0,
        "other_ms": "-inf",
        "pass0_ms": 0.0,
        "rendezvous_ms": 0.0,
        "replay_submit_ms": 0.4,
        "restore_ms": 3.0,
        "sync_ms": 0.12,
        "verify_ms": 1.25,
        "window_ms": 61.2
      }
    },
    {
      "counter_ranges": "",
      "decline_detail": "cuMemFree(0x7f0000200000) inside the range; free it after the range ends",
      "decline_reason": "free_in_range",
      "declined": true,
      "footprint_bytes": 0,
      "index": 1,
      "kernels": [],
      "name": "step",
      "notes": [],
      "pass_records": [],
      "passes": 1,
      "range_metrics": [],
      "regions": 0,
      "restore": "",
      "tiers": [],
      "timings": {
        "begin_ms": 0.0,
        "capture_ms": 0.0,
        "counters_ms": 0.0,
        "decode_ms": 0.0,
        "kernels_ms": 0.0,
        "other_ms": 0.0,
        "pass0_ms": 0.0,
        "rendezvous_ms": 0.0,
        "replay_submit_ms": 0.0,
        "restore_ms": 0.0,
        "sync_ms": 0.0,
        "verify_ms": 0.0,
        "window_ms": 0.0
      }
    }
  ],
  "schema_version": 1,
  "setup_ms": 171.25,
  "time_budget": {
    "counter_setup_ms": 171.25,
    "exit_ms": 0.0,
    "exit_start_clock_ms": 0.0,
    "first_pass_start_ms": 0.0,
    "gate_wait_ms": "inf",
    "in_ranges_ms": 0.0,
    "launcher_checks_ms": 0.0,
    "outside_ranges_ms": 0.0,
    "range_begins_ms": 0.0,
    "rendezvous_ms": 0.0,
    "standing_flushes_ms": 0.0,
    "start_to_tool_ms": 0.0,
    "tool_start_clock_ms": 0.0,
    "wall_ms": 0.0,
    "windows_ms": 0.0
  },
  "tool_version": "0.1.0",
  "verify": true
}
)json");
  StatusOr<std::string> one_line = dump_report_json(Report{}, -1);
  ASSERT_TRUE(one_line.ok());
  EXPECT_EQ(
      *one_line,
      R"json({"cache_control":"none","chip_name":"","command":[],"compute_capability":"","counter_backend":"","device_name":"","driver_version":"","environment":{},"errors":[],"gate_wait_ms":0.0,"host_name":"","launcher_ms":0.0,"metrics":[],"missing_metrics":[],"pass_count":0,"process_id":0,"range_metrics":"kernel","ranges":[],"schema_version":1,"setup_ms":0.0,"time_budget":{"counter_setup_ms":0.0,"exit_ms":0.0,"exit_start_clock_ms":0.0,"first_pass_start_ms":0.0,"gate_wait_ms":0.0,"in_ranges_ms":0.0,"launcher_checks_ms":0.0,"outside_ranges_ms":0.0,"range_begins_ms":0.0,"rendezvous_ms":0.0,"standing_flushes_ms":0.0,"start_to_tool_ms":0.0,"tool_start_clock_ms":0.0,"wall_ms":0.0,"windows_ms":0.0},"tool_version":"","verify":false}
)json");
}

// Fields are read in their list order: of several bad fields, the first is named.
TEST(ReportJson, the_first_bad_field_in_reading_order_is_named) {
  nlohmann::json j = sample_report();
  j["ranges"][0].erase("name");
  j["ranges"][0]["passes"] = "three";
  j["ranges"][0].erase("index");
  EXPECT_EQ(parse_report_json(j.dump()).status().message(),
            "report is not a valid rangereplay report: ranges[0].index: missing field");
  j["ranges"][0]["index"] = 0;
  EXPECT_EQ(parse_report_json(j.dump()).status().message(),
            "report is not a valid rangereplay report: ranges[0].name: missing field");
  j["ranges"][0]["name"] = "step";
  EXPECT_EQ(parse_report_json(j.dump()).status().message(),
            "report is not a valid rangereplay report: ranges[0].passes: expected an unsigned integer, got string");
  j["tool_version"] = 1;
  EXPECT_EQ(parse_report_json(j.dump()).status().message(),
            "report is not a valid rangereplay report: tool_version: expected a string, got number");
}

TEST(ReportJson, empty_report_round_trips_equal) {
  StatusOr<Report> back = parse_report_json(dump(Report{}));
  ASSERT_TRUE(back.ok()) << back.status().to_string();
  EXPECT_EQ(*back, Report{});
}

TEST(ReportJson, nlohmann_hooks_round_trip_through_json_values) {
  const Report original = sample_report();
  const nlohmann::json j = original;
  EXPECT_EQ(j.at("schema_version"), 1);
  EXPECT_EQ(j.at("ranges").at(0).at("kernels").at(0).at("grid"), nlohmann::json::array({1024, 1, 1}));
  EXPECT_EQ(j.get<Report>(), original);
  EXPECT_EQ(nlohmann::json(original.ranges[0]).get<RangeRecord>(), original.ranges[0]);
}

TEST(ReportJson, restore_mode_is_written_per_range_and_may_be_missing_in_older_reports) {
  nlohmann::json j = sample_report();
  EXPECT_EQ(j.at("ranges").at(0).at("restore"), "differential");
  EXPECT_EQ(j.at("ranges").at(0).at("pass_records").at(0).at("restored_bytes"), 3 * testing::kMiB);
  j.at("ranges").at(0).erase("restore");
  StatusOr<Report> back = parse_report_json(j.dump());
  ASSERT_TRUE(back.ok()) << back.status().to_string();
  EXPECT_EQ(back->ranges[0].restore, std::nullopt);
  EXPECT_EQ(back->ranges[0].pass_records, sample_report().ranges[0].pass_records);
}

TEST(ReportJson, doubles_and_64_bit_values_round_trip_exactly) {
  Report r = sample_report();
  std::vector<MetricValue>& m = r.ranges[0].kernels[0].metrics;
  m = {{"a", "", 0.1 + 0.2},
       {"b", "", 1e-300},
       {"c", "", std::numeric_limits<double>::max()},
       {"d", "", std::numeric_limits<double>::denorm_min()},
       {"e", "", 3.0},
       {"f", "", -2.5},
       {"g", "", std::numeric_limits<double>::infinity()},
       {"h", "", -std::numeric_limits<double>::infinity()}};
  r.ranges[0].pass_records[1].divergences[0].address = 0xfffffffffffff000;
  r.ranges[0].footprint_bytes = std::numeric_limits<std::uint64_t>::max();
  r.ranges[0].kernels[0].grid = {std::numeric_limits<std::uint32_t>::max(), 65535, 65535};
  StatusOr<Report> back = parse_report_json(dump(r));
  ASSERT_TRUE(back.ok()) << back.status().to_string();
  EXPECT_EQ(*back, r);
}

TEST(ReportJson, nan_travels_as_a_string_and_comes_back_nan) {
  Report r;
  r.ranges.resize(1);
  r.ranges[0].range_metrics = {
      {"sm__throughput.avg.pct_of_peak_sustained_elapsed", "%", std::numeric_limits<double>::quiet_NaN()}};
  const std::string text = dump(r);
  EXPECT_NE(text.find("\"value\": \"nan\""), std::string::npos) << text;
  StatusOr<Report> back = parse_report_json(text);
  ASSERT_TRUE(back.ok()) << back.status().to_string();
  EXPECT_TRUE(std::isnan(back->ranges[0].range_metrics[0].value));
}

TEST(ReportJson, invalid_utf8_in_a_command_argument_does_not_fail_the_dump) {
  Report r;
  r.command = {"./app", "\xff\xfe"};
  StatusOr<std::string> text = dump_report_json(r);
  ASSERT_TRUE(text.ok()) << text.status().to_string();
  StatusOr<Report> back = parse_report_json(*text);
  ASSERT_TRUE(back.ok()) << back.status().to_string();
  EXPECT_EQ(back->command[1], "\xEF\xBF\xBD\xEF\xBF\xBD");  // two U+FFFD
}

TEST(ReportJson, single_line_dump_ends_in_a_newline) {
  StatusOr<std::string> text = dump_report_json(Report{}, -1);
  ASSERT_TRUE(text.ok());
  EXPECT_EQ(std::count(text->begin(), text->end(), '\n'), 1);
  EXPECT_EQ(text->back(), '\n');
}

TEST(ReportJson, another_schema_version_is_refused_with_a_clear_error) {
  nlohmann::json j = sample_report();
  j["schema_version"] = 2;
  StatusOr<Report> back = parse_report_json(j.dump(), "report 'old.json'");
  ASSERT_FALSE(back.ok());
  EXPECT_EQ(back.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_EQ(back.status().message(),
            "report 'old.json' has schema_version 2, but this rangereplay reads schema_version 1: read it with "
            "the rangereplay build that wrote it");
}

TEST(ReportJson, text_without_schema_version_is_not_a_report) {
  StatusOr<Report> back = parse_report_json(R"({"ranges": []})");
  ASSERT_FALSE(back.ok());
  EXPECT_EQ(back.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(back.status().message(), "report is not a rangereplay report: it has no schema_version field");
  EXPECT_EQ(parse_report_json("[1, 2]").status().message(),
            "report is not a rangereplay report: it has no schema_version field");
}

TEST(ReportJson, text_that_is_not_json_names_line_and_column) {
  StatusOr<Report> back = parse_report_json("{\n  \"schema_version\": 1,\n}");
  ASSERT_FALSE(back.ok());
  EXPECT_EQ(back.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(back.status().message().rfind("report is not valid JSON: parse error at line 3, column 1", 0), 0u)
      << back.status().message();
}

TEST(ReportJson, a_mistyped_field_is_named_by_its_path) {
  nlohmann::json j = sample_report();
  j["ranges"][0]["kernels"][1]["grid"][2] = "one";
  StatusOr<Report> back = parse_report_json(j.dump());
  ASSERT_FALSE(back.ok());
  EXPECT_EQ(back.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(back.status().message(),
            "report is not a valid rangereplay report: ranges[0].kernels[1].grid[2]: expected an unsigned "
            "integer, got string");
}

TEST(ReportJson, a_missing_field_is_named_by_its_path) {
  nlohmann::json j = sample_report();
  j["ranges"][0]["timings"].erase("window_ms");
  EXPECT_EQ(parse_report_json(j.dump()).status().message(),
            "report is not a valid rangereplay report: ranges[0].timings.window_ms: missing field");
}

TEST(ReportJson, values_that_do_not_fit_or_have_the_wrong_shape_are_refused) {
  nlohmann::json j = sample_report();
  j["ranges"][0]["passes"] = std::uint64_t{1} << 32;
  EXPECT_EQ(parse_report_json(j.dump()).status().message(),
            "report is not a valid rangereplay report: ranges[0].passes: 4294967296 does not fit in 32 bits");
  j = sample_report();
  j["ranges"][0]["passes"] = -1;
  EXPECT_EQ(parse_report_json(j.dump()).status().message(),
            "report is not a valid rangereplay report: ranges[0].passes: expected an unsigned integer, got number");
  j = sample_report();
  j["ranges"][0]["kernels"][0]["block"] = {256, 1};
  EXPECT_EQ(parse_report_json(j.dump()).status().message(),
            "report is not a valid rangereplay report: ranges[0].kernels[0].block: expected [x, y, z], got array");
  j = sample_report();
  j["ranges"][1]["declined"] = "yes";
  EXPECT_EQ(parse_report_json(j.dump()).status().message(),
            "report is not a valid rangereplay report: ranges[1].declined: expected true or false, got string");
  j = sample_report();
  j["ranges"][0]["kernels"][0]["metrics"][1]["value"] = "many";
  EXPECT_EQ(parse_report_json(j.dump()).status().message(),
            "report is not a valid rangereplay report: ranges[0].kernels[0].metrics[1].value: expected a number "
            "or \"nan\", \"inf\", \"-inf\", got string");
}

TEST(ReportJson, unknown_keys_are_ignored) {
  nlohmann::json j = sample_report();
  j["written_by_a_newer_build"] = true;
  j["ranges"][0]["extra"] = {1, 2, 3};
  StatusOr<Report> back = parse_report_json(j.dump());
  ASSERT_TRUE(back.ok()) << back.status().to_string();
  EXPECT_EQ(*back, sample_report());
}

TEST(ReportJson, from_json_hook_throws_naming_the_path) {
  nlohmann::json j = sample_report();
  j["ranges"][0]["notes"][0] = 5;
  try {
    (void)j.get<Report>();
    FAIL() << "expected an exception";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "ranges[0].notes[0]: expected a string, got number");
  }
}

TEST_F(ReportJsonFile, written_file_reads_back_equal) {
  const fs::path path = dir_ / "report.json";
  ASSERT_TRUE(write_report_json(sample_report(), path).ok());
  StatusOr<Report> back = read_report_json(path);
  ASSERT_TRUE(back.ok()) << back.status().to_string();
  EXPECT_EQ(*back, sample_report());
  EXPECT_EQ(std::distance(fs::directory_iterator(dir_), fs::directory_iterator()), 1);  // no temp file left
}

TEST_F(ReportJsonFile, writing_replaces_an_existing_file) {
  const fs::path path = dir_ / "report.json";
  write_raw(path, std::string(100000, 'x'));
  ASSERT_TRUE(write_report_json(Report{}, path).ok());
  StatusOr<Report> back = read_report_json(path);
  ASSERT_TRUE(back.ok()) << back.status().to_string();
  EXPECT_EQ(*back, Report{});
}

TEST_F(ReportJsonFile, a_file_with_another_schema_version_names_the_file) {
  const fs::path path = dir_ / "old.json";
  write_raw(path, R"({"schema_version": 7, "ranges": []})");
  StatusOr<Report> back = read_report_json(path);
  ASSERT_FALSE(back.ok());
  EXPECT_EQ(back.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_EQ(back.status().message(),
            "report '" + path.string() +
                "' has schema_version 7, but this rangereplay reads schema_version 1: read it with the rangereplay "
                "build that wrote it");
}

TEST_F(ReportJsonFile, a_missing_file_is_not_found) {
  const fs::path path = dir_ / "absent.json";
  StatusOr<Report> back = read_report_json(path);
  ASSERT_FALSE(back.ok());
  EXPECT_EQ(back.status().code(), StatusCode::kNotFound);
  EXPECT_EQ(back.status().message(), "cannot read '" + path.string() + "': No such file or directory");
}

TEST_F(ReportJsonFile, an_empty_file_is_not_valid_json) {
  const fs::path path = dir_ / "empty.json";
  write_raw(path, "");
  StatusOr<Report> back = read_report_json(path);
  ASSERT_FALSE(back.ok());
  EXPECT_EQ(back.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(back.status().message().rfind("report '" + path.string() + "' is not valid JSON: ", 0), 0u)
      << back.status().message();
}

TEST_F(ReportJsonFile, writing_into_a_missing_directory_fails_and_leaves_nothing) {
  const fs::path path = dir_ / "no" / "such" / "report.json";
  Status s = write_report_json(sample_report(), path);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.code(), StatusCode::kNotFound);
  EXPECT_EQ(s.message(), "cannot write '" + path.string() + "': No such file or directory");
  EXPECT_TRUE(fs::is_empty(dir_));
}

TEST_F(ReportJsonFile, report_file_picks_csv_by_extension) {
  ASSERT_TRUE(write_report_file(sample_report(), dir_ / "out.CSV").ok());
  ASSERT_TRUE(write_report_file(sample_report(), dir_ / "out.json").ok());
  StatusOr<std::string> csv = read_text_file(dir_ / "out.CSV");
  ASSERT_TRUE(csv.ok());
  EXPECT_EQ(csv->rfind("range_index,range_name,status,", 0), 0u);
  StatusOr<Report> json = read_report_json(dir_ / "out.json");
  ASSERT_TRUE(json.ok()) << json.status().to_string();
  EXPECT_EQ(*json, sample_report());
}

TEST(ReportJson, launch_index_round_trips_and_reads_as_absent_when_missing) {
  nlohmann::json j = sample_report();
  EXPECT_EQ(j["ranges"][0]["kernels"][0]["launch_index"], 12);
  EXPECT_EQ(j["ranges"][0]["kernels"][1]["launch_index"], -1);  // a graph's kernel node
  j["ranges"][0]["kernels"][0].erase("launch_index");
  StatusOr<Report> back = parse_report_json(j.dump());
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(back->ranges[0].kernels[0].launch_index, std::nullopt);
  EXPECT_EQ(back->ranges[0].kernels[1].launch_index, -1);
}

TEST(ReportJson, launcher_ms_and_gate_wait_ms_read_as_absent_in_older_reports) {
  nlohmann::json j = sample_report();
  EXPECT_EQ(j["launcher_ms"], 98.5);
  EXPECT_EQ(j["gate_wait_ms"], 61.25);
  j.erase("launcher_ms");
  j.erase("gate_wait_ms");
  j["time_budget"].erase("gate_wait_ms");
  StatusOr<Report> back = parse_report_json(j.dump());
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(back->launcher_ms, std::nullopt);
  EXPECT_EQ(back->gate_wait_ms, std::nullopt);
}

// The JSON of sample_report() (the text of tests/python/data/sample_report.json)
// without every field added to schema_version 1 later.
nlohmann::json sample_without_added_later_fields() {
  nlohmann::json j = sample_report();
  for (const char* key : {"launcher_ms", "gate_wait_ms", "time_budget", "missing_metrics"}) j.erase(key);
  for (nlohmann::json& range : j["ranges"]) {
    range.erase("restore");
    range.erase("counter_ranges");
    range["timings"].erase("pass0_ms");
    for (nlohmann::json& kernel : range["kernels"]) kernel.erase("launch_index");
  }
  return j;
}

TEST(ReportJson, a_report_without_added_later_fields_is_written_again_without_them) {
  const nlohmann::json old = sample_without_added_later_fields();
  StatusOr<Report> back = parse_report_json(old.dump());
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(back->time_budget, std::nullopt);
  EXPECT_EQ(back->ranges[0].restore, std::nullopt);
  EXPECT_EQ(back->ranges[0].counter_ranges, std::nullopt);
  EXPECT_EQ(back->ranges[0].timings.pass0_ms, std::nullopt);
  StatusOr<std::string> again = dump_report_json(*back);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(nlohmann::json::parse(*again), old);  // no field gained, none lost
}

TEST(ReportJson, a_triage_ranges_samples_round_trip_with_non_finite_values_as_strings) {
  Report r = testing::triage_report();
  (*r.ranges[0].samples)[2].values[1] = std::numeric_limits<double>::quiet_NaN();
  const nlohmann::json j = r;
  EXPECT_EQ(j["counter_backend"], "pm_sampling");
  EXPECT_EQ(j["ranges"][0]["samples"][1],
            nlohmann::json::parse(R"({"start_ms": 0.5, "end_ms": 1.0, "values": [200.0, 6144.0]})"));
  EXPECT_EQ(j["ranges"][0]["samples"][2]["values"][1], "nan");
  StatusOr<Report> back = parse_report_json(dump(r));
  ASSERT_TRUE(back.ok()) << back.status().to_string();
  ASSERT_EQ(back->ranges[0].samples->size(), 3u);
  EXPECT_EQ((*back->ranges[0].samples)[1], (MetricSample{0.5, 1.0, {200.0, 6144.0}}));
  EXPECT_TRUE(std::isnan((*back->ranges[0].samples)[2].values[1]));
  (*r.ranges[0].samples)[2].values[1] = 2048.0;
  (*back->ranges[0].samples)[2].values[1] = 2048.0;
  EXPECT_EQ(*back, r);
}

// A range without samples is written as before the field existed, and a
// file without the key reads as no samples: both ways the same text.
TEST(ReportJson, a_range_without_samples_has_no_samples_key_and_reads_as_none) {
  const nlohmann::json j = sample_report();
  for (const nlohmann::json& range : j["ranges"]) EXPECT_FALSE(range.contains("samples"));
  const nlohmann::json triage = testing::triage_report();
  EXPECT_TRUE(triage["ranges"][0].contains("samples"));
  EXPECT_FALSE(triage["ranges"][1].contains("samples"));  // the declined range has none
  StatusOr<Report> back = parse_report_json(j.dump());
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(back->ranges[0].samples, std::vector<MetricSample>{});
  EXPECT_EQ(*back, sample_report());
  EXPECT_EQ(nlohmann::json(*back), j);
  Report absent = sample_report();
  absent.ranges[0].samples = std::nullopt;  // as empty: no key
  EXPECT_EQ(nlohmann::json(absent), j);
}

TEST(ReportJson, a_bad_sample_names_its_path) {
  nlohmann::json j = testing::triage_report();
  j["ranges"][0]["samples"][1]["values"][0] = "many";
  StatusOr<Report> back = parse_report_json(j.dump(), "t.json");
  ASSERT_FALSE(back.ok());
  EXPECT_EQ(back.status().message(),
            "t.json is not a valid rangereplay report: ranges[0].samples[1].values[0]: expected a number or \"nan\", "
            "\"inf\", \"-inf\", got string");
  j["ranges"][0]["samples"][0].erase("end_ms");
  back = parse_report_json(j.dump(), "t.json");
  ASSERT_FALSE(back.ok());
  EXPECT_EQ(back.status().message(),
            "t.json is not a valid rangereplay report: ranges[0].samples[0].end_ms: missing field");
}

TEST(ReportJson, the_budgets_gate_wait_and_counter_setup_are_the_reports_own_fields) {
  nlohmann::json j = sample_report();
  j["setup_ms"] = 12.5;
  j["gate_wait_ms"] = 3.0;
  j["time_budget"]["counter_setup_ms"] = 99.0;  // a copy that disagrees is not read
  j["time_budget"]["gate_wait_ms"] = 98.0;
  StatusOr<Report> back = parse_report_json(j.dump());
  ASSERT_TRUE(back.ok()) << back.status().message();
  const nlohmann::json again = *back;
  EXPECT_EQ(again["time_budget"]["counter_setup_ms"], 12.5);
  EXPECT_EQ(again["time_budget"]["gate_wait_ms"], 3.0);
  // A report whose gate wait is in its budget only keeps it.
  j.erase("gate_wait_ms");
  back = parse_report_json(j.dump());
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(back->gate_wait_ms, 98.0);
}

}  // namespace
}  // namespace rangereplay::report
