// Turns a decoded counter data image (filled by the Range Profiler over all
// passes, cuptiRangeProfilerDecodeData) into metric values per range: range i
// of the image gives one RangeValues with the value of each requested metric.
//
//   RR_ASSIGN_OR_RETURN(auto ranges, cupti::evaluate_counter_data(catalog, image, names));
//   for (const auto& r : ranges) print(r.range_name, r.values);  // values[i] is names[i]
//
// Range names come from the image: in user-range mode the names pushed with
// cuptiRangeProfilerPushRange (nested names joined by "/"), in auto-range mode
// the kernel's position ("0", "1", ...).
// Source followed: cupti_range_profiler.h (GetCounterDataInfo,
// CounterDataGetRangeInfo), cupti_profiler_host.h (EvaluateToGpuValues),
// nvperf_host.h and nvperf_cuda_host.h (the metrics evaluator), CUDA 13.
//
// The image must come from cuptiRangeProfilerCounterDataImageInitialize and
// DecodeData: CUPTI does not check the bytes, and an arbitrary buffer crashes
// inside CUPTI (seen with cuptiRangeProfilerGetCounterDataInfo on 4 KiB of
// 0xab), so only an empty image is rejected here.
// Thread-safety: as MetricCatalog (evaluation calls are serialised).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "core/base/status.h"
#include "cupti/metric_catalog.h"

namespace rangereplay::cupti {

struct RangeValues {
  std::string range_name;      // e.g. "step/forward" (user range) or "3" (auto range)
  std::vector<double> values;  // values[i] is the value of names[i], in the metric's unit
};

/// Number of ranges stored in a counter data image
/// (cuptiRangeProfilerGetCounterDataInfo). Errors: kInvalidArgument for an
/// empty image; kInternal for CUPTI failures.
StatusOr<std::size_t> counter_data_range_count(std::span<const uint8_t> counter_data_image);

/// Name of range `range_index` (nested levels joined by "/"). Errors:
/// kOutOfRange past the last range; kInvalidArgument for an empty image.
StatusOr<std::string> counter_data_range_name(std::span<const uint8_t> counter_data_image, std::size_t range_index);

/// Values of `names` for each range of the image, in range order. `names`
/// must be valid for `catalog` (checked: kInvalidArgument with suggestions)
/// and should be the names the configuration was built from; metrics missing
/// from the image make CUPTI fail (kInternal). `wanted`: where it has an
/// entry for a range and that entry is false, the range is named but not
/// evaluated (its values stay zeros); empty: every range is evaluated.
/// Errors: kInvalidArgument for an empty image or an empty name list.
StatusOr<std::vector<RangeValues>> evaluate_counter_data(const MetricCatalog& catalog,
                                                         std::span<const uint8_t> counter_data_image,
                                                         const std::vector<std::string>& names,
                                                         const std::vector<bool>& wanted = {});

/// The same values as evaluate_counter_data, for the same ranges, by NVIDIA's
/// metrics evaluator (nvperf_host.h, nvperf_cuda_host.h, CUDA 13) directly:
/// one evaluator made from the image, each name converted to an evaluation
/// request once, then one evaluation per range, where CUPTI's
/// cuptiProfilerHostEvaluateToGpuValues repeats the set-up and the names'
/// conversion for every range. Equal bit for bit; on an H100 with 402
/// metrics, 1.05x faster over 8 ranges and 1.24x over 256 (about 2.7 ms a
/// range is the evaluation itself). `wanted`: as for evaluate_counter_data.
/// `isolated`: NVPW's flag that the ranges ran one at a time, as the range
/// profiler runs them (the values were the same either way). Errors: as
/// evaluate_counter_data, and kInternal naming the NVPW or CUPTI call that
/// failed. Thread-safety: as MetricCatalog (the
/// calls hold the host API's lock, let go between ranges).
StatusOr<std::vector<RangeValues>> evaluate_counter_data_at_once(const MetricCatalog& catalog,
                                                                 std::span<const uint8_t> counter_data_image,
                                                                 const std::vector<std::string>& names,
                                                                 const std::vector<bool>& wanted = {},
                                                                 bool isolated = true);

}  // namespace rangereplay::cupti
