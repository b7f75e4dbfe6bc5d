// ShardReader: reads the records of a shard of any of the three formats back as Examples,
// verifying everything the format allows: every CRC (TFRecord), every header, count, pointer and
// size (Megatron, llm.c). Corruption is a DataLoss error naming the file and the byte offset.
// Token data inside a Megatron or llm.c .bin carries no checksum; a reader given vocab_size
// rejects ids outside the vocabulary.
//
// Bytes come through ByteSource (byte_source.h), so shards may live anywhere. Memory: bounded read
// buffers plus the largest record; a Megatron .idx is checked whole when opened (through bounded
// buffers, CheckMegatronIndex), then its lengths are read again as the sequences are.
// Thread-safety: a reader is used by one thread.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "tokenmill/base/status.h"
#include "tokenmill/examples/example.h"
#include "tokenmill/formats/byte_source.h"
#include "tokenmill/formats/shard_writer.h"

namespace tokenmill {

struct ShardReaderOptions {
  // If nonzero, a token id >= vocab_size is DataLoss. Default: 0 (no check).
  uint32_t vocab_size = 0;
  // llm.c: the end-of-text token that starts each document; records are split before it.
  // Default: unset (records are then chunks of llmc_chunk_tokens).
  std::optional<uint32_t> eod_id;
  // llm.c without eod_id: tokens per record. Default: 1024.
  uint32_t llmc_chunk_tokens = 1024;
  // llm.c with eod_id: the most tokens of one record; a longer document comes back in pieces.
  // Default: 16Mi.
  uint32_t llmc_max_document_tokens = 16u << 20;
};

// What the file's headers say (before any record is read).
struct ShardInfo {
  OutputFormat format = OutputFormat::kTfRecord;
  std::string name;          // the file (TFRecord, llm.c) or the .idx (Megatron)
  uint64_t bytes = 0;        // size of the file, or of .idx + .bin
  uint32_t token_bytes = 0;  // Megatron, llm.c: bytes per token; TFRecord: 0 (varints)
  std::string dtype;         // "uint16", "int32", "uint32", ...; TFRecord: "int64"
  // Megatron: the index's sequence count, document count (indices minus the leading 0), tokens.
  // llm.c: tokens from the header. Unknown (-1) until read for TFRecord.
  int64_t sequences = -1;
  int64_t documents = -1;
  int64_t tokens = -1;
  int32_t llmc_magic = 0;  // llm.c: header[0] and header[1]
  int32_t llmc_version = 0;
};

// Counts of the records returned so far.
struct ShardCounts {
  uint64_t records = 0;
  uint64_t tokens = 0;       // stored, padding included
  uint64_t real_tokens = 0;  // Example.num_real_tokens
};

class ShardReader {
 public:
  virtual ~ShardReader() = default;
  virtual const ShardInfo& info() const = 0;
  // Reads the next record into *example. Returns false at the end; all checks of the file are
  // done once it has returned false.
  virtual StatusOr<bool> Next(Example* example) = 0;
  virtual const ShardCounts& counts() const = 0;
  // Byte offset of the last record returned (in the .bin for Megatron).
  virtual uint64_t record_offset() const = 0;
};

StatusOr<std::unique_ptr<ShardReader>> OpenTfRecordShard(ByteSource file,
                                                         const ShardReaderOptions& options = {});
StatusOr<std::unique_ptr<ShardReader>> OpenMegatronShard(ByteSource idx, ByteSource bin,
                                                         const ShardReaderOptions& options = {});
StatusOr<std::unique_ptr<ShardReader>> OpenLlmcShard(ByteSource file,
                                                     const ShardReaderOptions& options = {});

// Opens a shard by its name, reading through `open` (NotFound for a missing location):
//   *.tfrecord                          TFRecord
//   *.idx, or *.bin with a .idx beside  the Megatron prefix
//   *.bin starting with an llm.c magic  llm.c
//   a prefix P with P.idx               Megatron
//   anything else                       llm.c if it has the magic, TFRecord if its first record
//                                       header's CRC matches; otherwise InvalidArgument
StatusOr<std::unique_ptr<ShardReader>> OpenShard(const std::string& location,
                                                 const SourceOpener& open,
                                                 const ShardReaderOptions& options = {});

// OpenShard for local paths.
StatusOr<std::unique_ptr<ShardReader>> OpenLocalShard(const std::string& path,
                                                      const ShardReaderOptions& options = {});

}  // namespace tokenmill
