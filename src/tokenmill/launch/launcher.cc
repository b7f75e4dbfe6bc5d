#include "tokenmill/launch/launcher.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <random>

#include "tokenmill/base/log.h"
#include "tokenmill/base/sha256.h"
#include "tokenmill/storage/storage.h"

namespace tokenmill::launch {
namespace {

constexpr std::string_view kLaunchesFolder = "launches";

std::string LaunchesPrefix(std::string_view store) {
  return JoinPath(store, std::string(kLaunchesFolder) + "/");
}

// Parses "<launcher>-<n>.json" into its parts; false for other names.
bool ParseRecordName(std::string_view name, std::string* launcher, int* number) {
  constexpr std::string_view kSuffix = ".json";
  if (name.size() <= kSuffix.size() || name.substr(name.size() - kSuffix.size()) != kSuffix) {
    return false;
  }
  std::string_view stem = name.substr(0, name.size() - kSuffix.size());
  size_t dash = stem.rfind('-');
  if (dash == std::string_view::npos || dash == 0 || dash + 1 == stem.size()) return false;
  std::string_view digits = stem.substr(dash + 1);
  if (digits.size() > 9 ||
      !std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    return false;
  }
  *launcher = std::string(stem.substr(0, dash));
  *number = std::stoi(std::string(digits));
  return true;
}

std::string HostName() {
  char buf[256] = {0};
  if (::gethostname(buf, sizeof(buf) - 1) != 0) return "";
  return buf;
}

std::string DescribeDetails(const LaunchRecord& r) {
  const nlohmann::json& d = r.details;
  auto str = [&](const char* key) -> std::string {
    auto it = d.find(key);
    if (it == d.end() || !it->is_string()) return "";
    return it->get<std::string>();
  };
  std::string text;
  if (r.launcher == "slurm") {
    text = "slurm job " + str("slurm_job_id");
  } else if (r.launcher == "k8s") {
    text = "k8s job " + str("job_name");
    if (!str("namespace").empty()) text += " (namespace " + str("namespace") + ")";
  } else if (r.launcher == "gce") {
    text = "gce group " + str("group") + " (zone " + str("zone") + ")";
    if (!str("torn_down").empty()) text += ", torn down " + str("torn_down");
  } else if (r.launcher == "local") {
    auto it = d.find("pids");
    if (it != d.end() && it->is_array()) {
      text = "pids";
      for (const auto& pid : *it) text += " " + pid.dump();
    }
  }
  if (!str("log_dir").empty()) text += (text.empty() ? "" : ", ") + ("logs: " + str("log_dir"));
  return text;
}

}  // namespace

nlohmann::json LaunchRecord::ToJson() const {
  return nlohmann::json{{"launcher", launcher}, {"number", number},       {"workers", workers},
                        {"time", time},         {"unix_time", unix_time}, {"host", host},
                        {"details", details}};
}

StatusOr<LaunchRecord> LaunchRecord::FromJson(const nlohmann::json& json, std::string_view url) {
  LaunchRecord r;
  r.url = std::string(url);
  try {
    if (!json.is_object()) {
      return Status::DataLoss("launch record " + r.url + " is not a JSON object");
    }
    r.launcher = json.at("launcher").get<std::string>();
    r.number = json.value("number", 0);
    r.workers = json.value("workers", 0);
    r.time = json.value("time", "");
    r.unix_time = json.value("unix_time", int64_t{0});
    r.host = json.value("host", "");
    if (json.contains("details") && json.at("details").is_object()) r.details = json.at("details");
  } catch (const nlohmann::json::exception& e) {
    return Status::DataLoss("launch record " + r.url + " is malformed: " + e.what());
  }
  return r;
}

std::string NowRfc3339() {
  std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm utc;
  gmtime_r(&now, &utc);
  char buf[32];
  std::strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", &utc);
  return buf;
}

Status ValidateLaunchOptions(const LaunchOptions& options) {
  if (options.store.empty()) {
    return Status::InvalidArgument(
        "no job store given: pass the STORE that `tokenmill plan` wrote");
  }
  if (options.workers < 1 || options.workers > kMaxWorkers) {
    return Status::InvalidArgument("--workers " + std::to_string(options.workers) +
                                   " is out of range: give a number from 1 to " +
                                   std::to_string(kMaxWorkers));
  }
  return Status::Ok();
}

bool IsRemoteStore(std::string_view store) {
  return store.rfind("s3://", 0) == 0 || store.rfind("gs://", 0) == 0;
}

StatusOr<std::string> CanonicalStore(std::string_view store) {
  if (store.empty()) {
    return Status::InvalidArgument(
        "no job store given: pass the STORE that `tokenmill plan` wrote");
  }
  if (IsRemoteStore(store)) {
    std::string s(store);
    while (s.size() > 5 && s.back() == '/') s.pop_back();
    return s;
  }
  std::string path(store);
  if (path.rfind("file://", 0) == 0) path = path.substr(7);
  std::error_code ec;
  std::filesystem::path abs = std::filesystem::absolute(path, ec);
  if (ec) {
    return Status::InvalidArgument("cannot make the store path '" + path +
                                   "' absolute: " + ec.message());
  }
  std::string out = abs.lexically_normal().string();
  while (out.size() > 1 && out.back() == '/') out.pop_back();
  return out;
}

std::string StoreTag(std::string_view store) { return Sha256Hex(store).substr(0, 8); }

std::string DefaultLaunchName(std::string_view store) {
  std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm utc;
  gmtime_r(&now, &utc);
  char stamp[16];
  std::strftime(stamp, sizeof(stamp), "%y%m%d%H%M", &utc);
  return "tokenmill-" + StoreTag(store) + "-" + stamp;
}

StatusOr<LaunchRecord> RecordLaunch(std::string_view store, LaunchRecord record) {
  if (record.launcher.empty() || record.launcher.find_first_not_of(
                                     "abcdefghijklmnopqrstuvwxyz0123456789") != std::string::npos) {
    return Status::InvalidArgument("launch record: launcher name '" + record.launcher +
                                   "' must be lowercase letters and digits");
  }
  TM_ASSIGN_OR_RETURN(Storage * storage, StorageFor(store));
  std::string prefix = LaunchesPrefix(store);
  TM_ASSIGN_OR_RETURN(std::vector<ObjectInfo> existing, storage->List(prefix));
  int next = 1;
  for (const ObjectInfo& info : existing) {
    std::string launcher;
    int number = 0;
    if (ParseRecordName(Basename(info.url), &launcher, &number) && launcher == record.launcher) {
      next = std::max(next, number + 1);
    }
  }
  record.time = NowRfc3339();
  record.unix_time = std::chrono::duration_cast<std::chrono::seconds>(
                         std::chrono::system_clock::now().time_since_epoch())
                         .count();
  record.host = HostName();
  // Conditional writes need unique content (an S3 ETag is a content hash).
  std::random_device random;
  char nonce[17];
  std::snprintf(nonce, sizeof(nonce), "%08x%08x", random(), random());
  record.details["launch_id"] = nonce;
  for (int attempt = 0; attempt < 100; ++attempt, ++next) {
    record.number = next;
    record.url = JoinPath(prefix, record.launcher + "-" + std::to_string(next) + ".json");
    std::string body = record.ToJson().dump(2) + "\n";
    StatusOr<std::string> created = CreateIfAbsentResolved(*storage, record.url, body);
    if (created.ok()) return record;
    if (created.status().Is(StatusCode::kAlreadyExists)) continue;  // the name is taken
    return created.status().WithContext("writing the launch record " + record.url);
  }
  return Status::Internal("could not find a free launch record name under " + prefix);
}

Status UpdateLaunchRecord(const LaunchRecord& record) {
  if (record.url.empty()) return Status::InvalidArgument("UpdateLaunchRecord: record has no url");
  TM_ASSIGN_OR_RETURN(Storage * storage, StorageFor(record.url));
  // Records are conditional objects (created if absent), so they change by compare-and-swap.
  for (int attempt = 0; attempt < 5; ++attempt) {
    StatusOr<VersionedData> current = storage->ReadVersioned(record.url);
    if (!current.ok()) {
      return current.status().WithContext("updating the launch record " + record.url);
    }
    StatusOr<std::string> swapped =
        storage->CompareAndSwap(record.url, record.ToJson().dump(2) + "\n", current->generation);
    if (swapped.ok()) return Status::Ok();
    if (!swapped.status().Is(StatusCode::kFailedPrecondition) &&
        !swapped.status().Is(StatusCode::kUnknownOutcome)) {
      return swapped.status().WithContext("updating the launch record " + record.url);
    }
  }
  return Status::Unavailable("the launch record " + record.url +
                             " kept changing while it was updated; try again");
}

StatusOr<std::vector<LaunchRecord>> ListLaunchRecords(std::string_view store) {
  TM_ASSIGN_OR_RETURN(Storage * storage, StorageFor(store));
  StatusOr<std::vector<ObjectInfo>> listed = storage->List(LaunchesPrefix(store));
  if (!listed.ok()) {
    if (listed.status().Is(StatusCode::kNotFound)) return std::vector<LaunchRecord>{};
    return listed.status().WithContext("listing the launch records of " + std::string(store));
  }
  std::vector<LaunchRecord> records;
  for (const ObjectInfo& info : *listed) {
    std::string launcher;
    int number = 0;
    if (!ParseRecordName(Basename(info.url), &launcher, &number)) continue;
    StatusOr<std::string> body = storage->Read(info.url);
    if (!body.ok()) {
      if (body.status().Is(StatusCode::kNotFound)) continue;
      return body.status().WithContext("reading the launch record " + info.url);
    }
    nlohmann::json json = nlohmann::json::parse(*body, nullptr, /*allow_exceptions=*/false);
    StatusOr<LaunchRecord> record = LaunchRecord::FromJson(json, info.url);
    if (!record.ok()) {
      LogWarning("skipping " + record.status().message());
      continue;
    }
    records.push_back(std::move(record).value());
  }
  std::sort(records.begin(), records.end(), [](const LaunchRecord& a, const LaunchRecord& b) {
    if (a.unix_time != b.unix_time) return a.unix_time < b.unix_time;
    if (a.launcher != b.launcher) return a.launcher < b.launcher;
    return a.number < b.number;
  });
  return records;
}

std::string FormatLaunchRecords(const std::vector<LaunchRecord>& records) {
  if (records.empty()) return "";
  std::string out = "launches:\n";
  for (const LaunchRecord& r : records) {
    std::string name = r.launcher + "-" + std::to_string(r.number);
    char line[512];
    std::snprintf(line, sizeof(line), "  %-9s %s  %d worker%s", name.c_str(), r.time.c_str(),
                  r.workers, r.workers == 1 ? "" : "s");
    out += line;
    std::string details = DescribeDetails(r);
    if (!details.empty()) out += "  " + details;
    out += "\n";
  }
  return out;
}

nlohmann::json LaunchRecordsToJson(const std::vector<LaunchRecord>& records) {
  nlohmann::json array = nlohmann::json::array();
  for (const LaunchRecord& r : records) {
    nlohmann::json j = r.ToJson();
    j["url"] = r.url;
    array.push_back(std::move(j));
  }
  return array;
}

}  // namespace tokenmill::launch
