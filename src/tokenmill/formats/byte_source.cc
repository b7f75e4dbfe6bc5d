#include "tokenmill/formats/byte_source.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <memory>
#include <utility>

namespace tokenmill {
namespace {

class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd() { ::close(fd_); }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return fd_; }

 private:
  int fd_;
};

}  // namespace

StatusOr<ByteSource> LocalFileSource(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    int err = errno;
    std::string message = path + ": cannot open: " + std::strerror(err);
    if (err == ENOENT) return Status::NotFound(message);
    return Status::IoError(message);
  }
  auto file = std::make_shared<Fd>(fd);
  struct stat st;
  if (::fstat(fd, &st) != 0) {
    return Status::IoError(path + ": cannot stat: " + std::strerror(errno));
  }
  if (!S_ISREG(st.st_mode)) {
    return Status::InvalidArgument(path + ": not a regular file");
  }
  const uint64_t size = static_cast<uint64_t>(st.st_size);
  ByteSource source;
  source.name = path;
  source.size = size;
  source.read_at = [file, path, size](uint64_t offset, uint64_t length) -> StatusOr<std::string> {
    // The size seen at open bounds the buffer; a file that shrank since gives a short read.
    if (offset >= size) return std::string();
    length = std::min(length, size - offset);
    std::string out(length, '\0');
    uint64_t done = 0;
    while (done < length) {
      ssize_t n =
          ::pread(file->get(), out.data() + done, length - done, static_cast<off_t>(offset + done));
      if (n < 0) {
        if (errno == EINTR) continue;
        return Status::IoError(path + ": read failed at byte offset " +
                               std::to_string(offset + done) + ": " + std::strerror(errno));
      }
      if (n == 0) break;
      done += static_cast<uint64_t>(n);
    }
    out.resize(done);
    return out;
  };
  return source;
}

ByteSource MemorySource(std::string name, std::string_view data) {
  ByteSource source;
  source.name = std::move(name);
  source.size = data.size();
  source.read_at = [data](uint64_t offset, uint64_t length) -> StatusOr<std::string> {
    if (offset >= data.size()) return std::string();
    return std::string(data.substr(offset, std::min<uint64_t>(length, data.size() - offset)));
  };
  return source;
}

SourceReader::SourceReader(const ByteSource& source, uint64_t start, size_t buffer_size)
    : source_(source), position_(start), buffer_size_(std::max<size_t>(buffer_size, 1)) {}

StatusOr<bool> SourceReader::Read(size_t n, std::string_view* out) {
  if (position_ > source_.size || n > source_.size - position_) return false;
  if (buffer_.size() - buffer_pos_ < n) {
    uint64_t want = std::min<uint64_t>(std::max<uint64_t>(buffer_size_, n), remaining());
    TM_ASSIGN_OR_RETURN(buffer_, source_.read_at(position_, want));
    buffer_pos_ = 0;
    if (buffer_.size() < n) {
      return Status::DataLoss(source_.name + ": file ended at byte offset " +
                              std::to_string(position_ + buffer_.size()) + ", expected " +
                              std::to_string(source_.size) +
                              " bytes (was it truncated or changed while being read?)");
    }
  }
  *out = std::string_view(buffer_).substr(buffer_pos_, n);
  buffer_pos_ += n;
  position_ += n;
  return true;
}

}  // namespace tokenmill
