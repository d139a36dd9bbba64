// Snapshot on a GPU: the storage planner's device and pinned tiers backed by
// real memory, entry and exit states captured and restored through the copy
// engine. Random data in many regions is captured, scribbled over, restored
// and compared byte by byte (inside the regions and in the gaps between them)
// against a host model; device caps force spills to the pinned tier with
// exact bytes per tier; a second plan reuses the retained arenas; a cap too
// small for everything is kResourceExhausted.
#include <cuda.h>
#include <gtest/gtest.h>

#include "gpu/gpu_stream_test.h"
#include "gpu/gpu_test_bytes.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "cuda/kernels/launch_count.h"
#include "cuda/snapshot.h"
#include "cuda/storage_backings.h"

namespace rangereplay {
namespace {

using gpu_test::first_difference;
using gpu_test::random_bytes;

constexpr std::uint64_t kMiB = std::uint64_t{1} << 20;

// A region as an offset into the test's application buffer.
struct Piece {
  std::uint64_t offset;
  std::uint64_t bytes;
};

// Regions one after another in a buffer of `buffer_bytes` bytes, with gaps:
// sizes 0, 1, odd, up to 300 kB and one in fifty of 5 MiB (so prefix chunking
// splits them on its 2 MiB granule); starts 16-byte aligned unless
// `odd_starts`, then every fourth starts at an odd address.
std::vector<Piece> random_pieces(std::uint64_t buffer_bytes, bool odd_starts, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<Piece> pieces;
  std::uint64_t at = 256;
  for (std::size_t i = 0;; ++i) {
    std::uint64_t bytes = 0;
    if (i % 50 == 2) {
      bytes = 5 * kMiB + rng() % 4096;
    } else if (i % 10 == 0) {
      bytes = 0;
    } else if (i % 10 == 1) {
      bytes = 1;
    } else if (i % 10 >= 8) {
      bytes = 1 + rng() % 300000;
    } else {
      bytes = 1 + rng() % 70000;
    }
    at = (at + 15) / 16 * 16;
    if (odd_starts && i % 4 == 3) at += 1 + rng() % 15;
    if (at + bytes + 64 > buffer_bytes) break;
    pieces.push_back({at, bytes});
    at += bytes + 1 + rng() % 200;
  }
  return pieces;
}

std::uint64_t total_bytes(const std::vector<Piece>& pieces) {
  std::uint64_t total = 0;
  for (const Piece& p : pieces) total += p.bytes;
  return total;
}

class SnapshotTest : public rangereplay::gpu_test::GpuStreamTest {
 protected:
  void TearDown() override {
    if (app_ != 0) EXPECT_CU(cuMemFree(app_));
    GpuStreamTest::TearDown();
  }

  void allocate_app(std::uint64_t bytes) {
    app_bytes_ = bytes;
    ASSERT_CU(cuMemAlloc(&app_, bytes));
  }

  std::vector<MemoryRange> regions_of(const std::vector<Piece>& pieces) const {
    std::vector<MemoryRange> regions;
    for (const Piece& p : pieces) regions.emplace_back(DevicePtr(app_ + p.offset), p.bytes);
    return regions;
  }

  void upload(const std::vector<unsigned char>& bytes) {
    ASSERT_CU(cuMemcpyHtoD(app_, bytes.data(), bytes.size()));
    // A pageable upload may return before its DMA lands, and the legacy stream
    // does not order the non-blocking test stream: wait for it.
    ASSERT_CU(cuCtxSynchronize());
  }

  std::vector<unsigned char> download() {
    std::vector<unsigned char> bytes(app_bytes_);
    EXPECT_CU(cuCtxSynchronize());
    EXPECT_CU(cuMemcpyDtoH(bytes.data(), app_, bytes.size()));
    return bytes;
  }

  // `outside` with the regions' bytes taken from `inside`.
  static std::vector<unsigned char> model(const std::vector<Piece>& pieces, const std::vector<unsigned char>& inside,
                                          std::vector<unsigned char> outside) {
    for (const Piece& p : pieces) std::memcpy(outside.data() + p.offset, inside.data() + p.offset, p.bytes);
    return outside;
  }

  // Entry capture, exit capture, two entry restores and one exit restore,
  // each over a different scribble, every byte of the buffer compared.
  void round_trip(Snapshot& snapshot, const std::vector<Piece>& pieces, std::uint64_t seed) {
    const std::vector<unsigned char> entry = random_bytes(app_bytes_, seed);
    upload(entry);
    ASSERT_TRUE(snapshot.capture(SnapshotState::kEntry, stream_).ok());
    ASSERT_CU(cuStreamSynchronize(stream_));

    const std::vector<unsigned char> exit = random_bytes(app_bytes_, seed + 1);
    upload(exit);
    ASSERT_TRUE(snapshot.capture(SnapshotState::kExit, stream_).ok());
    ASSERT_CU(cuStreamSynchronize(stream_));

    for (std::uint64_t pass = 0; pass < 2; ++pass) {
      const std::vector<unsigned char> scribble = random_bytes(app_bytes_, seed + 2 + pass);
      upload(scribble);
      ASSERT_TRUE(snapshot.restore(SnapshotState::kEntry, stream_).ok());
      ASSERT_CU(cuStreamSynchronize(stream_));
      EXPECT_EQ(first_difference(model(pieces, entry, scribble), download()), -1)
          << "entry restore " << pass << ": first wrong byte";
    }

    const std::vector<unsigned char> scribble = random_bytes(app_bytes_, seed + 9);
    upload(scribble);
    ASSERT_TRUE(snapshot.restore(SnapshotState::kExit, stream_).ok());
    ASSERT_CU(cuStreamSynchronize(stream_));
    EXPECT_EQ(first_difference(model(pieces, exit, scribble), download()), -1) << "exit restore: first wrong byte";
  }

  CUdeviceptr app_ = 0;
  std::uint64_t app_bytes_ = 0;
};

const SnapshotTierUsage* find_tier(const std::vector<SnapshotTierUsage>& tiers, const std::string& name) {
  for (const SnapshotTierUsage& tier : tiers) {
    if (tier.tier == name) return &tier;
  }
  return nullptr;
}

TEST_F(SnapshotTest, many_regions_round_trip_on_the_device_tier) {
  allocate_app(48 * kMiB);
  const std::vector<Piece> pieces = random_pieces(app_bytes_, /*odd_starts=*/false, 1);
  ASSERT_GT(pieces.size(), 100u);
  SnapshotStorage storage(SnapshotOptions{}, context_);
  StatusOr<Snapshot> snapshot = Snapshot::create(storage, regions_of(pieces), kSnapshotStates, stream_);
  ASSERT_TRUE(snapshot.ok()) << snapshot.status().to_string();

  const std::uint64_t total = total_bytes(pieces);
  EXPECT_EQ(snapshot->bytes(), total);
  EXPECT_EQ(snapshot->state_count(), 2u);
  EXPECT_EQ(snapshot->narrow_items(), 0u);
  const std::vector<SnapshotTierUsage> tiers = snapshot->tiers();
  ASSERT_EQ(tiers.size(), 1u);
  EXPECT_EQ(tiers[0].tier, "device");
  EXPECT_EQ(tiers[0].bytes, 2 * total);
  // Snapshot arenas commit their planned bytes rounded up to the 256-byte
  // alignment (TierOptions::commit_whole_alignment), so the last piece's
  // whole slot is in the arena.
  const std::uint64_t planned = snapshot->plan().tiers[0].planned_bytes;
  EXPECT_EQ(tiers[0].arena_bytes, (planned + 255) / 256 * 256);
  EXPECT_TRUE(tiers[0].new_allocation);
  EXPECT_EQ(snapshot->copy_plan(SnapshotState::kEntry).stats().kernel_bytes, total);
  EXPECT_EQ(snapshot->copy_plan(SnapshotState::kExit).stats().kernel_bytes, total);
  round_trip(*snapshot, pieces, 100);
}

TEST_F(SnapshotTest, regions_at_odd_addresses_round_trip_with_narrow_items_counted) {
  allocate_app(24 * kMiB);
  const std::vector<Piece> pieces = random_pieces(app_bytes_, /*odd_starts=*/true, 2);
  SnapshotStorage storage(SnapshotOptions{}, context_);
  StatusOr<Snapshot> snapshot = Snapshot::create(storage, regions_of(pieces), kSnapshotStates, stream_);
  ASSERT_TRUE(snapshot.ok()) << snapshot.status().to_string();
  EXPECT_GT(snapshot->narrow_items(), 0u);
  round_trip(*snapshot, pieces, 200);
}

// A placement as text. (nvcc's host pass leaves MemoryRange's defaulted
// operator== undefined at link time, so placements are compared as text.)
std::string text(const storage::Placement& p) {
  return "tier " + std::to_string(p.tier) + ", region " + std::to_string(p.region.start().address()) + " +" +
         std::to_string(p.region.size()) + ", region offset " + std::to_string(p.region_offset) + ", " +
         std::to_string(p.bytes) + " bytes at arena offset " + std::to_string(p.arena_offset);
}

// Three 3 MiB regions per state under an 8 MiB device cap. Entry first (higher
// priority): regions 0 and 1 whole on the device, region 2's first 2 MiB
// granule on the device and its last 1 MiB on the pinned tier; the exit state
// finds the device full and goes to the pinned tier whole.
void expect_exact_spill(const Snapshot& snapshot, const std::vector<MemoryRange>& regions) {
  const std::vector<SnapshotTierUsage> tiers = snapshot.tiers();
  ASSERT_EQ(tiers.size(), 2u);
  EXPECT_EQ(tiers[0], (SnapshotTierUsage{"device", 8 * kMiB, 8 * kMiB, true}));
  EXPECT_EQ(tiers[1], (SnapshotTierUsage{"pinned", 10 * kMiB, 10 * kMiB, true}));

  const std::vector<storage::Placement>& placed = snapshot.plan().placements;
  ASSERT_EQ(placed.size(), 7u);
  EXPECT_EQ(text(placed[0]), text({0, regions[0], 0, 3 * kMiB, 0}));
  EXPECT_EQ(text(placed[1]), text({0, regions[1], 0, 3 * kMiB, 3 * kMiB}));
  EXPECT_EQ(text(placed[2]), text({0, regions[2], 0, 2 * kMiB, 6 * kMiB}));
  EXPECT_EQ(text(placed[3]), text({1, regions[2], 2 * kMiB, 1 * kMiB, 0}));
  EXPECT_EQ(text(placed[4]), text({1, regions[0], 0, 3 * kMiB, 1 * kMiB}));
  EXPECT_EQ(text(placed[5]), text({1, regions[1], 0, 3 * kMiB, 4 * kMiB}));
  EXPECT_EQ(text(placed[6]), text({1, regions[2], 0, 3 * kMiB, 7 * kMiB}));

  const CopyPlanStats& entry = snapshot.copy_plan(SnapshotState::kEntry).stats();
  const CopyPlanStats& exit = snapshot.copy_plan(SnapshotState::kExit).stats();
  EXPECT_EQ(entry.total_bytes, 9 * kMiB);
  EXPECT_EQ(exit.total_bytes, 9 * kMiB);
  EXPECT_EQ(snapshot.narrow_items(), 0u);
}

TEST_F(SnapshotTest, device_cap_spills_part_to_the_pinned_tier_through_the_copy_engines) {
  allocate_app(12 * kMiB);
  const std::vector<Piece> pieces = {{0, 3 * kMiB}, {3 * kMiB + 4096, 3 * kMiB}, {8 * kMiB, 3 * kMiB}};
  SnapshotOptions options;
  options.device_limit_bytes = 8 * kMiB;
  SnapshotStorage storage(options, context_);
  const std::vector<MemoryRange> regions = regions_of(pieces);
  StatusOr<Snapshot> snapshot = Snapshot::create(storage, regions, kSnapshotStates, stream_);
  ASSERT_TRUE(snapshot.ok()) << snapshot.status().to_string();
  expect_exact_spill(*snapshot, regions);
  EXPECT_EQ(snapshot->copy_plan(SnapshotState::kEntry).stats().kernel_bytes, 8 * kMiB);
  EXPECT_EQ(snapshot->copy_plan(SnapshotState::kEntry).stats().copy_engine_bytes, 1 * kMiB);
  EXPECT_EQ(snapshot->copy_plan(SnapshotState::kExit).stats().kernel_bytes, 0u);
  EXPECT_EQ(snapshot->copy_plan(SnapshotState::kExit).stats().copy_engine_bytes, 9 * kMiB);
  round_trip(*snapshot, pieces, 300);
}

TEST_F(SnapshotTest, entry_state_restores_through_the_copy_engines_without_a_kernel) {
  // Spilled to both tiers, regions at odd addresses among them: the
  // copy-engine plan moves the same bytes as the plan, and no tool kernel.
  allocate_app(48 * kMiB);
  const std::vector<Piece> pieces = random_pieces(app_bytes_, /*odd_starts=*/true, 5);
  SnapshotOptions options;
  options.device_limit_bytes = 24 * kMiB;
  SnapshotStorage storage(options, context_);
  StatusOr<Snapshot> snapshot = Snapshot::create(storage, regions_of(pieces), kSnapshotStates, stream_);
  ASSERT_TRUE(snapshot.ok()) << snapshot.status().to_string();
  EXPECT_EQ(snapshot->restore_by_copy_engines(SnapshotState::kEntry, stream_).code(), StatusCode::kFailedPrecondition);
  ASSERT_TRUE(snapshot->plan_copy_engine_restore(SnapshotState::kEntry, stream_).ok());
  ASSERT_TRUE(snapshot->plan_copy_engine_restore(SnapshotState::kEntry, stream_).ok());  // a second call: no-op
  EXPECT_GT(snapshot->copy_plan(SnapshotState::kEntry).stats().kernel_bytes, 0u);

  const std::vector<unsigned char> entry = random_bytes(app_bytes_, 700);
  upload(entry);
  ASSERT_TRUE(snapshot->capture(SnapshotState::kEntry, stream_).ok());
  ASSERT_CU(cuStreamSynchronize(stream_));
  for (std::uint64_t pass = 0; pass < 2; ++pass) {
    const std::vector<unsigned char> scribble = random_bytes(app_bytes_, 701 + pass);
    upload(scribble);
    const std::uint64_t launches = kernels::tool_kernel_launches();
    ASSERT_TRUE(snapshot->restore_by_copy_engines(SnapshotState::kEntry, stream_).ok());
    EXPECT_EQ(kernels::tool_kernel_launches(), launches) << "a tool kernel in the copy-engine restore";
    ASSERT_CU(cuStreamSynchronize(stream_));
    EXPECT_EQ(first_difference(model(pieces, entry, scribble), download()), -1)
        << "copy-engine entry restore " << pass << ": first wrong byte";
  }
}

TEST_F(SnapshotTest, device_cap_spills_part_to_the_pinned_tier_through_the_mapped_kernel) {
  allocate_app(12 * kMiB);
  const std::vector<Piece> pieces = {{0, 3 * kMiB}, {3 * kMiB + 4096, 3 * kMiB}, {8 * kMiB, 3 * kMiB}};
  SnapshotOptions options;
  options.device_limit_bytes = 8 * kMiB;
  options.copy.pinned_method = PinnedCopyMethod::kMappedKernel;
  SnapshotStorage storage(options, context_);
  const std::vector<MemoryRange> regions = regions_of(pieces);
  StatusOr<Snapshot> snapshot = Snapshot::create(storage, regions, kSnapshotStates, stream_);
  ASSERT_TRUE(snapshot.ok()) << snapshot.status().to_string();
  expect_exact_spill(*snapshot, regions);
  EXPECT_EQ(snapshot->copy_plan(SnapshotState::kEntry).stats().kernel_bytes, 9 * kMiB);
  EXPECT_EQ(snapshot->copy_plan(SnapshotState::kExit).stats().copy_engine_bytes, 0u);
  round_trip(*snapshot, pieces, 400);
}

TEST_F(SnapshotTest, many_regions_split_across_tiers_round_trip) {
  allocate_app(48 * kMiB);
  const std::vector<Piece> pieces = random_pieces(app_bytes_, /*odd_starts=*/false, 3);
  const std::uint64_t total = total_bytes(pieces);
  SnapshotOptions options;
  options.device_limit_bytes = total / 2;  // part of the entry state fits, most of the exit state spills
  SnapshotStorage storage(options, context_);
  StatusOr<Snapshot> snapshot = Snapshot::create(storage, regions_of(pieces), kSnapshotStates, stream_);
  ASSERT_TRUE(snapshot.ok()) << snapshot.status().to_string();
  const std::vector<SnapshotTierUsage> tiers = snapshot->tiers();
  const SnapshotTierUsage* device = find_tier(tiers, "device");
  const SnapshotTierUsage* pinned = find_tier(tiers, "pinned");
  ASSERT_NE(device, nullptr);
  ASSERT_NE(pinned, nullptr);
  EXPECT_GT(device->bytes, 0u);
  EXPECT_LE(device->arena_bytes, total / 2);
  EXPECT_LE(device->bytes, total / 2);
  EXPECT_EQ(device->bytes + pinned->bytes, 2 * total);
  EXPECT_EQ(snapshot->copy_plan(SnapshotState::kEntry).stats().total_bytes, total);
  EXPECT_EQ(snapshot->copy_plan(SnapshotState::kExit).stats().total_bytes, total);
  EXPECT_GT(snapshot->copy_plan(SnapshotState::kEntry).stats().kernel_bytes, 0u);
  EXPECT_GT(snapshot->copy_plan(SnapshotState::kExit).stats().copy_engine_bytes, 0u);
  round_trip(*snapshot, pieces, 500);
}

TEST_F(SnapshotTest, second_plan_reuses_the_retained_arenas) {
  allocate_app(12 * kMiB);
  const std::vector<Piece> pieces = {{0, 3 * kMiB}, {3 * kMiB + 4096, 3 * kMiB}, {8 * kMiB, 3 * kMiB}};
  SnapshotOptions options;
  options.device_limit_bytes = 8 * kMiB;
  SnapshotStorage storage(options, context_);
  const std::vector<MemoryRange> regions = regions_of(pieces);
  std::uint64_t device_address = 0;
  std::uint64_t pinned_address = 0;
  {
    StatusOr<Snapshot> first = Snapshot::create(storage, regions, kSnapshotStates, stream_);
    ASSERT_TRUE(first.ok()) << first.status().to_string();
    expect_exact_spill(*first, regions);
    device_address = first->plan().tiers[0].arena_address;
    pinned_address = first->plan().tiers[1].arena_address;
    round_trip(*first, pieces, 600);
    EXPECT_TRUE(storage.in_use());
  }
  EXPECT_FALSE(storage.in_use());
  EXPECT_EQ(storage.arena_bytes(SnapshotStorage::kDeviceTier), 8 * kMiB);
  EXPECT_EQ(storage.arena_bytes(SnapshotStorage::kPinnedTier), 10 * kMiB);

  // The same regions again: both arenas reused, nothing allocated.
  {
    StatusOr<Snapshot> second = Snapshot::create(storage, regions, kSnapshotStates, stream_);
    ASSERT_TRUE(second.ok()) << second.status().to_string();
    EXPECT_EQ(second->tiers(), (std::vector<SnapshotTierUsage>{{"device", 8 * kMiB, 8 * kMiB, false},
                                                               {"pinned", 10 * kMiB, 10 * kMiB, false}}));
    EXPECT_EQ(second->plan().tiers[0].arena_address, device_address);
    EXPECT_EQ(second->plan().tiers[1].arena_address, pinned_address);
    round_trip(*second, pieces, 700);
  }

  // Fewer regions: still the retained arenas, now larger than the bytes they hold.
  {
    const std::vector<Piece> fewer = {pieces[0]};
    StatusOr<Snapshot> third = Snapshot::create(storage, regions_of(fewer), kSnapshotStates, stream_);
    ASSERT_TRUE(third.ok()) << third.status().to_string();
    EXPECT_EQ(third->tiers(), (std::vector<SnapshotTierUsage>{{"device", 6 * kMiB, 8 * kMiB, false}}));
    round_trip(*third, fewer, 800);
  }
  EXPECT_TRUE(storage.release().ok());
  EXPECT_EQ(storage.arena_bytes(SnapshotStorage::kDeviceTier), 0u);
  EXPECT_EQ(storage.arena_bytes(SnapshotStorage::kPinnedTier), 0u);
}

TEST_F(SnapshotTest, caps_too_small_for_everything_are_resource_exhausted) {
  allocate_app(12 * kMiB);
  const std::vector<Piece> pieces = {{0, 3 * kMiB}, {4 * kMiB, 3 * kMiB}};
  SnapshotOptions options;
  options.device_limit_bytes = 2 * kMiB;
  options.host_limit_bytes = 5 * kMiB;
  SnapshotStorage storage(options, context_);
  StatusOr<Snapshot> snapshot = Snapshot::create(storage, regions_of(pieces), kSnapshotStates, stream_);
  ASSERT_FALSE(snapshot.ok());
  EXPECT_EQ(snapshot.status().code(), StatusCode::kResourceExhausted);
  EXPECT_NE(snapshot.status().message().find("bytes short for region"), std::string::npos)
      << snapshot.status().message();
  EXPECT_FALSE(storage.in_use());
  EXPECT_EQ(storage.arena_bytes(SnapshotStorage::kDeviceTier), 0u);
  EXPECT_EQ(storage.arena_bytes(SnapshotStorage::kPinnedTier), 0u);

  // One state of one region fits: the storage is usable after the failure.
  const std::vector<Piece> one = {pieces[0]};
  StatusOr<Snapshot> smaller = Snapshot::create(storage, regions_of(one), 1, stream_);
  ASSERT_TRUE(smaller.ok()) << smaller.status().to_string();
  EXPECT_EQ(smaller->tiers(), (std::vector<SnapshotTierUsage>{{"device", 2 * kMiB, 2 * kMiB, true},
                                                              {"pinned", 1 * kMiB, 1 * kMiB, true}}));
  EXPECT_EQ(smaller->restore(SnapshotState::kExit, stream_).code(), StatusCode::kInvalidArgument);
}

TEST_F(SnapshotTest, a_second_live_snapshot_of_one_storage_is_refused) {
  allocate_app(kMiB);
  const std::vector<Piece> pieces = {{0, 4096}};
  SnapshotStorage storage(SnapshotOptions{}, context_);
  StatusOr<Snapshot> first = Snapshot::create(storage, regions_of(pieces), kSnapshotStates, stream_);
  ASSERT_TRUE(first.ok()) << first.status().to_string();
  StatusOr<Snapshot> second = Snapshot::create(storage, regions_of(pieces), kSnapshotStates, stream_);
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_EQ(storage.release().code(), StatusCode::kFailedPrecondition);

  // A moved snapshot keeps the storage in use; the moved-from one is inert.
  Snapshot moved = std::move(first).value();
  EXPECT_TRUE(storage.in_use());
  EXPECT_TRUE(moved.capture(SnapshotState::kEntry, stream_).ok());
  ASSERT_CU(cuStreamSynchronize(stream_));
}

TEST_F(SnapshotTest, no_regions_and_empty_regions_make_an_empty_snapshot) {
  allocate_app(kMiB);
  SnapshotStorage storage(SnapshotOptions{}, context_);
  const std::vector<MemoryRange> regions = {MemoryRange(DevicePtr(app_), 0), MemoryRange(DevicePtr(app_ + 64), 0)};
  for (std::size_t count : {std::size_t{0}, regions.size()}) {
    StatusOr<Snapshot> snapshot =
        Snapshot::create(storage, std::span<const MemoryRange>(regions.data(), count), kSnapshotStates, stream_);
    ASSERT_TRUE(snapshot.ok()) << snapshot.status().to_string();
    EXPECT_EQ(snapshot->bytes(), 0u);
    EXPECT_TRUE(snapshot->tiers().empty());
    EXPECT_TRUE(snapshot->capture(SnapshotState::kEntry, stream_).ok());
    EXPECT_TRUE(snapshot->restore(SnapshotState::kEntry, stream_).ok());
    EXPECT_TRUE(snapshot->restore(SnapshotState::kExit, stream_).ok());
    ASSERT_CU(cuStreamSynchronize(stream_));
  }
  EXPECT_EQ(storage.arena_bytes(SnapshotStorage::kDeviceTier), 0u);
}

TEST_F(SnapshotTest, bad_state_counts_are_invalid_arguments) {
  SnapshotStorage storage(SnapshotOptions{}, context_);
  for (std::size_t count : {std::size_t{0}, std::size_t{3}}) {
    StatusOr<Snapshot> snapshot = Snapshot::create(storage, {}, count, stream_);
    ASSERT_FALSE(snapshot.ok());
    EXPECT_EQ(snapshot.status().code(), StatusCode::kInvalidArgument);
  }
}

TEST(RetainedGrowthBudget, keeps_the_retained_arena_for_a_small_gain) {
  EXPECT_EQ(retained_growth_budget(1000, 0, 8), 1000u);   // nothing retained
  EXPECT_EQ(retained_growth_budget(800, 1000, 8), 800u);  // less than retained: never raised
  EXPECT_EQ(retained_growth_budget(1000, 1000, 8), 1000u);
  EXPECT_EQ(retained_growth_budget(1124, 1000, 8), 1000u);  // +124 < 125
  EXPECT_EQ(retained_growth_budget(1125, 1000, 8), 1125u);  // +125 = 1000 / 8
  EXPECT_EQ(retained_growth_budget(1124, 1000, 0), 1124u);  // hysteresis off
  EXPECT_EQ(retained_growth_budget(UINT64_MAX, UINT64_MAX - 1, 8), UINT64_MAX - 1);
  EXPECT_EQ(retained_growth_budget(UINT64_MAX, 1, 8), UINT64_MAX);  // 1 / 8 == 0: any gain grows
}

class BackingTest : public SnapshotTest {};

TEST_F(BackingTest, device_backing_allocates_aligned_blocks_and_budgets_under_half_the_device) {
  CuDeviceBacking backing(context_);
  StatusOr<storage::BackingBlock> block = backing.allocate(1);
  ASSERT_TRUE(block.ok()) << block.status().to_string();
  EXPECT_EQ(block->bytes, 1u);
  EXPECT_EQ(block->address % kBackingAlignment, 0u);
  backing.release(*block);

  std::size_t free_bytes = 0;
  std::size_t total = 0;
  ASSERT_CU(cuMemGetInfo(&free_bytes, &total));
  StatusOr<std::uint64_t> budget = backing.budget(0);
  ASSERT_TRUE(budget.ok()) << budget.status().to_string();
  EXPECT_GT(*budget, 0u);
  EXPECT_LE(*budget, total / 2);
}

TEST_F(BackingTest, pinned_backing_maps_host_memory_for_the_device) {
  CuPinnedBacking backing(context_);
  StatusOr<storage::BackingBlock> block = backing.allocate(4097);
  ASSERT_TRUE(block.ok()) << block.status().to_string();
  EXPECT_EQ(block->bytes, 4097u);
  EXPECT_EQ(block->address % kBackingAlignment, 0u);
  ASSERT_NE(block->handle, 0u);
  auto* host = reinterpret_cast<unsigned char*>(block->handle);
  const std::vector<unsigned char> bytes = random_bytes(4097, 9);
  std::memcpy(host, bytes.data(), bytes.size());
  std::vector<unsigned char> read(4097);
  ASSERT_CU(cuMemcpyDtoH(read.data(), block->address, read.size()));  // through the device address
  EXPECT_EQ(first_difference(bytes, read), -1);
  backing.release(*block);
}

TEST_F(BackingTest, pinned_backing_budget_is_half_of_mem_available_plus_retained) {
  char path[] = "/tmp/rangereplay_meminfo_XXXXXX";
  const int fd = mkstemp(path);
  ASSERT_GE(fd, 0);
  const std::string text = "MemTotal:       2048 kB\nMemFree:  100 kB\nMemAvailable:   1000 kB\n";
  ASSERT_EQ(write(fd, text.data(), text.size()), static_cast<ssize_t>(text.size()));
  close(fd);
  CuPinnedBacking backing(context_, kDefaultGrowthDivisor, path);
  EXPECT_EQ(*backing.budget(0), 512000u);
  EXPECT_EQ(*backing.budget(100), 512100u);
  EXPECT_EQ(*backing.budget(4096000), 4608000u);  // a gain of exactly 1/8 grows
  EXPECT_EQ(*backing.budget(4096008), 4096008u);  // a gain just under 1/8 keeps the retained arena
  std::remove(path);
  CuPinnedBacking missing(context_, kDefaultGrowthDivisor, path);
  EXPECT_EQ(missing.budget(0).status().code(), StatusCode::kUnavailable);
}

}  // namespace
}  // namespace rangereplay
