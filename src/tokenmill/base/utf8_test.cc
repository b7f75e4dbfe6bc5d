#include "tokenmill/base/utf8.h"

#include <gtest/gtest.h>

namespace tokenmill {
namespace {

TEST(Utf8, ValidPassesThrough) {
  std::string out;
  EXPECT_EQ(AppendValidUtf8("héllo 你好 😀", InvalidUtf8::kDrop, &out), 0u);
  EXPECT_EQ(out, "héllo 你好 😀");
  EXPECT_EQ(FindInvalidUtf8("héllo"), std::string_view::npos);
}

TEST(Utf8, DropAndReplace) {
  const std::string bad = "a\xff" "b\xe4\xbd" "c\xed\xa0\x80" "d";
  EXPECT_EQ(FindInvalidUtf8(bad), 1u);
  std::string dropped;
  EXPECT_EQ(AppendValidUtf8(bad, InvalidUtf8::kDrop, &dropped), 6u);
  EXPECT_EQ(dropped, "abcd");
  std::string replaced;
  AppendValidUtf8(bad, InvalidUtf8::kReplace, &replaced);
  // \xff -> 1 U+FFFD; truncated \xe4\xbd -> 1 U+FFFD (maximal subpart); surrogate -> 3 U+FFFD.
  EXPECT_EQ(replaced, "a\uFFFDb\uFFFDc\uFFFD\uFFFD\uFFFDd");
}

TEST(Utf8, TruncatedAtEnd) {
  std::string out;
  EXPECT_EQ(AppendValidUtf8("x\xf0\x9f\x98", InvalidUtf8::kReplace, &out), 3u);
  EXPECT_EQ(out, "x\uFFFD");
}

}  // namespace
}  // namespace tokenmill
