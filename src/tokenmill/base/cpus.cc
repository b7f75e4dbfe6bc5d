#include "tokenmill/base/cpus.h"

#include <sched.h>

#include <algorithm>
#include <charconv>
#include <optional>
#include <string_view>
#include <thread>
#include <vector>

#include "tokenmill/base/small_file.h"

namespace tokenmill {
namespace {

std::vector<std::string_view> SplitOn(std::string_view s, char sep) {
  std::vector<std::string_view> parts;
  size_t start = 0;
  for (;;) {
    const size_t end = s.find(sep, start);
    parts.push_back(s.substr(start, end == std::string_view::npos ? end : end - start));
    if (end == std::string_view::npos) return parts;
    start = end + 1;
  }
}

bool Contains(std::string_view list, std::string_view item) {
  const std::vector<std::string_view> items = SplitOn(list, ',');
  return std::find(items.begin(), items.end(), item) != items.end();
}

std::optional<int64_t> ParseInt(std::string_view s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.remove_suffix(1);
  int64_t v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
  return v;
}

// Mount points in /proc/self/mountinfo escape space, tab, newline and backslash as \ooo.
std::string UnescapeMountPath(std::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\\' && i + 3 < s.size()) {
      const std::string_view oct = s.substr(i + 1, 3);
      if (std::all_of(oct.begin(), oct.end(), [](char c) { return c >= '0' && c <= '7'; })) {
        out.push_back(static_cast<char>((oct[0] - '0') * 64 + (oct[1] - '0') * 8 + (oct[2] - '0')));
        i += 3;
        continue;
      }
    }
    out.push_back(s[i]);
  }
  return out;
}

struct CgroupMount {
  std::string root;         // the cgroup folder mounted there (/ unless in a namespace)
  std::string mount_point;  // where it is mounted
};

// The cgroup2 mount (v2) or the cgroup v1 mount that carries the cpu controller.
std::optional<CgroupMount> FindMount(std::string_view mountinfo, bool v2) {
  for (std::string_view line : SplitOn(mountinfo, '\n')) {
    const std::vector<std::string_view> f = SplitOn(line, ' ');
    const auto dash = std::find(f.begin(), f.end(), "-");
    if (f.size() < 7 || dash == f.end() || f.end() - dash < 4) continue;
    const std::string_view fstype = dash[1];
    const std::string_view super_options = dash[3];
    if (v2 ? fstype != "cgroup2" : fstype != "cgroup" || !Contains(super_options, "cpu")) {
      continue;
    }
    return CgroupMount{UnescapeMountPath(f[3]), UnescapeMountPath(f[4])};
  }
  return std::nullopt;
}

// This process's cgroup path: in the unified hierarchy (v2) or the v1 one holding "cpu".
std::optional<std::string> FindCgroupPath(std::string_view proc_cgroup, bool v2) {
  for (std::string_view line : SplitOn(proc_cgroup, '\n')) {
    const size_t first = line.find(':');
    const size_t second = first == std::string_view::npos ? first : line.find(':', first + 1);
    if (second == std::string_view::npos) continue;
    const std::string_view id = line.substr(0, first);
    const std::string_view controllers = line.substr(first + 1, second - first - 1);
    const bool match = v2 ? id == "0" && controllers.empty() : Contains(controllers, "cpu");
    if (match) return std::string(line.substr(second + 1));
  }
  return std::nullopt;
}

// The tighter of two CPU limits, 0 meaning none.
uint32_t Tighter(uint32_t a, uint32_t b) {
  if (a == 0) return b;
  return b == 0 ? a : std::min(a, b);
}

// ceil(quota / period) of one cgroup folder, or 0 without a limit there.
uint32_t FolderLimit(const std::string& dir, bool v2) {
  int64_t quota = -1, period = 0;
  if (v2) {  // cpu.max: "max 100000" or "<quota> <period>"
    const auto text = ReadSmallFile(dir + "/cpu.max");
    if (!text) return 0;
    const std::vector<std::string_view> f = SplitOn(*text, ' ');
    if (f.size() != 2 || f[0] == "max") return 0;
    quota = ParseInt(f[0]).value_or(-1);
    period = ParseInt(f[1]).value_or(0);
  } else {
    const auto q = ReadSmallFile(dir + "/cpu.cfs_quota_us");
    const auto p = ReadSmallFile(dir + "/cpu.cfs_period_us");
    if (!q || !p) return 0;
    quota = ParseInt(*q).value_or(-1);
    period = ParseInt(*p).value_or(0);
  }
  if (quota <= 0 || period <= 0) return 0;
  const int64_t cpus = (quota + period - 1) / period;
  return static_cast<uint32_t>(std::min<int64_t>(cpus, UINT32_MAX));
}

// The smallest limit of the process's cgroup and its ancestors up to the mount, or 0.
uint32_t HierarchyLimit(const std::string& root, std::string_view mountinfo,
                        std::string_view proc_cgroup, bool v2) {
  const auto mount = FindMount(mountinfo, v2);
  const auto path = FindCgroupPath(proc_cgroup, v2);
  if (!mount || !path) return 0;
  // The path is relative to the cgroup namespace's root; a mount of a folder below the root
  // shows the part under it. A path outside the mounted folder: the mount's own limits.
  std::string rel = *path;
  if (mount->root != "/") {
    rel = rel.starts_with(mount->root) ? rel.substr(mount->root.size()) : std::string();
  }
  if (rel.find("/..") != std::string::npos) rel.clear();
  const std::string top = root + mount->mount_point;
  std::string dir = top + (rel == "/" ? "" : rel);
  uint32_t limit = 0;
  for (;;) {
    limit = Tighter(limit, FolderLimit(dir, v2));
    if (dir.size() <= top.size()) break;
    const size_t slash = dir.rfind('/');
    if (slash == std::string::npos || slash < top.size()) break;
    dir.resize(slash);
  }
  return limit;
}

}  // namespace

uint32_t CgroupCpuLimit(const std::string& root) {
  const auto mountinfo = ReadSmallFile(root + "/proc/self/mountinfo");
  const auto proc_cgroup = ReadSmallFile(root + "/proc/self/cgroup");
  if (!mountinfo || !proc_cgroup) return 0;
  uint32_t limit = 0;
  for (const bool v2 : {true, false}) {
    limit = Tighter(limit, HierarchyLimit(root, *mountinfo, *proc_cgroup, v2));
  }
  return limit;
}

uint32_t AvailableCpus() {
  uint32_t cpus = 0;
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof(set), &set) == 0) {
    const int n = CPU_COUNT(&set);
    if (n > 0) cpus = static_cast<uint32_t>(n);
  }
  if (cpus == 0) cpus = std::thread::hardware_concurrency();
  cpus = Tighter(cpus, CgroupCpuLimit());
  return cpus > 0 ? cpus : 1;
}

}  // namespace tokenmill
