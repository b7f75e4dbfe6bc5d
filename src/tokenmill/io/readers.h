// The document readers behind OpenDocumentReader, and the pieces they share.
//
// OpenDocumentReaderOnStream builds a reader over any byte stream (an object opened through
// Storage, or bytes in memory for fuzzers and tools). Line numbers in Document and in messages
// count from the start of what is read; byte offsets in Document are relative to the whole
// object (see InputPosition::Describe for how messages name a place).
// Thread-safety: a reader is used by one thread.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>

#include "tokenmill/io/decompress.h"
#include "tokenmill/io/document_reader.h"
#include "tokenmill/io/line_reader.h"

namespace tokenmill {

// A DocumentReader whose error sticks: Next() returns ReadDocument()'s result, and once that was
// an error, the same error again without reading any further.
class StickyErrorReader : public DocumentReader {
 public:
  StatusOr<bool> Next(Document* doc) final;

 protected:
  // The next document, as Next() promises; not called again after it returned an error.
  virtual StatusOr<bool> ReadDocument(Document* doc) = 0;

 private:
  Status status_;
};

// A StickyErrorReader of a DecodingStream: stats() is the reader's own counts (stats_) with the
// stream's bytes in and out.
class StreamDocumentReader : public StickyErrorReader {
 public:
  const ReaderStats& stats() const final;

 protected:
  explicit StreamDocumentReader(std::unique_ptr<DecodingStream> stream)
      : stream_(std::move(stream)) {}
  DecodingStream* stream() const { return stream_.get(); }

  mutable ReaderStats stats_;

 private:
  std::unique_ptr<DecodingStream> stream_;
};

// `raw` yields the bytes of the object `name` from byte `range_begin` on (0 for a whole object;
// compressed objects are always read whole). `length_hint`, if known, is the number of bytes
// `raw` yields; it only sizes the buffers of short inputs.
StatusOr<std::unique_ptr<DocumentReader>> OpenDocumentReaderOnStream(
    std::unique_ptr<ReadStream> raw, std::string name, uint64_t range_begin,
    Compression compression, const ReaderOptions& options, uint64_t length_hint = kToEnd);

// `buffer_size`: the LineReader's read size.
std::unique_ptr<DocumentReader> NewTextReader(std::unique_ptr<DecodingStream> stream,
                                              InputPosition position, const ReaderOptions& options,
                                              size_t buffer_size = kLineBufferSize);

// InvalidArgument if options.text_field is not a valid dotted path.
StatusOr<std::unique_ptr<DocumentReader>> NewJsonlReader(std::unique_ptr<DecodingStream> stream,
                                                         InputPosition position,
                                                         const ReaderOptions& options,
                                                         size_t buffer_size = kLineBufferSize);

// The "json" format (one JSON array of objects) over a whole object named `name`.
// InvalidArgument if options.text_field is not a valid dotted path.
StatusOr<std::unique_ptr<DocumentReader>> NewJsonArrayReader(std::unique_ptr<DecodingStream> stream,
                                                             std::string name,
                                                             const ReaderOptions& options);

// Applies options.invalid_utf8 / strict_utf8 to one line (line_number and line_offset as
// LineReader reports them). Returns `line` itself when it is valid, else the repaired bytes in
// *scratch; adds the invalid bytes to stats->invalid_utf8_bytes.
StatusOr<std::string_view> CleanUtf8Line(std::string_view line, uint64_t line_number,
                                         uint64_t line_offset, const InputPosition& position,
                                         const ReaderOptions& options, std::string* scratch,
                                         ReaderStats* stats);

// Removes a UTF-8 byte order mark (EF BB BF) from the first line of an object.
std::string_view StripByteOrderMark(std::string_view first_line);

}  // namespace tokenmill
