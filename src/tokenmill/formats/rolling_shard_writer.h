// RollingShardWriter: what the three shard writers share. It checks each Example, cuts shards at
// ShardWriterOptions::shard_size, names them, keeps the first error and deletes files on Abandon.
// A format supplies the encoding and the files of one shard through the virtual hooks.
//
// Rolling rule: a shard is closed before an Example whose record would make the shard's bytes
// (all of its files, headers and indexes included) exceed shard_size; a record larger than
// shard_size on its own gets a shard of its own. A document that comes in parts (Example::more)
// starts a new shard (whose size is not known in advance) and stays whole in it; the records after
// it follow the rule above. A writer that was given no Example writes no file.
// Thread-safety: one writer per thread.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tokenmill/formats/output_file.h"
#include "tokenmill/formats/shard_writer.h"

namespace tokenmill {

class RollingShardWriter : public ShardWriter {
 public:
  explicit RollingShardWriter(const ShardWriterOptions& options);
  // Deletes the files if neither Finish() nor Abandon() was called.
  ~RollingShardWriter() override;

  Status Add(const Example& example) final;
  StatusOr<std::vector<ShardFile>> Finish() final;
  void Abandon() final;

 protected:
  // Encodes `example` for the current format, keeping the record for WriteRecord(). Returns the
  // bytes the shard grows by when the record is written.
  virtual StatusOr<uint64_t> EncodeRecord(const Example& example) = 0;
  // Bytes of a shard that holds no record (fixed headers and index parts).
  virtual uint64_t EmptyShardBytes() const = 0;
  // False if the encoded record cannot join the open shard for a reason other than its size.
  virtual bool RecordFits() const { return true; }
  // Creates the files of a new shard named `stem` (part-TTTTTT-NNN) in `dir`.
  virtual Status OpenShard(const std::string& dir, const std::string& stem) = 0;
  virtual Status WriteRecord() = 0;
  // Completes the open shard's files and appends them to *files. `examples` and `tokens` count
  // the shard's records and real tokens.
  virtual Status CloseShard(uint64_t examples, uint64_t tokens, std::vector<ShardFile>* files) = 0;
  // Drops the open shard's files without completing them (they are deleted by the caller).
  virtual void DropShard() = 0;

  const ShardWriterOptions& options() const { return options_; }
  // Whether the Example being encoded continues a document whose earlier parts were written.
  bool continuing() const { return in_document_; }
  // Creates a file of the open shard; the writer deletes it on Abandon.
  StatusOr<std::unique_ptr<OutputFile>> CreateFile(const std::string& dir, const std::string& name);
  // Closes `file` and describes it.
  static StatusOr<ShardFile> CompleteFile(OutputFile& file, const std::string& name,
                                          uint64_t examples, uint64_t tokens);

 private:
  Status AddImpl(const Example& example);
  Status CloseOpenShard();

  ShardWriterOptions options_;
  Status status_;
  bool finished_ = false;
  bool shard_open_ = false;
  uint64_t shard_index_ = 0;  // of the next shard to open
  uint64_t shard_bytes_ = 0;
  uint64_t shard_examples_ = 0;
  uint64_t shard_tokens_ = 0;
  bool in_document_ = false;  // the last Example had `more`
  std::vector<ShardFile> files_;
  std::vector<std::string> created_;  // every path created, for Abandon
};

// The shard name stem: part-<task:06d>-<n:03d>.
std::string ShardStem(uint64_t task_id, uint64_t shard_index);

}  // namespace tokenmill
