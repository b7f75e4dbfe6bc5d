// OutputFile: a local file written through a buffer, hashed (SHA-256) as it is written, and
// closed by Close(). The shard writers write every file through it. These are scratch files:
// the storage that publishes them makes the published copy durable (LocalStorage fsyncs it, a
// bucket stores it), so they are not fsync'd (an fsync here made every shard reach the disk
// twice, which halved the throughput of a disk-bound run).
// Thread-safety: one OutputFile per thread.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "tokenmill/base/sha256.h"
#include "tokenmill/base/status.h"

namespace tokenmill {

class OutputFile {
 public:
  // Creates (or truncates) `path`. Default buffer: 1 MiB.
  static StatusOr<std::unique_ptr<OutputFile>> Create(const std::string& path,
                                                      size_t buffer_size = 1 << 20);
  ~OutputFile();  // closes without syncing if Close() was not called
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;

  Status Append(std::string_view data);
  // Overwrites bytes already appended, at `offset` (headers known only at the end). REQUIRES:
  // offset + data.size() <= bytes(). The digest is then computed by reading the file back.
  Status WriteAt(uint64_t offset, std::string_view data);
  // Flushes and closes the file. REQUIRES: called once.
  Status Close();

  const std::string& path() const { return path_; }
  uint64_t bytes() const { return bytes_; }  // appended so far
  // REQUIRES: Close() returned OK. The lowercase hex SHA-256 of the whole file.
  const std::string& sha256() const { return sha256_; }

 private:
  OutputFile(std::string path, int fd, size_t buffer_size);
  Status Flush();
  Status WriteAll(const char* data, size_t n);
  Status HashFromDisk();

  std::string path_;
  int fd_;
  size_t buffer_size_;
  std::string buffer_;
  uint64_t bytes_ = 0;
  Sha256 hash_;
  bool rewritten_ = false;  // WriteAt() made the streaming digest stale
  std::string sha256_;
};

// fsyncs a folder so that the names of files created in it are durable.
Status SyncDir(const std::string& dir);

// Deletes a file; a missing file is OK.
Status RemoveFile(const std::string& path);

}  // namespace tokenmill
