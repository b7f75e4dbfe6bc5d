#include "tokenmill/base/byte_set.h"

#include <bit>
#include <cstring>

#include "tokenmill/base/bytes16.h"

namespace tokenmill {
namespace {

// The first lane (in text order) that is 0xFF of 8 lanes loaded from memory into an integer.
size_t FirstLane(uint64_t lanes) {
  const int zero_bits = std::endian::native == std::endian::little ? std::countr_zero(lanes)
                                                                   : std::countl_zero(lanes);
  return static_cast<size_t>(zero_bits) / 8;
}

}  // namespace

void ByteSet::Add(unsigned char b) {
  if (table_[b]) return;
  table_[b] = true;
  if (count_ < kMaxVectorBytes) bytes_[count_] = b;
  ++count_;
}

size_t ByteSet::Find(std::string_view text, size_t pos) const {
  const size_t n = text.size();
  if (pos >= n || count_ == 0) return n;
  const char* p = text.data();
  if (count_ == 1) {
    const void* hit = std::memchr(p + pos, bytes_[0], n - pos);
    return hit == nullptr ? n : static_cast<size_t>(static_cast<const char*>(hit) - p);
  }
  size_t i = pos;
  if (count_ <= kMaxVectorBytes) {
    for (; n - i >= 16; i += 16) {
      const Bytes16 block = Load16(p + i);
      Bytes16 match = block == bytes_[0];
      for (size_t k = 1; k < count_; ++k) match |= block == bytes_[k];
      uint64_t lo, hi;
      std::memcpy(&lo, &match, 8);
      std::memcpy(&hi, reinterpret_cast<const char*>(&match) + 8, 8);
      if (lo != 0) return i + FirstLane(lo);
      if (hi != 0) return i + 8 + FirstLane(hi);
    }
  }
  for (; i < n; ++i) {
    if (table_[static_cast<unsigned char>(p[i])]) return i;
  }
  return n;
}

}  // namespace tokenmill
