// ShardWriter: examples in, shard files out (in a local scratch folder), cut at a target size.
//
// Formats: "tfrecord" (tf.train.Example records, docs/formats/tfrecord.md), "megatron"
// (.bin + .idx, docs/formats/megatron.md) and "llmc" (llm.c .bin, docs/formats/llmc.md).
// Shard names: part-<task:06d>-<n:03d>.<ext> (Megatron: the prefix part-<task>-<n> with .bin and
// .idx). Shape as LevelDB's TableBuilder: Add() any number of times, then Finish() or Abandon();
// the first error sticks. Files are complete only after Finish(); the caller
// publishes them. A writer given no example writes no file (Finish returns none). If Finish fails,
// call Abandon(); a writer destroyed without Finish or Abandon deletes its files.
// Thread-safety: one writer per thread.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "tokenmill/base/status.h"
#include "tokenmill/examples/example.h"

namespace tokenmill {

enum class OutputFormat { kTfRecord, kMegatron, kLlmc };

struct ShardWriterOptions {
  OutputFormat format = OutputFormat::kTfRecord;
  // Target size of a shard (all its files). A shard is closed before a record that would make
  // it exceed this; a record larger on its own gets a shard of its own. Default: 256MiB.
  uint64_t shard_size = 256ull << 20;
  uint64_t task_id = 0;
  std::string scratch_dir;  // local folder for the files being written (created if missing)
  // megatron/llmc: selects the token width (required there); all formats: ids must be below it.
  // Default: 0 (tfrecord: no check).
  uint32_t vocab_size = 0;
  uint32_t eod_id = 0;  // llmc: the end-of-text token (for readers' checks)
  // Hash and write the files' full buffers on a thread of each file (OutputFile), for a process
  // that leaves a core idle. Default: by the calling thread.
  bool write_behind = false;
};

// One finished file, ready to publish.
struct ShardFile {
  std::string name;  // final name relative to the output folder, e.g. part-000003-000.tfrecord
  std::string local_path;  // where it is now
  uint64_t bytes = 0;
  std::string sha256;
  uint64_t examples = 0;  // records / sequences in this file (0 for a Megatron .idx)
  uint64_t tokens = 0;    // real tokens (no padding) in this file
};

class ShardWriter {
 public:
  virtual ~ShardWriter() = default;
  virtual Status Add(const Example& example) = 0;
  // Completes every file and returns them in order. No Add() after Finish().
  virtual StatusOr<std::vector<ShardFile>> Finish() = 0;
  // Deletes the files written so far.
  virtual void Abandon() = 0;
};

StatusOr<std::unique_ptr<ShardWriter>> CreateShardWriter(const ShardWriterOptions& options);

std::string_view OutputFormatName(OutputFormat format);
StatusOr<OutputFormat> ParseOutputFormat(std::string_view name);

}  // namespace tokenmill
