// Two reports compared: pairing of ranges (name and instance) and kernels
// (name, grid, block, order), the percent change, and everything one side
// lacks listed (ranges, kernels, metric names), in the table, CSV and JSON.
#include "report/report_diff.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <limits>
#include <string>

#include "report/report_json.h"

#include "unit/report/sample_report.h"

namespace rangereplay::report {
namespace {

using testing::sample_report;

// The row of `metric` for the first kernel whose key starts with
// `kernel_prefix`; a row that is all zeros (and a failure) when there is none.
const DiffRow* find_row(const ReportDiff& d, const std::string& kernel_prefix, const std::string& metric) {
  for (const DiffRow& row : d.rows) {
    if (row.kernel.rfind(kernel_prefix, 0) == 0 && row.metric == metric) return &row;
  }
  ADD_FAILURE() << "no row for " << kernel_prefix << " / " << metric;
  static const DiffRow none{};
  return &none;
}

TEST(ReportDiff, a_report_against_itself_changes_nothing) {
  const Report r = sample_report();
  const ReportDiff d = diff_reports(r, r);
  ASSERT_EQ(d.rows.size(), 4u);  // 2 kernels x 2 metrics of the replayed range
  for (const DiffRow& row : d.rows) {
    EXPECT_EQ(row.range, "step #0");
    ASSERT_TRUE(row.change_pct.has_value());
    EXPECT_EQ(*row.change_pct, 0.0);
  }
  EXPECT_TRUE(d.unmatched.empty());
  // The second `step` is declined on both sides: said, not compared.
  EXPECT_EQ(d.declined, (std::vector<std::string>{"range 'step #1' declined in the baseline (free_in_range)",
                                                  "range 'step #1' declined in the new report (free_in_range)"}));
  EXPECT_EQ(find_row(d, "scale(float*, int) (1024,1,1)x(256,1,1) #0", "smsp__inst_executed.sum")->base, 98304);
}

TEST(ReportDiff, changes_are_in_percent_of_the_baseline) {
  const Report base = sample_report();
  Report next = sample_report();
  next.ranges[0].kernels[0].metrics[0].value = 6291488 * 1.5;  // dram bytes of `scale` +50%
  next.ranges[0].kernels[1].metrics[1].value = 10;             // instructions of `add`: from 0
  const ReportDiff d = diff_reports(base, next);
  EXPECT_DOUBLE_EQ(*find_row(d, "scale", "dram__bytes_read.sum")->change_pct, 50.0);
  EXPECT_FALSE(find_row(d, "void add", "smsp__inst_executed.sum")->change_pct.has_value());  // 0 -> 10
}

TEST(ReportDiff, what_only_one_side_has_is_listed) {
  const Report base = sample_report();
  Report next = sample_report();
  next.ranges[0].kernels.pop_back();  // `add` gone
  next.ranges[0].kernels[0].metrics.push_back({"lts__t_bytes.sum", "byte", 7});
  RangeRecord extra;
  extra.name = "eval";
  next.ranges.push_back(extra);
  const ReportDiff d = diff_reports(base, next);
  EXPECT_EQ(d.unmatched,
            (std::vector<std::string>{
                "kernel 'void add<float, 2>(float const*, float*) (64,2,1)x(128,1,1) #0' of range 'step #0' only in "
                "the baseline",
                "range 'eval #0' only in the new report", "metric 'lts__t_bytes.sum' only in the new report"}));
  const std::string table = render_diff_table(d);
  EXPECT_NE(table.find("unmatched:\n  kernel 'void add"), std::string::npos) << table;
  EXPECT_NE(table.find("2 values compared, 3 unmatched, 2 declined"), std::string::npos) << table;
}

TEST(ReportDiff, values_in_other_units_or_of_another_gpu_are_said) {
  const Report base = sample_report();
  Report next = sample_report();
  next.device_name = "NVIDIA RTX 4090";
  next.chip_name = "AD102";
  for (KernelRecord& k : next.ranges[0].kernels) k.metrics[0].unit = "Kbyte";
  const ReportDiff d = diff_reports(base, next);
  EXPECT_EQ(d.rows.size(), 2u);  // the instruction counts only
  EXPECT_EQ(d.unmatched,
            (std::vector<std::string>{"the reports are of different GPUs: NVIDIA H200 (GH100) in the baseline, NVIDIA "
                                      "RTX 4090 (AD102) in the new report",
                                      "metric 'dram__bytes_read.sum' is in byte in the baseline and in Kbyte in the "
                                      "new report: not compared"}));
}

TEST(ReportDiff, kernels_alike_pair_in_their_order) {
  Report base = sample_report();
  base.ranges[0].kernels[1] = base.ranges[0].kernels[0];  // `scale` twice
  Report next = base;
  next.ranges[0].kernels[1].metrics[1].value = 2 * 98304.0;  // the second `scale` doubled
  const ReportDiff d = diff_reports(base, next);
  EXPECT_EQ(*find_row(d, "scale(float*, int) (1024,1,1)x(256,1,1) #0", "smsp__inst_executed.sum")->change_pct, 0.0);
  EXPECT_DOUBLE_EQ(*find_row(d, "scale(float*, int) (1024,1,1)x(256,1,1) #1", "smsp__inst_executed.sum")->change_pct,
                   100.0);
}

TEST(ReportDiff, csv_and_json_carry_every_row) {
  const Report base = sample_report();
  Report next = sample_report();
  next.ranges[0].kernels[0].metrics[1].value = 98304 * 2;
  const ReportDiff d = diff_reports(base, next);
  const std::string csv = render_diff_csv(d);
  EXPECT_EQ(csv.rfind("range,kernel,metric,unit,base,new,change_pct\n", 0), 0u);
  EXPECT_NE(csv.find("step #0,\"scale(float*, int) (1024,1,1)x(256,1,1) #0\",smsp__inst_executed.sum,inst,98304,"
                     "196608,100\n"),
            std::string::npos)
      << csv;
  const nlohmann::json j = nlohmann::json::parse(render_diff_json(d));
  EXPECT_EQ(j.at("rows").size(), 4u);
  EXPECT_EQ(j.at("declined").size(), 2u);
  EXPECT_EQ(j.at("rows").at(1).at("change_pct"), 100.0);
}

TEST(ReportDiff, a_metric_one_kernel_lacks_is_listed_for_that_kernel_only) {
  const Report base = sample_report();
  Report next = sample_report();
  next.ranges[0].kernels[1].metrics.pop_back();  // `add` has no instruction count in the new report
  const ReportDiff d = diff_reports(base, next);
  EXPECT_EQ(d.rows.size(), 3u);
  EXPECT_EQ(d.unmatched,
            (std::vector<std::string>{"metric 'smsp__inst_executed.sum' missing for kernel 'void add<float, 2>(float "
                                      "const*, float*) (64,2,1)x(128,1,1) #0' of range 'step #0' in the new report"}));
  // And the other way round.
  const ReportDiff back = diff_reports(next, base);
  EXPECT_EQ(back.unmatched,
            (std::vector<std::string>{"metric 'smsp__inst_executed.sum' missing for kernel 'void add<float, 2>(float "
                                      "const*, float*) (64,2,1)x(128,1,1) #0' of range 'step #0' in the baseline"}));
}

TEST(ReportDiff, a_metric_one_range_lacks_is_listed_for_that_range_only) {
  Report base = sample_report();
  base.range_metrics = "whole";
  RangeRecord& step = base.ranges[0];
  for (KernelRecord& k : step.kernels) k.metrics.clear();
  step.range_metrics = {{"dram__bytes_read.sum", "byte", 100}, {"smsp__inst_executed.sum", "inst", 5}};
  RangeRecord eval = step;
  eval.name = "eval";
  base.ranges.push_back(eval);
  Report next = base;
  next.ranges[2].range_metrics.pop_back();
  const ReportDiff d = diff_reports(base, next);
  EXPECT_EQ(d.rows.size(), 3u);
  EXPECT_EQ(
      d.unmatched,
      (std::vector<std::string>{"metric 'smsp__inst_executed.sum' missing for range 'eval #0' in the new report"}));
}

// The sample report profiled with --range-metrics whole: the same ranges,
// their kernels without values, the range with `values`.
Report whole_range_report(std::vector<MetricValue> values) {
  Report r = sample_report();
  r.range_metrics = "whole";
  for (KernelRecord& k : r.ranges[0].kernels) k.metrics.clear();
  r.ranges[0].range_metrics = std::move(values);
  return r;
}

TEST(ReportDiff, per_kernel_values_against_whole_range_values_compare_range_totals_of_sum_metrics) {
  Report base = sample_report();  // scale 6291488 + add 1234.5678 dram bytes, 98304 + 0 instructions
  for (KernelRecord& k : base.ranges[0].kernels) k.metrics.push_back({"sm__throughput.avg.pct", "%", 50});
  const Report next = whole_range_report({{"dram__bytes_read.sum", "byte", 2 * (6291488 + 1234.5678)},
                                          {"smsp__inst_executed.sum", "inst", 98304},
                                          {"sm__throughput.avg.pct", "%", 40}});
  const ReportDiff d = diff_reports(base, next);
  ASSERT_EQ(d.rows.size(), 2u);
  for (const DiffRow& row : d.rows) {
    EXPECT_EQ(row.kernel, "");
    EXPECT_EQ(row.summed, DiffRow::Summed::kBase);
  }
  EXPECT_EQ(d.rows[0].metric, "dram__bytes_read.sum");
  EXPECT_DOUBLE_EQ(d.rows[0].base, 6291488 + 1234.5678);
  EXPECT_DOUBLE_EQ(*d.rows[0].change_pct, 100.0);
  EXPECT_EQ(d.rows[1].base, 98304);
  EXPECT_EQ(*d.rows[1].change_pct, 0.0);
  EXPECT_EQ(d.unmatched, (std::vector<std::string>{"metric 'sm__throughput.avg.pct' not compared: it has no range "
                                                   "total from per-kernel values (only .sum metrics that every kernel "
                                                   "of the range has are summed)"}));
  EXPECT_EQ(d.comparison_note,
            "the baseline has per-kernel values, the new report whole-range values (--range-metrics whole): compared "
            "are range totals, the baseline's being the sum of its kernels' values (.sum metrics only); profile both "
            "with the same --range-metrics to compare every metric per kernel");
  const std::string table = render_diff_table(d);
  EXPECT_NE(table.find("\nstep #0 (whole range; baseline: the sum of its kernels)\n"), std::string::npos) << table;
  EXPECT_NE(table.find("\nnote: the baseline has per-kernel values"), std::string::npos) << table;
  const nlohmann::json j = nlohmann::json::parse(render_diff_json(d));
  EXPECT_EQ(j.at("rows").at(0).at("summed_from_kernels"), "base");
  EXPECT_EQ(j.at("note"), d.comparison_note);

  // The other way round, the new report is the one summed.
  const ReportDiff back = diff_reports(next, base);
  ASSERT_EQ(back.rows.size(), 2u);
  EXPECT_EQ(back.rows[0].summed, DiffRow::Summed::kNext);
  EXPECT_DOUBLE_EQ(*back.rows[0].change_pct, -50.0);
  EXPECT_EQ(back.comparison_note.rfind("the baseline has whole-range values, the new report per-kernel values", 0), 0u);
}

TEST(ReportDiff, reports_alike_have_no_comparison_note) {
  EXPECT_EQ(diff_reports(sample_report(), sample_report()).comparison_note, "");
  const Report whole = whole_range_report({{"dram__bytes_read.sum", "byte", 1}});
  const ReportDiff d = diff_reports(whole, whole);
  EXPECT_EQ(d.comparison_note, "");
  ASSERT_EQ(d.rows.size(), 1u);
  EXPECT_EQ(d.rows[0].summed, DiffRow::Summed::kNeither);
  EXPECT_TRUE(d.unmatched.empty());
}

TEST(ReportDiff, the_table_writes_large_changes_as_a_factor_and_csv_and_json_keep_the_percentage) {
  Report base = sample_report();
  Report next = sample_report();
  base.ranges[0].kernels[0].metrics[1].value = 1;
  next.ranges[0].kernels[0].metrics[1].value = 123456.0;                  // +12345500%
  next.ranges[0].kernels[0].metrics[0].value = 6291488 * 11.0;            // +1000%: still a percentage
  next.ranges[0].kernels[1].metrics[0].value = 1234.5678 * 2500000000.0;  // beyond a million times
  const ReportDiff d = diff_reports(base, next);
  const std::string table = render_diff_table(d);
  EXPECT_NE(table.find(" x123456.0\n"), std::string::npos) << table;
  EXPECT_NE(table.find(" +1000.00%\n"), std::string::npos) << table;
  EXPECT_NE(table.find(" x2.50e+09\n"), std::string::npos) << table;
  EXPECT_EQ(table.find("12345500"), std::string::npos) << table;
  EXPECT_NE(render_diff_csv(d).find(",1,123456,12345500\n"), std::string::npos) << render_diff_csv(d);
  const nlohmann::json j = nlohmann::json::parse(render_diff_json(d));
  EXPECT_EQ(j.at("rows").at(1).at("change_pct"), 12345500.0);
}

TEST(ReportDiff, json_writes_non_finite_values_as_the_report_does) {
  Report base = sample_report();
  Report next = sample_report();
  next.ranges[0].kernels[0].metrics[0].value = std::numeric_limits<double>::quiet_NaN();
  next.ranges[0].kernels[0].metrics[1].value = std::numeric_limits<double>::infinity();
  const nlohmann::json j = nlohmann::json::parse(render_diff_json(diff_reports(base, next)));
  EXPECT_EQ(j.at("rows").at(0).at("new"), "nan");
  EXPECT_EQ(j.at("rows").at(1).at("new"), "inf");
  EXPECT_EQ(j.at("rows").at(1).at("change_pct"), nullptr);
  EXPECT_EQ(json_number(-std::numeric_limits<double>::infinity()), "-inf");
  EXPECT_EQ(json_number(2.5), 2.5);
}

TEST(ReportDiff, control_bytes_in_names_are_escaped_in_every_format) {
  // ESC, BEL, CR, DEL, a C1 CSI (U+009B) and a bare 8-bit CSI byte.
  const std::string controls = "\x1b[2J\a\r\x7f\xc2\x9b\x9b";
  Report base = sample_report();
  base.ranges[0].name = "step" + controls;
  base.ranges[0].kernels[0].name = "scale" + controls;
  base.ranges[0].kernels[0].metrics[0].name = "dram" + controls;
  Report next = base;
  next.ranges.pop_back();  // an unmatched range, named in its own line
  const ReportDiff d = diff_reports(base, next);
  const auto clean = [](const std::string& text) {
    for (const char ch : text) {
      const auto c = static_cast<unsigned char>(ch);
      if ((c < 0x20 && c != '\n') || c == 0x7f || c == 0x9b) return false;
    }
    return true;
  };
  const std::string table = render_diff_table(d);
  EXPECT_TRUE(clean(table)) << table;
  EXPECT_NE(table.find("step\\x1b[2J\\x07\\x0d\\x7f\\u009b\\x9b #0: scale\\x1b[2J\\x07\\x0d\\x7f\\u009b\\x9b"),
            std::string::npos)
      << table;
  const std::string csv = render_diff_csv(d);
  EXPECT_TRUE(clean(csv)) << csv;
  EXPECT_NE(csv.find("dram\\x1b[2J\\x07\\x0d\\x7f\\u009b\\x9b"), std::string::npos) << csv;
  const std::string json = render_diff_json(d);
  EXPECT_TRUE(clean(json)) << json;
  // Still JSON, and the names read back as they were (the bare 0x9b, not
  // UTF-8, as U+FFFD).
  const nlohmann::json back = nlohmann::json::parse(json);
  EXPECT_EQ(back["rows"][0]["metric"], "dram\x1b[2J\a\r\x7f\xc2\x9b\xef\xbf\xbd");
}

// Two triage reports compare their totals; the samples are not compared.
TEST(ReportDiff, triage_reports_compare_their_totals_not_their_samples) {
  const Report base = testing::triage_report();
  Report next = testing::triage_report();
  next.ranges[0].range_metrics[1].value = 24576.0;
  next.ranges[0].samples->resize(1);
  const ReportDiff d = diff_reports(base, next);
  ASSERT_EQ(d.rows.size(), 2u);
  EXPECT_EQ(d.rows[1].metric, "dram__bytes_read.sum");
  EXPECT_EQ(d.rows[1].kernel, "");
  EXPECT_EQ((std::pair{d.rows[1].base, d.rows[1].next}), (std::pair{12288.0, 24576.0}));
  EXPECT_EQ(d.rows[1].change_pct, 100.0);
  EXPECT_EQ(d.rows[0].change_pct, 0.0);
  EXPECT_TRUE(d.unmatched.empty());
}

}  // namespace
}  // namespace rangereplay::report
