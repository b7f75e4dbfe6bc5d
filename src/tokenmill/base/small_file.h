// Reading a small local file (a configuration file, a /proc or cgroup entry) in one piece.
#pragma once

#include <optional>
#include <string>

namespace tokenmill {

// The whole content of `path`, or nullopt if it cannot be opened (missing, unreadable).
std::optional<std::string> ReadSmallFile(const std::string& path);

}  // namespace tokenmill
