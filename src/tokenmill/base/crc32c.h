// CRC-32C (Castagnoli), as used by TFRecord framing.
// Uses the SSE4.2 crc32 instruction when the CPU has it, a slicing-by-8 table otherwise.
// Thread-safety: pure functions.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace tokenmill::crc32c {

// Returns the CRC-32C of data[0, n) continuing from `init` (the CRC of the preceding bytes).
uint32_t Extend(uint32_t init, const void* data, size_t n);

// As Extend, always by the table (what Extend uses on a CPU without the instruction; for tests).
uint32_t ExtendPortable(uint32_t init, const void* data, size_t n);

inline uint32_t Value(const void* data, size_t n) { return Extend(0, data, n); }
inline uint32_t Value(std::string_view s) { return Extend(0, s.data(), s.size()); }

// TFRecord's masked CRC: rotate right by 15 bits and add 0xa282ead8.
inline uint32_t Mask(uint32_t crc) { return ((crc >> 15) | (crc << 17)) + 0xa282ead8u; }
inline uint32_t Unmask(uint32_t masked) {
  uint32_t rot = masked - 0xa282ead8u;
  return (rot >> 17) | (rot << 15);
}

}  // namespace tokenmill::crc32c
