// LineReader: splits a byte stream into lines on '\n' only.
//
// '\r', U+0085, U+2028 and U+2029 stay inside lines. The last line need not end with '\n'; an
// empty stream has no lines. Memory: one buffer of kLineBufferSize bytes, grown only to hold the
// longest line; a line longer than `max_line_bytes` is an error (the input is probably not
// text), so a file without newlines cannot exhaust memory.
// Thread-safety: used by one thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "tokenmill/base/status.h"
#include "tokenmill/storage/storage.h"

namespace tokenmill {

// Bytes read from the stream at a time: 1 MiB.
inline constexpr size_t kLineBufferSize = size_t{1} << 20;

// Where bytes come from, for messages: the object's name, the byte at which the range being read
// starts in the object, and whether offsets count decompressed bytes.
struct InputPosition {
  std::string name;
  uint64_t range_begin = 0;
  bool compressed = false;

  // "<name>:<line> (byte <offset>)" when reading from the start of the object
  // ("decompressed byte" for compressed inputs), or, inside a byte range that starts later,
  // "<name> byte <offset> (line <line> of the range starting at byte <range_begin>)".
  // `line` is 1-based from the start of what is read; `offset` is relative to it too.
  std::string Describe(uint64_t line, uint64_t offset) const;
};

class LineReader {
 public:
  // `stream` must outlive the reader. REQUIRES: buffer_size > 0.
  LineReader(ReadStream* stream, InputPosition position, size_t max_line_bytes,
             size_t buffer_size = kLineBufferSize);

  // Sets *line to the next line without its '\n' and returns true, or returns false at the end.
  // *line stays valid until the next call.
  StatusOr<bool> Next(std::string_view* line);

  // Like Next, but appends the line (without its '\n') to *out instead, and a line longer than
  // the buffer is moved there piece by piece, never held twice: a huge line costs its own size
  // once, in memory the caller keeps (a document, a record parsed in place). Keeps `slack` bytes
  // of capacity past the end of *out (simdjson's padding). When *out must grow past 16 MiB it
  // reserves room for the longest line allowed (at most 1 GiB) at once, instead of doubling
  // (untouched pages of a reservation take no memory).
  StatusOr<bool> NextAppend(std::string* out, size_t slack = 0);

  // The line last returned: its 1-based number and the offset of its first byte, both counted
  // from the start of the stream.
  uint64_t line_number() const { return line_number_; }
  uint64_t line_offset() const { return line_offset_; }
  // Bytes taken from the stream so far.
  uint64_t bytes_read() const { return stream_offset_ + end_; }
  const InputPosition& position() const { return position_; }
  // True when the line last returned is known to be valid UTF-8: the complete lines of the
  // buffer are validated at once (a line is cut at '\n', which no multi-byte character holds),
  // so that most lines need no check of their own. False means unknown, not invalid.
  bool line_is_valid_utf8() const { return line_valid_; }

 private:
  Status TooLong(uint64_t line_start, size_t length) const;
  // Moves the bytes not yet returned to the front of the buffer.
  void DropConsumed();
  // Sets line_valid_ for the line buf_[begin, end) returned whole (`end` at its '\n' or at the
  // end of the stream).
  void NoteWholeLine(size_t begin, size_t end);
  // Appends bytes to *out, growing it as NextAppend says.
  void Append(std::string* out, const char* data, size_t n, size_t slack) const;

  ReadStream* stream_;
  InputPosition position_;
  size_t max_line_bytes_;
  size_t read_size_;
  std::unique_ptr<char[]> buf_;  // not zero-filled: only bytes read are used
  size_t capacity_;
  size_t start_ = 0;  // first byte of the next line in buf_
  size_t scan_ = 0;   // bytes before scan_ (from start_) hold no '\n'
  size_t end_ = 0;    // end of valid bytes in buf_
  bool eof_ = false;
  uint64_t stream_offset_ = 0;  // stream offset of buf_[0]
  uint64_t line_number_ = 0;
  uint64_t line_offset_ = 0;
  // buf_[checked_begin_, checked_end_) has been validated and its bytes before valid_end_ are
  // valid UTF-8 up to a line end.
  size_t checked_begin_ = 0, checked_end_ = 0, valid_end_ = 0;
  bool line_valid_ = false;
};

}  // namespace tokenmill
