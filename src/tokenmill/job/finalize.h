// Finalize: checks a finished job and writes <output>/manifest.json (docs/protocol.md).
// Thread-safety: a function.
#pragma once

#include <string>
#include <string_view>

#include "tokenmill/base/status.h"
#include "tokenmill/job/protocol.h"
#include "tokenmill/storage/storage.h"

namespace tokenmill {

struct FinalizeOptions {
  // Megatron output: also merge every shard into one prefix <output>/merged. Default: false.
  bool merge = false;
};

struct FinalizeResult {
  std::string manifest_location;
  uint64_t shards = 0;
  uint64_t bytes_out = 0;
  TaskStats totals;
  // Incomplete writes of the job's own files removed from the output folder (temporary files,
  // incomplete multipart uploads left by crashed workers).
  uint64_t incomplete_removed = 0;
};

// FailedPrecondition (listing what is missing) if the job is incomplete; DataLoss if a shard is
// missing or differs in size or sha256 from its done record. A complete job's output folder is
// left with the manifest's files (and the job store) only: incomplete writes of the job's own
// names (RemoveIncompleteOutput) are removed.

StatusOr<FinalizeResult> FinalizeJob(const std::string& store_location,
                                     const FinalizeOptions& options);

// True for the names the job writes into its output folder: shards part-<task:06d>-<n:03d>.<ext>,
// manifest.json, megatron-prefixes.txt, merged.bin / merged.idx.
bool IsOwnOutputName(std::string_view name);

// Removes the incomplete writes (Storage::ListIncomplete) of the job's own names directly in
// `output_path`; returns how many. Others' files are never touched.
StatusOr<uint64_t> RemoveIncompleteOutput(Storage& output, const std::string& output_path);

}  // namespace tokenmill
