#include "tokenmill/io/document_reader.h"

#include <algorithm>
#include <string>

#include "tokenmill/base/python_space.h"
#include "tokenmill/io/parquet_reader.h"
#include "tokenmill/io/readers.h"
#include "tokenmill/io/sentence_splitter.h"

namespace tokenmill {

bool IsBlankLine(std::string_view line) {
  for (size_t i = 0; i < line.size();) {
    const size_t k = PythonSpaceLength(line.data() + i, line.size() - i);
    if (k == 0) return false;
    i += k;
  }
  return true;
}

bool IsCompressed(std::string_view url) { return CompressionForUrl(url) != Compression::kNone; }

std::string_view StripByteOrderMark(std::string_view first_line) {
  if (first_line.substr(0, 3) == "\xEF\xBB\xBF") first_line.remove_prefix(3);
  return first_line;
}

StatusOr<std::string_view> CleanUtf8Line(std::string_view line, uint64_t line_number,
                                         uint64_t line_offset, const InputPosition& position,
                                         const ReaderOptions& options, std::string* scratch,
                                         ReaderStats* stats) {
  const size_t bad = FindInvalidUtf8(line);
  if (bad == std::string_view::npos) return line;
  if (options.strict_utf8) {
    static constexpr char kHex[] = "0123456789ABCDEF";
    const auto byte = static_cast<unsigned char>(line[bad]);
    return Status::DataLoss(
        position.Describe(line_number, line_offset + bad) + ": invalid UTF-8 (byte 0x" +
        kHex[byte >> 4] + kHex[byte & 15] + " at byte " + std::to_string(bad + 1) +
        " of the line); fix the input, or set strict_utf8 = false to " +
        (options.invalid_utf8 == InvalidUtf8::kDrop ? "drop" : "replace") + " invalid bytes");
  }
  scratch->clear();
  stats->invalid_utf8_bytes += AppendValidUtf8(line, options.invalid_utf8, scratch);
  return std::string_view(*scratch);
}

StatusOr<bool> StickyErrorReader::Next(Document* doc) {
  if (!status_.ok()) return status_;
  StatusOr<bool> r = ReadDocument(doc);
  if (!r.ok()) status_ = r.status();
  return r;
}

const ReaderStats& StreamDocumentReader::stats() const {
  stats_.bytes_in = stream_->bytes_in();
  stats_.bytes_decoded = stream_->bytes_out();
  return stats_;
}

StatusOr<std::unique_ptr<DocumentReader>> OpenDocumentReaderOnStream(
    std::unique_ptr<ReadStream> raw, std::string name, uint64_t range_begin,
    Compression compression, const ReaderOptions& options, uint64_t length_hint) {
  if (compression != Compression::kNone && range_begin != 0) {
    return Status::InvalidArgument(name + ": a " + std::string(CompressionName(compression)) +
                                   " file can only be read whole, not from byte " +
                                   std::to_string(range_begin));
  }
  if (options.max_document_bytes == 0) {
    return Status::InvalidArgument(name + ": max_document_bytes must be positive");
  }
  InputPosition position{name, range_begin, compression != Compression::kNone};
  // A short plain input needs no 1 MiB buffer (a planner may cut many small ranges).
  const size_t buffer_size =
      compression == Compression::kNone
          ? static_cast<size_t>(std::min<uint64_t>(length_hint, kLineBufferSize - 1) + 1)
          : kLineBufferSize;
  std::unique_ptr<DecodingStream> stream =
      NewDecodingStream(std::move(raw), compression, std::move(name));
  StatusOr<std::unique_ptr<DocumentReader>> reader =
      Status::InvalidArgument(position.name + ": unknown input format");
  switch (options.format) {
    case InputFormat::kText:
      reader = NewTextReader(std::move(stream), std::move(position), options, buffer_size);
      break;
    case InputFormat::kJsonl:
      reader = NewJsonlReader(std::move(stream), std::move(position), options, buffer_size);
      break;
    case InputFormat::kJson:
      if (range_begin != 0) {
        return Status::InvalidArgument(position.name +
                                       ": a \"json\" file can only be read whole, not from byte " +
                                       std::to_string(range_begin));
      }
      reader = NewJsonArrayReader(std::move(stream), position.name, options);
      break;
    case InputFormat::kParquet:
      return Status::InvalidArgument(position.name +
                                     ": a Parquet file is read through storage (ranged reads), "
                                     "not as a stream");
  }
  if (!reader.ok() || !options.split_sentences) return reader;
  return NewSentenceSplittingReader(std::move(reader).value());
}

StatusOr<std::unique_ptr<DocumentReader>> OpenDocumentReader(Storage& storage,
                                                             const InputRange& range,
                                                             const ReaderOptions& options) {
  const Compression compression = CompressionForUrl(range.url);
  if (options.format == InputFormat::kParquet) {
    if (compression != Compression::kNone) {
      return Status::InvalidArgument(
          range.url + ": a Parquet file compresses its pages itself; a whole-file " +
          std::string(CompressionName(compression)) + " wrapper is not supported (decompress it)");
    }
    auto reader = OpenParquetReader(storage, range, options);
    if (!reader.ok() || !options.split_sentences) return reader;
    return NewSentenceSplittingReader(std::move(reader).value());
  }
  if (options.format == InputFormat::kJson && range.begin != 0) {
    return Status::InvalidArgument(range.url +
                                   ": a \"json\" file (one JSON array) can only be "
                                   "read whole, not as the byte range [" +
                                   std::to_string(range.begin) + ", " + std::to_string(range.end) +
                                   ")");
  }
  if (range.end < range.begin) {
    return Status::InvalidArgument(range.url + ": invalid byte range [" +
                                   std::to_string(range.begin) + ", " + std::to_string(range.end) +
                                   "): the end is before the begin");
  }
  if (compression != Compression::kNone && (range.begin != 0 || range.end != kToEnd)) {
    return Status::InvalidArgument(range.url + ": a " + std::string(CompressionName(compression)) +
                                   " file can only be read whole (byte range [" +
                                   std::to_string(range.begin) + ", " + std::to_string(range.end) +
                                   ") requested); split only uncompressed inputs");
  }
  const uint64_t length = range.end == kToEnd ? kToEnd : range.end - range.begin;
  TM_ASSIGN_OR_RETURN(std::unique_ptr<ReadStream> raw,
                      storage.OpenRead(range.url, range.begin, length));
  return OpenDocumentReaderOnStream(std::move(raw), range.url, range.begin, compression, options);
}

}  // namespace tokenmill
