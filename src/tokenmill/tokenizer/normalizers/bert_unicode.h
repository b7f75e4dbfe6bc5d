// Character properties for the BERT normalizer, as each WordPiece reference sees them.
//
// The base is utf8proc (libutf8proc 2.8, Unicode 15.0): general categories, simple lowercase
// mappings, canonical decompositions and combining classes. The references use other Unicode
// data; bert_unicode_data.cc (generated) lists every code point where they differ, so each
// predicate here answers exactly as the reference does for all 1,112,064 scalar values:
//   kHf:     HF tokenizers 0.23.2 (unicode_categories crate ~Unicode 9 for control, punctuation
//            and Mn; Rust std Unicode 16 for lowercasing and whitespace).
//   kPython: google-research/bert and electra under Python 3.11 (unicodedata, Unicode 14.0).
// See docs/tokenizers.md. Thread-safety: pure functions.
#pragma once

#include <utf8proc.h>

#include <cstddef>

namespace tokenmill::bert {

enum class UnicodeRef { kHf, kPython };

// The longest output of Lowercase() and Decompose().
inline constexpr int kMaxLowercase = 3;
inline constexpr int kMaxDecomposition = 4;

// General category (Python: unicodedata.category; HF has no single category function).
utf8proc_category_t PythonCategory(char32_t cp);

// HF's is_other (Cc, Cf or Co of the unicode_categories crate).
bool HfIsOther(char32_t cp);
// P* (without the ASCII symbols that BERT adds; see IsBertPunctuation).
bool IsUnicodePunctuation(UnicodeRef ref, char32_t cp);
// Mn: what strip_accents removes after NFD.
bool IsNonspacingMark(UnicodeRef ref, char32_t cp);
// BERT's punctuation: ASCII 33-47, 58-64, 91-96, 123-126, or P*.
bool IsBertPunctuation(UnicodeRef ref, char32_t cp);

// Rust char::is_whitespace (White_Space property).
bool RustIsWhitespace(char32_t cp);
// Python str.isspace() of one character (what str.split() splits on).
bool PythonIsSpace(char32_t cp);

// Full lowercase without context (Rust char::to_lowercase, Python str.lower() but for the final
// sigma rule). Writes 1 to kMaxLowercase code points; returns how many.
int Lowercase(UnicodeRef ref, char32_t cp, char32_t* out);

// Full canonical decomposition (NFD of one character). Writes 1 to kMaxDecomposition code
// points; returns how many.
int Decompose(UnicodeRef ref, char32_t cp, char32_t* out);

// Canonical combining class, as the reference's NFD orders marks.
int CombiningClass(UnicodeRef ref, char32_t cp);

// Python's Cased and Case_Ignorable properties (for str.lower()'s final sigma rule).
bool PythonIsCased(char32_t cp);
bool PythonIsCaseIgnorable(char32_t cp);

}  // namespace tokenmill::bert
