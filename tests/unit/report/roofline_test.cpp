// The roofline's FLOP counting by data type, its ceilings and what it says
// is missing: on a hand-made report with tensor-core counters, on reports
// that lack some, and on the recorded H200 report of a PyTorch training step.
#include "report/roofline.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "report/report_json.h"

namespace rangereplay::report {
namespace {

constexpr const char* kP = "smsp__sass_thread_inst_executed_op_";

// A kernel with every metric the roofline reads: `flops` overrides the zero
// counts, SM clock 1.8 GHz, DRAM 1504 byte/cycle at 3.2 GHz, L2 9024
// byte/cycle at 1.7 GHz, the H200's FP peaks per cycle.
KernelRecord kernel(std::uint32_t index, double duration_ns, double dram_bytes,
                    const std::vector<std::pair<std::string, double>>& counts) {
  KernelRecord k;
  k.index = index;
  k.name = "kernel" + std::to_string(index);
  for (const std::string& name : roofline_metrics()) k.metrics.push_back({name, "", 0});
  const auto set = [&](const std::string& name, double v) {
    for (MetricValue& m : k.metrics) {
      if (m.name == name) m.value = v;
    }
  };
  set("gpu__time_duration.sum", duration_ns);
  set("dram__bytes.sum", dram_bytes);
  set("lts__t_bytes.sum", 2 * dram_bytes);
  set("sm__cycles_elapsed.avg.per_second", 1.8e9);
  set("dram__bytes.sum.peak_sustained", 1504);
  set("dram__cycles_elapsed.avg.per_second", 3.2e9);
  set("lts__t_bytes.sum.peak_sustained", 9024);
  set("lts__cycles_elapsed.avg.per_second", 1.7e9);
  set("sm__sass_thread_inst_executed_op_ffma_pred_on.sum.peak_sustained", 16896);
  set("sm__sass_thread_inst_executed_op_dfma_pred_on.sum.peak_sustained", 8448);
  set("sm__sass_thread_inst_executed_op_hfma_pred_on.sum.peak_sustained", 33792);
  set("sm__ops_path_tensor_src_fp64.sum.peak_sustained", 16896);
  set("sm__ops_path_tensor_src_tf32_dst_fp32.sum.peak_sustained", 270336);
  set("sm__ops_path_tensor_src_fp16.sum.peak_sustained", 540672);
  set("sm__ops_path_tensor_src_bf16_dst_fp32.sum.peak_sustained", 540672);
  set("sm__ops_path_tensor_src_fp8.sum.peak_sustained", 1081344);
  for (const auto& [name, v] : counts) set(name, v);
  return k;
}

// A GEMM-like kernel (FP32 FMAs and tensor FP16/BF16 operations) and a fill
// kernel that executes no floating-point instruction.
RangeRecord tensor_range() {
  RangeRecord r;
  r.name = "step";
  r.kernels.push_back(kernel(0, 1e6, 1e9,
                             {{std::string(kP) + "ffma_pred_on.sum", 1e9},
                              {std::string(kP) + "fadd_pred_on.sum", 3e8},
                              {std::string(kP) + "hfma_pred_on.sum", 1e8},
                              {"sm__ops_path_tensor_src_fp16.sum", 1e12},
                              {"sm__ops_path_tensor_src_bf16_dst_fp32.sum", 5e11}}));
  r.kernels.push_back(kernel(1, 5000, 4e6, {}));
  return r;
}

double ceiling(const std::vector<RooflineCeiling>& list, const std::string& key) {
  for (const RooflineCeiling& c : list) {
    if (c.key == key) return c.value;
  }
  return -1;
}

TEST(Roofline, counts_every_flop_by_data_type_tensor_cores_included) {
  const Roofline roof = compute_roofline(tensor_range());
  ASSERT_TRUE(roof.available);
  EXPECT_TRUE(roof.missing_metrics.empty());
  EXPECT_TRUE(roof.not_counted.empty());
  ASSERT_EQ(roof.kernels.size(), 2u);
  const RooflinePoint& gemm = roof.kernels[0];
  // FP32: 2 * 1e9 FFMA + 3e8 FADD; FP16: 2 * 1e8 HFMA; tensor: ops as counted.
  EXPECT_DOUBLE_EQ(gemm.flop_by_kind.at("fp32"), 2.3e9);
  EXPECT_DOUBLE_EQ(gemm.flop_by_kind.at("fp16"), 2e8);
  EXPECT_DOUBLE_EQ(gemm.flop_by_kind.at("tensor_fp16"), 1e12);
  EXPECT_DOUBLE_EQ(gemm.flop_by_kind.at("tensor_bf16"), 5e11);
  EXPECT_EQ(gemm.flop_by_kind.count("fp64"), 0u);
  EXPECT_DOUBLE_EQ(gemm.flop, 1.5025e12);
  EXPECT_DOUBLE_EQ(gemm.tflop_per_s, 1502.5);  // 1.5025e12 FLOP in 1 ms
  EXPECT_DOUBLE_EQ(gemm.dram_flop_per_byte, 1502.5);
  EXPECT_DOUBLE_EQ(gemm.l2_flop_per_byte, 751.25);
  EXPECT_EQ(gemm.off, "");
  EXPECT_FALSE(gemm.in_band);
  EXPECT_EQ(roof.kernels[1].off, "no FLOP");
  EXPECT_EQ(roof.kernels_with_duration, 2u);
  EXPECT_EQ(roof.kernels_on_roofline, 1u);
  // The range: sums over its kernels.
  EXPECT_DOUBLE_EQ(roof.whole.flop, 1.5025e12);
  EXPECT_DOUBLE_EQ(roof.whole.duration_ns, 1.005e6);
  EXPECT_DOUBLE_EQ(roof.whole.dram_bytes, 1.004e9);
}

// The fill kernel (no FLOP, 4e6 DRAM bytes in 5 us) is in the band of
// kernels without floating-point work, placed by its DRAM bandwidth.
TEST(Roofline, kernels_without_flop_are_placed_in_a_band_by_their_dram_bandwidth) {
  RangeRecord r = tensor_range();
  // A third kernel with neither FLOP nor DRAM bytes: off the chart.
  r.kernels.push_back(kernel(2, 2000, 0, {}));
  const Roofline roof = compute_roofline(r);
  ASSERT_EQ(roof.kernels.size(), 3u);
  const RooflinePoint& fill = roof.kernels[1];
  EXPECT_TRUE(fill.in_band);
  EXPECT_EQ(fill.off, "no FLOP");
  EXPECT_DOUBLE_EQ(fill.dram_byte_per_s, 8e11);  // 4e6 byte in 5 us
  // Against the DRAM ceiling of 1504 byte/cycle at 3.2 GHz = 4.8128e12 byte/s.
  EXPECT_NEAR(fill.dram_pct_of_peak, 100 * 8e11 / 4.8128e12, 1e-9);
  // The GEMM: 1e9 byte in 1 ms.
  EXPECT_DOUBLE_EQ(roof.kernels[0].dram_byte_per_s, 1e12);
  EXPECT_NEAR(roof.kernels[0].dram_pct_of_peak, 100 / 4.8128, 1e-9);
  const RooflinePoint& empty = roof.kernels[2];
  EXPECT_FALSE(empty.in_band);
  EXPECT_EQ(empty.off, "no FLOP, no DRAM bytes");
  EXPECT_EQ(empty.dram_byte_per_s, 0);
  EXPECT_EQ(roof.kernels_with_duration, 3u);
  EXPECT_EQ(roof.kernels_on_roofline, 1u);
  EXPECT_EQ(roof.kernels_in_band, 1u);
  EXPECT_EQ(roof.kernels_on_chart, 2u);
  // Without a DRAM ceiling there is no percentage, the bandwidth stays.
  for (KernelRecord& k : r.kernels) {
    for (MetricValue& m : k.metrics) {
      if (m.name == "dram__cycles_elapsed.avg.per_second") m.value = 0;
    }
  }
  const Roofline no_peak = compute_roofline(r);
  EXPECT_EQ(no_peak.kernels[1].dram_pct_of_peak, 0);
  EXPECT_DOUBLE_EQ(no_peak.kernels[1].dram_byte_per_s, 8e11);
  EXPECT_TRUE(no_peak.kernels[1].in_band);
}

TEST(Roofline, ceilings_are_each_data_types_peak_per_cycle_times_the_clock) {
  const Roofline roof = compute_roofline(tensor_range());
  // An FMA is 2 FLOP: FP32 = 2 * 16896 * 1.8 GHz.
  EXPECT_NEAR(ceiling(roof.compute, "fp32"), 60.8256, 1e-9);
  EXPECT_NEAR(ceiling(roof.compute, "fp64"), 30.4128, 1e-9);
  EXPECT_NEAR(ceiling(roof.compute, "fp16"), 121.6512, 1e-9);
  EXPECT_NEAR(ceiling(roof.compute, "tensor_fp16"), 973.2096, 1e-9);
  EXPECT_NEAR(ceiling(roof.compute, "tensor_fp8"), 1946.4192, 1e-9);
  EXPECT_EQ(roof.compute.size(), 8u);
  EXPECT_NEAR(ceiling(roof.memory, "dram"), 4.8128, 1e-12);  // 1504 byte/cycle at 3.2 GHz, TB/s
  EXPECT_NEAR(ceiling(roof.memory, "l2"), 15.3408, 1e-12);
}

TEST(Roofline, clocks_are_averaged_over_the_kernels_by_duration) {
  RangeRecord r = tensor_range();
  for (MetricValue& m : r.kernels[1].metrics) {
    if (m.name == "sm__cycles_elapsed.avg.per_second") m.value = 1.0e9;
  }
  // The fill kernel runs 5 us of the 1.005 ms.
  const double clock = (1e6 * 1.8e9 + 5000 * 1.0e9) / 1.005e6;
  EXPECT_NEAR(ceiling(compute_roofline(r).compute, "fp32"), 2 * 16896 * clock / 1e12, 1e-9);
}

TEST(Roofline, names_the_data_types_it_cannot_count_instead_of_guessing) {
  RangeRecord r = tensor_range();
  for (KernelRecord& k : r.kernels) {
    std::erase_if(k.metrics, [](const MetricValue& m) {
      return m.name.starts_with("sm__ops_path_tensor_src_") ||
             m.name.find("hfma_pred_on.sum.peak") != std::string::npos;
    });
  }
  const Roofline roof = compute_roofline(r);
  ASSERT_TRUE(roof.available);
  EXPECT_EQ(roof.not_counted,
            (std::vector<std::string>{"tensor FP64", "tensor TF32", "tensor FP16", "tensor BF16", "tensor FP8"}));
  const auto missing = [&](const std::string& name) {
    return std::find(roof.missing_metrics.begin(), roof.missing_metrics.end(), name) != roof.missing_metrics.end();
  };
  EXPECT_TRUE(missing("sm__ops_path_tensor_src_fp16.sum"));
  EXPECT_TRUE(missing("sm__sass_thread_inst_executed_op_hfma_pred_on.sum.peak_sustained"));
  // FP16 is counted but has no ceiling without its peak.
  EXPECT_DOUBLE_EQ(roof.kernels[0].flop, 2.5e9);
  EXPECT_LT(ceiling(roof.compute, "fp16"), 0);
  EXPECT_GT(ceiling(roof.compute, "fp32"), 0);
}

TEST(Roofline, without_duration_bytes_or_bandwidth_peaks_there_is_none) {
  RangeRecord r = tensor_range();
  for (KernelRecord& k : r.kernels) {
    std::erase_if(k.metrics, [](const MetricValue& m) { return m.name == "dram__bytes.sum.peak_sustained"; });
  }
  const Roofline roof = compute_roofline(r);
  EXPECT_FALSE(roof.available);
  EXPECT_EQ(roof.missing_metrics, std::vector<std::string>{"dram__bytes.sum.peak_sustained"});
  EXPECT_TRUE(roof.kernels.empty());
  RangeRecord declined = tensor_range();
  declined.declined = true;
  EXPECT_FALSE(compute_roofline(declined).available);
}

TEST(Roofline, whole_range_values_give_one_point) {
  RangeRecord r = tensor_range();
  r.range_metrics = r.kernels[0].metrics;
  for (KernelRecord& k : r.kernels) k.metrics.clear();
  const Roofline roof = compute_roofline(r);
  ASSERT_TRUE(roof.available);
  EXPECT_TRUE(roof.kernels.empty());
  EXPECT_DOUBLE_EQ(roof.whole.tflop_per_s, 1502.5);
  EXPECT_EQ(roof.whole.off, "");
}

TEST(Roofline, is_written_in_the_reports_json_per_range) {
  Report report;
  report.ranges.push_back(tensor_range());
  const StatusOr<std::string> text = dump_report_json(report, -1);
  ASSERT_TRUE(text.ok()) << text.status().to_string();
  const nlohmann::json j = nlohmann::json::parse(*text);
  const nlohmann::json& roof = j["ranges"][0]["roofline"];
  EXPECT_EQ(roof["available"], true);
  EXPECT_EQ(roof["kernels_on_roofline"], 1);
  EXPECT_EQ(roof["kernels"][0]["flop_by_kind"]["tensor_fp16"], 1e12);
  EXPECT_EQ(roof["kernels"][1]["off"], "no FLOP");
  EXPECT_EQ(roof["kernels"][1]["in_band"], true);
  EXPECT_DOUBLE_EQ(roof["kernels"][1]["dram_byte_per_s"].get<double>(), 8e11);
  EXPECT_NEAR(roof["kernels"][1]["dram_pct_of_peak"].get<double>(), 100 * 8e11 / 4.8128e12, 1e-9);
  EXPECT_EQ(roof["kernels"][0]["in_band"], false);
  EXPECT_EQ(roof["kernels_in_band"], 1);
  EXPECT_EQ(roof["kernels_on_chart"], 2);
  EXPECT_NEAR(roof["compute_ceilings"][1]["tflop_per_s"].get<double>(), 60.8256, 1e-9);
  EXPECT_EQ(roof["compute_ceilings"][1]["label"], "FP32");
  EXPECT_EQ(roof["memory_ceilings"][0]["label"], "DRAM");
  // Derived when written, not read back: a report read and written again is the same.
  const StatusOr<Report> back = parse_report_json(*text);
  ASSERT_TRUE(back.ok()) << back.status().to_string();
  EXPECT_EQ(*dump_report_json(*back, -1), *text);
}

// The injection library registers its exit handler (the report's write) when
// it starts, and the tables the roofline reads are made at the first range's
// journal line, after it: their destructors run before the handler. They are
// never destroyed, so the report written at exit is the one written before.
// Run in a fresh process (threadsafe death test: the tables are not made yet);
// a table destroyed before the handler is a use after free, which ASan
// (scripts/sanitize.sh) reports and a plain build may show as other text.
const Report* g_exit_report = nullptr;
const std::string* g_text_before_exit = nullptr;

TEST(RooflineDeathTest, tables_outlive_an_exit_handler_registered_before_their_first_use) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        std::atexit([] {
          const StatusOr<std::string> text = dump_report_json(*g_exit_report, -1);
          std::_Exit(text.ok() && *text == *g_text_before_exit ? 0 : 3);
        });
        auto* report = new Report();  // read by the handler: never destroyed
        report->ranges.push_back(tensor_range());
        g_exit_report = report;
        g_text_before_exit = new std::string(*dump_report_json(*report, -1));
        std::exit(0);
      },
      ::testing::ExitedWithCode(0), "");
}

// The recorded H200 report of a 560-kernel PyTorch training step (FP32: its
// GEMMs are FFMA SGEMMs), profiled with --set full before the tensor counters
// by type were in it.
TEST(Roofline, on_the_torch_training_step_every_kernel_with_a_flop_or_dram_bytes_is_on_the_chart) {
  const StatusOr<Report> report = read_report_json(RR_TEST_TORCH_REPORT);
  ASSERT_TRUE(report.ok()) << report.status().to_string();
  ASSERT_EQ(report->ranges.size(), 2u);
  for (const RangeRecord& range : report->ranges) {
    const Roofline roof = compute_roofline(range);
    ASSERT_TRUE(roof.available) << range.index;
    EXPECT_EQ(roof.kernels.size(), 560u);
    EXPECT_EQ(roof.kernels_with_duration, 560u);
    // FP16 and tensor FP16 counted now, FP32/FP64 before: 299 (240 before).
    // The other 261 execute no floating-point instruction (fills of 215
    // FillFunctor<float> launches, radix sorts, gathers, clamps).
    EXPECT_EQ(roof.kernels_on_roofline, 299u);
    std::size_t no_flop = 0;
    for (const RooflinePoint& p : roof.kernels) no_flop += p.off.starts_with("no FLOP");
    EXPECT_EQ(no_flop, 261u);
    // Those with DRAM bytes are in the band of kernels without floating-point
    // work; the rest (radix sorts and small elementwise kernels whose data
    // stayed in L2) move no DRAM byte and are off the chart.
    EXPECT_EQ(roof.kernels_in_band, range.index == 0 ? 257u : 253u);
    std::size_t neither = 0;
    for (const RooflinePoint& p : roof.kernels) neither += p.off == "no FLOP, no DRAM bytes";
    EXPECT_EQ(neither, range.index == 0 ? 4u : 8u);
    EXPECT_EQ(roof.kernels_on_chart, roof.kernels_on_roofline + roof.kernels_in_band);
    const double share =
        100.0 * static_cast<double>(roof.kernels_on_chart) / static_cast<double>(roof.kernels_with_duration);
    std::printf(
        "range %u: %zu of %zu kernels with a duration on the chart (%.1f%%): %zu on the roofline, %zu in the band\n",
        range.index, roof.kernels_on_chart, roof.kernels_with_duration, share, roof.kernels_on_roofline,
        roof.kernels_in_band);
    EXPECT_GE(share, 90);
    // A band kernel's percentage of the DRAM peak is Nsight Compute's own
    // DRAM throughput (dram__throughput.avg.pct_of_peak_sustained_elapsed)
    // to within a point: the same bytes over the duration rather than the
    // elapsed cycles, against the range's mean clock.
    for (const RooflinePoint& p : roof.kernels) {
      if (!p.in_band) continue;
      const KernelRecord& k = range.kernels[*p.kernel_index];
      const auto m = std::find_if(k.metrics.begin(), k.metrics.end(), [](const MetricValue& v) {
        return v.name == "dram__throughput.avg.pct_of_peak_sustained_elapsed";
      });
      ASSERT_NE(m, k.metrics.end());
      EXPECT_NEAR(p.dram_pct_of_peak, m->value, 1.0) << k.name;
    }
    // The first kernel zeroes the gradients (multi_tensor_apply_kernel with
    // ZeroFunctor<float>): no FLOP, in the band at about two thirds of the
    // DRAM peak.
    const nlohmann::json j = roofline_json(roof);
    const nlohmann::json& zero = j["kernels"][0];
    ASSERT_NE(range.kernels[0].name.find("ZeroFunctor<float"), std::string::npos);
    EXPECT_EQ(zero["kernel_index"], 0);
    EXPECT_EQ(zero["off"], "no FLOP");
    EXPECT_EQ(zero["in_band"], true);
    EXPECT_EQ(zero["flop"], 0);
    const double bytes = range.index == 0 ? 73806336 : 67516672, ns = range.index == 0 ? 22944 : 23392;
    EXPECT_EQ(zero["dram_bytes"], bytes);
    EXPECT_EQ(zero["duration_ns"], ns);
    EXPECT_DOUBLE_EQ(zero["dram_byte_per_s"].get<double>(), bytes / (ns * 1e-9));  // 3.22 and 2.89 TB/s
    EXPECT_NEAR(zero["dram_pct_of_peak"].get<double>(), range.index == 0 ? 66.944 : 60.068, 1e-3);
    EXPECT_EQ(j["kernels_in_band"], roof.kernels_in_band);
    EXPECT_EQ(j["kernels_on_chart"], roof.kernels_on_chart);
    for (const RooflinePoint& p : roof.kernels) {
      if (p.off.empty()) continue;
      const KernelRecord& k = range.kernels[*p.kernel_index];
      for (const char* op : {"dfma", "dadd", "dmul", "ffma", "fadd", "fmul", "hfma", "hadd", "hmul"}) {
        const std::string name = std::string(kP) + op + "_pred_on.sum";
        const auto m =
            std::find_if(k.metrics.begin(), k.metrics.end(), [&](const MetricValue& v) { return v.name == name; });
        ASSERT_NE(m, k.metrics.end()) << name;
        EXPECT_EQ(m->value, 0) << k.name << " " << name;
      }
    }
    EXPECT_EQ(roof.not_counted, (std::vector<std::string>{"tensor FP64", "tensor TF32", "tensor BF16", "tensor FP8"}));
    // The report has the FP64 and FP32 peaks only.
    ASSERT_EQ(roof.compute.size(), 2u);
    EXPECT_EQ(roof.compute[0].label, "FP64");
    EXPECT_EQ(roof.compute[1].label, "FP32");
    EXPECT_GT(roof.compute[1].value, 60);  // H200 FP32: 2 * 16896 FLOP/cycle at about 1.9 GHz
    EXPECT_LT(roof.compute[1].value, 70);
    EXPECT_GT(ceiling(roof.memory, "dram"), 4.5);  // about 4.8 TB/s
    EXPECT_LT(ceiling(roof.memory, "dram"), 5.0);
    EXPECT_NEAR(roof.whole.flop, range.index == 0 ? 418715612374.0 : 418719377642.0, 1);
  }
}

}  // namespace
}  // namespace rangereplay::report
