#include "report/report_table.h"

#include <gtest/gtest.h>
#include <sstream>
#include <vector>

#include "unit/report/sample_report.h"

namespace rangereplay::report {
namespace {

using testing::sample_report;

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

TEST(ReportTable, sample_report_renders_exactly) {
  const std::string expected =
      "rangereplay 0.1.0, pid 4242\n"
      "device: NVIDIA H200 (GH100, CC 9.0), driver 13.0\n"
      "command: ./stream --n 1000\n"
      "environment: LOCAL_RANK=0 RANK=1 on node7\n"
      "metrics: 2 requested, 3 passes, per-kernel values, counted by range_profiler, counter setup 171.2 ms, launcher "
      "checks 98.5 ms, verify on\n"
      "\n"
      "range 0 'step': 3 passes, 2 kernels, footprint 256.0 MiB, window 61.2 ms\n"
      "  stages: sync 0.120 ms, capture 1.50 ms, restore 3.00 ms, submit 0.400 ms, kernels 10.0 ms, "
      "counters 40.0 ms, decode 2.00 ms, verify 1.25 ms, tool 8.20 ms; begin 1.75 ms\n"
      "  snapshot: 4 regions; device 192.0 MiB (arena 256.0 MiB, new), pinned 64.0 MiB (arena 64.0 MiB, retained)\n"
      "  kernel 0: scale(float*, int) (1024, 1, 1)x(256, 1, 1), stream 7\n"
      "    ----------------------- ----------- ------------\n"
      "    Metric Name             Metric Unit Metric Value\n"
      "    ----------------------- ----------- ------------\n"
      "    dram__bytes_read.sum           byte    6,291,488\n"
      "    smsp__inst_executed.sum        inst       98,304\n"
      "    ----------------------- ----------- ------------\n"
      "  kernel 1: void add<float, 2>(float const*, float*) (64, 2, 1)x(128, 1, 1), shared 48.0 KiB, stream 7\n"
      "    ----------------------- ----------- ------------\n"
      "    Metric Name             Metric Unit Metric Value\n"
      "    ----------------------- ----------- ------------\n"
      "    dram__bytes_read.sum           byte     1,234.57\n"
      "    smsp__inst_executed.sum        inst            0\n"
      "    ----------------------- ----------- ------------\n"
      "  restored per pass (differential, footprint 256.0 MiB): passes 1-2 3.0 MiB each\n"
      "  verify: 1 divergent region in 1 of 2 replays\n"
      "    pass 2: 0x7f0000001000, 4.0 KiB, allocated at stream.cu:42\n"
      "  note: 2 device-to-host copies not re-executed\n"
      "\n"
      "range 1 'step': declined (free_in_range): cuMemFree(0x7f0000200000) inside the range; free it "
      "after the range ends\n"
      "\n"
      "error: counters unavailable after range 1: CUPTI_ERROR_NOT_INITIALIZED\n"
      "summary: 2 ranges (1 replayed, 1 declined), 2 kernels, 3 passes, 1 error\n";
  EXPECT_EQ(render_report_table(sample_report()), expected);
}

TEST(ReportTable, range_header_matches_the_documented_form) {
  Report r;
  RangeRecord range;
  range.name = "step";
  range.passes = 3;
  range.kernels.resize(5);
  range.footprint_bytes = 256 * testing::kMiB;
  range.timings.window_ms = 61.2;
  EXPECT_EQ(lines_of(render_range_table(r, range))[0],
            "range 0 'step': 3 passes, 5 kernels, footprint 256.0 MiB, window 61.2 ms");
}

TEST(ReportTable, large_metric_values_widen_the_value_column) {
  Report r;
  RangeRecord range;
  range.passes = 1;
  KernelRecord k;
  k.name = "k()";
  k.metrics = {{"smsp__inst_executed.sum", "inst", 12345678901234.0}, {"x", "", 1}};
  range.kernels = {k};
  const std::vector<std::string> lines = lines_of(render_range_table(r, range));
  // A range without a name has no quotes; no stage line is skipped; no snapshot without regions.
  EXPECT_EQ(lines[0], "range 0: 1 pass, 1 kernel, footprint 0 B, window 0.000 ms");
  EXPECT_EQ(lines[2], "  kernel 0: k() (1, 1, 1)x(1, 1, 1)");
  EXPECT_EQ(lines[4], "    Metric Name             Metric Unit       Metric Value");
  EXPECT_EQ(lines[6], "    smsp__inst_executed.sum        inst 12,345,678,901,234");
  EXPECT_EQ(lines[7], "    x" + std::string(52, ' ') + "1");  // 4 + 23 + 1 + 11 + 1 + 18 columns
}

TEST(ReportTable, declined_range_is_one_line_with_reason_and_detail) {
  Report r;
  RangeRecord range;
  range.index = 4;
  range.name = "cudaProfilerStart";
  range.declined = true;
  range.decline_reason = "snapshot_too_large";
  range.decline_detail = "needs 90.0 GiB, 60.0 GiB available; narrow the range";
  EXPECT_EQ(render_range_table(r, range),
            "range 4 'cudaProfilerStart': declined (snapshot_too_large): needs 90.0 GiB, 60.0 GiB available; "
            "narrow the range\n");
  range.decline_detail.clear();
  range.notes = {"ran once, unchanged"};
  EXPECT_EQ(render_range_table(r, range),
            "range 4 'cudaProfilerStart': declined (snapshot_too_large)\n  note: ran once, unchanged\n");
}

TEST(ReportTable, whole_range_metrics_get_their_own_table) {
  Report r;
  r.range_metrics = "whole";
  RangeRecord range;
  range.passes = 2;
  KernelRecord k;
  k.mangled_name = "_Z6kernelPfi";
  range.kernels = {k};
  range.range_metrics = {{"gpu__time_duration.sum", "nsecond", 1500.25}};
  EXPECT_EQ(render_range_table(r, range),
            "range 0: 2 passes, 1 kernel, footprint 0 B, window 0.000 ms\n"
            "  stages: sync 0.000 ms, capture 0.000 ms, restore 0.000 ms, submit 0.000 ms, kernels 0.000 ms, "
            "counters 0.000 ms, decode 0.000 ms, tool 0.000 ms; begin 0.000 ms\n"
            "  kernel 0: kernel(float*, int) (1, 1, 1)x(1, 1, 1)\n"
            "  range metrics:\n"
            "    ---------------------- ----------- ------------\n"
            "    Metric Name            Metric Unit Metric Value\n"
            "    ---------------------- ----------- ------------\n"
            "    gpu__time_duration.sum     nsecond     1,500.25\n"
            "    ---------------------- ----------- ------------\n");
}

TEST(ReportTable, restores_merge_runs_of_equal_passes_and_verify_reports_success) {
  Report r;
  r.verify = true;
  RangeRecord range;
  range.passes = 5;
  range.pass_records = {{1, 1024, {}}, {2, 1024, {}}, {3, 2048, {}}, {4, 1024, {}}};
  const std::vector<std::string> lines = lines_of(render_range_table(r, range));
  ASSERT_EQ(lines.size(), 4u);
  EXPECT_EQ(lines[1],
            "  stages: sync 0.000 ms, capture 0.000 ms, restore 0.000 ms, submit 0.000 ms, kernels 0.000 ms, "
            "counters 0.000 ms, decode 0.000 ms, verify 0.000 ms, tool 0.000 ms; begin 0.000 ms");
  EXPECT_EQ(lines[2], "  restored per pass (footprint 0 B): passes 1-2 1.0 KiB each, pass 3 2.0 KiB, pass 4 1.0 KiB");
  EXPECT_EQ(lines[3], "  verify: all 4 replays reproduced the range-exit state");
}

TEST(ReportTable, very_long_kernel_names_are_shortened) {
  Report r;
  RangeRecord range;
  KernelRecord k;
  k.name = std::string(300, 'a') + "(int)";
  range.kernels = {k};
  TableOptions options;
  options.max_kernel_name_width = 20;
  EXPECT_EQ(lines_of(render_range_table(r, range, options))[2],
            "  kernel 0: " + std::string(12, 'a') + "...(int) (1, 1, 1)x(1, 1, 1)");  // 12 + 3 + 5 bytes
}

TEST(ReportTable, empty_report_has_a_preamble_and_a_summary) {
  EXPECT_EQ(render_report_table(Report{}),
            "rangereplay\n"
            "metrics: 0 requested, 0 passes, per-kernel values\n"
            "\n"
            "summary: 0 ranges (0 replayed, 0 declined), 0 kernels, 0 passes, 0 errors\n");
}

TEST(ReportTable, command_arguments_with_spaces_are_quoted) {
  Report r;
  r.command = {"python", "train.py", "--name", "my run", "it's"};
  EXPECT_EQ(lines_of(render_report_header(r))[1], "command: python train.py --name 'my run' 'it'\\''s'");
}

// Bytes a terminal acts on: ESC (escape sequences), BEL, CR (overwrites the
// line), DEL, a C1 CSI (U+009B) and a bare 8-bit CSI byte.
constexpr const char* kControls = "\x1b[2J\a\r\x7f\xc2\x9b\x9b";
constexpr const char* kEscaped = "\\x1b[2J\\x07\\x0d\\x7f\\u009b\\x9b";

bool has_control_byte(const std::string& text) {
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if ((c < 0x20 && c != '\n') || c == 0x7f || c == 0x9b) return true;
  }
  return false;
}

TEST(ReportTable, control_bytes_in_names_are_escaped) {
  Report r = sample_report();
  r.device_name = std::string("H200") + kControls;
  r.command = {"./app", std::string("arg") + kControls};
  (*r.environment)["RANK"] = kControls;
  r.ranges[0].name = std::string("step") + kControls + "\nfake line";
  r.ranges[0].kernels[0].name = std::string("scale") + kControls;
  r.ranges[0].kernels[0].metrics[0].name = std::string("dram") + kControls;
  r.ranges[1].decline_detail = kControls;
  r.ranges[0].notes = {kControls};
  r.errors = {kControls};
  const std::string text = render_report_table(r);
  EXPECT_FALSE(has_control_byte(text)) << text;
  EXPECT_NE(text.find(std::string("range 0 'step") + kEscaped + "\\x0afake line': 3 passes"), std::string::npos)
      << text;
  EXPECT_NE(text.find(std::string("  kernel 0: scale") + kEscaped + " (1024"), std::string::npos) << text;
  EXPECT_NE(text.find(std::string("device: H200") + kEscaped + " (GH100"), std::string::npos) << text;
  // The escaped argument has a backslash, so it is quoted as a shell would need.
  EXPECT_NE(text.find(std::string("command: ./app 'arg") + kEscaped + "'\n"), std::string::npos) << text;
  EXPECT_NE(text.find(std::string("error: ") + kEscaped), std::string::npos) << text;
  // The metric column is as wide as the escaped name, so the rows still align.
  const std::string row = std::string("    dram") + kEscaped + " ";
  EXPECT_NE(text.find(row), std::string::npos) << text;
  for (const std::string& line : lines_of(text)) EXPECT_NE(line.rfind("fake line", 0), 0u) << line;
}

TEST(ReportTable, utf8_names_are_kept) {
  Report r = sample_report();
  r.ranges[0].name = "größe 梯度";
  EXPECT_NE(render_report_table(r).find("range 0 'größe 梯度': 3 passes"), std::string::npos);
}

// A range profiled by --set triage: its totals as the whole-range table,
// then how many points over which span; the header names the backend.
TEST(ReportTable, a_triage_range_shows_its_totals_and_its_samples_count_and_span) {
  const Report r = testing::triage_report();
  const std::string text = render_report_table(r);
  EXPECT_NE(text.find("metrics: 2 requested, 1 pass, whole-range values, counted by pm_sampling"), std::string::npos)
      << text;
  const std::string range = render_range_table(r, r.ranges[0]);
  const std::size_t totals = range.find("  range metrics:\n");
  const std::size_t samples =
      range.find("  samples: 3 points over 1.50 ms (PM sampling; the JSON and HTML reports hold the series)\n");
  ASSERT_NE(totals, std::string::npos) << range;
  ASSERT_NE(samples, std::string::npos) << range;
  EXPECT_LT(totals, samples);
  EXPECT_EQ(render_samples_line(r.ranges[1]), "");  // declined, no samples
  EXPECT_EQ(render_range_table(sample_report(), sample_report().ranges[0]).find("samples:"), std::string::npos);
}

TEST(ReportTable, the_sampled_span_runs_from_the_first_start_to_the_last_end) {
  RangeRecord range;
  range.samples = std::vector<MetricSample>{{0.0, 0.25, {1.0}}};
  EXPECT_EQ(render_samples_line(range),
            "  samples: 1 point over 0.250 ms (PM sampling; the JSON and HTML reports hold the series)\n");
  range.samples = std::vector<MetricSample>{{0.0, 2.0, {1.0}}, {2.0, 120.5, {1.0}}};
  EXPECT_EQ(render_samples_line(range),
            "  samples: 2 points over 120.5 ms (PM sampling; the JSON and HTML reports hold the series)\n");
  range.samples = std::nullopt;
  EXPECT_EQ(render_samples_line(range), "");
}

}  // namespace
}  // namespace rangereplay::report
