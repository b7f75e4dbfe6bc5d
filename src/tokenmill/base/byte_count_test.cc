#include "tokenmill/base/byte_count.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

namespace tokenmill {
namespace {

TEST(CountByte, AgreesWithStdCountAtEveryLengthAndAlignment) {
  // Lengths across the 16-byte blocks and the 255-block chunks, every start offset of a block,
  // bytes above 127 (the lanes compare bytes, not signed chars).
  std::string text;
  uint32_t x = 1;
  for (int i = 0; i < 9000; ++i) {
    x = x * 1103515245u + 12345u;
    const uint32_t r = (x >> 16) % 8;
    text.push_back(r == 0 ? '\n' : r == 1 ? '\xFF' : static_cast<char>('a' + r));
  }
  for (size_t offset = 0; offset < 16; ++offset) {
    for (size_t length : {size_t{0}, size_t{1}, size_t{15}, size_t{16}, size_t{17}, size_t{4079},
                          size_t{4080}, size_t{4081}, size_t{8160}, size_t{8500}}) {
      const std::string_view s = std::string_view(text).substr(offset, length);
      for (char c : {'\n', '\xFF', 'z'}) {
        EXPECT_EQ(CountByte(s, c), static_cast<size_t>(std::count(s.begin(), s.end(), c)))
            << "offset " << offset << " length " << length;
      }
    }
  }
  EXPECT_EQ(CountByte(std::string(100000, '\n'), '\n'), 100000u);  // lanes do not overflow
}

}  // namespace
}  // namespace tokenmill
