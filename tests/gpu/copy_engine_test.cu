// CopyPlan on a GPU: capture random application bytes into device and pinned
// arenas, scribble over the application's memory, restore, and compare every
// byte (inside and outside the regions, application and arenas) against a
// host model of what the copies must do.
#include <cuda.h>
#include <gtest/gtest.h>

#include "gpu/gpu_stream_test.h"
#include "gpu/gpu_test_bytes.h"

#include <algorithm>
#include <climits>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "cuda/copy_plan.h"
#include "cuda/cu_status.h"
#include "cuda/kernels/launch_count.h"
#include "cuda/owned.h"

namespace rangereplay {
namespace {

// The copy kernel's grid: one block per 8 consecutive items, exact values.
static_assert(kernels::in_order_blocks(0) == 0);
static_assert(kernels::in_order_blocks(1) == 1);
static_assert(kernels::in_order_blocks(8) == 1);
static_assert(kernels::in_order_blocks(9) == 2);
static_assert(kernels::in_order_blocks(std::uint64_t{1} << 20) == 131072);  // 4 GiB of 4 KiB pieces
static_assert(kernels::in_order_blocks((std::uint64_t{1} << 34) - 1) == std::uint64_t{1} << 31);

// How arena offsets relate to application addresses.
enum class Alignment {
  kCongruent,  // arena offset == app offset (mod 16): the 16-byte vector path
  kAny,        // unrelated: every narrow path
};

// How regions are spread over the two arenas of a layout.
enum class Placement {
  kDeviceOnly,  // arena 0 (device)
  kPinnedOnly,  // arena 1 (pinned host)
  kSplit,       // each region's prefix in arena 0, the rest in arena 1
};

struct Region {
  std::uint64_t app_offset;
  std::uint64_t bytes;
};

// Spans relative to the buffers' starts (made absolute once allocated).
struct Layout {
  std::uint64_t app_bytes = 0;
  std::uint64_t arena_bytes[2] = {0, 0};
  std::vector<CopySpan> spans[2];  // app_address holds an offset here
};

using gpu_test::random_bytes;

// `count` regions of 0..max_bytes bytes (0 and 1 included) at odd offsets
// with gaps, one after another in a single application buffer.
std::vector<Region> random_regions(std::size_t count, std::uint64_t max_bytes, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<Region> regions;
  std::uint64_t at = rng() % 16;
  for (std::size_t i = 0; i < count; ++i) {
    std::uint64_t bytes = rng() % (max_bytes + 1);
    if (count > 2 && i % 31 == 0) bytes = 0;
    if (count > 2 && i % 29 == 1) bytes = 1;
    regions.push_back({at, bytes});
    at += bytes + 1 + rng() % 48;
  }
  return regions;
}

Layout make_layout(const std::vector<Region>& regions, Alignment alignment, Placement placement, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  Layout layout;
  std::uint64_t cursor[2] = {rng() % 7, rng() % 7};
  auto place = [&](int arena, std::uint64_t app_offset, std::uint64_t bytes) {
    std::uint64_t off = cursor[arena] + rng() % 24;
    if (alignment == Alignment::kCongruent) off += (app_offset - off) & 15;
    layout.spans[arena].push_back({DevicePtr(app_offset), off, bytes});
    cursor[arena] = off + bytes;
  };
  for (const Region& r : regions) {
    layout.app_bytes = std::max(layout.app_bytes, r.app_offset + r.bytes);
    switch (placement) {
      case Placement::kDeviceOnly: place(0, r.app_offset, r.bytes); break;
      case Placement::kPinnedOnly: place(1, r.app_offset, r.bytes); break;
      case Placement::kSplit: {
        const std::uint64_t prefix = r.bytes == 0 ? 0 : rng() % (r.bytes + 1);
        place(0, r.app_offset, prefix);
        place(1, r.app_offset + prefix, r.bytes - prefix);
        break;
      }
    }
  }
  layout.app_bytes += 64;
  for (int a = 0; a < 2; ++a) layout.arena_bytes[a] = cursor[a] + 64;
  return layout;
}

// Index of the first byte where a and b differ, or -1.
long long first_difference(const std::vector<unsigned char>& a, const unsigned char* b) {
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (a[i] != b[i]) return static_cast<long long>(i);
  }
  return -1;
}

// A layout's memory: the application buffer, the device arena and the mapped
// pinned arena, freed on every return.
struct LayoutMemory {
  cu::DeviceBuffer app;
  cu::DeviceBuffer device_arena;
  cu::PinnedBuffer pinned;
  CUdeviceptr pinned_arena = 0;

  static StatusOr<LayoutMemory> allocate(const Layout& layout) {
    LayoutMemory memory;
    RR_ASSIGN_OR_RETURN(memory.app, cu::allocate_device(layout.app_bytes));
    RR_ASSIGN_OR_RETURN(memory.device_arena, cu::allocate_device(layout.arena_bytes[0]));
    RR_ASSIGN_OR_RETURN(memory.pinned, cu::allocate_pinned(layout.arena_bytes[1], CU_MEMHOSTALLOC_DEVICEMAP));
    RR_CU(cuMemHostGetDevicePointer(&memory.pinned_arena, memory.pinned.get(), 0));
    return StatusOr<LayoutMemory>(std::move(memory));
  }
  // A plan's arenas: the layout's spans at the application buffer's address.
  std::vector<ArenaCopyList> arenas(const Layout& layout) const {
    std::vector<ArenaCopyList> out(2);
    out[0] = {ArenaKind::kDevice, device_arena.get(), layout.arena_bytes[0], {}};
    out[1] = {ArenaKind::kPinnedHost, pinned_arena, layout.arena_bytes[1], {}};
    for (int a = 0; a < 2; ++a) {
      for (const CopySpan& s : layout.spans[a]) {
        out[a].spans.push_back({DevicePtr(app.get() + s.app_address.address()), s.arena_offset, s.bytes});
      }
    }
    return out;
  }
};

class CopyPlanTest : public rangereplay::gpu_test::GpuStreamTest {
 protected:
  // Captures, scribbles, restores twice, checking every byte each time.
  void round_trip(const Layout& layout, const CopyPlanOptions& options, CUstream stream) {
    SCOPED_TRACE("regions: " + std::to_string(layout.spans[0].size()) + " + " + std::to_string(layout.spans[1].size()) +
                 ", piece " + std::to_string(options.piece_bytes) +
                 (options.pinned_method == PinnedCopyMethod::kCopyEngine ? ", copy engines" : ", mapped kernel") +
                 (options.streaming_cache_hints ? ", streaming hints" : "") +
                 (options.device_by_copy_engines ? ", device arenas by the copy engines" : ""));
    StatusOr<LayoutMemory> memory = LayoutMemory::allocate(layout);
    ASSERT_TRUE(memory.ok()) << memory.status().to_string();
    const CUdeviceptr app = memory->app.get();
    const CUdeviceptr device_arena = memory->device_arena.get();
    auto* pinned = static_cast<unsigned char*>(memory->pinned.get());

    const std::vector<unsigned char> app_init = random_bytes(layout.app_bytes, 1);
    std::vector<unsigned char> device_model = random_bytes(layout.arena_bytes[0], 2);
    std::vector<unsigned char> pinned_model = random_bytes(layout.arena_bytes[1], 3);
    ASSERT_CU(cuMemcpyHtoD(app, app_init.data(), app_init.size()));
    ASSERT_CU(cuMemcpyHtoD(device_arena, device_model.data(), device_model.size()));
    std::memcpy(pinned, pinned_model.data(), pinned_model.size());
    // A pageable cuMemcpyHtoD may return before its DMA lands, and the legacy
    // stream does not order the non-blocking test stream: wait for it.
    ASSERT_CU(cuCtxSynchronize());

    const std::vector<ArenaCopyList> arenas = memory->arenas(layout);
    for (int a = 0; a < 2; ++a) {
      for (const CopySpan& s : layout.spans[a]) {
        std::vector<unsigned char>& model = a == 0 ? device_model : pinned_model;
        std::copy_n(app_init.begin() + static_cast<long>(s.app_address.address()), s.bytes,
                    model.begin() + static_cast<long>(s.arena_offset));
      }
    }

    {
      StatusOr<CopyPlan> plan = CopyPlan::create(arenas, options, stream);
      ASSERT_TRUE(plan.ok()) << plan.status().to_string();

      // Capture: each arena holds the regions' bytes, its other bytes untouched.
      ASSERT_TRUE(plan->capture(stream).ok());
      ASSERT_CU(cuStreamSynchronize(stream));
      std::vector<unsigned char> got(layout.arena_bytes[0]);
      ASSERT_CU(cuMemcpyDtoH(got.data(), device_arena, got.size()));
      EXPECT_EQ(first_difference(device_model, got.data()), -1) << "device arena after capture";
      EXPECT_EQ(first_difference(pinned_model, pinned), -1) << "pinned arena after capture";

      // Restore over two different scribbles: regions come back, gaps keep the scribble.
      for (std::uint64_t pass = 0; pass < 2; ++pass) {
        std::vector<unsigned char> app_model = random_bytes(layout.app_bytes, 10 + pass);
        ASSERT_CU(cuMemcpyHtoD(app, app_model.data(), app_model.size()));
        ASSERT_CU(cuCtxSynchronize());
        for (int a = 0; a < 2; ++a) {
          for (const CopySpan& s : layout.spans[a]) {
            std::copy_n(app_init.begin() + static_cast<long>(s.app_address.address()), s.bytes,
                        app_model.begin() + static_cast<long>(s.app_address.address()));
          }
        }
        ASSERT_TRUE(plan->restore(stream).ok());
        ASSERT_CU(cuStreamSynchronize(stream));
        std::vector<unsigned char> app_now(layout.app_bytes);
        ASSERT_CU(cuMemcpyDtoH(app_now.data(), app, app_now.size()));
        EXPECT_EQ(first_difference(app_model, app_now.data()), -1) << "application memory after restore " << pass;
      }
    }  // the plan is destroyed before its buffers
  }

  // On the test's stream.
  void round_trip(const Layout& layout, const CopyPlanOptions& options = {}) { round_trip(layout, options, stream_); }
};

CopyPlanOptions mapped_kernel() {
  CopyPlanOptions options;
  options.pinned_method = PinnedCopyMethod::kMappedKernel;
  return options;
}

TEST_F(CopyPlanTest, one_region_at_an_odd_address_round_trips) {
  const std::vector<Region> regions = {{3, (std::uint64_t{1} << 20) + 13}};
  round_trip(make_layout(regions, Alignment::kCongruent, Placement::kDeviceOnly, 1));
}

TEST_F(CopyPlanTest, one_large_region_round_trips) {
  const std::vector<Region> regions = {{256, (std::uint64_t{64} << 20) + 7}};
  round_trip(make_layout(regions, Alignment::kCongruent, Placement::kDeviceOnly, 2));
}

TEST_F(CopyPlanTest, one_region_whose_arena_offset_is_misaligned_round_trips) {
  // Arena offsets congruent to the app offset modulo 8, 4, 2 and 1 only.
  for (std::uint64_t misalign : {8u, 4u, 2u, 1u, 3u}) {
    SCOPED_TRACE("arena offset " + std::to_string(misalign));
    Layout layout;
    layout.app_bytes = 70000;
    layout.arena_bytes[0] = 70000 + 64;
    layout.arena_bytes[1] = 64;
    layout.spans[0].push_back({DevicePtr(16), 32 + misalign, 69001});
    round_trip(layout);
  }
}

TEST_F(CopyPlanTest, every_head_and_tail_combination_round_trips) {
  // All 16 x 16 alignments of app address and arena offset, with lengths
  // 0..40 and around one piece.
  Layout layout;
  std::uint64_t app = 0;
  std::uint64_t arena = 0;
  const std::uint64_t lengths[] = {0, 1, 2, 3, 7, 8, 15, 16, 17, 31, 32, 33, 40, 4095, 4096, 4097, 8193};
  for (std::uint64_t a = 0; a < 16; ++a) {
    for (std::uint64_t b = 0; b < 16; ++b) {
      for (std::uint64_t len : lengths) {
        app = (app + 64) / 16 * 16 + a;
        arena = (arena + 48) / 16 * 16 + b;
        layout.spans[0].push_back({DevicePtr(app), arena, len});
        app += len;
        arena += len;
      }
    }
  }
  layout.app_bytes = app + 64;
  layout.arena_bytes[0] = arena + 64;
  layout.arena_bytes[1] = 64;
  round_trip(layout);
}

TEST_F(CopyPlanTest, sixty_four_regions_of_odd_sizes_round_trip) {
  const std::vector<Region> regions = random_regions(64, 300000, 64);
  round_trip(make_layout(regions, Alignment::kCongruent, Placement::kDeviceOnly, 3));
  round_trip(make_layout(regions, Alignment::kAny, Placement::kDeviceOnly, 4));
}

TEST_F(CopyPlanTest, four_thousand_regions_of_odd_sizes_round_trip) {
  const std::vector<Region> regions = random_regions(4096, 20000, 4096);
  round_trip(make_layout(regions, Alignment::kCongruent, Placement::kDeviceOnly, 5));
  round_trip(make_layout(regions, Alignment::kAny, Placement::kDeviceOnly, 6));
}

TEST_F(CopyPlanTest, piece_sizes_and_cache_hints_round_trip) {
  const std::vector<Region> regions = random_regions(500, 70000, 500);
  const Layout layout = make_layout(regions, Alignment::kCongruent, Placement::kDeviceOnly, 7);
  for (std::uint32_t piece : {16u, 1024u, 4096u, 65536u}) {
    for (bool streaming : {false, true}) {
      CopyPlanOptions options;
      options.piece_bytes = piece;
      options.streaming_cache_hints = streaming;
      round_trip(layout, options);
    }
  }
}

TEST_F(CopyPlanTest, pinned_tier_round_trips_through_the_copy_engines) {
  const std::vector<Region> regions = random_regions(64, 100000, 65);
  round_trip(make_layout(regions, Alignment::kAny, Placement::kPinnedOnly, 8));
}

TEST_F(CopyPlanTest, pinned_tier_takes_several_batches_past_the_batch_limit) {
  // About 2.2 kMaxCopyEngineBatch non-empty spans (every 31st is empty): three
  // cuMemcpyBatchAsync calls per pass, the last one partial.
  const std::vector<Region> regions = random_regions(2 * kMaxCopyEngineBatch + 300, 3000, 2348);
  round_trip(make_layout(regions, Alignment::kAny, Placement::kPinnedOnly, 13), CopyPlanOptions{}, stream_);
}

TEST_F(CopyPlanTest, device_arenas_round_trip_through_the_copy_engines_alone) {
  CopyPlanOptions engines;
  engines.device_by_copy_engines = true;
  round_trip(make_layout(random_regions(64, 100000, 68), Alignment::kAny, Placement::kDeviceOnly, 14), engines);
  // Device and pinned spans mixed, each span its own cuMemcpyAsync.
  round_trip(make_layout(random_regions(1000, 30000, 1001), Alignment::kCongruent, Placement::kSplit, 15), engines);
  // More spans than one batch call would take, device and pinned alternating.
  round_trip(
      make_layout(random_regions(2 * kMaxCopyEngineBatch + 300, 3000, 2349), Alignment::kAny, Placement::kSplit, 16),
      engines);
}

TEST_F(CopyPlanTest, pinned_tier_round_trips_through_the_mapped_kernel) {
  const std::vector<Region> regions = random_regions(64, 100000, 66);
  round_trip(make_layout(regions, Alignment::kCongruent, Placement::kPinnedOnly, 9), mapped_kernel());
  round_trip(make_layout(regions, Alignment::kAny, Placement::kPinnedOnly, 10), mapped_kernel());
}

TEST_F(CopyPlanTest, mixed_plans_with_regions_split_across_tiers_round_trip) {
  const std::vector<Region> regions = random_regions(1000, 30000, 1000);
  const Layout layout = make_layout(regions, Alignment::kCongruent, Placement::kSplit, 11);
  round_trip(layout);
  round_trip(layout, mapped_kernel());
}

TEST_F(CopyPlanTest, mixed_plan_runs_on_the_legacy_default_stream) {
  // cuMemcpyBatchAsync refuses the legacy stream; the plan forks onto its own.
  const std::vector<Region> regions = random_regions(64, 30000, 67);
  const Layout layout = make_layout(regions, Alignment::kCongruent, Placement::kSplit, 12);
  round_trip(layout, CopyPlanOptions{}, nullptr);
}

TEST_F(CopyPlanTest, kernel_round_trips_grids_that_end_mid_block) {
  // Item counts around one and two blocks of 8 (4 KiB pieces): a last block
  // whose warps past the stream's end exit at once, partial and narrow items
  // among full ones, a 1-byte region and a region of 1-byte-aligned bytes.
  for (std::uint64_t items : {1u, 2u, 7u, 8u, 9u, 15u, 16u, 17u}) {
    SCOPED_TRACE("items " + std::to_string(items));
    Layout layout;
    std::uint64_t app = 3;
    std::uint64_t arena = 3;
    for (std::uint64_t i = 0; i < items; ++i) {
      const std::uint64_t bytes = i == 5 ? 1 : i % 3 == 2 ? 4096 - 9 : 4096;  // one item each
      const std::uint64_t skew = i % 4 == 3 ? 1 : 0;                          // items 3, 7, ...: 1-byte vectors
      layout.spans[0].push_back({DevicePtr(app), arena + skew, bytes});
      app += bytes + 16 + i;
      arena += bytes + 16 + i;  // >= skew past the span's end
    }
    layout.app_bytes = app + 64;
    layout.arena_bytes[0] = arena + 64;
    layout.arena_bytes[1] = 64;
    round_trip(layout, CopyPlanOptions{}, stream_);
  }
}

TEST(CopyKernelInOrder, grid_is_one_block_per_eight_items) {
  EXPECT_EQ(kernels::in_order_grid(0).value(), 1);
  EXPECT_EQ(kernels::in_order_grid(8).value(), 1);
  EXPECT_EQ(kernels::in_order_grid(9).value(), 2);
  EXPECT_EQ(kernels::in_order_grid(std::uint64_t{1} << 20).value(), 131072);
  EXPECT_EQ(kernels::in_order_grid((std::uint64_t{1} << 34) - 8).value(), INT_MAX);
  EXPECT_EQ(kernels::in_order_grid(std::uint64_t{1} << 34).status().code(), StatusCode::kInvalidArgument);
}

TEST_F(CopyPlanTest, empty_plan_does_nothing) {
  std::vector<ArenaCopyList> arenas(1);
  arenas[0].spans.push_back({DevicePtr(0x1000), 0, 0});  // empty span, no base needed
  StatusOr<CopyPlan> plan = CopyPlan::create(arenas, {}, stream_);
  ASSERT_TRUE(plan.ok()) << plan.status().to_string();
  EXPECT_EQ(plan->stats().total_bytes, 0u);
  EXPECT_EQ(plan->stats().grid_blocks, 0);
  EXPECT_TRUE(plan->capture(stream_).ok());
  EXPECT_TRUE(plan->restore(stream_).ok());
  ASSERT_CU(cuStreamSynchronize(stream_));
}

TEST_F(CopyPlanTest, a_moved_plan_still_copies_and_the_moved_from_one_fails) {
  const std::vector<Region> regions = random_regions(64, 30000, 68);
  const Layout layout = make_layout(regions, Alignment::kCongruent, Placement::kSplit, 14);
  StatusOr<LayoutMemory> memory = LayoutMemory::allocate(layout);
  ASSERT_TRUE(memory.ok()) << memory.status().to_string();
  const CUdeviceptr app = memory->app.get();
  const std::vector<ArenaCopyList> arenas = memory->arenas(layout);
  const std::vector<unsigned char> entry = random_bytes(layout.app_bytes, 15);
  ASSERT_CU(cuMemcpyHtoD(app, entry.data(), entry.size()));
  ASSERT_CU(cuCtxSynchronize());  // the legacy stream does not order the test's stream
  {
    StatusOr<CopyPlan> built = CopyPlan::create(arenas, {}, stream_);
    ASSERT_TRUE(built.ok()) << built.status().to_string();
    CopyPlan plan(std::move(built).value());
    StatusOr<CopyPlan> other = CopyPlan::create(arenas, {}, stream_);
    ASSERT_TRUE(other.ok()) << other.status().to_string();
    CopyPlan moved = std::move(other).value();
    moved = std::move(plan);  // frees the plan it replaces, after its upload
    EXPECT_EQ(plan.capture(stream_).code(), StatusCode::kFailedPrecondition);
    EXPECT_EQ(plan.restore(stream_).code(), StatusCode::kFailedPrecondition);
    EXPECT_TRUE(plan.items().empty());
    EXPECT_EQ(plan.kernel_args(kernels::CopyDirection::kRestore).item_count, 0u);
    EXPECT_GT(moved.items().size(), 0u);
    EXPECT_GT(moved.stats().copy_engine_spans, 0u);
    ASSERT_TRUE(moved.capture(stream_).ok());
    ASSERT_CU(cuStreamSynchronize(stream_));
    const std::vector<unsigned char> scribble = random_bytes(layout.app_bytes, 16);
    ASSERT_CU(cuMemcpyHtoD(app, scribble.data(), scribble.size()));
    ASSERT_CU(cuCtxSynchronize());
    ASSERT_TRUE(moved.restore(stream_).ok());
    ASSERT_CU(cuStreamSynchronize(stream_));
    std::vector<unsigned char> app_now(layout.app_bytes);
    ASSERT_CU(cuMemcpyDtoH(app_now.data(), app, app_now.size()));
    // The regions' bytes are back to the entry state; the gaps keep the scribble.
    std::vector<unsigned char> expected = scribble;
    for (int a = 0; a < 2; ++a) {
      for (const CopySpan& span : layout.spans[a]) {
        const auto at = static_cast<long>(span.app_address.address());
        std::copy_n(entry.begin() + at, span.bytes, expected.begin() + at);
      }
    }
    EXPECT_EQ(first_difference(expected, app_now.data()), -1);
  }  // the plans are destroyed before the memory
}

TEST_F(CopyPlanTest, reports_what_each_path_moves) {
  CUdeviceptr app = 0;
  CUdeviceptr arena = 0;
  ASSERT_CU(cuMemAlloc(&app, 1 << 20));
  ASSERT_CU(cuMemAlloc(&arena, 1 << 20));
  std::vector<ArenaCopyList> arenas(1);
  arenas[0].base = arena;
  arenas[0].bytes = 1 << 20;
  arenas[0].spans = {{DevicePtr(app), 0, 5000}, {DevicePtr(app + 8192), 8200, 100}};
  {
    StatusOr<CopyPlan> plan = CopyPlan::create(arenas, {}, stream_);
    ASSERT_TRUE(plan.ok()) << plan.status().to_string();
    EXPECT_EQ(plan->stats().total_bytes, 5100u);
    EXPECT_EQ(plan->stats().kernel_bytes, 5100u);
    EXPECT_EQ(plan->stats().copy_engine_bytes, 0u);
    EXPECT_EQ(plan->stats().kernel_items, 3u);
    EXPECT_EQ(plan->stats().narrow_items, 1u);  // 8192 vs 8200 differ modulo 16
    EXPECT_EQ(plan->stats().grid_blocks, 1);    // 3 items, 8 per block
    ASSERT_EQ(plan->items().size(), 3u);
    EXPECT_EQ(plan->items()[2], WorkItem::make(app + 8192, 8200, 0, 100));
    const kernels::CopyKernelArgs args = plan->kernel_args(kernels::CopyDirection::kCapture);
    EXPECT_EQ(args.item_count, 3u);
    EXPECT_NE(args.items, 0u);
    EXPECT_EQ(args.arena_base[0], arena);
    EXPECT_EQ(args.direction, kernels::CopyDirection::kCapture);
  }
  {
    CopyPlanOptions engines;
    engines.device_by_copy_engines = true;
    StatusOr<CopyPlan> plan = CopyPlan::create(arenas, engines, stream_);
    ASSERT_TRUE(plan.ok()) << plan.status().to_string();
    EXPECT_EQ(plan->stats().total_bytes, 5100u);
    EXPECT_EQ(plan->stats().kernel_bytes, 0u);
    EXPECT_EQ(plan->stats().copy_engine_bytes, 5100u);
    EXPECT_EQ(plan->stats().copy_engine_spans, 2u);
    EXPECT_FALSE(plan->stats().copy_engine_batched);  // one cuMemcpyAsync per span
    EXPECT_EQ(plan->stats().kernel_items, 0u);
    EXPECT_EQ(plan->stats().grid_blocks, 0);
    EXPECT_TRUE(plan->items().empty());
    const std::uint64_t launches = kernels::tool_kernel_launches();
    ASSERT_TRUE(plan->capture(stream_).ok());
    ASSERT_TRUE(plan->restore(stream_).ok());
    EXPECT_EQ(kernels::tool_kernel_launches(), launches);
    ASSERT_CU(cuStreamSynchronize(stream_));
  }
  EXPECT_CU(cuMemFree(app));
  EXPECT_CU(cuMemFree(arena));
}

TEST_F(CopyPlanTest, rejects_spans_past_the_arena_and_overlapping_spans) {
  std::vector<ArenaCopyList> arenas(1);
  arenas[0].base = 0x100000;  // never dereferenced: creation fails first
  arenas[0].bytes = 1000;
  arenas[0].spans = {{DevicePtr(0x200000), 900, 101}};
  StatusOr<CopyPlan> past = CopyPlan::create(arenas, {}, stream_);
  ASSERT_FALSE(past.ok());
  EXPECT_EQ(past.status().code(), StatusCode::kOutOfRange);

  arenas[0].spans = {{DevicePtr(0x200000), 0, 100}, {DevicePtr(0x200050), 200, 100}};
  StatusOr<CopyPlan> overlap = CopyPlan::create(arenas, {}, stream_);
  ASSERT_FALSE(overlap.ok());
  EXPECT_EQ(overlap.status().code(), StatusCode::kInvalidArgument);
}

TEST_F(CopyPlanTest, rejects_more_than_four_kernel_copied_arenas) {
  std::vector<ArenaCopyList> arenas(5);
  for (std::size_t a = 0; a < arenas.size(); ++a) {
    arenas[a].base = 0x100000 * (a + 1);
    arenas[a].bytes = 100;
    arenas[a].spans = {{DevicePtr(0x10000000 + 0x1000 * a), 0, 100}};
  }
  StatusOr<CopyPlan> plan = CopyPlan::create(arenas, {}, stream_);
  ASSERT_FALSE(plan.ok());
  EXPECT_EQ(plan.status().code(), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace rangereplay
