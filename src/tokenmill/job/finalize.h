// Finalize: checks a finished job and writes <output>/manifest.json (docs/protocol.md).
// Thread-safety: a function.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "tokenmill/base/status.h"
#include "tokenmill/job/protocol.h"

namespace tokenmill {

struct FinalizeOptions {
  // Megatron output: also merge every shard into one prefix <output>/merged. Default: false.
  bool merge = false;
  // Also read every shard back and check its sha256 against its done record (a full read of the
  // output). Without it, finalize checks that every shard exists with its recorded size; the
  // sha256 was computed as the worker wrote the shard. Default: false.
  bool verify = false;
};

struct FinalizeResult {
  std::string manifest_location;
  uint64_t shards = 0;
  uint64_t bytes_out = 0;
  TaskStats totals;
  ContentStats content;  // merged over every task (the manifest's "content")
};

// The manifest's "totals" (documents, tokens, examples, ..., shards, bytes_out): exact integers in
// the order `report` shows them. `status --json` and the report use the same list.
std::vector<std::pair<std::string, uint64_t>> ManifestTotals(const TaskStats& totals,
                                                             uint64_t shards, uint64_t bytes_out);

// FailedPrecondition (listing what is missing) if the job is incomplete; DataLoss if a shard is
// missing or differs in size (or, with `verify`, in sha256) from its done record.
StatusOr<FinalizeResult> FinalizeJob(const std::string& store_location,
                                     const FinalizeOptions& options);

}  // namespace tokenmill
