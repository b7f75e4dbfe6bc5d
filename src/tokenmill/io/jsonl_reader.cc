// The "jsonl" format: one JSON object per line, the document text at a (dotted) field.

#include <simdjson.h>

#include <cstring>
#include <string>
#include <vector>

#include "tokenmill/io/jsonl_text.h"
#include "tokenmill/io/readers.h"

namespace tokenmill {
namespace {

std::string_view JsonTypeName(simdjson::dom::element_type t) {
  switch (t) {
    case simdjson::dom::element_type::ARRAY:
      return "an array";
    case simdjson::dom::element_type::OBJECT:
      return "an object";
    case simdjson::dom::element_type::INT64:
    case simdjson::dom::element_type::UINT64:
    case simdjson::dom::element_type::DOUBLE:
      return "a number";
    case simdjson::dom::element_type::STRING:
      return "a string";
    case simdjson::dom::element_type::BOOL:
      return "a boolean";
    case simdjson::dom::element_type::NULL_VALUE:
      return "null";
  }
  return "a value";
}

// JSON whitespace only: a line of these holds no record and is skipped silently.
bool IsJsonBlank(std::string_view line) {
  for (char c : line) {
    if (c != ' ' && c != '\t' && c != '\r') return false;
  }
  return true;
}

class JsonlReader final : public DocumentReader {
 public:
  JsonlReader(std::unique_ptr<DecodingStream> stream, InputPosition position,
              const ReaderOptions& options, std::vector<std::string> path, size_t buffer_size)
      : stream_(std::move(stream)),
        options_(options),
        path_(std::move(path)),
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
    std::string_view raw;
    while (true) {
      TM_ASSIGN_OR_RETURN(const bool got, lines_.Next(&raw));
      if (!got) return false;
      ++stats_.lines;
      if (lines_.line_offset() == 0 && pos.range_begin == 0) raw = StripByteOrderMark(raw);
      if (IsJsonBlank(raw)) continue;
      TM_ASSIGN_OR_RETURN(const std::string_view line,
                          CleanUtf8Line(raw, lines_.line_number(), lines_.line_offset(), pos,
                                        options_, &scratch_, &stats_));
      std::string_view text;
      const Status s = ParseRecord(line, &text);
      if (!s.ok()) {
        if (s.code() != StatusCode::kInvalidArgument || !options_.skip_bad_records) {
          return s.WithContext(pos.Describe(lines_.line_number(), lines_.line_offset()));
        }
        ++stats_.skipped_records;
        continue;
      }
      if (text.empty()) {
        ++stats_.empty_documents;
        continue;
      }
      doc->text.assign(text);
      doc->line_number = lines_.line_number();
      doc->offset = pos.range_begin + lines_.line_offset();
      ++stats_.documents;
      return true;
    }
  }

  // Parses one line; *text points into the parser's buffers. InvalidArgument for a bad record.
  Status ParseRecord(std::string_view line, std::string_view* text) {
    simdjson::dom::element root;
    simdjson::error_code err = Parse(line, &root);
    if (err == simdjson::STRING_ERROR) {
      // The JSON text may be valid with lone surrogate escapes ("\ud800"), which have no UTF-8
      // form: they become U+FFFD.
      size_t replaced = 0;
      ReplaceLoneSurrogateEscapes(line, &fixed_, &replaced);
      if (replaced > 0) {
        err = Parse(fixed_, &root);
        if (err == simdjson::SUCCESS) {
          if (options_.strict_utf8) {
            return Status::DataLoss(
                "a JSON string holds a lone UTF-16 surrogate escape (such as \\ud800), which "
                "is not Unicode text; fix the input, or set strict_utf8 = false to replace it "
                "with U+FFFD");
          }
          stats_.invalid_utf8_bytes += replaced;
        }
      }
    }
    if (err != simdjson::SUCCESS) {
      return Status::InvalidArgument(std::string("malformed JSON (") +
                                     simdjson::error_message(err) + ")" + kBadRecordHint);
    }
    simdjson::dom::element cur = root;
    for (size_t i = 0; i < path_.size(); ++i) {
      simdjson::dom::object obj;
      if (cur.get(obj) != simdjson::SUCCESS) {
        if (i == 0) {
          return Status::InvalidArgument(std::string("the line holds ") +
                                         std::string(JsonTypeName(cur.type())) +
                                         ", not a JSON object" + kBadRecordHint);
        }
        return Status::InvalidArgument("field \"" + FieldPrefix(i) + "\" is " +
                                       std::string(JsonTypeName(cur.type())) + ", not an object" +
                                       kBadRecordHint);
      }
      if (obj.at_key(path_[i]).get(cur) != simdjson::SUCCESS) {
        return Status::InvalidArgument("no field \"" + FieldPrefix(i + 1) +
                                       "\" in the record; set [input] text_field to the field "
                                       "that holds the text, or set [input] on_bad_record = "
                                       "\"skip\" to skip such records");
      }
    }
    if (cur.get(*text) != simdjson::SUCCESS) {
      return Status::InvalidArgument("field \"" + options_.text_field + "\" is " +
                                     std::string(JsonTypeName(cur.type())) + ", not a string" +
                                     kBadRecordHint);
    }
    return Status::Ok();
  }

  simdjson::error_code Parse(std::string_view json, simdjson::dom::element* root) {
    // simdjson reads up to SIMDJSON_PADDING bytes past the end: parse from a padded copy.
    if (padded_.size() < json.size() + simdjson::SIMDJSON_PADDING) {
      padded_.resize(json.size() + simdjson::SIMDJSON_PADDING);
    }
    if (!json.empty()) std::memcpy(padded_.data(), json.data(), json.size());
    return parser_.parse(padded_.data(), json.size(), false).get(*root);
  }

  std::string FieldPrefix(size_t components) const {
    std::string out;
    for (size_t i = 0; i < components; ++i) {
      if (i > 0) out.push_back('.');
      out += path_[i];
    }
    return out;
  }

  static constexpr const char* kBadRecordHint =
      "; fix the line, or set [input] on_bad_record = \"skip\" to skip such records";

  std::unique_ptr<DecodingStream> stream_;
  ReaderOptions options_;
  std::vector<std::string> path_;
  LineReader lines_;
  simdjson::dom::parser parser_;
  std::string padded_;
  std::string fixed_;
  std::string scratch_;
  Status status_;
  mutable ReaderStats stats_;
};

}  // namespace

StatusOr<std::unique_ptr<DocumentReader>> NewJsonlReader(std::unique_ptr<DecodingStream> stream,
                                                         InputPosition position,
                                                         const ReaderOptions& options,
                                                         size_t buffer_size) {
  TM_ASSIGN_OR_RETURN(std::vector<std::string> path, SplitFieldPath(options.text_field));
  return std::unique_ptr<DocumentReader>(std::make_unique<JsonlReader>(
      std::move(stream), std::move(position), options, std::move(path), buffer_size));
}

}  // namespace tokenmill
