// Test helpers for the byte-level BPE tests: data paths, file reading, golden id files.
// Thread-safety: functions only.
#pragma once

#include <zlib.h>

#include <cstdint>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

namespace tokenmill::bpe_test {

// A file of the repo (data/...).
inline std::string RepoPath(std::string_view rel) {
  return std::string(TOKENMILL_SOURCE_DIR) + "/" + std::string(rel);
}

// A file of the shared data folder beside the repo (../shared/data/...); may be absent.
inline std::string SharedPath(std::string_view rel) {
  return std::string(TOKENMILL_SOURCE_DIR) + "/../shared/data/" + std::string(rel);
}

// The whole file, gunzipped if its name ends in ".gz"; nullopt if it cannot be read.
inline std::optional<std::string> ReadFile(const std::string& path) {
  if (path.size() > 3 && path.compare(path.size() - 3, 3, ".gz") == 0) {
    gzFile f = gzopen(path.c_str(), "rb");
    if (f == nullptr) return std::nullopt;
    std::string out;
    char buf[1 << 16];
    int n;
    while ((n = gzread(f, buf, sizeof(buf))) > 0) out.append(buf, static_cast<size_t>(n));
    const bool ok = n == 0;
    gzclose(f);
    if (!ok) return std::nullopt;
    return out;
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Splits on '\n' only; a final '\n' does not start another line.
inline std::vector<std::string_view> SplitLines(std::string_view text) {
  std::vector<std::string_view> lines;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t eol = text.find('\n', pos);
    if (eol == std::string_view::npos) eol = text.size();
    lines.push_back(text.substr(pos, eol - pos));
    pos = eol + 1;
  }
  return lines;
}

// "[1,2,3]" -> {1,2,3}; nullopt if malformed.
inline std::optional<std::vector<uint32_t>> ParseIds(std::string_view line) {
  if (line.size() < 2 || line.front() != '[' || line.back() != ']') return std::nullopt;
  std::vector<uint32_t> ids;
  uint64_t v = 0;
  bool digits = false;
  for (size_t i = 1; i < line.size(); ++i) {
    const char c = line[i];
    if (c >= '0' && c <= '9') {
      v = v * 10 + static_cast<uint64_t>(c - '0');
      digits = true;
    } else if (c == ',' || c == ']') {
      if (!digits) {
        if (c == ']' && ids.empty() && i == 1) break;
        return std::nullopt;
      }
      ids.push_back(static_cast<uint32_t>(v));
      v = 0;
      digits = false;
    } else if (c != ' ') {
      return std::nullopt;
    }
  }
  return ids;
}

inline std::string FormatIds(const std::vector<uint32_t>& ids) {
  std::string s = "[";
  for (size_t i = 0; i < ids.size(); ++i) {
    if (i > 0) s += ',';
    s += std::to_string(ids[i]);
  }
  return s + "]";
}

}  // namespace tokenmill::bpe_test
