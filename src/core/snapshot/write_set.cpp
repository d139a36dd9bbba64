// Write-set predictions and proofs (see write_set.h).
#include "core/snapshot/write_set.h"

#include <algorithm>
#include <cassert>
#include <charconv>
#include <memory>

#include "core/snapshot/digest/chunk_digest.h"

namespace rangereplay {

ByteSpans ByteSpans::of(std::span<const MemoryRange> spans) {
  ByteSpans set;
  for (const MemoryRange& s : spans) set.add(s);
  return set;
}

void ByteSpans::add(const MemoryRange& span) {
  if (span.empty()) return;
  // The first span that ends at or after span's start: everything before it
  // lies wholly below and does not touch.
  auto first = std::lower_bound(spans_.begin(), spans_.end(), span.start(),
                                [](const MemoryRange& s, DevicePtr at) { return s.end() < at; });
  DevicePtr start = span.start();
  DevicePtr end = span.end();
  auto last = first;
  while (last != spans_.end() && last->start() <= end) {
    start = std::min(start, last->start());
    end = std::max(end, last->end());
    ++last;
  }
  const MemoryRange merged(start, end.address() - start.address());
  if (first == last) {
    spans_.insert(first, merged);
  } else {
    *first = merged;
    spans_.erase(first + 1, last);
  }
}

void ByteSpans::add(const ByteSpans& other) {
  for (const MemoryRange& s : other.spans_) add(s);
}

std::uint64_t ByteSpans::bytes() const {
  std::uint64_t total = 0;
  for (const MemoryRange& s : spans_) total += s.size();
  return total;
}

ByteSpans ByteSpans::within(const MemoryRange& region) const {
  ByteSpans inside;
  for (const MemoryRange& s : spans_) {
    if (!s.overlaps(region)) continue;
    const DevicePtr start = std::max(s.start(), region.start());
    const DevicePtr end = std::min(s.end(), region.end());
    inside.spans_.push_back(MemoryRange(start, end.address() - start.address()));
  }
  return inside;
}

ByteSpans ByteSpans::minus(const ByteSpans& other) const {
  ByteSpans rest;
  std::size_t j = 0;
  for (const MemoryRange& s : spans_) {
    while (j < other.spans_.size() && other.spans_[j].end() <= s.start()) ++j;
    std::uint64_t at = s.start().address();
    for (std::size_t k = j; k < other.spans_.size() && other.spans_[k].start() < s.end(); ++k) {
      const std::uint64_t hole = other.spans_[k].start().address();
      if (hole > at) rest.spans_.push_back(MemoryRange(DevicePtr(at), hole - at));
      at = std::max(at, other.spans_[k].end().address());
    }
    if (at < s.end().address()) rest.spans_.push_back(MemoryRange(DevicePtr(at), s.end().address() - at));
  }
  return rest;
}

std::uint64_t ByteSpans::bytes_outside(const ByteSpans& other) const {
  // Both sorted: one merge walk, linear in the two sets' spans.
  std::uint64_t inside = 0;
  std::size_t j = 0;
  for (const MemoryRange& s : spans_) {
    while (j < other.spans_.size() && other.spans_[j].end() <= s.start()) ++j;
    for (std::size_t k = j; k < other.spans_.size() && other.spans_[k].start() < s.end(); ++k) {
      const DevicePtr start = std::max(s.start(), other.spans_[k].start());
      const DevicePtr end = std::min(s.end(), other.spans_[k].end());
      inside += end.address() - start.address();
    }
  }
  return bytes() - inside;
}

ByteSpans chunks_touching(const MemoryRange& region, const ByteSpans& spans, std::uint64_t chunk_bytes) {
  assert(chunk_bytes > 0 && "write-set chunks have a size");
  ByteSpans chunks;
  const std::uint64_t base = region.start().address();
  const ByteSpans inside = spans.within(region);  // outlives the loop over its spans
  for (const MemoryRange& s : inside.spans()) {
    const std::uint64_t first = (s.start().address() - base) / chunk_bytes;
    const std::uint64_t last = (s.end().address() - 1 - base) / chunk_bytes;
    const std::uint64_t begin = first * chunk_bytes;
    const std::uint64_t end = std::min((last + 1) * chunk_bytes, region.size());
    chunks.add(MemoryRange(region.start() + begin, end - begin));
  }
  return chunks;
}

ByteSpans changed_chunks(const ChunkTable& table, std::span<const std::uint64_t> entry,
                         std::span<const std::uint64_t> exit) {
  assert(entry.size() == table.chunk_count() && exit.size() == table.chunk_count() &&
         "one digest per chunk in both states");
  ByteSpans changed;
  for (std::size_t c = 0; c < table.chunk_count(); ++c) {
    if (entry[c] != exit[c]) changed.add(MemoryRange(table.app_address(c), table.chunks()[c].bytes));
  }
  return changed;
}

ByteSpans zero_chunks(const ChunkTable& table, std::span<const std::uint64_t> digests) {
  assert(digests.size() == table.chunk_count() && "one digest per chunk");
  ByteSpans zeros;
  // Chunks have the table's size but each region's last: remember the last size's digest.
  std::uint64_t size = 0, zero_digest = 0;
  for (std::size_t c = 0; c < table.chunk_count(); ++c) {
    const std::uint64_t bytes = table.chunks()[c].bytes;
    if (bytes != size) {
      size = bytes;
      zero_digest = zero_chunk_digest(static_cast<std::size_t>(bytes));
    }
    if (digests[c] == zero_digest) zeros.add(MemoryRange(table.app_address(c), bytes));
  }
  return zeros;
}

WriteSetProof prove_write_set(const ByteSpans& changed, const ByteSpans& predicted, const ByteSpans& zero_at_entry) {
  const ByteSpans unpredicted = changed.minus(predicted);
  const ByteSpans not_zero = unpredicted.minus(zero_at_entry);
  return WriteSetProof{changed.bytes(), not_zero.bytes(), unpredicted.minus(not_zero)};
}

std::vector<std::uint32_t> write_set_order(std::span<const MemoryRange> regions, std::uint64_t min_bytes) {
  std::vector<std::uint32_t> order;
  for (std::size_t r = 0; r < regions.size(); ++r) {
    if (!regions[r].empty() && regions[r].size() >= min_bytes) order.push_back(static_cast<std::uint32_t>(r));
  }
  std::stable_sort(order.begin(), order.end(),
                   [&](std::uint32_t a, std::uint32_t b) { return regions[a].size() > regions[b].size(); });
  return order;
}

WriteSetLayout plan_write_set_snapshot(std::span<const MemoryRange> regions, std::span<const bool> write_set,
                                       const ByteSpans& prediction, std::uint64_t chunk_bytes) {
  assert(write_set.size() == regions.size() && "one write-set flag per region");
  WriteSetLayout layout;
  for (std::size_t r = 0; r < regions.size(); ++r) {
    const auto source = static_cast<std::uint32_t>(r);
    if (!write_set[r]) {
      layout.snapshot.push_back(regions[r]);
      layout.source.push_back(source);
      continue;
    }
    layout.digested.push_back(regions[r]);
    layout.digested_source.push_back(source);
    layout.digested_bytes += regions[r].size();
    const ByteSpans chunks = chunks_touching(regions[r], prediction, chunk_bytes);
    for (const MemoryRange& c : chunks.spans()) {
      layout.snapshot.push_back(c);
      layout.source.push_back(source);
    }
    layout.predicted.add(chunks);
  }
  return layout;
}

std::optional<WriteSetLayout> try_write_set_layouts(std::span<const MemoryRange> regions, const ByteSpans& prediction,
                                                    const std::function<bool(const WriteSetLayout&)>& attempt,
                                                    std::size_t max_regions, std::uint64_t chunk_bytes) {
  const std::vector<std::uint32_t> order = write_set_order(regions);
  const std::unique_ptr<bool[]> write_set = std::make_unique<bool[]>(regions.size());  // all false
  for (std::size_t k = 0; k < order.size() && k < max_regions; ++k) {
    write_set[order[k]] = true;
    WriteSetLayout layout = plan_write_set_snapshot(regions, std::span<const bool>(write_set.get(), regions.size()),
                                                    prediction, chunk_bytes);
    if (attempt(layout)) return layout;
  }
  return std::nullopt;
}

const WriteSetPrediction* WriteSetPredictor::find(std::string_view name) const {
  auto it = predictions_.find(name);
  return it == predictions_.end() ? nullptr : &it->second;
}

void WriteSetPredictor::learn(std::string_view name, const ByteSpans& changed, std::uint32_t instance) {
  auto it = predictions_.find(name);
  if (it == predictions_.end()) it = predictions_.emplace(std::string(name), WriteSetPrediction{}).first;
  WriteSetPrediction& p = it->second;
  const bool first = p.measured == 0;
  const bool grows = changed.bytes_outside(p.chunks) > 0;
  p.chunks.add(changed);
  if (first || grows) p.from_instance = instance;
  ++p.measured;
}

std::string write_set_prediction_key(bool kernel_window, std::string_view name) {
  constexpr std::string_view kPrefix = "kernels ";
  if (!kernel_window || !name.starts_with(kPrefix)) return std::string(name);
  const std::string_view bounds = name.substr(kPrefix.size());
  const std::size_t colon = bounds.find(':');
  std::uint64_t first = 0, end = 0;
  const auto number = [](std::string_view text, std::uint64_t& out) {
    const char* last = text.data() + text.size();
    auto [ptr, ec] = std::from_chars(text.data(), last, out);
    return ec == std::errc() && ptr == last && !text.empty();
  };
  if (colon == std::string_view::npos || !number(bounds.substr(0, colon), first) ||
      !number(bounds.substr(colon + 1), end) || end <= first)
    return std::string(name);
  return "kernel windows of " + std::to_string(end - first) + " launches";
}

}  // namespace rangereplay
