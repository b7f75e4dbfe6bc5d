// Tables where the WordPiece references' Unicode data differ from utf8proc (Unicode 15.0).
// Generated into bert_unicode_data.cc by bert_unicode_gen/gen_bert_unicode_data.py; used only by
// bert_unicode.cc. Thread-safety: constant data.
#pragma once

#include <utf8proc.h>

#include <cstdint>
#include <span>

namespace tokenmill::bert {

struct CodePointRange {
  char32_t first, last;  // inclusive
};

struct CodePointMapping {
  char32_t from, to;
};

struct CategoryRange {
  char32_t first, last;  // inclusive
  utf8proc_category_t category;
};

// HF tokenizers 0.23.2 (unicode_categories crate, Rust std, unicode-normalization-alignments).
// Each *Flip table lists the code points where the HF predicate is the opposite of utf8proc's.
extern const std::span<const CodePointRange> kHfOtherFlip;           // Cc, Cf or Co
extern const std::span<const CodePointRange> kHfPunctuationFlip;     // P* (non-ASCII)
extern const std::span<const CodePointRange> kHfNonspacingMarkFlip;  // Mn
extern const std::span<const CodePointRange> kHfNoDecomposition;     // NFD leaves them alone
extern const std::span<const CodePointMapping> kHfLowercase;         // Rust's to_lowercase
extern const std::span<const CodePointRange> kHfCombiningClassZero;  // class 0 in HF's NFD

// Python 3.11 unicodedata (Unicode 14.0), used by google-research/bert and electra.
extern const std::span<const CategoryRange> kPythonCategory;
extern const std::span<const CodePointMapping> kPythonCombiningClass;  // .to: the class
extern const std::span<const CodePointRange> kPythonCasedExtra;
extern const std::span<const CodePointRange> kPythonCaseIgnorableExtra;

}  // namespace tokenmill::bert
