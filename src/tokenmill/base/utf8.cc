#include "tokenmill/base/utf8.h"

#include <simdjson.h>

namespace tokenmill {
namespace {

// Length of the valid sequence at s[i], or 0 if invalid; *bad is set to the length of the
// maximal invalid subpart (at least 1) when invalid.
inline size_t ValidSeqLen(const unsigned char* p, size_t n, size_t* bad) {
  const unsigned char c = p[0];
  if (c < 0x80) return 1;
  size_t need;
  unsigned char lo = 0x80;
  unsigned char hi = 0xBF;
  if (c >= 0xC2 && c <= 0xDF) {
    need = 1;
  } else if (c >= 0xE0 && c <= 0xEF) {
    need = 2;
    if (c == 0xE0) lo = 0xA0;
    if (c == 0xED) hi = 0x9F;
  } else if (c >= 0xF0 && c <= 0xF4) {
    need = 3;
    if (c == 0xF0) lo = 0x90;
    if (c == 0xF4) hi = 0x8F;
  } else {
    *bad = 1;
    return 0;
  }
  size_t i = 1;
  for (; i <= need; ++i) {
    if (i >= n) break;
    const unsigned char b = p[i];
    const unsigned char l = (i == 1) ? lo : 0x80;
    const unsigned char h = (i == 1) ? hi : 0xBF;
    if (b < l || b > h) break;
  }
  if (i == need + 1) return need + 1;
  *bad = i;  // the lead byte plus the valid continuation bytes seen so far
  return 0;
}

}  // namespace

size_t FindInvalidUtf8(std::string_view s) {
  // Almost all text is valid: simdjson's SIMD validator (the same rules: no overlongs, surrogates
  // or code points above U+10FFFF) answers that at many bytes a cycle; the scalar loop below
  // runs only to find where the first invalid byte is.
  if (simdjson::validate_utf8(s.data(), s.size())) return std::string_view::npos;
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  const size_t n = s.size();
  size_t i = 0;
  while (i < n) {
    if (p[i] < 0x80) {
      ++i;
      continue;
    }
    size_t bad = 0;
    const size_t len = ValidSeqLen(p + i, n - i, &bad);
    if (len == 0) return i;
    i += len;
  }
  return std::string_view::npos;
}

size_t AppendValidUtf8(std::string_view in, InvalidUtf8 policy, std::string* out) {
  const size_t first_bad = FindInvalidUtf8(in);
  if (first_bad == std::string_view::npos) {
    out->append(in);
    return 0;
  }
  out->append(in.substr(0, first_bad));
  const auto* p = reinterpret_cast<const unsigned char*>(in.data());
  const size_t n = in.size();
  size_t invalid = 0;
  size_t i = first_bad;
  while (i < n) {
    if (p[i] < 0x80) {
      out->push_back(static_cast<char>(p[i]));
      ++i;
      continue;
    }
    size_t bad = 0;
    const size_t len = ValidSeqLen(p + i, n - i, &bad);
    if (len > 0) {
      out->append(in.substr(i, len));
      i += len;
    } else {
      invalid += bad;
      if (policy == InvalidUtf8::kReplace) out->append("\xEF\xBF\xBD");
      i += bad;
    }
  }
  return invalid;
}

std::string_view ValidUtf8View(std::string_view in, InvalidUtf8 policy, std::string* storage) {
  if (FindInvalidUtf8(in) == std::string_view::npos) return in;
  storage->clear();
  AppendValidUtf8(in, policy, storage);
  return *storage;
}

}  // namespace tokenmill
