#include "tokenmill/tokenizer/normalizers/bert_unicode.h"

#include <algorithm>
#include <span>

#include "tokenmill/base/python_space.h"
#include "tokenmill/tokenizer/normalizers/bert_unicode_data.h"

namespace tokenmill::bert {
namespace {

bool InRanges(std::span<const CodePointRange> ranges, char32_t cp) {
  auto it = std::upper_bound(ranges.begin(), ranges.end(), cp,
                             [](char32_t c, const CodePointRange& r) { return c < r.first; });
  return it != ranges.begin() && cp <= (it - 1)->last;
}

utf8proc_category_t BaseCategory(char32_t cp) {
  return utf8proc_category(static_cast<utf8proc_int32_t>(cp));
}

bool IsPunctuationCategory(utf8proc_category_t c) {
  switch (c) {
    case UTF8PROC_CATEGORY_PC:
    case UTF8PROC_CATEGORY_PD:
    case UTF8PROC_CATEGORY_PS:
    case UTF8PROC_CATEGORY_PE:
    case UTF8PROC_CATEGORY_PI:
    case UTF8PROC_CATEGORY_PF:
    case UTF8PROC_CATEGORY_PO:
      return true;
    default:
      return false;
  }
}

bool IsAsciiPunctuation(char32_t cp) {
  return (cp >= 33 && cp <= 47) || (cp >= 58 && cp <= 64) || (cp >= 91 && cp <= 96) ||
         (cp >= 123 && cp <= 126);
}

}  // namespace

utf8proc_category_t PythonCategory(char32_t cp) {
  auto it = std::upper_bound(kPythonCategory.begin(), kPythonCategory.end(), cp,
                             [](char32_t c, const CategoryRange& r) { return c < r.first; });
  if (it != kPythonCategory.begin() && cp <= (it - 1)->last) return (it - 1)->category;
  return BaseCategory(cp);
}

bool HfIsOther(char32_t cp) {
  utf8proc_category_t c = BaseCategory(cp);
  bool base = c == UTF8PROC_CATEGORY_CC || c == UTF8PROC_CATEGORY_CF || c == UTF8PROC_CATEGORY_CO;
  return base != InRanges(kHfOtherFlip, cp);
}

bool IsUnicodePunctuation(UnicodeRef ref, char32_t cp) {
  if (ref == UnicodeRef::kPython) return IsPunctuationCategory(PythonCategory(cp));
  return IsPunctuationCategory(BaseCategory(cp)) != InRanges(kHfPunctuationFlip, cp);
}

bool IsNonspacingMark(UnicodeRef ref, char32_t cp) {
  if (ref == UnicodeRef::kPython) return PythonCategory(cp) == UTF8PROC_CATEGORY_MN;
  return (BaseCategory(cp) == UTF8PROC_CATEGORY_MN) != InRanges(kHfNonspacingMarkFlip, cp);
}

bool IsBertPunctuation(UnicodeRef ref, char32_t cp) {
  return IsAsciiPunctuation(cp) || (cp >= 0x80 && IsUnicodePunctuation(ref, cp));
}

// Rust's char::is_whitespace is Python's str.isspace() without U+001C..U+001F.
bool RustIsWhitespace(char32_t cp) { return IsPythonWhitespace(cp) && (cp < 0x1C || cp > 0x1F); }

bool PythonIsSpace(char32_t cp) { return IsPythonWhitespace(cp); }

int Lowercase(UnicodeRef ref, char32_t cp, char32_t* out) {
  if (cp == 0x130) {  // the only unconditional multi-character lowercase mapping
    out[0] = 0x69;
    out[1] = 0x307;
    return 2;
  }
  if (ref == UnicodeRef::kHf) {
    auto it = std::lower_bound(kHfLowercase.begin(), kHfLowercase.end(), cp,
                               [](const CodePointMapping& m, char32_t c) { return m.from < c; });
    if (it != kHfLowercase.end() && it->from == cp) {
      out[0] = it->to;
      return 1;
    }
  }
  out[0] = static_cast<char32_t>(utf8proc_tolower(static_cast<utf8proc_int32_t>(cp)));
  return 1;
}

int Decompose(UnicodeRef ref, char32_t cp, char32_t* out) {
  if (ref == UnicodeRef::kHf && InRanges(kHfNoDecomposition, cp)) {
    out[0] = cp;
    return 1;
  }
  utf8proc_int32_t buf[kMaxDecomposition];
  utf8proc_ssize_t n = utf8proc_decompose_char(static_cast<utf8proc_int32_t>(cp), buf,
                                               kMaxDecomposition, UTF8PROC_DECOMPOSE, nullptr);
  if (n < 1 || n > kMaxDecomposition) {  // not expected for canonical decompositions
    out[0] = cp;
    return 1;
  }
  for (utf8proc_ssize_t i = 0; i < n; ++i) out[i] = static_cast<char32_t>(buf[i]);
  return static_cast<int>(n);
}

int CombiningClass(UnicodeRef ref, char32_t cp) {
  if (ref == UnicodeRef::kHf) {
    if (InRanges(kHfCombiningClassZero, cp)) return 0;
  } else {
    auto it = std::lower_bound(kPythonCombiningClass.begin(), kPythonCombiningClass.end(), cp,
                               [](const CodePointMapping& m, char32_t c) { return m.from < c; });
    if (it != kPythonCombiningClass.end() && it->from == cp) return static_cast<int>(it->to);
  }
  return utf8proc_get_property(static_cast<utf8proc_int32_t>(cp))->combining_class;
}

bool PythonIsCased(char32_t cp) {
  utf8proc_category_t c = PythonCategory(cp);
  return c == UTF8PROC_CATEGORY_LU || c == UTF8PROC_CATEGORY_LL || c == UTF8PROC_CATEGORY_LT ||
         InRanges(kPythonCasedExtra, cp);
}

bool PythonIsCaseIgnorable(char32_t cp) {
  utf8proc_category_t c = PythonCategory(cp);
  return c == UTF8PROC_CATEGORY_MN || c == UTF8PROC_CATEGORY_ME || c == UTF8PROC_CATEGORY_CF ||
         c == UTF8PROC_CATEGORY_LM || c == UTF8PROC_CATEGORY_SK ||
         InRanges(kPythonCaseIgnorableExtra, cp);
}

}  // namespace tokenmill::bert
