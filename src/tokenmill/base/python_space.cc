#include "tokenmill/base/python_space.h"

namespace tokenmill {

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

size_t PythonSpaceLength(const char* p, size_t n) {
  if (n == 0) return 0;
  const auto* u = reinterpret_cast<const unsigned char*>(p);
  const unsigned char c = u[0];
  if (c < 0x80) {
    return ((c >= 0x09 && c <= 0x0D) || (c >= 0x1C && c <= 0x20)) ? 1 : 0;
  }
  if (c == 0xC2) {  // U+0085, U+00A0
    return (n >= 2 && (u[1] == 0x85 || u[1] == 0xA0)) ? 2 : 0;
  }
  if (n < 3) return 0;
  if (c == 0xE1) return (u[1] == 0x9A && u[2] == 0x80) ? 3 : 0;  // U+1680
  if (c == 0xE2) {
    if (u[1] == 0x80) {
      const unsigned char d = u[2];
      // U+2000..U+200A, U+2028, U+2029, U+202F
      return ((d >= 0x80 && d <= 0x8A) || d == 0xA8 || d == 0xA9 || d == 0xAF) ? 3 : 0;
    }
    return (u[1] == 0x81 && u[2] == 0x9F) ? 3 : 0;  // U+205F
  }
  if (c == 0xE3) return (u[1] == 0x80 && u[2] == 0x80) ? 3 : 0;  // U+3000
  return 0;
}

std::string_view PythonStrip(std::string_view text) {
  const char* p = text.data();
  size_t begin = 0;
  while (begin < text.size()) {
    const size_t n = PythonSpaceLength(p + begin, text.size() - begin);
    if (n == 0) break;
    begin += n;
  }
  size_t end = text.size();
  while (end > begin) {
    // The character ending just before `end` starts at its last non-continuation byte; it is
    // whitespace only if it is exactly one whitespace sequence reaching `end`.
    size_t len = 1;
    while (len < kMaxSpaceBytes && len < end - begin &&
           (static_cast<unsigned char>(p[end - len]) & 0xC0) == 0x80) {
      ++len;
    }
    if (PythonSpaceLength(p + end - len, len) != len) break;
    end -= len;
  }
  return text.substr(begin, end - begin);
}

}  // namespace tokenmill
