// OutputFile: a local file written through a buffer, hashed (SHA-256) as it is written, and
// closed by Close(). The shard writers write every file through it.
// Write-behind (optional): once a file outgrows its buffer, a thread of the file hashes and writes
// each full buffer while the caller fills the next one, so that the hash and the write system
// calls overlap the work that makes the data (tokenizing, encoding) on a core that would be idle.
// It costs a little more CPU (the buffer is hashed on another core's cache), so it is for
// processes that leave a core free. A failed write is reported by the next Append, WriteAt or
// Close. These are scratch files:
// the storage that publishes them makes the published copy durable (LocalStorage fsyncs it, a
// bucket stores it), so they are not fsync'd (an fsync here made every shard reach the disk
// twice, which halved the throughput of a disk-bound run).
// Thread-safety: one OutputFile per thread.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>

#include "tokenmill/base/sha256.h"
#include "tokenmill/base/status.h"

namespace tokenmill {

class OutputFile {
 public:
  static constexpr size_t kDefaultBufferSize = 1 << 20;

  // Creates (or truncates) `path`; a file there with other links is removed first, not
  // truncated (it may be a second link of a published shard). With `write_behind`, full
  // buffers are hashed and written by a thread of the file; otherwise by the caller.
  static StatusOr<std::unique_ptr<OutputFile>> Create(const std::string& path,
                                                      size_t buffer_size = kDefaultBufferSize,
                                                      bool write_behind = false);
  ~OutputFile();  // closes without syncing if Close() was not called
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;

  Status Append(std::string_view data);
  // Overwrites bytes already appended, at `offset` (headers known only at the end). REQUIRES:
  // offset + data.size() <= bytes(). The digest is then computed by reading the file back.
  Status WriteAt(uint64_t offset, std::string_view data);
  // For a file whose header WriteAt() will rewrite: the digest is computed once, at Close(), by
  // reading the file back, instead of also as it is written (that digest would be discarded).
  // REQUIRES: nothing appended yet.
  void DigestAtClose() { digest_as_written_ = false; }
  // Flushes and closes the file. REQUIRES: called once.
  Status Close();

  const std::string& path() const { return path_; }
  uint64_t bytes() const { return bytes_; }  // appended so far
  // REQUIRES: Close() returned OK. The lowercase hex SHA-256 of the whole file.
  const std::string& sha256() const { return sha256_; }

 private:
  OutputFile(std::string path, int fd, size_t buffer_size, bool write_behind);
  // Writes the buffer: hands it to the writing thread (started on first use) after the previous
  // one, or writes it here without write-behind.
  Status Flush();
  // Waits until the writing thread has written everything handed to it; returns its status.
  Status Drain();
  void WriteBehind();  // the writing thread
  void StopWriter();   // lets the writing thread finish what it holds, and joins it
  // Adds `data` to the streaming digest (unless DigestAtClose) and writes it at the file's end.
  Status HashAndWrite(std::string_view data);
  Status WriteAll(const char* data, size_t n);
  Status HashFromDisk();

  std::string path_;
  int fd_;
  size_t buffer_size_;
  bool write_behind_;
  std::string buffer_;  // being filled by the caller
  uint64_t bytes_ = 0;

  // Shared with the writing thread, under mu_.
  std::mutex mu_;
  std::condition_variable cv_;
  std::string pending_;  // handed over, being hashed and written
  bool has_pending_ = false;
  bool stopping_ = false;
  Status write_status_;  // the first failure of the writing thread
  std::thread writer_;

  Sha256 hash_;  // of the bytes written; by the writing thread, or the caller when it is idle
  bool digest_as_written_ = true;  // false: HashFromDisk() at Close()
  bool rewritten_ = false;         // WriteAt() made the streaming digest stale
  std::string sha256_;
};

// fsyncs a folder so that the names of files created in it are durable.
Status SyncDir(const std::string& dir);

// Deletes a file; a missing file is OK.
Status RemoveFile(const std::string& path);

}  // namespace tokenmill
