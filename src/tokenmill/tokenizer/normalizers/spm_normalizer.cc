#include "tokenmill/tokenizer/normalizers/spm_normalizer.h"

#include "tokenmill/base/utf8.h"
#include "tokenmill/tokenizer/char_util.h"

namespace tokenmill::hf {
namespace {
constexpr std::string_view kSpace = "\xE2\x96\x81";
constexpr std::string_view kReplacement = "\xEF\xBF\xBD";
}  // namespace

std::string_view SpmNormalizer::Prefix(std::string_view input, size_t* consumed) const {
  std::string_view rep;
  size_t len = 0;
  const auto b0 = static_cast<unsigned char>(input[0]);
  if (b0 < 0x80 && (map_.empty() || !map_.MayMatch(b0))) {
    *consumed = 1;
    return input.substr(0, 1);
  }
  if (!map_.empty() && map_.Longest(input, &rep, &len) && len > 0) {
    *consumed = len;
    return rep;
  }
  const size_t l = Utf8Length(static_cast<unsigned char>(input[0]));
  if (l > input.size() || FindInvalidUtf8(input.substr(0, l)) != std::string_view::npos) {
    *consumed = 1;
    return kReplacement;
  }
  *consumed = l;
  return input.substr(0, l);
}

std::string SpmNormalizer::Normalize(std::string_view input) const {
  std::string out;
  if (input.empty()) return out;
  out.reserve(input.size() * 3 / 2 + 3);
  if (spec_.remove_extra_whitespaces) {
    while (!input.empty()) {
      size_t n;
      if (Prefix(input, &n) != " ") break;
      input.remove_prefix(n);
    }
  }
  if (input.empty()) return out;
  const std::string_view space = spec_.escape_whitespaces ? kSpace : std::string_view(" ");
  if (spec_.add_dummy_prefix) out.append(space);
  bool is_prev_space = spec_.remove_extra_whitespaces;
  while (!input.empty()) {
    size_t n;
    std::string_view sp = Prefix(input, &n);
    while (is_prev_space && !sp.empty() && sp[0] == ' ') sp.remove_prefix(1);
    if (!sp.empty()) {
      for (char c : sp) {
        if (spec_.escape_whitespaces && c == ' ') {
          out.append(kSpace);
        } else {
          out.push_back(c);
        }
      }
      is_prev_space = sp.back() == ' ';
    }
    input.remove_prefix(n);
    if (!spec_.remove_extra_whitespaces) is_prev_space = false;
  }
  if (spec_.remove_extra_whitespaces) {
    while (out.size() >= space.size() &&
           std::string_view(out).substr(out.size() - space.size()) == space) {
      out.resize(out.size() - space.size());
    }
  }
  return out;
}

}  // namespace tokenmill::hf
