// SentencePiece's precompiled normalization charsmap (the "precompiled_charsmap" of a .model's
// normalizer_spec, base64 in tokenizer.json's "Precompiled" normalizer): a Darts double-array
// trie from UTF-8 strings to offsets of NUL-terminated replacements.
//
// Two ways to apply it, each bit-exact with its reference:
//  - HF tokenizers' Precompiled normalizer (spm_precompiled 0.1.x): per extended grapheme cluster
//    of fewer than 6 bytes, the *shortest* key that is a prefix of the grapheme replaces the whole
//    grapheme; otherwise each character alone.
//  - SentencePiece's normalizer: the *longest* key that is a prefix of the remaining text.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "tokenmill/base/status.h"
#include "tokenmill/tokenizer/normalizers/normalizer.h"

namespace tokenmill::hf {

class CharsMap {
 public:
  // Parses the binary blob (u32 trie size in bytes, the trie, the replacement strings). Errors
  // say what is malformed.
  static StatusOr<CharsMap> Parse(std::string_view blob);

  // The replacement of the shortest (HF) or longest (SentencePiece) key that prefixes `text`,
  // with the key's length in *key_len; false if no key prefixes it.
  bool Shortest(std::string_view text, std::string_view* replacement) const;
  bool Longest(std::string_view text, std::string_view* replacement, size_t* key_len) const;

  bool empty() const { return units_.empty(); }
  // Whether some key starts with byte b (false: b alone is never rewritten).
  bool MayMatch(unsigned char b) const { return first_[b]; }
  // For ASCII b followed by the byte `next` (0 at the end of the text): whether some key may
  // prefix the text there (false: b alone is kept).
  bool MayMatchAscii(unsigned char b, unsigned char next) const {
    if (next >= 0x80) return first_[b];
    const size_t i = size_t{b} << 7 | next;
    return ((ascii_pairs_[i >> 6] >> (i & 63)) & 1) != 0;
  }
  // Whether no key starts with the UTF-8 bytes of code point cp (true: the character is never
  // rewritten, whatever follows it). Answered from a table for the BMP; false above it.
  bool Untouched(uint32_t cp) const {
    return cp < 0x10000 && ((untouched_[cp >> 6] >> (cp & 63)) & 1) != 0;
  }

 private:
  // Calls f(value, key_length) for each key prefixing text, shortest first; stops when f is false.
  template <typename F>
  void PrefixSearch(std::string_view text, F f) const;
  std::string_view Replacement(uint32_t value) const;
  // Whether the trie has a path over all of `bytes` (some key starts with them).
  bool Walks(std::string_view bytes) const;
  void FillUntouched();

  std::vector<uint32_t> units_;
  std::string normalized_;
  bool first_[256] = {};
  std::vector<uint64_t> ascii_pairs_ = std::vector<uint64_t>(256, 0);
  std::vector<uint64_t> untouched_ = std::vector<uint64_t>(1024, ~uint64_t{0});
};

// HF's "Precompiled" normalizer.
class PrecompiledNormalizer final : public Normalizer {
 public:
  explicit PrecompiledNormalizer(CharsMap map);
  void Normalize(Segment* segment) const override;
  // Rules apply per grapheme cluster, so a cut before a cluster of its own is kept if the rules
  // leave a lone " " as it is.
  bool KeepsCut(std::string* cut) const override { return *cut == " " && space_kept_; }

 private:
  // Whether a BMP code point has grapheme break property Other: between two such characters
  // there is always a cluster boundary (rule GB999), so such a character followed by another is
  // a cluster of its own.
  bool BreaksAsOther(uint32_t cp) const {
    return cp < 0x10000 && ((other_[cp >> 6] >> (cp & 63)) & 1) != 0;
  }
  CharsMap map_;
  const uint64_t* other_;      // a bit per BMP code point
  bool ascii_kept_[256] = {};  // an ASCII byte that no rule rewrites alone (and not '\r')
  bool space_kept_ = false;    // " " alone is not rewritten (no rule, or one giving " ")
};

// Standard base64 (with or without padding); false on a bad character.
bool DecodeBase64Blob(std::string_view in, std::string* out);

}  // namespace tokenmill::hf
