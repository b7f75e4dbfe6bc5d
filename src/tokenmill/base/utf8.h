// UTF-8 validation and repair, shared by the readers and `tokenize`.
// Thread-safety: pure functions.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace tokenmill {

enum class InvalidUtf8 {
  kDrop,     // drop every byte that is not part of a valid sequence (BERT/ELECTRA pipelines)
  kReplace,  // replace each maximal invalid subpart with U+FFFD (WHATWG / TextDecoder rule)
};

// Returns the offset of the first invalid byte in `s`, or std::string_view::npos.
size_t FindInvalidUtf8(std::string_view s);

// Appends `in` to *out with invalid bytes dropped or replaced. Returns the number of invalid
// bytes found. Surrogates (ED A0..BF xx), overlongs and code points above U+10FFFF are invalid.
size_t AppendValidUtf8(std::string_view in, InvalidUtf8 policy, std::string* out);

// `in` itself when it is valid UTF-8 (no copy), else its repair, made in *storage.
std::string_view ValidUtf8View(std::string_view in, InvalidUtf8 policy, std::string* storage);

}  // namespace tokenmill
