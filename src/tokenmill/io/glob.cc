#include "tokenmill/io/glob.h"

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "tokenmill/io/document_reader.h"

namespace tokenmill {
namespace {

// Parses a set starting at pattern[i] == '['. Returns the index after its ']', or npos if the
// set is unterminated. Sets *match to whether byte c belongs to the set.
size_t MatchSet(std::string_view pattern, size_t i, unsigned char c, bool* match) {
  size_t j = i + 1;
  bool negate = false;
  if (j < pattern.size() && (pattern[j] == '!' || pattern[j] == '^')) {
    negate = true;
    ++j;
  }
  bool found = false;
  bool first = true;
  while (j < pattern.size() && (first || pattern[j] != ']')) {
    first = false;
    unsigned char lo = static_cast<unsigned char>(pattern[j]);
    if (lo == '\\' && j + 1 < pattern.size()) lo = static_cast<unsigned char>(pattern[++j]);
    ++j;
    unsigned char hi = lo;
    if (j + 1 < pattern.size() && pattern[j] == '-' && pattern[j + 1] != ']') {
      hi = static_cast<unsigned char>(pattern[j + 1]);
      j += 2;
      if (hi == '\\' && j < pattern.size()) hi = static_cast<unsigned char>(pattern[j++]);
    }
    if (c >= lo && c <= hi) found = true;
  }
  if (j >= pattern.size()) return std::string_view::npos;
  *match = c != '/' && (found != negate);
  return j + 1;
}

// Escapes the wildcard characters of a literal path.
std::string EscapeGlob(std::string_view literal) {
  std::string out;
  for (char c : literal) {
    if (c == '*' || c == '?' || c == '[' || c == '\\') out.push_back('\\');
    out.push_back(c);
  }
  return out;
}

// Relative local paths are made absolute, so that the inputs name the same files wherever a
// worker runs.
StatusOr<std::string> AbsolutePattern(const std::string& pattern) {
  if (IsUrl(pattern) || pattern.starts_with("/")) return pattern;
  std::error_code ec;
  const std::filesystem::path cwd = std::filesystem::current_path(ec);
  if (ec) {
    return Status::IoError("cannot resolve the relative input \"" + pattern +
                           "\": the current folder is unknown (" + ec.message() + ")");
  }
  std::string base = EscapeGlob(cwd.string());
  if (!base.ends_with("/")) base.push_back('/');
  std::string_view rest = pattern;
  while (rest.starts_with("./")) rest.remove_prefix(2);
  return base + std::string(rest);
}

}  // namespace

bool HasGlobWildcard(std::string_view pattern) {
  for (size_t i = 0; i < pattern.size(); ++i) {
    const char c = pattern[i];
    if (c == '\\') {
      ++i;
    } else if (c == '*' || c == '?' || c == '[') {
      return true;
    }
  }
  return false;
}

std::string LiteralGlobPrefix(std::string_view pattern) {
  std::string out;
  for (size_t i = 0; i < pattern.size(); ++i) {
    const char c = pattern[i];
    if (c == '*' || c == '?' || c == '[') break;
    if (c == '\\' && i + 1 < pattern.size()) {
      out.push_back(pattern[++i]);
    } else {
      out.push_back(c);
    }
  }
  return out;
}

Status ValidateGlob(std::string_view pattern) {
  for (size_t i = 0; i < pattern.size(); ++i) {
    const char c = pattern[i];
    if (c == '\\') {
      if (i + 1 == pattern.size()) {
        return Status::InvalidArgument("input pattern \"" + std::string(pattern) +
                                       "\" ends with a lone '\\'");
      }
      ++i;
    } else if (c == '*' && i + 1 < pattern.size() && pattern[i + 1] == '*') {
      return Status::InvalidArgument("input pattern \"" + std::string(pattern) +
                                     "\": \"**\" is not supported; '*' matches within one "
                                     "folder level, list each level (\"a/*/*.txt\")");
    } else if (c == '[') {
      bool ignored;
      const size_t next = MatchSet(pattern, i, 'a', &ignored);
      if (next == std::string_view::npos) {
        return Status::InvalidArgument("input pattern \"" + std::string(pattern) +
                                       "\": '[' at character " + std::to_string(i + 1) +
                                       " has no closing ']' (write \\[ for a literal '[')");
      }
      i = next - 1;
    }
  }
  return Status::Ok();
}

bool GlobMatch(std::string_view pattern, std::string_view text) {
  // Iterative matcher with one backtracking point per '*' (the last one), which suffices
  // because '*' cannot cross '/': on a mismatch, the last star's span grows by one byte.
  size_t p = 0;
  size_t t = 0;
  size_t star_p = std::string_view::npos;
  size_t star_t = 0;
  while (t < text.size()) {
    if (p < pattern.size()) {
      const char pc = pattern[p];
      if (pc == '*') {
        star_p = ++p;
        star_t = t;
        continue;
      }
      if (pc == '?') {
        if (text[t] != '/') {
          ++p;
          ++t;
          continue;
        }
      } else if (pc == '[') {
        bool match = false;
        const size_t next = MatchSet(pattern, p, static_cast<unsigned char>(text[t]), &match);
        if (next != std::string_view::npos && match) {
          p = next;
          ++t;
          continue;
        }
      } else {
        char lit = pc;
        size_t next = p + 1;
        if (pc == '\\' && p + 1 < pattern.size()) {
          lit = pattern[p + 1];
          next = p + 2;
        }
        if (text[t] == lit) {
          p = next;
          ++t;
          continue;
        }
      }
    }
    // Mismatch: let the last '*' absorb one more byte, unless that byte is '/'.
    if (star_p == std::string_view::npos || text[star_t] == '/') return false;
    ++star_t;
    p = star_p;
    t = star_t;
  }
  while (p < pattern.size() && pattern[p] == '*') ++p;
  return p == pattern.size();
}

StatusOr<std::vector<ObjectInfo>> ExpandGlobs(const std::vector<std::string>& patterns) {
  std::vector<ObjectInfo> out;
  for (const std::string& given : patterns) {
    if (given.empty()) return Status::InvalidArgument("an input pattern is empty");
    TM_ASSIGN_OR_RETURN(const std::string pattern, AbsolutePattern(given));
    TM_RETURN_IF_ERROR(ValidateGlob(pattern));
    TM_ASSIGN_OR_RETURN(Storage * storage, StorageFor(pattern));
    if (!HasGlobWildcard(pattern)) {
      const std::string location = LiteralGlobPrefix(pattern);
      StatusOr<ObjectInfo> info = storage->Stat(location);
      if (!info.ok()) {
        if (info.status().code() == StatusCode::kNotFound) {
          return Status::NotFound(
              "input \"" + given +
              "\" does not exist; check the path (patterns may use * and ?; for the "
              "files of a folder, write \"" +
              (given.ends_with("/") ? given : given + "/") + "*\")");
        }
        return info.status().WithContext("input \"" + given + "\"");
      }
      out.push_back(std::move(info).value());
      continue;
    }
    TM_ASSIGN_OR_RETURN(std::vector<ObjectInfo> listed, storage->List(LiteralGlobPrefix(pattern)));
    size_t matched = 0;
    for (ObjectInfo& info : listed) {
      if (GlobMatch(pattern, info.url)) {
        out.push_back(std::move(info));
        ++matched;
      }
    }
    if (matched == 0) {
      return Status::NotFound("input pattern \"" + given +
                              "\" matches no file; check the path ('*' and '?' do not match "
                              "'/')");
    }
  }
  std::sort(out.begin(), out.end(),
            [](const ObjectInfo& a, const ObjectInfo& b) { return a.url < b.url; });
  out.erase(std::unique(out.begin(), out.end(),
                        [](const ObjectInfo& a, const ObjectInfo& b) { return a.url == b.url; }),
            out.end());
  return out;
}

}  // namespace tokenmill
