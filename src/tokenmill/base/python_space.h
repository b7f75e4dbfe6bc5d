// Whitespace as Python's str.isspace() and str.strip() define it, on UTF-8 text.
//
// Python strips the characters for which str.isspace() is true: Unicode general category Zs, or
// bidirectional class WS, B or S. That is exactly these 29 code points (Unicode 14 in Python
// 3.11, unchanged in Unicode 15):
//   U+0009..U+000D, U+001C..U+001F, U+0020, U+0085, U+00A0, U+1680, U+2000..U+200A, U+2028,
//   U+2029, U+202F, U+205F, U+3000.
// U+200B (ZERO WIDTH SPACE), U+180E and U+FEFF are NOT whitespace to Python.
// Invalid UTF-8 is never whitespace: stripping stops at it.
// The BERT/ELECTRA corpus format separates documents by lines that are empty after str.strip(),
// and the ELECTRA builder strips every line before tokenizing it.
// Thread-safety: pure functions.
#pragma once

#include <cstddef>
#include <string_view>

namespace tokenmill {

// True if `c` is whitespace to Python's str.isspace().
bool IsPythonWhitespace(char32_t c);

// The UTF-8 length (1 to 3 bytes) of the whitespace character that starts at p[0..n), or 0 if
// p does not start with one (including when n is too short to hold it).
size_t PythonSpaceLength(const char* p, size_t n);

// The longest encoding of a whitespace character, in bytes.
inline constexpr size_t kMaxSpaceBytes = 3;

// `text` without leading and trailing Python whitespace (a view into `text`).
std::string_view PythonStrip(std::string_view text);

}  // namespace tokenmill
