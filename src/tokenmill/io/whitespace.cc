#include "tokenmill/io/whitespace.h"

#include <string_view>

#include "tokenmill/io/document_reader.h"

namespace tokenmill {

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

bool IsBlankLine(std::string_view line) {
  size_t i = 0;
  while (i < line.size()) {
    const size_t k = PythonSpaceLength(line.data() + i, line.size() - i);
    if (k == 0) return false;
    i += k;
  }
  return true;
}

}  // namespace tokenmill
