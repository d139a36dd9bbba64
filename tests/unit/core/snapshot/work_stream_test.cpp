// Work-stream builder: items map back to exactly the bytes of each region,
// never straddle regions, and the bit layout is the one work_stream.h documents.
#include "core/snapshot/work_stream.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

namespace rangereplay {
namespace {

constexpr std::uint64_t kBase = 0x7f1200000000;  // a plausible device address

WorkStream build_or_die(std::span<const ArenaSpans> arenas, std::uint32_t piece = kDefaultPieceBytes) {
  StatusOr<WorkStream> ws = build_work_stream(arenas, piece);
  EXPECT_TRUE(ws.ok()) << ws.status().to_string();
  return ws.ok() ? std::move(ws).value() : WorkStream{};
}

WorkStream build_one(const std::vector<CopySpan>& spans, std::uint32_t piece = kDefaultPieceBytes) {
  const ArenaSpans arena{0, spans};
  return build_or_die({&arena, 1}, piece);
}

// Random spans laid out one after another with random gaps, odd sizes
// (0 and 1 included) and odd addresses; arena offsets packed with odd gaps.
std::vector<CopySpan> random_spans(std::size_t count, std::uint64_t max_bytes, std::uint32_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<CopySpan> spans;
  std::uint64_t app = kBase + 3;
  std::uint64_t arena = 5;
  for (std::size_t i = 0; i < count; ++i) {
    std::uint64_t bytes = rng() % (max_bytes + 1);
    if (i % 97 == 0) bytes = 0;
    if (i % 89 == 1) bytes = 1;
    spans.push_back({DevicePtr(app), arena, bytes});
    app += bytes + rng() % 64;
    arena += bytes + rng() % 32;
  }
  return spans;
}

TEST(WorkItem, packs_fields_into_the_documented_bits) {
  const WorkItem item = WorkItem::make(0x00007f0000001235, kMaxArenaBytes - 7, 3, 65536);
  EXPECT_EQ(item.word0, 0x00007f0000001235u);
  EXPECT_EQ(item.word1, (kMaxArenaBytes - 7) | (std::uint64_t{3} << 46) | (std::uint64_t{0xFFFF} << 48));
  EXPECT_EQ(item.app_address(), 0x00007f0000001235u);
  EXPECT_EQ(item.arena_offset(), kMaxArenaBytes - 7);
  EXPECT_EQ(item.arena_slot(), 3u);
  EXPECT_EQ(item.bytes(), 65536u);

  const WorkItem one = WorkItem::make(1, 0, 0, 1);
  EXPECT_EQ(one.word0, 1u);
  EXPECT_EQ(one.word1, 0u);  // offset 0, slot 0, bytes - 1 == 0
  EXPECT_EQ(one.bytes(), 1u);
  EXPECT_EQ(sizeof(WorkItem), 16u);
  EXPECT_EQ(alignof(WorkItem), 16u);
}

TEST(WorkStream, no_spans_give_no_items) {
  const WorkStream ws = build_one({});
  EXPECT_TRUE(ws.items.empty());
  EXPECT_EQ(ws.total_bytes, 0u);
  EXPECT_EQ(ws.span_count, 0u);
}

TEST(WorkStream, empty_regions_give_no_items) {
  const WorkStream ws = build_one({{DevicePtr(kBase), 0, 0}, {DevicePtr(kBase + 1), 17, 0}});
  EXPECT_TRUE(ws.items.empty());
  EXPECT_EQ(ws.span_count, 0u);
}

TEST(WorkStream, one_byte_region_gives_one_partial_item) {
  const WorkStream ws = build_one({{DevicePtr(kBase + 7), 9, 1}});
  ASSERT_EQ(ws.items.size(), 1u);
  EXPECT_EQ(ws.items[0], WorkItem::make(kBase + 7, 9, 0, 1));
  EXPECT_EQ(ws.partial_items, 1u);
  EXPECT_EQ(ws.total_bytes, 1u);
  EXPECT_EQ(ws.narrow_items, 1u);  // 7 and 9 differ modulo 16
}

TEST(WorkStream, region_of_whole_pieces_has_no_partial_item) {
  const WorkStream ws = build_one({{DevicePtr(kBase), 256, 8192}});
  ASSERT_EQ(ws.items.size(), 2u);
  EXPECT_EQ(ws.items[0], WorkItem::make(kBase, 256, 0, 4096));
  EXPECT_EQ(ws.items[1], WorkItem::make(kBase + 4096, 256 + 4096, 0, 4096));
  EXPECT_EQ(ws.partial_items, 0u);
  EXPECT_EQ(ws.narrow_items, 0u);
}

TEST(WorkStream, region_tail_gives_one_partial_item) {
  const WorkStream ws = build_one({{DevicePtr(kBase), 0, 5000}, {DevicePtr(kBase + 8192), 5120, 1}});
  ASSERT_EQ(ws.items.size(), 3u);
  EXPECT_EQ(ws.items[0], WorkItem::make(kBase, 0, 0, 4096));
  EXPECT_EQ(ws.items[1], WorkItem::make(kBase + 4096, 4096, 0, 904));
  EXPECT_EQ(ws.items[2], WorkItem::make(kBase + 8192, 5120, 0, 1));
  EXPECT_EQ(ws.partial_items, 2u);
  EXPECT_EQ(ws.total_bytes, 5001u);
  EXPECT_EQ(ws.span_count, 2u);
}

TEST(WorkStream, smallest_piece_splits_into_sixteen_byte_items) {
  const WorkStream ws = build_one({{DevicePtr(kBase + 1), 1, 33}}, 16);
  ASSERT_EQ(ws.items.size(), 3u);
  EXPECT_EQ(ws.items[0], WorkItem::make(kBase + 1, 1, 0, 16));
  EXPECT_EQ(ws.items[1], WorkItem::make(kBase + 17, 17, 0, 16));
  EXPECT_EQ(ws.items[2], WorkItem::make(kBase + 33, 33, 0, 1));
}

TEST(WorkStream, largest_piece_fills_the_length_field) {
  const WorkStream ws = build_one({{DevicePtr(kBase), 0, 65536 * 2 + 3}}, 65536);
  ASSERT_EQ(ws.items.size(), 3u);
  EXPECT_EQ(ws.items[0].bytes(), 65536u);
  EXPECT_EQ(ws.items[1].bytes(), 65536u);
  EXPECT_EQ(ws.items[2].bytes(), 3u);
}

TEST(WorkStream, rejects_piece_sizes_that_are_not_multiples_of_16_up_to_64k) {
  const std::vector<CopySpan> spans = {{DevicePtr(kBase), 0, 100}};
  const ArenaSpans arena{0, spans};
  for (std::uint32_t piece : {0u, 8u, 24u, 4095u, 65552u}) {
    StatusOr<WorkStream> ws = build_work_stream({&arena, 1}, piece);
    ASSERT_FALSE(ws.ok()) << piece;
    EXPECT_EQ(ws.status().code(), StatusCode::kInvalidArgument) << piece;
  }
}

TEST(WorkStream, tags_items_with_their_arena_slot_in_input_order) {
  const std::vector<CopySpan> device = {{DevicePtr(kBase), 0, 10}};
  const std::vector<CopySpan> pinned = {{DevicePtr(kBase + 4096), 64, 20}, {DevicePtr(kBase + 16), 0, 5}};
  const ArenaSpans arenas[] = {{0, device}, {2, pinned}};
  const WorkStream ws = build_or_die(arenas);
  ASSERT_EQ(ws.items.size(), 3u);
  EXPECT_EQ(ws.items[0], WorkItem::make(kBase, 0, 0, 10));
  EXPECT_EQ(ws.items[1], WorkItem::make(kBase + 4096, 64, 2, 20));
  EXPECT_EQ(ws.items[2], WorkItem::make(kBase + 16, 0, 2, 5));
}

TEST(WorkStream, rejects_an_arena_slot_past_the_last) {
  const std::vector<CopySpan> spans = {{DevicePtr(kBase), 0, 1}};
  const ArenaSpans arena{kMaxArenaSlots, spans};
  StatusOr<WorkStream> ws = build_work_stream({&arena, 1});
  ASSERT_FALSE(ws.ok());
  EXPECT_EQ(ws.status().code(), StatusCode::kInvalidArgument);
}

TEST(WorkStream, rejects_a_span_wrapping_the_address_space) {
  const std::vector<CopySpan> spans = {{DevicePtr(~std::uint64_t{0} - 3), 0, 5}};
  const ArenaSpans arena{0, spans};
  StatusOr<WorkStream> ws = build_work_stream({&arena, 1});
  ASSERT_FALSE(ws.ok());
  EXPECT_EQ(ws.status().code(), StatusCode::kInvalidArgument);
}

TEST(WorkStream, arena_offsets_end_at_the_46_bit_limit) {
  const std::vector<CopySpan> fits = {{DevicePtr(kBase), kMaxArenaBytes - 4096, 4096}};
  const ArenaSpans ok_arena{0, fits};
  StatusOr<WorkStream> ws = build_work_stream({&ok_arena, 1});
  ASSERT_TRUE(ws.ok()) << ws.status().to_string();
  EXPECT_EQ(ws->items[0].arena_offset(), kMaxArenaBytes - 4096);

  const std::vector<CopySpan> past = {{DevicePtr(kBase), kMaxArenaBytes - 4096, 4097}};
  const ArenaSpans bad_arena{0, past};
  StatusOr<WorkStream> bad = build_work_stream({&bad_arena, 1});
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), StatusCode::kOutOfRange);
}

TEST(WorkStream, counts_items_whose_ends_differ_modulo_16_as_narrow) {
  const WorkStream ws = build_one({{DevicePtr(kBase + 16), 32, 100},        // congruent
                                   {DevicePtr(kBase + 1000), 200, 50},      // 1000 % 16 = 8, 200 % 16 = 8
                                   {DevicePtr(kBase + 5000), 301, 9000}});  // 8 vs 13: 3 narrow items
  EXPECT_EQ(ws.items.size(), 5u);
  EXPECT_EQ(ws.narrow_items, 3u);
}

// Every byte of every region is covered by exactly one item, at the matching
// arena offset, and no item covers a byte outside its region.
TEST(WorkStream, items_map_back_to_exactly_the_bytes_of_each_region) {
  const std::vector<CopySpan> spans = random_spans(300, 3 * 4096 + 50, 11);
  const WorkStream ws = build_one(spans, 1024);

  std::uint64_t expected_items = 0;
  std::uint64_t expected_bytes = 0;
  for (const CopySpan& s : spans) {
    expected_items += (s.bytes + 1023) / 1024;
    expected_bytes += s.bytes;
  }
  ASSERT_EQ(ws.items.size(), expected_items);
  EXPECT_EQ(ws.total_bytes, expected_bytes);

  // Walk items and spans together: items come span by span, piece by piece.
  std::size_t next = 0;
  for (std::size_t r = 0; r < spans.size(); ++r) {
    const CopySpan& s = spans[r];
    std::uint64_t covered = 0;
    while (covered < s.bytes) {
      ASSERT_LT(next, ws.items.size());
      const WorkItem& item = ws.items[next++];
      EXPECT_EQ(item.app_address(), s.app_address.address() + covered) << "region " << r;
      EXPECT_EQ(item.arena_offset(), s.arena_offset + covered) << "region " << r;
      EXPECT_EQ(item.arena_slot(), 0u);
      ASSERT_GE(item.bytes(), 1u);
      ASSERT_LE(covered + item.bytes(), s.bytes) << "item straddles the end of region " << r;
      // Only a region's last item may be short.
      if (covered + item.bytes() < s.bytes) {
        EXPECT_EQ(item.bytes(), 1024u) << "region " << r;
      }
      covered += item.bytes();
    }
    EXPECT_EQ(covered, s.bytes) << "region " << r;
  }
  EXPECT_EQ(next, ws.items.size());
}

TEST(WorkStream, items_never_cross_a_region_among_thousands) {
  const std::vector<CopySpan> spans = random_spans(5000, 9000, 23);
  const WorkStream ws = build_one(spans);
  // Sorted region starts: each item must lie inside the region whose start
  // is the greatest one not after the item's first byte.
  std::vector<std::pair<std::uint64_t, std::uint64_t>> regions;  // [start, end)
  for (const CopySpan& s : spans) {
    if (s.bytes > 0) regions.emplace_back(s.app_address.address(), s.app_address.address() + s.bytes);
  }
  std::sort(regions.begin(), regions.end());
  std::uint64_t bytes = 0;
  for (const WorkItem& item : ws.items) {
    auto it = std::upper_bound(regions.begin(), regions.end(), std::make_pair(item.app_address(), ~std::uint64_t{0}));
    ASSERT_NE(it, regions.begin());
    --it;
    ASSERT_GE(item.app_address(), it->first);
    ASSERT_LE(item.app_address() + item.bytes(), it->second);
    bytes += item.bytes();
  }
  EXPECT_EQ(bytes, ws.total_bytes);
  EXPECT_EQ(ws.span_count, regions.size());
}

TEST(WorkStream, output_is_deterministic) {
  const std::vector<CopySpan> spans = random_spans(2000, 20000, 5);
  const WorkStream a = build_one(spans);
  const WorkStream b = build_one(spans);
  EXPECT_EQ(a.items, b.items);
  EXPECT_EQ(a.partial_items, b.partial_items);
  EXPECT_EQ(a.narrow_items, b.narrow_items);
}

TEST(WorkStream, one_gigabyte_region_gives_equal_pieces) {
  const std::uint64_t gib = std::uint64_t{1} << 30;
  const WorkStream ws = build_one({{DevicePtr(kBase), 0, gib}});
  ASSERT_EQ(ws.items.size(), gib / 4096);
  EXPECT_EQ(ws.items.back(), WorkItem::make(kBase + gib - 4096, gib - 4096, 0, 4096));
  EXPECT_EQ(ws.partial_items, 0u);
}

TEST(SplitPiece, aligned_piece_is_all_sixteen_byte_body) {
  const PieceSplit p = split_piece(kBase, 4096, 4096);
  EXPECT_EQ(p.width, 16u);
  EXPECT_EQ(p.head, 0u);
  EXPECT_EQ(p.body, 4096u);
  EXPECT_EQ(p.tail, 0u);
}

TEST(SplitPiece, odd_congruent_ends_give_head_and_tail_bytes) {
  const PieceSplit p = split_piece(kBase + 3, 19, 100);  // both 3 mod 16
  EXPECT_EQ(p.width, 16u);
  EXPECT_EQ(p.head, 13u);
  EXPECT_EQ(p.body, 80u);
  EXPECT_EQ(p.tail, 7u);
}

TEST(SplitPiece, one_byte_piece_is_one_head_or_tail_byte) {
  const PieceSplit aligned = split_piece(kBase, 0, 1);
  EXPECT_EQ(aligned.head + aligned.body + aligned.tail, 1u);
  EXPECT_EQ(aligned.tail, 1u);
  const PieceSplit odd = split_piece(kBase + 5, 5, 1);
  EXPECT_EQ(odd.head, 1u);
  EXPECT_EQ(odd.body + odd.tail, 0u);
}

// Every pair of alignments and many lengths: the three parts add up, the
// body is aligned at both ends, head and tail fit their 16 lanes, and the
// width is the widest both ends allow.
TEST(SplitPiece, covers_every_byte_for_every_alignment) {
  for (std::uint64_t a = 0; a < 32; ++a) {
    for (std::uint64_t b = 0; b < 32; ++b) {
      for (std::uint32_t len = 0; len <= 300; ++len) {
        const std::uint64_t src = kBase + a;
        const std::uint64_t dst = 4096 + b;
        const PieceSplit p = split_piece(src, dst, len);
        ASSERT_EQ(p.head + p.body + p.tail, len) << a << " " << b << " " << len;
        ASSERT_EQ(p.body % p.width, 0u);
        ASSERT_LT(p.head, 16u);
        ASSERT_LT(p.tail, 16u);
        ASSERT_LT(p.tail, p.width);
        if (p.body > 0) {
          ASSERT_EQ((src + p.head) % p.width, 0u) << a << " " << b << " " << len;
          ASSERT_EQ((dst + p.head) % p.width, 0u) << a << " " << b << " " << len;
        }
        ASSERT_EQ((src - dst) % p.width, 0u);
        ASSERT_LT(p.head, p.width);
        if (p.width < 16) {
          ASSERT_NE((src - dst) % (2 * p.width), 0u);
        }
      }
    }
  }
}

TEST(CheckDisjoint, accepts_touching_spans_and_empty_overlaps) {
  const std::vector<CopySpan> spans = {{DevicePtr(kBase), 0, 100},
                                       {DevicePtr(kBase + 100), 100, 1},
                                       {DevicePtr(kBase + 50), 50, 0}};  // empty: overlaps nothing
  const ArenaSpans arena{0, spans};
  EXPECT_TRUE(check_disjoint({&arena, 1}).ok());
}

TEST(CheckDisjoint, rejects_regions_overlapping_in_application_memory_across_arenas) {
  const std::vector<CopySpan> device = {{DevicePtr(kBase), 0, 100}};
  const std::vector<CopySpan> pinned = {{DevicePtr(kBase + 99), 0, 10}};
  const ArenaSpans arenas[] = {{0, device}, {1, pinned}};
  const Status s = check_disjoint(arenas);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(), "arena 0 span 0 and arena 1 span 0 overlap in application memory");
}

TEST(CheckDisjoint, rejects_spans_overlapping_in_one_arena_but_not_across_arenas) {
  const std::vector<CopySpan> a = {{DevicePtr(kBase), 0, 100}, {DevicePtr(kBase + 200), 64, 100}};
  const ArenaSpans same[] = {{0, a}};
  const Status s = check_disjoint(same);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(), "arena 0 span 0 and arena 0 span 1 overlap in their arena");

  const std::vector<CopySpan> first = {{DevicePtr(kBase), 0, 100}};
  const std::vector<CopySpan> second = {{DevicePtr(kBase + 200), 0, 100}};
  const ArenaSpans different[] = {{0, first}, {1, second}};
  EXPECT_TRUE(check_disjoint(different).ok());
}

}  // namespace
}  // namespace rangereplay
