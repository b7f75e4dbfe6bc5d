// Helpers of the JSONL reader that work on raw JSON text.
// Thread-safety: pure functions.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "tokenmill/base/status.h"

namespace tokenmill {

// Splits a dotted field path ("meta.text") into its keys. InvalidArgument for an empty path or
// an empty key ("a..b", ".a", "a.").
StatusOr<std::vector<std::string>> SplitFieldPath(std::string_view path);

// Copies the JSON text `in` to *out with every lone UTF-16 surrogate escape (a "\uD800".."\uDBFF"
// not followed by a "\uDC00".."\uDFFF", or a "\uDC00".."\uDFFF" on its own) replaced by
// "\uFFFD". Escaped backslashes are honoured. Sets *replaced to the number of replacements.
void ReplaceLoneSurrogateEscapes(std::string_view in, std::string* out, size_t* replaced);

}  // namespace tokenmill
