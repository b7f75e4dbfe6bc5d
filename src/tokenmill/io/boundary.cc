// NextDocumentBoundary: where a planner may cut a plain input so that every document belongs to
// exactly one range. Streams from the offset with a fixed buffer; never holds a whole line.

#include <algorithm>
#include <cstring>
#include <vector>

#include "tokenmill/base/python_space.h"
#include "tokenmill/io/decompress.h"
#include "tokenmill/io/document_reader.h"

namespace tokenmill {
namespace {

inline constexpr size_t kScanBufferSize = size_t{1} << 20;

// A forward-only view of a stream with a refillable window.
class Scanner {
 public:
  // `length`: the bytes the stream can yield at most (sizes the buffer for short streams).
  Scanner(ReadStream* stream, uint64_t start, uint64_t length)
      : stream_(stream),
        buf_(static_cast<size_t>(std::min<uint64_t>(kScanBufferSize, length + kMaxSpaceBytes))),
        pos_abs_(start) {}

  // Makes at least `k` bytes available unless the stream ends first. Returns the count available.
  StatusOr<size_t> Ensure(size_t k) {
    while (end_ - begin_ < k && !eof_) {
      if (begin_ > 0) {
        std::memmove(buf_.data(), buf_.data() + begin_, end_ - begin_);
        end_ -= begin_;
        begin_ = 0;
      }
      TM_ASSIGN_OR_RETURN(const size_t got, stream_->Read(buf_.data() + end_, buf_.size() - end_));
      if (got == 0) eof_ = true;
      end_ += got;
    }
    return end_ - begin_;
  }
  const char* data() const { return buf_.data() + begin_; }
  size_t available() const { return end_ - begin_; }
  void Skip(size_t k) {
    begin_ += k;
    pos_abs_ += k;
  }
  uint64_t position() const { return pos_abs_; }

  // Skips past the next '\n'. Returns false if the stream ends first.
  StatusOr<bool> SkipLine() {
    while (true) {
      TM_ASSIGN_OR_RETURN(const size_t avail, Ensure(1));
      if (avail == 0) return false;
      const void* nl = std::memchr(data(), '\n', avail);
      if (nl != nullptr) {
        Skip(static_cast<size_t>(static_cast<const char*>(nl) - data()) + 1);
        return true;
      }
      Skip(avail);
    }
  }

 private:
  ReadStream* stream_;
  std::vector<char> buf_;
  size_t begin_ = 0;
  size_t end_ = 0;
  bool eof_ = false;
  uint64_t pos_abs_;
};

// Reads one line from the scanner's position. Sets *blank (IsBlankLine of the line) and
// *exists (false at the end of the stream, when no line starts here).
Status ScanLine(Scanner* s, bool* blank, bool* exists) {
  *blank = true;
  *exists = false;
  while (true) {
    TM_ASSIGN_OR_RETURN(const size_t avail, s->Ensure(kMaxSpaceBytes));
    if (avail == 0) return Status::Ok();
    *exists = true;
    const char c = s->data()[0];
    if (c == '\n') {
      s->Skip(1);
      return Status::Ok();
    }
    const size_t k = PythonSpaceLength(s->data(), avail);
    if (k > 0) {
      s->Skip(k);
      continue;
    }
    *blank = false;
    TM_ASSIGN_OR_RETURN(const bool more, s->SkipLine());
    (void)more;
    return Status::Ok();
  }
}

}  // namespace

StatusOr<uint64_t> NextDocumentBoundary(Storage& storage, std::string_view url, uint64_t offset,
                                        uint64_t size, InputFormat format) {
  if (IsCompressed(url)) {
    return Status::InvalidArgument(std::string(url) +
                                   ": a compressed input has no byte-range boundaries; it is "
                                   "read whole");
  }
  if (offset == 0) return uint64_t{0};
  if (offset >= size) return size;
  // Start one byte early: if that byte is '\n', a line starts exactly at `offset`.
  TM_ASSIGN_OR_RETURN(std::unique_ptr<ReadStream> stream,
                      storage.OpenRead(url, offset - 1, size - (offset - 1)));
  Scanner s(stream.get(), offset - 1, size - (offset - 1));
  TM_ASSIGN_OR_RETURN(const bool found, s.SkipLine());
  if (!found) return size;
  if (format == InputFormat::kJsonl) return s.position();
  // Text: the first blank line starting at or after `offset`, then the first non-blank line.
  bool seen_blank = false;
  while (true) {
    const uint64_t line_start = s.position();
    bool blank = false;
    bool exists = false;
    TM_RETURN_IF_ERROR(ScanLine(&s, &blank, &exists));
    if (!exists) return size;
    if (blank) {
      seen_blank = true;
    } else if (seen_blank) {
      return line_start;
    }
  }
}

}  // namespace tokenmill
