// Range states: the pass 0 plan of an admitted range, the path a range's end
// takes, and whether an ended range waits for a batch.
#include "tool/logic/range_state.h"

#include <gtest/gtest.h>

namespace rangereplay::tool {
namespace {

Pass0Inputs multi_pass(bool per_kernel) {
  Pass0Inputs in;
  in.pass_count = 32;
  in.per_kernel_metrics = per_kernel;
  return in;
}

TEST(RangeState, a_one_pass_list_counts_pass_0_without_a_snapshot) {
  Pass0Inputs in;
  in.pass_count = 1;
  in.batching = true;
  const Recording r = plan_pass0(in);
  EXPECT_TRUE(r.counting_pass0);
  EXPECT_FALSE(r.entry_snapshot);
  EXPECT_FALSE(r.deferrable);  // one pass: nothing to batch
}

TEST(RangeState, a_multi_pass_per_kernel_range_snapshots_and_records_pass_0_only) {
  const Recording r = plan_pass0(multi_pass(true));
  EXPECT_TRUE(r.entry_snapshot);
  EXPECT_FALSE(r.counting_pass0);
  EXPECT_FALSE(r.deferrable);
}

TEST(RangeState, a_multi_pass_whole_range_counts_pass_0_unless_it_may_be_batched) {
  Pass0Inputs in = multi_pass(false);
  EXPECT_TRUE(plan_pass0(in).counting_pass0);
  in.batching = true;
  const Recording r = plan_pass0(in);
  EXPECT_TRUE(r.deferrable);
  EXPECT_FALSE(r.counting_pass0);
  // A write-set snapshot takes it out of batches: pass 0 counts again.
  EXPECT_TRUE(counts_pass0(in, /*deferrable=*/false));
}

TEST(RangeState, verify_and_collective_replay_keep_ranges_out_of_batches) {
  Pass0Inputs in = multi_pass(true);
  in.batching = true;
  EXPECT_TRUE(plan_pass0(in).deferrable);
  in.verify = true;
  EXPECT_FALSE(plan_pass0(in).deferrable);
  in.verify = false;
  in.collectives_replay = true;
  EXPECT_FALSE(plan_pass0(in).deferrable);
}

TEST(RangeState, a_name_that_saw_a_capture_snapshots_and_leaves_pass_0_uncounted) {
  Pass0Inputs in;
  in.pass_count = 1;
  in.capture_expected = true;
  const Recording r = plan_pass0(in);
  EXPECT_TRUE(r.entry_snapshot);
  EXPECT_FALSE(r.counting_pass0);
}

TEST(RangeState, a_capture_stops_pass_0_counters_and_is_noted) {
  Recording r = plan_pass0(Pass0Inputs{});
  ASSERT_TRUE(r.counting_pass0);
  stop_pass0_counters_at_capture(r);
  EXPECT_FALSE(r.counting_pass0);
  EXPECT_TRUE(r.pass0_stopped_at_capture);
}

TEST(RangeState, profiled_means_recording_or_a_collection_that_began) {
  EXPECT_FALSE(profiled(Untouched{}));
  EXPECT_TRUE(profiled(Recording{}));
  EXPECT_FALSE(profiled(Collecting{}));
  EXPECT_TRUE(profiled(Collecting{.started = true}));
  EXPECT_FALSE(profiled(LeftAlone{}));
  EXPECT_FALSE(profiled(ReplayedBeforeFree{}));
}

TEST(RangeState, a_free_replays_a_recording_range_with_a_snapshot_and_kernels_first) {
  EXPECT_EQ(free_in_range(Recording{}, false, /*entry_snapshot=*/true, /*kernels=*/2, 0, false),
            FreeInRange::kReplayFirst);
  // Nothing to replay from, or a replay that would break a capture or the job's lockstep: declined.
  EXPECT_EQ(free_in_range(Recording{}, false, /*entry_snapshot=*/false, 2, 0, false), FreeInRange::kDecline);
  EXPECT_EQ(free_in_range(Recording{}, false, true, /*kernels=*/0, 0, false), FreeInRange::kDecline);
  EXPECT_EQ(free_in_range(Recording{}, false, true, 2, /*open_captures=*/1, false), FreeInRange::kDecline);
  EXPECT_EQ(free_in_range(Recording{}, false, true, 2, 0, /*coordinated=*/true), FreeInRange::kDecline);
  // Already replayed, declined, or not recorded: nothing more.
  EXPECT_EQ(free_in_range(ReplayedBeforeFree{}, false, true, 2, 0, false), FreeInRange::kNothing);
  EXPECT_EQ(free_in_range(Recording{}, /*declined=*/true, true, 2, 0, false), FreeInRange::kNothing);
  EXPECT_EQ(free_in_range(Collecting{.started = true}, false, false, 2, 0, false), FreeInRange::kNothing);
}

TEST(RangeState, the_end_path_of_each_state) {
  EXPECT_EQ(range_end_path(LeftAlone{}, false, true, 3), RangeEndPath::kLeftAlone);
  EXPECT_EQ(range_end_path(Collecting{.started = true}, false, false, 0), RangeEndPath::kApplicationRun);
  EXPECT_EQ(range_end_path(Collecting{}, true, true, 1), RangeEndPath::kApplicationRun);
  EXPECT_EQ(range_end_path(Recording{}, false, false, 0), RangeEndPath::kDrain);
  // A lost context comes first: no call at all, even with a capture open.
  EXPECT_EQ(range_end_path(Recording{}, true, /*context_lost=*/true, 1), RangeEndPath::kContextLost);
  EXPECT_EQ(range_end_path(Recording{}, /*counters_closed=*/true, false, 0), RangeEndPath::kWithoutGpu);
  EXPECT_EQ(range_end_path(Recording{}, false, false, /*open_captures=*/1), RangeEndPath::kWithoutGpu);
  EXPECT_EQ(range_end_path(Untouched{}, false, true, 0), RangeEndPath::kWithoutGpu);
  EXPECT_EQ(range_end_path(ReplayedBeforeFree{}, false, false, 1), RangeEndPath::kReplayedBefore);
}

TEST(RangeState, only_a_deferrable_drained_range_with_kernels_that_can_wait_waits) {
  const RangeState deferrable = Recording{.deferrable = true};
  EXPECT_TRUE(range_waits_for_batch(deferrable, true, 4, false, true));
  EXPECT_FALSE(range_waits_for_batch(deferrable, /*drained=*/false, 4, false, true));
  EXPECT_FALSE(range_waits_for_batch(deferrable, true, /*kernels=*/0, false, true));
  EXPECT_FALSE(range_waits_for_batch(deferrable, true, 4, /*declined=*/true, true));
  EXPECT_FALSE(range_waits_for_batch(deferrable, true, 4, false, /*can_wait=*/false));
  EXPECT_FALSE(range_waits_for_batch(Recording{}, true, 4, false, true));
  EXPECT_FALSE(range_waits_for_batch(Collecting{.started = true}, true, 4, false, true));
}

}  // namespace
}  // namespace rangereplay::tool
