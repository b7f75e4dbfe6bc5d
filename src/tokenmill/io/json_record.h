// JsonRecordParser: finds the document text in one JSON record (a JSONL line or an element of
// a JSON array): the string at a dotted field path, with simdjson. Lone UTF-16 surrogate escapes
// ("\ud800"), which have no UTF-8 form, become U+FFFD (or, with strict_utf8, an error).
// Thread-safety: a parser is used by one thread.
#pragma once

#include <simdjson.h>

#include <string>
#include <string_view>
#include <vector>

#include "tokenmill/base/status.h"
#include "tokenmill/io/document_reader.h"

namespace tokenmill {

class JsonRecordParser {
 public:
  // InvalidArgument if options.text_field is not a valid dotted path.
  static StatusOr<JsonRecordParser> Create(const ReaderOptions& options);

  // Parses one record; *text points into the parser's buffers (valid until the next call).
  // InvalidArgument for a bad record (malformed, not an object, field missing or not a string),
  // with a message that ends in how to fix or skip it; DataLoss for a lone surrogate under
  // strict_utf8. Adds replaced surrogates to stats->invalid_utf8_bytes.
  Status Parse(std::string_view record, std::string_view* text, ReaderStats* stats);

  // Like Parse, for a record held in *record, which it replaces with the document text. A record
  // of in_place_from() bytes or more is validated and unescaped in place (io/json_scan.h), so a
  // huge record is in memory once; shorter ones go through simdjson. On error *record is
  // unspecified.
  Status ParseInPlace(std::string* record, ReaderStats* stats);

  static constexpr size_t kInPlaceFrom = size_t{16} << 20;
  size_t in_place_from() const { return in_place_from_; }
  // Tests: scan smaller records in place.
  void set_in_place_from_for_testing(size_t bytes) { in_place_from_ = bytes; }

 private:
  JsonRecordParser(const ReaderOptions& options, std::vector<std::string> path)
      : options_(options), path_(std::move(path)) {}
  simdjson::error_code ParsePadded(std::string_view json, simdjson::dom::element* root);
  std::string FieldPrefix(size_t components) const;
  // The errors of a record whose text field is not there, for both parsers: the value at
  // path component `component` (0: the record) is of `type`, not an object; it has no field
  // path_[component]; the field is of `type`, not a string.
  Status NotAnObject(size_t component, std::string_view type) const;
  Status NoField(size_t component) const;
  Status NotAString(std::string_view type) const;
  Status ParseHuge(std::string* record, ReaderStats* stats);

  ReaderOptions options_;
  std::vector<std::string> path_;
  simdjson::dom::parser parser_;
  std::string padded_;
  std::string fixed_;
  size_t in_place_from_ = kInPlaceFrom;
};

}  // namespace tokenmill
