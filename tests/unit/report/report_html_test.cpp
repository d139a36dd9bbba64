// The HTML page's structure (the browser test, tests/scripts/html_report_test.sh,
// checks what its script draws): the report embedded as JSON that cannot
// end its <script> element early, Chart.js inlined only when given, the
// roofline's metric list, the range's roofline in the embedded JSON, the
// ranges' kernel groups in JSON of their own.
#include "report/report_html.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "core/config/metric_sets.h"
#include "report/roofline.h"
#include "unit/report/sample_report.h"

namespace rangereplay::report {
namespace {

TEST(ReportHtml, embeds_the_report_and_inlines_chart_js_when_given) {
  const StatusOr<std::string> page = render_report_html(testing::sample_report(), "/* chart.js */");
  ASSERT_TRUE(page.ok()) << page.status().to_string();
  EXPECT_EQ(page->rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_NE(page->find("<script>/* chart.js */</script>"), std::string::npos);
  EXPECT_NE(page->find(
                "<script type=\"application/json\" id=\"rr-data\">{\"cache_control\":\"none\",\"chip_name\":\"GH100\""),
            std::string::npos);
  EXPECT_NE(page->find("<pre id=\"rr-check\" hidden></pre>"), std::string::npos);
  // The sample's metrics lack the roofline's: the page's data says so.
  EXPECT_NE(page->find("\"roofline\":{\"available\":false"), std::string::npos);
  const StatusOr<std::string> bare = render_report_html(testing::sample_report(), "");
  ASSERT_TRUE(bare.ok());
  EXPECT_EQ(bare->find("/* chart.js */"), std::string::npos);
}

TEST(ReportHtml, embeds_each_ranges_kernel_groups) {
  const StatusOr<std::string> page = render_report_html(testing::sample_report(), "");
  ASSERT_TRUE(page.ok()) << page.status().to_string();
  const std::string open = "<script type=\"application/json\" id=\"rr-groups\">";
  const std::size_t at = page->find(open);
  ASSERT_NE(at, std::string::npos);
  const std::string groups = page->substr(at + open.size(), page->find("</script>", at) - at - open.size());
  // The sample's replayed range: scale (kernel 0) and add (kernel 1), 0 ns
  // each (no duration metric), so by count, then by name (each "<" written
  // as \u003c in a <script> element); its declined range: none.
  // Keys in name order: "bottleneck" (none: no Speed Of Light values) first.
  EXPECT_EQ(groups.rfind("[{\"groups\":[{\"bottleneck\":\"\",\"full_names\":[\"void add\\u003cfloat, 2>(float const*, "
                         "float*)\"],\"kernels\":[1],",
                         0),
            0u)
      << groups;
  EXPECT_NE(groups.find("\"name\":\"add\""), std::string::npos) << groups;
  EXPECT_NE(groups.find("{\"bottleneck\":\"\",\"full_names\":[\"scale(float*, int)\"],\"kernels\":[0],"),
            std::string::npos)
      << groups;
  EXPECT_NE(groups.find("\"member_bottlenecks\":[\"\"],\"member_top_stalls\":[\"\"]"), std::string::npos) << groups;
  EXPECT_NE(groups.find("\"sol_memory_pct\":null"), std::string::npos) << groups;
  EXPECT_NE(groups.find("{\"groups\":[],\"total_ns\":0.0}]"), std::string::npos) << groups;
}

TEST(ReportHtml, text_from_the_report_cannot_close_a_script_element) {
  Report r = testing::sample_report();
  r.ranges[0].name = "</script><script>alert(1)</script>";
  const StatusOr<std::string> page = render_report_html(r, "");
  ASSERT_TRUE(page.ok());
  EXPECT_EQ(page->find("</script><script>alert(1)"), std::string::npos);
  EXPECT_NE(page->find("\\u003c/script>\\u003cscript>alert(1)\\u003c/script>"), std::string::npos);
  r.ranges[0].name = "<!--<script>";
  const StatusOr<std::string> comment = render_report_html(r, "");
  ASSERT_TRUE(comment.ok());
  EXPECT_EQ(comment->find("<!--<script>"), std::string::npos);
}

TEST(ReportHtml, the_roofline_reads_fp_and_tensor_counts_duration_bytes_and_their_peaks) {
  const auto names = roofline_metrics();
  ASSERT_FALSE(names.empty());
  EXPECT_NE(std::find(names.begin(), names.end(), "sm__ops_path_tensor_src_fp16.sum"), names.end());
  EXPECT_NE(std::find(names.begin(), names.end(), "sm__ops_path_tensor_src_bf16_dst_fp32.sum.peak_sustained"),
            names.end());
  EXPECT_NE(std::find(names.begin(), names.end(), "smsp__sass_thread_inst_executed_op_hfma_pred_on.sum"), names.end());
  EXPECT_NE(std::find(names.begin(), names.end(), "dram__bytes.sum.peak_sustained"), names.end());
  EXPECT_NE(std::find(names.begin(), names.end(), "gpu__time_duration.sum"), names.end());
}

TEST(ReportHtml, the_full_set_has_every_metric_the_roofline_reads) {
  // The page tells a report without them to profile with --set full.
  auto full = expand_metric_list("", "full");
  ASSERT_TRUE(full.ok()) << full.status().to_string();
  for (const std::string& name : roofline_metrics())
    EXPECT_NE(std::find(full->begin(), full->end(), name), full->end()) << name;
}

// A triage range's samples travel in the embedded report, and the page's
// script draws them (the browser test counts its charts).
TEST(ReportHtml, a_triage_ranges_samples_are_embedded_for_the_sample_charts) {
  const StatusOr<std::string> page = render_report_html(testing::triage_report(), "");
  ASSERT_TRUE(page.ok()) << page.status().to_string();
  EXPECT_NE(page->find("\"samples\":[{\"end_ms\":0.5,\"start_ms\":0.0,\"values\":[100.0,4096.0]},"), std::string::npos);
  EXPECT_NE(page->find("const drawSamples = (sec, r) =>"), std::string::npos);
  EXPECT_NE(page->find("drawSamples(sec, r);"), std::string::npos);
  EXPECT_NE(page->find("ms from the range\\'s start"), std::string::npos);
  const StatusOr<std::string> plain = render_report_html(testing::sample_report(), "");
  ASSERT_TRUE(plain.ok());
  EXPECT_EQ(plain->find("\"samples\":"), std::string::npos);
}

}  // namespace
}  // namespace rangereplay::report

namespace rangereplay::report {
namespace {

TEST(ReportHtml, embeds_each_kernels_sections_by_its_block_id) {
  Report report = testing::sample_report();
  RangeRecord& range = report.ranges[0];
  ASSERT_FALSE(range.kernels.empty());
  range.kernels[0].metrics.push_back({"sm__throughput.avg.pct_of_peak_sustained_elapsed", "%", 82.5});
  const StatusOr<std::string> page = render_report_html(report, "");
  ASSERT_TRUE(page.ok()) << page.status().to_string();
  const std::string open = "<script type=\"application/json\" id=\"rr-sections\">";
  const std::size_t at = page->find(open);
  ASSERT_NE(at, std::string::npos);
  const std::string sections = page->substr(at + open.size(), page->find("</script>", at) - at - open.size());
  const std::string id = "\"rr-r" + std::to_string(range.index) + "-k" + std::to_string(range.kernels[0].index) + "\"";
  EXPECT_NE(sections.find(id + ":[{\"rows\":["), std::string::npos) << sections;
  EXPECT_NE(sections.find("[\"\",\"Compute (SM) Throughput\",\"82.50\",\"%\"]"), std::string::npos) << sections;
  EXPECT_NE(sections.find("\"title\":\"GPU Speed Of Light Throughput\""), std::string::npos) << sections;
}

}  // namespace
}  // namespace rangereplay::report
