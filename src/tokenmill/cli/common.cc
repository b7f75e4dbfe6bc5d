#include <cstdio>

#include "tokenmill/base/log.h"
#include "tokenmill/cli/command.h"

namespace tokenmill::cli {

int ReportError(const Status& status) {
  const std::string line = "tokenmill: error: " + RedactSecrets(status.message()) + "\n";
  std::fputs(line.c_str(), stderr);
  return status.Is(StatusCode::kInvalidArgument) ? kExitFailure : kExitFailure;
}

StatusOr<bool> ParseBool(const std::string& text) {
  std::string t;
  for (char c : text) t.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  if (t == "true" || t == "yes" || t == "1" || t == "on") return true;
  if (t == "false" || t == "no" || t == "0" || t == "off") return false;
  return Status::InvalidArgument("'" + text + "' is not a boolean; use true or false");
}

}  // namespace tokenmill::cli
