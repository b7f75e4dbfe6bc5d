#include "tokenmill/io/json_scan.h"

#include <cstdint>
#include <cstring>

namespace tokenmill {
namespace {

bool IsJsonSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

int HexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// The code unit of the "\uXXXX" escape at s[i] ('\\'), or -1 if there is none there.
int EscapedUnit(std::string_view s, size_t i) {
  if (i + 6 > s.size() || s[i] != '\\' || s[i + 1] != 'u') return -1;
  int v = 0;
  for (size_t k = i + 2; k < i + 6; ++k) {
    const int d = HexDigit(s[k]);
    if (d < 0) return -1;
    v = v * 16 + d;
  }
  return v;
}

size_t PutUtf8(uint32_t cp, char* out) {
  if (cp < 0x80) {
    out[0] = static_cast<char>(cp);
    return 1;
  }
  if (cp < 0x800) {
    out[0] = static_cast<char>(0xC0 | (cp >> 6));
    out[1] = static_cast<char>(0x80 | (cp & 0x3F));
    return 2;
  }
  if (cp < 0x10000) {
    out[0] = static_cast<char>(0xE0 | (cp >> 12));
    out[1] = static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out[2] = static_cast<char>(0x80 | (cp & 0x3F));
    return 3;
  }
  out[0] = static_cast<char>(0xF0 | (cp >> 18));
  out[1] = static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
  out[2] = static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
  out[3] = static_cast<char>(0x80 | (cp & 0x3F));
  return 4;
}

// Decodes the escape at s[i] ('\\', validated by the scanner) into out; returns the bytes of
// the escape consumed and sets *written.
size_t DecodeEscape(std::string_view s, size_t i, char* out, size_t* written) {
  const char c = s[i + 1];
  char simple = 0;
  switch (c) {
    case '"':
    case '\\':
    case '/':
      simple = c;
      break;
    case 'b':
      simple = '\b';
      break;
    case 'f':
      simple = '\f';
      break;
    case 'n':
      simple = '\n';
      break;
    case 'r':
      simple = '\r';
      break;
    case 't':
      simple = '\t';
      break;
    default:
      break;
  }
  if (c != 'u') {
    out[0] = simple;
    *written = 1;
    return 2;
  }
  const int unit = EscapedUnit(s, i);
  if (unit >= 0xD800 && unit <= 0xDBFF) {
    const int low = EscapedUnit(s, i + 6);
    if (low >= 0xDC00 && low <= 0xDFFF) {
      const uint32_t cp = 0x10000 + ((static_cast<uint32_t>(unit) - 0xD800) << 10) +
                          (static_cast<uint32_t>(low) - 0xDC00);
      *written = PutUtf8(cp, out);
      return 12;
    }
  }
  const uint32_t cp =
      unit >= 0xD800 && unit <= 0xDFFF ? 0xFFFD : static_cast<uint32_t>(unit);  // lone: U+FFFD
  *written = PutUtf8(cp, out);
  return 6;
}

class Scanner {
 public:
  Scanner(std::string_view json, const std::vector<std::string>& path) : s_(json), path_(path) {}

  StatusOr<JsonFieldMatch> Run() {
    size_t i = Skip(0);
    bool on_path = true;  // the next value is the one path[0..component) reaches
    size_t component = 0;
    while (true) {
      // A value starts at i.
      if (i >= s_.size()) return Error(i, "a value is missing");
      const char c = s_[i];
      if (c == '{' || c == '[') {
        if (stack_.size() >= kMaxJsonDepth) return Error(i, "nested too deep");
        const bool object = c == '{';
        Classify(on_path, component, object ? "an object" : "an array", object, false, 0, 0);
        stack_.push_back(Frame{object,
                               on_path && object && !decided_before_ && component < path_.size(),
                               false, component});
        i = Skip(i + 1);
        const char close = object ? '}' : ']';
        if (i < s_.size() && s_[i] == close) {
          Close();
          i = i + 1;
        } else if (object) {
          TM_ASSIGN_OR_RETURN(i, Key(i, &on_path, &component));
          continue;
        } else {
          on_path = false;
          continue;
        }
      } else if (c == '"') {
        size_t end;
        TM_ASSIGN_OR_RETURN(end, String(i));
        Classify(on_path, component, "a string", false, true, i + 1, end - 1);
        i = end;
      } else {
        size_t end;
        std::string_view type;
        TM_ASSIGN_OR_RETURN(end, Scalar(i, &type));
        Classify(on_path, component, type, false, false, 0, 0);
        i = end;
      }
      // After a value: a separator, the end of containers, or the end of the record.
      while (true) {
        i = Skip(i);
        if (stack_.empty()) {
          if (i != s_.size()) return Error(i, "more after the value");
          if (!decided_) return Error(i, "no value");  // not reached: a value always decides
          match_.lone_surrogates = lone_surrogates_;
          return match_;
        }
        if (i >= s_.size()) return Error(i, "the record ends inside a value");
        const Frame& top = stack_.back();
        if (s_[i] == ',') {
          i = Skip(i + 1);
          if (top.object) {
            TM_ASSIGN_OR_RETURN(i, Key(i, &on_path, &component));
          } else {
            on_path = false;
          }
          break;
        }
        if (s_[i] != (top.object ? '}' : ']')) {
          return Error(i, top.object ? "',' or '}' expected" : "',' or ']' expected");
        }
        Close();
        ++i;
      }
    }
  }

 private:
  struct Frame {
    bool object;
    bool on_path;  // the object path[0..component) reaches: its key path[component] is sought
    bool found;
    size_t component;
  };

  Status Error(size_t at, std::string_view what) const {
    return Status::InvalidArgument("malformed JSON (" + std::string(what) + " at byte " +
                                   std::to_string(at) + ")");
  }

  size_t Skip(size_t i) const {
    while (i < s_.size() && IsJsonSpace(s_[i])) ++i;
    return i;
  }

  void Decide(JsonFieldMatch::Kind kind, size_t component, std::string_view type) {
    decided_ = true;
    match_.kind = kind;
    match_.component = component;
    match_.type = type;
  }

  // A value starts: if it is the one the path reaches, it decides the match.
  void Classify(bool on_path, size_t component, std::string_view type, bool object, bool string,
                size_t begin, size_t end) {
    decided_before_ = decided_;
    if (!on_path || decided_) return;
    if (component == path_.size()) {
      if (string) {
        Decide(JsonFieldMatch::Kind::kString, component, {});
        match_.begin = begin;
        match_.end = end;
      } else {
        Decide(JsonFieldMatch::Kind::kNotString, component, type);
      }
    } else if (!object) {
      Decide(JsonFieldMatch::Kind::kNotObject, component, type);
    }
  }

  void Close() {
    const Frame top = stack_.back();
    stack_.pop_back();
    if (top.on_path && !top.found && !decided_) {
      Decide(JsonFieldMatch::Kind::kMissing, top.component, {});
    }
  }

  // A key and its ':' at i; sets whether the value that follows is on the path.
  StatusOr<size_t> Key(size_t i, bool* on_path, size_t* component) {
    if (i >= s_.size() || s_[i] != '"') return Error(i, "a key (a string) expected");
    size_t end;
    TM_ASSIGN_OR_RETURN(end, String(i));
    Frame& top = stack_.back();
    *on_path = false;
    if (top.on_path && !top.found && !decided_) {
      const std::string_view raw = s_.substr(i + 1, end - i - 2);
      const std::string& want = path_[top.component];
      bool equal;
      if (raw.find('\\') == std::string_view::npos) {
        equal = raw == want;
      } else {
        std::string key(raw);
        UnescapeJsonStringInPlace(&key, 0, key.size());
        equal = key == want;
      }
      if (equal) {
        top.found = true;
        *on_path = true;
        *component = top.component + 1;
      }
    }
    i = Skip(end);
    if (i >= s_.size() || s_[i] != ':') return Error(i, "':' expected after a key");
    return Skip(i + 1);
  }

  // The string whose '"' is at i; returns the offset past its closing '"'.
  StatusOr<size_t> String(size_t i) {
    size_t j = i + 1;
    const size_t n = s_.size();
    while (true) {
      while (j < n) {
        const auto u = static_cast<unsigned char>(s_[j]);
        if (u == '"' || u == '\\' || u < 0x20) break;
        ++j;
      }
      if (j >= n) return Error(i, "a string is not closed");
      const char c = s_[j];
      if (c == '"') return j + 1;
      if (c != '\\') return Error(j, "a control character in a string");
      if (j + 1 >= n) return Error(j, "a string is not closed");
      switch (s_[j + 1]) {
        case '"':
        case '\\':
        case '/':
        case 'b':
        case 'f':
        case 'n':
        case 'r':
        case 't':
          j += 2;
          continue;
        case 'u':
          break;
        default:
          return Error(j, "an invalid escape");
      }
      const int unit = EscapedUnit(s_, j);
      if (unit < 0) return Error(j, "an invalid \\u escape");
      if (unit >= 0xD800 && unit <= 0xDBFF) {
        const int low = EscapedUnit(s_, j + 6);
        if (low >= 0xDC00 && low <= 0xDFFF) {
          j += 12;
          continue;
        }
      }
      if (unit >= 0xD800 && unit <= 0xDFFF) ++lone_surrogates_;
      j += 6;
    }
  }

  // A number, true, false or null at i; returns the offset past it.
  StatusOr<size_t> Scalar(size_t i, std::string_view* type) {
    for (const std::string_view word : {"true", "false", "null"}) {
      if (s_.compare(i, word.size(), word) == 0) {
        *type = word == "null" ? "null" : "a boolean";
        return i + word.size();
      }
    }
    *type = "a number";
    const size_t n = s_.size();
    auto digits = [&](size_t j) {
      while (j < n && s_[j] >= '0' && s_[j] <= '9') ++j;
      return j;
    };
    size_t j = i;
    if (j < n && s_[j] == '-') ++j;
    if (j >= n || s_[j] < '0' || s_[j] > '9') return Error(i, "an invalid value");
    j = s_[j] == '0' ? j + 1 : digits(j);
    if (j < n && s_[j] == '.') {
      const size_t k = digits(j + 1);
      if (k == j + 1) return Error(j, "an invalid number");
      j = k;
    }
    if (j < n && (s_[j] == 'e' || s_[j] == 'E')) {
      ++j;
      if (j < n && (s_[j] == '+' || s_[j] == '-')) ++j;
      const size_t k = digits(j);
      if (k == j) return Error(j, "an invalid number");
      j = k;
    }
    return j;
  }

  std::string_view s_;
  const std::vector<std::string>& path_;
  std::vector<Frame> stack_;
  JsonFieldMatch match_;
  bool decided_ = false;
  bool decided_before_ = false;
  size_t lone_surrogates_ = 0;
};

}  // namespace

StatusOr<JsonFieldMatch> ScanJsonField(std::string_view json,
                                       const std::vector<std::string>& path) {
  return Scanner(json, path).Run();
}

void UnescapeJsonStringInPlace(std::string* buffer, size_t begin, size_t end) {
  char* out = buffer->data();
  const std::string_view s(buffer->data(), end);
  size_t w = 0;
  size_t r = begin;
  while (r < end) {
    const void* bs = std::memchr(s.data() + r, '\\', end - r);
    const size_t stop =
        bs == nullptr ? end : static_cast<size_t>(static_cast<const char*>(bs) - s.data());
    if (stop > r) {
      std::memmove(out + w, s.data() + r, stop - r);
      w += stop - r;
      r = stop;
    }
    if (r >= end) break;
    char decoded[4];
    size_t written = 0;
    r += DecodeEscape(s, r, decoded, &written);
    std::memcpy(out + w, decoded, written);
    w += written;
  }
  buffer->resize(w);
}

}  // namespace tokenmill
