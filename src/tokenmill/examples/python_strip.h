// Python's str.strip() (no arguments) on UTF-8 text, as the ELECTRA builder applies it to lines.
//
// Python strips the characters for which str.isspace() is true: Unicode general category Zs, or
// bidirectional class WS, B or S. That is exactly these 29 code points (Unicode 15):
//   U+0009..U+000D, U+001C..U+001F, U+0020, U+0085, U+00A0, U+1680, U+2000..U+200A, U+2028,
//   U+2029, U+202F, U+205F, U+3000.
// U+200B (ZERO WIDTH SPACE), U+180E and U+FEFF are NOT whitespace to Python.
// Invalid UTF-8 is never whitespace: stripping stops at it. Thread-safety: pure functions.
#pragma once

#include <string_view>

namespace tokenmill {

// True if `c` is whitespace to Python's str.isspace().
bool IsPythonWhitespace(char32_t c);

// `text` without leading and trailing Python whitespace (a view into `text`).
std::string_view PythonStrip(std::string_view text);

}  // namespace tokenmill
