// A heap buffer of bytes that is zero when made, without writing it.
//
// std::vector<std::uint8_t>(n) writes every one of its n bytes. A buffer of
// hundreds of MiB that is written only in places (CUPTI's counter data image:
// a header, then the slots of the ranges a pass fills) then costs a page
// fault and a zeroing of every page before its first use. ZeroedBytes takes
// its block from calloc, which returns a fresh mapping's pages (the kernel's
// zero pages) without touching them: a page costs its fault only where it is
// first written. Copies and assignments copy every byte (they touch it all).
// Thread-safety: as a std::vector (distinct objects on distinct threads).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <span>
#include <utility>

namespace rangereplay {

class ZeroedBytes {
 public:
  ZeroedBytes() = default;
  /// `size` bytes, every one zero. Throws std::bad_alloc when the heap
  /// cannot give them.
  explicit ZeroedBytes(std::size_t size) : bytes_(allocate(size, true)), size_(size) {}
  ZeroedBytes(const ZeroedBytes& other) : ZeroedBytes() { assign(other.span()); }
  ZeroedBytes& operator=(const ZeroedBytes& other) {
    if (this != &other) assign(other.span());
    return *this;
  }
  ZeroedBytes(ZeroedBytes&& other) noexcept : bytes_(std::move(other.bytes_)), size_(std::exchange(other.size_, 0)) {}
  ZeroedBytes& operator=(ZeroedBytes&& other) noexcept {
    bytes_ = std::move(other.bytes_);
    size_ = std::exchange(other.size_, 0);
    return *this;
  }
  ~ZeroedBytes() = default;

  /// Replaces the contents with a copy of `bytes` (the block is reused when
  /// its size is the same). Throws std::bad_alloc as the constructor.
  void assign(std::span<const std::uint8_t> bytes) {
    if (bytes.size() != size_) {
      bytes_ = allocate(bytes.size(), false);
      size_ = bytes.size();
    }
    if (!bytes.empty()) std::memmove(bytes_.get(), bytes.data(), bytes.size());
  }
  /// Frees the block (size() 0).
  void clear() {
    bytes_.reset();
    size_ = 0;
  }

  std::uint8_t* data() { return bytes_.get(); }
  const std::uint8_t* data() const { return bytes_.get(); }
  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  std::span<const std::uint8_t> span() const { return {bytes_.get(), size_}; }

 private:
  struct Free {
    void operator()(std::uint8_t* p) const { std::free(p); }
  };
  using Block = std::unique_ptr<std::uint8_t[], Free>;
  static Block allocate(std::size_t size, bool zeroed) {
    if (size == 0) return nullptr;
    void* p = zeroed ? std::calloc(size, 1) : std::malloc(size);
    if (p == nullptr) throw std::bad_alloc();
    return Block(static_cast<std::uint8_t*>(p));
  }
  Block bytes_;
  std::size_t size_ = 0;
};

}  // namespace rangereplay
