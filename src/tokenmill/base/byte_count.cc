#include "tokenmill/base/byte_count.h"

#include <algorithm>
#include <cstdint>

#include "tokenmill/base/bytes16.h"

namespace tokenmill {

size_t CountByte(std::string_view text, char byte) {
  const char* p = text.data();
  const size_t n = text.size();
  const auto c = static_cast<uint8_t>(byte);
  size_t count = 0;
  size_t i = 0;
  // Lanes count up to 255 blocks, then are summed.
  constexpr size_t kChunkBytes = 16 * 255;
  while (n - i >= 16) {
    const size_t end = i + std::min(kChunkBytes, (n - i) / 16 * 16);
    Bytes16 lanes{};
    for (; i < end; i += 16) {
      lanes -= static_cast<Bytes16>(Load16(p + i) == c);  // a match is 0xFF: minus one
    }
    count += SumLanes(lanes);
  }
  for (; i < n; ++i) count += static_cast<uint8_t>(p[i]) == c ? 1 : 0;
  return count;
}

}  // namespace tokenmill
