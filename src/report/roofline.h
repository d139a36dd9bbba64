// The roofline of a range: each kernel's floating-point work by data type
// (FP64, FP32 and FP16/BF16 instructions, and the tensor cores' math
// operations by source type) against its DRAM and L2 bytes, under the GPU's
// peak compute rate of each data type and its DRAM and L2 bandwidths.
//
// FLOPs are counted as Nsight Compute's roofline sections count them: an
// FMA thread instruction is 2 FLOP, an ADD or MUL 1 (FP64: dfma/dadd/dmul,
// FP32: ffma/fadd/fmul, FP16 and BF16: hfma/hadd/hmul); a tensor core's math
// operations (sm__ops_path_tensor_src_<type>.sum) are FLOP as counted. The
// peak of a data type is its counter's `.peak_sustained` (per cycle, whole
// GPU; times 2 for an FMA) times the SM clock (sm__cycles_elapsed.avg.
// per_second); a bandwidth is dram__bytes.sum.peak_sustained times the DRAM
// clock, and lts__t_bytes.sum.peak_sustained times the L2 clock. Clocks are
// averaged over the range's kernels, weighted by their durations.
//
// A kernel that executes no floating-point instruction (a fill, copy, sort
// or gather) has no arithmetic intensity, so no place on the roofline; with a
// duration and DRAM bytes it is placed instead in a band of its own, "no
// floating-point work", by its achieved DRAM bandwidth (DRAM bytes over its
// duration) against the DRAM ceiling.
//
// Nothing is guessed: a data type whose counters the report lacks is named in
// `not_counted` with its metrics in `missing_metrics`, and without the
// duration, byte counts, clocks or bandwidth peaks there is no roofline.
//
// Thread-safety: pure functions on values.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "report/report_model.h"

namespace rangereplay::report {

/// One data type's floating-point work: FLOP = sum of factor * counter, its
/// peak FLOP per SM cycle = peak_factor * `peak` (a `.peak_sustained` metric).
struct FlopKind {
  std::string_view key;    // e.g. "fp32", "tensor_fp16"
  std::string_view label;  // e.g. "FP32", "tensor FP16"
  std::vector<std::pair<std::string_view, double>> counts;
  std::string_view peak;
  double peak_factor = 1;
};

/// The data types the roofline counts, in the order it lists them.
std::span<const FlopKind> flop_kinds();

/// The metrics without which a range has no roofline (duration, DRAM and L2
/// bytes, the clocks and bandwidth peaks).
std::span<const std::string_view> roofline_base_metrics();

/// Every metric the roofline reads: the base metrics and each data type's
/// counters and peak.
std::vector<std::string> roofline_metrics();

/// A ceiling: a peak compute rate (TFLOP/s) or a bandwidth (TB/s).
struct RooflineCeiling {
  std::string key;    // a FlopKind key, or "dram" / "l2"
  std::string label;  // e.g. "FP32" or "DRAM"
  double value = 0;   // TFLOP/s for compute, TB/s (1e12 byte/s) for memory
};

/// One point: a kernel, or the whole range (kernel_index empty).
struct RooflinePoint {
  std::optional<std::uint32_t> kernel_index;
  double duration_ns = 0;
  double flop = 0;
  std::map<std::string, double> flop_by_kind;  // kinds with FLOP > 0
  double dram_bytes = 0;
  double l2_bytes = 0;
  double tflop_per_s = 0;         // FLOP / duration / 1e12
  double dram_flop_per_byte = 0;  // FLOP / DRAM bytes (0 without bytes)
  double l2_flop_per_byte = 0;    // FLOP / L2 bytes (0 without bytes)
  double dram_byte_per_s = 0;     // achieved DRAM bandwidth: DRAM bytes / duration, byte/s (0 without a duration)
  double dram_pct_of_peak = 0;    // dram_byte_per_s in percent of the DRAM ceiling (0 without that ceiling)
  // Empty when the point has a place on the log-log chart; else why not:
  // "no duration", "no FLOP" (no floating-point instruction counted), "no
  // FLOP, no DRAM bytes", "no DRAM bytes" (FLOP but no DRAM bytes).
  std::string off;
  // True when off is "no FLOP" with a duration and DRAM bytes: the point
  // belongs in the "no floating-point work" band, placed by dram_byte_per_s.
  bool in_band = false;
};

/// A range's roofline.
struct Roofline {
  bool available = false;                    // false: no roofline (see compute_roofline)
  std::vector<std::string> missing_metrics;  // metrics the roofline reads that the report lacks
  std::vector<std::string> not_counted;      // labels of data types whose counters are missing
  std::vector<RooflineCeiling> compute;      // one per counted data type with a peak, TFLOP/s
  std::vector<RooflineCeiling> memory;       // DRAM, L2, TB/s
  std::vector<RooflinePoint> kernels;        // kernels with metrics of their own
  RooflinePoint whole;                       // the range: sums over its kernels (or its whole-range values)
  std::size_t kernels_with_duration = 0;
  std::size_t kernels_on_roofline = 0;  // kernels whose point has a place (off empty)
  std::size_t kernels_in_band = 0;      // kernels in the "no floating-point work" band (in_band)
  std::size_t kernels_on_chart = 0;     // kernels_on_roofline + kernels_in_band
};

/// The roofline of `range` (per-kernel values, or the range's whole-range
/// values when its kernels have none). A declined range gives available ==
/// false; one without a base metric too, with missing_metrics naming only the
/// missing base metrics; one without any data type's counters too, with
/// missing_metrics naming those.
Roofline compute_roofline(const RangeRecord& range);

/// The roofline as JSON (the report's ranges[i].roofline): keys as the
/// structs' fields, ceilings as {key, label, tflop_per_s | tbyte_per_s};
/// non-finite numbers as 0; may throw nlohmann::json's exceptions (and
/// std::bad_alloc) as any json construction does. Without a roofline only `available` (false) and
/// `missing_metrics`.
nlohmann::json roofline_json(const Roofline& roofline);

}  // namespace rangereplay::report
