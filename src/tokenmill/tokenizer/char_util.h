// Character helpers shared by the HF pipeline components: UTF-8 decoding and the character
// predicates of Rust's std (char::is_whitespace, is_numeric, is_alphanumeric) that HF tokenizers
// uses, over utf8proc's Unicode data.
#pragma once

#include <utf8proc.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace tokenmill::hf {

// SentencePiece's word boundary mark "▁" (U+2581).
inline constexpr std::string_view kMetaspace = "\xE2\x96\x81";
// Cutting long texts (Normalizer::KeepsCut): the character at a cut point becomes " ", "▁", or
// this where it depends on what follows (Replace(" {2,}", "▁") on one space or a run of them).
inline constexpr std::string_view kSpaceOrMetaspace = " \xE2\x96\x81";

// The byte a byte-fallback piece "<0xXX>" (two hex digits) stands for, or -1 for any other piece.
inline int ByteFallbackValue(std::string_view piece) {
  if (piece.size() != 6 || !piece.starts_with("<0x") || piece.back() != '>') return -1;
  auto hex = [](char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    return -1;
  };
  const int hi = hex(piece[3]);
  const int lo = hex(piece[4]);
  return hi < 0 || lo < 0 ? -1 : hi * 16 + lo;
}

// Appends a piece's text with each "▁" as a space (SentencePiece-style decoding).
inline void AppendMetaspaceAsSpace(std::string_view piece, std::string* out) {
  for (size_t i = 0; i < piece.size();) {
    if (piece.compare(i, kMetaspace.size(), kMetaspace) == 0) {
      out->push_back(' ');
      i += kMetaspace.size();
    } else {
      out->push_back(piece[i++]);
    }
  }
}

// The code point at s[i] and its length in *len (valid UTF-8 assumed; a stray byte is itself).
inline uint32_t DecodeAt(std::string_view s, size_t i, size_t* len) {
  const auto b = static_cast<unsigned char>(s[i]);
  if (b < 0x80) {
    *len = 1;
    return b;
  }
  size_t l = b >= 0xF0 ? 4 : b >= 0xE0 ? 3 : b >= 0xC0 ? 2 : 1;
  if (l == 1 || i + l > s.size()) {
    *len = 1;
    return b;
  }
  uint32_t cp = b & (0x7F >> l);
  for (size_t k = 1; k < l; ++k) cp = (cp << 6) | (static_cast<unsigned char>(s[i + k]) & 0x3F);
  *len = l;
  return cp;
}

// The start of the character that ends just before s[end] (end > floor), not below `floor`.
inline size_t CharStartBefore(std::string_view s, size_t end, size_t floor = 0) {
  size_t start = end - 1;
  while (start > floor && (static_cast<unsigned char>(s[start]) & 0xC0) == 0x80) --start;
  return start;
}

inline size_t Utf8Length(unsigned char lead) {
  return lead < 0x80 ? 1 : lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC0 ? 2 : 1;
}

inline void AppendUtf8(uint32_t cp, std::string* out) {
  if (cp < 0x80) {
    out->push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out->push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out->push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out->push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

// Rust char::is_whitespace (the White_Space property).
inline bool IsWhitespace(uint32_t c) {
  return (c >= 0x09 && c <= 0x0D) || c == 0x20 || c == 0x85 || c == 0xA0 || c == 0x1680 ||
         (c >= 0x2000 && c <= 0x200A) || c == 0x2028 || c == 0x2029 || c == 0x202F || c == 0x205F ||
         c == 0x3000;
}

inline utf8proc_category_t Category(uint32_t c) {
  return utf8proc_category(static_cast<utf8proc_int32_t>(c));
}

// Rust char::is_numeric: general category Nd, Nl or No.
inline bool IsNumeric(uint32_t c) {
  if (c < 0x80) return c >= '0' && c <= '9';
  const auto k = Category(c);
  return k == UTF8PROC_CATEGORY_ND || k == UTF8PROC_CATEGORY_NL || k == UTF8PROC_CATEGORY_NO;
}

inline bool IsMark(uint32_t c) {
  const auto k = Category(c);
  return k == UTF8PROC_CATEGORY_MN || k == UTF8PROC_CATEGORY_MC || k == UTF8PROC_CATEGORY_ME;
}

inline bool IsLetter(uint32_t c) {
  const auto k = Category(c);
  return k >= UTF8PROC_CATEGORY_LU && k <= UTF8PROC_CATEGORY_LO;
}

// A word character for added tokens' single_word (\w).
inline bool IsWordChar(uint32_t c) { return c == '_' || IsLetter(c) || IsNumeric(c) || IsMark(c); }

// HF's punctuation: ASCII punctuation or Unicode category P*.
inline bool IsPunctuation(uint32_t c) {
  if (c < 0x80) {
    return (c >= 33 && c <= 47) || (c >= 58 && c <= 64) || (c >= 91 && c <= 96) ||
           (c >= 123 && c <= 126);
  }
  const auto k = Category(c);
  return k >= UTF8PROC_CATEGORY_PC && k <= UTF8PROC_CATEGORY_PO;
}

}  // namespace tokenmill::hf
