// Work-stream builder and span overlap check (see work_stream.h).
#include "core/snapshot/work_stream.h"

#include <algorithm>
#include <cassert>
#include <limits>
#include <string>

namespace rangereplay {
namespace {

// Where a span came from, for error messages.
std::string span_name(std::uint32_t arena, std::size_t index) {
  return "arena " + std::to_string(arena) + " span " + std::to_string(index);
}

bool wraps(std::uint64_t start, std::uint64_t bytes) {
  return bytes > std::numeric_limits<std::uint64_t>::max() - start;
}

struct Interval {
  std::uint64_t start;
  std::uint64_t end;  // exclusive
  std::uint32_t arena;
  std::size_t index;
};

// Sorts `intervals` by start and reports the first pair that overlaps.
Status first_overlap(std::vector<Interval>& intervals, const char* where) {
  std::sort(intervals.begin(), intervals.end(), [](const Interval& a, const Interval& b) {
    return a.start != b.start ? a.start < b.start : a.end < b.end;
  });
  for (std::size_t i = 1; i < intervals.size(); ++i) {
    const Interval& prev = intervals[i - 1];
    const Interval& cur = intervals[i];
    if (cur.start < prev.end) {
      return invalid_argument(span_name(prev.arena, prev.index) + " and " + span_name(cur.arena, cur.index) +
                              " overlap in " + where);
    }
  }
  return ok_status();
}

}  // namespace

StatusOr<WorkStream> build_work_stream(std::span<const ArenaSpans> arenas, std::uint32_t piece_bytes) {
  if (piece_bytes < 16 || piece_bytes > kMaxPieceBytes || piece_bytes % 16 != 0) {
    return invalid_argument("piece_bytes " + std::to_string(piece_bytes) + " is not a multiple of 16 in [16, 65536]");
  }
  WorkStream out;
  out.piece_bytes = piece_bytes;

  // Validate everything and count items first, so the output is allocated once.
  std::uint64_t item_count = 0;
  for (const ArenaSpans& arena : arenas) {
    if (arena.arena >= kMaxArenaSlots) {
      return invalid_argument("arena slot " + std::to_string(arena.arena) + " is not below " +
                              std::to_string(kMaxArenaSlots));
    }
    for (std::size_t i = 0; i < arena.spans.size(); ++i) {
      const CopySpan& span = arena.spans[i];
      if (span.bytes == 0) continue;
      if (wraps(span.app_address.address(), span.bytes)) {
        return invalid_argument(span_name(arena.arena, i) + " wraps the application's address space");
      }
      if (span.arena_offset > kMaxArenaBytes || span.bytes > kMaxArenaBytes - span.arena_offset) {
        return out_of_range(span_name(arena.arena, i) + " ends past the 2^46-byte arena limit");
      }
      item_count += (span.bytes + piece_bytes - 1) / piece_bytes;
    }
  }
  out.items.reserve(item_count);

  for (const ArenaSpans& arena : arenas) {
    for (const CopySpan& span : arena.spans) {
      if (span.bytes == 0) continue;
      ++out.span_count;
      out.total_bytes += span.bytes;
      for (std::uint64_t done = 0; done < span.bytes; done += piece_bytes) {
        const auto bytes = static_cast<std::uint32_t>(std::min<std::uint64_t>(piece_bytes, span.bytes - done));
        const WorkItem item =
            WorkItem::make(span.app_address.address() + done, span.arena_offset + done, arena.arena, bytes);
        if (bytes < piece_bytes) ++out.partial_items;
        if (((item.app_address() ^ item.arena_offset()) & 15u) != 0) ++out.narrow_items;
        out.items.push_back(item);
      }
    }
  }
  assert(out.items.size() == item_count);
  return out;
}

Status check_disjoint(std::span<const ArenaSpans> arenas) {
  std::vector<Interval> app;
  std::vector<Interval> arena_side;
  for (const ArenaSpans& arena : arenas) {
    for (std::size_t i = 0; i < arena.spans.size(); ++i) {
      const CopySpan& span = arena.spans[i];
      if (span.bytes == 0) continue;
      if (wraps(span.app_address.address(), span.bytes) || wraps(span.arena_offset, span.bytes)) {
        return invalid_argument(span_name(arena.arena, i) + " wraps the address space");
      }
      app.push_back({span.app_address.address(), span.app_address.address() + span.bytes, arena.arena, i});
    }
  }
  RR_RETURN_IF_ERROR(first_overlap(app, "application memory"));

  // Arena ranges only conflict within one arena: group spans by arena name.
  std::vector<std::uint32_t> names;
  for (const ArenaSpans& arena : arenas) names.push_back(arena.arena);
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  for (std::uint32_t name : names) {
    arena_side.clear();
    for (const ArenaSpans& arena : arenas) {
      if (arena.arena != name) continue;
      for (std::size_t i = 0; i < arena.spans.size(); ++i) {
        const CopySpan& span = arena.spans[i];
        if (span.bytes == 0) continue;
        arena_side.push_back({span.arena_offset, span.arena_offset + span.bytes, name, i});
      }
    }
    RR_RETURN_IF_ERROR(first_overlap(arena_side, "their arena"));
  }
  return ok_status();
}

}  // namespace rangereplay
