#include "tokenmill/job/planner.h"

#include <nlohmann/json.hpp>

#include "tokenmill/base/log.h"
#include "tokenmill/base/parallel_for.h"
#include "tokenmill/base/sha256.h"
#include "tokenmill/examples/bert_builder.h"
#include "tokenmill/examples/gpt_builder.h"
#include "tokenmill/io/document_reader.h"
#include "tokenmill/io/parquet_reader.h"
#include "tokenmill/job/job_status.h"
#include "tokenmill/job/record_checks.h"
#include "tokenmill/storage/storage.h"

namespace tokenmill {
namespace {

bool StartsWith(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

// Objects under the output folder that a job writes: its shards and final files.
bool IsJobOutputName(std::string_view name) {
  return StartsWith(name, "part-") || name == "manifest.json" || name == "megatron-prefixes.txt" ||
         StartsWith(name, "merged.");
}

// Deletes `urls`, several at a time (a bucket answers each request in tens of milliseconds: a
// store of 10,000 tasks holds some 30,000 objects). The first error in the order of `urls`.
Status DeleteAll(Storage& storage, const std::vector<std::string>& urls, int parallelism) {
  std::vector<Status> deleted(urls.size(), Status::Ok());
  ParallelFor(urls.size(), parallelism, [&](size_t i) { deleted[i] = storage.Delete(urls[i]); });
  for (const Status& s : deleted) TM_RETURN_IF_ERROR(s);
  return Status::Ok();
}

// Deletes a job store: its job record last, so that an interrupted deletion leaves a store that
// is still that job's (and `--fresh` again finishes it), never records of an old job under no
// job record, which a new plan would take for its own.
Status DeleteStore(Storage& storage, const StorePaths& paths) {
  TM_ASSIGN_OR_RETURN(auto objects, storage.List(paths.root() + "/"));
  std::vector<std::string> urls;
  bool has_job = false;
  for (const auto& o : objects) {
    if (o.url == paths.Job()) {
      has_job = true;
    } else {
      urls.push_back(o.url);
    }
  }
  TM_RETURN_IF_ERROR(DeleteAll(storage, urls, StoreRequestParallelism(paths.root())));
  return has_job ? storage.Delete(paths.Job()) : Status::Ok();
}

// compat = "google": one task reading every input whole, in order, as the script does; refused
// here, before any work, when the input is over the limit the builder holds in memory (for
// compressed inputs the builder checks the decompressed text as it reads).
StatusOr<std::vector<TaskDef>> GoogleCompatTask(const std::vector<ObjectInfo>& objects) {
  uint64_t bytes = 0;
  for (const ObjectInfo& object : objects) bytes += object.size;
  if (bytes > kGoogleCompatMaxInputBytes) {
    return Status::InvalidArgument(
        "[examples] compat = \"google\" holds the whole input in memory, as "
        "create_pretraining_data.py does, and the " +
        std::to_string(objects.size()) + " input file(s) hold " + std::to_string(bytes) +
        " bytes, over the limit of " + std::to_string(kGoogleCompatMaxInputBytes >> 20) +
        " MiB; remove compat to use the default mode, which makes the same kind of examples in "
        "bounded memory from inputs of any size, spread over any number of workers");
  }
  TaskDef task;
  task.url = objects[0].url;
  task.size = objects[0].size;
  task.end = objects[0].size;
  task.compressed = IsCompressed(objects[0].url);
  for (size_t i = 1; i < objects.size(); ++i) {
    task.following.push_back({objects[i].url, objects[i].size, IsCompressed(objects[i].url)});
  }
  return std::vector<TaskDef>{task};
}

}  // namespace

std::string StoreLocation(const JobSpec& spec, const std::string& override_store) {
  if (!override_store.empty()) return override_store;
  if (!spec.job.store.empty()) return spec.job.store;
  return JoinPath(spec.output.path, "_job");
}

StatusOr<std::vector<TaskDef>> CutTasks(const JobSpec& spec) {
  TM_ASSIGN_OR_RETURN(auto objects, ExpandGlobs(spec.input_paths));
  std::vector<TaskDef> tasks;
  // Parquet: every footer is read now (in parallel), so a file that is not Parquet, or lacks the
  // column, fails the plan rather than a task.
  std::vector<StatusOr<ParquetFooter>> footers;
  if (spec.reader.format == InputFormat::kParquet) {
    for (const auto& object : objects) {
      if (IsCompressed(object.url)) {
        return Status::InvalidArgument(object.url +
                                       ": a Parquet file compresses its pages itself and is read "
                                       "by ranges; decompress the whole-file wrapper first");
      }
    }
    footers = ReadParquetFooters(objects);
  }
  if (spec.examples.google_compat) return GoogleCompatTask(objects);
  for (size_t index = 0; index < objects.size(); ++index) {
    const ObjectInfo& object = objects[index];
    TaskDef base;
    base.url = object.url;
    base.size = object.size;
    base.compressed = IsCompressed(object.url);
    if (spec.reader.format == InputFormat::kParquet) {
      // Whole row groups, packed up to task_size.
      if (!footers[index].ok()) return footers[index].status();
      const ParquetFooter& footer = *footers[index];
      TM_RETURN_IF_ERROR(CheckParquetColumn(footer, object.url, spec.reader.text_field));
      for (const auto& [begin, end] : ParquetTaskRanges(footer, spec.job.task_size)) {
        TaskDef t = base;
        t.begin = begin;
        t.end = end;
        t.id = tasks.size();
        tasks.push_back(t);
      }
      continue;
    }
    // A JSON array is read whole.
    if (base.compressed || object.size <= spec.job.task_size ||
        spec.reader.format == InputFormat::kJson) {
      base.begin = 0;
      base.end = object.size;
      base.id = tasks.size();
      tasks.push_back(base);
      continue;
    }
    TM_ASSIGN_OR_RETURN(Storage * storage, StorageFor(object.url));
    // Each cut is moved forward to the next document boundary; the next range starts there.
    uint64_t begin = 0;
    while (begin < object.size) {
      uint64_t end = object.size;
      const uint64_t cut = begin + spec.job.task_size;
      if (cut < object.size) {
        TM_ASSIGN_OR_RETURN(
            end, NextDocumentBoundary(*storage, object.url, cut, object.size, spec.reader.format));
      }
      TaskDef t = base;
      t.begin = begin;
      t.end = end;
      t.id = tasks.size();
      tasks.push_back(t);
      begin = end;
    }
  }
  return tasks;
}

StatusOr<JobRecord> ReadJobRecord(Storage& store, const StorePaths& paths) {
  auto data = store.Read(paths.Job());
  if (!data.ok()) {
    if (data.status().Is(StatusCode::kNotFound)) {
      return Status::NotFound("no job at " + paths.root() +
                              " (job.json is missing); run `tokenmill plan JOB.toml` first");
    }
    return data.status();
  }
  TM_ASSIGN_OR_RETURN(JobRecord job, JobRecordFromJson(*data));
  TM_RETURN_IF_ERROR(CheckJobRecord(job, paths.Job()));
  if (job.format_version != kDataFormatVersion) {
    return Status::FailedPrecondition(
        "the job at " + paths.root() + " was planned with data-format version " +
        std::to_string(job.format_version) + " (tokenmill " + job.tokenmill_version +
        ") but this tokenmill " TOKENMILL_VERSION " writes version " +
        std::to_string(kDataFormatVersion) +
        "; run every worker of a job with the same tokenmill release");
  }
  return job;
}

StatusOr<std::vector<TaskDef>> ReadTasks(Storage& store, const StorePaths& paths,
                                         const JobRecord& job) {
  TM_ASSIGN_OR_RETURN(std::string data, store.Read(paths.Tasks()));
  if (Sha256Hex(data) != job.tasks_sha256) {
    return Status::DataLoss(paths.Tasks() + " does not match the sha256 in job.json; the store " +
                            "was modified by hand: plan the job again with --fresh");
  }
  std::vector<TaskDef> tasks;
  size_t pos = 0;
  while (pos < data.size()) {
    size_t nl = data.find('\n', pos);
    if (nl == std::string::npos) nl = data.size();
    if (nl > pos) {
      TM_ASSIGN_OR_RETURN(TaskDef t, TaskDefFromJson(std::string_view(data).substr(pos, nl - pos)));
      if (t.id != tasks.size()) return Status::DataLoss(paths.Tasks() + ": task ids out of order");
      tasks.push_back(std::move(t));
    }
    pos = nl + 1;
  }
  if (tasks.size() != job.task_count) {
    return Status::DataLoss(paths.Tasks() + " holds " + std::to_string(tasks.size()) +
                            " tasks but job.json says " + std::to_string(job.task_count));
  }
  return tasks;
}

StatusOr<std::shared_ptr<const Tokenizer>> LoadJobTokenizer(Storage& store, const StorePaths& paths,
                                                            const JobRecord& job,
                                                            const TokenizerOptions& options) {
  std::vector<TokenizerFile> files;
  for (const auto& rec : job.tokenizer_files) {
    const std::string location = paths.TokenizerFile(rec.role, rec.name);
    TM_ASSIGN_OR_RETURN(std::string data, store.Read(location));
    std::string sha256 = Sha256Hex(data);
    if (sha256 != rec.sha256) {
      return Status::DataLoss("tokenizer file " + location +
                              " does not match its sha256 in job.json; the store was modified " +
                              "by hand: plan the job again with --fresh");
    }
    files.push_back({rec.role, rec.name, std::move(data), std::move(sha256)});
  }
  return LoadSharedTokenizer(options, files);
}

StatusOr<PlanResult> PlanJob(JobSpec spec, const PlanOptions& options) {
  PlanResult result;
  result.store = StoreLocation(spec, options.store);
  spec.job.store = result.store;
  const StorePaths paths(result.store);
  TM_ASSIGN_OR_RETURN(Storage * store, StorageFor(result.store));
  TM_ASSIGN_OR_RETURN(Storage * output, StorageFor(spec.output.path));
  const std::string spec_json = spec.ToJson();
  const std::string spec_digest = Sha256Hex(spec_json);

  auto existing = store->Read(paths.Job());
  if (existing.ok() && options.fresh) {
    LogInfo("--fresh: deleting the job store " + result.store + " and the job's output files");
    TM_RETURN_IF_ERROR(DeleteStore(*store, paths));
    TM_ASSIGN_OR_RETURN(auto outputs, output->List(JoinPath(spec.output.path, "")));
    std::vector<std::string> old_files;
    for (const auto& o : outputs) {
      if (Dirname(o.url) == Dirname(JoinPath(spec.output.path, "x")) &&
          IsJobOutputName(Basename(o.url))) {
        old_files.push_back(o.url);
      }
    }
    TM_RETURN_IF_ERROR(DeleteAll(*output, old_files, StoreRequestParallelism(spec.output.path)));
  } else if (existing.ok()) {
    TM_ASSIGN_OR_RETURN(JobRecord job, ReadJobRecord(*store, paths));
    if (job.spec_digest != spec_digest) {
      return Status::FailedPrecondition(
          "the job file changed since this job was planned in " + result.store +
          "; finish the old job with its original file, or start over with --fresh (which "
          "deletes only this job's store and output shards)");
    }
    result.job = std::move(job);
    result.resumed = true;
    return result;
  } else if (!existing.status().Is(StatusCode::kNotFound)) {
    return existing.status();
  }

  // A new job must not mix its shards with foreign ones.
  TM_ASSIGN_OR_RETURN(auto present, output->List(JoinPath(spec.output.path, "")));
  for (const auto& o : present) {
    if (Dirname(o.url) == Dirname(JoinPath(spec.output.path, "x")) &&
        IsJobOutputName(Basename(o.url))) {
      return Status::FailedPrecondition(
          "the output folder " + spec.output.path + " already holds " + Basename(o.url) +
          " from another job; choose another [output] path or remove the old files");
    }
  }

  TM_ASSIGN_OR_RETURN(auto tasks, CutTasks(spec));
  JobRecord job;
  job.tokenmill_version = TOKENMILL_VERSION;
  job.spec_json = spec_json;
  job.spec_digest = spec_digest;
  job.created_at_ms = NowMs();

  // Copy the tokenizer files, so workers elsewhere load exactly these bytes.
  TM_ASSIGN_OR_RETURN(auto locations, TokenizerFileLocations(spec.tokenizer));
  std::string digest_input;
  std::vector<TokenizerFile> files;
  for (const auto& [role, location] : locations) {
    TM_ASSIGN_OR_RETURN(Storage * source, StorageFor(location));
    auto data = source->Read(location);
    if (!data.ok()) return data.status().WithContext("cannot read tokenizer file " + location);
    TokenizerFileRecord rec{role, Basename(location), data->size(), Sha256Hex(*data)};
    TM_RETURN_IF_ERROR(store->Write(paths.TokenizerFile(role, rec.name), *data));
    digest_input += rec.role + " " + rec.name + " " + rec.sha256 + "\n";
    job.tokenizer_files.push_back(rec);
    files.push_back({role, rec.name, std::move(data).value(), rec.sha256});
  }
  job.tokenizer_digest = Sha256Hex(digest_input);
  // Fail early on a tokenizer that does not load (missing [UNK], bad file...); a worker of the
  // same process (`run`) then finds it built.
  TM_ASSIGN_OR_RETURN(auto tokenizer, LoadSharedTokenizer(spec.tokenizer, files));
  if (spec.examples.kind == ExampleKind::kGpt) {
    // The ids finalize writes to the manifest, so that it needs no tokenizer.
    TM_ASSIGN_OR_RETURN(auto gpt, GptBuilder::Create(spec.examples, *tokenizer));
    job.special_ids_known = true;
    job.bos_id = gpt->bos_id() ? int64_t{*gpt->bos_id()} : -1;
    job.eod_id = gpt->eod_id() ? int64_t{*gpt->eod_id()} : -1;
  }

  std::string tasks_jsonl;
  for (const auto& t : tasks) {
    tasks_jsonl += ToJson(t);
    tasks_jsonl += '\n';
    job.input_bytes += t.InputBytes();
  }
  job.task_count = tasks.size();
  job.tasks_sha256 = Sha256Hex(tasks_jsonl);
  TM_RETURN_IF_ERROR(store->Write(paths.Tasks(), tasks_jsonl));
  auto created = store->CreateIfAbsent(paths.Job(), ToJson(job));
  if (!created.ok()) {
    if (created.status().Is(StatusCode::kAlreadyExists)) {
      // Planned concurrently by someone else: accept it if it is the same job.
      TM_ASSIGN_OR_RETURN(JobRecord other, ReadJobRecord(*store, paths));
      if (other.spec_digest != spec_digest) {
        return Status::FailedPrecondition("another job was planned in " + result.store +
                                          " at the same time");
      }
      result.job = std::move(other);
      result.resumed = true;
      return result;
    }
    return created.status();
  }
  result.job = std::move(job);
  return result;
}

}  // namespace tokenmill
