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
  const std::string bad =
      "a\xff"
      "b\xe4\xbd"
      "c\xed\xa0\x80"
      "d";
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

// An independent reference: decode by arithmetic, then reject overlongs, surrogates and code
// points above U+10FFFF. Returns the offset of the first invalid byte, or npos.
size_t ReferenceFirstInvalid(std::string_view s) {
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  size_t i = 0;
  while (i < s.size()) {
    const unsigned c = p[i];
    size_t len = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
    if (len == 0 || i + len > s.size()) return i;
    uint32_t cp = len == 1 ? c : c & (0x7F >> len);
    for (size_t k = 1; k < len; ++k) {
      if ((p[i + k] & 0xC0) != 0x80) return i;
      cp = (cp << 6) | (p[i + k] & 0x3F);
    }
    static const uint32_t kMin[] = {0, 0, 0x80, 0x800, 0x10000};
    if (cp < kMin[len] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return i;
    i += len;
  }
  return std::string_view::npos;
}

// FindInvalidUtf8 takes a SIMD fast path for valid text: both paths must agree with the
// reference on every sequence of up to three bytes and on every four-byte lead, embedded in text
// long enough for the SIMD code's wide blocks.
TEST(Utf8, FindInvalidAgreesWithReferenceOnEveryShortSequence) {
  const std::string pad(70, 'a');
  size_t checked = 0;
  auto check = [&](std::string_view seq) {
    for (const std::string& s : {std::string(seq), pad + std::string(seq) + pad}) {
      ASSERT_EQ(FindInvalidUtf8(s), ReferenceFirstInvalid(s)) << "sequence length " << seq.size();
      ++checked;
    }
  };
  std::string b(3, '\0');
  for (unsigned x = 0; x < 256; ++x) {
    check(std::string(1, static_cast<char>(x)));
    for (unsigned y = 0; y < 256; ++y) {
      b.resize(2);
      b[0] = static_cast<char>(x);
      b[1] = static_cast<char>(y);
      check(b);
      if (x < 0xC0 || y < 0x80 || y > 0xBF) continue;
      for (unsigned z = 0x7F; z <= 0xC0; ++z) {
        b.resize(3);
        b[2] = static_cast<char>(z);
        check(b);
        b.push_back('\x80');
        check(b);
        b.back() = '\x7f';
        check(b);
      }
    }
  }
  EXPECT_GT(checked, 100000u);
}

TEST(Utf8Test, ValidUtf8ViewCopiesOnlyInvalidText) {
  std::string storage;
  const std::string valid = "h\xC3\xA9llo";
  EXPECT_EQ(ValidUtf8View(valid, InvalidUtf8::kReplace, &storage).data(), valid.data());
  EXPECT_TRUE(storage.empty());
  EXPECT_EQ(ValidUtf8View("a\xFF"
                          "b",
                          InvalidUtf8::kReplace, &storage),
            "a\xEF\xBF\xBD"
            "b");
  EXPECT_EQ(ValidUtf8View("a\xFF"
                          "b",
                          InvalidUtf8::kDrop, &storage),
            "ab");
}

}  // namespace
}  // namespace tokenmill
