// The terminal view of a saved report (`rangereplay report x.json`): the
// pages, the metrics grouped by the set's sections, and the range and kernel
// filters, on the real H200 reports (--set full of examples/stream and of a
// torch training step).
#include "report/report_view.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <set>
#include <sstream>
#include <string>

#include "core/config/metric_sets.h"
#include "report/format_helpers.h"
#include "report/kernel_sections.h"
#include "report/report_json.h"
#include "unit/report/fixture_reports.h"
#include "unit/report/sample_report.h"

namespace rangereplay::report {
namespace {

using testing::stream_report;
using testing::torch_report;

std::size_t kernel_count(const Report& r) {
  std::size_t n = 0;
  for (const RangeRecord& range : r.ranges) n += range.kernels.size();
  return n;
}

std::size_t count_of_text(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + what.size())) ++n;
  return n;
}

TEST(ReportView, pages_are_named_summary_details_or_raw) {
  EXPECT_EQ(*parse_view_page("summary"), ViewPage::kSummary);
  EXPECT_EQ(*parse_view_page("details"), ViewPage::kDetails);
  EXPECT_EQ(*parse_view_page("raw"), ViewPage::kRaw);
  const StatusOr<ViewPage> bad = parse_view_page("full");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(), "--page 'full': give summary, details or raw");
}

TEST(ReportView, every_metric_of_a_kernel_is_in_exactly_one_section_of_the_full_set) {
  const Report& r = stream_report();
  ASSERT_EQ(r.ranges.size(), 2u);
  const KernelRecord& k = r.ranges[0].kernels.at(0);
  ASSERT_EQ(k.metrics.size(), 392u);
  const std::vector<MetricGroup> groups = group_by_sections(k.metrics, r.metrics);
  std::multiset<std::string> shown;
  for (const MetricGroup& g : groups) {
    EXPECT_FALSE(g.metrics.empty()) << g.title;
    for (const MetricValue& m : g.metrics) shown.insert(m.name);
  }
  std::multiset<std::string> collected;
  for (const MetricValue& m : k.metrics) collected.insert(m.name);
  EXPECT_EQ(shown, collected);
  // The groups follow the full set's sections, in its order; a --set full
  // report has nothing outside them.
  const MetricSet* full = *find_metric_set("full");
  std::vector<std::string> titles;
  for (const std::string& name : full->sections) titles.push_back(find_metric_section(name)->title);
  std::size_t at = 0;
  for (const MetricGroup& g : groups) {
    EXPECT_NE(g.title, "Other");
    while (at < titles.size() && titles[at] != g.title) ++at;
    EXPECT_LT(at, titles.size()) << g.title << " is not a section of the full set, or out of order";
  }
  ASSERT_FALSE(groups.empty());
  EXPECT_EQ(groups.front().title, "Speed Of Light");
  EXPECT_EQ(groups.front().metrics.front().name, "gpu__time_duration.sum");
  EXPECT_EQ(groups.front().metrics.front().unit, "nanosecond");
}

TEST(ReportView, metrics_in_no_section_go_to_other_last) {
  const std::vector<MetricValue> metrics = {{"my__own_counter.sum", "byte", 7},
                                            {"dram__bytes_read.sum", "byte", 1024},
                                            {"gpu__time_duration.sum", "nanosecond", 5}};
  const std::vector<MetricGroup> groups = group_by_sections(metrics, {});
  ASSERT_GE(groups.size(), 2u);
  EXPECT_EQ(groups.back().title, "Other");
  ASSERT_EQ(groups.back().metrics.size(), 1u);
  EXPECT_EQ(groups.back().metrics[0].name, "my__own_counter.sum");
  std::size_t in_sections = 0;
  for (std::size_t i = 0; i + 1 < groups.size(); ++i) in_sections += groups[i].metrics.size();
  EXPECT_EQ(in_sections, 2u);
}

TEST(ReportView, details_show_one_kernel_by_section_with_labels_units_and_values) {
  StatusOr<Report> picked = filter_report(stream_report(), {"triad", "0"});
  ASSERT_TRUE(picked.ok()) << picked.status().to_string();
  ASSERT_EQ(picked->ranges.size(), 1u);
  ASSERT_EQ(picked->ranges[0].kernels.size(), 1u);
  const KernelRecord& k = picked->ranges[0].kernels[0];
  const std::string text = render_report_view(*picked, ViewPage::kDetails);
  EXPECT_NE(
      text.find("  kernel 3: rangereplay::example::stream_triad_kernel(double*, double...ouble const*, unsigned long)\n"
                "    launch (10923, 1, 1)x(256, 1, 1), 17.86 us\n"),
      std::string::npos)
      << "the name shortened to fit 100 columns, the launch below it\n"
      << text;
  EXPECT_EQ(text.find("stream_copy_kernel"), std::string::npos) << "only the kernel asked for";
  EXPECT_NE(text.find("    Section: GPU Speed Of Light Throughput\n"), std::string::npos);
  EXPECT_NE(text.find("    Section: Memory Workload Analysis\n"), std::string::npos);
  EXPECT_NE(text.find("    Section: Warp State Statistics\n"), std::string::npos);
  // Every row of every section is on a line with its label, unit and value.
  std::set<std::string> shown_metrics;
  for (const KernelSection& s : kernel_sections(k)) {
    const std::size_t section = text.find("    Section: " + s.title + "\n");
    ASSERT_NE(section, std::string::npos) << s.title;
    for (const SectionRow& row : s.rows) {
      if (!row.metric.empty()) shown_metrics.insert(row.metric);
      const std::string label = "\n" + std::string(row.group.empty() ? "    " : "      ") + row.label + " ";
      const std::size_t group = row.group.empty() ? section : text.find("\n    " + row.group + "\n", section);
      const std::size_t line = text.find(label, group) + 1;
      ASSERT_NE(line, 0u) << row.label;
      const std::string shown = text.substr(line, text.find('\n', line) - line);
      if (!row.unit.empty()) {
        EXPECT_NE(shown.find(" " + row.unit + " "), std::string::npos) << shown;
      }
      EXPECT_TRUE(shown.ends_with(" " + row.value)) << shown;
    }
  }
  EXPECT_NE(text.find(fmt::format("    {} more: --page raw lists every metric\n",
                                  count_of(k.metrics.size() - shown_metrics.size(), "metric"))),
            std::string::npos)
      << "the metrics no section shows are counted";
  EXPECT_NE(text.find("summary: 1 range (1 replayed, 0 declined), 1 kernel, 32 passes, 0 errors\n"), std::string::npos)
      << "the footer counts what is shown";
}

TEST(ReportView, the_summary_gives_one_line_per_kernel_with_duration_and_throughputs) {
  const Report& r = stream_report();
  const std::string text = render_report_view(r, ViewPage::kSummary);
  const KernelRecord& copy = r.ranges[1].kernels[0];
  double ns = 0, sm = 0, mem = 0;
  for (const MetricValue& m : copy.metrics) {
    if (m.name == "gpu__time_duration.sum") ns = m.value;
    if (m.name == "sm__throughput.avg.pct_of_peak_sustained_elapsed") sm = m.value;
    if (m.name == "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed") mem = m.value;
  }
  ASSERT_GT(ns, 1000);
  char numbers[64];
  std::snprintf(numbers, sizeof numbers, "%.2f us %9.1f %8.1f", ns / 1000, sm, mem);
  const std::string expected = std::string(numbers) +
                               "  (10923, 1, 1)x(256, 1, 1)  rangereplay::example::stream_copy_kernel(double const*, "
                               "double*, unsigned long)\n";
  const std::size_t range1 = text.find("range 1 'step'");
  ASSERT_NE(range1, std::string::npos) << text;
  EXPECT_NE(text.find(expected, range1), std::string::npos) << expected << "\n" << text;
  EXPECT_EQ(count_of_text(text, "rangereplay::example::stream_"), 12u);
  EXPECT_EQ(text.find("dram__bytes_read.sum"), std::string::npos) << "the summary lists no metric tables";
  // The time budget, largest part first.
  EXPECT_NE(text.find("time budget: 3,564.6 ms wall\n  replay windows "), std::string::npos) << text;
}

TEST(ReportView, long_template_names_are_shortened_in_the_summary_and_whole_in_raw) {
  const Report& r = torch_report();
  ASSERT_EQ(kernel_count(r), 1120u);
  const KernelRecord* longest = &r.ranges[0].kernels[0];
  for (const KernelRecord& k : r.ranges[0].kernels)
    if (k.name.size() > longest->name.size()) longest = &k;
  ASSERT_GT(longest->name.size(), 1000u);
  const std::string summary = render_report_view(r, ViewPage::kSummary);
  std::istringstream lines(summary);
  std::size_t widest = 0;
  for (std::string line; std::getline(lines, line);) {
    if (line.starts_with("time budget") || line.starts_with("  ")) widest = std::max(widest, line.size());
  }
  // "#", duration, two throughputs, launch and a name of at most 100 bytes.
  EXPECT_LE(widest, 180u);
  EXPECT_EQ(summary.find(longest->name), std::string::npos);
  EXPECT_NE(summary.find(truncate_middle(longest->name, kViewKernelNameWidth)), std::string::npos);

  StatusOr<Report> one = filter_report(r, {longest->name, "0"});
  ASSERT_TRUE(one.ok()) << one.status().to_string();
  EXPECT_NE(render_report_view(*one, ViewPage::kRaw).find(longest->name), std::string::npos);
}

TEST(ReportView, kernel_names_filter_by_part_or_by_re2_pattern) {
  const Report& r = stream_report();
  StatusOr<Report> two = filter_report(r, {"regex:stream_(add|mul)_kernel", ""});
  ASSERT_TRUE(two.ok()) << two.status().to_string();
  ASSERT_EQ(two->ranges.size(), 2u);
  for (const RangeRecord& range : two->ranges) {
    ASSERT_EQ(range.kernels.size(), 2u);
    EXPECT_EQ(range.kernels[0].index, 1u);  // mul
    EXPECT_EQ(range.kernels[1].index, 2u);  // add
  }
  StatusOr<Report> anchored = filter_report(r, {"regex:^rangereplay::example::stream_dot", ""});
  ASSERT_TRUE(anchored.ok());
  EXPECT_EQ(kernel_count(*anchored), 2u);

  const StatusOr<Report> bad = filter_report(r, {"regex:stream_(add", ""});
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), StatusCode::kInvalidArgument);
  EXPECT_TRUE(bad.status().message().starts_with("--kernel-name 'regex:stream_(add': missing )"))
      << bad.status().to_string();
  const StatusOr<Report> none = filter_report(r, {"gemm", ""});
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.status().code(), StatusCode::kNotFound);
  EXPECT_EQ(none.status().message(),
            "--kernel-name 'gemm' matches none of the 12 kernels of the ranges shown; give a part of a name as --page "
            "summary prints it, or regex:<RE2 pattern>");
}

TEST(ReportView, ranges_filter_by_index_list_or_name) {
  const Report& r = stream_report();
  StatusOr<Report> second = filter_report(r, {"", "1"});
  ASSERT_TRUE(second.ok());
  ASSERT_EQ(second->ranges.size(), 1u);
  EXPECT_EQ(second->ranges[0].index, 1u);
  EXPECT_EQ(second->ranges[0], r.ranges[1]);
  StatusOr<Report> by_name = filter_report(r, {"", "step"});
  ASSERT_TRUE(by_name.ok());
  EXPECT_EQ(by_name->ranges.size(), 2u);
  const StatusOr<Report> past_the_end = filter_report(r, {"", "2-"});
  ASSERT_FALSE(past_the_end.ok());
  EXPECT_EQ(past_the_end.status().message(),
            "--range '2-' selects none of the report's ranges (0 'step', 1 'step'); give range indices (0,2-3) or a "
            "range name");
  const StatusOr<Report> bad_list = filter_report(r, {"", "3-1"});
  ASSERT_FALSE(bad_list.ok());
  EXPECT_EQ(bad_list.status().code(), StatusCode::kInvalidArgument);
  EXPECT_TRUE(bad_list.status().message().starts_with("--range '3-1'")) << bad_list.status().to_string();
}

// The summary and details pages give a triage range's samples under its
// line; a kernel filter keeps kernels only, so neither totals nor samples.
TEST(ReportView, a_triage_range_says_its_samples_and_a_kernel_filter_drops_them) {
  const Report r = testing::triage_report();
  const std::string line =
      "  samples: 3 points over 1.50 ms (PM sampling; the JSON and HTML reports hold the series)\n";
  for (ViewPage page : {ViewPage::kSummary, ViewPage::kDetails, ViewPage::kRaw}) {
    const std::string text = render_report_view(r, page);
    EXPECT_NE(text.find(line), std::string::npos) << text;
    EXPECT_NE(text.find("counted by pm_sampling"), std::string::npos) << text;
  }
  StatusOr<Report> kernels = filter_report(r, {.kernel_name = "scale"});
  ASSERT_TRUE(kernels.ok()) << kernels.status().message();
  EXPECT_TRUE(kernels->ranges[0].range_metrics.empty());
  EXPECT_EQ(kernels->ranges[0].samples, std::vector<MetricSample>{});
  StatusOr<Report> by_range = filter_report(r, {.range = "0"});
  ASSERT_TRUE(by_range.ok());
  EXPECT_EQ(by_range->ranges[0].samples, r.ranges[0].samples);
}

}  // namespace
}  // namespace rangereplay::report
