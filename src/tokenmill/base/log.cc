#include "tokenmill/base/log.h"

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <regex>
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
    case LogLevel::kDebug: return "debug";
    case LogLevel::kInfo: return "info";
    case LogLevel::kWarning: return "warning";
    case LogLevel::kError: return "error";
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

std::string RedactSecrets(std::string_view text) {
  static const std::regex kPatterns[] = {
      std::regex(R"re((Authorization:\s*)[^\r\n]*)re", std::regex::icase),
      std::regex(R"re(((?:X-Amz-Signature|X-Amz-Credential|X-Amz-Security-Token|Signature|)re"
                 R"re(access_token|GoogleAccessId)=)[^&\s"']*)re",
                 std::regex::icase),
      std::regex(R"re(("(?:access_token|secret|secret_access_key|private_key|token)"\s*:\s*")[^"]*)re",
                 std::regex::icase),
  };
  std::string out(text);
  for (const auto& re : kPatterns) out = std::regex_replace(out, re, "$1[REDACTED]");
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
