// The "text" format: one sentence or paragraph per line, blank lines between documents.

#include <algorithm>
#include <string>

#include "tokenmill/io/readers.h"

namespace tokenmill {
namespace {

class TextReader final : public DocumentReader {
 public:
  static constexpr uint64_t kReserveFrom = uint64_t{16} << 20;
  static constexpr uint64_t kMaxReserve = uint64_t{1} << 30;

  TextReader(std::unique_ptr<DecodingStream> stream, InputPosition position,
             const ReaderOptions& options, size_t buffer_size)
      : stream_(std::move(stream)),
        options_(options),
        lines_(stream_.get(), std::move(position), options.max_document_bytes, buffer_size) {}

  StatusOr<bool> Next(Document* doc) override {
    if (!status_.ok()) return status_;
    StatusOr<bool> r = ReadDocument(doc);
    if (!r.ok()) status_ = r.status();
    return r;
  }

  const ReaderStats& stats() const override {
    stats_.bytes_in = stream_->bytes_in();
    stats_.bytes_decoded = stream_->bytes_out();
    return stats_;
  }

 private:
  StatusOr<bool> ReadDocument(Document* doc) {
    const InputPosition& pos = lines_.position();
    doc->text.clear();
    bool in_doc = false;
    std::string_view raw;
    while (true) {
      TM_ASSIGN_OR_RETURN(const bool got, lines_.Next(&raw));
      if (!got) break;
      ++stats_.lines;
      if (lines_.line_offset() == 0 && pos.range_begin == 0) raw = StripByteOrderMark(raw);
      TM_ASSIGN_OR_RETURN(const std::string_view line,
                          CleanUtf8Line(raw, lines_.line_number(), lines_.line_offset(), pos,
                                        options_, &scratch_, &stats_));
      if (IsBlankLine(line)) {
        if (in_doc) break;
        continue;
      }
      if (!in_doc) {
        in_doc = true;
        doc->line_number = lines_.line_number();
        doc->offset = pos.range_begin + lines_.line_offset();
      } else {
        doc->text.push_back('\n');
      }
      if (doc->text.size() + line.size() > options_.max_document_bytes) {
        return Status::InvalidArgument(
            pos.Describe(doc->line_number, doc->offset - pos.range_begin) +
            ": the document starting here is longer than max_document_bytes (" +
            std::to_string(options_.max_document_bytes) +
            "); are documents separated by blank lines? Raise max_document_bytes if it is "
            "really one document");
      }
      if (doc->text.size() + line.size() > doc->text.capacity() &&
          doc->text.size() + line.size() > kReserveFrom) {
        // A huge document: room for the largest one allowed at once, instead of growing by
        // doubling, where each step holds the old copy and the new one (1.5 to 2 times the
        // text). Untouched pages of the reservation take no memory.
        doc->text.reserve(static_cast<size_t>(std::min<uint64_t>(
            std::max<uint64_t>(options_.max_document_bytes, doc->text.size() + line.size()),
            kMaxReserve)));
      }
      doc->text.append(line);
    }
    if (!in_doc) return false;
    ++stats_.documents;
    return true;
  }

  std::unique_ptr<DecodingStream> stream_;
  ReaderOptions options_;
  LineReader lines_;
  std::string scratch_;
  Status status_;
  mutable ReaderStats stats_;
};

}  // namespace

std::unique_ptr<DocumentReader> NewTextReader(std::unique_ptr<DecodingStream> stream,
                                              InputPosition position, const ReaderOptions& options,
                                              size_t buffer_size) {
  return std::make_unique<TextReader>(std::move(stream), std::move(position), options, buffer_size);
}

}  // namespace tokenmill
