// The work stream: the flat list of fixed-size copy items the copy kernel
// consumes for capture (regions -> arena) and restore (arena -> regions).
//
// Discontiguous regions are flattened into one array of 16-byte WorkItems. Each
// item covers at most one fixed-size piece (`piece_bytes`, 4 KiB by default) of
// exactly one region; a region's tail gives one partial item; items never
// straddle regions. So every warp of the kernel gets the same amount of work
// per item and no thread ever searches for its region (CUB's
// DeviceMemcpy::Batched solves the same problem with a search, which this
// layout avoids).
//
//   std::vector<CopySpan> spans = {{DevicePtr(a), 0, 5000}, {DevicePtr(b), 5120, 1}};
//   ArenaSpans arena{/*arena=*/0, spans};
//   RR_RETURN_IF_ERROR(check_disjoint({&arena, 1}));
//   RR_ASSIGN_OR_RETURN(WorkStream ws, build_work_stream({&arena, 1}));
//   // ws.items: {a, 0, 4096} {a+4096, 4096, 904} {b, 5120, 1}
//
// Item bit layout (two little-endian 64-bit words, 16 bytes, 16-byte aligned):
//
//   word 0, bits  0..63  app_address   device address of the piece's first byte
//                                      in the application's memory
//   word 1, bits  0..45  arena_offset  byte offset of the piece's first byte in
//                                      its arena (< 2^46 = 64 TiB)
//   word 1, bits 46..47  arena_slot    which of the launch's kMaxArenaSlots arena
//                                      base addresses the offset is relative to
//   word 1, bits 48..63  bytes - 1     piece length minus one (1..65536 bytes)
//
// No CUDA headers here: the builder is plain C++ and tested without a GPU. The
// accessors are constexpr so the kernel (built with --expt-relaxed-constexpr)
// decodes items with the very same code.
// Thread-safety: values and pure functions.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "core/base/memory_range.h"
#include "core/base/status.h"

namespace rangereplay {

/// One contiguous copy between the application's memory and one arena:
/// `bytes` bytes at `app_address` <-> `bytes` bytes at `arena_offset` of the
/// arena. Any size (0 is allowed and produces no items) and any alignment.
struct CopySpan {
  DevicePtr app_address;
  std::uint64_t arena_offset = 0;
  std::uint64_t bytes = 0;
  friend constexpr bool operator==(const CopySpan&, const CopySpan&) = default;
};

/// Arena slots one kernel launch can address (2 bits of the item).
inline constexpr std::uint32_t kMaxArenaSlots = 4;
/// Largest arena offset + length an item can express: 2^46 bytes.
inline constexpr std::uint64_t kMaxArenaBytes = std::uint64_t{1} << 46;
/// Largest piece an item can cover: 2^16 bytes.
inline constexpr std::uint32_t kMaxPieceBytes = 1u << 16;
/// Default piece: one warp moves it with eight 16-byte loads per lane.
inline constexpr std::uint32_t kDefaultPieceBytes = 4096;

inline constexpr unsigned kItemSlotShift = 46;
inline constexpr unsigned kItemBytesShift = 48;
inline constexpr std::uint64_t kItemOffsetMask = (std::uint64_t{1} << kItemSlotShift) - 1;

/// One 16-byte item of the work stream (bit layout in the file comment).
struct alignas(16) WorkItem {
  std::uint64_t word0 = 0;
  std::uint64_t word1 = 0;

  /// Packs an item. Preconditions (checked by build_work_stream, asserted
  /// here only on the host): arena_offset < 2^46, slot < 4, 1 <= bytes <= 65536.
  static constexpr WorkItem make(std::uint64_t app_address, std::uint64_t arena_offset, std::uint32_t arena_slot,
                                 std::uint32_t bytes) {
    return WorkItem{app_address, (arena_offset & kItemOffsetMask) | (std::uint64_t{arena_slot & 3u} << kItemSlotShift) |
                                     (std::uint64_t{bytes - 1u} << kItemBytesShift)};
  }
  constexpr std::uint64_t app_address() const { return word0; }
  constexpr std::uint64_t arena_offset() const { return word1 & kItemOffsetMask; }
  constexpr std::uint32_t arena_slot() const { return static_cast<std::uint32_t>((word1 >> kItemSlotShift) & 3u); }
  constexpr std::uint32_t bytes() const { return static_cast<std::uint32_t>(word1 >> kItemBytesShift) + 1u; }
  friend constexpr bool operator==(const WorkItem&, const WorkItem&) = default;
};
static_assert(sizeof(WorkItem) == 16, "the kernel loads one item as one 16-byte vector");

/// How the copy kernel moves one item of `len` bytes from `src` to `dst`:
/// `head` bytes one per lane, then `body` bytes as `width`-byte vectors (both
/// ends aligned to `width`), then `tail` bytes one per lane. `width` is the
/// largest power of two <= 16 to which src and dst are congruent, so an item
/// whose ends agree modulo 16 moves with 16-byte vectors. head and tail are
/// each below width (so at most 15: lanes 0..15 and 16..31 of a warp).
struct PieceSplit {
  std::uint32_t width = 16;
  std::uint32_t head = 0;
  std::uint32_t body = 0;
  std::uint32_t tail = 0;
};

constexpr PieceSplit split_piece(std::uint64_t src, std::uint64_t dst, std::uint32_t len) {
  const auto diff = static_cast<std::uint32_t>(src ^ dst);
  PieceSplit p;
  p.width = (diff & 15u) == 0 ? 16u : (diff & 7u) == 0 ? 8u : (diff & 3u) == 0 ? 4u : (diff & 1u) == 0 ? 2u : 1u;
  const auto misalignment = static_cast<std::uint32_t>(src & (p.width - 1));
  p.head = (p.width - misalignment) & (p.width - 1);
  if (p.head > len) p.head = len;
  p.body = (len - p.head) & ~(p.width - 1);
  p.tail = len - p.head - p.body;
  return p;
}

/// The spans of one arena. `arena` names the arena: an index into the plan's
/// arena list for check_disjoint, the item's arena slot (< kMaxArenaSlots)
/// for build_work_stream.
struct ArenaSpans {
  std::uint32_t arena = 0;
  std::span<const CopySpan> spans;
};

/// The built stream plus counts the benchmark and the report print.
struct WorkStream {
  std::vector<WorkItem> items;  // in input order: arena by arena, span by span, piece by piece
  std::uint32_t piece_bytes = kDefaultPieceBytes;
  std::uint64_t total_bytes = 0;    // sum of span bytes
  std::uint64_t span_count = 0;     // non-empty spans
  std::uint64_t partial_items = 0;  // items shorter than piece_bytes
  /// Items whose app address and arena offset differ modulo 16: with a
  /// 16-byte aligned arena base the kernel moves them with narrower vectors.
  /// Planners keep arena_offset == app_address (mod 16) to make this 0.
  std::uint64_t narrow_items = 0;
};

/// Flattens `arenas` into one work stream, preserving input order (so the
/// output is a deterministic function of the input).
///
/// piece_bytes: a multiple of 16 in [16, 65536].
/// Errors: kInvalidArgument for a bad piece size, an arena slot >=
/// kMaxArenaSlots or a span wrapping the 64-bit address space; kOutOfRange for
/// a span ending past kMaxArenaBytes in its arena. Does not check overlaps:
/// call check_disjoint first.
/// Cost: O(items); memory 16 bytes per item.
StatusOr<WorkStream> build_work_stream(std::span<const ArenaSpans> arenas,
                                       std::uint32_t piece_bytes = kDefaultPieceBytes);

/// Checks that no two non-empty spans overlap in the application's memory
/// (a restore would race on those bytes) and that no two non-empty spans of
/// the same arena overlap in that arena (a capture would race). Empty spans
/// overlap nothing.
/// Errors: kInvalidArgument naming the two spans (arena and index) that
/// overlap, or a span that wraps the address space. Cost: O(n log n).
Status check_disjoint(std::span<const ArenaSpans> arenas);

}  // namespace rangereplay
