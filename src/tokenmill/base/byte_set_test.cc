#include "tokenmill/base/byte_set.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace tokenmill {
namespace {

// The naive answer: the first position at or after pos of a byte in `bytes`.
size_t NaiveFind(std::string_view text, size_t pos, const std::vector<unsigned char>& bytes) {
  for (size_t i = pos; i < text.size(); ++i) {
    for (unsigned char b : bytes) {
      if (static_cast<unsigned char>(text[i]) == b) return i;
    }
  }
  return text.size();
}

TEST(ByteSet, EmptySetFindsNothing) {
  ByteSet set;
  EXPECT_TRUE(set.empty());
  EXPECT_EQ(set.Find("abc<def", 0), 7u);
  EXPECT_EQ(set.Find("", 0), 0u);
}

TEST(ByteSet, AgreesWithTheNaiveScanForEverySetSizeStartAndLength) {
  // Sets of 1 byte (memchr), 2 to 8 (16 bytes at a time) and more (the table), with bytes
  // above 127 and NUL; texts where the set's bytes are rare, so that most blocks hold none and
  // a hit falls in either half of a block or in the tail.
  std::string text;
  uint32_t x = 7;
  for (int i = 0; i < 700; ++i) {
    x = x * 1103515245u + 12345u;
    const uint32_t r = (x >> 16) % 64;
    text.push_back(r < 12 ? static_cast<char>("<\xE4\x00[\xFF|#\x80\x7F~^{"[r])
                          : static_cast<char>('a' + r % 26));
  }
  const std::vector<unsigned char> pool = {'<', 0xE4, 0x00, '[', 0xFF, '|',
                                           '#', 0x80, 0x7F, '~', '^',  '{'};
  for (size_t count = 1; count <= pool.size(); ++count) {
    ByteSet set;
    std::vector<unsigned char> bytes(pool.begin(), pool.begin() + static_cast<long>(count));
    for (unsigned char b : bytes) set.Add(b);
    set.Add(bytes[0]);  // a repeated byte changes nothing
    for (unsigned char b : bytes) EXPECT_TRUE(set.Contains(b));
    EXPECT_FALSE(set.Contains('a'));
    for (size_t length : {size_t{0}, size_t{1}, size_t{15}, size_t{16}, size_t{17}, size_t{31},
                          size_t{33}, size_t{200}, size_t{600}}) {
      for (size_t offset = 0; offset < 20; ++offset) {
        const std::string_view s = std::string_view(text).substr(offset, length);
        for (size_t pos = 0; pos <= s.size() + 1; ++pos) {
          ASSERT_EQ(set.Find(s, pos), NaiveFind(s, pos, bytes))
              << "set of " << count << ", offset " << offset << ", length " << length << ", pos "
              << pos;
        }
      }
    }
  }
}

TEST(ByteSet, FindsTheFirstOfSeveralHitsInOneBlock) {
  ByteSet set;
  set.Add('x');
  set.Add('y');
  const std::string text = "................y..x.......x....";
  EXPECT_EQ(set.Find(text, 0), 16u);
  EXPECT_EQ(set.Find(text, 17), 19u);
  EXPECT_EQ(set.Find(text, 20), 27u);
  EXPECT_EQ(set.Find(text, 28), text.size());
}

}  // namespace
}  // namespace tokenmill
