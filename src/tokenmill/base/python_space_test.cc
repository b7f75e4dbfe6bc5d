#include "tokenmill/base/python_space.h"

#include <gtest/gtest.h>
#include <utf8proc.h>

#include <string>
#include <vector>

namespace tokenmill {
namespace {

std::string Utf8(char32_t c) {
  utf8proc_uint8_t buf[4];
  const auto n = utf8proc_encode_char(static_cast<utf8proc_int32_t>(c), buf);
  return std::string(reinterpret_cast<const char*>(buf), static_cast<size_t>(n));
}

// Python's definition of str.isspace(): category Zs, or bidirectional class WS, B or S.
bool PythonDefinition(char32_t c) {
  const utf8proc_property_t* p = utf8proc_get_property(static_cast<utf8proc_int32_t>(c));
  return p->category == UTF8PROC_CATEGORY_ZS || p->bidi_class == UTF8PROC_BIDI_CLASS_WS ||
         p->bidi_class == UTF8PROC_BIDI_CLASS_B || p->bidi_class == UTF8PROC_BIDI_CLASS_S;
}

TEST(IsPythonWhitespace, IsPythonsSetAndDefinition) {
  // [hex(c) for c in range(0x110000) if chr(c).isspace()] in CPython 3.11.
  const std::vector<char32_t> expected = {
      0x9,    0xa,    0xb,    0xc,    0xd,    0x1c,   0x1d,   0x1e,   0x1f,   0x20,
      0x85,   0xa0,   0x1680, 0x2000, 0x2001, 0x2002, 0x2003, 0x2004, 0x2005, 0x2006,
      0x2007, 0x2008, 0x2009, 0x200a, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000};
  std::vector<char32_t> got;
  for (char32_t c = 0; c < 0x110000; ++c) {
    if (IsPythonWhitespace(c)) got.push_back(c);
    if (c < 0xD800 || c > 0xDFFF) {
      ASSERT_EQ(IsPythonWhitespace(c), PythonDefinition(c)) << std::hex << "U+" << uint32_t{c};
    }
  }
  EXPECT_EQ(got, expected);
}

TEST(PythonStrip, StripsEveryWhitespaceCharacter) {
  for (char32_t c = 0; c < 0x110000; ++c) {
    if (!IsPythonWhitespace(c)) continue;
    const std::string ws = Utf8(c);
    EXPECT_EQ(PythonStrip(ws + "a" + ws + "b" + ws + ws), "a" + ws + "b") << uint32_t{c};
  }
}

TEST(PythonStrip, Cases) {
  EXPECT_EQ(PythonStrip(""), "");
  EXPECT_EQ(PythonStrip("   "), "");
  EXPECT_EQ(PythonStrip("\t a b \r\x0b\x0c"), "a b");
  EXPECT_EQ(PythonStrip("\xe3\x80\x80\xe4\xb8\xad\xe6\x96\x87\xe3\x80\x80"),
            "\xe4\xb8\xad\xe6\x96\x87");  // U+3000 around 中文
  EXPECT_EQ(PythonStrip("\xe3\x80\x80\xe3\x80\x80"), "");
  // Not whitespace to Python: U+200B, U+FEFF, U+180E.
  EXPECT_EQ(PythonStrip("\xe2\x80\x8b"
                        "x"),
            "\xe2\x80\x8b"
            "x");
  EXPECT_EQ(PythonStrip("x\xef\xbb\xbf"), "x\xef\xbb\xbf");
  EXPECT_EQ(PythonStrip("\xe1\xa0\x8e"), "\xe1\xa0\x8e");
  // A multi-byte character whose last byte looks like ASCII-range data is untouched.
  EXPECT_EQ(PythonStrip("\xc3\xa0"), "\xc3\xa0");  // U+00E0
  EXPECT_EQ(PythonStrip(" \xc2\x85 \xc2\xa0"), "");
}

TEST(PythonStrip, InvalidUtf8StopsStripping) {
  EXPECT_EQ(PythonStrip(" \xff "), "\xff");
  EXPECT_EQ(PythonStrip("\x80 "), "\x80");
  EXPECT_EQ(PythonStrip(" \xe3\x80"), "\xe3\x80");         // truncated U+3000
  EXPECT_EQ(PythonStrip("\x80\x80 "), "\x80\x80");         // stray continuation bytes
  EXPECT_EQ(PythonStrip("\xe0\x80\xa0"), "\xe0\x80\xa0");  // overlong U+0020
  EXPECT_EQ(PythonStrip("\xc2"), "\xc2");
}

TEST(PythonSpaceLength, MatchesIsPythonWhitespaceOnEveryCodePoint) {
  for (char32_t cp = 0; cp < 0x110000; ++cp) {
    if (cp >= 0xD800 && cp <= 0xDFFF) continue;
    const std::string s = Utf8(cp);
    const size_t len = PythonSpaceLength(s.data(), s.size());
    ASSERT_EQ(len, IsPythonWhitespace(cp) ? s.size() : 0u) << std::hex << uint32_t{cp};
  }
}

TEST(PythonSpaceLength, ShortInputIsNotSpace) {
  const std::string ideographic = "\xE3\x80\x80";
  EXPECT_EQ(PythonSpaceLength(ideographic.data(), 2), 0u);
  EXPECT_EQ(PythonSpaceLength(ideographic.data(), 0), 0u);
  EXPECT_EQ(PythonSpaceLength("\xC2", 1), 0u);
}

}  // namespace
}  // namespace tokenmill
