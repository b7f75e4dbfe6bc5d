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
  m.FillUntouched();
  return m;
}

bool CharsMap::Walks(std::string_view bytes) const {
  if (units_.empty()) return false;
  const size_t n = units_.size();
  auto offset = [](uint32_t unit) -> size_t {
    return static_cast<size_t>((unit >> 10) << ((unit & (1u << 9)) >> 6));
  };
  size_t node = offset(units_[0]);
  for (char ch : bytes) {
    const auto c = static_cast<unsigned char>(ch);
    if (c == 0) return false;
    node ^= c;
    if (node >= n) return false;
    const uint32_t unit = units_[node];
    if ((unit & ((1u << 31) | 0xFF)) != c) return false;
    node ^= offset(unit);
    if (node >= n) return false;
  }
  return true;
}

void CharsMap::FillUntouched() {
  std::string bytes;
  for (uint32_t cp = 0; cp < 0x10000; ++cp) {
    bytes.clear();
    AppendUtf8(cp, &bytes);
    const bool surrogate = cp >= 0xD800 && cp <= 0xDFFF;
    std::string_view rep;
    if (surrogate || cp == 0 || Walks(bytes) || Shortest(bytes, &rep)) {
      untouched_[cp >> 6] &= ~(uint64_t{1} << (cp & 63));
    }
  }
  for (size_t b = 0; b < 128; ++b) {
    std::string_view rep;
    const char one[1] = {static_cast<char>(b)};
    const bool single = b != 0 && Shortest(std::string_view(one, 1), &rep);
    for (size_t next = 0; next < 128; ++next) {
      const char two[2] = {static_cast<char>(b), static_cast<char>(next)};
      if (b != 0 && (single || (next != 0 && Walks(std::string_view(two, 2))))) {
        const size_t i = b << 7 | next;
        ascii_pairs_[i >> 6] |= uint64_t{1} << (i & 63);
      }
    }
  }
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

namespace {

// Bit c: the BMP code point c has grapheme break property Other.
const std::vector<uint64_t>& OtherBits() {
  static const std::vector<uint64_t>* const bits = [] {
    auto* b = new std::vector<uint64_t>(1024, 0);
    for (uint32_t c = 0; c < 0x10000; ++c) {
      if (c >= 0xD800 && c <= 0xDFFF) continue;
      const utf8proc_property_t* p = utf8proc_get_property(static_cast<utf8proc_int32_t>(c));
      if (p->boundclass == UTF8PROC_BOUNDCLASS_OTHER) (*b)[c >> 6] |= uint64_t{1} << (c & 63);
    }
    return b;
  }();
  return *bits;
}

}  // namespace

PrecompiledNormalizer::PrecompiledNormalizer(CharsMap map)
    : map_(std::move(map)), other_(OtherBits().data()) {
  for (int b = 0; b < 0x80; ++b) {
    ascii_kept_[b] = b != '\r' && !map_.MayMatchAscii(static_cast<unsigned char>(b), 0);
  }
  std::string_view space;
  space_kept_ = map_.empty() || !map_.Shortest(" ", &space) || space == " ";
}

void PrecompiledNormalizer::Normalize(Segment* segment) const {
  if (map_.empty()) return;
  const std::string& s = segment->text;
  std::string out;
  out.reserve(s.size());
  size_t i = 0;
  utf8proc_int32_t state = 0;
  while (i < s.size()) {
    // A run of ASCII characters each alone in its cluster (the next is ASCII too), with no rule:
    // copied at once.
    size_t run = i;
    while (run < s.size() && ascii_kept_[static_cast<unsigned char>(s[run])]) ++run;
    if (run < s.size() && run > i) --run;  // the last one may cluster with what follows
    if (run > i) {
      out.append(s, i, run - i);
      i = run;
      continue;
    }
    const auto b0 = static_cast<unsigned char>(s[i]);
    if (b0 >= 0x80) {
      // A character of break property Other followed by another (or by nothing) is alone in
      // its cluster; if no key starts with it, it stays as it is.
      size_t len;
      const uint32_t c = DecodeAt(s, i, &len);
      if (len > 1 && BreaksAsOther(c) && map_.Untouched(c)) {
        size_t next_len = 0;
        if (i + len == s.size() || BreaksAsOther(DecodeAt(s, i + len, &next_len))) {
          out.append(s, i, len);
          i += len;
          continue;
        }
      }
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
