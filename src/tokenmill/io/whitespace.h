// Whitespace as Python's str.isspace() / str.strip() define it, on UTF-8 bytes.
//
// The BERT/ELECTRA corpus format separates documents by lines that are empty after
// str.strip(): the characters whose bidirectional class is WS, B or S, or whose general
// category is Zs (Unicode 14, as in Python 3.11):
//   U+0009..U+000D, U+001C..U+001F, U+0020, U+0085, U+00A0, U+1680, U+2000..U+200A,
//   U+2028, U+2029, U+202F, U+205F, U+3000.
// U+180E, U+200B and U+FEFF are not whitespace.
// Thread-safety: pure functions.
#pragma once

#include <cstddef>

namespace tokenmill {

// The UTF-8 length (1 to 3 bytes) of the whitespace character that starts at p[0..n), or 0 if
// p does not start with one (including when n is too short to hold it).
size_t PythonSpaceLength(const char* p, size_t n);

// The longest encoding of a whitespace character, in bytes.
inline constexpr size_t kMaxSpaceBytes = 3;

}  // namespace tokenmill
