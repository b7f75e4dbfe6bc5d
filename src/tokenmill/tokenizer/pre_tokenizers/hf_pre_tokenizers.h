// HF tokenizers' pre-tokenizers (tokenizers 0.23.2, pre_tokenizers/*.rs) other than ByteLevel and
// BertPreTokenizer: Split, Metaspace, Digits, Punctuation, Whitespace, WhitespaceSplit,
// CharDelimiterSplit. The five split behaviours are HF's NormalizedString::split.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tokenmill/base/status.h"
#include "tokenmill/tokenizer/char_util.h"
#include "tokenmill/tokenizer/pre_tokenizers/pre_tokenizer.h"

namespace tokenmill::bpe {
class RegexSplitter;
}

namespace tokenmill::hf {

enum class SplitBehavior { kRemoved, kIsolated, kMergedWithPrevious, kMergedWithNext, kContiguous };
StatusOr<SplitBehavior> ParseSplitBehavior(std::string_view name);

// The matches of a pattern in a text, as HF's Pattern::find_matches: a cover of the text by
// [start, end) ranges flagged as matches or not.
using MatchFinder =
    std::function<void(std::string_view text, std::vector<std::pair<size_t, size_t>>* matches)>;

// Splits every piece by `find` with `behavior` (after flipping the flags if `invert`).
class SplitPreTokenizer final : public PreTokenizer {
 public:
  SplitPreTokenizer(MatchFinder find, SplitBehavior behavior, bool invert)
      : find_(std::move(find)), behavior_(behavior), invert_(invert) {}
  void PreTokenize(std::vector<Piece>* pieces) const override;
  // Only for a literal that does not hold *cut (it then never matches at or across the cut) and
  // without invert.
  bool KeepsCut(std::string* cut) const override {
    if (invert_ || !literal_.has_value()) return false;
    if (*cut == kSpaceOrMetaspace) {
      return literal_->find(' ') == std::string::npos &&
             literal_->find(kMetaspace) == std::string::npos;
    }
    return literal_->find(*cut) == std::string::npos;
  }
  // Set by the loader for a literal pattern (the finder does not tell).
  void set_literal(std::string literal) { literal_ = std::move(literal); }

  // Finders: a literal string (each occurrence), a regex (each non-empty match), a character
  // predicate (each matching character).
  static MatchFinder Literal(std::string literal);
  static StatusOr<MatchFinder> Regex(std::string_view pattern);
  static MatchFinder Chars(std::function<bool(uint32_t)> predicate);

 private:
  MatchFinder find_;
  SplitBehavior behavior_;
  bool invert_;
  std::optional<std::string> literal_;
};

enum class PrependScheme { kFirst, kNever, kAlways };

// "Metaspace": ' ' becomes `replacement`, which is prepended by the scheme, and (if `split`) each
// piece is cut before every replacement character (MergedWithNext).
class MetaspacePreTokenizer final : public PreTokenizer {
 public:
  MetaspacePreTokenizer(std::string replacement, PrependScheme scheme, bool split)
      : replacement_(std::move(replacement)), scheme_(scheme), split_(split) {}
  void PreTokenize(std::vector<Piece>* pieces) const override;
  bool Visit(std::string_view text, bool at_origin,
             const std::function<void(std::string_view)>& visit) const override;
  // A piece that starts with the replacement gets none prepended, and one that is not at the
  // origin none under "first".
  bool KeepsCut(std::string* cut) const override {
    if (replacement_ != kMetaspace) return false;
    *cut = replacement_;
    return true;
  }
  // With `split`, a piece starts at every replacement character.
  bool CutsBeforeMeta() const override { return split_ && replacement_ == kMetaspace; }

 private:
  bool StartsWithReplacement(std::string_view text) const;
  std::string replacement_;
  PrependScheme scheme_;
  bool split_;
};

}  // namespace tokenmill::hf
