// Minimal leveled logging to stderr, and secret redaction.
//
// Every line passes through RedactSecrets(), so credentials that slip into a message (signed URLs,
// Authorization headers, OAuth tokens) never reach a log. Thread-safety: thread-safe.
#pragma once

#include <string>
#include <string_view>

namespace tokenmill {

enum class LogLevel { kDebug = 0, kInfo = 1, kWarning = 2, kError = 3 };

// Default: kInfo, or the value of TOKENMILL_LOG_LEVEL (debug|info|warning|error).
void SetLogLevel(LogLevel level);
LogLevel GetLogLevel();

// Writes "tokenmill: <level>: <message>\n" to stderr if `level` is enabled.
void Log(LogLevel level, std::string_view message);

inline void LogDebug(std::string_view m) { Log(LogLevel::kDebug, m); }
inline void LogInfo(std::string_view m) { Log(LogLevel::kInfo, m); }
inline void LogWarning(std::string_view m) { Log(LogLevel::kWarning, m); }
inline void LogError(std::string_view m) { Log(LogLevel::kError, m); }

// Replaces the values of known secret carriers with "[REDACTED]": Authorization headers,
// X-Amz-Signature / X-Amz-Credential / X-Amz-Security-Token / Signature query parameters,
// access_token / secret fields in JSON, and any registered secret literal.
std::string RedactSecrets(std::string_view text);

// Registers a literal (an access key, a token) that must never be printed. Thread-safe.
void RegisterSecret(std::string_view secret);

}  // namespace tokenmill
