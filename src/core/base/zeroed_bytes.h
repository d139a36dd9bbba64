// A heap buffer of bytes that is zero when made, without writing it.
//
// std::vector<std::uint8_t>(n) writes every one of its n bytes. A buffer of
// hundreds of MiB that is written only in places (CUPTI's counter data image:
// a header, then the slots of the ranges a pass fills) then costs a page
// fault and a zeroing of every page before its first use. ZeroedBytes takes
// its block from calloc: a block large enough to be a fresh mapping (glibc's
// mmap threshold, 128 KiB to 32 MiB) comes as the kernel's zero pages without
// being touched, so a page costs its fault only where it is first written;
// a smaller block is zeroed by calloc as std::vector would. Copies and
// assignments copy every byte (they touch it all). A moved-from ZeroedBytes
// is empty. Thread-safety: as a std::vector (distinct objects on distinct
// threads).
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
  /// `bytes` may lie within this buffer.
  void assign(std::span<const std::uint8_t> bytes) {
    if (bytes.size() == size_) {
      if (!bytes.empty()) std::memmove(bytes_.get(), bytes.data(), bytes.size());
      return;
    }
    Block block = allocate(bytes.size(), false);  // `bytes` stays valid until the copy
    if (!bytes.empty()) std::memcpy(block.get(), bytes.data(), bytes.size());
    bytes_ = std::move(block);
    size_ = bytes.size();
  }
  /// Frees the block (size() 0).
  void clear() {
    bytes_.reset();
    size_ = 0;
  }

  /// The first byte (nullptr when empty).
  std::uint8_t* data() { return bytes_.get(); }
  const std::uint8_t* data() const { return bytes_.get(); }
  /// The size in bytes.
  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  /// The size() bytes; valid until this buffer is assigned, cleared or gone.
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
