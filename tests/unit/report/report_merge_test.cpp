// The reports of a job's ranks merged: ranges paired by name and instance,
// kernels by position with the sequence checked against the reference rank,
// per-rank values with min / mean / max, and everything that does not pair
// (declines, other kernels, units, GPUs, metrics, ranges) said, in the
// table, CSV and JSON.
#include "report/report_merge.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "unit/report/sample_report.h"

namespace rangereplay::report {
namespace {

using testing::sample_report;

// The sample report as rank `rank` of a job: its own pid, and `scale`'s DRAM
// bytes set to `scale_bytes`.
RankReport rank_report(std::uint32_t rank, double scale_bytes) {
  RankReport r{"rank" + std::to_string(rank) + ".json", sample_report()};
  r.report.process_id = 1000 + rank;
  r.report.environment = Environment{};  // no recorded rank: the position names it
  r.report.errors.clear();
  r.report.ranges[0].kernels[0].metrics[0].value = scale_bytes;
  return r;
}

std::vector<RankReport> three_ranks() { return {rank_report(0, 100), rank_report(1, 300), rank_report(2, 200)}; }

const MergedMetric& metric_of(const MergedKernel& k, const std::string& name) {
  for (const MergedMetric& m : k.metrics) {
    if (m.name == name) return m;
  }
  ADD_FAILURE() << "no metric " << name << " in kernel " << k.name;
  static const MergedMetric none{};
  return none;
}

using Values = std::vector<std::optional<double>>;

// One metric line of the terminal table of three_ranks(): the name and unit
// left-aligned in the widths of the longest name (smsp__inst_executed.sum,
// 23) and of the header "Metric Unit" (11), the values right-aligned in the
// width of the longest ("1,234.57", 8), the max's rank in 8.
std::string table_row(const std::string& name, const std::string& unit, const std::vector<std::string>& cells) {
  const auto left = [](const std::string& s, std::size_t w) { return s + std::string(w - s.size(), ' '); };
  const auto right = [](const std::string& s, std::size_t w) { return std::string(w - s.size(), ' ') + s; };
  std::string row = "    " + left(name, 23) + " " + left(unit, 11);
  for (std::size_t i = 0; i < cells.size(); ++i) row += " " + right(cells[i], 8);
  return row + "\n";
}

TEST(ReportMerge, each_rank_keeps_its_value_and_the_figures_name_the_rank_of_the_max) {
  const ReportMerge m = merge_reports(three_ranks());
  ASSERT_EQ(m.ranks.size(), 3u);
  EXPECT_EQ(m.ranks[1].file, "rank1.json");
  EXPECT_EQ(m.ranks[1].process_id, 1001u);
  EXPECT_EQ(m.ranks[2].device_name, "NVIDIA H200");
  ASSERT_EQ(m.ranges.size(), 2u);
  const MergedRange& step = m.ranges[0];
  EXPECT_EQ(step.key, "step #0");
  EXPECT_EQ(step.name, "step");
  EXPECT_EQ(step.instance, 0u);
  EXPECT_EQ(step.reference_rank, 0u);
  ASSERT_EQ(step.kernels.size(), 2u);
  EXPECT_EQ(step.kernels[1].name, "void add<float, 2>(float const*, float*)");
  EXPECT_EQ(step.kernels[1].grid, (Dim3{64, 2, 1}));
  const MergedMetric& dram = metric_of(step.kernels[0], "dram__bytes_read.sum");
  EXPECT_EQ(dram.unit, "byte");
  EXPECT_EQ(dram.values, (Values{100.0, 300.0, 200.0}));
  EXPECT_TRUE(dram.units.empty());
  ASSERT_TRUE(dram.stats.has_value());
  EXPECT_EQ(dram.stats->min, 100);
  EXPECT_EQ(dram.stats->mean, 200);
  EXPECT_EQ(dram.stats->max, 300);
  EXPECT_EQ(dram.stats->max_rank, 1u);
  EXPECT_EQ(dram.stats->count, 3u);
  // Equal values: the max is the lowest rank's.
  EXPECT_EQ(metric_of(step.kernels[0], "smsp__inst_executed.sum").stats->max_rank, 0u);
  EXPECT_TRUE(m.mismatched.empty());
  EXPECT_TRUE(m.unmatched.empty());
  EXPECT_TRUE(m.errors.empty());
}

TEST(ReportMerge, a_range_every_rank_declined_is_one_line_and_has_no_values) {
  const ReportMerge m = merge_reports(three_ranks());
  const MergedRange& second = m.ranges[1];
  EXPECT_EQ(second.key, "step #1");
  EXPECT_FALSE(second.reference_rank.has_value());
  EXPECT_TRUE(second.kernels.empty());
  ASSERT_EQ(second.ranks.size(), 3u);
  EXPECT_EQ(second.ranks[2].status, RankRangeStatus::kDeclined);
  EXPECT_EQ(second.ranks[2].index, 1u);
  EXPECT_EQ(second.ranks[2].decline_reason, "free_in_range");
  EXPECT_EQ(second.ranks[2].decline_detail, "cuMemFree(0x7f0000200000) inside the range; free it after the range ends");
  EXPECT_EQ(m.declined, (std::vector<std::string>{"range 'step #1' declined in ranks 0, 1, 2 (free_in_range)"}));
}

TEST(ReportMerge, a_rank_that_declined_gives_no_value_and_the_next_rank_is_the_reference) {
  std::vector<RankReport> ranks = three_ranks();
  RangeRecord& r0 = ranks[0].report.ranges[0];
  r0.declined = true;
  r0.decline_reason = "unsupported_api";
  r0.decline_detail = "cuMemcpy2D inside the range";
  r0.kernels.clear();
  const ReportMerge m = merge_reports(ranks);
  const MergedRange& step = m.ranges[0];
  EXPECT_EQ(step.reference_rank, 1u);
  EXPECT_EQ(step.ranks[0].status, RankRangeStatus::kDeclined);
  const MergedMetric& dram = metric_of(step.kernels[0], "dram__bytes_read.sum");
  EXPECT_EQ(dram.values, (Values{std::nullopt, 300.0, 200.0}));
  EXPECT_EQ(dram.stats->min, 200);
  EXPECT_EQ(dram.stats->mean, 250);
  EXPECT_EQ(dram.stats->max_rank, 1u);
  EXPECT_EQ(dram.stats->count, 2u);
  EXPECT_EQ(m.declined[0], "range 'step #0' declined in rank 0 (rank0.json) (unsupported_api)");
  const std::string table = render_merge_table(m);
  EXPECT_NE(table.find("  rank 0: declined (unsupported_api): cuMemcpy2D inside the range\n"), std::string::npos)
      << table;
}

TEST(ReportMerge, a_rank_running_other_kernels_is_flagged_with_the_first_difference_and_left_out) {
  std::vector<RankReport> ranks = three_ranks();
  ranks[2].report.ranges[0].kernels[1].grid = {32, 2, 1};
  ranks[2].report.ranges[0].range_metrics = {};
  const ReportMerge m = merge_reports(ranks);
  const MergedRange& step = m.ranges[0];
  const std::string difference =
      "kernel 1 is 'void add<float, 2>(float const*, float*) (64,2,1)x(128,1,1)' in rank 0 and 'void add<float, "
      "2>(float const*, float*) (32,2,1)x(128,1,1)' in rank 2";
  EXPECT_EQ(step.ranks[2].kernel_mismatch, difference);
  EXPECT_EQ(step.ranks[1].kernel_mismatch, "");
  EXPECT_EQ(m.mismatched, (std::vector<std::string>{"range 'step #0': rank 2 (rank2.json) ran other kernels than "
                                                    "rank 0: " +
                                                    difference + "; its kernel values are not merged"}));
  // Rank 2's first kernel is alike, yet its values are out too: positions
  // after a difference cannot be trusted to be the same launches.
  EXPECT_EQ(metric_of(step.kernels[0], "dram__bytes_read.sum").values, (Values{100.0, 300.0, std::nullopt}));
  EXPECT_EQ(metric_of(step.kernels[0], "dram__bytes_read.sum").stats->max, 300);
}

TEST(ReportMerge, a_shorter_or_longer_kernel_sequence_names_the_first_kernel_one_side_lacks) {
  std::vector<RankReport> ranks = three_ranks();
  ranks[1].report.ranges[0].kernels.pop_back();
  ranks[2].report.ranges[0].kernels.push_back(ranks[2].report.ranges[0].kernels[0]);
  const ReportMerge m = merge_reports(ranks);
  EXPECT_EQ(m.ranges[0].ranks[1].kernel_mismatch,
            "rank 1 ends after 1 kernels; rank 0's kernel 1 is 'void add<float, 2>(float const*, float*) "
            "(64,2,1)x(128,1,1)'");
  EXPECT_EQ(m.ranges[0].ranks[2].kernel_mismatch,
            "rank 0 ends after 2 kernels; rank 2's kernel 2 is 'scale(float*, int) (1024,1,1)x(256,1,1)'");
  EXPECT_EQ(metric_of(m.ranges[0].kernels[0], "dram__bytes_read.sum").values,
            (Values{100.0, std::nullopt, std::nullopt}));
}

TEST(ReportMerge, whole_range_values_merge_even_where_the_kernels_differ) {
  std::vector<RankReport> ranks = three_ranks();
  for (std::uint32_t r = 0; r < ranks.size(); ++r) {
    Report& rep = ranks[r].report;
    rep.range_metrics = "whole";
    for (KernelRecord& k : rep.ranges[0].kernels) k.metrics.clear();
    rep.ranges[0].range_metrics = {{"gpu__time_duration.sum", "nsecond", 1000.0 + 10 * r}};
  }
  ranks[1].report.ranges[0].kernels[0].name = "other";
  const ReportMerge m = merge_reports(ranks);
  ASSERT_EQ(m.ranges[0].range_metrics.size(), 1u);
  const MergedMetric& time = m.ranges[0].range_metrics[0];
  EXPECT_EQ(time.name, "gpu__time_duration.sum");
  EXPECT_EQ(time.unit, "nsecond");
  EXPECT_EQ(time.values, (Values{1000.0, 1010.0, 1020.0}));
  EXPECT_EQ(time.stats->mean, 1010);
  EXPECT_EQ(time.stats->max_rank, 2u);
  EXPECT_EQ(m.mismatched.size(), 1u);
  EXPECT_TRUE(m.unmatched.empty());
}

TEST(ReportMerge, values_in_other_units_are_kept_per_rank_and_not_combined) {
  std::vector<RankReport> ranks = three_ranks();
  for (KernelRecord& k : ranks[1].report.ranges[0].kernels) k.metrics[0].unit = "Kbyte";
  const ReportMerge m = merge_reports(ranks);
  const MergedMetric& dram = metric_of(m.ranges[0].kernels[0], "dram__bytes_read.sum");
  EXPECT_EQ(dram.unit, "");
  EXPECT_EQ(dram.units, (std::vector<std::string>{"byte", "Kbyte", "byte"}));
  EXPECT_EQ(dram.values, (Values{100.0, 300.0, 200.0}));
  EXPECT_FALSE(dram.stats.has_value());
  EXPECT_EQ(m.unmatched, (std::vector<std::string>{"metric 'dram__bytes_read.sum' is in Kbyte in rank 1 (rank1.json) "
                                                   "and in byte in ranks 0, 2: not combined"}));
  const std::string csv = render_merge_csv(m);
  EXPECT_NE(csv.find("step #0,0,\"scale(float*, int) (1024,1,1)x(256,1,1)\",dram__bytes_read.sum,byte|Kbyte|byte,,,,,,"
                     "100,300,200\n"),
            std::string::npos)
      << csv;
  const nlohmann::json j = nlohmann::json::parse(render_merge_json(m));
  const nlohmann::json& metric = j.at("ranges").at(0).at("kernels").at(0).at("metrics").at(0);
  EXPECT_TRUE(metric.at("unit").is_null());
  EXPECT_EQ(metric.at("units"), nlohmann::json({"byte", "Kbyte", "byte"}));
  EXPECT_TRUE(metric.at("max").is_null());
}

TEST(ReportMerge, a_recorded_rank_is_shown_beside_the_position) {
  std::vector<RankReport> ranks = {rank_report(0, 100), rank_report(1, 300)};
  ranks[0].report.environment = Environment{{"LOCAL_RANK", "0"}, {"RANK", "4"}};
  ranks[1].report.environment = Environment{{"SLURM_PROCID", "5"}};
  const ReportMerge m = merge_reports(ranks);
  EXPECT_EQ(m.ranks[0].recorded_rank, "RANK=4");
  EXPECT_EQ(m.ranks[1].recorded_rank, "SLURM_PROCID=5");
  EXPECT_NE(render_merge_table(m).find("  rank 0    rank0.json  pid 1000  NVIDIA H200 (GH100)  RANK=4\n"),
            std::string::npos);
  EXPECT_EQ(nlohmann::json::parse(render_merge_json(m)).at("ranks").at(1).at("recorded_rank"), "SLURM_PROCID=5");
}

TEST(ReportMerge, a_metric_one_rank_lacks_in_one_kernel_is_named_for_those_places_only) {
  std::vector<RankReport> ranks = three_ranks();
  std::vector<MetricValue>& metrics = ranks[1].report.ranges[0].kernels[0].metrics;
  metrics.erase(metrics.begin());  // rank 1's kernel 0 lacks dram__bytes_read.sum
  const ReportMerge m = merge_reports(ranks);
  EXPECT_EQ(m.unmatched, (std::vector<std::string>{"metric 'dram__bytes_read.sum' missing in rank 1 (rank1.json) in 1 "
                                                   "of the 2 kernels and ranges that have it: not merged there"}));
  // Kernel 1 still merges it over every rank.
  EXPECT_EQ(m.ranges[0].kernels[1].metrics[0].name, "dram__bytes_read.sum");
}

TEST(ReportMerge, what_not_every_rank_has_is_listed_and_the_common_part_merged) {
  std::vector<RankReport> ranks = three_ranks();
  ranks[2].report.device_name = "NVIDIA A100";
  ranks[2].report.chip_name = "GA100";
  for (KernelRecord& k : ranks[0].report.ranges[0].kernels) k.metrics.push_back({"lts__t_bytes.sum", "byte", 7});
  for (KernelRecord& k : ranks[1].report.ranges[0].kernels) k.metrics.push_back({"lts__t_bytes.sum", "byte", 8});
  RangeRecord eval;
  eval.index = 2;
  eval.name = "eval";
  ranks[1].report.ranges.push_back(eval);
  ranks[1].report.errors = {"counters unavailable after range 1"};
  const ReportMerge m = merge_reports(ranks);
  EXPECT_EQ(m.unmatched,
            (std::vector<std::string>{
                "the ranks are of different GPUs: NVIDIA H200 (GH100) in ranks 0, 1; NVIDIA A100 (GA100) in rank 2 "
                "(rank2.json)",
                "range 'eval #0' missing in ranks 0, 2",
                "metric 'lts__t_bytes.sum' missing in rank 2 (rank2.json): not merged"}));
  EXPECT_EQ(m.errors, (std::vector<std::string>{"rank 1 (rank1.json): counters unavailable after range 1"}));
  // The metrics every rank has are merged; the one rank 2 lacks is not.
  ASSERT_EQ(m.ranges[0].kernels[0].metrics.size(), 2u);
  EXPECT_EQ(m.ranges[0].kernels[0].metrics[1].name, "smsp__inst_executed.sum");
  ASSERT_EQ(m.ranges.size(), 3u);
  EXPECT_EQ(m.ranges[2].key, "eval #0");
  EXPECT_EQ(m.ranges[2].ranks[0].status, RankRangeStatus::kAbsent);
  EXPECT_EQ(m.ranges[2].reference_rank, 1u);
}

TEST(ReportMerge, ranks_with_per_kernel_and_whole_range_values_are_told_apart) {
  std::vector<RankReport> ranks = three_ranks();
  ranks[1].report.range_metrics = "whole";
  const ReportMerge m = merge_reports(ranks);
  ASSERT_FALSE(m.unmatched.empty());
  EXPECT_EQ(m.unmatched[0],
            "the ranks measured differently: per-kernel values (--range-metrics kernel) in ranks 0, 2; whole-range "
            "values (--range-metrics whole) in rank 1 (rank1.json)");
}

TEST(ReportMerge, nan_values_stay_per_rank_but_not_in_the_figures) {
  std::vector<RankReport> ranks = three_ranks();
  ranks[1].report.ranges[0].kernels[0].metrics[0].value = std::numeric_limits<double>::quiet_NaN();
  const ReportMerge m = merge_reports(ranks);
  const MergedMetric& dram = metric_of(m.ranges[0].kernels[0], "dram__bytes_read.sum");
  EXPECT_TRUE(std::isnan(dram.values[1].value()));
  EXPECT_EQ(dram.stats->max, 200);
  EXPECT_EQ(dram.stats->max_rank, 2u);
  EXPECT_EQ(dram.stats->count, 2u);
  const nlohmann::json j = nlohmann::json::parse(render_merge_json(m));
  EXPECT_EQ(j.at("ranges").at(0).at("kernels").at(0).at("metrics").at(0).at("values"),
            nlohmann::json({100.0, "nan", 200.0}));
}

TEST(ReportMerge, a_range_name_holding_a_hash_keeps_its_name_and_instance) {
  std::vector<RankReport> ranks = three_ranks();
  for (RankReport& r : ranks) {
    for (RangeRecord& range : r.report.ranges) range.name = "layer #3";
  }
  const ReportMerge m = merge_reports(ranks);
  ASSERT_EQ(m.ranges.size(), 2u);
  EXPECT_EQ(m.ranges[1].key, "layer #3 #1");
  EXPECT_EQ(m.ranges[1].name, "layer #3");
  EXPECT_EQ(m.ranges[1].instance, 1u);
}

TEST(ReportMerge, no_reports_merge_to_nothing) {
  const ReportMerge m = merge_reports({});
  EXPECT_TRUE(m.ranks.empty());
  EXPECT_TRUE(m.ranges.empty());
  EXPECT_EQ(render_merge_csv(m), "range,kernel_index,kernel,metric,unit,min,mean,max,max_rank,count\n");
}

TEST(ReportMerge, csv_has_one_row_per_metric_with_the_figures_and_each_rank) {
  std::vector<RankReport> ranks = three_ranks();
  ranks[1].report.ranges[0].declined = true;
  const std::string csv = render_merge_csv(merge_reports(ranks));
  EXPECT_EQ(csv.rfind("range,kernel_index,kernel,metric,unit,min,mean,max,max_rank,count,rank_0,rank_1,rank_2\n", 0),
            0u);
  EXPECT_NE(csv.find("step #0,0,\"scale(float*, int) (1024,1,1)x(256,1,1)\",dram__bytes_read.sum,byte,100,150,200,2,2,"
                     "100,,200\n"),
            std::string::npos)
      << csv;
  EXPECT_NE(csv.find("step #0,1,\"void add<float, 2>(float const*, float*) (64,2,1)x(128,1,1)\","
                     "dram__bytes_read.sum,byte,1234.5678,1234.5678,1234.5678,0,2,1234.5678,,1234.5678\n"),
            std::string::npos)
      << csv;
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 5);  // the header and 2 kernels x 2 metrics
}

TEST(ReportMerge, json_carries_the_ranks_each_ranges_rank_status_and_every_value) {
  std::vector<RankReport> ranks = three_ranks();
  ranks[2].report.ranges[0].kernels[0].name = "other";
  const nlohmann::json j = nlohmann::json::parse(render_merge_json(merge_reports(ranks)));
  EXPECT_EQ(j.at("merge_version"), 1);
  EXPECT_EQ(j.at("ranks").at(2), nlohmann::json({{"rank", 2},
                                                 {"file", "rank2.json"},
                                                 {"process_id", 1002},
                                                 {"device_name", "NVIDIA H200"},
                                                 {"chip_name", "GH100"},
                                                 {"recorded_rank", nullptr}}));
  const nlohmann::json& step = j.at("ranges").at(0);
  EXPECT_EQ(step.at("range"), "step #0");
  EXPECT_EQ(step.at("reference_rank"), 0);
  EXPECT_EQ(step.at("ranks").at(0),
            nlohmann::json({{"rank", 0}, {"status", "replayed"}, {"index", 0}, {"kernels_merged", true}}));
  EXPECT_EQ(step.at("ranks").at(2).at("kernels_merged"), false);
  EXPECT_EQ(step.at("ranks").at(2).at("kernel_mismatch").get<std::string>().rfind("kernel 0 is 'scale", 0), 0u);
  const nlohmann::json& kernel = step.at("kernels").at(0);
  EXPECT_EQ(kernel.at("grid"), nlohmann::json({1024, 1, 1}));
  EXPECT_EQ(kernel.at("metrics").at(0), nlohmann::json({{"metric", "dram__bytes_read.sum"},
                                                        {"unit", "byte"},
                                                        {"values", {100.0, 300.0, nullptr}},
                                                        {"min", 100.0},
                                                        {"mean", 200.0},
                                                        {"max", 300.0},
                                                        {"max_rank", 1},
                                                        {"count", 2}}));
  const nlohmann::json& second = j.at("ranges").at(1);
  EXPECT_TRUE(second.at("reference_rank").is_null());
  EXPECT_EQ(second.at("ranks").at(1).at("decline_reason"), "free_in_range");
  EXPECT_EQ(j.at("mismatched").size(), 1u);
  EXPECT_EQ(j.at("declined").size(), 1u);
  EXPECT_TRUE(j.at("unmatched").empty());
  EXPECT_TRUE(j.at("errors").empty());
}

TEST(ReportMerge, the_table_lists_the_ranks_then_the_figures_and_each_ranks_value) {
  std::vector<RankReport> ranks = three_ranks();
  ranks[2].report.process_id = 0;
  const std::string table = render_merge_table(merge_reports(ranks));
  EXPECT_EQ(table.rfind("3 ranks:\n  rank 0    rank0.json  pid 1000  NVIDIA H200 (GH100)\n", 0), 0u) << table;
  EXPECT_NE(table.find("  rank 2    rank2.json  pid unknown  NVIDIA H200 (GH100)\n"), std::string::npos) << table;
  EXPECT_NE(table.find("\nstep #0\n\n  kernel 0: scale(float*, int) (1024,1,1)x(256,1,1)\n"), std::string::npos)
      << table;
  EXPECT_NE(table.find(table_row("Metric Name", "Metric Unit",
                                 {"Min", "Mean", "Max", "Max Rank", "rank 0", "rank 1", "rank 2"})),
            std::string::npos)
      << table;
  const std::string row = table_row("dram__bytes_read.sum", "byte", {"100", "200", "300", "1", "100", "300", "200"});
  EXPECT_NE(table.find(row), std::string::npos) << table << "\nwanted:\n" << row;
  EXPECT_NE(table.find("declined:\n  range 'step #1' declined in ranks 0, 1, 2 (free_in_range)\n"), std::string::npos)
      << table;
  EXPECT_NE(table.find("\n4 metrics merged over 3 ranks, 0 mismatched, 0 unmatched, 1 declined\n"), std::string::npos)
      << table;
}

}  // namespace
}  // namespace rangereplay::report

namespace rangereplay::report {
namespace {

// The longest line of `text`, in columns (the table is ASCII).
std::size_t widest_line(const std::string& text) {
  std::size_t widest = 0, start = 0;
  for (std::size_t end = text.find('\n'); end != std::string::npos; start = end + 1, end = text.find('\n', start))
    widest = std::max(widest, end - start);
  return widest;
}

// Every kernel of every rank gets `name` with `value` times the rank's own
// factor (1, 3, 2), so the figures have as many digits as `value`.
std::vector<RankReport> three_ranks_with(const std::string& name, double value) {
  std::vector<RankReport> ranks = three_ranks();
  const double factor[] = {1, 3, 2};
  for (std::size_t r = 0; r < ranks.size(); ++r) {
    for (KernelRecord& k : ranks[r].report.ranges[0].kernels) k.metrics.push_back({name, "byte", value * factor[r]});
  }
  return ranks;
}

TEST(ReportMerge, a_name_wider_than_the_table_allows_stands_on_its_own_line_within_120_columns) {
  const std::string name(100, 'n');
  const std::string table = render_merge_table(merge_reports(three_ranks_with(name, 7)));
  EXPECT_LE(widest_line(table.substr(table.find("\nstep #0\n"))), 120u) << table;
  // The name alone, then its values under an empty name column.
  EXPECT_NE(table.find("\n    " + name + "\n    " + std::string(24 + 1 + 11, ' ')), std::string::npos) << table;
  // The rank columns stay: they fit beside the narrowed name column.
  EXPECT_NE(table.find("rank 2"), std::string::npos) << table;
  EXPECT_EQ(table.find("rank columns would not fit"), std::string::npos) << table;
}

TEST(ReportMerge, rank_columns_that_cannot_fit_in_120_columns_are_left_to_the_json_and_csv_with_a_note) {
  // Six ranks: 4 + 24 + 1 + 11 columns of name and unit, four figures and
  // six ranks of 9 columns each make 130.
  std::vector<RankReport> ranks;
  for (std::uint32_t r = 0; r < 6; ++r) ranks.push_back(rank_report(r, 100.0 * (r + 1)));
  const std::string table = render_merge_table(merge_reports(ranks));
  EXPECT_LE(widest_line(table.substr(table.find("\nstep #0\n"))), 120u) << table;
  EXPECT_NE(table.find(" Max Rank\n"), std::string::npos) << table;
  EXPECT_EQ(table.find("Max Rank   rank 0"), std::string::npos) << table;
  EXPECT_NE(table.find("(each rank's value is in the JSON and CSV output: the rank columns would not fit in 120 "
                       "columns)"),
            std::string::npos)
      << table;
}

// Ranks profiled by --set triage merge by their totals; their samples,
// one series per rank, are not merged and do not disturb the merge.
TEST(ReportMerge, triage_reports_merge_their_totals) {
  Report r0 = testing::triage_report(), r1 = testing::triage_report();
  r1.ranges[0].range_metrics[0].value = 900.0;
  r1.ranges[0].samples->pop_back();
  const ReportMerge m = merge_reports({{"a.json", r0}, {"b.json", r1}});
  ASSERT_FALSE(m.ranges.empty());
  const MergedRange& range = m.ranges[0];
  ASSERT_EQ(range.range_metrics.size(), 2u);
  EXPECT_EQ(range.range_metrics[0].name, "smsp__inst_executed.sum");
  EXPECT_EQ(range.range_metrics[0].values, (std::vector<std::optional<double>>{600.0, 900.0}));
  ASSERT_TRUE(range.range_metrics[0].stats.has_value());
  EXPECT_EQ(range.range_metrics[0].stats->max_rank, 1u);
  EXPECT_TRUE(m.mismatched.empty());
}

}  // namespace
}  // namespace rangereplay::report
