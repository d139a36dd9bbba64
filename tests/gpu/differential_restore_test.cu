// Differential restore as the main job runs it (src/tool/range_controller.cpp):
// a Snapshot's entry pieces (split over the device and pinned tiers under a
// device cap) become the DigestRegions of one DigestPlan; entry digests right
// after the entry capture; the exit state captured as changed chunks only,
// into the exit state's exclusive arena span; every pass restored with the
// plan; the exit state handed back with restore_exit. Every byte of the
// application buffer is compared with a host model, and restored bytes equal
// the bytes of the chunks that really differ. Each test runs once per copy
// variant (DigestPlanOptions::copy_variant).
#include <cuda.h>
#include <gtest/gtest.h>

#include "gpu/gpu_stream_test.h"
#include "gpu/gpu_test_bytes.h"

#include <cstring>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "cuda/digest_plan.h"
#include "cuda/snapshot.h"

namespace rangereplay {
namespace {

using gpu_test::first_difference;
using gpu_test::random_bytes;

constexpr std::uint64_t kMiB = std::uint64_t{1} << 20;

class DifferentialRestoreTest : public rangereplay::gpu_test::GpuStreamTest,
                                public ::testing::WithParamInterface<kernels::DigestCopyVariant> {
 protected:
  void TearDown() override {
    plan_.reset();
    snapshot_.reset();
    storage_.reset();
    if (app_ != 0) EXPECT_CU(cuMemFree(app_));
    GpuStreamTest::TearDown();
  }

  // Regions (offset, bytes) in one buffer: 3 MiB + odd tail, 1 byte, 2 MiB,
  // 0, 700 kB, 5 MiB + 17 (split on the device tier's 2 MiB granule when capped).
  void set_up(std::uint64_t device_limit_bytes) {
    layout_ = {{256, 3 * kMiB + 333}, {4 * kMiB, 1},      {5 * kMiB, 2 * kMiB},
               {8 * kMiB, 0},         {9 * kMiB, 700000}, {10 * kMiB, 5 * kMiB + 17}};
    bytes_ = 16 * kMiB;
    ASSERT_CU(cuMemAlloc(&app_, bytes_));
    std::vector<MemoryRange> regions;
    for (const auto& [offset, bytes] : layout_) regions.emplace_back(DevicePtr(app_ + offset), bytes);
    SnapshotOptions options;
    options.device_limit_bytes = device_limit_bytes;
    storage_.emplace(options, context_);
    StatusOr<Snapshot> snapshot = Snapshot::create(*storage_, regions, kSnapshotStates, stream_);
    ASSERT_TRUE(snapshot.ok()) << snapshot.status().to_string();
    snapshot_.emplace(std::move(snapshot).value());

    entry_ = random_bytes(bytes_, 7);
    upload(entry_);
    ASSERT_OK(snapshot_->capture(SnapshotState::kEntry, stream_));
    std::vector<DigestRegion> digest_regions;
    for (const storage::StatePiece& piece : snapshot_->pieces(SnapshotState::kEntry)) {
      digest_regions.push_back({piece.app, DevicePtr(piece.copy)});
    }
    DigestPlanOptions digest_options;
    digest_options.copy_variant = GetParam();
    StatusOr<DigestPlan> plan = DigestPlan::create(digest_regions, digest_options, stream_);
    ASSERT_TRUE(plan.ok()) << plan.status().to_string();
    ASSERT_EQ(plan->stats().copy_variant, GetParam());
    plan_.emplace(std::move(plan).value());
    ASSERT_OK(plan_->digest_entry(stream_));
    ASSERT_CU(cuStreamSynchronize(stream_));
  }

  void upload(const std::vector<unsigned char>& bytes) {
    ASSERT_CU(cuMemcpyHtoD(app_, bytes.data(), bytes.size()));
    ASSERT_CU(cuCtxSynchronize());
  }

  std::vector<unsigned char> download() {
    std::vector<unsigned char> bytes(bytes_);
    EXPECT_CU(cuCtxSynchronize());
    EXPECT_CU(cuMemcpyDtoH(bytes.data(), app_, bytes.size()));
    return bytes;
  }

  // `outside` with the regions' bytes taken from `inside`.
  std::vector<unsigned char> model(const std::vector<unsigned char>& inside, std::vector<unsigned char> outside) const {
    for (const auto& [offset, bytes] : layout_) std::memcpy(outside.data() + offset, inside.data() + offset, bytes);
    return outside;
  }

  // Bytes of the plan's chunks that differ between `a` and `b`.
  std::uint64_t differing_chunk_bytes(const std::vector<unsigned char>& a, const std::vector<unsigned char>& b) const {
    std::uint64_t total = 0;
    for (std::size_t c = 0; c < plan_->table().chunk_count(); ++c) {
      const std::uint64_t offset = plan_->table().app_address(c).address() - app_;
      const std::uint64_t bytes = plan_->table().chunks()[c].bytes;
      if (std::memcmp(a.data() + offset, b.data() + offset, bytes) != 0) total += bytes;
    }
    return total;
  }

  // `base` with one byte changed in each of `count` regions' random positions.
  std::vector<unsigned char> planted(std::vector<unsigned char> base, int count, std::uint64_t seed) const {
    std::mt19937_64 rng(seed);
    for (int i = 0; i < count; ++i) {
      const auto& [offset, bytes] = layout_[static_cast<std::size_t>(i) % layout_.size()];
      if (bytes == 0) continue;
      base[offset + rng() % bytes] ^= 0x5a;
    }
    return base;
  }

  // The window: exit capture of changed chunks, `scribbles` (one per pass,
  // what the previous pass left), differential restores, the exit hand-back.
  void run_window(const std::vector<unsigned char>& exit, const std::vector<std::vector<unsigned char>>& scribbles) {
    upload(exit);
    const std::optional<storage::ArenaSpan> span =
        snapshot_->exclusive_span(SnapshotState::kExit, kernels::kExitSlotAlignment);
    ASSERT_TRUE(span.has_value());
    ASSERT_OK(plan_->capture_changed(stream_, span->address, span->bytes));
    ASSERT_OK(plan_->read_back(stream_));
    ASSERT_CU(cuStreamSynchronize(stream_));
    EXPECT_EQ(plan_->host_counters().capture_overflow_chunks, 0u);
    EXPECT_EQ(plan_->host_counters().captured_bytes, differing_chunk_bytes(entry_, exit));

    std::vector<unsigned char> left = exit;  // what pass 0 (the application) left
    for (std::size_t pass = 0; pass < scribbles.size(); ++pass) {
      ASSERT_OK(plan_->restore(stream_));
      ASSERT_OK(plan_->read_back(stream_));
      ASSERT_CU(cuStreamSynchronize(stream_));
      EXPECT_EQ(plan_->host_counters().restored_bytes, differing_chunk_bytes(entry_, left)) << "pass " << pass;
      EXPECT_EQ(first_difference(model(entry_, left), download()), -1) << "entry restore " << pass;
      left = scribbles[pass];
      upload(left);
    }
    ASSERT_OK(plan_->restore_exit(stream_));
    ASSERT_CU(cuStreamSynchronize(stream_));
    EXPECT_EQ(first_difference(model(exit, left), download()), -1) << "exit restore: first wrong byte";
  }

  std::vector<std::pair<std::uint64_t, std::uint64_t>> layout_;
  std::uint64_t bytes_ = 0;
  CUdeviceptr app_ = 0;
  std::vector<unsigned char> entry_;
  std::optional<SnapshotStorage> storage_;
  std::optional<Snapshot> snapshot_;
  std::optional<DigestPlan> plan_;
};

TEST_P(DifferentialRestoreTest, on_the_device_tier_only_changed_chunks_move_and_memory_matches_the_model) {
  set_up(0);
  const std::vector<unsigned char> exit = planted(entry_, 9, 11);
  ASSERT_GT(differing_chunk_bytes(entry_, exit), 0u);
  run_window(exit, {planted(entry_, 3, 12), random_bytes(bytes_, 13), planted(exit, 2, 14)});
}

TEST_P(DifferentialRestoreTest, entry_split_over_device_and_pinned_tiers_restores_from_both) {
  set_up(6 * kMiB);  // part of the entry state on the device, the rest and the exit state pinned
  bool device = false, pinned = false;
  for (const storage::StatePiece& piece : snapshot_->pieces(SnapshotState::kEntry)) {
    device = device || piece.tier == SnapshotStorage::kDeviceTier;
    pinned = pinned || piece.tier == SnapshotStorage::kPinnedTier;
  }
  ASSERT_TRUE(device && pinned) << "the cap should split the entry state over both tiers";
  // A few changed chunks at exit (every chunk changed could overflow the
  // exit span by one tail slot; the main job then captures the exit in full),
  // then passes that leave every chunk changed, so both tiers are read back.
  const std::vector<unsigned char> exit = planted(entry_, 12, 21);
  run_window(exit, {random_bytes(bytes_, 22), planted(entry_, 4, 23)});
}

TEST_P(DifferentialRestoreTest, a_range_that_writes_nothing_restores_nothing_and_keeps_its_memory) {
  set_up(0);
  run_window(entry_, {entry_, entry_});
  EXPECT_EQ(plan_->host_counters().captured_bytes, 0u);
}

INSTANTIATE_TEST_SUITE_P(CopyVariants, DifferentialRestoreTest,
                         ::testing::Values(kernels::DigestCopyVariant::kClusterSlice,
                                           kernels::DigestCopyVariant::kWarpPerPieceInOrder),
                         [](const ::testing::TestParamInfo<kernels::DigestCopyVariant>& info) {
                           return std::string(kernels::copy_variant_name(info.param));
                         });

}  // namespace
}  // namespace rangereplay
