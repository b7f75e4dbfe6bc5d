#include "tokenmill/formats/output_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <system_error>
#include <utility>

namespace tokenmill {
namespace {

Status ErrnoStatus(const std::string& path, const char* what, int err) {
  std::string message = path + ": " + what + ": " + std::strerror(err);
  if (err == ENOENT) return Status::NotFound(message);
  if (err == EACCES || err == EPERM) return Status::PermissionDenied(message);
  return Status::IoError(message);
}

}  // namespace

StatusOr<std::unique_ptr<OutputFile>> OutputFile::Create(const std::string& path,
                                                         size_t buffer_size, bool write_behind) {
  // A file left at `path` with other links may be a second link of a published shard
  // (Storage::WriteFinishedFile), which truncating would empty: it is removed, not truncated.
  // (Anything else is opened as it is: a device such as /dev/full stays one.)
  struct stat st;
  if (::lstat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && st.st_nlink > 1 &&
      ::unlink(path.c_str()) != 0 && errno != ENOENT) {
    return ErrnoStatus(path, "cannot replace", errno);
  }
  // 0666 less the umask, as a copy into the store gets: a shard published by a link keeps it.
  int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  if (fd < 0) return ErrnoStatus(path, "cannot create", errno);
  return std::unique_ptr<OutputFile>(new OutputFile(path, fd, buffer_size, write_behind));
}

OutputFile::OutputFile(std::string path, int fd, size_t buffer_size, bool write_behind)
    : path_(std::move(path)), fd_(fd), buffer_size_(buffer_size), write_behind_(write_behind) {
  buffer_.reserve(buffer_size_);
}

OutputFile::~OutputFile() {
  StopWriter();
  if (fd_ >= 0) ::close(fd_);
}

Status OutputFile::Append(std::string_view data) {
  if (fd_ < 0) return Status::FailedPrecondition(path_ + ": append after close");
  bytes_ += data.size();
  if (buffer_.size() + data.size() <= buffer_size_) {
    buffer_.append(data);
    return Status::Ok();
  }
  TM_RETURN_IF_ERROR(Flush());
  if (data.size() < buffer_size_) {
    buffer_.append(data);
    return Status::Ok();
  }
  // Large writes skip the buffer, once the writing thread has written what came before.
  TM_RETURN_IF_ERROR(Drain());
  return HashAndWrite(data);
}

Status OutputFile::HashAndWrite(std::string_view data) {
  if (digest_as_written_) hash_.Update(data);
  return WriteAll(data.data(), data.size());
}

Status OutputFile::WriteAll(const char* data, size_t n) {
  size_t done = 0;
  while (done < n) {
    ssize_t w = ::write(fd_, data + done, n - done);
    if (w < 0) {
      if (errno == EINTR) continue;
      return ErrnoStatus(path_, "write failed", errno);
    }
    done += static_cast<size_t>(w);
  }
  return Status::Ok();
}

Status OutputFile::Flush() {
  if (write_behind_ && !writer_.joinable() && !buffer_.empty()) {
    try {
      writer_ = std::thread(&OutputFile::WriteBehind, this);
    } catch (const std::system_error&) {  // no thread to be had (a process limit): write here
      write_behind_ = false;
    }
  }
  if (!write_behind_) {
    TM_RETURN_IF_ERROR(HashAndWrite(buffer_));
    buffer_.clear();
    return Status::Ok();
  }
  std::unique_lock<std::mutex> lock(mu_);
  cv_.wait(lock, [this] { return !has_pending_; });
  if (!write_status_.ok()) return write_status_;
  if (buffer_.empty()) return Status::Ok();
  pending_.swap(buffer_);
  buffer_.clear();
  has_pending_ = true;
  lock.unlock();
  cv_.notify_all();
  if (buffer_.capacity() < buffer_size_) buffer_.reserve(buffer_size_);
  return Status::Ok();
}

Status OutputFile::Drain() {
  std::unique_lock<std::mutex> lock(mu_);
  cv_.wait(lock, [this] { return !has_pending_; });
  return write_status_;
}

void OutputFile::WriteBehind() {
  std::unique_lock<std::mutex> lock(mu_);
  for (;;) {
    cv_.wait(lock, [this] { return has_pending_ || stopping_; });
    if (!has_pending_) return;
    const bool failed = !write_status_.ok();
    lock.unlock();
    Status status;
    // After a failure the file is lost: nothing more is written.
    if (!failed) status = HashAndWrite(pending_);
    pending_.clear();
    lock.lock();
    if (!status.ok()) write_status_ = status;
    has_pending_ = false;
    cv_.notify_all();
  }
}

void OutputFile::StopWriter() {
  if (!writer_.joinable()) return;
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  writer_.join();
}

Status OutputFile::WriteAt(uint64_t offset, std::string_view data) {
  if (fd_ < 0) return Status::FailedPrecondition(path_ + ": write after close");
  if (offset > bytes_ || data.size() > bytes_ - offset) {
    return Status::Internal(path_ + ": WriteAt past the bytes written");
  }
  TM_RETURN_IF_ERROR(Flush());
  TM_RETURN_IF_ERROR(Drain());
  size_t done = 0;
  while (done < data.size()) {
    ssize_t w =
        ::pwrite(fd_, data.data() + done, data.size() - done, static_cast<off_t>(offset + done));
    if (w < 0) {
      if (errno == EINTR) continue;
      return ErrnoStatus(path_, "write failed", errno);
    }
    done += static_cast<size_t>(w);
  }
  rewritten_ = true;
  return Status::Ok();
}

Status OutputFile::HashFromDisk() {
  Sha256 hash;
  std::string chunk(std::min<uint64_t>(bytes_, 1 << 20), '\0');
  uint64_t offset = 0;
  while (offset < bytes_) {
    size_t want = static_cast<size_t>(std::min<uint64_t>(chunk.size(), bytes_ - offset));
    ssize_t n = ::pread(fd_, chunk.data(), want, static_cast<off_t>(offset));
    if (n < 0) {
      if (errno == EINTR) continue;
      return ErrnoStatus(path_, "read back failed", errno);
    }
    if (n == 0) return Status::IoError(path_ + ": file shorter than written");
    hash.Update(std::string_view(chunk.data(), static_cast<size_t>(n)));
    offset += static_cast<uint64_t>(n);
  }
  sha256_ = hash.HexDigest();
  return Status::Ok();
}

Status OutputFile::Close() {
  if (fd_ < 0) return Status::FailedPrecondition(path_ + ": closed twice");
  Status status;
  if (writer_.joinable()) {
    status = Flush();
    if (status.ok()) status = Drain();
    StopWriter();
    pending_ = std::string();
  } else {  // a file that never outgrew its buffer: no thread for one write
    status = HashAndWrite(buffer_);
  }
  buffer_ = std::string();
  const bool from_disk = rewritten_ || !digest_as_written_;
  if (status.ok() && from_disk) status = HashFromDisk();
  if (::close(fd_) != 0 && status.ok()) status = ErrnoStatus(path_, "close failed", errno);
  fd_ = -1;
  if (status.ok() && !from_disk) sha256_ = hash_.HexDigest();
  return status;
}

Status SyncDir(const std::string& dir) {
  int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return ErrnoStatus(dir, "cannot open folder", errno);
  Status status;
  if (::fsync(fd) != 0 && errno != EINVAL) status = ErrnoStatus(dir, "fsync failed", errno);
  ::close(fd);
  return status;
}

Status RemoveFile(const std::string& path) {
  if (::unlink(path.c_str()) != 0 && errno != ENOENT) {
    return ErrnoStatus(path, "cannot delete", errno);
  }
  return Status::Ok();
}

}  // namespace tokenmill
