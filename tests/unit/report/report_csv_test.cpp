#include "report/report_csv.h"

#include <gtest/gtest.h>
#include <limits>

#include "unit/report/sample_report.h"

namespace rangereplay::report {
namespace {

using testing::sample_report;

TEST(ReportCsv, fields_are_quoted_only_when_needed) {
  EXPECT_EQ(csv_field(""), "");
  EXPECT_EQ(csv_field("step"), "step");
  EXPECT_EQ(csv_field("a,b"), "\"a,b\"");
  EXPECT_EQ(csv_field("say \"hi\""), "\"say \"\"hi\"\"\"");
  EXPECT_EQ(csv_field("\""), "\"\"\"\"");
  EXPECT_EQ(csv_field("two\nlines"), "\"two\nlines\"");
  EXPECT_EQ(csv_field("cr\r"), "\"cr\r\"");
  EXPECT_EQ(csv_field(" padded"), "\" padded\"");
  EXPECT_EQ(csv_field("inner space"), "inner space");
}

TEST(ReportCsv, one_row_per_range_kernel_and_metric_like_ncu) {
  EXPECT_EQ(render_report_csv(sample_report()),
            "range_index,range_name,status,decline_reason,kernel_index,kernel_name,grid,block,metric,unit,value\n"
            "0,step,replayed,,0,\"scale(float*, int)\",\"(1024, 1, 1)\",\"(256, 1, 1)\",dram__bytes_read.sum,byte,"
            "6291488\n"
            "0,step,replayed,,0,\"scale(float*, int)\",\"(1024, 1, 1)\",\"(256, 1, 1)\",smsp__inst_executed.sum,inst,"
            "98304\n"
            "0,step,replayed,,1,\"void add<float, 2>(float const*, float*)\",\"(64, 2, 1)\",\"(128, 1, 1)\","
            "dram__bytes_read.sum,byte,1234.5678\n"
            "0,step,replayed,,1,\"void add<float, 2>(float const*, float*)\",\"(64, 2, 1)\",\"(128, 1, 1)\","
            "smsp__inst_executed.sum,inst,0\n"
            "1,step,declined,free_in_range,,,,,,,\n");
}

TEST(ReportCsv, names_with_commas_and_quotes_are_escaped) {
  Report r;
  RangeRecord range;
  range.index = 3;
  range.name = "layer \"1\", fwd";
  KernelRecord k;
  k.index = 0;
  k.name = "void f<\"x\", 2>(int)";
  k.metrics = {{"m", "", 0.5}};
  range.kernels = {k};
  r.ranges = {range};
  EXPECT_EQ(render_report_csv(r),
            "range_index,range_name,status,decline_reason,kernel_index,kernel_name,grid,block,metric,unit,value\n"
            "3,\"layer \"\"1\"\", fwd\",replayed,,0,\"void f<\"\"x\"\", 2>(int)\",\"(1, 1, 1)\",\"(1, 1, 1)\",m,,"
            "0.5\n");
}

TEST(ReportCsv, whole_range_metrics_have_empty_kernel_columns) {
  Report r;
  RangeRecord range;
  range.name = "step";
  KernelRecord k;  // listed in the range, but values are per range
  k.name = "k()";
  range.kernels = {k};
  range.range_metrics = {
      {"gpu__time_duration.sum", "nsecond", 12345},
      {"sm__throughput.avg.pct_of_peak_sustained_elapsed", "%", std::numeric_limits<double>::quiet_NaN()}};
  r.ranges = {range};
  EXPECT_EQ(render_report_csv(r),
            "range_index,range_name,status,decline_reason,kernel_index,kernel_name,grid,block,metric,unit,value\n"
            "0,step,replayed,,,,,,gpu__time_duration.sum,nsecond,12345\n"
            "0,step,replayed,,,,,,sm__throughput.avg.pct_of_peak_sustained_elapsed,%,nan\n");
}

TEST(ReportCsv, kernels_and_ranges_without_metrics_still_get_a_row) {
  Report r;
  RangeRecord with_kernel;
  with_kernel.name = "a";
  KernelRecord k;
  k.mangled_name = "_Z6kernelPfi";  // no demangled name recorded: demangled here
  with_kernel.kernels = {k};
  RangeRecord empty;
  empty.index = 1;
  empty.name = "b";
  r.ranges = {with_kernel, empty};
  EXPECT_EQ(render_report_csv(r),
            "range_index,range_name,status,decline_reason,kernel_index,kernel_name,grid,block,metric,unit,value\n"
            "0,a,replayed,,0,\"kernel(float*, int)\",\"(1, 1, 1)\",\"(1, 1, 1)\",,,\n"
            "1,b,replayed,,,,,,,,\n");
}

TEST(ReportCsv, empty_report_is_the_header_only) {
  EXPECT_EQ(render_report_csv(Report{}),
            "range_index,range_name,status,decline_reason,kernel_index,kernel_name,grid,block,metric,unit,value\n");
}

TEST(ReportCsv, stage_timings_have_one_row_per_range_and_a_column_per_tier) {
  EXPECT_EQ(render_stage_timings_csv(sample_report()),
            "range_index,range_name,status,decline_reason,decline_detail,passes,kernels,regions,footprint_bytes,"
            "snapshot_bytes,snapshot_device_bytes,snapshot_pinned_bytes,restore,restored_bytes,divergences,sync_ms,"
            "capture_ms,restore_ms,replay_submit_ms,kernels_ms,counters_ms,decode_ms,verify_ms,window_ms,begin_ms,"
            "other_ms,rendezvous_ms\n"
            "0,step,replayed,,,3,2,4,268435456,268435456,201326592,67108864,differential,6291456,1,0.12,1.5,3,0.4,10,"
            "40,2,1.25,61.2,1.75,8.2,0\n"
            "1,step,declined,free_in_range,cuMemFree(0x7f0000200000) inside the range; free it after "
            "the range ends,1,0,0,0,0,0,0,,0,0,0,0,0,0,0,0,0,0,0,0,0,0\n");
}

TEST(ReportCsv, stage_timings_without_tiers_have_no_tier_columns) {
  EXPECT_EQ(
      render_stage_timings_csv(Report{}),
      "range_index,range_name,status,decline_reason,decline_detail,passes,kernels,regions,footprint_bytes,"
      "snapshot_bytes,restore,restored_bytes,divergences,sync_ms,capture_ms,restore_ms,replay_submit_ms,kernels_ms,"
      "counters_ms,decode_ms,verify_ms,window_ms,begin_ms,other_ms,rendezvous_ms\n");
}

// The CSV keeps a triage range's totals (its whole-range values), the
// samples being a time series the JSON and HTML reports carry.
TEST(ReportCsv, a_triage_report_writes_its_totals_and_no_sample_rows) {
  const Report triage = testing::triage_report();
  Report without = triage;
  without.ranges[0].samples->clear();
  const std::string csv = render_report_csv(triage);
  EXPECT_EQ(csv, render_report_csv(without));
  EXPECT_NE(csv.find("smsp__inst_executed.sum"), std::string::npos) << csv;
  EXPECT_NE(csv.find(",600"), std::string::npos) << csv;
  EXPECT_NE(csv.find(",12288"), std::string::npos) << csv;
}

}  // namespace
}  // namespace rangereplay::report
