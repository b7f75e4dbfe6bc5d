// CountByte: how many times a byte occurs in a text, 16 bytes at a time (the compiler's vector
// extensions: SSE2 here, NEON on ARM); std::count over chars runs a byte at a time.
#pragma once

#include <cstddef>
#include <string_view>

namespace tokenmill {

size_t CountByte(std::string_view text, char byte);

}  // namespace tokenmill
