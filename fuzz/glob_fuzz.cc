// Fuzz target: glob patterns (io/glob.h).
//
// The input is PATTERN '\n' TEXT (no newline: the whole input is the pattern, matched against
// itself). Checks: no crash or blow-up; a valid pattern that matches TEXT has its literal prefix
// as a prefix of TEXT; a pattern without wildcards matches exactly its unescaped self; a match
// keeps every '/' of TEXT where the pattern has one (wildcards never match '/').
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "tokenmill/io/glob.h"

namespace {

int FuzzGlob(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const size_t nl = input.find('\n');
  const std::string_view pattern = input.substr(0, nl);
  const std::string_view text = nl == std::string_view::npos ? pattern : input.substr(nl + 1);
  if (!tokenmill::ValidateGlob(pattern).ok()) return 0;
  const bool match = tokenmill::GlobMatch(pattern, text);
  const std::string prefix = tokenmill::LiteralGlobPrefix(pattern);
  if (match && !text.starts_with(prefix)) std::abort();
  if (!tokenmill::HasGlobWildcard(pattern) && match != (text == prefix)) std::abort();
  if (match &&
      std::count(text.begin(), text.end(), '/') > std::count(pattern.begin(), pattern.end(), '/')) {
    std::abort();
  }
  return 0;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return FuzzGlob(data, size);
}
