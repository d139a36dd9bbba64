// DigestPlan on a GPU: chunk digests equal the host reference (unaligned
// chunk starts, short tails, every cluster size); differential restore finds
// and restores exactly the chunks with planted single-byte changes, restores
// nothing after a range that wrote nothing, and leaves memory identical to a
// full restore; the predicted and trusted-digest modes; exit capture of only
// the changed chunks and the restore to the exit state. Every test that
// restores runs once per copy variant (DigestPlanOptions::copy_variant: the
// cluster's slices, and the in-order chunk copy launch), and a restore in one
// launch (RestoreLaunches::kOne) moves the same chunks under either.
#include <cuda.h>
#include <gtest/gtest.h>

#include "gpu/gpu_stream_test.h"
#include "gpu/gpu_test_bytes.h"

#include <algorithm>
#include <cstring>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "core/snapshot/digest/chunk_digest.h"
#include "cuda/digest_plan.h"
#include "cuda/kernels/launch_count.h"

namespace rangereplay {
namespace {

using gpu_test::first_difference;
using gpu_test::random_bytes;
using kernels::DigestCopyVariant;

constexpr std::uint64_t kMiB = std::uint64_t{1} << 20;

// A region as an offset into the test's application buffer.
struct Span {
  std::uint64_t offset;
  std::uint64_t bytes;
};

// An application buffer and a snapshot buffer of the same size; region i's
// snapshot copy sits at the same offset plus `snapshot_shift` in the snapshot
// buffer (so 0 keeps both congruent modulo 16).
class Buffers {
 public:
  Buffers(std::uint64_t bytes, std::uint64_t snapshot_shift) : bytes_(bytes), shift_(snapshot_shift) {
    ok_ = cuMemAlloc(&app_, bytes) == CUDA_SUCCESS && cuMemAlloc(&snapshot_, bytes + snapshot_shift) == CUDA_SUCCESS;
  }
  ~Buffers() {
    if (app_ != 0) (void)cuMemFree(app_);
    if (snapshot_ != 0) (void)cuMemFree(snapshot_);
  }
  Buffers(const Buffers&) = delete;
  Buffers& operator=(const Buffers&) = delete;

  bool ok() const { return ok_; }
  CUdeviceptr snapshot() const { return snapshot_; }

  std::vector<DigestRegion> regions(const std::vector<Span>& spans, bool with_snapshot = true) const {
    std::vector<DigestRegion> out;
    for (const Span& s : spans) {
      out.push_back({MemoryRange(DevicePtr(app_ + s.offset), s.bytes),
                     with_snapshot ? DevicePtr(snapshot_ + shift_ + s.offset) : DevicePtr()});
    }
    return out;
  }
  // Uploads `data` to the application and copies it into the snapshot (the
  // entry state). Every host-side access first waits for the whole context:
  // the plan's work runs on a non-blocking stream the legacy stream does not
  // order.
  CUresult set_entry(const std::vector<unsigned char>& data) const {
    CUresult r = cuCtxSynchronize();
    if (r == CUDA_SUCCESS) r = cuMemcpyHtoD(app_, data.data(), data.size());
    if (r == CUDA_SUCCESS) r = cuMemcpyHtoD(snapshot_ + shift_, data.data(), data.size());
    if (r == CUDA_SUCCESS) r = cuCtxSynchronize();
    return r;
  }
  CUresult upload(const std::vector<unsigned char>& data) const {
    CUresult r = cuCtxSynchronize();
    if (r == CUDA_SUCCESS) r = cuMemcpyHtoD(app_, data.data(), data.size());
    return r == CUDA_SUCCESS ? cuCtxSynchronize() : r;
  }
  std::vector<unsigned char> download() const {
    std::vector<unsigned char> out(bytes_);
    EXPECT_CU(cuCtxSynchronize());
    EXPECT_CU(cuMemcpyDtoH(out.data(), app_, bytes_));
    return out;
  }

 private:
  std::uint64_t bytes_;
  std::uint64_t shift_;
  CUdeviceptr app_ = 0;
  CUdeviceptr snapshot_ = 0;
  bool ok_ = false;
};

// Offset of chunk c in the application buffer.
std::uint64_t chunk_offset(const DigestPlan& plan, const std::vector<Span>& spans, std::size_t c) {
  const DigestChunk& chunk = plan.table().chunks()[c];
  return spans[chunk.region].offset + chunk.offset;
}

std::uint64_t bytes_of(const DigestPlan& plan, const std::set<std::size_t>& chunks) {
  std::uint64_t sum = 0;
  for (std::size_t c : chunks) sum += plan.table().chunks()[c].bytes;
  return sum;
}

std::set<std::size_t> flagged(const DigestPlan& plan) {
  std::set<std::size_t> out;
  for (std::size_t c = 0; c < plan.host_dirty().size(); ++c) {
    if (plan.host_dirty()[c] != 0) out.insert(c);
  }
  return out;
}

// Flips one random byte (never to its own value) in each chunk of `chunks`,
// in `memory` (the host copy of the application buffer).
void plant(const DigestPlan& plan, const std::vector<Span>& spans, const std::set<std::size_t>& chunks,
           std::vector<unsigned char>& memory, std::mt19937_64& rng) {
  for (std::size_t c : chunks) {
    const std::uint32_t bytes = plan.table().chunks()[c].bytes;
    // First byte, last byte, or a random one.
    const std::uint64_t pick = rng() % 3;
    const std::uint64_t at = pick == 0 ? 0 : pick == 1 ? bytes - 1 : rng() % bytes;
    memory[chunk_offset(plan, spans, c) + at] ^= static_cast<unsigned char>(1 + rng() % 255);
  }
}

std::set<std::size_t> random_chunks(std::size_t chunk_count, std::size_t how_many, std::mt19937_64& rng) {
  std::set<std::size_t> out;
  while (out.size() < std::min(how_many, chunk_count)) out.insert(rng() % chunk_count);
  return out;
}

class DigestPlanTest : public rangereplay::gpu_test::GpuStreamTest {
 protected:
  StatusOr<DigestPlan> make_plan(const std::vector<DigestRegion>& regions, std::uint64_t chunk_bytes,
                                 std::uint32_t cluster_blocks = 0) {
    DigestPlanOptions options;
    options.chunk_bytes = chunk_bytes;
    options.cluster_blocks = cluster_blocks;
    options.copy_variant = copy_variant_;
    StatusOr<DigestPlan> plan = DigestPlan::create(regions, options, stream_);
    if (plan.ok()) EXPECT_EQ(plan->stats().copy_variant, copy_variant_);
    return plan;
  }

  void sync() { ASSERT_CU(cuStreamSynchronize(stream_)); }

  DigestCopyVariant copy_variant_ = DigestCopyVariant::kClusterSlice;
};

// The tests that restore: once per copy variant.
class DigestRestoreTest : public DigestPlanTest, public ::testing::WithParamInterface<DigestCopyVariant> {
 protected:
  void SetUp() override {
    DigestPlanTest::SetUp();
    copy_variant_ = GetParam();
  }
};

INSTANTIATE_TEST_SUITE_P(CopyVariants, DigestRestoreTest,
                         ::testing::Values(DigestCopyVariant::kClusterSlice, DigestCopyVariant::kWarpPerPieceInOrder),
                         [](const ::testing::TestParamInfo<DigestCopyVariant>& info) {
                           return std::string(kernels::copy_variant_name(info.param));
                         });

// Regions at every alignment modulo 16, with short tails, 1-byte and empty regions.
std::vector<Span> odd_spans() {
  return {
      {0, 5000},                      // aligned, one short chunk
      {16 * 1000 + 1, 1},             // one byte at an odd address
      {20017, 4096 * 3 + 3},          // odd start, tail of 3
      {40008, 70000},                 // 8-byte aligned
      {120004, 33333},                // 4-byte aligned
      {160002, 100},                  // 2-byte aligned
      {170001, 0},                    // empty
      {170101, 15},                   // under one word
      {170200, 16},                   // exactly one word
      {170300, 17},                   // one word and one byte
      {3 * kMiB + 16, 2 * kMiB + 5},  // large, aligned
      {5 * kMiB + 100, kMiB + 3},     // large, 4-byte aligned
  };
}
constexpr std::uint64_t kOddBytes = 6 * kMiB + 256;

TEST_F(DigestPlanTest, chunk_digests_match_the_host_reference_at_any_alignment_and_cluster_size) {
  Buffers buffers(kOddBytes, 0);
  ASSERT_TRUE(buffers.ok());
  const std::vector<unsigned char> data = random_bytes(kOddBytes, 1);
  ASSERT_CU(buffers.upload(data));
  const std::vector<Span> spans = odd_spans();
  for (std::uint64_t chunk_bytes : {std::uint64_t{4096}, std::uint64_t{65552}, kMiB}) {
    for (std::uint32_t cluster : {0u, 1u, 2u, 4u, 8u}) {
      SCOPED_TRACE("chunk " + std::to_string(chunk_bytes) + ", cluster " + std::to_string(cluster));
      StatusOr<DigestPlan> plan = make_plan(buffers.regions(spans, false), chunk_bytes, cluster);
      ASSERT_TRUE(plan.ok()) << plan.status().to_string();
      if (cluster != 0) EXPECT_EQ(plan->stats().cluster_blocks, cluster);
      ASSERT_OK(plan->digest(stream_));
      sync();
      const std::vector<DigestChunk>& chunks = plan->table().chunks();
      ASSERT_EQ(plan->host_digests().size(), chunks.size());
      std::vector<std::uint64_t> expected(chunks.size());
      for (std::size_t c = 0; c < chunks.size(); ++c) {
        expected[c] = chunk_digest_reference(data.data() + chunk_offset(*plan, spans, c), chunks[c].bytes);
        EXPECT_EQ(plan->host_digests()[c], expected[c]) << "chunk " << c << " of region " << chunks[c].region;
      }
      EXPECT_EQ(plan->region_digests(plan->host_digests()), plan->table().region_digests(expected));

      // The entry digests are the same function.
      ASSERT_OK(plan->digest_entry(stream_));
      ASSERT_OK(plan->read_back(stream_));
      sync();
      for (std::size_t c = 0; c < chunks.size(); ++c) EXPECT_EQ(plan->host_entry_digests()[c], expected[c]);
    }
  }
}

TEST_F(DigestPlanTest, a_moved_plan_keeps_its_buffers_and_the_moved_from_one_fails) {
  Buffers buffers(kOddBytes, 0);
  ASSERT_TRUE(buffers.ok());
  const std::vector<unsigned char> data = random_bytes(kOddBytes, 21);
  ASSERT_CU(buffers.upload(data));
  const std::vector<Span> spans = odd_spans();
  StatusOr<DigestPlan> built = make_plan(buffers.regions(spans, false), 4096, 0);
  ASSERT_TRUE(built.ok()) << built.status().to_string();
  DigestPlan plan(std::move(built).value());
  // Move-assigned over a live plan: that plan's buffers are freed, this one's kept.
  StatusOr<DigestPlan> other = make_plan(buffers.regions(spans, false), kMiB, 0);
  ASSERT_TRUE(other.ok()) << other.status().to_string();
  DigestPlan moved = std::move(other).value();
  moved = std::move(plan);
  EXPECT_EQ(plan.digest(stream_).code(), StatusCode::kFailedPrecondition);
  EXPECT_EQ(plan.read_back(stream_).code(), StatusCode::kFailedPrecondition);
  EXPECT_TRUE(plan.host_digests().empty());
  ASSERT_OK(moved.digest(stream_));
  sync();
  const std::vector<DigestChunk>& chunks = moved.table().chunks();
  ASSERT_EQ(moved.host_digests().size(), chunks.size());
  ASSERT_GT(chunks.size(), 1u);
  for (std::size_t c = 0; c < chunks.size(); ++c) {
    EXPECT_EQ(moved.host_digests()[c],
              chunk_digest_reference(data.data() + chunk_offset(moved, spans, c), chunks[c].bytes))
        << "chunk " << c;
  }
}

TEST_F(DigestPlanTest, digests_of_large_random_regions_match_the_host_reference) {
  const std::vector<Span> spans = {{0, 40 * kMiB + 12345}, {41 * kMiB, 7 * kMiB}};
  const std::uint64_t total = 48 * kMiB;
  Buffers buffers(total, 0);
  ASSERT_TRUE(buffers.ok());
  const std::vector<unsigned char> data = random_bytes(total, 2);
  ASSERT_CU(buffers.upload(data));
  StatusOr<DigestPlan> plan = make_plan(buffers.regions(spans, false), kMiB);
  ASSERT_TRUE(plan.ok()) << plan.status().to_string();
  EXPECT_EQ(plan->stats().cluster_blocks, 8u);
  EXPECT_EQ(plan->stats().chunk_count, 41u + 7u);
  ASSERT_OK(plan->digest(stream_));
  sync();
  for (std::size_t c = 0; c < plan->table().chunk_count(); ++c) {
    const std::uint32_t bytes = plan->table().chunks()[c].bytes;
    EXPECT_EQ(plan->host_digests()[c], chunk_digest_reference(data.data() + chunk_offset(*plan, spans, c), bytes))
        << "chunk " << c;
  }
}

// Entry state, then rounds of planted single-byte changes in random chunks,
// each followed by a differential restore.
void planted_changes_round_trip(CUstream stream, DigestCopyVariant variant, std::uint64_t chunk_bytes,
                                std::uint32_t cluster, std::uint64_t snapshot_shift, int rounds) {
  const std::vector<Span> spans = {
      {0, 16 * kMiB}, {16 * kMiB + 256, 5 * kMiB + 77}, {22 * kMiB + 3, 1}, {22 * kMiB + 64, 3000}};
  const std::uint64_t total = 23 * kMiB;
  Buffers buffers(total, snapshot_shift);
  ASSERT_TRUE(buffers.ok());
  const std::vector<unsigned char> entry = random_bytes(total, 3);
  ASSERT_CU(buffers.set_entry(entry));
  DigestPlanOptions options;
  options.chunk_bytes = chunk_bytes;
  options.cluster_blocks = cluster;
  options.copy_variant = variant;
  StatusOr<DigestPlan> plan = DigestPlan::create(buffers.regions(spans), options, stream);
  ASSERT_TRUE(plan.ok()) << plan.status().to_string();
  ASSERT_EQ(plan->stats().copy_variant, variant);
  ASSERT_OK(plan->digest_entry(stream));
  const std::size_t chunks = plan->table().chunk_count();
  std::mt19937_64 rng(chunk_bytes + cluster + snapshot_shift);
  for (int round = 0; round < rounds; ++round) {
    SCOPED_TRACE("round " + std::to_string(round));
    std::set<std::size_t> dirty = random_chunks(chunks, 1 + rng() % 9, rng);
    if (round == 0) {
      dirty.insert(chunks - 1);  // the 3000-byte region: a short chunk
      dirty.insert(chunks - 2);  // the 1-byte region
    }
    std::vector<unsigned char> memory = entry;
    plant(*plan, spans, dirty, memory, rng);
    ASSERT_CU(buffers.upload(memory));

    ASSERT_OK(plan->restore(stream));
    ASSERT_OK(plan->read_back(stream));
    ASSERT_CU(cuStreamSynchronize(stream));
    EXPECT_EQ(flagged(*plan), dirty);
    EXPECT_EQ(plan->host_counters().restored_bytes, bytes_of(*plan, dirty));
    EXPECT_EQ(plan->host_counters().restored_chunks, dirty.size());
    EXPECT_EQ(plan->host_counters().digested_bytes, plan->table().total_bytes());
    for (std::size_t c = 0; c < chunks; ++c) {
      // The digests recorded are those of the memory found (for --verify).
      const std::uint32_t bytes = plan->table().chunks()[c].bytes;
      EXPECT_EQ(plan->host_digests()[c], chunk_digest_reference(memory.data() + chunk_offset(*plan, spans, c), bytes));
      EXPECT_EQ(plan->host_digests()[c] != plan->host_entry_digests()[c], dirty.count(c) == 1) << "chunk " << c;
    }
    EXPECT_EQ(first_difference(buffers.download(), entry), -1);
  }
}

TEST_P(DigestRestoreTest, planted_single_byte_changes_are_all_found_and_restored) {
  planted_changes_round_trip(stream_, GetParam(), kMiB, 0, 0, 4);
}

TEST_P(DigestRestoreTest, planted_changes_are_restored_with_every_cluster_size_and_small_chunks) {
  for (std::uint32_t cluster : {1u, 2u, 4u, 8u}) {
    SCOPED_TRACE("cluster " + std::to_string(cluster));
    planted_changes_round_trip(stream_, GetParam(), 65552, cluster, 0, 2);
  }
}

TEST_P(DigestRestoreTest, planted_changes_are_restored_from_snapshots_not_congruent_to_the_application) {
  for (std::uint64_t shift : {1u, 2u, 4u, 8u, 24u}) {
    SCOPED_TRACE("snapshot shift " + std::to_string(shift));
    planted_changes_round_trip(stream_, GetParam(), kMiB, 0, shift, 1);
  }
}

TEST_P(DigestRestoreTest, a_range_that_writes_nothing_restores_nothing) {
  const std::vector<Span> spans = odd_spans();
  Buffers buffers(kOddBytes, 0);
  ASSERT_TRUE(buffers.ok());
  const std::vector<unsigned char> entry = random_bytes(kOddBytes, 4);
  ASSERT_CU(buffers.set_entry(entry));
  StatusOr<DigestPlan> plan = make_plan(buffers.regions(spans), 65552);
  ASSERT_TRUE(plan.ok()) << plan.status().to_string();
  ASSERT_OK(plan->digest_entry(stream_));
  for (int pass = 0; pass < 3; ++pass) {
    ASSERT_OK(plan->restore(stream_));
    ASSERT_OK(plan->read_back(stream_));
    sync();
    EXPECT_EQ(plan->host_counters().restored_bytes, 0u);
    EXPECT_EQ(plan->host_counters().restored_chunks, 0u);
    EXPECT_EQ(plan->host_counters().digested_bytes, plan->table().total_bytes());
    EXPECT_TRUE(flagged(*plan).empty());
    EXPECT_TRUE(
        std::equal(plan->host_digests().begin(), plan->host_digests().end(), plan->host_entry_digests().begin()));
  }
  EXPECT_EQ(first_difference(buffers.download(), entry), -1);
}

TEST_P(DigestRestoreTest, differential_restore_leaves_memory_identical_to_a_full_restore) {
  // 60 regions of random sizes at random alignments with gaps; scribbles of
  // random lengths land inside regions and in the gaps between them.
  std::mt19937_64 rng(5);
  std::vector<Span> spans;
  std::uint64_t at = 3;
  for (int i = 0; i < 60; ++i) {
    std::uint64_t bytes = rng() % (3 * kMiB);
    if (i % 17 == 0) bytes = 0;
    if (i % 13 == 1) bytes = 1 + rng() % 40;
    spans.push_back({at, bytes});
    at += bytes + 1 + rng() % 5000;
  }
  const std::uint64_t total = at + 64;
  for (std::uint32_t cluster : {1u, 2u, 4u, 8u}) {
    SCOPED_TRACE("cluster " + std::to_string(cluster));
    Buffers buffers(total, 0);
    ASSERT_TRUE(buffers.ok());
    const std::vector<unsigned char> entry = random_bytes(total, 6 + cluster);
    ASSERT_CU(buffers.set_entry(entry));
    StatusOr<DigestPlan> plan = make_plan(buffers.regions(spans), 256 * 1024, cluster);
    ASSERT_TRUE(plan.ok()) << plan.status().to_string();
    ASSERT_OK(plan->digest_entry(stream_));

    std::vector<unsigned char> scribbled = entry;
    for (int k = 0; k < 40; ++k) {
      const std::uint64_t start = rng() % total;
      const std::uint64_t len = std::min<std::uint64_t>(total - start, 1 + rng() % 200000);
      for (std::uint64_t i = start; i < start + len; ++i) scribbled[i] = static_cast<unsigned char>(rng());
    }
    ASSERT_CU(buffers.upload(scribbled));
    // What a full restore gives: every region's bytes from the snapshot, the gaps as scribbled.
    std::vector<unsigned char> full = scribbled;
    for (const Span& s : spans) std::copy_n(entry.begin() + s.offset, s.bytes, full.begin() + s.offset);

    ASSERT_OK(plan->restore(stream_));
    ASSERT_OK(plan->read_back(stream_));
    sync();
    EXPECT_EQ(first_difference(buffers.download(), full), -1);
    EXPECT_LE(plan->host_counters().restored_bytes, plan->table().total_bytes());
    EXPECT_GT(plan->host_counters().restored_chunks, 0u);

    // A full restore on top changes nothing.
    ASSERT_CU(cuCtxSynchronize());
    for (const DigestRegion& r : buffers.regions(spans)) {
      if (r.app.size() > 0) {
        ASSERT_CU(cuMemcpyDtoD(r.app.start().address(), r.snapshot.address(), r.app.size()));
      }
    }
    EXPECT_EQ(first_difference(buffers.download(), full), -1);
  }
}

TEST_P(DigestRestoreTest, copy_predicted_mode_copies_flagged_chunks_and_still_finds_new_ones) {
  const std::vector<Span> spans = {{0, 20 * kMiB + 100}};
  Buffers buffers(21 * kMiB, 0);
  ASSERT_TRUE(buffers.ok());
  const std::vector<unsigned char> entry = random_bytes(21 * kMiB, 7);
  ASSERT_CU(buffers.set_entry(entry));
  StatusOr<DigestPlan> plan = make_plan(buffers.regions(spans), kMiB);
  ASSERT_TRUE(plan.ok()) << plan.status().to_string();
  ASSERT_OK(plan->digest_entry(stream_));
  std::mt19937_64 rng(8);

  const std::set<std::size_t> first = {1, 5, 20};
  std::vector<unsigned char> memory = entry;
  plant(*plan, spans, first, memory, rng);
  ASSERT_CU(buffers.upload(memory));
  ASSERT_OK(plan->restore(stream_, ChunkRestoreMode::kCopyPredicted));  // nothing flagged yet: digests all
  ASSERT_OK(plan->read_back(stream_));
  sync();
  EXPECT_EQ(flagged(*plan), first);
  EXPECT_EQ(plan->host_counters().digested_bytes, plan->table().total_bytes());

  const std::set<std::size_t> second = {5, 9};
  memory = entry;
  plant(*plan, spans, second, memory, rng);
  ASSERT_CU(buffers.upload(memory));
  ASSERT_OK(plan->restore(stream_, ChunkRestoreMode::kCopyPredicted));
  ASSERT_OK(plan->read_back(stream_));
  sync();
  const std::set<std::size_t> both = {1, 5, 9, 20};
  EXPECT_EQ(flagged(*plan), both);
  EXPECT_EQ(plan->host_counters().restored_bytes, bytes_of(*plan, both));
  EXPECT_EQ(plan->host_counters().restored_chunks, both.size());
  EXPECT_EQ(plan->host_counters().digested_bytes, plan->table().total_bytes() - bytes_of(*plan, first));
  EXPECT_EQ(first_difference(buffers.download(), entry), -1);
}

TEST_P(DigestRestoreTest, a_restore_in_one_launch_moves_the_same_chunks_as_the_plans_variant) {
  // RestoreLaunches::kOne: the digest launch copies what it decides, whatever
  // the plan's variant; the same chunks move and the memory ends the same.
  const std::vector<Span> spans = {{0, 12 * kMiB + 7}, {13 * kMiB, 4099}};
  Buffers buffers(14 * kMiB, 0);
  ASSERT_TRUE(buffers.ok());
  const std::vector<unsigned char> entry = random_bytes(14 * kMiB, 11);
  ASSERT_CU(buffers.set_entry(entry));
  StatusOr<DigestPlan> plan = make_plan(buffers.regions(spans), kMiB);
  ASSERT_TRUE(plan.ok()) << plan.status().to_string();
  ASSERT_OK(plan->digest_entry(stream_));
  std::mt19937_64 rng(12);
  const std::set<std::size_t> first = {0, 3, 12};
  std::vector<unsigned char> memory = entry;
  plant(*plan, spans, first, memory, rng);
  ASSERT_CU(buffers.upload(memory));
  const std::uint64_t before = kernels::tool_kernel_launches();
  ASSERT_OK(plan->restore(stream_, ChunkRestoreMode::kCopyPredicted, RestoreLaunches::kOne));
  EXPECT_EQ(kernels::tool_kernel_launches() - before, 1u);
  ASSERT_OK(plan->read_back(stream_));
  sync();
  EXPECT_EQ(flagged(*plan), first);
  EXPECT_EQ(plan->host_counters().restored_bytes, bytes_of(*plan, first));
  EXPECT_EQ(plan->host_counters().digested_bytes, plan->table().total_bytes());
  EXPECT_EQ(first_difference(buffers.download(), entry), -1);

  // Predicted chunks (first) copied unread, a new one (7) found by its digest.
  const std::set<std::size_t> second = {3, 7};
  memory = entry;
  plant(*plan, spans, second, memory, rng);
  ASSERT_CU(buffers.upload(memory));
  const std::uint64_t again = kernels::tool_kernel_launches();
  ASSERT_OK(plan->restore(stream_, ChunkRestoreMode::kCopyPredicted, RestoreLaunches::kOne));
  EXPECT_EQ(kernels::tool_kernel_launches() - again, 1u);
  ASSERT_OK(plan->read_back(stream_));
  sync();
  const std::set<std::size_t> both = {0, 3, 7, 12};
  EXPECT_EQ(flagged(*plan), both);
  EXPECT_EQ(plan->host_counters().restored_chunks, both.size());
  EXPECT_EQ(plan->host_counters().restored_bytes, bytes_of(*plan, both));
  EXPECT_EQ(plan->host_counters().digested_bytes, plan->table().total_bytes() - bytes_of(*plan, first));
  EXPECT_EQ(first_difference(buffers.download(), entry), -1);

  // Trusted digests in one launch: the application's memory is not read.
  const std::set<std::size_t> third = {1, 12};
  memory = entry;
  plant(*plan, spans, third, memory, rng);
  ASSERT_CU(buffers.upload(memory));
  ASSERT_OK(plan->digest(stream_));
  const std::uint64_t trusted = kernels::tool_kernel_launches();
  ASSERT_OK(plan->restore(stream_, ChunkRestoreMode::kUseDigests, RestoreLaunches::kOne));
  EXPECT_EQ(kernels::tool_kernel_launches() - trusted, 1u);
  ASSERT_OK(plan->read_back(stream_));
  sync();
  EXPECT_EQ(flagged(*plan), third);
  EXPECT_EQ(plan->host_counters().restored_bytes, bytes_of(*plan, third));
  EXPECT_EQ(plan->host_counters().digested_bytes, 0u);
  EXPECT_EQ(first_difference(buffers.download(), entry), -1);

  // The plan's own variant: two launches in order, one as cluster slices.
  const std::uint64_t plain = kernels::tool_kernel_launches();
  ASSERT_OK(plan->restore(stream_, ChunkRestoreMode::kCopyPredicted));
  EXPECT_EQ(kernels::tool_kernel_launches() - plain,
            copy_variant_ == DigestCopyVariant::kWarpPerPieceInOrder ? 2u : 1u);
  sync();
  EXPECT_EQ(first_difference(buffers.download(), entry), -1);
}

TEST_P(DigestRestoreTest, use_digests_mode_restores_from_the_last_digest_without_reading_the_application) {
  const std::vector<Span> spans = {{0, 9 * kMiB + 5}, {10 * kMiB, 33}};
  Buffers buffers(11 * kMiB, 0);
  ASSERT_TRUE(buffers.ok());
  const std::vector<unsigned char> entry = random_bytes(11 * kMiB, 9);
  ASSERT_CU(buffers.set_entry(entry));
  StatusOr<DigestPlan> plan = make_plan(buffers.regions(spans), kMiB);
  ASSERT_TRUE(plan.ok()) << plan.status().to_string();
  ASSERT_OK(plan->digest_entry(stream_));
  std::mt19937_64 rng(10);
  const std::set<std::size_t> dirty = {0, 9, 10};
  std::vector<unsigned char> memory = entry;
  plant(*plan, spans, dirty, memory, rng);
  ASSERT_CU(buffers.upload(memory));

  ASSERT_OK(plan->digest(stream_));  // e.g. --verify's digest after a pass
  ASSERT_OK(plan->restore(stream_, ChunkRestoreMode::kUseDigests));
  ASSERT_OK(plan->read_back(stream_));
  sync();
  EXPECT_EQ(flagged(*plan), dirty);
  EXPECT_EQ(plan->host_counters().restored_bytes, bytes_of(*plan, dirty));
  EXPECT_EQ(plan->host_counters().digested_bytes, 0u);
  EXPECT_EQ(first_difference(buffers.download(), entry), -1);
}

TEST_P(DigestRestoreTest, capture_changed_keeps_only_changed_chunks_and_restore_exit_returns_to_them) {
  const std::vector<Span> spans = {{0, 12 * kMiB + 999}, {13 * kMiB + 8, 2 * kMiB}};
  const std::uint64_t total = 16 * kMiB;
  Buffers buffers(total, 0);
  ASSERT_TRUE(buffers.ok());
  const std::vector<unsigned char> entry = random_bytes(total, 11);
  ASSERT_CU(buffers.set_entry(entry));
  StatusOr<DigestPlan> plan = make_plan(buffers.regions(spans), kMiB);
  ASSERT_TRUE(plan.ok()) << plan.status().to_string();
  const std::size_t chunks = plan->table().chunk_count();
  ASSERT_EQ(chunks, 13u + 2u);
  ASSERT_OK(plan->digest_entry(stream_));
  std::mt19937_64 rng(12);

  // Pass 0 changes chunks X: the exit state.
  const std::set<std::size_t> x = {0, 4, 12, 14};
  std::vector<unsigned char> exit_state = entry;
  plant(*plan, spans, x, exit_state, rng);
  ASSERT_CU(buffers.upload(exit_state));

  CUdeviceptr exit_arena = 0;
  const std::uint64_t exit_bytes = 8 * kMiB;
  ASSERT_CU(cuMemAlloc(&exit_arena, exit_bytes));
  ASSERT_OK(plan->capture_changed(stream_, exit_arena, exit_bytes));
  ASSERT_OK(plan->read_back(stream_));
  sync();
  EXPECT_EQ(plan->host_counters().captured_bytes, bytes_of(*plan, x));
  EXPECT_EQ(plan->host_counters().captured_chunks, x.size());
  EXPECT_EQ(plan->host_counters().capture_overflow_chunks, 0u);
  EXPECT_EQ(flagged(*plan), x);
  std::vector<std::uint64_t> locations(chunks);
  ASSERT_CU(cuMemcpyDtoH(locations.data(), plan->device_exit_locations(), chunks * 8));
  for (std::size_t c = 0; c < chunks; ++c) {
    const std::uint32_t bytes = plan->table().chunks()[c].bytes;
    const std::uint64_t off = chunk_offset(*plan, spans, c);
    EXPECT_EQ(plan->host_exit_digests()[c], chunk_digest_reference(exit_state.data() + off, bytes)) << c;
    if (x.count(c) == 0) {
      EXPECT_EQ(locations[c], 0u) << c;
      continue;
    }
    ASSERT_GE(locations[c], exit_arena) << c;
    ASSERT_LE(locations[c] + bytes, exit_arena + exit_bytes) << c;
    EXPECT_EQ((locations[c] - exit_arena) % 256, 0u);
    std::vector<unsigned char> copy(bytes);
    ASSERT_CU(cuMemcpyDtoH(copy.data(), locations[c], bytes));
    EXPECT_TRUE(std::equal(copy.begin(), copy.end(), exit_state.begin() + static_cast<long>(off))) << c;
  }

  // A replayed pass starts from the entry state...
  ASSERT_OK(plan->restore(stream_));
  ASSERT_OK(plan->read_back(stream_));
  sync();
  EXPECT_EQ(flagged(*plan), x);
  EXPECT_EQ(first_difference(buffers.download(), entry), -1);

  // ... writes chunks Y; the window ends with the application's exit state.
  const std::set<std::size_t> y = {4, 7};
  std::vector<unsigned char> after_pass = entry;
  plant(*plan, spans, y, after_pass, rng);
  ASSERT_CU(buffers.upload(after_pass));
  ASSERT_OK(plan->restore_exit(stream_));
  ASSERT_OK(plan->read_back(stream_));
  sync();
  // The chunks that differ from the exit state: X (now entry bytes) and Y
  // (computed from the bytes, in case a plant in both X and Y repeated the exit's).
  std::set<std::size_t> differing;
  for (std::size_t c = 0; c < chunks; ++c) {
    const std::uint64_t off = chunk_offset(*plan, spans, c);
    const auto begin = static_cast<long>(off);
    const auto end = static_cast<long>(off + plan->table().chunks()[c].bytes);
    if (!std::equal(after_pass.begin() + begin, after_pass.begin() + end, exit_state.begin() + begin))
      differing.insert(c);
  }
  EXPECT_TRUE(std::includes(differing.begin(), differing.end(), x.begin(), x.end()));
  EXPECT_EQ(flagged(*plan), differing);
  EXPECT_EQ(plan->host_counters().restored_bytes, bytes_of(*plan, differing));
  EXPECT_EQ(first_difference(buffers.download(), exit_state), -1);

  // A second capture reuses the arena from its start (the cursor was reset).
  ASSERT_OK(plan->capture_changed(stream_, exit_arena, exit_bytes));
  ASSERT_OK(plan->read_back(stream_));
  sync();
  EXPECT_EQ(plan->host_counters().captured_chunks, x.size());
  ASSERT_CU(cuMemcpyDtoH(locations.data(), plan->device_exit_locations(), chunks * 8));
  for (std::size_t c : x) EXPECT_LT(locations[c], exit_arena + bytes_of(*plan, x) + 256 * x.size());
  EXPECT_CU(cuMemFree(exit_arena));
}

TEST_F(DigestPlanTest, capture_changed_counts_chunks_that_do_not_fit_the_exit_arena) {
  const std::vector<Span> spans = {{0, 8 * kMiB}};
  Buffers buffers(8 * kMiB, 0);
  ASSERT_TRUE(buffers.ok());
  const std::vector<unsigned char> entry = random_bytes(8 * kMiB, 13);
  ASSERT_CU(buffers.set_entry(entry));
  StatusOr<DigestPlan> plan = make_plan(buffers.regions(spans), kMiB);
  ASSERT_TRUE(plan.ok()) << plan.status().to_string();
  ASSERT_OK(plan->digest_entry(stream_));
  std::mt19937_64 rng(14);
  const std::set<std::size_t> changed = {1, 3, 6};
  std::vector<unsigned char> memory = entry;
  plant(*plan, spans, changed, memory, rng);
  ASSERT_CU(buffers.upload(memory));

  CUdeviceptr arena = 0;
  ASSERT_CU(cuMemAlloc(&arena, 3 * kMiB));
  ASSERT_OK(plan->capture_changed(stream_, arena, kMiB + kMiB / 2));  // room for one chunk
  ASSERT_OK(plan->read_back(stream_));
  sync();
  EXPECT_EQ(plan->host_counters().captured_chunks, 1u);
  EXPECT_EQ(plan->host_counters().captured_bytes, kMiB);
  EXPECT_EQ(plan->host_counters().capture_overflow_chunks, 2u);
  EXPECT_EQ(flagged(*plan), changed);

  ASSERT_OK(plan->capture_changed(stream_, arena, 3 * kMiB));
  ASSERT_OK(plan->read_back(stream_));
  sync();
  EXPECT_EQ(plan->host_counters().captured_chunks, 3u);
  EXPECT_EQ(plan->host_counters().capture_overflow_chunks, 0u);
  EXPECT_CU(cuMemFree(arena));
}

TEST_P(DigestRestoreTest, a_snapshot_in_mapped_pinned_memory_restores) {
  const std::vector<Span> spans = {{16, 3 * kMiB + 5}};
  const std::uint64_t total = 4 * kMiB;
  CUdeviceptr app = 0;
  void* pinned = nullptr;
  CUdeviceptr pinned_device = 0;
  ASSERT_CU(cuMemAlloc(&app, total));
  ASSERT_CU(cuMemHostAlloc(&pinned, total, CU_MEMHOSTALLOC_DEVICEMAP));
  ASSERT_CU(cuMemHostGetDevicePointer(&pinned_device, pinned, 0));
  const std::vector<unsigned char> entry = random_bytes(total, 15);
  ASSERT_CU(cuMemcpyHtoD(app, entry.data(), total));
  std::memcpy(pinned, entry.data(), total);
  ASSERT_CU(cuCtxSynchronize());
  const std::vector<DigestRegion> regions = {
      {MemoryRange(DevicePtr(app + 16), spans[0].bytes), DevicePtr(pinned_device + 16)}};
  {
    StatusOr<DigestPlan> plan = make_plan(regions, kMiB);
    ASSERT_TRUE(plan.ok()) << plan.status().to_string();
    ASSERT_OK(plan->digest_entry(stream_));
    std::mt19937_64 rng(16);
    std::vector<unsigned char> memory = entry;
    const std::set<std::size_t> dirty = {1, 3};
    plant(*plan, spans, dirty, memory, rng);
    ASSERT_CU(cuCtxSynchronize());
    ASSERT_CU(cuMemcpyHtoD(app, memory.data(), total));
    ASSERT_CU(cuCtxSynchronize());
    ASSERT_OK(plan->restore(stream_));
    ASSERT_OK(plan->read_back(stream_));
    sync();
    EXPECT_EQ(flagged(*plan), dirty);
    std::vector<unsigned char> now(total);
    ASSERT_CU(cuMemcpyDtoH(now.data(), app, total));
    EXPECT_EQ(first_difference(now, entry), -1);
  }
  EXPECT_CU(cuMemFree(app));
  EXPECT_CU(cuMemFreeHost(pinned));
}

TEST_P(DigestRestoreTest, an_empty_plan_does_nothing) {
  const std::vector<DigestRegion> regions = {{MemoryRange(DevicePtr(0x1000), 0), DevicePtr()}};
  StatusOr<DigestPlan> plan = make_plan(regions, kMiB);
  ASSERT_TRUE(plan.ok()) << plan.status().to_string();
  EXPECT_EQ(plan->stats().chunk_count, 0u);
  EXPECT_TRUE(plan->stats().has_snapshot);  // no non-empty region lacks one
  ASSERT_OK(plan->digest_entry(stream_));
  ASSERT_OK(plan->digest(stream_));
  ASSERT_OK(plan->restore(stream_));
  ASSERT_OK(plan->capture_changed(stream_, 0, 0));
  ASSERT_OK(plan->restore_exit(stream_));
  ASSERT_OK(plan->read_back(stream_));
  sync();
  EXPECT_EQ(plan->host_counters().restored_bytes, 0u);
  EXPECT_EQ(plan->region_digests(plan->host_digests()).size(), 1u);
}

TEST_P(DigestRestoreTest, restore_without_snapshot_addresses_is_refused) {
  Buffers buffers(kMiB, 0);
  ASSERT_TRUE(buffers.ok());
  StatusOr<DigestPlan> plan = make_plan(buffers.regions({{0, 1000}}, false), kMiB);
  ASSERT_TRUE(plan.ok()) << plan.status().to_string();
  EXPECT_EQ(plan->restore(stream_).code(), StatusCode::kFailedPrecondition);
  EXPECT_EQ(plan->capture_changed(stream_, buffers.snapshot(), kMiB).code(), StatusCode::kFailedPrecondition);
  EXPECT_EQ(plan->restore_exit(stream_).code(), StatusCode::kFailedPrecondition);
  EXPECT_TRUE(plan->digest(stream_).ok());
}

TEST_P(DigestRestoreTest, restore_exit_before_capture_changed_is_refused) {
  Buffers buffers(kMiB, 0);
  ASSERT_TRUE(buffers.ok());
  StatusOr<DigestPlan> plan = make_plan(buffers.regions({{0, 1000}}), kMiB);
  ASSERT_TRUE(plan.ok()) << plan.status().to_string();
  EXPECT_EQ(plan->restore_exit(stream_).code(), StatusCode::kFailedPrecondition);
}

TEST_F(DigestPlanTest, rejects_bad_chunk_and_cluster_sizes) {
  Buffers buffers(kMiB, 0);
  ASSERT_TRUE(buffers.ok());
  StatusOr<DigestPlan> odd_chunk = make_plan(buffers.regions({{0, 1000}}), 100);
  ASSERT_FALSE(odd_chunk.ok());
  EXPECT_EQ(odd_chunk.status().code(), StatusCode::kInvalidArgument);
  StatusOr<DigestPlan> odd_cluster = make_plan(buffers.regions({{0, 1000}}), kMiB, 3);
  ASSERT_FALSE(odd_cluster.ok());
  EXPECT_EQ(odd_cluster.status().code(), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace rangereplay
