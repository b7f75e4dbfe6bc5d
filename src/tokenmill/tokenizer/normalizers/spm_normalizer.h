// SentencePiece's own normalizer (sentencepiece 0.1.97 normalizer.cc), for .model files: the
// charsmap applied by longest match over the remaining text, leading/trailing/repeated spaces
// removed (remove_extra_whitespaces), a "▁" in front (add_dummy_prefix) and spaces as "▁"
// (escape_whitespaces). Malformed UTF-8 becomes U+FFFD, one per byte.
#pragma once

#include <string>
#include <string_view>

#include "tokenmill/tokenizer/char_util.h"
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
  // The normalized form of the prefix of `input` and the bytes it consumes; `valid`: the whole
  // input is valid UTF-8.
  std::string_view Prefix(std::string_view input, bool valid, size_t* consumed) const;
  // Whether the character at the start of `input` is kept as it is (no charsmap key starts with
  // it and it is valid), with its length in *consumed.
  bool Plain(std::string_view input, bool valid, size_t* consumed) const {
    const auto b0 = static_cast<unsigned char>(input[0]);
    if (b0 < 0x80) {
      *consumed = 1;
      return map_.empty() || !map_.MayMatch(b0) ||
             !map_.MayMatchAscii(b0, input.size() > 1 ? static_cast<unsigned char>(input[1]) : 0);
    }
    if (!valid) return false;
    const size_t l = Utf8Length(b0);
    *consumed = l;
    if (map_.empty()) return true;
    const auto b1 = static_cast<unsigned char>(input[1]);
    if (l == 2) return map_.Untouched((b0 & 0x1Fu) << 6 | (b1 & 0x3Fu));
    if (l == 3) {
      const auto b2 = static_cast<unsigned char>(input[2]);
      return map_.Untouched((b0 & 0x0Fu) << 12 | (b1 & 0x3Fu) << 6 | (b2 & 0x3Fu));
    }
    return false;
  }

  CharsMap map_;
  SpmNormalizerSpec spec_;
};

}  // namespace tokenmill::hf
