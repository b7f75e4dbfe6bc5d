#include "tokenmill/tokenizer/normalizers/precompiled.h"

#include <utf8proc.h>

#include <cstring>

#include "tokenmill/tokenizer/char_util.h"

namespace tokenmill::hf {

bool DecodeBase64Blob(std::string_view in, std::string* out) {
  out->clear();
  uint32_t acc = 0;
  int bits = 0;
  for (char c : in) {
    int v;
    if (c >= 'A' && c <= 'Z') {
      v = c - 'A';
    } else if (c >= 'a' && c <= 'z') {
      v = c - 'a' + 26;
    } else if (c >= '0' && c <= '9') {
      v = c - '0' + 52;
    } else if (c == '+') {
      v = 62;
    } else if (c == '/') {
      v = 63;
    } else if (c == '=') {
      break;
    } else {
      return false;
    }
    acc = (acc << 6) | static_cast<uint32_t>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out->push_back(static_cast<char>((acc >> bits) & 0xFF));
    }
  }
  return true;
}

StatusOr<CharsMap> CharsMap::Parse(std::string_view blob) {
  CharsMap m;
  if (blob.empty()) return m;  // no normalization rules
  if (blob.size() < 4) return Status::InvalidArgument("charsmap shorter than its 4-byte header");
  uint32_t trie_size;
  std::memcpy(&trie_size, blob.data(), 4);  // little-endian, as SentencePiece writes it
  if (trie_size % 4 != 0 || trie_size > blob.size() - 4) {
    return Status::InvalidArgument("charsmap trie size " + std::to_string(trie_size) +
                                   " does not fit the " + std::to_string(blob.size()) +
                                   "-byte blob");
  }
  m.units_.resize(trie_size / 4);
  if (trie_size > 0) std::memcpy(m.units_.data(), blob.data() + 4, trie_size);
  m.normalized_ = std::string(blob.substr(4 + trie_size));
  if (m.units_.empty()) return Status::InvalidArgument("charsmap trie is empty");
  for (int b = 1; b < 256; ++b) {
    const char c = static_cast<char>(b);
    // A key starts with b if the search walks past its first byte (any key, matching or not).
    const size_t n = m.units_.size();
    const uint32_t root = m.units_[0];
    const size_t node = static_cast<size_t>((root >> 10) << ((root & (1u << 9)) >> 6)) ^
                        static_cast<unsigned char>(c);
    m.first_[b] = node < n && (m.units_[node] & ((1u << 31) | 0xFF)) == static_cast<uint32_t>(b);
  }
  return m;
}

template <typename F>
void CharsMap::PrefixSearch(std::string_view text, F f) const {
  if (units_.empty()) return;
  const size_t n = units_.size();
  auto offset = [](uint32_t unit) -> size_t {
    return static_cast<size_t>((unit >> 10) << ((unit & (1u << 9)) >> 6));
  };
  size_t node = 0;
  uint32_t unit = units_[0];
  node ^= offset(unit);
  for (size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c == 0) return;
    node ^= c;
    if (node >= n) return;
    unit = units_[node];
    if ((unit & ((1u << 31) | 0xFF)) != c) return;
    node ^= offset(unit);
    if (node >= n) return;
    if (((unit >> 8) & 1) != 0) {
      if (!f(units_[node] & ((1u << 31) - 1), i + 1)) return;
    }
  }
}

std::string_view CharsMap::Replacement(uint32_t value) const {
  if (value >= normalized_.size()) return {};
  const char* p = normalized_.data() + value;
  const size_t max = normalized_.size() - value;
  return std::string_view(p, strnlen(p, max));
}

bool CharsMap::Shortest(std::string_view text, std::string_view* replacement) const {
  bool found = false;
  PrefixSearch(text, [&](uint32_t value, size_t) {
    *replacement = Replacement(value);
    found = true;
    return false;
  });
  return found;
}

bool CharsMap::Longest(std::string_view text, std::string_view* replacement,
                       size_t* key_len) const {
  bool found = false;
  PrefixSearch(text, [&](uint32_t value, size_t len) {
    *replacement = Replacement(value);
    *key_len = len;
    found = true;
    return true;
  });
  return found;
}

void PrecompiledNormalizer::Normalize(Segment* segment) const {
  if (map_.empty()) return;
  const std::string& s = segment->text;
  std::string out;
  out.reserve(s.size());
  size_t i = 0;
  utf8proc_int32_t state = 0;
  while (i < s.size()) {
    const auto b0 = static_cast<unsigned char>(s[i]);
    if (b0 < 0x80 && b0 != '\r' && !map_.MayMatch(b0) &&
        (i + 1 == s.size() || static_cast<unsigned char>(s[i + 1]) < 0x80)) {
      out.push_back(s[i++]);  // an ASCII character alone in its cluster, with no rule
      continue;
    }
    // The extended grapheme cluster at i.
    size_t len;
    uint32_t prev = DecodeAt(s, i, &len);
    size_t end = i + len;
    state = 0;
    while (end < s.size()) {
      size_t l;
      const uint32_t c = DecodeAt(s, end, &l);
      if (utf8proc_grapheme_break_stateful(static_cast<utf8proc_int32_t>(prev),
                                           static_cast<utf8proc_int32_t>(c), &state)) {
        break;
      }
      prev = c;
      end += l;
    }
    const std::string_view grapheme(s.data() + i, end - i);
    std::string_view rep;
    if (grapheme.size() < 6 && map_.Shortest(grapheme, &rep)) {
      out.append(rep);
      if (i == 0 && rep.empty()) segment->at_origin = false;
    } else {
      for (size_t k = 0; k < grapheme.size();) {
        const size_t l =
            std::min(Utf8Length(static_cast<unsigned char>(grapheme[k])), grapheme.size() - k);
        const std::string_view part = grapheme.substr(k, l);
        if (map_.Shortest(part, &rep)) {
          out.append(rep);
          if (i == 0 && k == 0 && rep.empty()) segment->at_origin = false;
        } else {
          out.append(part);
        }
        k += l;
      }
    }
    i = end;
  }
  segment->text.swap(out);
}

}  // namespace tokenmill::hf
