// Finalize: checks a finished job and writes <output>/manifest.json (docs/protocol.md).
// Thread-safety: a function.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tokenmill/base/status.h"
#include "tokenmill/job/protocol.h"
#include "tokenmill/storage/storage.h"

namespace tokenmill {

struct FinalizeOptions {
  // Megatron output: also merge every shard into one prefix <output>/merged, published before the
  // manifest. The shards are read once each, from the output folder or the bucket; the merged
  // files are made in a scratch folder under $TMPDIR (room for the merged .bin), then published.
  // Default: false.
  bool merge = false;
  // Also read every shard back and check its sha256 against its done record (a full read of the
  // output; with `merge`, the merge's own read, not a second one). Without it, finalize checks
  // that every shard exists with its recorded size; the sha256 was computed as the worker wrote
  // the shard. Default: false.
  bool verify = false;
};

struct FinalizeResult {
  std::string manifest_location;
  uint64_t shards = 0;
  uint64_t bytes_out = 0;
  TaskStats totals;
  ContentStats content;  // merged over every task (the manifest's "content")
  // Incomplete writes of the job's own files removed from the output folder (temporary files,
  // incomplete multipart uploads left by crashed workers).
  uint64_t incomplete_removed = 0;
};

// The manifest's "totals" (documents, tokens, examples, ..., shards, bytes_out): exact integers in
// the order `report` shows them. `status --json` and the report use the same list.
std::vector<std::pair<std::string, uint64_t>> ManifestTotals(const TaskStats& totals,
                                                             uint64_t shards, uint64_t bytes_out);

// FailedPrecondition (listing what is missing) if the job is incomplete; DataLoss if a shard is
// missing or differs in size (or, with `verify`, in sha256) from its done record. A complete
// job's output folder is left with the manifest's files (and the job store) only: incomplete
// writes of the job's own names (RemoveIncompleteOutput) are removed.
StatusOr<FinalizeResult> FinalizeJob(const std::string& store_location,
                                     const FinalizeOptions& options);

// True for the names the job writes into its output folder: shards part-<task:06d>-<n:03d>.<ext>,
// manifest.json, megatron-prefixes.txt, merged.bin / merged.idx.
bool IsOwnOutputName(std::string_view name);

// Removes the incomplete writes (Storage::ListIncomplete) of the job's own names directly in
// `output_path`; returns how many. Others' files are never touched.
StatusOr<uint64_t> RemoveIncompleteOutput(Storage& output, const std::string& output_path);

}  // namespace tokenmill
