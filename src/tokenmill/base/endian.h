// Little-endian fixed-width encoding and decoding (all tokenmill formats are little endian).
#pragma once

#include <cstdint>
#include <cstring>
#include <string>

namespace tokenmill {

template <typename T>
inline void PutFixedLE(std::string* dst, T v) {
  static_assert(std::is_integral_v<T>);
  char buf[sizeof(T)];
  for (size_t i = 0; i < sizeof(T); ++i)
    buf[i] = static_cast<char>((static_cast<uint64_t>(v) >> (8 * i)) & 0xff);
  dst->append(buf, sizeof(T));
}

template <typename T>
inline T GetFixedLE(const void* p) {
  static_assert(std::is_integral_v<T>);
  const auto* b = static_cast<const uint8_t*>(p);
  uint64_t v = 0;
  for (size_t i = 0; i < sizeof(T); ++i) v |= static_cast<uint64_t>(b[i]) << (8 * i);
  return static_cast<T>(v);
}

}  // namespace tokenmill
