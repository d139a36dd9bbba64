// Host reference of the chunk digest and the region combination (see chunk_digest.h).
#include "core/snapshot/digest/chunk_digest.h"

#include <algorithm>
#include <cstring>

namespace rangereplay {
namespace {

std::uint64_t load_le64(const unsigned char* p) {
  std::uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

}  // namespace

DigestAccumulator chunk_digest_words(const void* chunk, std::size_t chunk_bytes, std::uint64_t first_word,
                                     std::uint64_t end_word) {
  const auto* bytes = static_cast<const unsigned char*>(chunk);
  const std::uint64_t words = (static_cast<std::uint64_t>(chunk_bytes) + 15) / 16;
  end_word = std::min(end_word, words);
  DigestAccumulator acc;
  for (std::uint64_t j = first_word; j < end_word; ++j) {
    unsigned char word[16] = {};
    const std::uint64_t at = j * 16;
    const std::size_t take = static_cast<std::size_t>(std::min<std::uint64_t>(16, chunk_bytes - at));
    std::memcpy(word, bytes + at, take);
    acc.add_word(load_le64(word), load_le64(word + 8), j);
  }
  return acc;
}

std::uint64_t chunk_digest_reference(const void* data, std::size_t bytes) {
  return chunk_digest_words(data, bytes, 0, (static_cast<std::uint64_t>(bytes) + 15) / 16).finish(bytes);
}

std::uint64_t zero_chunk_digest(std::size_t bytes) {
  DigestAccumulator acc;
  const std::uint64_t words = (static_cast<std::uint64_t>(bytes) + 15) / 16;
  for (std::uint64_t j = 0; j < words; ++j) acc.add_word(0, 0, j);
  return acc.finish(bytes);
}

std::uint64_t combine_chunk_digests(std::span<const std::uint64_t> chunk_digests, std::uint64_t region_bytes) {
  std::uint64_t h = region_digest_begin(region_bytes);
  for (const std::uint64_t d : chunk_digests) h = region_digest_step(h, d);
  return h;
}

}  // namespace rangereplay
