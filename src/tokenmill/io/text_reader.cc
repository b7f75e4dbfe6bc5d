// The "text" format: one sentence or paragraph per line, blank lines between documents.

#include <string>

#include "tokenmill/io/readers.h"

namespace tokenmill {
namespace {

class TextReader final : public StreamDocumentReader {
 public:
  TextReader(std::unique_ptr<DecodingStream> stream, InputPosition position,
             const ReaderOptions& options, size_t buffer_size)
      : StreamDocumentReader(std::move(stream)),
        options_(options),
        lines_(this->stream(), std::move(position), options.max_document_bytes, buffer_size) {}

 private:
  StatusOr<bool> ReadDocument(Document* doc) override {
    // Lines are appended to the document where they are read (LineReader::NextAppend), so a
    // huge line is in memory once.
    const InputPosition& pos = lines_.position();
    std::string& text = doc->text;
    text.clear();
    bool in_doc = false;
    while (true) {
      const size_t mark = text.size();  // the document without this line
      if (in_doc) text.push_back('\n');
      const size_t start = text.size();
      TM_ASSIGN_OR_RETURN(const bool got, lines_.NextAppend(&text));
      if (!got) {
        text.resize(mark);
        break;
      }
      ++stats_.lines;
      if (lines_.line_offset() == 0 && pos.range_begin == 0) {
        const std::string_view raw(text.data() + start, text.size() - start);
        text.erase(start, raw.size() - StripByteOrderMark(raw).size());
      }
      if (!lines_.line_is_valid_utf8()) {
        const std::string_view raw(text.data() + start, text.size() - start);
        TM_ASSIGN_OR_RETURN(const std::string_view line,
                            CleanUtf8Line(raw, lines_.line_number(), lines_.line_offset(), pos,
                                          options_, &scratch_, &stats_));
        if (line.data() != raw.data()) {
          text.resize(start);
          text.append(line);
        }
      }
      if (IsBlankLine(std::string_view(text.data() + start, text.size() - start))) {
        text.resize(mark);
        if (in_doc) break;
        continue;
      }
      if (!in_doc) {
        in_doc = true;
        doc->line_number = lines_.line_number();
        doc->offset = pos.range_begin + lines_.line_offset();
      }
      if (text.size() > options_.max_document_bytes) {
        return Status::InvalidArgument(
            pos.Describe(doc->line_number, doc->offset - pos.range_begin) +
            ": the document starting here is longer than max_document_bytes (" +
            std::to_string(options_.max_document_bytes) +
            "); are documents separated by blank lines? Raise max_document_bytes if it is "
            "really one document");
      }
    }
    if (!in_doc) return false;
    ++stats_.documents;
    return true;
  }

  ReaderOptions options_;
  LineReader lines_;
  std::string scratch_;
};

}  // namespace

std::unique_ptr<DocumentReader> NewTextReader(std::unique_ptr<DecodingStream> stream,
                                              InputPosition position, const ReaderOptions& options,
                                              size_t buffer_size) {
  return std::make_unique<TextReader>(std::move(stream), std::move(position), options, buffer_size);
}

}  // namespace tokenmill
