#include "tokenmill/job/finalize.h"

#include <stdlib.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>

#include "tokenmill/base/sha256.h"
#include "tokenmill/examples/gpt_builder.h"
#include "tokenmill/formats/megatron_merge.h"
#include "tokenmill/job/job_spec.h"
#include "tokenmill/job/job_status.h"
#include "tokenmill/job/planner.h"
#include "tokenmill/job/record_checks.h"
#include "tokenmill/storage/storage.h"

namespace tokenmill {
namespace {

// Every shard's name starts with this ("part-<task>-<index>.<ext>", see IsOwnOutputName).
constexpr std::string_view kShardPrefix = "part-";

// Calls fn with the object at `url`, 1 MiB at a time (a shard may be hundreds of MB: memory stays
// bounded whatever its size); stops at the first error, of the store or of fn.
template <typename Fn>
Status ForEachChunk(Storage& storage, const std::string& url, Fn fn) {
  TM_ASSIGN_OR_RETURN(std::unique_ptr<ReadStream> stream, storage.OpenRead(url));
  constexpr size_t kChunkBytes = size_t{1} << 20;
  std::unique_ptr<char[]> buffer(new char[kChunkBytes]);
  for (;;) {
    TM_ASSIGN_OR_RETURN(size_t n, stream->Read(buffer.get(), kChunkBytes));
    if (n == 0) return Status::Ok();
    TM_RETURN_IF_ERROR(fn(std::string_view(buffer.get(), n)));
  }
}

Status CheckSha256(const std::string& url, Sha256& hash, const ShardEntry& shard) {
  if (hash.HexDigest() != shard.sha256) {
    return Status::DataLoss("shard " + url + " does not match the sha256 in its done record");
  }
  return Status::Ok();
}

// Checks a shard's size: `listed_size` if the output's listing had it, else asked of the store
// (which then says why it is missing).
Status VerifyShard(Storage& output, const std::string& url, const ShardEntry& shard,
                   std::optional<uint64_t> listed_size, bool check_sha256) {
  if (!listed_size) {
    auto info = output.Stat(url);
    if (!info.ok()) {
      return Status::DataLoss("shard " + url +
                              " listed by task records is missing: " + info.status().message());
    }
    listed_size = info->size;
  }
  if (*listed_size != shard.bytes) {
    return Status::DataLoss("shard " + url + " has " + std::to_string(*listed_size) +
                            " bytes but its done record says " + std::to_string(shard.bytes));
  }
  if (!check_sha256) return Status::Ok();
  Sha256 hash;
  TM_RETURN_IF_ERROR(ForEachChunk(output, url, [&](std::string_view chunk) {
    hash.Update(chunk);
    return Status::Ok();
  }));
  return CheckSha256(url, hash, shard);
}

// A new folder under $TMPDIR (or /tmp), removed with what it holds when this goes (a folder left
// behind is not an error).
class ScratchFolder {
 public:
  ScratchFolder() = default;
  ScratchFolder(const ScratchFolder&) = delete;
  ScratchFolder& operator=(const ScratchFolder&) = delete;
  ~ScratchFolder() {
    if (path_.empty()) return;
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }

  // Makes the folder. Call once.
  Status Create() {
    const char* tmp = std::getenv("TMPDIR");
    std::string path = std::string(tmp && *tmp ? tmp : "/tmp") + "/tokenmill-merge-XXXXXX";
    if (mkdtemp(path.data()) == nullptr) return Status::IoError("cannot create " + path);
    path_ = std::move(path);
    return Status::Ok();
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// Merges the Megatron prefixes into <output>/merged.{bin,idx}, made in a scratch folder and
// published like shards. Every shard (the records' `shards`, by URL, sizes checked) is read once,
// through the store, whether local or in a bucket; with `verify` its sha256 is checked on the way
// and the merged files are published only if every shard matches.
Status MergeShards(Storage& output, const std::string& output_path,
                   const std::vector<std::string>& prefixes,
                   const std::map<std::string, ShardEntry>& shards, bool verify) {
  struct Check {
    Sha256 hash;
    uint64_t next = 0;  // bytes hashed, from the start
  };
  std::map<std::string, Check> checks;  // by URL; a node's address stays put
  const SourceOpener open = [&](const std::string& url) -> StatusOr<ByteSource> {
    auto shard = shards.find(url);
    if (shard == shards.end()) return Status::Internal("merge: " + url + " is not a listed shard");
    Check* check = verify ? &checks[url] : nullptr;
    ByteSource source;
    source.name = url;
    source.size = shard->second.bytes;
    source.read_at = [&output, url, check](uint64_t offset,
                                           uint64_t length) -> StatusOr<std::string> {
      TM_ASSIGN_OR_RETURN(std::string bytes, output.Read(url, offset, length));
      if (check != nullptr && offset == check->next) {
        check->hash.Update(bytes);
        check->next += bytes.size();
      }
      return bytes;
    };
    return source;
  };
  ScratchFolder scratch;
  TM_RETURN_IF_ERROR(scratch.Create());
  TM_ASSIGN_OR_RETURN(auto merged, MergeMegatron(prefixes, scratch.path() + "/merged", open));
  if (verify) {
    for (const auto& [url, shard] : shards) {
      auto check = checks.find(url);
      if (check == checks.end()) {  // not part of a prefix: checked on its own
        TM_RETURN_IF_ERROR(VerifyShard(output, url, shard, shard.bytes, true));
      } else if (check->second.next != shard.bytes) {
        return Status::Internal("merge: " + url + " was not read front to back");
      } else {
        TM_RETURN_IF_ERROR(CheckSha256(url, check->second.hash, shard));
      }
    }
  }
  for (const auto& file : merged) {
    TM_RETURN_IF_ERROR(output.WriteFinishedFile(JoinPath(output_path, Basename(file.local_path)),
                                                file.local_path));
  }
  return Status::Ok();
}

}  // namespace

std::vector<std::pair<std::string, uint64_t>> ManifestTotals(const TaskStats& s, uint64_t shards,
                                                             uint64_t bytes_out) {
  return {{"documents", s.documents},
          {"lines", s.lines},
          {"tokens", s.tokens},
          {"unk_tokens", s.unk_tokens},
          {"examples", s.examples},
          {"truncated_tokens", s.truncated_tokens},
          {"dropped_bytes", s.dropped_bytes},
          {"skipped_records", s.skipped_records},
          {"empty_documents", s.empty_documents},
          {"bytes_in", s.bytes_in},
          {"shards", shards},
          {"bytes_out", bytes_out}};
}

bool IsOwnOutputName(std::string_view name) {
  if (name == "manifest.json" || name == "megatron-prefixes.txt" || name == "merged.bin" ||
      name == "merged.idx") {
    return true;
  }
  // part-<at least 6 digits>-<3 digits>.<ext>
  if (!name.starts_with("part-") || name.find('/') != std::string_view::npos) return false;
  size_t i = 5;
  while (i < name.size() && name[i] >= '0' && name[i] <= '9') ++i;
  if (i < 11 || i >= name.size() || name[i] != '-') return false;
  const size_t j = i + 1;
  for (i = j; i < name.size() && name[i] >= '0' && name[i] <= '9';) ++i;
  return i == j + 3 && i + 1 < name.size() && name[i] == '.';
}

StatusOr<uint64_t> RemoveIncompleteOutput(Storage& output, const std::string& output_path) {
  TM_ASSIGN_OR_RETURN(std::vector<IncompleteWrite> incomplete, output.ListIncomplete(output_path));
  uint64_t removed = 0;
  for (const IncompleteWrite& w : incomplete) {
    if (!IsOwnOutputName(Basename(w.url))) continue;
    TM_RETURN_IF_ERROR(output.RemoveIncomplete(w));
    ++removed;
  }
  return removed;
}

StatusOr<FinalizeResult> FinalizeJob(const std::string& store_location,
                                     const FinalizeOptions& options) {
  TM_ASSIGN_OR_RETURN(Storage * store, StorageFor(store_location));
  const StorePaths paths(store_location);
  TM_ASSIGN_OR_RETURN(JobRecord job, ReadJobRecord(*store, paths));
  TM_ASSIGN_OR_RETURN(JobSpec spec, JobSpec::FromJson(job.spec_json));
  TM_ASSIGN_OR_RETURN(Storage * output, StorageFor(spec.output.path));

  TM_ASSIGN_OR_RETURN(auto done_list, store->List(paths.DonePrefix()));
  std::map<uint64_t, std::string> done_urls;
  for (const auto& o : done_list) {
    const int64_t t = StorePaths::TaskFromLocation(o.url);
    if (t >= 0 && static_cast<uint64_t>(t) < job.task_count) done_urls[t] = o.url;
  }
  if (done_urls.size() != job.task_count) {
    std::string missing;
    uint64_t count = 0;
    for (uint64_t t = 0; t < job.task_count; ++t) {
      if (done_urls.count(t)) continue;
      if (count++ < 20) missing += (missing.empty() ? "" : ", ") + std::to_string(t);
    }
    if (count > 20) missing += ", ...";
    TM_ASSIGN_OR_RETURN(auto failed, store->List(paths.FailedPrefix()));
    return Status::FailedPrecondition(
        "the job is incomplete: " + std::to_string(count) + " of " +
        std::to_string(job.task_count) + " tasks have no done record (" + missing + ")" +
        (failed.empty() ? std::string()
                        : "; " + std::to_string(failed.size()) +
                              " failed for good (see `tokenmill status " + store_location + "`)") +
        "; run more workers (`tokenmill work " + store_location + "`) and finalize again");
  }

  // The shards' sizes from one listing of the output (a request per thousand shards on a bucket,
  // not one per shard), then the records, several reads at a time.
  std::vector<uint64_t> tasks;
  std::vector<std::string> urls;
  for (const auto& [t, url] : done_urls) {
    tasks.push_back(t);
    urls.push_back(url);
  }
  TM_ASSIGN_OR_RETURN(auto listed, output->List(JoinPath(spec.output.path, kShardPrefix)));
  std::map<std::string, uint64_t> listed_sizes;
  for (const ObjectInfo& o : listed) listed_sizes.emplace(o.url, o.size);

  nlohmann::json shards = nlohmann::json::array();
  FinalizeResult result;
  ContentStatsSum content;
  std::vector<std::string> megatron_prefixes;
  // --merge reads every shard once, and checks it on the way with --verify (not a read to check
  // it and one to merge it); the merged prefix is published before the manifest.
  const bool merge = options.merge && spec.output.format == OutputFormat::kMegatron;
  std::map<std::string, ShardEntry> merge_shards;  // by URL
  // A record's content statistics are summed as it is read, not kept: memory grows with the
  // tasks' shard lists, not with their records.
  auto add_record = [&](size_t i, DoneRecord& rec) -> Status {
    const uint64_t t = tasks[i];
    const std::string& url = urls[i];
    if (rec.task != t) return Status::DataLoss(url + " records task " + std::to_string(rec.task));
    TM_RETURN_IF_ERROR(CheckDoneRecordInJob(rec, t, url));
    for (const auto& shard : rec.shards) {
      const std::string shard_url = JoinPath(spec.output.path, shard.name);
      auto size = listed_sizes.find(shard_url);
      TM_RETURN_IF_ERROR(
          VerifyShard(*output, shard_url, shard,
                      size == listed_sizes.end() ? std::nullopt : std::optional(size->second),
                      options.verify && !merge));
      if (merge) merge_shards.emplace(shard_url, shard);
      shards.push_back({{"name", shard.name},
                        {"task", t},
                        {"bytes", shard.bytes},
                        {"sha256", shard.sha256},
                        {"examples", shard.examples},
                        {"tokens", shard.tokens}});
      result.bytes_out += shard.bytes;
      ++result.shards;
      if (spec.output.format == OutputFormat::kMegatron && shard.name.size() > 4 &&
          shard.name.substr(shard.name.size() - 4) == ".bin") {
        megatron_prefixes.push_back(shard_url.substr(0, shard_url.size() - 4));
      }
    }
    result.totals += rec.stats;
    content.Add(rec.content);
    return Status::Ok();
  };
  TM_RETURN_IF_ERROR(
      ForEachDoneRecord(*store, urls, StoreRequestParallelism(store_location), add_record));
  result.content = content.Total();
  if (merge) {
    TM_RETURN_IF_ERROR(
        MergeShards(*output, spec.output.path, megatron_prefixes, merge_shards, options.verify));
  }

  // The manifest holds only what the content determines: no times, hosts, retries, locations.
  nlohmann::json job_spec = nlohmann::json::parse(job.spec_json);
  if (job_spec.contains("output")) job_spec["output"].erase("path");
  if (job_spec.contains("job")) job_spec["job"].erase("store");
  nlohmann::json tokenizer_files = nlohmann::json::array();
  for (const auto& f : job.tokenizer_files) {
    tokenizer_files.push_back(
        {{"role", f.role}, {"name", f.name}, {"bytes", f.bytes}, {"sha256", f.sha256}});
  }
  nlohmann::json totals = nlohmann::json::object();
  for (const auto& [key, value] : ManifestTotals(result.totals, result.shards, result.bytes_out)) {
    totals[key] = value;
  }
  nlohmann::json manifest = {
      {"tokenmill_version", job.tokenmill_version},
      {"format_version", job.format_version},
      {"job", job_spec},
      {"tokenizer", {{"digest", job.tokenizer_digest}, {"files", tokenizer_files}}},
      {"tasks", job.task_count},
      {"shards", shards},
      {"totals", totals},
      {"content", result.content}};
  const TaskStats& s = result.totals;
  if (spec.examples.kind == ExampleKind::kGpt) {
    // The BOS and end-of-document ids the examples carry, as the planner found them; a job
    // planned before they were kept takes them from its copy of the tokenizer.
    auto id = [](int64_t v) { return v >= 0 ? nlohmann::json(v) : nlohmann::json(); };
    if (job.special_ids_known) {
      manifest["special_ids"] = {{"bos", id(job.bos_id)}, {"eod", id(job.eod_id)}};
    } else {
      TM_ASSIGN_OR_RETURN(auto tokenizer, LoadJobTokenizer(*store, paths, job, spec.tokenizer));
      TM_ASSIGN_OR_RETURN(auto gpt, GptBuilder::Create(spec.examples, *tokenizer));
      auto known = [&](std::optional<uint32_t> v) { return id(v ? int64_t{*v} : -1); };
      manifest["special_ids"] = {{"bos", known(gpt->bos_id())}, {"eod", known(gpt->eod_id())}};
    }
  }
  if (spec.examples.kind == ExampleKind::kBert) {
    manifest["totals"]["bert"] = {{"masked_tokens", s.masked_tokens},
                                  {"masked_as_mask", s.masked_as_mask},
                                  {"masked_as_original", s.masked_as_original},
                                  {"masked_as_random", s.masked_as_random},
                                  {"masked_words", s.masked_words},
                                  {"random_next", s.random_next}};
  }
  result.manifest_location = JoinPath(spec.output.path, "manifest.json");
  TM_RETURN_IF_ERROR(output->Write(result.manifest_location, manifest.dump(2) + "\n"));
  // Every task is done, so no worker of this job writes any more: what is incomplete is orphaned.
  TM_ASSIGN_OR_RETURN(result.incomplete_removed, RemoveIncompleteOutput(*output, spec.output.path));

  if (spec.output.format == OutputFormat::kMegatron) {
    std::string lines;
    for (const auto& p : megatron_prefixes) lines += p + "\n";
    TM_RETURN_IF_ERROR(output->Write(JoinPath(spec.output.path, "megatron-prefixes.txt"), lines));
  }
  return result;
}

}  // namespace tokenmill
