// A fully populated Report shared by the report renderer tests: one replayed
// range with two kernels (one name with a comma), tiers, pass records with a
// divergence and a note; one declined range; one error.
#pragma once

#include "report/report_model.h"

namespace rangereplay::report::testing {

inline constexpr std::uint64_t kMiB = std::uint64_t{1} << 20;

inline Report sample_report() {
  Report r;
  r.tool_version = "0.1.0";
  r.device_name = "NVIDIA H200";
  r.chip_name = "GH100";
  r.driver_version = "13.0";
  r.compute_capability = "9.0";
  r.process_id = 4242;
  r.host_name = "node7";
  r.environment = {{"LOCAL_RANK", "0"}, {"RANK", "1"}};
  r.command = {"./stream", "--n", "1000"};
  r.metrics = {"dram__bytes_read.sum", "smsp__inst_executed.sum"};
  r.range_metrics = "kernel";
  r.pass_count = 3;
  r.counter_backend = "range_profiler";
  r.setup_ms = 171.25;
  r.launcher_ms = 98.5;
  r.gate_wait_ms = 61.25;
  r.verify = true;

  RangeRecord step;
  step.index = 0;
  step.name = "step";
  step.passes = 3;
  step.footprint_bytes = 256 * kMiB;
  step.regions = 4;
  step.tiers = {{"device", 192 * kMiB, 256 * kMiB, true}, {"pinned", 64 * kMiB, 64 * kMiB, false}};
  step.timings = {.sync_ms = 0.12,
                  .capture_ms = 1.5,
                  .restore_ms = 3.0,
                  .replay_submit_ms = 0.4,
                  .kernels_ms = 10.0,
                  .counters_ms = 40.0,
                  .decode_ms = 2.0,
                  .verify_ms = 1.25,
                  .window_ms = 61.2,
                  .begin_ms = 1.75,
                  .other_ms = 8.2};
  KernelRecord scale;
  scale.index = 0;
  scale.name = "scale(float*, int)";
  scale.mangled_name = "_Z5scalePfi";
  scale.grid = {1024, 1, 1};
  scale.block = {256, 1, 1};
  scale.stream_id = 7;
  scale.launch_index = 12;
  scale.metrics = {{"dram__bytes_read.sum", "byte", 6291488}, {"smsp__inst_executed.sum", "inst", 98304}};
  KernelRecord add;
  add.index = 1;
  add.name = "void add<float, 2>(float const*, float*)";
  add.mangled_name = "_Z3addIfLi2EEvPKfPf";
  add.grid = {64, 2, 1};
  add.block = {128, 1, 1};
  add.shared_mem_bytes = 48 * 1024;
  add.stream_id = 7;
  add.metrics = {{"dram__bytes_read.sum", "byte", 1234.5678}, {"smsp__inst_executed.sum", "inst", 0}};
  step.kernels = {scale, add};
  step.restore = "differential";
  step.counter_ranges = "user";
  step.pass_records = {{1, 3 * kMiB, {}}, {2, 3 * kMiB, {{0x7f0000001000, 4096, "stream.cu:42"}}}};
  step.notes = {"2 device-to-host copies not re-executed"};

  RangeRecord declined;
  declined.index = 1;
  declined.name = "step";
  declined.declined = true;
  declined.decline_reason = "free_in_range";
  declined.decline_detail = "cuMemFree(0x7f0000200000) inside the range; free it after the range ends";
  declined.passes = 1;

  r.ranges = {step, declined};
  r.errors = {"counters unavailable after range 1: CUPTI_ERROR_NOT_INITIALIZED"};
  return r;
}

/// A --set triage report: one range counted by PM sampling, its totals as
/// whole-range values and three samples over 1.5 ms whose values sum to
/// them (made-up values); one declined range, without samples.
inline Report triage_report() {
  Report r = sample_report();
  r.metrics = {"smsp__inst_executed.sum", "dram__bytes_read.sum"};
  r.range_metrics = "whole";
  r.pass_count = 1;
  r.counter_backend = "pm_sampling";
  r.verify = false;
  RangeRecord& range = r.ranges[0];
  range.passes = 1;
  range.restore = "";
  range.counter_ranges = "whole";
  range.tiers.clear();
  range.pass_records.clear();
  range.notes.clear();
  for (KernelRecord& k : range.kernels) k.metrics.clear();
  range.range_metrics = {{"smsp__inst_executed.sum", "inst", 600.0}, {"dram__bytes_read.sum", "byte", 12288.0}};
  range.samples =
      std::vector<MetricSample>{{0.0, 0.5, {100.0, 4096.0}}, {0.5, 1.0, {200.0, 6144.0}}, {1.0, 1.5, {300.0, 2048.0}}};
  return r;
}

}  // namespace rangereplay::report::testing
