// TaskRunner: the pipeline of one task, storage -> reader -> tokenizer -> example builder ->
// shard writer -> local scratch files. Publishing is the worker's business.
// Thread-safety: RunTask may be called from many threads at once with the same tokenizer.
#pragma once

#include <atomic>
#include <functional>
#include <string>
#include <vector>

#include "tokenmill/base/status.h"
#include "tokenmill/formats/shard_writer.h"
#include "tokenmill/job/job_spec.h"
#include "tokenmill/job/protocol.h"
#include "tokenmill/tokenizer/tokenizer.h"

namespace tokenmill {

struct TaskResult {
  std::vector<ShardFile> shards;  // in order, in the scratch folder
  TaskStats stats;
  ContentStats content;
};

// Returns true when the task must stop (signal, lost lease); checked between documents.
using CancelCheck = std::function<bool()>;

// Progress callback: raw input bytes consumed so far by this task.
using ProgressCallback = std::function<void(uint64_t bytes_in)>;

// Reader options for a spec and tokenizer kind (invalid UTF-8: dropped for WordPiece, replaced by
// U+FFFD for byte-level BPE).
ReaderOptions ReaderOptionsFor(const JobSpec& spec, const Tokenizer& tokenizer);

// Where and how a task writes its shards.
struct TaskOutput {
  std::string scratch_dir;    // local folder of the shard files
  bool write_behind = false;  // ShardWriterOptions::write_behind
};

// Runs the pipeline over `task`; shard files go to `output.scratch_dir`. On error or
// cancellation the files written so far are deleted. Cancellation returns Cancelled.
StatusOr<TaskResult> RunTask(const JobSpec& spec, const Tokenizer& tokenizer, const TaskDef& task,
                             const TaskOutput& output, const CancelCheck& cancelled,
                             const ProgressCallback& progress = nullptr);

}  // namespace tokenmill
