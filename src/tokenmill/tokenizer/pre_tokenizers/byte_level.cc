#include "tokenmill/tokenizer/pre_tokenizers/byte_level.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "tokenmill/base/bytes16.h"
#include "tokenmill/base/utf8.h"
#include "tokenmill/tokenizer/pre_tokenizers/unicode_classes.h"

namespace tokenmill::bpe {
namespace {

// The patterns, verbatim from tiktoken 1.0.22's registry.json (the JS package the golden files
// come from). Python tiktoken spells gpt2 and cl100k differently but equivalently; KnownPattern()
// accepts those spellings too.
constexpr std::string_view kGpt2Regex =
    R"('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+)";
constexpr std::string_view kCl100kRegex =
    R"((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)";
constexpr std::string_view kQwen2Regex =
    R"((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)";
constexpr std::string_view kO200kRegex =
    R"([^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+)";
constexpr std::string_view kTekkenRegex =
    R"([^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+)";
// DeepSeek-V3's three Split regexes, verbatim from its tokenizer.json (the third holds CR and LF
// characters, not escapes).
constexpr std::string_view kDeepSeekDigitsRegex = R"(\p{N}{1,3})";
// HF's Digits pre-tokenizer with individual_digits, as a Split regex (behaviour Isolated).
constexpr std::string_view kDigitRegex = R"(\p{N})";
constexpr std::string_view kDeepSeekCjkRegex =  // [一-龥぀-ゟ゠-ヿ]+
    "[\xE4\xB8\x80-\xE9\xBE\xA5\xE3\x81\x80-\xE3\x82\x9F\xE3\x82\xA0-\xE3\x83\xBF]+";
constexpr std::string_view kDeepSeekRestRegex =
    "[!\"#$%&'()*+,\\-./"
    ":;<=>?@\\[\\\\\\]^_`{|}~][A-Za-z]+|[^\r\n\\p{L}\\p{P}\\p{S}]?[\\p{L}\\p{M}]+"
    "| ?[\\p{P}\\p{S}]+[\r\n]*|\\s*[\r\n]+|\\s+(?!\\S)|\\s+";
// Other spellings of the same patterns.
constexpr std::string_view kGpt2RegexPython =
    R"('(?:[sdmt]|ll|ve|re)| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+)";
constexpr std::string_view kCl100kRegexPython =
    R"('(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]++[\r\n]*|\s*[\r\n]|\s+(?!\S)|\s+)";

constexpr uint8_t kNotOther = kLetter | kNumber | kSpace;  // [^\s\p{L}\p{N}] is "other"

using Byte = unsigned char;

// The scanners below implement the patterns' leftmost-first alternation with the backtracking a
// regex engine would do, alternative by alternative. Positions are byte offsets.
class Scanner {
 public:
  explicit Scanner(std::string_view text)
      : s_(reinterpret_cast<const Byte*>(text.data())), n_(text.size()), cc_(CharClasses::Get()) {}

  uint8_t At(size_t i, size_t* len) const { return cc_.At(s_, n_, i, len); }

  // Skips characters whose class has a bit of `mask`.
  size_t SkipIn(size_t j, uint8_t mask) const {
    size_t len;
    while (j < n_ && (At(j, &len) & mask) != 0) j += len;
    return j;
  }
  // Skips characters whose class has no bit of `mask`.
  size_t SkipNotIn(size_t j, uint8_t mask) const {
    size_t len;
    while (j < n_ && (At(j, &len) & mask) == 0) j += len;
    return j;
  }
  // SkipIn(j, mask) for a class whose ASCII members are the bytes where `ascii` (a lane test of
  // 16 bytes) holds: runs of those 16 bytes at a time, the rest by class.
  template <typename AsciiTest>
  [[gnu::always_inline]] size_t SkipAscii(size_t j, uint8_t mask, AsciiTest ascii) const {
    while (j + 16 <= n_) {
      const Bytes16 v = Load16(reinterpret_cast<const char*>(s_ + j));
      const uint32_t other = ~LaneBits(ascii(v)) & 0xFFFF;
      if (other != 0) {
        j += static_cast<size_t>(std::countr_zero(other));
        return s_[j] < 0x80 ? j : SkipIn(j, mask);
      }
      j += 16;
    }
    return SkipIn(j, mask);
  }
  // \p{L}+ from j: ASCII A-Z and a-z ((v | 0x20) - 'a' < 26, unsigned).
  [[gnu::always_inline]] size_t SkipLetters(size_t j) const {
    return SkipAscii(j, kLetter,
                     [](Bytes16 v) { return static_cast<Bytes16>((v | 0x20) - 'a' < 26); });
  }
  // [\p{Ll}\p{Lm}\p{Lo}\p{M}]+ from j: ASCII a-z.
  [[gnu::always_inline]] size_t SkipLowerish(size_t j) const {
    return SkipAscii(j, kLowerish, [](Bytes16 v) { return static_cast<Bytes16>(v - 'a' < 26); });
  }
  size_t SkipCrLf(size_t j, bool slash) const {
    while (j < n_ && (s_[j] == '\r' || s_[j] == '\n' || (slash && s_[j] == '/'))) ++j;
    return j;
  }

  // 's|'t|'re|'ve|'m|'ll|'d at i (case-sensitive): the match length or 0.
  size_t Contraction(size_t i) const {
    if (i + 1 >= n_ || s_[i] != '\'') return 0;
    const Byte c = s_[i + 1];
    if (c == 's' || c == 't' || c == 'm' || c == 'd') return 2;
    if (i + 2 < n_) {
      const Byte d = s_[i + 2];
      if ((c == 'r' && d == 'e') || (c == 'v' && d == 'e') || (c == 'l' && d == 'l')) return 3;
    }
    return 0;
  }

  // (?i:'s|'t|'re|'ve|'m|'ll|'d) at i: the match length or 0. Case-insensitive matching follows
  // Unicode simple case folding, under which U+017F LATIN SMALL LETTER LONG S is an 's'.
  size_t ContractionNoCase(size_t i) const {
    if (i + 1 >= n_ || s_[i] != '\'') return 0;
    const Byte c = s_[i + 1] | 0x20;  // ASCII letters to lower case; others stay non-letters
    const bool ascii = s_[i + 1] < 0x80;
    if (ascii && (c == 's' || c == 't' || c == 'm' || c == 'd')) return 2;
    if (s_[i + 1] == 0xC5 && i + 2 < n_ && s_[i + 2] == 0xBF) return 3;  // U+017F
    if (ascii && i + 2 < n_ && s_[i + 2] < 0x80) {
      const Byte d = s_[i + 2] | 0x20;
      if ((c == 'r' && d == 'e') || (c == 'v' && d == 'e') || (c == 'l' && d == 'l')) return 3;
    }
    return 0;
  }

  // \s+(?!\S)|\s+ for the whitespace run at i; with `newlines`, first \s*[\r\n]+.
  size_t Whitespace(size_t i, size_t len, bool newlines) const {
    size_t last = i;           // start of the run's last character
    size_t after_newline = 0;  // end of the run's last \r or \n
    size_t j = i;
    size_t l = len;
    for (;;) {
      if (newlines && (s_[j] == '\r' || s_[j] == '\n')) after_newline = j + 1;
      last = j;
      j += l;
      if (j >= n_ || (At(j, &l) & kSpace) == 0) break;
    }
    if (after_newline != 0) return after_newline;  // \s*[\r\n]+
    if (j >= n_) return n_;                        // \s+(?!\S) at the end of the text
    if (last > i) return last;                     // \s+(?!\S): all but the last character
    return j;                                      // \s+: a single character
  }

  // 's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+
  size_t Gpt2(size_t i) const {
    if (size_t m = Contraction(i)) return i + m;
    size_t len;
    const uint8_t k = At(i, &len);
    if (s_[i] == ' ' && i + 1 < n_) {
      size_t len2;
      const uint8_t k2 = At(i + 1, &len2);
      if (k2 & kLetter) return SkipLetters(i + 1 + len2);
      if (k2 & kNumber) return SkipIn(i + 1 + len2, kNumber);
      if ((k2 & kNotOther) == 0) return SkipNotIn(i + 1 + len2, kNotOther);
    }
    if (k & kLetter) return SkipLetters(i + len);
    if (k & kNumber) return SkipIn(i + len, kNumber);
    if ((k & kSpace) == 0) return SkipNotIn(i + len, kNotOther);
    return Whitespace(i, len, /*newlines=*/false);
  }

  // (?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}|
  //  ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+
  // (kMaxDigits 3; Qwen2's pattern is the same with \p{N}, kMaxDigits 1.)
  size_t Cl100k(size_t i) const { return Cl100kLike<3>(i); }
  size_t Qwen2(size_t i) const { return Cl100kLike<1>(i); }

  // The end of pattern P's piece at i.
  template <Pattern P>
  size_t Piece(size_t i) const {
    if constexpr (P == Pattern::kGpt2) return Gpt2(i);
    if constexpr (P == Pattern::kCl100k) return Cl100k(i);
    if constexpr (P == Pattern::kO200k) return O200kLike<3, true>(i);
    if constexpr (P == Pattern::kQwen2) return Qwen2(i);
    if constexpr (P == Pattern::kTekken) return O200kLike<1, false>(i);
  }

  template <int kMaxDigits>
  size_t Cl100kLike(size_t i) const {
    if (size_t m = ContractionNoCase(i)) return i + m;
    size_t len;
    const uint8_t k = At(i, &len);
    if (k & kLetter) return SkipLetters(i + len);
    if ((k & kNumber) == 0 && s_[i] != '\r' && s_[i] != '\n' && i + len < n_) {
      size_t len2;
      if (At(i + len, &len2) & kLetter) return SkipLetters(i + len + len2);
    }
    if (k & kNumber) {
      size_t j = i + len;
      for (int count = 1; count < kMaxDigits && j < n_; ++count) {
        size_t len2;
        if ((At(j, &len2) & kNumber) == 0) break;
        j += len2;
      }
      return j;
    }
    if (s_[i] == ' ' && i + 1 < n_) {
      size_t len2;
      if ((At(i + 1, &len2) & kNotOther) == 0) {
        return SkipCrLf(SkipNotIn(i + 1 + len2, kNotOther), /*slash=*/false);
      }
    }
    if ((k & kSpace) == 0) return SkipCrLf(SkipNotIn(i + len, kNotOther), /*slash=*/false);
    return Whitespace(i, len, /*newlines=*/true);
  }

  // o200k's first two alternatives after the optional prefix, from s:
  //   [\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+  (first)
  //   [\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*  (second)
  // each followed by an optional contraction (kContractions; Tekken has none). Returns the end,
  // or 0 if there is no match.
  template <bool kContractions>
  size_t O200kFirst(size_t s) const {
    if (s >= n_) return 0;
    // U* greedy; then W+ either right after it or, backtracking, from the last character of the
    // U run that is also a W (Lm, Lo, M), where it can take only that one character.
    size_t last_both = SIZE_MAX;
    size_t j = s;
    size_t len;
    uint8_t k = 0;
    while (j < n_) {
      k = At(j, &len);
      if ((k & kUpperish) == 0) break;
      if (k & kLowerish) last_both = j;
      j += len;
    }
    size_t end;
    if (j < n_ && (k & kLowerish) != 0) {
      end = SkipLowerish(j);
    } else if (last_both != SIZE_MAX) {
      At(last_both, &len);
      end = last_both + len;
    } else {
      return 0;
    }
    return kContractions ? end + ContractionNoCase(end) : end;
  }
  template <bool kContractions>
  size_t O200kSecond(size_t s) const {
    if (s >= n_) return 0;
    size_t len;
    if ((At(s, &len) & kUpperish) == 0) return 0;
    const size_t end = SkipLowerish(SkipIn(s + len, kUpperish));
    return kContractions ? end + ContractionNoCase(end) : end;
  }

  // o200k_base (kMaxDigits 3, with contractions); Tekken's pattern is the same with \p{N} for
  // \p{N}{1,3} and no contractions.
  template <int kMaxDigits, bool kContractions>
  size_t O200kLike(size_t i) const {
    size_t len;
    const uint8_t k = At(i, &len);
    // [^\r\n\p{L}\p{N}]? is tried with the character first, then without.
    const bool prefix = (k & (kLetter | kNumber)) == 0 && s_[i] != '\r' && s_[i] != '\n';
    if (prefix) {
      if (size_t e = O200kFirst<kContractions>(i + len)) return e;
    }
    if (size_t e = O200kFirst<kContractions>(i)) return e;
    if (prefix) {
      if (size_t e = O200kSecond<kContractions>(i + len)) return e;
    }
    if (size_t e = O200kSecond<kContractions>(i)) return e;
    if (k & kNumber) {
      size_t j = i + len;
      for (int count = 1; count < kMaxDigits && j < n_; ++count) {
        size_t len2;
        if ((At(j, &len2) & kNumber) == 0) break;
        j += len2;
      }
      return j;
    }
    if (s_[i] == ' ' && i + 1 < n_) {
      size_t len2;
      if ((At(i + 1, &len2) & kNotOther) == 0) {
        return SkipCrLf(SkipNotIn(i + 1 + len2, kNotOther), /*slash=*/true);
      }
    }
    if ((k & kSpace) == 0) return SkipCrLf(SkipNotIn(i + len, kNotOther), /*slash=*/true);
    return Whitespace(i, len, /*newlines=*/true);
  }

 private:
  const Byte* s_;
  size_t n_;
  const CharClasses& cc_;
};

// DeepSeek-V3's classes, one table: \p{L}, \p{M}, \p{N} and \s as tiktoken's table has them,
// \p{P} or \p{S}, and the characters of its second regex, [一-龥぀-ゟ゠-ヿ].
constexpr uint8_t kDsLetter = 1;
constexpr uint8_t kDsMark = 2;
constexpr uint8_t kDsNumber = 4;
constexpr uint8_t kDsSpace = 8;
constexpr uint8_t kDsPunct = 16;  // \p{P} or \p{S}
constexpr uint8_t kDsCjk = 32;

const CodePointTable& DeepSeekClasses() {
  static const CodePointTable* const table = [] {
    std::vector<uint8_t> flat(kMaxCodePoint + 1, 0);
    for (const ClassRange& r : ClassRanges()) {
      const uint8_t bits = ((r.bits & kLetter) ? kDsLetter : 0) | ((r.bits & kMark) ? kDsMark : 0) |
                           ((r.bits & kNumber) ? kDsNumber : 0) |
                           ((r.bits & kSpace) ? kDsSpace : 0);
      for (uint32_t cp = r.first; cp <= r.last; ++cp) flat[cp] |= bits;
    }
    for (const ClassRange& r : PunctRanges()) {
      for (uint32_t cp = r.first; cp <= r.last; ++cp) flat[cp] |= kDsPunct;
    }
    for (const auto& [first, last] :
         {std::pair<uint32_t, uint32_t>{0x4E00, 0x9FA5}, {0x3040, 0x309F}, {0x30A0, 0x30FF}}) {
      for (uint32_t cp = first; cp <= last; ++cp) flat[cp] |= kDsCjk;
    }
    std::vector<ClassRange> ranges;
    for (uint32_t cp = 0; cp <= kMaxCodePoint; ++cp) {
      if (flat[cp] == 0) continue;
      if (!ranges.empty() && ranges.back().last + 1 == cp && ranges.back().bits == flat[cp]) {
        ranges.back().last = cp;
      } else {
        ranges.push_back({cp, cp, flat[cp]});
      }
    }
    return new CodePointTable(ranges, [](const ClassRange& r) { return r.bits; });
  }();
  return *table;
}

// From j, the first byte that is a digit or not ASCII (n if none), 16 bytes at a time: where a
// stretch that ends at a digit or a CJK character may end.
inline size_t SkipAsciiWithoutDigits(const Byte* s, size_t j, size_t n) {
  for (; j + 16 <= n; j += 16) {
    const Bytes16 v = Load16(reinterpret_cast<const char*>(s + j));
    const uint32_t stop =
        LaneBits(static_cast<Bytes16>(v - '0' < 10) | static_cast<Bytes16>(v >= 0x80));
    if (stop != 0) return j + static_cast<size_t>(std::countr_zero(stop));
  }
  while (j < n && s[j] < 0x80 && static_cast<Byte>(s[j] - '0') >= 10) ++j;
  return j;
}

inline bool IsAsciiLetter(Byte b) { return static_cast<Byte>((b | 0x20) - 'a') < 26; }
// The members of [!"#$%&'()*+,\-./:;<=>?@\[\\\]^_`{|}~]: printable ASCII but letters, digits,
// space.
inline bool IsAsciiPunct(Byte b) {
  return b > 0x20 && b < 0x7F && !IsAsciiLetter(b) && static_cast<Byte>(b - '0') >= 10;
}

// DeepSeek-V3's chain: \p{N}{1,3} cuts the text into runs of at most three digits and the text
// between them; [一-龥぀-ゟ゠-ヿ]+ cuts that text into runs of those characters and the text
// between; the third regex then splits each of these segments as if it were the whole text (its
// \s+(?!\S) sees a segment's end as the text's). One pass: a digit run's pieces, else the
// segment around the position (kept while pieces are taken from it), and the third regex's piece
// there, or the gap up to its next match (HF's Isolated keeps the text between matches a piece).
class DeepSeekScanner {
 public:
  explicit DeepSeekScanner(std::string_view text)
      : s_(reinterpret_cast<const Byte*>(text.data())),
        n_(text.size()),
        table_(DeepSeekClasses()) {}

  template <Pattern>
  size_t Piece(size_t i) {
    size_t len;
    const uint8_t k = At(i, &len);
    if (k & kDsNumber) {  // \p{N}{1,3}
      size_t j = i + len;
      for (int count = 1; count < 3 && j < n_; ++count) {
        size_t len2;
        if ((At(j, &len2) & kDsNumber) == 0) break;
        j += len2;
      }
      return j;
    }
    if (i < segment_begin_ || i >= segment_end_) {
      segment_begin_ = i;
      segment_end_ = SegmentEnd(i, k, len);
    }
    return Rest(i, k, len, segment_end_);
  }

 private:
  uint8_t At(size_t i, size_t* len) const { return ClassAt(table_, s_, n_, i, len); }

  // The end of the segment that the character at i (class k, not a digit) begins or continues:
  // the end of a run of CJK characters, or the next digit or CJK character.
  size_t SegmentEnd(size_t i, uint8_t k, size_t len) const {
    size_t j = i + len;
    size_t l;
    if (k & kDsCjk) {
      while (j < n_ && (At(j, &l) & kDsCjk) != 0) j += l;
      return j;
    }
    while ((j = SkipAsciiWithoutDigits(s_, j, n_)) < n_) {
      if ((At(j, &l) & (kDsNumber | kDsCjk)) != 0) return j;
      j += l;
    }
    return n_;
  }

  size_t SkipIn(size_t j, uint8_t mask, size_t end) const {
    size_t len;
    while (j < end && (At(j, &len) & mask) != 0) j += len;
    return j;
  }
  // [\p{L}\p{M}]+ from j: ASCII letters 16 bytes at a time.
  size_t SkipLetters(size_t j, size_t end) const {
    while (j + 16 <= end) {
      const Bytes16 v = Load16(reinterpret_cast<const char*>(s_ + j));
      const uint32_t other = ~LaneBits(static_cast<Bytes16>((v | 0x20) - 'a' < 26)) & 0xFFFF;
      if (other != 0) {
        j += static_cast<size_t>(std::countr_zero(other));
        if (s_[j] < 0x80) return j;
        break;
      }
      j += 16;
    }
    return SkipIn(j, kDsLetter | kDsMark, end);
  }
  size_t SkipCrLf(size_t j, size_t end) const {
    while (j < end && (s_[j] == '\r' || s_[j] == '\n')) ++j;
    return j;
  }

  // The third regex at i (class k, length len) in a segment that ends at `end`:
  //   [!"#$%&'()*+,\-./:;<=>?@\[\\\]^_`{|}~][A-Za-z]+|[^\r\n\p{L}\p{P}\p{S}]?[\p{L}\p{M}]+|
  //    ?[\p{P}\p{S}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+
  // or, where none matches, the gap to the next character where one does.
  size_t Rest(size_t i, uint8_t k, size_t len, size_t end) const {
    const Byte b = s_[i];
    if (IsAsciiPunct(b) && i + 1 < end && IsAsciiLetter(s_[i + 1])) {
      size_t j = i + 2;
      while (j < end && IsAsciiLetter(s_[j])) ++j;
      return j;
    }
    if (k & (kDsLetter | kDsMark)) return SkipLetters(i + len, end);
    size_t len2 = 0;
    const uint8_t k2 = i + len < end ? At(i + len, &len2) : 0;
    // The optional prefix: not \r, \n, a letter, \p{P} or \p{S} (a mark was taken above).
    if ((k & (kDsLetter | kDsPunct)) == 0 && b != '\r' && b != '\n' &&
        (k2 & (kDsLetter | kDsMark)) != 0) {
      return SkipLetters(i + len + len2, end);
    }
    if (b == ' ' && (k2 & kDsPunct) != 0) {
      return SkipCrLf(SkipIn(i + 1 + len2, kDsPunct, end), end);
    }
    if (k & kDsPunct) return SkipCrLf(SkipIn(i + len, kDsPunct, end), end);
    if (k & kDsSpace) return Whitespace(i, len, end);
    // No alternative matches here. A match starts at the next letter, mark, \p{P}, \p{S} or
    // space, or at a character that the letters after it take as their prefix.
    size_t j = i + len;
    while (j < end) {
      size_t l;
      const uint8_t c = At(j, &l);
      if (c & (kDsLetter | kDsMark | kDsPunct | kDsSpace)) break;
      size_t l2;
      if (j + l < end && (At(j + l, &l2) & (kDsLetter | kDsMark)) != 0) break;
      j += l;
    }
    return j;
  }

  // \s*[\r\n]+|\s+(?!\S)|\s+ for the whitespace run at i, within the segment.
  size_t Whitespace(size_t i, size_t len, size_t end) const {
    size_t last = i;           // start of the run's last character
    size_t after_newline = 0;  // end of the run's last \r or \n
    size_t j = i;
    size_t l = len;
    for (;;) {
      if (s_[j] == '\r' || s_[j] == '\n') after_newline = j + 1;
      last = j;
      j += l;
      if (j >= end || (At(j, &l) & kDsSpace) == 0) break;
    }
    if (after_newline != 0) return after_newline;  // \s*[\r\n]+
    if (j >= end) return end;                      // \s+(?!\S) at the segment's end
    if (last > i) return last;                     // \s+(?!\S): all but the last character
    return j;                                      // \s+: a single character
  }

  const Byte* s_;
  size_t n_;
  const CodePointTable& table_;
  size_t segment_begin_ = 0;
  size_t segment_end_ = 0;  // [segment_begin_, segment_end_): the segment last found
};

// GPT-2's pattern after HF's Digits(individual_digits): every \p{N} character a piece; GPT-2's
// pattern on the text between two digits as if it were the whole text (a space before a digit
// stays alone). The stretch is found once and kept while pieces are taken from it.
class DigitsThenGpt2Scanner {
 public:
  explicit DigitsThenGpt2Scanner(std::string_view text)
      : text_(text), s_(reinterpret_cast<const Byte*>(text.data())), cc_(CharClasses::Get()) {}

  template <Pattern>
  size_t Piece(size_t i) {
    size_t len;
    if ((cc_.At(s_, text_.size(), i, &len) & kNumber) != 0) return i + len;
    if (i < segment_begin_ || i >= segment_end_) {
      segment_begin_ = i;
      segment_end_ = NextDigit(i + len);
    }
    return Scanner(text_.substr(0, segment_end_)).Gpt2(i);
  }

 private:
  size_t NextDigit(size_t j) const {
    const size_t n = text_.size();
    size_t l;
    while ((j = SkipAsciiWithoutDigits(s_, j, n)) < n) {
      if ((cc_.At(s_, n, j, &l) & kNumber) != 0) return j;
      j += l;
    }
    return n;
  }

  std::string_view text_;
  const Byte* s_;
  const CharClasses& cc_;
  size_t segment_begin_ = 0;
  size_t segment_end_ = 0;  // [segment_begin_, segment_end_): the stretch last found
};

template <Pattern P>
struct ScannerOf {
  using Type = Scanner;
};
template <>
struct ScannerOf<Pattern::kGpt2Digits> {
  using Type = DigitsThenGpt2Scanner;
};
template <>
struct ScannerOf<Pattern::kDeepSeekV3> {
  using Type = DeepSeekScanner;
};

// Plain ASCII text 64 bytes at a time. In a block of letters, digits, printable punctuation
// other than the apostrophe, and spaces not followed by a space, a piece of any of the
// patterns (DeepSeek-V3's cuts as cl100k's there) is one run of a class with at most one byte
// before it, and whether a piece starts at a byte depends only on the classes of that byte and the
// one before: the starts of the whole block come from a few masks. The pieces that hold anything
// else (other bytes, whitespace runs, contractions) and the piece that reaches past the block are
// left to the scanner.
class PlainBlock {
 public:
  // The 64 bytes at `p`.
  explicit PlainBlock(const Byte* p, bool cased) {
    for (int k = 0; k < 4; ++k) {
      const Bytes16 v = Load16(reinterpret_cast<const char*>(p) + 16 * k);
      const int at = 16 * k;
      letter_ |= Bits(static_cast<Bytes16>((v | 0x20) - 'a' < 26), at);
      digit_ |= Bits(static_cast<Bytes16>(v - '0' < 10), at);
      space_ |= Bits(static_cast<Bytes16>(v == ' '), at);
      plain_ |= Bits(static_cast<Bytes16>((v - 0x20 < 0x5F) & (v != '\'')), at);
      if (cased) upper_ |= Bits(static_cast<Bytes16>(v - 'A' < 26), at);
    }
    // A space before a space starts a whitespace run, whose pieces depend on its length. (A
    // space that ends the block starts a piece whatever follows; that last piece is left to the
    // next block.)
    plain_ &= ~(space_ & (space_ >> 1));
  }

  // The number of plain bytes from the block's start.
  int PlainLength() const { return std::countr_one(plain_); }

  // Bit i: a piece of pattern P starts at byte i, for the bytes before PlainLength(), given that
  // one starts at byte 0.
  template <Pattern P>
  uint64_t Starts() const {
    const auto before = [](uint64_t x) { return x << 1; };  // bit i: byte i - 1 is in x
    const uint64_t other = plain_ & ~(letter_ | digit_ | space_);
    uint64_t starts = 1 | space_;
    if constexpr (P == Pattern::kGpt2 || P == Pattern::kGpt2Digits) {
      // 's|... | ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+: a run, a space joined
      // to the run after it. After Digits, every digit alone (a space before it too).
      starts |= letter_ & ~before(letter_ | space_);
      if constexpr (P == Pattern::kGpt2Digits) {
        starts |= digit_;
      } else {
        starts |= digit_ & ~before(digit_ | space_);
      }
      starts |= other & ~before(other | space_);
    } else {
      // [^\r\n\p{L}\p{N}]?\p{L}+ takes a space or a punctuation byte that starts a piece into
      // the letters after it; \p{N}{1,3} never takes a space; " ?[^\s\p{L}\p{N}]+" takes one.
      const uint64_t other_starts = other & (before(letter_ | digit_) | 1);
      starts |= other_starts;
      starts |= letter_ & ~before(letter_ | space_ | other_starts);
      if constexpr (P == Pattern::kO200k || P == Pattern::kTekken) {
        // [\p{Lu}..]*[\p{Ll}..]+|[\p{Lu}..]+[\p{Ll}..]*: a capital after a small letter.
        starts |= upper_ & before(letter_ & ~upper_);
      }
      if constexpr (P == Pattern::kQwen2 || P == Pattern::kTekken) {
        starts |= digit_;  // \p{N}
      } else {
        // \p{N}{1,3}: a run's first digit, then every third while the run goes on.
        uint64_t digit_starts = digit_ & ~before(digit_);
        for (uint64_t step = digit_starts; step != 0;) {
          step = (step << 3) & digit_ & (digit_ << 1) & (digit_ << 2);
          digit_starts |= step;
        }
        starts |= digit_starts;
      }
    }
    return starts;
  }

 private:
  static uint64_t Bits(Bytes16 lanes, int at) { return uint64_t{LaneBits(lanes)} << at; }

  uint64_t letter_ = 0, upper_ = 0, digit_ = 0, space_ = 0, plain_ = 0;
};

// Whether the next 16 bytes are ASCII: a block is not worth its cost where text outside ASCII
// (Chinese between two spaces, a digit before a CJK character) or the text's end comes so soon.
inline bool AsciiAhead(const Byte* p, size_t left) {
  return left >= 16 && LaneBits(Load16(reinterpret_cast<const char*>(p))) == 0;
}

// Cuts `text` into the pieces of pattern P: emit(begin, end) for each, in order. Plain ASCII goes
// through PlainBlock, the rest through the scanner.
template <Pattern P, typename Emit>
[[gnu::always_inline]] inline void ScanPieces(std::string_view text, Emit emit) {
  typename ScannerOf<P>::Type scanner(text);
  const auto* s = reinterpret_cast<const Byte*>(text.data());
  const size_t n = text.size();
  size_t pos = 0;
  size_t scanner_only = 0;  // pieces to leave to the scanner before trying a block again
  while (pos < n) {
    if (scanner_only == 0 && s[pos] < 0x80 && AsciiAhead(s + pos, n - pos)) {
      const Byte* at = s + pos;
      Byte tail[64];
      const size_t length = std::min<size_t>(64, n - pos);
      if (length < 64) {  // the text's last bytes, then bytes that are not plain
        std::memset(tail, 0x80, sizeof tail);
        std::memcpy(tail, at, length);
        at = tail;
      }
      const PlainBlock block(at, P == Pattern::kO200k || P == Pattern::kTekken);
      const auto plain = static_cast<size_t>(block.PlainLength());
      uint64_t starts = block.Starts<P>();
      if (plain < 64) starts &= (uint64_t{1} << plain) - 1;
      size_t begin = 0;
      for (uint64_t rest = starts & (starts - 1); rest != 0; rest &= rest - 1) {
        const auto next = static_cast<size_t>(std::countr_zero(rest));
        emit(pos + begin, pos + next);
        begin = next;
      }
      if (pos + plain == n) {  // plain to the end of the text: so is the last piece
        emit(pos + begin, n);
        return;
      }
      if (begin > 0) {
        pos += begin;  // the piece there may reach past the plain bytes
        continue;
      }
      scanner_only = 2;  // the block held no whole piece: not plain text here
    }
    const size_t end = scanner.template Piece<P>(pos);
    emit(pos, end);
    pos = end;
    if (scanner_only > 0) --scanner_only;
  }
}

// ScanPieces with the pattern `p`, chosen once for the whole text.
template <typename Emit>
void ScanPiecesOf(Pattern p, std::string_view text, Emit emit) {
  switch (p) {
    case Pattern::kGpt2:
      ScanPieces<Pattern::kGpt2>(text, emit);
      return;
    case Pattern::kCl100k:
      ScanPieces<Pattern::kCl100k>(text, emit);
      return;
    case Pattern::kO200k:
      ScanPieces<Pattern::kO200k>(text, emit);
      return;
    case Pattern::kQwen2:
      ScanPieces<Pattern::kQwen2>(text, emit);
      return;
    case Pattern::kTekken:
      ScanPieces<Pattern::kTekken>(text, emit);
      return;
    case Pattern::kDeepSeekV3:
      ScanPieces<Pattern::kDeepSeekV3>(text, emit);
      return;
    case Pattern::kGpt2Digits:
      ScanPieces<Pattern::kGpt2Digits>(text, emit);
      return;
  }
}

// Appends `ranges` to a character class body as \x{..}-\x{..} items.
void AppendRanges(const std::vector<std::pair<uint32_t, uint32_t>>& ranges, std::string* out) {
  char buf[32];
  for (const auto& [first, last] : ranges) {
    if (first == last) {
      std::snprintf(buf, sizeof(buf), "\\x{%X}", first);
    } else {
      std::snprintf(buf, sizeof(buf), "\\x{%X}-\\x{%X}", first, last);
    }
    *out += buf;
  }
}

// The mask in the second table (PunctRanges) of a \p{...} name we replace, or 0.
uint8_t PunctMask(std::string_view name) {
  if (name == "P") return kPunct;
  if (name == "S") return kSymbol;
  return 0;
}

// The class mask of a \p{...} name we replace, or 0.
uint8_t PropertyMask(std::string_view name) {
  if (name == "L") return kLetter;
  if (name == "N") return kNumber;
  if (name == "M") return kMark;
  if (name == "Lu") return kLu;
  if (name == "Ll") return kLl;
  if (name == "Lt") return kLt;
  if (name == "Lm") return kLm;
  if (name == "Lo") return kLo;
  return 0;
}

}  // namespace

std::span<const std::string_view> PatternRegexes(Pattern p) {
  static constexpr std::string_view kGpt2[] = {kGpt2Regex};
  static constexpr std::string_view kCl100k[] = {kCl100kRegex};
  static constexpr std::string_view kO200k[] = {kO200kRegex};
  static constexpr std::string_view kQwen2[] = {kQwen2Regex};
  static constexpr std::string_view kTekken[] = {kTekkenRegex};
  static constexpr std::string_view kDeepSeekV3[] = {kDeepSeekDigitsRegex, kDeepSeekCjkRegex,
                                                     kDeepSeekRestRegex};
  static constexpr std::string_view kGpt2Digits[] = {kDigitRegex, kGpt2Regex};
  switch (p) {
    case Pattern::kGpt2:
      return kGpt2;
    case Pattern::kCl100k:
      return kCl100k;
    case Pattern::kO200k:
      return kO200k;
    case Pattern::kQwen2:
      return kQwen2;
    case Pattern::kTekken:
      return kTekken;
    case Pattern::kDeepSeekV3:
      return kDeepSeekV3;
    case Pattern::kGpt2Digits:
      return kGpt2Digits;
  }
  return kGpt2;
}

std::string_view PatternRegex(Pattern p) { return PatternRegexes(p).back(); }

std::string_view PatternName(Pattern p) {
  switch (p) {
    case Pattern::kGpt2:
      return "gpt2";
    case Pattern::kCl100k:
      return "cl100k_base";
    case Pattern::kO200k:
      return "o200k_base";
    case Pattern::kQwen2:
      return "qwen2";
    case Pattern::kTekken:
      return "tekken";
    case Pattern::kDeepSeekV3:
      return "deepseek_v3";
    case Pattern::kGpt2Digits:
      return "gpt2_digits";
  }
  return "?";
}

std::optional<Pattern> KnownPattern(std::string_view regex) {
  if (regex == kGpt2Regex || regex == kGpt2RegexPython) return Pattern::kGpt2;
  if (regex == kCl100kRegex || regex == kCl100kRegexPython) return Pattern::kCl100k;
  if (regex == kO200kRegex) return Pattern::kO200k;
  if (regex == kQwen2Regex) return Pattern::kQwen2;
  if (regex == kTekkenRegex) return Pattern::kTekken;
  return std::nullopt;
}

std::optional<Pattern> KnownChain(std::span<const std::string> regexes) {
  for (Pattern p : {Pattern::kDeepSeekV3, Pattern::kGpt2Digits}) {
    const std::span<const std::string_view> chain = PatternRegexes(p);
    if (std::equal(regexes.begin(), regexes.end(), chain.begin(), chain.end())) return p;
  }
  return std::nullopt;
}

std::string ExpandClasses(std::string_view pattern) {
  std::string out;
  out.reserve(pattern.size());
  bool in_class = false;
  size_t i = 0;
  while (i < pattern.size()) {
    const char c = pattern[i];
    if (c != '\\' || i + 1 >= pattern.size()) {
      if (!in_class && c == '[') {
        in_class = true;
        out += c;
        ++i;
        // A ']' right after '[' or '[^' is a literal member.
        if (i < pattern.size() && pattern[i] == '^') out += pattern[i++];
        if (i < pattern.size() && pattern[i] == ']') out += pattern[i++];
        continue;
      }
      if (in_class && c == ']') in_class = false;
      out += c;
      ++i;
      continue;
    }
    const char e = pattern[i + 1];
    uint8_t mask = 0;
    uint8_t punct_mask = 0;  // of the second table, when mask is 0
    bool negated = false;
    size_t consumed = 2;
    if (e == 's' || e == 'S') {
      mask = kSpace;
      negated = e == 'S';
    } else if ((e == 'p' || e == 'P') && i + 2 < pattern.size()) {
      std::string_view name;
      if (pattern[i + 2] == '{') {
        const size_t close = pattern.find('}', i + 3);
        if (close != std::string_view::npos) {
          name = pattern.substr(i + 3, close - i - 3);
          consumed = close + 1 - i;
        }
      } else {
        name = pattern.substr(i + 2, 1);
        consumed = 3;
      }
      negated = e == 'P';
      if (!name.empty() && name[0] == '^') {  // \p{^L} is \P{L}
        name = name.substr(1);
        negated = !negated;
      }
      mask = PropertyMask(name);
      punct_mask = PunctMask(name);
    }
    if (mask == 0 && punct_mask == 0) {  // not ours: copy the escape as it is
      out.append(pattern.substr(i, 2));
      i += 2;
      continue;
    }
    const auto ranges = mask != 0 ? RangesOf(mask, negated) : PunctRangesOf(punct_mask, negated);
    if (in_class) {
      AppendRanges(ranges, &out);
    } else {
      out += '[';
      AppendRanges(ranges, &out);
      out += ']';
    }
    i += consumed;
  }
  return out;
}

StatusOr<std::unique_ptr<RegexSplitter>> RegexSplitter::Compile(std::string_view pattern,
                                                                bool expand_classes) {
  const std::string compiled = expand_classes ? ExpandClasses(pattern) : std::string(pattern);
  int error = 0;
  PCRE2_SIZE offset = 0;
  pcre2_code* code = pcre2_compile(reinterpret_cast<PCRE2_SPTR>(compiled.data()), compiled.size(),
                                   PCRE2_UTF | PCRE2_UCP, &error, &offset, nullptr);
  if (code == nullptr) {
    PCRE2_UCHAR message[256];
    pcre2_get_error_message(error, message, sizeof(message));
    return Status::InvalidArgument("pre-tokenizer regex '" + std::string(pattern) +
                                   "' does not compile: " + reinterpret_cast<const char*>(message));
  }
  pcre2_jit_compile(code, PCRE2_JIT_COMPLETE);  // without JIT, pcre2_match interprets
  std::unique_ptr<RegexSplitter> splitter(new RegexSplitter());
  splitter->pattern_ = std::string(pattern);
  splitter->code_ = code;
  return splitter;
}

RegexSplitter::~RegexSplitter() { pcre2_code_free(static_cast<pcre2_code*>(code_)); }

void RegexSplitter::Split(std::string_view text, std::vector<std::string_view>* pieces,
                          bool keep_gaps) const {
  if (text.empty()) return;
  if (FindInvalidUtf8(text) != std::string_view::npos) {
    pieces->push_back(text);
    return;
  }
  auto* code = static_cast<pcre2_code*>(code_);
  pcre2_match_data* md = pcre2_match_data_create_from_pattern(code, nullptr);
  if (md == nullptr) {
    pieces->push_back(text);
    return;
  }
  const auto* subject = reinterpret_cast<PCRE2_SPTR>(text.data());
  size_t gap = 0;  // start of text not yet given out
  size_t pos = 0;  // where the next search starts
  while (pos < text.size()) {
    const int rc = pcre2_match(code, subject, text.size(), pos, PCRE2_NO_UTF_CHECK, md, nullptr);
    if (rc < 0) break;  // no match (or a match error): the rest is a gap
    const PCRE2_SIZE* ov = pcre2_get_ovector_pointer(md);
    const size_t start = ov[0];
    const size_t end = ov[1];
    if (end == start) {  // empty match: step over one character, it joins the next gap
      pos = start + 1;
      while (pos < text.size() && (static_cast<Byte>(text[pos]) & 0xC0) == 0x80) ++pos;
      continue;
    }
    if (start > gap && keep_gaps) pieces->push_back(text.substr(gap, start - gap));
    pieces->push_back(text.substr(start, end - start));
    gap = pos = end;
  }
  if (gap < text.size() && keep_gaps) pieces->push_back(text.substr(gap));
  pcre2_match_data_free(md);
}

void RegexSplitter::Matches(std::string_view text,
                            std::vector<std::pair<size_t, size_t>>* spans) const {
  if (text.empty() || FindInvalidUtf8(text) != std::string_view::npos) return;
  auto* code = static_cast<pcre2_code*>(code_);
  pcre2_match_data* md = pcre2_match_data_create_from_pattern(code, nullptr);
  if (md == nullptr) return;
  const auto* subject = reinterpret_cast<PCRE2_SPTR>(text.data());
  size_t pos = 0;
  while (pos < text.size()) {
    const int rc = pcre2_match(code, subject, text.size(), pos, PCRE2_NO_UTF_CHECK, md, nullptr);
    if (rc < 0) break;
    const PCRE2_SIZE* ov = pcre2_get_ovector_pointer(md);
    const size_t start = ov[0];
    const size_t end = ov[1];
    if (end == start) {
      pos = start + 1;
      while (pos < text.size() && (static_cast<Byte>(text[pos]) & 0xC0) == 0x80) ++pos;
      continue;
    }
    spans->emplace_back(start, end);
    pos = end;
  }
  pcre2_match_data_free(md);
}

PreTokenizer PreTokenizer::ForPattern(Pattern p) {
  PreTokenizer t;
  t.pattern_ = p;
  return t;
}

StatusOr<PreTokenizer> PreTokenizer::ForRegex(std::string_view regex, bool force_regex,
                                              bool keep_gaps) {
  if (!force_regex) {
    if (std::optional<Pattern> p = KnownPattern(regex)) return ForPattern(*p);
  }
  TM_ASSIGN_OR_RETURN(std::unique_ptr<RegexSplitter> splitter, RegexSplitter::Compile(regex));
  PreTokenizer t;
  t.regex_ = std::move(splitter);
  t.keep_gaps_ = keep_gaps;
  return t;
}

PreTokenizer PreTokenizer::WholeText() { return PreTokenizer(); }

void PreTokenizer::Split(std::string_view text, std::vector<std::string_view>* pieces) const {
  if (pattern_.has_value()) {
    // Inlined into the scanner: a call for each piece cost more than the append.
    const auto emit = [&](size_t begin, size_t end) __attribute__((always_inline)) {
      pieces->emplace_back(text.data() + begin, end - begin);
    };
    ScanPiecesOf(*pattern_, text, emit);
    return;
  }
  if (regex_ != nullptr) {
    regex_->Split(text, pieces, keep_gaps_);
    return;
  }
  if (!text.empty()) pieces->push_back(text);
}

void PreTokenizer::Visit(std::string_view text,
                         const std::function<void(std::string_view)>& visit) const {
  if (!pattern_.has_value()) {
    std::vector<std::string_view> pieces;
    Split(text, &pieces);
    for (std::string_view p : pieces) visit(p);
    return;
  }
  const auto emit = [&](size_t begin, size_t end) {
    visit(std::string_view(text.data() + begin, end - begin));
  };
  ScanPiecesOf(*pattern_, text, emit);
}

std::string_view PreTokenizer::name() const {
  if (pattern_.has_value()) return PatternName(*pattern_);
  return regex_ != nullptr ? "regex" : "none";
}

}  // namespace tokenmill::bpe
