#include "tokenmill/io/line_reader.h"

#include <string.h>

#include <algorithm>
#include <cstring>

#include "tokenmill/base/utf8.h"

namespace tokenmill {

std::string InputPosition::Describe(uint64_t line, uint64_t offset) const {
  if (range_begin == 0) {
    return name + ":" + std::to_string(line) + " (" + (compressed ? "decompressed " : "") +
           "byte " + std::to_string(offset) + ")";
  }
  return name + " byte " + std::to_string(range_begin + offset) + " (line " + std::to_string(line) +
         " of the range starting at byte " + std::to_string(range_begin) + ")";
}

LineReader::LineReader(ReadStream* stream, InputPosition position, size_t max_line_bytes,
                       size_t buffer_size)
    : stream_(stream),
      position_(std::move(position)),
      max_line_bytes_(max_line_bytes),
      read_size_(std::max<size_t>(buffer_size, 1)),
      buf_(new char[read_size_]),
      capacity_(read_size_) {}

void LineReader::DropConsumed() {
  if (start_ == 0) return;
  std::memmove(buf_.get(), buf_.get() + start_, end_ - start_);
  stream_offset_ += start_;
  end_ -= start_;
  scan_ -= start_;
  const auto shift = [this](size_t at) { return at > start_ ? at - start_ : 0; };
  checked_begin_ = shift(checked_begin_);
  checked_end_ = shift(checked_end_);
  valid_end_ = shift(valid_end_);
  start_ = 0;
}

void LineReader::NoteWholeLine(size_t begin, size_t end) {
  if (begin < checked_begin_ || end > checked_end_) {
    // Validate the complete lines from this one on: up to the last '\n' of the buffer, or to
    // its end at the end of the stream.
    const char* base = buf_.get();
    size_t stop = end_;
    if (!eof_) {
      const void* last = ::memrchr(base + end, '\n', end_ - end);
      stop = last != nullptr ? static_cast<size_t>(static_cast<const char*>(last) - base) : end;
    }
    const std::string_view region(base + begin, stop - begin);
    const size_t bad = FindInvalidUtf8(region);
    checked_begin_ = begin;
    checked_end_ = stop;
    if (bad == std::string_view::npos) {
      valid_end_ = stop;
    } else {
      // Valid up to the last line end before the first invalid byte.
      const size_t nl = region.rfind('\n', bad);
      valid_end_ = nl == std::string_view::npos ? begin : begin + nl;
    }
  }
  line_valid_ = end <= valid_end_;
}

Status LineReader::TooLong(uint64_t line_start, size_t length) const {
  return Status::InvalidArgument(
      position_.Describe(line_number_ + 1, line_start) + ": a line longer than " +
      std::to_string(max_line_bytes_) + " bytes (" + std::to_string(length) +
      " bytes seen without a '\\n'); the input is probably not a text file in this format, or "
      "raise max_document_bytes");
}

StatusOr<bool> LineReader::Next(std::string_view* line) {
  while (true) {
    const char* base = buf_.get();
    const void* nl = scan_ < end_ ? std::memchr(base + scan_, '\n', end_ - scan_) : nullptr;
    if (nl != nullptr) {
      const size_t p = static_cast<size_t>(static_cast<const char*>(nl) - base);
      if (p - start_ > max_line_bytes_) return TooLong(stream_offset_ + start_, p - start_);
      *line = std::string_view(base + start_, p - start_);
      NoteWholeLine(start_, p);
      line_offset_ = stream_offset_ + start_;
      ++line_number_;
      start_ = p + 1;
      scan_ = start_;
      return true;
    }
    scan_ = end_;
    if (end_ - start_ > max_line_bytes_) return TooLong(stream_offset_ + start_, end_ - start_);
    if (eof_) {
      if (start_ == end_) return false;
      *line = std::string_view(base + start_, end_ - start_);
      NoteWholeLine(start_, end_);
      line_offset_ = stream_offset_ + start_;
      ++line_number_;
      start_ = end_;
      scan_ = end_;
      return true;
    }
    // Make room for another read: drop consumed bytes, then grow if still short of room.
    DropConsumed();
    if (capacity_ - end_ < std::max<size_t>(read_size_ / 2, 1)) {
      const size_t grown = std::max(capacity_ * 2, end_ + read_size_);
      std::unique_ptr<char[]> bigger(new char[grown]);
      std::memcpy(bigger.get(), buf_.get(), end_);
      buf_ = std::move(bigger);
      capacity_ = grown;
    }
    TM_ASSIGN_OR_RETURN(const size_t got, stream_->Read(buf_.get() + end_, capacity_ - end_));
    if (got == 0) eof_ = true;
    end_ += got;
  }
}

void LineReader::Append(std::string* out, const char* data, size_t n, size_t slack) const {
  constexpr size_t kReserveFrom = size_t{16} << 20;
  constexpr size_t kMaxReserve = size_t{1} << 30;
  const size_t need = out->size() + n + slack;
  if (need > out->capacity()) {
    if (need > kReserveFrom) {
      out->reserve(std::max(need, std::min(out->size() + max_line_bytes_ + slack, kMaxReserve)));
    } else {
      out->reserve(std::max(need, out->capacity() * 2));
    }
  }
  out->append(data, n);
}

StatusOr<bool> LineReader::NextAppend(std::string* out, size_t slack) {
  size_t moved = 0;         // bytes of this line already appended to *out
  uint64_t line_start = 0;  // stream offset of the line, once bytes of it are moved
  while (true) {
    const char* base = buf_.get();
    const void* nl = scan_ < end_ ? std::memchr(base + scan_, '\n', end_ - scan_) : nullptr;
    if (nl != nullptr || eof_) {
      const size_t p =
          nl != nullptr ? static_cast<size_t>(static_cast<const char*>(nl) - base) : end_;
      if (moved + (p - start_) > max_line_bytes_) {
        return TooLong(moved > 0 ? line_start : stream_offset_ + start_, moved + (p - start_));
      }
      if (nl == nullptr && moved == 0 && start_ == end_) {
        if (out->capacity() < out->size() + slack) out->reserve(out->size() + slack);
        return false;
      }
      Append(out, base + start_, p - start_, slack);
      if (moved == 0) {
        NoteWholeLine(start_, p);
      } else {
        line_valid_ = false;  // in pieces: the caller checks it
      }
      line_offset_ = moved > 0 ? line_start : stream_offset_ + start_;
      ++line_number_;
      start_ = nl != nullptr ? p + 1 : end_;
      scan_ = start_;
      return true;
    }
    scan_ = end_;
    if (moved + (end_ - start_) > max_line_bytes_) {
      return TooLong(moved > 0 ? line_start : stream_offset_ + start_, moved + (end_ - start_));
    }
    DropConsumed();
    if (capacity_ - end_ < std::max<size_t>(read_size_ / 2, 1)) {
      // The buffer holds only a part of this line: move it to *out and reuse the buffer.
      if (moved == 0) line_start = stream_offset_;
      Append(out, buf_.get(), end_, slack);
      moved += end_;
      stream_offset_ += end_;
      end_ = 0;
      scan_ = 0;
      checked_begin_ = checked_end_ = valid_end_ = 0;
    }
    TM_ASSIGN_OR_RETURN(const size_t got, stream_->Read(buf_.get() + end_, capacity_ - end_));
    if (got == 0) eof_ = true;
    end_ += got;
  }
}

}  // namespace tokenmill
