// A range's roofline from its kernels' metrics (see roofline.h).
#include "report/roofline.h"

#include <array>
#include <cmath>
#include <nlohmann/json.hpp>
#include <unordered_map>

namespace rangereplay::report {
namespace {

using nlohmann::json;

constexpr std::string_view kDuration = "gpu__time_duration.sum";
constexpr std::string_view kDramBytes = "dram__bytes.sum";
constexpr std::string_view kL2Bytes = "lts__t_bytes.sum";
constexpr std::string_view kSmClock = "sm__cycles_elapsed.avg.per_second";
constexpr std::string_view kDramPeak = "dram__bytes.sum.peak_sustained";
constexpr std::string_view kDramClock = "dram__cycles_elapsed.avg.per_second";
constexpr std::string_view kL2Peak = "lts__t_bytes.sum.peak_sustained";
constexpr std::string_view kL2Clock = "lts__cycles_elapsed.avg.per_second";

constexpr std::array<std::string_view, 8> kBase = {kDuration, kDramBytes, kL2Bytes, kSmClock,
                                                   kDramPeak, kDramClock, kL2Peak,  kL2Clock};

const std::vector<FlopKind>& kinds() {
  // Never destroyed: the injection library's exit handler writes the report
  // (each range's roofline) after the destructors of statics made after it
  // was registered (this one at the first range's journal line) have run.
  static const std::vector<FlopKind>& list = *new const std::vector<FlopKind>{
      {"fp64",
       "FP64",
       {{"smsp__sass_thread_inst_executed_op_dfma_pred_on.sum", 2},
        {"smsp__sass_thread_inst_executed_op_dadd_pred_on.sum", 1},
        {"smsp__sass_thread_inst_executed_op_dmul_pred_on.sum", 1}},
       "sm__sass_thread_inst_executed_op_dfma_pred_on.sum.peak_sustained",
       2},
      {"fp32",
       "FP32",
       {{"smsp__sass_thread_inst_executed_op_ffma_pred_on.sum", 2},
        {"smsp__sass_thread_inst_executed_op_fadd_pred_on.sum", 1},
        {"smsp__sass_thread_inst_executed_op_fmul_pred_on.sum", 1}},
       "sm__sass_thread_inst_executed_op_ffma_pred_on.sum.peak_sustained",
       2},
      {"fp16",
       "FP16/BF16",
       {{"smsp__sass_thread_inst_executed_op_hfma_pred_on.sum", 2},
        {"smsp__sass_thread_inst_executed_op_hadd_pred_on.sum", 1},
        {"smsp__sass_thread_inst_executed_op_hmul_pred_on.sum", 1}},
       "sm__sass_thread_inst_executed_op_hfma_pred_on.sum.peak_sustained",
       2},
      {"tensor_fp64",
       "tensor FP64",
       {{"sm__ops_path_tensor_src_fp64.sum", 1}},
       "sm__ops_path_tensor_src_fp64.sum.peak_sustained",
       1},
      {"tensor_tf32",
       "tensor TF32",
       {{"sm__ops_path_tensor_src_tf32_dst_fp32.sum", 1}},
       "sm__ops_path_tensor_src_tf32_dst_fp32.sum.peak_sustained",
       1},
      {"tensor_fp16",
       "tensor FP16",
       {{"sm__ops_path_tensor_src_fp16.sum", 1}},
       "sm__ops_path_tensor_src_fp16.sum.peak_sustained",
       1},
      {"tensor_bf16",
       "tensor BF16",
       {{"sm__ops_path_tensor_src_bf16_dst_fp32.sum", 1}},
       "sm__ops_path_tensor_src_bf16_dst_fp32.sum.peak_sustained",
       1},
      {"tensor_fp8",
       "tensor FP8",
       {{"sm__ops_path_tensor_src_fp8.sum", 1}},
       "sm__ops_path_tensor_src_fp8.sum.peak_sustained",
       1},
  };
  return list;
}

using Values = std::unordered_map<std::string_view, double>;

Values values_of(const std::vector<MetricValue>& metrics) {
  Values out;
  for (const MetricValue& m : metrics) out.emplace(m.name, m.value);
  return out;
}

double finite_or_zero(double v) { return std::isfinite(v) ? v : 0; }

double get(const Values& v, std::string_view name) {
  const auto it = v.find(name);
  return it == v.end() ? 0 : finite_or_zero(it->second);
}

// The point of one metric list, counting the kinds in `counted`.
RooflinePoint point_of(const Values& v, const std::vector<const FlopKind*>& counted) {
  RooflinePoint p;
  p.duration_ns = get(v, kDuration);
  p.dram_bytes = get(v, kDramBytes);
  p.l2_bytes = get(v, kL2Bytes);
  for (const FlopKind* kind : counted) {
    double flop = 0;
    for (const auto& [name, factor] : kind->counts) flop += factor * get(v, name);
    if (flop > 0) p.flop_by_kind[std::string(kind->key)] = flop;
    p.flop += flop;
  }
  return p;
}

// The point's rates and its place: on the roofline, in the band of kernels
// without floating-point work, or off the chart (off says why).
// `dram_peak_tbyte_per_s`: the DRAM ceiling, TB/s (0: none).
void finish(RooflinePoint& p, double dram_peak_tbyte_per_s) {
  p.tflop_per_s = p.duration_ns > 0 ? p.flop / (p.duration_ns * 1e-9) / 1e12 : 0;
  p.dram_flop_per_byte = p.dram_bytes > 0 ? p.flop / p.dram_bytes : 0;
  p.l2_flop_per_byte = p.l2_bytes > 0 ? p.flop / p.l2_bytes : 0;
  p.dram_byte_per_s = p.duration_ns > 0 ? p.dram_bytes / (p.duration_ns * 1e-9) : 0;
  p.dram_pct_of_peak = dram_peak_tbyte_per_s > 0 ? 100 * p.dram_byte_per_s / (dram_peak_tbyte_per_s * 1e12) : 0;
  if (!(p.duration_ns > 0)) {
    p.off = "no duration";
  } else if (!(p.flop > 0)) {
    p.in_band = p.dram_bytes > 0;
    p.off = p.in_band ? "no FLOP" : "no FLOP, no DRAM bytes";
  } else if (!(p.dram_bytes > 0)) {
    p.off = "no DRAM bytes";
  }
}

json point_json(const RooflinePoint& p) {
  json j = json::object();
  if (p.kernel_index) j["kernel_index"] = *p.kernel_index;
  j["duration_ns"] = p.duration_ns;
  j["flop"] = p.flop;
  j["flop_by_kind"] = json::object();
  for (const auto& [kind, flop] : p.flop_by_kind) j["flop_by_kind"][kind] = flop;
  j["dram_bytes"] = p.dram_bytes;
  j["l2_bytes"] = p.l2_bytes;
  j["tflop_per_s"] = finite_or_zero(p.tflop_per_s);
  j["dram_flop_per_byte"] = finite_or_zero(p.dram_flop_per_byte);
  j["l2_flop_per_byte"] = finite_or_zero(p.l2_flop_per_byte);
  j["dram_byte_per_s"] = finite_or_zero(p.dram_byte_per_s);
  j["dram_pct_of_peak"] = finite_or_zero(p.dram_pct_of_peak);
  j["off"] = p.off;
  j["in_band"] = p.in_band;
  return j;
}

json ceiling_json(const RooflineCeiling& c, const char* unit_key) {
  return json{{"key", c.key}, {"label", c.label}, {unit_key, finite_or_zero(c.value)}};
}

}  // namespace

std::span<const FlopKind> flop_kinds() { return kinds(); }

std::span<const std::string_view> roofline_base_metrics() { return kBase; }

std::vector<std::string> roofline_metrics() {
  std::vector<std::string> out(kBase.begin(), kBase.end());
  for (const FlopKind& kind : kinds()) {
    for (const auto& [name, factor] : kind.counts) out.emplace_back(name);
    out.emplace_back(kind.peak);
  }
  return out;
}

Roofline compute_roofline(const RangeRecord& range) {
  Roofline r;
  if (range.declined) return r;
  // Kernels with values of their own; with whole-range values only the range
  // is a point.
  std::vector<const KernelRecord*> measured;
  for (const KernelRecord& k : range.kernels) {
    if (!k.metrics.empty()) measured.push_back(&k);
  }
  std::vector<Values> values;
  values.reserve(measured.size());
  for (const KernelRecord* k : measured) values.push_back(values_of(k->metrics));
  const Values whole_values = values_of(range.range_metrics);
  const auto has = [&](std::string_view name) {
    return values.empty() ? whole_values.count(name) > 0 : values.front().count(name) > 0;
  };

  for (std::string_view name : kBase) {
    if (!has(name)) r.missing_metrics.emplace_back(name);
  }
  // Without a base metric nothing else matters: only those are named.
  if (!r.missing_metrics.empty()) return r;
  std::vector<const FlopKind*> counted;
  std::vector<const FlopKind*> with_peak;
  for (const FlopKind& kind : kinds()) {
    bool all = true;
    for (const auto& [name, factor] : kind.counts) {
      if (!has(name)) {
        all = false;
        r.missing_metrics.emplace_back(name);
      }
    }
    if (!all) {
      r.not_counted.emplace_back(kind.label);
      continue;
    }
    counted.push_back(&kind);
    if (has(kind.peak)) {
      with_peak.push_back(&kind);
    } else {
      r.missing_metrics.emplace_back(kind.peak);
    }
  }
  if (counted.empty()) return r;
  r.available = true;

  // Clocks and peaks: duration-weighted means over the kernels (peaks are
  // the same for every kernel of a device; clocks may vary).
  const auto weighted = [&](std::string_view name) {
    if (values.empty()) return get(whole_values, name);
    double sum = 0, weight = 0;
    for (const Values& v : values) {
      const double t = get(v, kDuration);
      sum += t * get(v, name);
      weight += t;
    }
    return weight > 0 ? sum / weight : get(values.front(), name);
  };
  const double sm_clock = weighted(kSmClock);
  for (const FlopKind* kind : with_peak) {
    const double tflops = kind->peak_factor * weighted(kind->peak) * sm_clock / 1e12;
    if (tflops > 0) r.compute.push_back({std::string(kind->key), std::string(kind->label), tflops});
  }
  const double dram_peak = finite_or_zero(weighted(kDramPeak) * weighted(kDramClock) / 1e12);
  r.memory.push_back({"dram", "DRAM", dram_peak});
  r.memory.push_back({"l2", "L2", weighted(kL2Peak) * weighted(kL2Clock) / 1e12});

  if (values.empty()) {
    r.whole = point_of(whole_values, counted);
  } else {
    for (std::size_t i = 0; i < measured.size(); ++i) {
      RooflinePoint p = point_of(values[i], counted);
      p.kernel_index = measured[i]->index;
      finish(p, dram_peak);
      if (p.duration_ns > 0) ++r.kernels_with_duration;
      if (p.off.empty()) ++r.kernels_on_roofline;
      if (p.in_band) ++r.kernels_in_band;
      r.whole.duration_ns += p.duration_ns;
      r.whole.flop += p.flop;
      r.whole.dram_bytes += p.dram_bytes;
      r.whole.l2_bytes += p.l2_bytes;
      for (const auto& [kind, flop] : p.flop_by_kind) r.whole.flop_by_kind[kind] += flop;
      r.kernels.push_back(std::move(p));
    }
  }
  finish(r.whole, dram_peak);
  r.kernels_on_chart = r.kernels_on_roofline + r.kernels_in_band;
  return r;
}

json roofline_json(const Roofline& r) {
  json j = json::object();
  j["available"] = r.available;
  j["missing_metrics"] = r.missing_metrics;
  if (!r.available) return j;
  j["not_counted"] = r.not_counted;
  j["compute_ceilings"] = json::array();
  for (const RooflineCeiling& c : r.compute) j["compute_ceilings"].push_back(ceiling_json(c, "tflop_per_s"));
  j["memory_ceilings"] = json::array();
  for (const RooflineCeiling& c : r.memory) j["memory_ceilings"].push_back(ceiling_json(c, "tbyte_per_s"));
  j["kernels_with_duration"] = r.kernels_with_duration;
  j["kernels_on_roofline"] = r.kernels_on_roofline;
  j["kernels_in_band"] = r.kernels_in_band;
  j["kernels_on_chart"] = r.kernels_on_chart;
  j["whole"] = point_json(r.whole);
  j["kernels"] = json::array();
  for (const RooflinePoint& p : r.kernels) j["kernels"].push_back(point_json(p));
  return j;
}

}  // namespace rangereplay::report
