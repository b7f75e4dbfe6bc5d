// ByteSource: read access to one file's bytes, independent of where the file lives.
//
// The shard readers take their bytes through a ByteSource, so `inspect` can read local files,
// s3:// and gs:// objects alike (the caller wraps Storage::Read in a ByteSource). SourceReader
// reads a ByteSource sequentially through a bounded buffer.
// Thread-safety: a ByteSource made by LocalFileSource or MemorySource may be called from several
// threads; a SourceReader is used by one thread.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "tokenmill/base/status.h"

namespace tokenmill {

// Returns bytes [offset, offset + length) of the file; fewer only where the file ends.
using ReadAtFn = std::function<StatusOr<std::string>(uint64_t offset, uint64_t length)>;

struct ByteSource {
  std::string name;  // path or URL, used in messages
  uint64_t size = 0;
  ReadAtFn read_at;
};

// Opens a location as a ByteSource; NotFound if it does not exist.
using SourceOpener = std::function<StatusOr<ByteSource>(const std::string& location)>;

// A local file read with pread(). NotFound if missing, IoError if unreadable.
StatusOr<ByteSource> LocalFileSource(const std::string& path);

// Bytes owned by the caller; `data` must outlive the source.
ByteSource MemorySource(std::string name, std::string_view data);

// Reads a ByteSource front to back. Memory: one buffer of at least `buffer_size` bytes, grown
// only to hold the largest single Read().
class SourceReader {
 public:
  // Default buffer: 1 MiB.
  explicit SourceReader(const ByteSource& source, uint64_t start = 0, size_t buffer_size = 1 << 20);

  // Reads exactly n bytes at the current position into *out (valid until the next call).
  // Returns false if fewer than n bytes remain (nothing is consumed then).
  StatusOr<bool> Read(size_t n, std::string_view* out);

  uint64_t position() const { return position_; }
  uint64_t remaining() const { return source_.size - position_; }

 private:
  const ByteSource& source_;
  uint64_t position_;  // file offset of buffer_[buffer_pos_]
  size_t buffer_size_;
  std::string buffer_;
  size_t buffer_pos_ = 0;
};

}  // namespace tokenmill
