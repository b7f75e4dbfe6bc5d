#include "tokenmill/job/record_checks.h"

#include <cstdint>
#include <cstdio>
#include <string>

#include "tokenmill/base/sha256.h"
#include "tokenmill/io/glob.h"

namespace tokenmill {
namespace {

constexpr char kFix[] =
    "; the job store was corrupted or edited by hand: plan the job again (`tokenmill run --fresh` "
    "or a new [job] store)";

bool PlainName(std::string_view name) {
  return !name.empty() && name != "." && name != ".." && name.find('/') == std::string_view::npos &&
         name.find('\0') == std::string_view::npos;
}

// True if the path part of `location` (after "scheme://bucket" for URLs) has a ".", ".." or
// empty component.
bool HasDotOrEmptyComponent(std::string_view location) {
  std::string_view path = location;
  for (std::string_view scheme : {"s3://", "gs://"}) {
    if (path.starts_with(scheme)) {
      path.remove_prefix(scheme.size());
      const size_t slash = path.find('/');
      if (slash == std::string_view::npos) return true;  // no key at all
      path.remove_prefix(slash);
    }
  }
  if (path.starts_with("file://")) path.remove_prefix(7);
  if (!path.starts_with('/')) return true;  // stored locations are absolute
  path.remove_prefix(1);
  while (true) {
    const size_t slash = path.find('/');
    const std::string_view part = path.substr(0, slash);
    if (part.empty() || part == "." || part == "..") return true;
    if (slash == std::string_view::npos) return false;
    path.remove_prefix(slash + 1);
  }
}

}  // namespace

Status CheckJobRecord(const JobRecord& job, std::string_view where) {
  if (Sha256Hex(job.spec_json) != job.spec_digest) {
    return Status::DataLoss(std::string(where) + ": the job spec does not match its spec_digest" +
                            kFix);
  }
  for (const TokenizerFileRecord& f : job.tokenizer_files) {
    if (!PlainName(f.role) || !PlainName(f.name)) {
      return Status::DataLoss(std::string(where) + ": tokenizer file '" + f.role + "-" + f.name +
                              "' is not a plain file name of the job store's tokenizer/ folder" +
                              kFix);
    }
  }
  // The manifest's special_ids come from here: each an id (below 2^32) or -1 for none.
  for (const int64_t id : {job.bos_id, job.eod_id}) {
    if (job.special_ids_known && (id < -1 || id > int64_t{UINT32_MAX})) {
      return Status::DataLoss(std::string(where) + ": special id " + std::to_string(id) +
                              " is neither a token id nor -1 (none)" + kFix);
    }
  }
  return Status::Ok();
}

Status CheckTaskInJob(const JobSpec& spec, const TaskDef& task, std::string_view where) {
  const std::string what =
      std::string(where) + ": task " + std::to_string(task.id) + " (" + task.url + ")";
  // Every object the task reads is a normalised location that one of [input] paths names.
  auto check_declared = [&](const std::string& url, const std::string& who) -> Status {
    if (HasDotOrEmptyComponent(url)) {
      return Status::DataLoss(who + " is not a normalised absolute location" + kFix);
    }
    for (const std::string& pattern : spec.input_paths) {
      if (pattern == url ||
          (HasGlobWildcard(pattern) && ValidateGlob(pattern).ok() && GlobMatch(pattern, url))) {
        return Status::Ok();
      }
    }
    return Status::DataLoss(who + " is not one of the job's [input] paths" + kFix);
  };
  TM_RETURN_IF_ERROR(check_declared(task.url, what));
  if (task.begin > task.end || task.end > task.size) {
    return Status::DataLoss(what + " has the range [" + std::to_string(task.begin) + ", " +
                            std::to_string(task.end) + ") outside its " +
                            std::to_string(task.size) + " bytes" + kFix);
  }
  if (!task.following.empty() && !spec.examples.google_compat) {
    return Status::DataLoss(what +
                            " reads further input files, which only the task of an [examples] "
                            "compat = \"google\" job does" +
                            kFix);
  }
  for (const TaskInput& input : task.following) {
    TM_RETURN_IF_ERROR(check_declared(input.url, what + ", following input " + input.url));
  }
  return Status::Ok();
}

Status CheckDoneRecordInJob(const DoneRecord& done, uint64_t task, std::string_view where) {
  char prefix[32];
  std::snprintf(prefix, sizeof(prefix), "part-%06llu-", static_cast<unsigned long long>(task));
  for (const ShardEntry& shard : done.shards) {
    const std::string_view name = shard.name;
    const size_t n = std::string_view(prefix).size();
    bool ok = PlainName(name) && name.starts_with(prefix) && name.size() > n + 4;
    for (size_t i = n; ok && i < n + 3; ++i) ok = name[i] >= '0' && name[i] <= '9';
    ok = ok && name[n + 3] == '.';
    if (!ok) {
      return Status::DataLoss(std::string(where) + ": shard '" + shard.name +
                              "' is not a shard name of task " + std::to_string(task) + " (" +
                              prefix + "NNN.<ext> in the output folder)" + kFix);
    }
  }
  return Status::Ok();
}

}  // namespace tokenmill
