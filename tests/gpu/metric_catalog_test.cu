// The metric catalog on a real device: the chip name and counter
// availability from the driver, every metric set scheduled with the device's
// availability image, and a Range Profiler round trip (user range, user
// replay) over a kernel whose counter values are known exactly, evaluated
// with evaluate_counter_data. Also answers on hardware whether every metric of
// the "full" set (gpu__time_duration.sum included) is collected by the Range
// Profiler. Call sequence: cupti_range_profiler.h (CUDA 13) and NVIDIA's
// range_profiling sample.
#include <cuda.h>
#include <cuda_runtime.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "core/config/metric_sets.h"
#include "cuda/cu_status.h"
#include "cupti/counter_evaluator.h"
#include "cupti/cupti_params.h"
#include "cupti/cupti_status.h"
#include "cupti/device_counters.h"
#include "cupti/metric_catalog.h"

namespace rangereplay::cupti {
namespace {

__global__ void store_index_kernel(float* out, unsigned n) {
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = 2.0f * static_cast<float>(i);
}

constexpr unsigned kBlocks = 1024;
constexpr unsigned kThreadsPerBlock = 256;
constexpr unsigned kElements = kBlocks * kThreadsPerBlock;  // 262144 floats, 1 MiB

Status cuda_ok(cudaError_t error, const char* what) {
  if (error == cudaSuccess) return ok_status();
  return internal_error(std::string(what) + ": " + cudaGetErrorString(error));
}

CUcontext current_context() {
  CUcontext ctx = nullptr;
  EXPECT_EQ(cudaFree(nullptr), cudaSuccess);  // creates the primary context
  EXPECT_EQ(cuCtxGetCurrent(&ctx), CUDA_SUCCESS);
  return ctx;
}

StatusOr<MetricCatalog> device_catalog() {
  RR_ASSIGN_OR_RETURN(std::string chip, chip_name_of_device(0));
  RR_ASSIGN_OR_RETURN(auto availability, counter_availability_image(current_context()));
  return MetricCatalog::create(chip, availability);
}

struct Profiled {
  uint32_t passes_run = 0;
  std::vector<uint8_t> counter_data;
};

// Runs `work` inside user range `range_name` once per pass until CUPTI says
// all passes are submitted, then decodes. With `ranges` above 1, each pass
// runs it in that many user ranges, "<range_name>#<i>". Disables the
// profiler on every path.
StatusOr<Profiled> profile_user_range(const MetricCatalog& catalog, CUcontext ctx,
                                      const std::vector<std::string>& names, const char* range_name,
                                      const std::function<Status()>& work, std::size_t ranges = 1) {
  RR_ASSIGN_OR_RETURN(auto config, catalog.config_image(names));
  auto init = RR_CUPTI_PARAMS(CUpti_Profiler_Initialize_Params);
  RR_CUPTI(cuptiProfilerInitialize(&init));

  auto enable = RR_CUPTI_PARAMS(CUpti_RangeProfiler_Enable_Params);
  enable.ctx = ctx;
  RR_CUPTI(cuptiRangeProfilerEnable(&enable));
  CUpti_RangeProfiler_Object* profiler = enable.pRangeProfilerObject;

  auto run = [&]() -> StatusOr<Profiled> {
    std::vector<const char*> c_names;
    for (const auto& n : names) c_names.push_back(n.c_str());
    auto size = RR_CUPTI_PARAMS(CUpti_RangeProfiler_GetCounterDataSize_Params);
    size.pRangeProfilerObject = profiler;
    size.pMetricNames = c_names.data();
    size.numMetrics = c_names.size();
    size.maxNumOfRanges = ranges;
    size.maxNumRangeTreeNodes = static_cast<uint32_t>(ranges);
    RR_CUPTI(cuptiRangeProfilerGetCounterDataSize(&size));
    Profiled out;
    out.counter_data.assign(size.counterDataSize, 0);
    auto init_image = RR_CUPTI_PARAMS(CUpti_RangeProfiler_CounterDataImage_Initialize_Params);
    init_image.pRangeProfilerObject = profiler;
    init_image.counterDataSize = out.counter_data.size();
    init_image.pCounterData = out.counter_data.data();
    RR_CUPTI(cuptiRangeProfilerCounterDataImageInitialize(&init_image));

    auto set = RR_CUPTI_PARAMS(CUpti_RangeProfiler_SetConfig_Params);
    set.pRangeProfilerObject = profiler;
    set.configSize = config.size();
    set.pConfig = config.data();
    set.counterDataImageSize = out.counter_data.size();
    set.pCounterDataImage = out.counter_data.data();
    set.range = CUPTI_UserRange;
    set.replayMode = CUPTI_UserReplay;
    set.maxRangesPerPass = ranges;
    set.numNestingLevels = 1;
    set.minNestingLevel = 1;
    set.passIndex = 0;
    set.targetNestingLevel = 1;
    RR_CUPTI(cuptiRangeProfilerSetConfig(&set));

    bool all_submitted = false;
    while (!all_submitted) {
      if (out.passes_run > 200) return internal_error("range profiler never reported all passes submitted");
      auto start = RR_CUPTI_PARAMS(CUpti_RangeProfiler_Start_Params);
      start.pRangeProfilerObject = profiler;
      RR_CUPTI(cuptiRangeProfilerStart(&start));
      for (std::size_t r = 0; r < ranges; ++r) {
        const std::string name = ranges == 1 ? std::string(range_name) : range_name + ("#" + std::to_string(r));
        auto push = RR_CUPTI_PARAMS(CUpti_RangeProfiler_PushRange_Params);
        push.pRangeProfilerObject = profiler;
        push.pRangeName = name.c_str();
        RR_CUPTI(cuptiRangeProfilerPushRange(&push));
        RR_RETURN_IF_ERROR(work());
        auto pop = RR_CUPTI_PARAMS(CUpti_RangeProfiler_PopRange_Params);
        pop.pRangeProfilerObject = profiler;
        RR_CUPTI(cuptiRangeProfilerPopRange(&pop));
      }
      auto stop = RR_CUPTI_PARAMS(CUpti_RangeProfiler_Stop_Params);
      stop.pRangeProfilerObject = profiler;
      RR_CUPTI(cuptiRangeProfilerStop(&stop));
      all_submitted = stop.isAllPassSubmitted != 0;
      ++out.passes_run;
    }
    auto decode = RR_CUPTI_PARAMS(CUpti_RangeProfiler_DecodeData_Params);
    decode.pRangeProfilerObject = profiler;
    RR_CUPTI(cuptiRangeProfilerDecodeData(&decode));
    if (decode.numOfRangeDropped != 0) {
      return internal_error(std::to_string(decode.numOfRangeDropped) + " range(s) dropped");
    }
    return out;
  };
  auto result = run();
  auto disable = RR_CUPTI_PARAMS(CUpti_RangeProfiler_Disable_Params);
  disable.pRangeProfilerObject = profiler;
  Status disabled = cupti_status(cuptiRangeProfilerDisable(&disable), "cuptiRangeProfilerDisable", __FILE__, __LINE__);
  if (!result.ok()) return result.status();
  RR_RETURN_IF_ERROR(disabled);
  return result;
}

class DeviceBuffer {
 public:
  explicit DeviceBuffer(std::size_t bytes) { EXPECT_EQ(cudaMalloc(&ptr_, bytes), cudaSuccess); }
  ~DeviceBuffer() { cudaFree(ptr_); }
  float* get() const { return static_cast<float*>(ptr_); }

 private:
  void* ptr_ = nullptr;
};

Status launch_store(float* out) {
  store_index_kernel<<<kBlocks, kThreadsPerBlock>>>(out, kElements);
  RR_RETURN_IF_ERROR(cuda_ok(cudaGetLastError(), "store_index_kernel launch"));
  return cuda_ok(cudaDeviceSynchronize(), "store_index_kernel");
}

TEST(ChipNameOfDevice, names_device_zero_with_a_supported_chip) {
  auto chip = chip_name_of_device(0);
  ASSERT_TRUE(chip.ok()) << chip.status().to_string();
  std::printf("  device 0 chip: %s\n", chip->c_str());
  auto chips = supported_chips();
  ASSERT_TRUE(chips.ok());
  EXPECT_NE(std::find(chips->begin(), chips->end(), *chip), chips->end());
}

TEST(ChipNameOfDevice, rejects_an_ordinal_past_the_device_count) {
  int count = 0;
  ASSERT_EQ(cuDeviceGetCount(&count), CUDA_SUCCESS);
  EXPECT_EQ(chip_name_of_device(count).status().code(), StatusCode::kOutOfRange);
  EXPECT_EQ(chip_name_of_device(-1).status().code(), StatusCode::kOutOfRange);
}

TEST(DeviceMetricCatalog, schedules_every_set_with_the_devices_availability_image) {
  auto catalog = device_catalog();
  ASSERT_TRUE(catalog.ok()) << catalog.status().to_string();
  for (const auto& set : metric_sets()) {
    auto passes = catalog->pass_count(set.metrics);
    ASSERT_TRUE(passes.ok()) << set.name << ": " << passes.status().to_string();
    std::printf("  set %-12s %3zu metrics %3u passes on %s (device availability)\n", set.name.c_str(),
                set.metrics.size(), *passes, catalog->chip_name().c_str());
    if (set.name == "single-pass") EXPECT_EQ(*passes, 1u);
    if (set.name == "full") EXPECT_GE(*passes, 30u);
  }
}

TEST(RangeProfilerRoundTrip, counts_the_ctas_warps_and_stored_sectors_of_a_known_kernel) {
  CUcontext ctx = current_context();
  auto catalog = device_catalog();
  ASSERT_TRUE(catalog.ok()) << catalog.status().to_string();
  const std::vector<std::string> names = {
      "sm__ctas_launched.sum",
      "sm__warps_launched.sum",
      "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum",
      "smsp__inst_executed.sum",
      "gpu__time_duration.sum",
      "sm__throughput.avg.pct_of_peak_sustained_elapsed",  // several passes: exercises user replay
  };
  auto expected_passes = catalog->pass_count(names);
  ASSERT_TRUE(expected_passes.ok()) << expected_passes.status().to_string();
  EXPECT_GT(*expected_passes, 1u);

  DeviceBuffer out(kElements * sizeof(float));
  auto profiled = profile_user_range(*catalog, ctx, names, "rr_range", [&] { return launch_store(out.get()); });
  ASSERT_TRUE(profiled.ok()) << profiled.status().to_string();
  EXPECT_EQ(profiled->passes_run, *expected_passes);

  auto ranges = evaluate_counter_data(*catalog, profiled->counter_data, names);
  ASSERT_TRUE(ranges.ok()) << ranges.status().to_string();
  ASSERT_EQ(ranges->size(), 1u);
  const RangeValues& range = ranges->front();
  EXPECT_EQ(range.range_name, "rr_range");
  ASSERT_EQ(range.values.size(), names.size());
  for (std::size_t i = 0; i < names.size(); ++i) std::printf("  %-50s %.3f\n", names[i].c_str(), range.values[i]);
  EXPECT_EQ(range.values[0], static_cast<double>(kBlocks));
  EXPECT_EQ(range.values[1], static_cast<double>(kElements / 32));
  EXPECT_EQ(range.values[2], static_cast<double>(kElements * sizeof(float) / 32));  // coalesced 4-byte stores
  EXPECT_GT(range.values[3], 0.0);
  EXPECT_GT(range.values[4], 0.0);  // gpu__time_duration is collected by the Range Profiler
  EXPECT_GE(range.values[5], 0.0);
  EXPECT_LE(range.values[5], 100.0);

  std::vector<float> host(kElements);
  ASSERT_EQ(cudaMemcpy(host.data(), out.get(), kElements * sizeof(float), cudaMemcpyDeviceToHost), cudaSuccess);
  EXPECT_EQ(host[0], 0.0f);
  EXPECT_EQ(host[kElements - 1], 2.0f * static_cast<float>(kElements - 1));
}

TEST(RangeProfilerRoundTrip, collects_every_metric_of_the_full_set) {
  CUcontext ctx = current_context();
  auto catalog = device_catalog();
  ASSERT_TRUE(catalog.ok()) << catalog.status().to_string();
  auto found = find_metric_set("full");
  ASSERT_TRUE(found.ok());
  const std::vector<std::string>& names = (*found)->metrics;
  auto expected_passes = catalog->pass_count(names);
  ASSERT_TRUE(expected_passes.ok()) << expected_passes.status().to_string();

  DeviceBuffer out(kElements * sizeof(float));
  auto profiled = profile_user_range(*catalog, ctx, names, "full", [&] { return launch_store(out.get()); });
  ASSERT_TRUE(profiled.ok()) << profiled.status().to_string();
  EXPECT_EQ(profiled->passes_run, *expected_passes);
  std::printf("  full set: %zu metrics, %u passes run\n", names.size(), profiled->passes_run);

  auto ranges = evaluate_counter_data(*catalog, profiled->counter_data, names);
  ASSERT_TRUE(ranges.ok()) << ranges.status().to_string();
  ASSERT_EQ(ranges->size(), 1u);
  std::size_t not_finite = 0;
  for (std::size_t i = 0; i < names.size(); ++i) {
    const double v = ranges->front().values[i];
    if (!std::isfinite(v)) {
      ++not_finite;
      std::printf("  not finite: %s = %f\n", names[i].c_str(), v);
    }
    if (names[i] == "gpu__time_duration.sum") {
      EXPECT_GT(v, 0.0);
      std::printf("  gpu__time_duration.sum = %.0f ns\n", v);
    }
    if (names[i] == "sm__ctas_launched.sum") EXPECT_EQ(v, static_cast<double>(kBlocks));
  }
  std::printf("  %zu of %zu values not finite (ratios of zero counts may be)\n", not_finite, names.size());
}

// Whether two evaluations agree bit for bit (NaN equal to NaN).
bool same_value(double a, double b) { return a == b || (std::isnan(a) && std::isnan(b)); }

// Evaluates `ranges` user ranges of the full set both ways; every value equal
// bit for bit. Prints both times.
void compare_evaluations(std::size_t ranges) {
  CUcontext ctx = current_context();
  auto catalog = device_catalog();
  ASSERT_TRUE(catalog.ok()) << catalog.status().to_string();
  auto found = find_metric_set("full");
  ASSERT_TRUE(found.ok());
  const std::vector<std::string>& names = (*found)->metrics;
  DeviceBuffer out(kElements * sizeof(float));
  auto profiled = profile_user_range(
      *catalog, ctx, names, "r", [&] { return launch_store(out.get()); }, ranges);
  ASSERT_TRUE(profiled.ok()) << profiled.status().to_string();

  using Clock = std::chrono::steady_clock;
  const auto t0 = Clock::now();
  auto by_cupti = evaluate_counter_data(*catalog, profiled->counter_data, names);
  const auto t1 = Clock::now();
  auto at_once = evaluate_counter_data_at_once(*catalog, profiled->counter_data, names);
  const auto t2 = Clock::now();
  auto not_isolated = evaluate_counter_data_at_once(*catalog, profiled->counter_data, names, {}, /*isolated=*/false);
  ASSERT_TRUE(by_cupti.ok()) << by_cupti.status().to_string();
  ASSERT_TRUE(at_once.ok()) << at_once.status().to_string();
  ASSERT_TRUE(not_isolated.ok()) << not_isolated.status().to_string();
  ASSERT_EQ(by_cupti->size(), ranges);
  ASSERT_EQ(at_once->size(), ranges);
  std::size_t differ = 0, differ_not_isolated = 0;
  for (std::size_t r = 0; r < ranges; ++r) {
    EXPECT_EQ((*at_once)[r].range_name, "r#" + std::to_string(r));
    EXPECT_EQ((*by_cupti)[r].range_name, "r#" + std::to_string(r));
    for (std::size_t i = 0; i < names.size(); ++i) {
      const double want = (*by_cupti)[r].values[i];
      if (!same_value((*at_once)[r].values[i], want)) {
        if (++differ <= 10)
          std::printf("  differs: range %zu %s: %.17g against CUPTI's %.17g\n", r, names[i].c_str(),
                      (*at_once)[r].values[i], want);
      }
      if (!same_value((*not_isolated)[r].values[i], want)) ++differ_not_isolated;
    }
  }
  const double cupti_ms = std::chrono::duration<double, std::milli>(t1 - t0).count();
  const double at_once_ms = std::chrono::duration<double, std::milli>(t2 - t1).count();
  std::printf(
      "  %zu ranges x %zu metrics: CUPTI's host API %.2f ms, the evaluator at once %.2f ms (%.2fx); "
      "values differing: %zu isolated, %zu not isolated\n",
      ranges, names.size(), cupti_ms, at_once_ms, cupti_ms / at_once_ms, differ, differ_not_isolated);
  EXPECT_EQ(differ, 0u);

  // Every other range left out, on both paths: its values zeros, the others
  // as evaluated in full.
  std::vector<bool> wanted(ranges);
  for (std::size_t r = 0; r < ranges; r += 2) wanted[r] = true;
  auto some_at_once = evaluate_counter_data_at_once(*catalog, profiled->counter_data, names, wanted);
  auto some_by_cupti = evaluate_counter_data(*catalog, profiled->counter_data, names, wanted);
  ASSERT_TRUE(some_at_once.ok()) << some_at_once.status().to_string();
  ASSERT_TRUE(some_by_cupti.ok()) << some_by_cupti.status().to_string();
  ASSERT_EQ(some_at_once->size(), ranges);
  ASSERT_EQ(some_by_cupti->size(), ranges);
  std::size_t wrong = 0;
  for (std::size_t r = 0; r < ranges; ++r) {
    for (std::size_t i = 0; i < names.size(); ++i) {
      const double want = wanted[r] ? (*by_cupti)[r].values[i] : 0.0;
      if (!same_value((*some_at_once)[r].values[i], want) || !same_value((*some_by_cupti)[r].values[i], want)) ++wrong;
    }
  }
  EXPECT_EQ(wrong, 0u) << "values of a selection of the ranges";
}

TEST(RangeProfilerRoundTrip, the_metrics_evaluator_over_the_whole_image_gives_cuptis_values) {
  ASSERT_NO_FATAL_FAILURE(compare_evaluations(8));
  ASSERT_NO_FATAL_FAILURE(compare_evaluations(256));
}

}  // namespace
}  // namespace rangereplay::cupti
