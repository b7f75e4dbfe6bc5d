#include "tokenmill/base/units.h"

#include <cctype>
#include <cmath>
#include <cstdio>
#include <string>

namespace tokenmill {

StatusOr<uint64_t> ParseByteSize(std::string_view text) {
  std::string s(text);
  size_t i = 0;
  while (i < s.size() && (std::isdigit(static_cast<unsigned char>(s[i])) || s[i] == '.')) ++i;
  if (i == 0) {
    return Status::InvalidArgument("'" + s + "' is not a size; write bytes or e.g. \"64MiB\"");
  }
  double number = 0;
  try {
    number = std::stod(s.substr(0, i));
  } catch (...) {
    return Status::InvalidArgument("'" + s + "' is not a size; write bytes or e.g. \"64MiB\"");
  }
  while (i < s.size() && s[i] == ' ') ++i;
  std::string unit;
  for (; i < s.size(); ++i)
    unit.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(s[i]))));
  double mult = 0;
  if (unit.empty() || unit == "b")
    mult = 1;
  else if (unit == "kb" || unit == "k")
    mult = 1e3;
  else if (unit == "mb" || unit == "m")
    mult = 1e6;
  else if (unit == "gb" || unit == "g")
    mult = 1e9;
  else if (unit == "tb" || unit == "t")
    mult = 1e12;
  else if (unit == "kib")
    mult = 1024.0;
  else if (unit == "mib")
    mult = 1024.0 * 1024;
  else if (unit == "gib")
    mult = 1024.0 * 1024 * 1024;
  else if (unit == "tib")
    mult = 1024.0 * 1024 * 1024 * 1024;
  else {
    return Status::InvalidArgument("unknown size unit in '" + s +
                                   "'; use B, KB, MB, GB, TB, KiB, MiB, GiB or TiB");
  }
  const double bytes = std::floor(number * mult);
  if (!(bytes >= 0) || bytes > 9.2e18) {
    return Status::InvalidArgument("size '" + s + "' is out of range");
  }
  return static_cast<uint64_t>(bytes);
}

std::string FormatBytes(double bytes) {
  const char* units[] = {"B", "kB", "MB", "GB", "TB", "PB"};
  int u = 0;
  while (bytes >= 1000 && u < 5) {
    bytes /= 1000;
    ++u;
  }
  char buf[32];
  std::snprintf(buf, sizeof(buf), u == 0 ? "%.0f %s" : "%.1f %s", bytes, units[u]);
  return buf;
}

}  // namespace tokenmill
