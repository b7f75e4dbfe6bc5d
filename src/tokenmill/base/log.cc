#include "tokenmill/base/log.h"

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>
#include <vector>

namespace tokenmill {
namespace {

LogLevel InitialLevel() {
  const char* env = std::getenv("TOKENMILL_LOG_LEVEL");
  if (env == nullptr) return LogLevel::kInfo;
  std::string v(env);
  if (v == "debug") return LogLevel::kDebug;
  if (v == "warning") return LogLevel::kWarning;
  if (v == "error") return LogLevel::kError;
  return LogLevel::kInfo;
}

std::atomic<int> g_level{static_cast<int>(InitialLevel())};
std::mutex g_mu;
std::vector<std::string>& Secrets() {
  static auto* s = new std::vector<std::string>();
  return *s;
}

const char* LevelName(LogLevel l) {
  switch (l) {
    case LogLevel::kDebug:
      return "debug";
    case LogLevel::kInfo:
      return "info";
    case LogLevel::kWarning:
      return "warning";
    case LogLevel::kError:
      return "error";
  }
  return "?";
}

}  // namespace

void SetLogLevel(LogLevel level) { g_level = static_cast<int>(level); }
LogLevel GetLogLevel() { return static_cast<LogLevel>(g_level.load()); }

void RegisterSecret(std::string_view secret) {
  if (secret.size() < 4) return;  // too short to redact meaningfully
  std::lock_guard<std::mutex> lock(g_mu);
  Secrets().emplace_back(secret);
}

namespace {

char Lower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }

// Finds `needle` in `hay` from `from`, ASCII case-insensitively.
size_t FindNoCase(const std::string& hay, std::string_view needle, size_t from) {
  if (needle.size() > hay.size()) return std::string::npos;
  for (size_t i = from; i + needle.size() <= hay.size(); ++i) {
    size_t k = 0;
    while (k < needle.size() && Lower(hay[i + k]) == Lower(needle[k])) ++k;
    if (k == needle.size()) return i;
  }
  return std::string::npos;
}

// Replaces the text from `start` up to (not including) the first character in `stops` (or the
// end) with [REDACTED]; returns the position after the replacement.
size_t RedactUntil(std::string* s, size_t start, std::string_view stops) {
  size_t end = start;
  while (end < s->size() && stops.find((*s)[end]) == std::string_view::npos) ++end;
  s->replace(start, end - start, "[REDACTED]");
  return start + 10;
}

}  // namespace

std::string RedactSecrets(std::string_view text) {
  std::string out(text);
  // Header values, to the end of the line.
  for (size_t pos = 0; (pos = FindNoCase(out, "authorization:", pos)) != std::string::npos;) {
    size_t v = pos + 14;
    while (v < out.size() && (out[v] == ' ' || out[v] == '\t')) ++v;
    pos = RedactUntil(&out, v, "\r\n");
  }
  // Query parameters and key=value pairs.
  for (std::string_view key : {"x-amz-signature=", "x-amz-credential=", "x-amz-security-token=",
                               "signature=", "access_token=", "googleaccessid="}) {
    for (size_t pos = 0; (pos = FindNoCase(out, key, pos)) != std::string::npos;) {
      // "signature=" must not match inside "x-amz-signature=" twice: skip if already redacted.
      size_t v = pos + key.size();
      if (out.compare(v, 10, "[REDACTED]") == 0) {
        pos = v + 10;
        continue;
      }
      pos = RedactUntil(&out, v, "&\"' \t\r\n");
    }
  }
  // JSON string members.
  for (std::string_view key : {"\"access_token\"", "\"secret\"", "\"secret_access_key\"",
                               "\"private_key\"", "\"token\""}) {
    for (size_t pos = 0; (pos = FindNoCase(out, key, pos)) != std::string::npos;) {
      size_t v = pos + key.size();
      while (v < out.size() && (out[v] == ' ' || out[v] == ':')) ++v;
      if (v >= out.size() || out[v] != '"') {
        pos = v;
        continue;
      }
      pos = RedactUntil(&out, v + 1, "\"");
    }
  }
  std::lock_guard<std::mutex> lock(g_mu);
  for (const auto& s : Secrets()) {
    for (size_t pos = out.find(s); pos != std::string::npos; pos = out.find(s, pos)) {
      out.replace(pos, s.size(), "[REDACTED]");
    }
  }
  return out;
}

void Log(LogLevel level, std::string_view message) {
  if (static_cast<int>(level) < g_level.load()) return;
  std::string line = "tokenmill: ";
  line += LevelName(level);
  line += ": ";
  line += RedactSecrets(message);
  line += '\n';
  std::fwrite(line.data(), 1, line.size(), stderr);
}

}  // namespace tokenmill
