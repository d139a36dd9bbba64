// The range lifecycle on the fakes (tool_harness.h), one transition or
// option per test: --verify's divergences, full restores, whole-range
// counters and the standing pass, batch limits and the flush triggers,
// kernel windows, nested and unclosed ranges, frees, copies and
// snapshot limits.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <thread>
#include <vector>

#include "tool/tool_harness.h"

namespace rangereplay::tool::testing {
namespace {

TEST_F(ToolHarness, verify_finds_no_divergence_in_a_deterministic_range) {
  config_.batch_ranges = 0;
  config_.verify = true;
  start();
  const CUdeviceptr data = buffer(kInts);
  range("step", [&] { add_one(data, kInts); });
  expect_all(read(data, kInts), 1);
  const report::RangeRecord r = only_range(finish());
  EXPECT_FALSE(r.declined) << r.decline_reason << ": " << r.decline_detail;
  ASSERT_FALSE(r.pass_records.empty());
  for (const report::PassRecord& pass : r.pass_records) EXPECT_TRUE(pass.divergences.empty()) << pass.pass;
}

TEST_F(ToolHarness, verify_reports_where_a_nondeterministic_kernel_diverges) {
  config_.batch_ranges = 0;
  config_.verify = true;
  start();
  // Writes a number that grows with every run into the buffer's first int.
  static std::atomic<int> runs{0};
  runs = 0;
  CUfunction stamp = fake::register_kernel("stamp", {sizeof(CUdeviceptr)}, [](void** params) {
    *reinterpret_cast<int*>(*static_cast<CUdeviceptr*>(params[0])) = ++runs;
  });
  const CUdeviceptr data = buffer(kInts);
  range("step", [&] {
    CUdeviceptr p = data;
    void* params[] = {&p};
    ASSERT_EQ(fake::app_launch(stamp, params), CUDA_SUCCESS);
  });
  const report::RangeRecord r = only_range(finish());
  EXPECT_FALSE(r.declined) << r.decline_reason << ": " << r.decline_detail;
  bool diverged = false;
  for (const report::PassRecord& pass : r.pass_records)
    for (const report::Divergence& d : pass.divergences) {
      diverged = true;
      EXPECT_LE(d.address, data + 256);
      EXPECT_GE(d.address + d.size_bytes, data + sizeof(int));
    }
  EXPECT_TRUE(diverged);
}

TEST_F(ToolHarness, verify_after_full_restores_reports_the_diverging_bytes) {
  config_.batch_ranges = 0;
  config_.verify = true;
  config_.restore = RestoreMode::kFull;
  start();
  static std::atomic<int> runs{0};
  runs = 0;
  CUfunction stamp = fake::register_kernel("stamp", {sizeof(CUdeviceptr)}, [](void** params) {
    reinterpret_cast<int*>(*static_cast<CUdeviceptr*>(params[0]))[100] = ++runs;
  });
  const CUdeviceptr data = buffer(kInts);
  range("step", [&] {
    CUdeviceptr p = data;
    void* params[] = {&p};
    ASSERT_EQ(fake::app_launch(stamp, params), CUDA_SUCCESS);
  });
  const report::RangeRecord r = only_range(finish());
  EXPECT_FALSE(r.declined) << r.decline_reason << ": " << r.decline_detail;
  EXPECT_EQ(r.restore.value_or(""), "full");
  std::size_t diverged = 0;
  for (const report::PassRecord& pass : r.pass_records)
    for (const report::Divergence& d : pass.divergences) {
      ++diverged;
      EXPECT_LE(d.address, data + 100 * sizeof(int));
      EXPECT_GE(d.address + d.size_bytes, data + 101 * sizeof(int));
    }
  EXPECT_GT(diverged, 0u);
}

TEST_F(ToolHarness, verify_of_a_write_set_range_finds_no_divergence) {
  config_.batch_ranges = 0;
  config_.verify = true;
  config_.snapshot_device_limit = 2 << 20;
  config_.snapshot_host_limit = 2 << 20;
  start();
  constexpr int kBig = 16 << 20;  // 64 MiB of ints: only a write set fits
  const CUdeviceptr data = buffer(kBig);
  for (int i = 0; i < 2; ++i) range("step", [&] { add_one(data, kInts); });
  const report::Report report = finish();
  ASSERT_EQ(report.ranges.size(), 2u);
  // The first instance restores the chunk it writes by zeroing it (zero at
  // entry), the second from its snapshot: every replay finds its inputs.
  for (const report::RangeRecord& r : report.ranges) {
    EXPECT_FALSE(r.declined) << r.index << ": " << r.decline_reason << ": " << r.decline_detail;
    ASSERT_FALSE(r.pass_records.empty()) << r.index;
    for (const report::PassRecord& pass : r.pass_records)
      EXPECT_TRUE(pass.divergences.empty()) << r.index << " pass " << pass.pass;
  }
}

TEST_F(ToolHarness, a_full_restore_copies_every_snapshot_byte_back) {
  config_.batch_ranges = 0;
  config_.restore = RestoreMode::kFull;
  start();
  const CUdeviceptr data = buffer(kInts, 5);
  range("step", [&] { add_one(data, kInts); });
  expect_all(read(data, kInts), 6);
  const report::RangeRecord r = only_range(finish());
  EXPECT_FALSE(r.declined) << r.decline_reason << ": " << r.decline_detail;
  EXPECT_EQ(r.restore.value_or(""), "full");
  EXPECT_EQ(r.passes, 4u);
}

TEST_F(ToolHarness, whole_range_counters_give_one_row_per_range) {
  config_.batch_ranges = 0;
  config_.range_metrics = RangeMetrics::kWholeRange;
  start();
  const CUdeviceptr data = buffer(kInts);
  range("step", [&] {
    add_one(data, kInts);
    add_one(data, kInts);
  });
  expect_all(read(data, kInts), 2);
  const report::RangeRecord r = only_range(finish());
  EXPECT_FALSE(r.declined) << r.decline_reason << ": " << r.decline_detail;
  EXPECT_EQ(r.kernels.size(), 2u);
  ASSERT_EQ(r.range_metrics.size(), 2u);
  // The range's own counter range: the second when a lead-in range opened
  // each pass (its values dropped), else the first.
  bool lead_in = false;
  for (const std::string& note : r.notes) lead_in = lead_in || note.find("flushed L2 again") != std::string::npos;
  for (std::size_t m = 0; m < 2; ++m) {
    EXPECT_EQ(r.range_metrics[m].name, config_.metrics[m]);
    EXPECT_EQ(r.range_metrics[m].value, fake::counter_value(lead_in ? 1 : 0, m)) << r.range_metrics[m].name;
  }
}

TEST_F(ToolHarness, a_one_pass_whole_range_list_counts_in_the_standing_pass) {
  fake::configure_counters({.pass_count = 1});
  config_.range_metrics = RangeMetrics::kWholeRange;
  start();
  const CUdeviceptr data = buffer(kInts);
  for (int i = 0; i < 3; ++i) range("step", [&] { add_one(data, kInts); });
  // One pass: nothing is replayed.
  EXPECT_EQ(fake::counts().launches, 3u);
  const report::Report report = finish();
  ASSERT_EQ(report.ranges.size(), 3u);
  for (const report::RangeRecord& r : report.ranges) {
    EXPECT_FALSE(r.declined) << r.decline_reason << ": " << r.decline_detail;
    EXPECT_EQ(r.range_metrics.size(), 2u);
  }
  expect_all(read(data, kInts), 3);
}

TEST_F(ToolHarness, a_full_batch_is_replayed_before_the_next_range) {
  config_.batch_ranges = 2;
  start();
  const CUdeviceptr data = buffer(kInts);
  for (int i = 0; i < 3; ++i) range("step", [&] { add_one(data, kInts); });
  // The first two ranges filled the batch: replayed (3 passes each) by the
  // time the third range has run; the third waits for the exit.
  EXPECT_EQ(fake::counts().launches, 3u + 2u * 3u);
  expect_all(read(data, kInts), 3);
  const report::Report report = finish();
  EXPECT_EQ(fake::counts().launches, 3u + 3u * 3u);
  ASSERT_EQ(report.ranges.size(), 3u);
  for (const report::RangeRecord& r : report.ranges) EXPECT_FALSE(r.declined) << r.decline_reason;
  expect_all(read(data, kInts), 3);
}

TEST_F(ToolHarness, a_range_over_one_counter_image_declines_counters_unavailable) {
  // Four kernels in the range, three counter ranges per image: the range is
  // not deferred (no batch can hold it), and its end declines it before any
  // replay, naming what to narrow.
  fake::CounterOptions counters;
  counters.most_ranges = 3;
  fake::configure_counters(counters);
  start();
  const CUdeviceptr data = buffer(kInts);
  range("step", [&] {
    for (int i = 0; i < 4; ++i) add_one(data, kInts);
  });
  const report::RangeRecord r = only_range(finish());
  EXPECT_TRUE(r.declined);
  EXPECT_EQ(r.decline_reason, "counters_unavailable") << r.decline_detail;
  EXPECT_NE(r.decline_detail.find("more than the 3 one image holds"), std::string::npos) << r.decline_detail;
  EXPECT_NE(r.decline_detail.find("narrow the range"), std::string::npos) << r.decline_detail;
  EXPECT_EQ(fake::counts().launches, 4u) << "no pass was replayed";
  expect_all(read(data, kInts), 4);
}

TEST_F(ToolHarness, a_batch_over_one_image_is_replayed_as_two) {
  // Two ranges of two kernels with three counter ranges per image: the
  // second range's deferral replays the first alone, then waits for the exit.
  fake::CounterOptions counters;
  counters.most_ranges = 3;
  fake::configure_counters(counters);
  start();
  const CUdeviceptr data = buffer(kInts);
  for (int i = 0; i < 2; ++i)
    range("step", [&] {
      add_one(data, kInts);
      add_one(data, kInts);
    });
  const report::Report report = finish();
  ASSERT_EQ(report.ranges.size(), 2u);
  for (const report::RangeRecord& r : report.ranges) EXPECT_FALSE(r.declined) << r.decline_detail;
  EXPECT_EQ(fake::counts().launches, 4u + 2u * 2u * 3u);
  expect_all(read(data, kInts), 4);
}

// Whether one of `r`'s notes holds `text`.
bool has_note(const report::RangeRecord& r, const std::string& text) {
  return std::any_of(r.notes.begin(), r.notes.end(),
                     [&](const std::string& n) { return n.find(text) != std::string::npos; });
}

// The first metric's value of kernel record `k`.
double first_value(const report::KernelRecord& k) { return k.metrics.at(0).value; }

// A replayed range of two kernels: values for each, in `layout`'s counter
// ranges ("auto" or "user"), with a note holding `note`.
void expect_two_kernels_replayed(const report::RangeRecord& r, const std::string& layout, const std::string& note) {
  ASSERT_FALSE(r.declined) << r.decline_reason << ": " << r.decline_detail;
  EXPECT_EQ(r.counter_ranges, layout);
  ASSERT_EQ(r.kernels.size(), 2u);
  for (const report::KernelRecord& k : r.kernels) EXPECT_FALSE(k.metrics.empty()) << k.name;
  EXPECT_TRUE(has_note(r, note)) << "no note with '" << note << "'";
}

// One range of two kernels, with `counters` for the fake CUPTI, profiled to
// the end: the range's record; the data holds 2 after it either way.
class TwoKernelRange : public ToolHarness {
 protected:
  report::RangeRecord profile_two_kernels(const fake::CounterOptions& counters) {
    fake::configure_counters(counters);
    start();
    const CUdeviceptr data = buffer(kInts);
    range("step", [&] {
      add_one(data, kInts);
      add_one(data, kInts);
    });
    report::RangeRecord r = only_range(finish());
    expect_all(read(data, kInts), 2);
    return r;
  }
};

fake::CounterOptions auto_ranges_drop_one() {
  fake::CounterOptions counters;
  counters.auto_ranges_drop_one = true;
  return counters;
}

TEST_F(TwoKernelRange, a_range_whose_auto_ranges_miss_a_kernel_is_replayed_again_with_user_ranges) {
  config_.batch_ranges = 0;  // the immediate path counts kernels in CUPTI's auto ranges
  expect_two_kernels_replayed(profile_two_kernels(auto_ranges_drop_one()), "user", "replayed a second time");
  // Pass 0, three passes under auto ranges, three more under user ranges.
  EXPECT_EQ(fake::counts().launches, 2u + 2u * 3u + 2u * 3u);
}

TEST_F(TwoKernelRange, a_range_whose_full_image_dropped_a_counter_range_is_replayed_again_with_user_ranges) {
  config_.batch_ranges = 0;
  // The image holds the lead-in and the two kernels; a third range CUPTI
  // opened pushes the last one out, so the count returned is the one expected.
  fake::CounterOptions counters;
  counters.auto_ranges_add_one = true;
  expect_two_kernels_replayed(profile_two_kernels(counters), "user", "replayed a second time");
  EXPECT_EQ(fake::counts().launches, 2u + 2u * 3u + 2u * 3u);
}

TEST_F(ToolHarness, a_free_between_ranges_replays_the_deferred_batch_first) {
  start();
  const CUdeviceptr data = buffer(kInts);
  range("step", [&] { add_one(data, kInts); });
  EXPECT_EQ(fake::counts().launches, 1u);
  // Freeing memory the deferred range uses: the batch is replayed while it exists.
  ASSERT_EQ(fake::app_mem_free(data), CUDA_SUCCESS);
  EXPECT_EQ(fake::counts().launches, 1u + 3u);
  const report::RangeRecord r = only_range(finish());
  EXPECT_FALSE(r.declined) << r.decline_reason << ": " << r.decline_detail;
}

TEST_F(TwoKernelRange, a_batch_of_one_range_replays_with_cuptis_per_kernel_ranges) {
  // A user range pushed from the host around each kernel counts the host's
  // launch path in the kernel's time; alone, the range needs no names to
  // tell it from other members, so CUPTI's automatic ranges count it.
  const report::RangeRecord r = profile_two_kernels({});
  expect_two_kernels_replayed(r, "auto", "replayed alone in its batch");
  EXPECT_EQ(r.passes, 4u);
  for (const std::string& note : r.notes) EXPECT_EQ(note.find("durations run long"), std::string::npos) << note;
  // Pass 0 at the range (its replay waited for the batch), three replays at the end.
  EXPECT_EQ(fake::counts().launches, 2u + 2u * 3u);
}

TEST_F(TwoKernelRange, a_batch_of_one_whose_auto_ranges_miss_a_kernel_replays_in_the_batch_window) {
  const report::RangeRecord r = profile_two_kernels(auto_ranges_drop_one());
  expect_two_kernels_replayed(r, "user", "replayed with 0 other deferred ranges");
  for (const std::string& note : r.notes)
    EXPECT_EQ(note.find("replayed alone in its batch"), std::string::npos) << "the record starts again from pass 0's";
  EXPECT_EQ(r.passes, 4u) << "pass 0 and the batch window's three, not the first attempt's";
  // Pass 0, three passes alone under auto ranges, three more in the batch's window.
  EXPECT_EQ(fake::counts().launches, 2u + 2u * 3u + 2u * 3u);
}

TEST_F(TwoKernelRange, a_batch_of_one_whose_lead_in_would_not_fit_the_image_replays_in_the_batch_window) {
  // Two kernels fill an image of two counter ranges; alone, CUPTI's automatic
  // ranges would need a third for the lead-in flush.
  fake::CounterOptions counters;
  counters.most_ranges = 2;
  expect_two_kernels_replayed(profile_two_kernels(counters), "user", "replayed with 0 other deferred ranges");
  EXPECT_EQ(fake::counts().launches, 2u + 2u * 3u) << "no attempt alone";
}

// Two ranges, of one and of two kernels, batched together with `counters`
// for the fake CUPTI (`batches` such batches, one after the other): their
// records; the data holds 3 per batch after them.
class BatchOfTwo : public ToolHarness {
 protected:
  std::vector<report::RangeRecord> profile_batch(const fake::CounterOptions& counters, int batches = 1) {
    fake::configure_counters(counters);
    config_.batch_ranges = 2;
    start();
    const CUdeviceptr data = buffer(kInts);
    for (int batch = 0; batch < batches; ++batch) {
      range("step", [&] { add_one(data, kInts); });
      range("step", [&] {
        add_one(data, kInts);
        add_one(data, kInts);
      });
    }
    const report::Report report = finish();
    expect_all(read(data, kInts), 3 * batches);
    return report.ranges;
  }
};

// Checks a batch of two's records: automatic ranges, four passes, the batch's
// notes and each range's values from its own rows, `first_rows`.
void expect_batch_of_two_in_automatic_ranges(const std::vector<report::RangeRecord>& ranges,
                                             const std::size_t (&first_rows)[3]) {
  ASSERT_EQ(ranges.size(), 2u);
  for (const report::RangeRecord& r : ranges) {
    ASSERT_FALSE(r.declined) << r.decline_reason << ": " << r.decline_detail;
    EXPECT_EQ(r.counter_ranges, "auto");
    EXPECT_EQ(r.passes, 4u);
    EXPECT_TRUE(has_note(r, "replayed with 1 other deferred ranges"));
    EXPECT_TRUE(has_note(r, "the tool's kernels between the batch's ranges"));
    EXPECT_FALSE(has_note(r, "durations run long"));
  }
  ASSERT_EQ(ranges[0].kernels.size(), 1u);
  ASSERT_EQ(ranges[1].kernels.size(), 2u);
  EXPECT_EQ(first_value(ranges[0].kernels[0]), fake::counter_value(first_rows[0], 0));
  EXPECT_EQ(first_value(ranges[1].kernels[0]), fake::counter_value(first_rows[1], 0));
  EXPECT_EQ(first_value(ranges[1].kernels[1]), fake::counter_value(first_rows[2], 0));
}

TEST_F(BatchOfTwo, shares_one_window_of_cuptis_per_kernel_ranges_without_the_tools_kernels) {
  const std::vector<report::RangeRecord> ranges = profile_batch({});
  // The fake's rows count every kernel of a pass, the tool's restores and
  // flushes included: each range's values are its own kernels' rows. The
  // entry states lie in the pinned tier here (and the copy engines restore
  // only states on the device tier), so each range's restore is differential, in one launch inside the pass (a digest
  // kernel that copies what it decides), then its flush: rows 0-1 are the tool's, row 2 the first range's kernel, rows
  // 3-4 the tool's again, rows 5-6 the second range's.
  expect_batch_of_two_in_automatic_ranges(ranges, {2, 5, 6});
  EXPECT_EQ(fake::counters().rows_left_out, 4u) << "the tool's rows are not evaluated";
  for (const report::RangeRecord& r : ranges) {
    EXPECT_EQ(r.restore, "differential");
    EXPECT_FALSE(has_note(r, "by the copy engines"));
  }
  // Pass 0 of each, three passes of the batch.
  EXPECT_EQ(fake::counts().launches, 3u + 3u * 3u);
}

// The same batch with room on the device for the entry snapshots.
class BatchOfTwoOnTheDevice : public BatchOfTwo {
 protected:
  BatchOfTwoOnTheDevice() { device_.total_memory = std::uint64_t{16} << 30; }
  // Whether this process runs with RANGEREPLAY_BATCH_COPY_ENGINE_RESTORE as
  // `value` says ("0" or unset, the default); if not, runs this test again
  // with it and returns false (the caller returns).
  static bool with_copy_engine_restore(const char* value) {
    if (environment::batch_copy_engine_restore() == (value == nullptr)) return true;
    const ::testing::TestInfo* test = ::testing::UnitTest::GetInstance()->current_test_info();
    expect_test_passes_with(environment::kBatchCopyEngineRestore,
                            (std::string(test->test_suite_name()) + "." + test->name()).c_str(), value);
    return false;
  }
  // The batch's records, checked as expect_batch_of_two_in_automatic_ranges
  // does with `first_rows`, each snapshot on the device tier and restored as
  // `restore` says.
  std::vector<report::RangeRecord> profile_on_the_device(const std::size_t (&first_rows)[3], const char* restore) {
    const std::vector<report::RangeRecord> ranges = profile_batch({});
    expect_batch_of_two_in_automatic_ranges(ranges, first_rows);
    for (const report::RangeRecord& r : ranges) {
      EXPECT_FALSE(r.tiers.empty());
      if (!r.tiers.empty()) {
        EXPECT_EQ(r.tiers.front().tier, "device");
      }
      EXPECT_EQ(r.restore, restore);
    }
    return ranges;
  }
};

TEST_F(BatchOfTwoOnTheDevice, restores_differentially_with_the_copy_engine_restores_off) {
  if (!with_copy_engine_restore("0")) return;
  profile_on_the_device({2, 5, 6}, "differential");
}

TEST_F(BatchOfTwoOnTheDevice, restores_by_the_copy_engines_outside_every_counter_range_by_default) {
  if (!with_copy_engine_restore(nullptr)) return;
  // Each range's entry state is restored by the copy engines (no kernel, so
  // no row), then flushed by a kernel: row 0 is the tool's, row 1 the first
  // range's kernel, row 2 the tool's again, rows 3-4 the second range's.
  const std::vector<report::RangeRecord> ranges = profile_on_the_device({1, 3, 4}, "full");
  EXPECT_EQ(fake::counters().rows_left_out, 2u) << "the flushes' rows are not evaluated";
  for (const report::RangeRecord& r : ranges) {
    EXPECT_TRUE(has_note(r, "each replay restored the whole entry state by the copy engines"));
    for (const report::PassRecord& p : r.pass_records) EXPECT_EQ(p.restored_bytes, r.footprint_bytes);
  }
  EXPECT_EQ(fake::counts().launches, 3u + 3u * 3u);
}

TEST_F(BatchOfTwoOnTheDevice, stops_restoring_by_the_copy_engines_once_cupti_counts_the_copies) {
  if (!with_copy_engine_restore(nullptr)) return;
  // CUPTI makes a counter range of each copy call: the first batch's rows do
  // not match, it is replayed again with user ranges, and the second batch
  // restores differentially in automatic ranges from the start.
  fake::CounterOptions counters;
  counters.auto_ranges_count_copies = true;
  const std::vector<report::RangeRecord> ranges = profile_batch(counters, /*batches=*/2);
  ASSERT_EQ(ranges.size(), 4u);
  // One copy per member and pass of the first batch's first window only.
  EXPECT_EQ(fake::counts().async_copy_calls, 2u * 3u);
  for (std::size_t i = 0; i < ranges.size(); ++i) {
    const report::RangeRecord& r = ranges[i];
    ASSERT_FALSE(r.declined) << r.decline_reason << ": " << r.decline_detail;
    EXPECT_EQ(r.restore, "differential") << "range " << i;
    EXPECT_FALSE(has_note(r, "by the copy engines")) << "range " << i;
    EXPECT_EQ(r.counter_ranges, i < 2 ? "user" : "auto") << "range " << i;
    EXPECT_EQ(has_note(r, "replayed a second time"), i < 2) << "range " << i;
  }
  // Pass 0 of each; the first batch's three passes twice, the second's once.
  EXPECT_EQ(fake::counts().launches, 6u + 3u * 3u * 2u + 3u * 3u);
}

TEST_F(BatchOfTwoOnTheDevice, keeps_restoring_by_the_copy_engines_when_cupti_misses_a_kernel) {
  if (!with_copy_engine_restore(nullptr)) return;
  // One counter range fewer than the kernels is CUPTI's own miss, which
  // copies do not explain: both batches are replayed again with user ranges,
  // and each first tries the copy engines.
  const std::vector<report::RangeRecord> ranges = profile_batch(auto_ranges_drop_one(), /*batches=*/2);
  ASSERT_EQ(ranges.size(), 4u);
  for (const report::RangeRecord& r : ranges) {
    ASSERT_FALSE(r.declined) << r.decline_reason << ": " << r.decline_detail;
    EXPECT_EQ(r.counter_ranges, "user");
  }
  EXPECT_EQ(fake::counts().async_copy_calls, 2u * 2u * 3u) << "each batch's first window restored by the copies";
}

TEST_F(BatchOfTwo, whose_auto_ranges_miss_a_kernel_replays_again_with_user_ranges) {
  const std::vector<report::RangeRecord> ranges = profile_batch(auto_ranges_drop_one());
  ASSERT_EQ(ranges.size(), 2u);
  for (const report::RangeRecord& r : ranges) {
    ASSERT_FALSE(r.declined) << r.decline_reason << ": " << r.decline_detail;
    EXPECT_EQ(r.counter_ranges, "user");
    EXPECT_EQ(r.passes, 4u) << "pass 0 and the second window's three";
    EXPECT_TRUE(has_note(r, "replayed a second time with a counter range pushed around each kernel"));
    EXPECT_TRUE(has_note(r, "durations run long"));
    EXPECT_FALSE(has_note(r, "the tool's kernels between the batch's ranges")) << "the first window's note";
  }
  // User ranges: one row per kernel, in order.
  EXPECT_EQ(first_value(ranges[0].kernels.at(0)), fake::counter_value(0, 0));
  EXPECT_EQ(first_value(ranges[1].kernels.at(1)), fake::counter_value(2, 0));
  // Pass 0, the automatic ranges' three passes, the user ranges' three.
  EXPECT_EQ(fake::counts().launches, 3u + 2u * 3u * 3u);
}

TEST_F(BatchOfTwo, whose_full_image_dropped_a_counter_range_replays_again_with_user_ranges) {
  // Each member restores differentially in one launch and flushes: the image
  // holds exactly their 7 rows, and one more range pushes the last out.
  fake::CounterOptions counters;
  counters.auto_ranges_add_one = true;
  const std::vector<report::RangeRecord> ranges = profile_batch(counters);
  ASSERT_EQ(ranges.size(), 2u);
  for (const report::RangeRecord& r : ranges) {
    ASSERT_FALSE(r.declined) << r.decline_reason << ": " << r.decline_detail;
    EXPECT_EQ(r.counter_ranges, "user");
    EXPECT_TRUE(has_note(r, "(its decode reported 1 dropped)")) << "the first window's mismatch";
  }
  EXPECT_EQ(first_value(ranges[1].kernels.at(1)), fake::counter_value(2, 0));
}

TEST_F(BatchOfTwo, whose_automatic_ranges_fail_replays_again_with_user_ranges) {
  // A CUPTI error at the end of a pass that counted the tool's flush
  // kernels: the batch's exit state is back, and user ranges count it.
  fake::CounterOptions counters;
  counters.auto_pass_fails_over_tool_kernels = 1;
  const std::vector<report::RangeRecord> ranges = profile_batch(counters);
  ASSERT_EQ(ranges.size(), 2u);
  for (const report::RangeRecord& r : ranges) {
    ASSERT_FALSE(r.declined) << r.decline_reason << ": " << r.decline_detail;
    EXPECT_EQ(r.counter_ranges, "user");
    EXPECT_TRUE(has_note(r, "of the tool's kernels in a pass of automatic ranges"));
    // Recorded from the user ranges' window, where each member restores as --restore says.
    EXPECT_EQ(r.restore, "differential");
    EXPECT_FALSE(has_note(r, "by the copy engines"));
  }
  // Pass 0, the first pass of the automatic ranges (it failed), the user ranges' three.
  EXPECT_EQ(fake::counts().launches, 3u + 3u + 3u * 3u);
}

TEST_F(ToolHarness, a_write_into_untracked_device_memory_replays_the_batch_first) {
  start();
  const CUdeviceptr data = buffer(kInts);
  // Tracked memory: allocated through the callbacks, in the inventory.
  CUdeviceptr tracked = 0;
  ASSERT_EQ(fake::app_mem_alloc(&tracked, kInts * sizeof(int)), CUDA_SUCCESS);
  // Device memory the tool never saw allocated (as memory allocated before
  // it started): no snapshot can hold it.
  CUdeviceptr untracked = 0;
  ASSERT_EQ(cuMemAlloc(&untracked, kInts * sizeof(int)), CUDA_SUCCESS);
  range("step", [&] { add_one(data, kInts); });
  const std::vector<int> ones(kInts, 1);
  ASSERT_EQ(fake::app_memcpy_htod(tracked, ones.data(), ones.size() * sizeof(int)), CUDA_SUCCESS);
  EXPECT_EQ(fake::counts().launches, 1u) << "a write into tracked memory leaves the batch waiting";
  ASSERT_EQ(fake::app_memcpy_htod(untracked, ones.data(), ones.size() * sizeof(int)), CUDA_SUCCESS);
  EXPECT_EQ(fake::counts().launches, 1u + 3u) << "the batch is replayed before the untracked write";
  const report::RangeRecord r = only_range(finish());
  EXPECT_FALSE(r.declined) << r.decline_reason << ": " << r.decline_detail;
  expect_all(read(data, kInts), 1);
}

TEST_F(ToolHarness, a_capture_begin_replays_the_batch_first) {
  start();
  const CUdeviceptr data = buffer(kInts);
  range("step", [&] { add_one(data, kInts); });
  CUstream stream = nullptr;
  ASSERT_EQ(cuStreamCreate(&stream, 0), CUDA_SUCCESS);
  cuStreamBeginCapture_v2_params begin{stream, CU_STREAM_CAPTURE_MODE_GLOBAL};
  ASSERT_EQ(fake::app_call(CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture_v2, "cuStreamBeginCapture_v2", begin,
                           [] { return CUDA_SUCCESS; }),
            CUDA_SUCCESS);
  EXPECT_EQ(fake::counts().launches, 1u + 3u);
  CUgraph graph = nullptr;
  cuStreamEndCapture_params end{stream, &graph};
  ASSERT_EQ(fake::app_call(CUPTI_DRIVER_TRACE_CBID_cuStreamEndCapture, "cuStreamEndCapture", end,
                           [] { return CUDA_SUCCESS; }),
            CUDA_SUCCESS);
  const report::RangeRecord r = only_range(finish());
  EXPECT_FALSE(r.declined) << r.decline_reason << ": " << r.decline_detail;
  expect_all(read(data, kInts), 1);
}

TEST_F(ToolHarness, a_range_that_frees_memory_after_its_work_is_replayed_before_the_free) {
  config_.batch_ranges = 0;
  start();
  const CUdeviceptr data = buffer(kInts);
  const CUdeviceptr scratch = buffer(16);
  const CUdeviceptr more = buffer(16);
  range("step", [&] {
    add_one(data, kInts);
    ASSERT_EQ(fake::app_mem_free(scratch), CUDA_SUCCESS);
    EXPECT_EQ(fake::counts().launches, 1u + 3u) << "replayed at the free's entry";
    ASSERT_EQ(fake::app_mem_free(more), CUDA_SUCCESS);
  });
  const report::RangeRecord r = only_range(finish());
  ASSERT_FALSE(r.declined) << r.decline_reason << ": " << r.decline_detail;
  EXPECT_EQ(r.passes, 4u);
  ASSERT_EQ(r.kernels.size(), 1u);
  EXPECT_FALSE(r.kernels[0].metrics.empty());
  EXPECT_TRUE(has_note(r, "replayed at the entry of cuMemFree_v2"));
  EXPECT_EQ(fake::counts().launches, 1u + 3u) << "the second free replays nothing";
  expect_all(read(data, kInts), 1);
}

TEST_F(ToolHarness, a_range_is_replayed_at_the_frees_entry_while_its_kernels_memory_exists) {
  // The range's kernel writes the buffer it then frees: a replay after the
  // free would launch on memory the fake driver no longer has.
  config_.batch_ranges = 0;
  start();
  const CUdeviceptr data = buffer(kInts);
  const CUdeviceptr scratch = buffer(kInts);
  std::vector<int> copied(kInts, 0);
  range("step", [&] {
    add_one(scratch, kInts);
    add_one(data, kInts);
    ASSERT_EQ(fake::app_memcpy_dtoh(copied.data(), scratch, copied.size() * sizeof(int)), CUDA_SUCCESS);
    ASSERT_EQ(fake::app_mem_free(scratch), CUDA_SUCCESS);
    // Neither a synchronization nor a copy back to the host is work the replay missed.
    ASSERT_EQ(fake::app_synchronize(), CUDA_SUCCESS);
    ASSERT_EQ(fake::app_memcpy_dtoh(copied.data(), data, copied.size() * sizeof(int)), CUDA_SUCCESS);
  });
  const report::RangeRecord r = only_range(finish());
  ASSERT_FALSE(r.declined) << r.decline_reason << ": " << r.decline_detail;
  EXPECT_EQ(r.kernels.size(), 2u);
  EXPECT_EQ(fake::counts().launches, 2u + 2u * 3u);
  expect_all(read(data, kInts), 1);
}

TEST_F(ToolHarness, a_deferrable_range_that_frees_memory_is_replayed_at_the_free_not_deferred) {
  start();  // batching on
  const CUdeviceptr data = buffer(kInts);
  const CUdeviceptr scratch = buffer(16);
  range("step", [&] {
    add_one(data, kInts);
    ASSERT_EQ(fake::app_mem_free(scratch), CUDA_SUCCESS);
  });
  EXPECT_EQ(fake::counts().launches, 1u + 3u);
  const report::RangeRecord r = only_range(finish());
  ASSERT_FALSE(r.declined) << r.decline_reason << ": " << r.decline_detail;
  EXPECT_EQ(r.counter_ranges, "auto");
  expect_all(read(data, kInts), 1);
}

// One range, replayed at its end (batching off): `before` kernels adding
// one to the data, a free of a scratch buffer (by another thread when
// `other_thread`), `after` more such kernels; the range's record (the data
// holds before + after).
class FreeInsideRange : public ToolHarness {
 protected:
  report::RangeRecord profile_free(int before, int after, bool other_thread = false) {
    config_.batch_ranges = 0;
    start();
    const CUdeviceptr data = buffer(kInts);
    const CUdeviceptr scratch = buffer(16);
    range("step", [&] {
      for (int i = 0; i < before; ++i) add_one(data, kInts);
      if (other_thread) {
        std::thread other([&] { EXPECT_EQ(fake::app_mem_free(scratch), CUDA_SUCCESS); });
        other.join();
      } else {
        ASSERT_EQ(fake::app_mem_free(scratch), CUDA_SUCCESS);
      }
      for (int i = 0; i < after; ++i) add_one(data, kInts);
    });
    report::RangeRecord r = only_range(finish());
    expect_all(read(data, kInts), before + after);
    return r;
  }
};

TEST_F(FreeInsideRange, work_after_a_free_in_a_range_declines_it_without_values) {
  const report::RangeRecord r = profile_free(1, 1);
  EXPECT_TRUE(r.declined);
  EXPECT_EQ(r.decline_reason, "free_in_range");
  EXPECT_NE(r.decline_detail.find("after cuMemFree_v2 inside the range"), std::string::npos) << r.decline_detail;
  EXPECT_TRUE(r.kernels.empty()) << "values up to the free only are not the range's";
  for (const std::string& n : r.notes) EXPECT_EQ(n.find("replayed at the entry"), std::string::npos) << n;
  EXPECT_EQ(r.passes, 1u);
  EXPECT_EQ(fake::counts().launches, 1u + 3u + 1u);
}

TEST_F(FreeInsideRange, a_record_declined_after_the_free_is_pass_0s) {
  const report::RangeRecord r = profile_free(1, 1);
  ASSERT_TRUE(r.declined);
  EXPECT_TRUE(r.pass_records.empty()) << "the replay's passes are not the declined range's";
  EXPECT_EQ(r.counter_ranges.value_or(""), "") << "no counters ran for it";
}

TEST_F(FreeInsideRange, another_threads_free_declines_the_range_without_a_replay) {
  const report::RangeRecord r = profile_free(1, 0, /*other_thread=*/true);
  EXPECT_TRUE(r.declined);
  EXPECT_EQ(r.decline_reason, "free_in_range") << r.decline_detail;
  EXPECT_EQ(fake::counts().launches, 1u) << "nothing was replayed";
}

TEST_F(FreeInsideRange, a_free_before_any_kernel_in_a_range_declines_it) {
  const report::RangeRecord r = profile_free(0, 1);
  EXPECT_TRUE(r.declined);
  EXPECT_EQ(r.decline_reason, "free_in_range") << r.decline_detail;
  EXPECT_EQ(fake::counts().launches, 1u) << "nothing was replayed";
}

TEST_F(ToolHarness, copies_in_a_range_are_replayed_with_its_kernels) {
  config_.batch_ranges = 0;
  start();
  const CUdeviceptr data = buffer(kInts);
  const std::vector<int> tens(kInts, 10);
  range("step", [&] {
    ASSERT_EQ(fake::app_memcpy_htod(data, tens.data(), tens.size() * sizeof(int)), CUDA_SUCCESS);
    add_one(data, kInts);
  });
  expect_all(read(data, kInts), 11);
  const report::RangeRecord r = only_range(finish());
  EXPECT_FALSE(r.declined) << r.decline_reason << ": " << r.decline_detail;
  EXPECT_EQ(r.passes, 4u);
}

TEST_F(ToolHarness, a_range_without_kernels_is_declined) {
  config_.batch_ranges = 0;
  start();
  const CUdeviceptr data = buffer(kInts);
  range("step", [] {});
  const report::RangeRecord r = only_range(finish());
  EXPECT_TRUE(r.declined);
  EXPECT_EQ(r.decline_reason, "no_kernel_in_range");
  expect_all(read(data, kInts), 0);
}

TEST_F(ToolHarness, a_range_open_at_exit_is_declined_not_closed) {
  start();
  const CUdeviceptr data = buffer(kInts);
  fake::nvtx_push("step");
  add_one(data, kInts);
  const report::RangeRecord r = only_range(finish());
  EXPECT_TRUE(r.declined);
  EXPECT_EQ(r.decline_reason, "range_not_closed");
}

TEST_F(ToolHarness, a_range_replayed_at_a_free_and_open_at_exit_is_declined_with_pass_0s_record) {
  config_.batch_ranges = 0;
  start();
  const CUdeviceptr data = buffer(kInts);
  const CUdeviceptr scratch = buffer(16);
  fake::nvtx_push("step");
  add_one(data, kInts);
  ASSERT_EQ(fake::app_mem_free(scratch), CUDA_SUCCESS);
  EXPECT_EQ(fake::counts().launches, 1u + 3u);
  const report::RangeRecord r = only_range(finish());
  EXPECT_TRUE(r.declined);
  EXPECT_EQ(r.decline_reason, "range_not_closed");
  EXPECT_TRUE(r.kernels.empty() && r.pass_records.empty()) << "no values of a range that never ended";
  expect_all(read(data, kInts), 1);
}

TEST_F(ToolHarness, a_nested_range_is_part_of_the_matched_one) {
  config_.batch_ranges = 0;
  start();
  const CUdeviceptr data = buffer(kInts);
  // `step/` matches the push/pop range step at the top only: step/step is
  // inside it, not a range of its own.
  range("step", [&] {
    range("step", [&] { add_one(data, kInts); });
    add_one(data, kInts);
  });
  expect_all(read(data, kInts), 2);
  const report::RangeRecord r = only_range(finish());
  EXPECT_FALSE(r.declined) << r.decline_reason << ": " << r.decline_detail;
  EXPECT_EQ(r.name, "step");
  EXPECT_EQ(r.kernels.size(), 2u);
}

TEST_F(ToolHarness, a_kernel_window_selects_launches_by_number) {
  config_.nvtx_include.clear();
  StatusOr<range::KernelWindows> windows = range::KernelWindows::parse("1:3");
  ASSERT_TRUE(windows.ok()) << windows.status().message();
  config_.kernel_windows = *windows;
  config_.batch_ranges = 0;
  start();
  const CUdeviceptr data = buffer(kInts);
  for (int i = 0; i < 4; ++i) add_one(data, kInts);
  expect_all(read(data, kInts), 4);
  const report::RangeRecord r = only_range(finish());
  EXPECT_FALSE(r.declined) << r.decline_reason << ": " << r.decline_detail;
  EXPECT_EQ(r.kernels.size(), 2u);
}

TEST_F(ToolHarness, a_snapshot_over_the_device_limit_goes_to_host_memory) {
  config_.batch_ranges = 0;
  config_.snapshot_device_limit = 4096;  // less than the buffer
  start();
  const CUdeviceptr data = buffer(kInts * 64);
  range("step", [&] {
    CUdeviceptr p = data;
    int n = kInts * 64;
    void* params[] = {&p, &n};
    ASSERT_EQ(fake::app_launch(add_one_, params), CUDA_SUCCESS);
  });
  const std::vector<int> after = read(data, kInts * 64);
  for (int v : after) ASSERT_EQ(v, 1);
  const report::RangeRecord r = only_range(finish());
  EXPECT_FALSE(r.declined) << r.decline_reason << ": " << r.decline_detail;
  bool host_tier = false;
  for (const report::TierUsage& t : r.tiers) host_tier |= t.tier != "device" && t.bytes > 0;
  EXPECT_TRUE(host_tier);
}

}  // namespace
}  // namespace rangereplay::tool::testing
