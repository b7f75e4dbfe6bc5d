// SentencePiece's own normalizer (sentencepiece 0.1.97 normalizer.cc), for .model files: the
// charsmap applied by longest match over the remaining text, leading/trailing/repeated spaces
// removed (remove_extra_whitespaces), a "▁" in front (add_dummy_prefix) and spaces as "▁"
// (escape_whitespaces). Malformed UTF-8 becomes U+FFFD, one per byte.
#pragma once

#include <string>
#include <string_view>

#include "tokenmill/tokenizer/normalizers/precompiled.h"

namespace tokenmill::hf {

struct SpmNormalizerSpec {
  bool add_dummy_prefix = true;
  bool remove_extra_whitespaces = true;
  bool escape_whitespaces = true;
};

class SpmNormalizer {
 public:
  SpmNormalizer(CharsMap map, SpmNormalizerSpec spec) : map_(std::move(map)), spec_(spec) {}
  std::string Normalize(std::string_view input) const;

 private:
  // The normalized form of the prefix of `input` and the bytes it consumes.
  std::string_view Prefix(std::string_view input, size_t* consumed) const;

  CharsMap map_;
  SpmNormalizerSpec spec_;
};

}  // namespace tokenmill::hf
