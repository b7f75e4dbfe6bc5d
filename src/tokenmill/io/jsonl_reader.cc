// The "jsonl" format: one JSON object per line, the document text at a (dotted) field.

#include <string>

#include "tokenmill/io/json_record.h"
#include "tokenmill/io/readers.h"

namespace tokenmill {
namespace {

// JSON whitespace only: a line of these holds no record and is skipped silently.
bool IsJsonBlank(std::string_view line) {
  for (char c : line) {
    if (c != ' ' && c != '\t' && c != '\r') return false;
  }
  return true;
}

class JsonlReader final : public StreamDocumentReader {
 public:
  JsonlReader(std::unique_ptr<DecodingStream> stream, InputPosition position,
              const ReaderOptions& options, JsonRecordParser parser, size_t buffer_size)
      : StreamDocumentReader(std::move(stream)),
        options_(options),
        parser_(std::move(parser)),
        lines_(this->stream(), std::move(position), options.max_document_bytes, buffer_size) {}

 private:
  StatusOr<bool> ReadDocument(Document* doc) override {
    // The record is read into the document and parsed there (JsonRecordParser::ParseInPlace),
    // so a huge record is in memory once.
    const InputPosition& pos = lines_.position();
    std::string& record = doc->text;
    while (true) {
      record.clear();
      TM_ASSIGN_OR_RETURN(const bool got, lines_.NextAppend(&record));
      if (!got) return false;
      ++stats_.lines;
      if (lines_.line_offset() == 0 && pos.range_begin == 0) {
        record.erase(0, record.size() - StripByteOrderMark(record).size());
      }
      if (IsJsonBlank(record)) continue;
      if (!lines_.line_is_valid_utf8()) {
        TM_ASSIGN_OR_RETURN(const std::string_view line,
                            CleanUtf8Line(record, lines_.line_number(), lines_.line_offset(), pos,
                                          options_, &scratch_, &stats_));
        if (line.data() != record.data()) record.assign(line);
      }
      const Status s = parser_.ParseInPlace(&record, &stats_);
      if (!s.ok()) {
        if (s.code() != StatusCode::kInvalidArgument || !options_.skip_bad_records) {
          return s.WithContext(pos.Describe(lines_.line_number(), lines_.line_offset()));
        }
        ++stats_.skipped_records;
        continue;
      }
      if (record.empty()) {
        ++stats_.empty_documents;
        continue;
      }
      doc->line_number = lines_.line_number();
      doc->offset = pos.range_begin + lines_.line_offset();
      ++stats_.documents;
      return true;
    }
  }

  ReaderOptions options_;
  JsonRecordParser parser_;
  LineReader lines_;
  std::string scratch_;
};

}  // namespace

StatusOr<std::unique_ptr<DocumentReader>> NewJsonlReader(std::unique_ptr<DecodingStream> stream,
                                                         InputPosition position,
                                                         const ReaderOptions& options,
                                                         size_t buffer_size) {
  TM_ASSIGN_OR_RETURN(JsonRecordParser parser, JsonRecordParser::Create(options));
  return std::unique_ptr<DocumentReader>(std::make_unique<JsonlReader>(
      std::move(stream), std::move(position), options, std::move(parser), buffer_size));
}

}  // namespace tokenmill
