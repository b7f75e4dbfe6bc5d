#include "tokenmill/launch/names.h"

#include <cstring>

namespace tokenmill::launch {
namespace {

bool Lower(char c) { return c >= 'a' && c <= 'z'; }
bool Upper(char c) { return c >= 'A' && c <= 'Z'; }
bool Digit(char c) { return c >= '0' && c <= '9'; }
bool LowerOrDigit(char c) { return Lower(c) || Digit(c); }

// True if every character is alphanumeric (any case when `upper`) or one of `extra`.
bool Only(std::string_view s, bool upper, const char* extra) {
  for (char c : s) {
    if (LowerOrDigit(c) || (upper && Upper(c))) continue;
    if (c != '\0' && std::strchr(extra, c) != nullptr) continue;
    return false;
  }
  return true;
}

// "D" digits, then ":" and 1-2 digits, at most `max_colons` times.
bool IsClock(std::string_view s, int min_parts, int max_parts) {
  int parts = 0;
  size_t start = 0;
  while (true) {
    size_t colon = s.find(':', start);
    std::string_view part =
        s.substr(start, colon == std::string_view::npos ? colon : colon - start);
    if (!IsDigits(part)) return false;
    if (parts > 0 && part.size() > 2) return false;
    ++parts;
    if (colon == std::string_view::npos) break;
    start = colon + 1;
  }
  return parts >= min_parts && parts <= max_parts;
}

}  // namespace

bool IsDigits(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (!Digit(c)) return false;
  }
  return true;
}

bool IsSlurmName(std::string_view s) { return !s.empty() && Only(s, true, "_.-"); }

bool IsSlurmNameList(std::string_view s) {
  size_t start = 0;
  while (true) {
    size_t comma = s.find(',', start);
    std::string_view name =
        s.substr(start, comma == std::string_view::npos ? comma : comma - start);
    if (!IsSlurmName(name)) return false;
    if (comma == std::string_view::npos) return true;
    start = comma + 1;
  }
}

bool IsSlurmTime(std::string_view s) {
  if (s == "UNLIMITED" || s == "INFINITE") return true;
  size_t dash = s.find('-');
  if (dash == std::string_view::npos) return IsClock(s, 1, 3);  // M, M:S, H:M:S
  if (!IsDigits(s.substr(0, dash))) return false;
  return IsClock(s.substr(dash + 1), 1, 3);  // D-H, D-H:M, D-H:M:S
}

bool IsDnsLabel(std::string_view s) {
  return !s.empty() && s.size() <= 63 && Only(s, false, "-") && LowerOrDigit(s.front()) &&
         LowerOrDigit(s.back());
}

bool IsDnsSubdomain(std::string_view s) {
  return !s.empty() && s.size() <= 253 && Only(s, false, "-.") && LowerOrDigit(s.front()) &&
         LowerOrDigit(s.back());
}

bool IsMemoryQuantity(std::string_view s) {
  size_t i = 0;
  while (i < s.size() && Digit(s[i])) ++i;
  if (i == 0) return false;
  if (i < s.size() && s[i] == '.') {
    size_t start = ++i;
    while (i < s.size() && Digit(s[i])) ++i;
    if (i == start) return false;
  }
  std::string_view suffix = s.substr(i);
  if (suffix.empty()) return true;
  for (std::string_view ok :
       {"Ki", "Mi", "Gi", "Ti", "Pi", "Ei", "k", "M", "G", "T", "P", "E", "m"}) {
    if (suffix == ok) return true;
  }
  return suffix.size() > 1 && (suffix[0] == 'e' || suffix[0] == 'E') && IsDigits(suffix.substr(1));
}

bool IsGceName(std::string_view s) {
  return !s.empty() && s.size() <= 63 && Lower(s.front()) && LowerOrDigit(s.back()) &&
         Only(s, false, "-");
}

bool IsGceZone(std::string_view s) {
  // <letters>-<letters><digits>-<letter>
  size_t first = s.find('-');
  size_t last = s.rfind('-');
  if (first == std::string_view::npos || first == last || first == 0) return false;
  std::string_view area = s.substr(0, first);
  std::string_view region = s.substr(first + 1, last - first - 1);
  std::string_view zone = s.substr(last + 1);
  for (char c : area) {
    if (!Lower(c)) return false;
  }
  size_t i = 0;
  while (i < region.size() && Lower(region[i])) ++i;
  if (i == 0 || !IsDigits(region.substr(i))) return false;
  return zone.size() == 1 && Lower(zone[0]);
}

bool IsGceMachineType(std::string_view s) {
  return !s.empty() && LowerOrDigit(s.front()) && Only(s, false, "-");
}

bool IsGceProject(std::string_view s) {
  return s.size() >= 6 && s.size() <= 63 && Lower(s.front()) && LowerOrDigit(s.back()) &&
         Only(s, false, "-.:");
}

bool IsEmail(std::string_view s) {
  size_t at = s.find('@');
  if (at == std::string_view::npos || at == 0 || at + 1 == s.size()) return false;
  return Only(s.substr(0, at), true, "._%+-") && Only(s.substr(at + 1), true, ".-");
}

bool IsDiskSize(std::string_view s) {
  if (s.size() < 3) return false;
  std::string_view unit = s.substr(s.size() - 2);
  return (unit == "GB" || unit == "TB") && IsDigits(s.substr(0, s.size() - 2));
}

bool IsPlainYamlKey(std::string_view s) {
  if (s.empty() || !(Lower(s[0]) || Upper(s[0]) || s[0] == '_')) return false;
  return Only(s, true, "_./-");
}

}  // namespace tokenmill::launch
