// Bytes16: 16 bytes as one value of the compiler's vector extensions (SSE2 on x86-64, NEON on
// ARM), for scanning text 16 bytes at a time: a comparison gives 0xFF in the lanes that match.
#pragma once

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include <bit>
#include <cstdint>
#include <cstring>

namespace tokenmill {

using Bytes16 = uint8_t __attribute__((vector_size(16)));

// The 16 bytes at `p` (any alignment).
inline Bytes16 Load16(const char* p) {
  Bytes16 v;
  std::memcpy(&v, p, 16);
  return v;
}

// The sum of the 16 lanes.
inline uint64_t SumLanes(Bytes16 v) {
  uint64_t lo, hi;
  std::memcpy(&lo, &v, 8);
  std::memcpy(&hi, reinterpret_cast<const char*>(&v) + 8, 8);
  const auto pairs = [](uint64_t x) {  // the 8 bytes of x summed in 16-bit lanes
    return (x & 0x00FF00FF00FF00FFULL) + ((x >> 8) & 0x00FF00FF00FF00FFULL);
  };
  return ((pairs(lo) + pairs(hi)) * 0x0001000100010001ULL) >> 48;
}

// A lane mask (0x00 or 0xFF per byte, as comparisons give) as 16 bits, bit k for lane k.
inline uint32_t LaneBits(Bytes16 mask) {
#if defined(__SSE2__)
  __m128i m;
  std::memcpy(&m, &mask, 16);
  return static_cast<uint32_t>(_mm_movemask_epi8(m));
#else
  static_assert(std::endian::native == std::endian::little);
  uint64_t lo, hi;
  std::memcpy(&lo, &mask, 8);
  std::memcpy(&hi, reinterpret_cast<const char*>(&mask) + 8, 8);
  // One bit per byte at 8k gathers into bit 56 + k of the product (no two terms collide).
  constexpr uint64_t kGather = 0x0102040810204080ULL;
  const uint64_t l = ((lo & 0x0101010101010101ULL) * kGather) >> 56;
  const uint64_t h = ((hi & 0x0101010101010101ULL) * kGather) >> 56;
  return static_cast<uint32_t>(l | h << 8);
#endif
}

}  // namespace tokenmill
