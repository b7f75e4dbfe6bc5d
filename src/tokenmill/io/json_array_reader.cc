// The "json" format: a file that is one JSON array of objects ("[{...}, {...}]", WuDao-style),
// the document text at a (dotted) field. The array is scanned element by element: only one
// element is held in memory at a time (bounded by max_document_bytes), never the file.

#include <string>

#include "tokenmill/io/json_record.h"
#include "tokenmill/io/readers.h"

namespace tokenmill {
namespace {

constexpr size_t kReadSize = size_t{1} << 20;

bool IsJsonSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

class JsonArrayReader final : public StreamDocumentReader {
 public:
  JsonArrayReader(std::unique_ptr<DecodingStream> stream, std::string name,
                  const ReaderOptions& options, JsonRecordParser parser)
      : StreamDocumentReader(std::move(stream)),
        name_(std::move(name)),
        options_(options),
        parser_(std::move(parser)) {}

 private:
  enum class State { kStart, kBeforeElement, kAfterElement, kEnd };

  std::string Place(uint64_t offset) const {
    return name_ + " byte " + std::to_string(offset) +
           (element_ > 0 ? " (array element " + std::to_string(element_) + ")" : "");
  }

  // The next byte without consuming it; false at the end of the data.
  StatusOr<bool> Peek(char* c) {
    if (pos_ == buf_.size()) {
      offset_ += buf_.size();
      buf_.resize(kReadSize);
      TM_ASSIGN_OR_RETURN(const size_t n, stream()->Read(buf_.data(), buf_.size()));
      buf_.resize(n);
      pos_ = 0;
      if (n == 0) return false;
    }
    *c = buf_[pos_];
    return true;
  }
  uint64_t Offset() const { return offset_ + pos_; }

  StatusOr<bool> SkipSpace(char* c) {
    for (;;) {
      TM_ASSIGN_OR_RETURN(const bool more, Peek(c));
      if (!more) return false;
      if (!IsJsonSpace(*c)) return true;
      ++pos_;
    }
  }

  // Copies one array element (an object, or any other value) into element_bytes_, up to the
  // byte after it. Strings and nesting are tracked so that ',' and ']' inside them do not end it.
  // An element longer than max_document_bytes is scanned to its end but not kept (*too_long).
  Status ScanElement(bool* too_long) {
    element_bytes_.clear();
    *too_long = false;
    int depth = 0;
    bool in_string = false, escape = false;
    const uint64_t start = Offset();
    for (;;) {
      char c = 0;
      TM_ASSIGN_OR_RETURN(const bool more, Peek(&c));
      if (!more) {
        return Status::DataLoss(name_ + ": the file ends inside array element " +
                                std::to_string(element_) + " (starting at byte " +
                                std::to_string(start) + "); the file is truncated");
      }
      if (depth == 0 && !in_string && (c == ',' || c == ']' || IsJsonSpace(c))) {
        if (element_bytes_.empty() && !*too_long) {
          return Status::InvalidArgument(Place(Offset()) + ": an empty array element");
        }
        return Status::Ok();
      }
      ++pos_;
      if (!*too_long) {
        if (element_bytes_.size() >= options_.max_document_bytes) {
          *too_long = true;
          element_bytes_.clear();
        } else {
          element_bytes_.push_back(c);
        }
      }
      if (in_string) {
        if (escape) {
          escape = false;
        } else if (c == '\\') {
          escape = true;
        } else if (c == '"') {
          in_string = false;
        }
        continue;
      }
      if (c == '"') {
        in_string = true;
      } else if (c == '{' || c == '[') {
        ++depth;
      } else if (c == '}' || c == ']') {
        if (--depth < 0) {
          return Status::InvalidArgument(Place(Offset() - 1) + ": unbalanced '" +
                                         std::string(1, c) + "'");
        }
        if (depth == 0) return Status::Ok();
      }
    }
  }

  StatusOr<bool> ReadDocument(Document* doc) override {
    for (;;) {
      char c = 0;
      switch (state_) {
        case State::kStart: {
          // An optional UTF-8 byte order mark, then '['.
          TM_ASSIGN_OR_RETURN(bool more, SkipSpace(&c));
          if (more && c == '\xEF') {
            for (int i = 0; i < 3 && more; ++i) {
              ++pos_;
              TM_ASSIGN_OR_RETURN(more, Peek(&c));
            }
            TM_ASSIGN_OR_RETURN(more, SkipSpace(&c));
          }
          if (!more) {
            return Status::InvalidArgument(name_ +
                                           ": the file is empty; a \"json\" input must hold one "
                                           "JSON array of objects (use format = \"jsonl\" for "
                                           "one object per line)");
          }
          if (c != '[') {
            return Status::InvalidArgument(
                Place(Offset()) +
                ": a \"json\" input must be one JSON array of objects, but it "
                "starts with '" +
                std::string(1, c) + "'; use format = \"jsonl\" for one object per line");
          }
          ++pos_;
          TM_ASSIGN_OR_RETURN(more, SkipSpace(&c));
          if (more && c == ']') {
            ++pos_;
            state_ = State::kEnd;
          } else {
            state_ = State::kBeforeElement;
          }
          continue;
        }
        case State::kBeforeElement: {
          TM_ASSIGN_OR_RETURN(const bool more, SkipSpace(&c));
          if (!more) {
            return Status::DataLoss(name_ + ": the file ends inside the JSON array (after " +
                                    std::to_string(element_) + " elements); it is truncated");
          }
          ++element_;
          const uint64_t start = Offset();
          bool too_long = false;
          TM_RETURN_IF_ERROR(ScanElement(&too_long));
          state_ = State::kAfterElement;
          ++stats_.lines;
          if (too_long) {
            const Status s = Status::InvalidArgument(
                Place(start) + ": the element is longer than max_document_bytes (" +
                std::to_string(options_.max_document_bytes) +
                "); set [input] on_bad_record = \"skip\" to skip such records");
            if (!options_.skip_bad_records) return s;
            ++stats_.skipped_records;
            continue;
          }
          TM_ASSIGN_OR_RETURN(
              const std::string_view record,
              CleanUtf8Line(element_bytes_, element_, start, InputPosition{name_, 0, false},
                            options_, &scratch_, &stats_));
          std::string_view text;
          const Status s = parser_.Parse(record, &text, &stats_);
          if (!s.ok()) {
            if (s.code() != StatusCode::kInvalidArgument || !options_.skip_bad_records) {
              return s.WithContext(Place(start));
            }
            ++stats_.skipped_records;
            continue;
          }
          if (text.empty()) {
            ++stats_.empty_documents;
            continue;
          }
          doc->text.assign(text);
          doc->line_number = element_;
          doc->offset = start;
          ++stats_.documents;
          return true;
        }
        case State::kAfterElement: {
          TM_ASSIGN_OR_RETURN(const bool more, SkipSpace(&c));
          if (!more) {
            return Status::DataLoss(name_ + ": the file ends inside the JSON array (after " +
                                    std::to_string(element_) +
                                    " elements, no closing ']'); "
                                    "it is truncated");
          }
          ++pos_;
          if (c == ',') {
            state_ = State::kBeforeElement;
          } else if (c == ']') {
            state_ = State::kEnd;
          } else {
            return Status::InvalidArgument(Place(Offset() - 1) + ": expected ',' or ']' after " +
                                           "the element, found '" + std::string(1, c) + "'");
          }
          continue;
        }
        case State::kEnd: {
          TM_ASSIGN_OR_RETURN(const bool more, SkipSpace(&c));
          if (more) {
            return Status::InvalidArgument(Place(Offset()) +
                                           ": data after the end of the JSON array; a \"json\" "
                                           "input holds exactly one array");
          }
          return false;
        }
      }
    }
  }

  std::string name_;
  ReaderOptions options_;
  JsonRecordParser parser_;
  State state_ = State::kStart;
  std::string buf_;
  size_t pos_ = 0;
  uint64_t offset_ = 0;  // decompressed offset of buf_[0]
  uint64_t element_ = 0;
  std::string element_bytes_;
  std::string scratch_;
};

}  // namespace

StatusOr<std::unique_ptr<DocumentReader>> NewJsonArrayReader(std::unique_ptr<DecodingStream> stream,
                                                             std::string name,
                                                             const ReaderOptions& options) {
  TM_ASSIGN_OR_RETURN(JsonRecordParser parser, JsonRecordParser::Create(options));
  return std::unique_ptr<DocumentReader>(std::make_unique<JsonArrayReader>(
      std::move(stream), std::move(name), options, std::move(parser)));
}

}  // namespace tokenmill
