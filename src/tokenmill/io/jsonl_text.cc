#include "tokenmill/io/jsonl_text.h"

namespace tokenmill {
namespace {

// The code unit of a "\uXXXX" escape at in[i] (which is '\\'), or -1.
int EscapedUnit(std::string_view in, size_t i) {
  if (i + 6 > in.size() || in[i] != '\\' || in[i + 1] != 'u') return -1;
  int v = 0;
  for (size_t k = i + 2; k < i + 6; ++k) {
    const char c = in[k];
    int d;
    if (c >= '0' && c <= '9') {
      d = c - '0';
    } else if (c >= 'a' && c <= 'f') {
      d = c - 'a' + 10;
    } else if (c >= 'A' && c <= 'F') {
      d = c - 'A' + 10;
    } else {
      return -1;
    }
    v = v * 16 + d;
  }
  return v;
}

}  // namespace

StatusOr<std::vector<std::string>> SplitFieldPath(std::string_view path) {
  std::vector<std::string> keys;
  size_t start = 0;
  while (true) {
    const size_t dot = path.find('.', start);
    const std::string_view key =
        path.substr(start, dot == std::string_view::npos ? std::string_view::npos : dot - start);
    if (key.empty()) {
      return Status::InvalidArgument("text_field \"" + std::string(path) +
                                     "\" is not a valid field path: use a field name, or names "
                                     "joined by '.' to reach into nested objects (\"meta.text\")");
    }
    keys.emplace_back(key);
    if (dot == std::string_view::npos) break;
    start = dot + 1;
  }
  return keys;
}

void ReplaceLoneSurrogateEscapes(std::string_view in, std::string* out, size_t* replaced) {
  out->clear();
  out->reserve(in.size());
  *replaced = 0;
  size_t i = 0;
  while (i < in.size()) {
    if (in[i] != '\\') {
      out->push_back(in[i]);
      ++i;
      continue;
    }
    const int unit = EscapedUnit(in, i);
    if (unit < 0) {  // another escape ("\\", "\n"...) or a broken one: copy its two bytes
      out->append(in.substr(i, 2));
      i += 2;
      continue;
    }
    if (unit >= 0xD800 && unit <= 0xDBFF) {
      const int low = EscapedUnit(in, i + 6);
      if (low >= 0xDC00 && low <= 0xDFFF) {
        out->append(in.substr(i, 12));
        i += 12;
        continue;
      }
    }
    if (unit >= 0xD800 && unit <= 0xDFFF) {
      out->append("\\uFFFD");
      ++*replaced;
    } else {
      out->append(in.substr(i, 6));
    }
    i += 6;
  }
}

}  // namespace tokenmill
