// Planner: resolves a job's inputs, cuts them into tasks and writes the job into its store
// (docs/protocol.md, "The job record" and "Tasks").
// Thread-safety: functions; safe to call from any thread.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "tokenmill/base/status.h"
#include "tokenmill/job/job_spec.h"
#include "tokenmill/job/protocol.h"

namespace tokenmill {

struct PlanOptions {
  // Overrides [job] store. Default: the spec's store, or <output>/_job.
  std::string store;
  // Start over: delete the job's store and the shards and manifest it wrote (nothing else).
  bool fresh = false;
};

struct PlanResult {
  std::string store;  // the store location used
  JobRecord job;
  bool resumed = false;  // the store already held this very job
};

// The store location a spec uses (spec.job.store, or <output>/_job).
std::string StoreLocation(const JobSpec& spec, const std::string& override_store);

// Writes the job into its store, or finds it there already. FailedPrecondition if the store
// holds a job planned from a different spec, or the output folder holds foreign shards.
StatusOr<PlanResult> PlanJob(JobSpec spec, const PlanOptions& options);

// Cuts the inputs of `spec` into tasks (deterministic: same inputs, same tasks).
StatusOr<std::vector<TaskDef>> CutTasks(const JobSpec& spec);

// Reads job.json and verifies the format version. FailedPrecondition for another version.
StatusOr<JobRecord> ReadJobRecord(Storage& store, const StorePaths& paths);

// Reads tasks.jsonl and verifies it against the job record's sha256.
StatusOr<std::vector<TaskDef>> ReadTasks(Storage& store, const StorePaths& paths,
                                         const JobRecord& job);

// The job's tokenizer, built with `options` (the spec's) from the copies of its files in the
// store, each verified against its sha256 in the job record (DataLoss if one differs). Each file
// is hashed once; a process builds the tokenizer once (LoadSharedTokenizer).
StatusOr<std::shared_ptr<const Tokenizer>> LoadJobTokenizer(Storage& store, const StorePaths& paths,
                                                            const JobRecord& job,
                                                            const TokenizerOptions& options);

}  // namespace tokenmill
