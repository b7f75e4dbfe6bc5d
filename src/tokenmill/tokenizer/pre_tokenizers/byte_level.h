// Byte-level BPE pre-tokenization: cutting text into the pieces that BPE then encodes one by one.
//
// The three patterns of tiktoken (GPT-2 = r50k_base = p50k_base, cl100k_base, o200k_base), Qwen2's,
// Tekken's and DeepSeek-V3's chain of three Split regexes have hand-written scanners, several times
// faster than a regex engine. A PCRE2 (JIT) splitter runs any pattern; it is the reference the
// scanners are tested against (byte_level_test.cc and fuzz/bpe_fuzz.cc) and the engine for other
// patterns found in tokenizer.json files. Both see the same character classes (unicode_classes.h):
// in the patterns given to PCRE2, \p{L}, \p{N}, \p{M}, \p{P}, \p{S}, \p{Lu}, \p{Ll}, \p{Lt},
// \p{Lm}, \p{Lo}, \s and their negations are replaced by explicit ranges.
//
// Input must be valid UTF-8 (BpeTokenizer repairs it first). On invalid input the scanners and the
// splitter never crash or lose bytes; their pieces are then unspecified.
// Thread-safety: PreTokenizer and RegexSplitter are immutable; Split() may run on many threads.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tokenmill/base/status.h"

namespace tokenmill::bpe {

enum class Pattern {
  kGpt2,    // gpt2, r50k_base, p50k_base; HF ByteLevel(use_regex=true)
  kCl100k,  // cl100k_base (also Llama 3)
  kO200k,   // o200k_base
  kQwen2,   // Qwen2, Qwen2.5, Qwen3 tokenizer.json: cl100k_base with one digit a piece
  kTekken,  // Mistral's Tekken (Mistral Nemo tokenizer.json): o200k_base without contractions,
            // one digit a piece
  // DeepSeek-V3 (and R1) tokenizer.json: three Split regexes in turn, each on the pieces of the
  // one before: digits in threes, runs of CJK characters, then a cl100k_base-like pattern.
  kDeepSeekV3,
  // HF's Digits(individual_digits) step, then GPT-2's pattern on the text between the digits
  // (Command R tokenizer.json: Digits before ByteLevel with its regex).
  kGpt2Digits,
};

// The regexes that `p` splits with, applied in turn (HF Split, behaviour Isolated): one for all
// but kDeepSeekV3 (three) and kGpt2Digits (\p{N}, then GPT-2's). tiktoken's pattern strings come
// from tiktoken/registry.json of tiktoken 1.0.22; kQwen2's, kTekken's and kDeepSeekV3's from those
// models' tokenizer.json.
std::span<const std::string_view> PatternRegexes(Pattern p);
// The only regex of a pattern other than kDeepSeekV3 (for it: the last of its three).
std::string_view PatternRegex(Pattern p);
std::string_view PatternName(Pattern p);

// The scanner-backed pattern that `regex` spells, if it is one of the known spellings (tiktoken's
// Python and JS registries, HF's ByteLevel regex).
std::optional<Pattern> KnownPattern(std::string_view regex);
// The scanner-backed pattern that a chain of several Split regexes spells (kDeepSeekV3,
// kGpt2Digits), if `regexes` are exactly its regexes.
std::optional<Pattern> KnownChain(std::span<const std::string> regexes);

// Rewrites `pattern` so that the classes named in the header comment use tiktoken's character
// table. Exposed for tests.
std::string ExpandClasses(std::string_view pattern);

// A PCRE2 regex (UTF + UCP, JIT when available) used as a splitter.
class RegexSplitter {
 public:
  // `expand_classes`: rewrite the classes with ExpandClasses() first (default); false keeps
  // PCRE2's own Unicode tables.
  static StatusOr<std::unique_ptr<RegexSplitter>> Compile(std::string_view pattern,
                                                          bool expand_classes = true);
  ~RegexSplitter();
  RegexSplitter(const RegexSplitter&) = delete;
  RegexSplitter& operator=(const RegexSplitter&) = delete;

  // Appends the pieces of `text` to *pieces: every non-empty match and the non-empty text between
  // matches (HF's Split behaviour "Isolated"; tiktoken's patterns match every character, so the
  // gaps are always empty for them); without `keep_gaps`, the matches only (HF's "Removed" with
  // invert: the text between matches is dropped). Text that is not valid UTF-8 becomes a single
  // piece.
  void Split(std::string_view text, std::vector<std::string_view>* pieces,
             bool keep_gaps = true) const;

  // Appends the [start, end) byte spans of the non-empty matches of `text`, leftmost first, not
  // overlapping (an empty match steps over one character). Invalid UTF-8: no matches.
  void Matches(std::string_view text, std::vector<std::pair<size_t, size_t>>* spans) const;

  const std::string& pattern() const { return pattern_; }

 private:
  RegexSplitter() = default;

  std::string pattern_;   // as given
  void* code_ = nullptr;  // pcre2_code_8*
};

// What a byte-level BPE tokenizer cuts text with: a scanner, a regex, or nothing (whole text).
class PreTokenizer {
 public:
  static PreTokenizer ForPattern(Pattern p);
  // A scanner when `regex` is a known spelling, else PCRE2. `force_regex` always uses PCRE2.
  // Without `keep_gaps` the text between matches is dropped (HF's Split "Removed" with invert);
  // the scanners' patterns match every character, so for them it changes nothing.
  static StatusOr<PreTokenizer> ForRegex(std::string_view regex, bool force_regex = false,
                                         bool keep_gaps = true);
  static PreTokenizer WholeText();  // HF ByteLevel(use_regex=false): the text is one piece

  // Appends the pieces of `text` (valid UTF-8) to *pieces, in order; they cover `text` exactly
  // (but the text between a regex's matches when made without keep_gaps).
  void Split(std::string_view text, std::vector<std::string_view>* pieces) const;
  // The same pieces handed to `visit` in order; a scanner pattern never holds them all (a regex
  // or the whole text are split first).
  void Visit(std::string_view text, const std::function<void(std::string_view)>& visit) const;

  // "gpt2", "cl100k_base", "o200k_base", "regex", "none".
  std::string_view name() const;
  std::optional<Pattern> pattern() const { return pattern_; }

 private:
  std::optional<Pattern> pattern_;
  std::shared_ptr<const RegexSplitter> regex_;
  bool keep_gaps_ = true;  // of regex_'s matches
};

}  // namespace tokenmill::bpe
