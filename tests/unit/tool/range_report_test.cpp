// A range's report record: decline fields and the decline line, end notes
// and window times, kernel records with their counter values.
#include "tool/logic/range_report.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

namespace rangereplay::tool {
namespace {

// The text written to a temporary file by `write`.
template <typename F>
std::string printed(F write) {
  std::FILE* f = std::tmpfile();
  write(f);
  std::fflush(f);
  std::rewind(f);
  std::string out;
  char buf[512];
  while (std::fgets(buf, sizeof buf, f)) out += buf;
  std::fclose(f);
  return out;
}

report::RangeRecord named_record() {
  report::RangeRecord r;
  r.index = 2;
  r.name = "step";
  return r;
}

TEST(RangeReporter, a_decline_fills_the_fields_with_the_fix_and_prints_the_raw_detail) {
  report::RangeRecord r = named_record();
  const std::string line = printed([&](std::FILE* f) {
    RangeReporter(/*quiet=*/false, f).record_decline(r, DeclineReason::kFreeInRange, "cuMemFree inside the range");
  });
  EXPECT_TRUE(r.declined);
  EXPECT_EQ(r.decline_reason, "free_in_range");
  EXPECT_EQ(r.decline_detail, decline_report_detail(DeclineReason::kFreeInRange, "cuMemFree inside the range"));
  EXPECT_EQ(r.decline_detail.rfind("cuMemFree inside the range; ", 0), 0u) << r.decline_detail;
  EXPECT_EQ(line, "rangereplay: range 3 'step' declined: free_in_range (cuMemFree inside the range)\n");
}

TEST(RangeReporter, control_bytes_in_the_name_and_detail_are_escaped_on_stderr) {
  report::RangeRecord r = named_record();
  r.name = "st\x1b[2Jep\a\r\x7f\xc2\x9b";
  const std::string line = printed([&](std::FILE* f) {
    RangeReporter(/*quiet=*/false, f).record_decline(r, DeclineReason::kFreeInRange, "in \x1b]0;x\a");
  });
  EXPECT_EQ(line,
            "rangereplay: range 3 'st\\x1b[2Jep\\x07\\x0d\\x7f\\u009b' declined: free_in_range (in "
            "\\x1b]0;x\\x07)\n");
  EXPECT_EQ(r.name, "st\x1b[2Jep\a\r\x7f\xc2\x9b");  // the report keeps the name as it is
}

TEST(RangeReporter, quiet_prints_nothing) {
  report::RangeRecord r = named_record();
  const std::string line = printed(
      [&](std::FILE* f) { RangeReporter(/*quiet=*/true, f).record_decline(r, DeclineReason::kReplayFailed, "x"); });
  EXPECT_TRUE(r.declined);
  EXPECT_EQ(r.decline_reason, "replay_failed");
  EXPECT_EQ(line, "");
}

TEST(RangeReporter, an_eligible_range_has_no_decline) {
  report::RangeRecord r = named_record();
  Eligibility e;
  RangeReporter(/*quiet=*/true).report_decline(r, e);
  EXPECT_FALSE(r.declined);
  EXPECT_EQ(r.decline_reason, "");
  e.decline(DeclineReason::kUnsupportedApi, "cuMemcpyPeer inside the range");
  e.decline(DeclineReason::kFreeInRange, "later");  // the first reason wins
  RangeReporter(/*quiet=*/true).report_decline(r, e);
  EXPECT_EQ(r.decline_reason, "unsupported_api");
  EXPECT_EQ(r.decline_detail, decline_report_detail(DeclineReason::kUnsupportedApi, "cuMemcpyPeer inside the range"));
}

TEST(RangeReporter, finishing_a_record_adds_its_notes_and_the_tools_own_time) {
  report::RangeRecord r = named_record();
  r.timings.counters_ms = 2;
  r.timings.kernels_ms = 3;
  r.timings.restore_ms = 1;
  RangeReporter(/*quiet=*/true)
      .finish_record(r, Eligibility{}, /*skipped_device_to_host=*/4, /*modules_loaded=*/1,
                     /*window_ms=*/10);
  EXPECT_EQ(r.notes, (std::vector<std::string>{
                         "4 device-to-host copies (or writes into pinned host memory) were not re-executed in replays",
                         "1 module loaded inside the range (lazy loading); it has no module-scope variables"}));
  EXPECT_DOUBLE_EQ(r.timings.window_ms, 10);
  EXPECT_DOUBLE_EQ(r.timings.other_ms, 4);
  EXPECT_FALSE(r.declined);

  report::RangeRecord s = named_record();
  s.timings.kernels_ms = 20;  // device time beyond the host window: other_ms is not negative
  RangeReporter(/*quiet=*/true).finish_record(s, Eligibility{}, 0, /*modules_loaded=*/3, 10);
  EXPECT_EQ(
      s.notes,
      (std::vector<std::string>{"3 modules loaded inside the range (lazy loading); none has module-scope variables"}));
  EXPECT_DOUBLE_EQ(s.timings.other_ms, 0);
}

const std::vector<std::string> kNames = {"dram__bytes_read.sum", "gpu__time_duration.sum"};
const std::vector<std::string> kUnits = {"byte", "nanosecond"};
const MetricColumns kColumns{kNames, kUnits};

KernelLaunchOp kernel(const std::string& name, std::uint64_t stream, std::int64_t launch_index) {
  KernelLaunchOp k;
  k.name = name;
  k.stream = stream;
  k.launch_index = launch_index;
  k.grid[0] = 64;
  k.block[0] = 256;
  k.shared_mem_bytes = 1024;
  return k;
}

TEST(RecordKernels, per_kernel_values_go_to_each_kernel) {
  RecordedProgram p;
  p.ops.push_back(kernel("_Z3addPf", 7, 10));
  p.ops.push_back(kernel("scale", 8, 11));
  report::RangeRecord r;
  record_kernels(r, p, /*per_kernel=*/true, kColumns, {{1, 2}, {3, 4}});
  ASSERT_EQ(r.kernels.size(), 2u);
  EXPECT_EQ(r.kernels[0].mangled_name, "_Z3addPf");
  EXPECT_EQ(r.kernels[0].name, "add(float*)");
  EXPECT_EQ(r.kernels[0].stream_id, 7u);
  EXPECT_EQ(r.kernels[0].launch_index, 10);
  EXPECT_EQ(r.kernels[0].grid, (report::Dim3{64, 1, 1}));
  EXPECT_EQ(r.kernels[0].block, (report::Dim3{256, 1, 1}));
  EXPECT_EQ(r.kernels[0].shared_mem_bytes, 1024u);
  EXPECT_EQ(r.kernels[0].metrics, (std::vector<report::MetricValue>{{"dram__bytes_read.sum", "byte", 1},
                                                                    {"gpu__time_duration.sum", "nanosecond", 2}}));
  EXPECT_EQ(r.kernels[1].metrics[1].value, 4);
  EXPECT_EQ(r.kernels[1].index, 1u);
  EXPECT_TRUE(r.range_metrics.empty());
  EXPECT_TRUE(r.notes.empty());
}

TEST(RecordKernels, whole_range_values_go_to_the_range) {
  RecordedProgram p;
  p.ops.push_back(kernel("a", 1, 0));
  report::RangeRecord r;
  record_kernels(r, p, /*per_kernel=*/false, kColumns, {{5, 6}});
  ASSERT_EQ(r.kernels.size(), 1u);
  EXPECT_TRUE(r.kernels[0].metrics.empty());
  EXPECT_EQ(r.range_metrics, (std::vector<report::MetricValue>{{"dram__bytes_read.sum", "byte", 5},
                                                               {"gpu__time_duration.sum", "nanosecond", 6}}));
}

TEST(RecordKernels, a_count_mismatch_is_noted) {
  RecordedProgram p;
  p.ops.push_back(kernel("a", 1, 0));
  p.ops.push_back(kernel("b", 1, 1));
  p.ops.push_back(kernel("c", 1, 2));
  report::RangeRecord r;
  record_kernels(r, p, /*per_kernel=*/true, kColumns, {{1, 2}});
  EXPECT_EQ(r.notes, (std::vector<std::string>{"CUPTI returned 1 kernel ranges for 3 recorded kernels"}));
}

TEST(LeadInRanges, one_more_than_the_kernels_per_kernel_and_two_for_a_whole_range_pass) {
  EXPECT_EQ(lead_in_counter_ranges(4, /*whole_range=*/false), 5u);
  EXPECT_EQ(lead_in_counter_ranges(4, /*whole_range=*/true), 2u);
  EXPECT_TRUE(check_lead_in_ranges(5, 4, /*whole_range=*/false).ok());
  EXPECT_TRUE(check_lead_in_ranges(2, 1, /*whole_range=*/false).ok());
  EXPECT_TRUE(check_lead_in_ranges(2, 7, /*whole_range=*/true).ok());
}

TEST(LeadInRanges, a_range_fewer_or_more_declines_counter_ranges_mismatch_naming_both_counts) {
  // Seen on the H200: 4 auto ranges for the lead-in flush and 4 kernels.
  const Status fewer = check_lead_in_ranges(4, 4, /*whole_range=*/false);
  EXPECT_FALSE(fewer.ok());
  EXPECT_EQ(fewer.decline_reason(), DeclineReason::kCounterRangesMismatch);
  EXPECT_EQ(fewer.message(), "CUPTI returned 4 counter ranges for the lead-in flush and 4 kernels");
  const Status more = check_lead_in_ranges(7, 4, /*whole_range=*/false);
  EXPECT_EQ(more.decline_reason(), DeclineReason::kCounterRangesMismatch);
  const Status whole = check_lead_in_ranges(1, 3, /*whole_range=*/true);
  EXPECT_EQ(whole.decline_reason(), DeclineReason::kCounterRangesMismatch);
  EXPECT_EQ(whole.message(), "CUPTI returned 1 counter ranges for a whole range and its lead-in");
  // As many as expected, but one dropped from the full image: one was more.
  EXPECT_EQ(check_lead_in_ranges(5, 4, /*whole_range=*/false, /*dropped=*/1).decline_reason(),
            DeclineReason::kCounterRangesMismatch);
  EXPECT_EQ(check_lead_in_ranges(3, 4, /*whole_range=*/false, /*dropped=*/2).message(),
            "CUPTI returned 3 counter ranges for the lead-in flush and 4 kernels (its decode reported 2 dropped)");
  const std::vector<std::string> names = {"0", "1", std::string(50, 'k')};
  EXPECT_EQ(check_lead_in_ranges(3, 3, /*whole_range=*/false, 0, names).message(),
            "CUPTI returned 3 counter ranges for the lead-in flush and 3 kernels; CUPTI named them '0', '1', '" +
                std::string(48, 'k') + "...'");
  const std::vector<std::string> many(14, "r");
  EXPECT_NE(check_lead_in_ranges(14, 14, /*whole_range=*/false, 0, many).message().find("'r' and 2 more"),
            std::string::npos);
  EXPECT_TRUE(check_lead_in_ranges(4, 3, /*whole_range=*/false, 0, names).ok());  // names alone change nothing
}

TEST(CounterRangesMismatch, names_what_the_pass_opened_and_carries_its_reason) {
  const Status batch = counter_ranges_mismatch(2, "the 4 of the batch", 1);
  EXPECT_EQ(batch.decline_reason(), DeclineReason::kCounterRangesMismatch);
  EXPECT_EQ(batch.message(), "CUPTI returned 2 counter ranges for the 4 of the batch (its decode reported 1 dropped)");
  EXPECT_EQ(counter_ranges_mismatch(1, "2 pushed").message(), "CUPTI returned 1 counter ranges for 2 pushed");
}

TEST(RecordKernels, graph_kernel_nodes_take_the_launch_stream) {
  RecordedProgram p;
  GraphLaunchOp g;
  g.exec = 0x1234;
  g.stream = 9;
  g.kernels = std::make_shared<const std::vector<KernelLaunchOp>>(
      std::vector<KernelLaunchOp>{kernel("node0", 0, -1), kernel("node1", 0, -1)});
  p.ops.push_back(g);
  report::RangeRecord r;
  record_kernels(r, p, /*per_kernel=*/false, kColumns, {});
  ASSERT_EQ(r.kernels.size(), 2u);
  EXPECT_EQ(r.kernels[0].stream_id, 9u);
  EXPECT_EQ(r.kernels[1].stream_id, 9u);
  EXPECT_EQ(r.kernels[1].launch_index, -1);
  EXPECT_TRUE(r.range_metrics.empty());  // no values (the standing pass brings them later)
}

TEST(MetricValues, stop_at_the_shorter_of_names_and_values) {
  const std::vector<double> one = {42};
  EXPECT_EQ(metric_values(kColumns, one), (std::vector<report::MetricValue>{{"dram__bytes_read.sum", "byte", 42}}));
}

}  // namespace
}  // namespace rangereplay::tool
