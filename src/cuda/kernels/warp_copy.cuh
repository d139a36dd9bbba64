// The warp copy loop: one warp moves one piece of at most 65536 bytes, split
// as split_piece() says (core/snapshot/work_stream.h). Shared by the copy kernel
// (copy_kernel.cu), the digest plan's in-order chunk copy (digest_kernel.cu,
// chunk_copy_kernel) and copy_bench's grid-stride variant, so all copy a piece
// with the very same instructions.
//
// A 16-byte body moves with eight vectors per lane in flight (a 4 KiB piece is
// one round): lane l takes vectors l, l + 32, ..., so each instruction of the
// warp touches one contiguous 512-byte span, and all loads of a round are
// issued before its stores. A body whose ends differ modulo 16 uses the widest
// vector both allow (8, 4, 2 or 1 bytes), one per lane in flight (more costs
// the 16-byte path registers: its kernels stay within 64 registers, no spills,
// for 4 blocks of 256 threads per SM on sm_90). Head bytes go on lanes 0..15,
// tail bytes on lanes 16..31.
//
// Device code only; include from .cu files. Every function is inline, so each
// kernel's translation unit keeps its own copy (the kernels themselves have
// internal linkage and hidden visibility).
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "core/snapshot/work_stream.h"

namespace rangereplay::kernels::warp_copy {

inline constexpr std::uint32_t kWarpLanes = 32;
// 16-byte vectors in flight per lane: 8 x 16 B x 32 lanes = one 4 KiB piece.
inline constexpr std::uint32_t kUnroll16 = 8;

// Loads and stores name the global space explicitly (the addresses arrive as
// integers, which would otherwise make them generic). Default variant: loads
// through the read-only path (ld.global.nc), ordinary write-back stores.
// Streaming variant: evict-first loads and stores (ld/st.global.cs).
template <bool kStreaming, typename T>
__device__ __forceinline__ T load_vector(const T* p) {
  if constexpr (kStreaming) {
    return __ldcs(p);
  } else {
    return __ldg(p);
  }
}

template <bool kStreaming, typename T>
__device__ __forceinline__ void store_vector(T* p, const T& v) {
  if constexpr (kStreaming) {
    __stcs(p, v);
  } else {
    __stwb(p, v);
  }
}

// Copies n elements of T (src and dst aligned to sizeof(T)). Lane l takes
// elements l, l + 32, ...: each instruction of the warp touches one
// contiguous 32 * sizeof(T) span; all kUnroll loads of a round are issued
// before its stores, so kUnroll vectors per lane are in flight.
template <bool kStreaming, typename T, std::uint32_t kUnroll>
__device__ __forceinline__ void copy_vectors(unsigned char* dst, const unsigned char* src, std::uint32_t n,
                                             std::uint32_t lane) {
  const T* s = reinterpret_cast<const T*>(src);
  T* d = reinterpret_cast<T*>(dst);
#pragma unroll 1
  for (std::uint32_t base = lane; base < n; base += kWarpLanes * kUnroll) {
    const T* sp = s + base;
    T* dp = d + base;
    const std::uint32_t left = n - base;
    T v[kUnroll];
#pragma unroll
    for (std::uint32_t k = 0; k < kUnroll; ++k) {
      if (k * kWarpLanes < left) v[k] = load_vector<kStreaming>(sp + k * kWarpLanes);
    }
#pragma unroll
    for (std::uint32_t k = 0; k < kUnroll; ++k) {
      if (k * kWarpLanes < left) store_vector<kStreaming>(dp + k * kWarpLanes, v[k]);
    }
  }
}

// The body of a piece whose src and dst differ modulo 16: the slow path for
// layouts a planner should avoid. One vector per lane in flight.
template <bool kStreaming>
__device__ __forceinline__ void copy_narrow(unsigned char* dst, const unsigned char* src, std::uint32_t body,
                                            std::uint32_t width, std::uint32_t lane) {
  switch (width) {
    case 8: copy_vectors<kStreaming, uint2, 1>(dst, src, body / 8, lane); break;
    case 4: copy_vectors<kStreaming, unsigned int, 1>(dst, src, body / 4, lane); break;
    case 2: copy_vectors<kStreaming, unsigned short, 1>(dst, src, body / 2, lane); break;
    default: copy_vectors<kStreaming, unsigned char, 1>(dst, src, body, lane); break;
  }
}

// A piece's head bytes on lanes 0..15 and tail bytes on lanes 16..31 of one warp.
__device__ __forceinline__ void copy_head_tail(unsigned char* dst, const unsigned char* src, const PieceSplit& split,
                                               std::uint32_t lane) {
  if (lane < split.head) dst[lane] = src[lane];
  if (lane >= 16 && lane - 16 < split.tail) {
    const std::uint32_t at = split.head + split.body + (lane - 16);
    dst[at] = src[at];
  }
}

// One warp copies one piece of `len` bytes (1..65536), split as
// split_piece() says: head bytes on lanes 0..15, tail bytes on lanes 16..31,
// the body as the widest vectors src and dst allow.
template <bool kStreaming>
__device__ __forceinline__ void copy_piece(unsigned char* dst, const unsigned char* src, std::uint32_t len,
                                           std::uint32_t lane) {
  const PieceSplit split = split_piece(reinterpret_cast<std::uint64_t>(src), reinterpret_cast<std::uint64_t>(dst), len);
  copy_head_tail(dst, src, split, lane);
  if (split.width == 16) {
    copy_vectors<kStreaming, uint4, kUnroll16>(dst + split.head, src + split.head, split.body / 16, lane);
  } else {
    copy_narrow<kStreaming>(dst + split.head, src + split.head, split.body, split.width, lane);
  }
}

}  // namespace rangereplay::kernels::warp_copy
