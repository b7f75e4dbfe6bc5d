#include "tokenmill/examples/python_strip.h"

#include <cstddef>
#include <cstdint>

namespace tokenmill {
namespace {

// Decodes the UTF-8 sequence of exactly `len` bytes at `p` (len 1..3 is enough: every Python
// whitespace character is at most 3 bytes long). Returns 0xFFFFFFFF (never whitespace) if the
// bytes are not one valid sequence of that length.
char32_t DecodeExact(const unsigned char* p, size_t len) {
  constexpr char32_t kInvalid = 0xFFFFFFFF;
  switch (len) {
    case 1:
      return p[0] < 0x80 ? p[0] : kInvalid;
    case 2:
      if (p[0] < 0xC2 || p[0] > 0xDF || (p[1] & 0xC0) != 0x80) return kInvalid;
      return (static_cast<char32_t>(p[0] & 0x1F) << 6) | (p[1] & 0x3F);
    case 3: {
      if ((p[0] & 0xF0) != 0xE0 || (p[1] & 0xC0) != 0x80 || (p[2] & 0xC0) != 0x80) return kInvalid;
      const char32_t c = (static_cast<char32_t>(p[0] & 0x0F) << 12) |
                         (static_cast<char32_t>(p[1] & 0x3F) << 6) | (p[2] & 0x3F);
      if (c < 0x800 || (c >= 0xD800 && c <= 0xDFFF)) return kInvalid;  // overlong, surrogate
      return c;
    }
    default:
      return kInvalid;
  }
}

// Byte length of the whitespace character starting at s[i], or 0.
size_t WhitespaceAt(std::string_view s, size_t i) {
  const auto* p = reinterpret_cast<const unsigned char*>(s.data()) + i;
  const size_t avail = s.size() - i;
  size_t len = 1;
  if (p[0] >= 0xE0) {
    len = 3;
  } else if (p[0] >= 0xC0) {
    len = 2;
  }
  if (len > avail) return 0;
  return IsPythonWhitespace(DecodeExact(p, len)) ? len : 0;
}

// Byte length of the whitespace character ending just before s[end], or 0.
size_t WhitespaceBefore(std::string_view s, size_t end) {
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  for (size_t len = 1; len <= 3 && len <= end; ++len) {
    const unsigned char lead = p[end - len];
    if ((lead & 0xC0) == 0x80) continue;  // a continuation byte: look further back
    return IsPythonWhitespace(DecodeExact(p + end - len, len)) ? len : 0;
  }
  return 0;
}

}  // namespace

bool IsPythonWhitespace(char32_t c) {
  if (c <= 0x20) return c == 0x20 || (c >= 0x09 && c <= 0x0D) || (c >= 0x1C && c <= 0x1F);
  if (c < 0x85) return false;
  switch (c) {
    case 0x85:
    case 0xA0:
    case 0x1680:
    case 0x2028:
    case 0x2029:
    case 0x202F:
    case 0x205F:
    case 0x3000:
      return true;
    default:
      return c >= 0x2000 && c <= 0x200A;
  }
}

std::string_view PythonStrip(std::string_view text) {
  size_t begin = 0;
  while (begin < text.size()) {
    const size_t n = WhitespaceAt(text, begin);
    if (n == 0) break;
    begin += n;
  }
  size_t end = text.size();
  while (end > begin) {
    const size_t n = WhitespaceBefore(text.substr(begin), end - begin);
    if (n == 0) break;
    end -= n;
  }
  return text.substr(begin, end - begin);
}

}  // namespace tokenmill
