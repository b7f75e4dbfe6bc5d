// TFRecord framing (docs/formats/tfrecord.md): each record is
//   u64 length | u32 masked CRC-32C of the 8 length bytes | data | u32 masked CRC-32C of data,
// all little endian; mask(c) = ((c >> 15) | (c << 17)) + 0xa282ead8.
// Thread-safety: the free functions are pure; a TfRecordReader is used by one thread.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "tokenmill/base/status.h"
#include "tokenmill/formats/byte_source.h"
#include "tokenmill/formats/shard_writer.h"

namespace tokenmill {

// Bytes a record adds around its data: 8 (length) + 4 (length CRC) + 4 (data CRC).
inline constexpr uint64_t kTfRecordOverhead = 16;

// Appends one framed record holding `data` to *out.
void AppendTfRecord(std::string_view data, std::string* out);

// Reads the records of one TFRecord file in order, verifying both CRCs of every record.
class TfRecordReader {
 public:
  // `source` must outlive the reader.
  explicit TfRecordReader(const ByteSource& source);

  // Sets *data to the next record's data (valid until the next call). Returns false at the end
  // of the file. DataLoss naming the file and the record's byte offset if a CRC does not match or
  // the file ends inside a record.
  StatusOr<bool> Next(std::string_view* data);

  // Byte offset of the record last returned by Next().
  uint64_t record_offset() const { return record_offset_; }

 private:
  const ByteSource& source_;
  SourceReader in_;
  uint64_t record_offset_ = 0;
};

// The "tfrecord" ShardWriter: one tf.train.Example record per Example (see tf_example.h).
StatusOr<std::unique_ptr<ShardWriter>> NewTfRecordShardWriter(const ShardWriterOptions& options);

}  // namespace tokenmill
