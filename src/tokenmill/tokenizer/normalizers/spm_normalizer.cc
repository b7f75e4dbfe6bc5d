#include "tokenmill/tokenizer/normalizers/spm_normalizer.h"

#include <cstring>

#include "tokenmill/base/utf8.h"
#include "tokenmill/tokenizer/char_util.h"

namespace tokenmill::hf {
namespace {
constexpr std::string_view kSpace = "\xE2\x96\x81";
constexpr std::string_view kReplacement = "\xEF\xBF\xBD";
}  // namespace

std::string_view SpmNormalizer::Prefix(std::string_view input, bool valid, size_t* consumed) const {
  if (Plain(input, valid, consumed)) return input.substr(0, *consumed);
  std::string_view rep;
  size_t len = 0;
  if (!map_.empty() && map_.Longest(input, &rep, &len) && len > 0) {
    *consumed = len;
    return rep;
  }
  const size_t l = Utf8Length(static_cast<unsigned char>(input[0]));
  if (!valid &&
      (l > input.size() || FindInvalidUtf8(input.substr(0, l)) != std::string_view::npos)) {
    *consumed = 1;
    return kReplacement;
  }
  *consumed = l;
  return input.substr(0, l);
}

std::string SpmNormalizer::Normalize(std::string_view input) const {
  std::string out;
  if (input.empty()) return out;
  // Valid input (almost all) needs no check character by character.
  const bool valid = FindInvalidUtf8(input) == std::string_view::npos;
  if (spec_.remove_extra_whitespaces) {
    while (!input.empty()) {
      size_t n;
      if (Prefix(input, valid, &n) != " ") break;
      input.remove_prefix(n);
    }
  }
  if (input.empty()) return out;
  const std::string_view space = spec_.escape_whitespaces ? kSpace : std::string_view(" ");
  // Written in place: a kept character is itself and a space at most 3 bytes, so 3 bytes an
  // input byte always fit; only a charsmap replacement may need more room.
  out.resize(3 * input.size() + 16);
  size_t w = 0;
  auto put = [&](std::string_view s) {
    std::memcpy(out.data() + w, s.data(), s.size());
    w += s.size();
  };
  if (spec_.add_dummy_prefix) put(space);
  bool is_prev_space = spec_.remove_extra_whitespaces;
  size_t i = 0;
  const size_t size = input.size();
  while (i < size) {
    const auto b0 = static_cast<unsigned char>(input[i]);
    if (b0 < 0x80) {
      if (b0 != ' ' &&
          (map_.empty() || !map_.MayMatch(b0) ||
           !map_.MayMatchAscii(b0, i + 1 < size ? static_cast<unsigned char>(input[i + 1]) : 0))) {
        out[w++] = static_cast<char>(b0);
        is_prev_space = false;
        ++i;
        continue;
      }
    } else if (size_t n; Plain(input.substr(i), valid, &n)) {
      for (size_t k = 0; k < n; ++k) out[w + k] = input[i + k];
      w += n;
      is_prev_space = false;
      i += n;
      continue;
    }
    size_t n;
    std::string_view sp = Prefix(input.substr(i), valid, &n);
    i += n;
    while (is_prev_space && !sp.empty() && sp[0] == ' ') sp.remove_prefix(1);
    if (!sp.empty()) {
      const size_t need = w + 3 * sp.size() + 3 * (size - i) + 16;
      if (need > out.size()) out.resize(need);
      for (char c : sp) {
        if (spec_.escape_whitespaces && c == ' ') {
          put(kSpace);
        } else {
          out[w++] = c;
        }
      }
      is_prev_space = sp.back() == ' ';
    }
    if (!spec_.remove_extra_whitespaces) is_prev_space = false;
  }
  out.resize(w);
  if (spec_.remove_extra_whitespaces) {
    while (out.size() >= space.size() &&
           std::string_view(out).substr(out.size() - space.size()) == space) {
      out.resize(out.size() - space.size());
    }
  }
  return out;
}

}  // namespace tokenmill::hf
