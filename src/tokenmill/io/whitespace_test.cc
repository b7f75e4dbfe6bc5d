#include "tokenmill/io/whitespace.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

#include "tokenmill/io/document_reader.h"

namespace tokenmill {
namespace {

std::string Utf8(uint32_t cp) {
  std::string s;
  if (cp < 0x80) {
    s.push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    s.push_back(static_cast<char>(0xC0 | (cp >> 6)));
    s.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    s.push_back(static_cast<char>(0xE0 | (cp >> 12)));
    s.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    s.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    s.push_back(static_cast<char>(0xF0 | (cp >> 18)));
    s.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    s.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    s.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
  return s;
}

// Python 3.11: [hex(c) for c in range(0x110000) if chr(c).isspace()]
const std::set<uint32_t> kPythonSpaces = {
    0x9,    0xA,    0xB,    0xC,    0xD,    0x1C,   0x1D,   0x1E,   0x1F,   0x20,
    0x85,   0xA0,   0x1680, 0x2000, 0x2001, 0x2002, 0x2003, 0x2004, 0x2005, 0x2006,
    0x2007, 0x2008, 0x2009, 0x200A, 0x2028, 0x2029, 0x202F, 0x205F, 0x3000};

TEST(WhitespaceTest, MatchesPythonIsSpaceOnEveryCodePoint) {
  for (uint32_t cp = 0; cp <= 0x10FFFF; ++cp) {
    if (cp >= 0xD800 && cp <= 0xDFFF) continue;
    const std::string s = Utf8(cp);
    const size_t len = PythonSpaceLength(s.data(), s.size());
    if (kPythonSpaces.contains(cp)) {
      ASSERT_EQ(len, s.size()) << std::hex << cp;
    } else {
      ASSERT_EQ(len, 0u) << std::hex << cp;
    }
  }
}

TEST(WhitespaceTest, ShortInputIsNotSpace) {
  const std::string ideographic = "\xE3\x80\x80";
  EXPECT_EQ(PythonSpaceLength(ideographic.data(), 2), 0u);
  EXPECT_EQ(PythonSpaceLength(ideographic.data(), 0), 0u);
  EXPECT_EQ(PythonSpaceLength("\xC2", 1), 0u);
}

TEST(IsBlankLineTest, PythonStripSemantics) {
  EXPECT_TRUE(IsBlankLine(""));
  EXPECT_TRUE(IsBlankLine(" \t\r\v\f"));
  EXPECT_TRUE(IsBlankLine("\x1C\x1D\x1E\x1F"));
  EXPECT_TRUE(IsBlankLine("\xE3\x80\x80\xE3\x80\x80"));              // U+3000 U+3000
  EXPECT_TRUE(IsBlankLine("\xC2\x85 \xC2\xA0"));                     // U+0085, U+00A0
  EXPECT_TRUE(IsBlankLine("\xE2\x80\xA8\xE2\x80\xA9"));              // U+2028, U+2029
  EXPECT_TRUE(IsBlankLine("\xE2\x80\xAF\xE2\x81\x9F\xE1\x9A\x80"));  // U+202F U+205F U+1680
  EXPECT_FALSE(IsBlankLine("a"));
  EXPECT_FALSE(IsBlankLine("  a  "));
  EXPECT_FALSE(IsBlankLine("\xE2\x80\x8B"));  // U+200B ZERO WIDTH SPACE is not whitespace
  EXPECT_FALSE(IsBlankLine("\xE1\xA0\x8E"));  // U+180E is not whitespace since Unicode 6.3
  EXPECT_FALSE(IsBlankLine("\xEF\xBB\xBF"));  // U+FEFF
  EXPECT_FALSE(IsBlankLine(std::string_view("\0", 1)));
  EXPECT_FALSE(IsBlankLine(" \xFF "));    // invalid bytes are not whitespace
  EXPECT_FALSE(IsBlankLine("\xE3\x80"));  // truncated U+3000
}

}  // namespace
}  // namespace tokenmill
