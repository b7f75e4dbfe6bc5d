// Bytes16: 16 bytes as one value of the compiler's vector extensions (SSE2 on x86-64, NEON on
// ARM), for scanning text 16 bytes at a time: a comparison gives 0xFF in the lanes that match.
#pragma once

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

}  // namespace tokenmill
