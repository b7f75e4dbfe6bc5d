#include "tokenmill/io/json_record.h"

#include <cstring>

#include "tokenmill/io/json_scan.h"
#include "tokenmill/io/jsonl_text.h"

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

constexpr const char* kBadRecordHint =
    "; fix the record, or set [input] on_bad_record = \"skip\" to skip such records";

Status LoneSurrogateError() {
  return Status::DataLoss(
      "a JSON string holds a lone UTF-16 surrogate escape (such as \\ud800), which is not "
      "Unicode text; fix the input, or set strict_utf8 = false to replace it with U+FFFD");
}

}  // namespace

Status JsonRecordParser::NotAnObject(size_t component, std::string_view type) const {
  if (component == 0) {
    return Status::InvalidArgument("the record holds " + std::string(type) + ", not a JSON object" +
                                   kBadRecordHint);
  }
  return Status::InvalidArgument("field \"" + FieldPrefix(component) + "\" is " +
                                 std::string(type) + ", not an object" + kBadRecordHint);
}

Status JsonRecordParser::NoField(size_t component) const {
  return Status::InvalidArgument("no field \"" + FieldPrefix(component + 1) +
                                 "\" in the record; set text_field to the field that holds the "
                                 "text, or set [input] on_bad_record = \"skip\"");
}

Status JsonRecordParser::NotAString(std::string_view type) const {
  return Status::InvalidArgument("field \"" + options_.text_field + "\" is " + std::string(type) +
                                 ", not a string" + kBadRecordHint);
}

StatusOr<JsonRecordParser> JsonRecordParser::Create(const ReaderOptions& options) {
  TM_ASSIGN_OR_RETURN(std::vector<std::string> path, SplitFieldPath(options.text_field));
  return JsonRecordParser(options, std::move(path));
}

Status JsonRecordParser::Parse(std::string_view line, std::string_view* text, ReaderStats* stats) {
  simdjson::dom::element root;
  simdjson::error_code err = ParsePadded(line, &root);
  if (err == simdjson::STRING_ERROR) {
    // The JSON text may be valid with lone surrogate escapes ("\ud800"), which have no UTF-8
    // form: they become U+FFFD.
    size_t replaced = 0;
    ReplaceLoneSurrogateEscapes(line, &fixed_, &replaced);
    if (replaced > 0) {
      err = ParsePadded(fixed_, &root);
      if (err == simdjson::SUCCESS) {
        if (options_.strict_utf8) {
          return LoneSurrogateError();
        }
        stats->invalid_utf8_bytes += replaced;
      }
    }
  }
  if (err != simdjson::SUCCESS) {
    return Status::InvalidArgument(std::string("malformed JSON (") + simdjson::error_message(err) +
                                   ")" + kBadRecordHint);
  }
  simdjson::dom::element cur = root;
  for (size_t i = 0; i < path_.size(); ++i) {
    simdjson::dom::object obj;
    if (cur.get(obj) != simdjson::SUCCESS) return NotAnObject(i, JsonTypeName(cur.type()));
    if (obj.at_key(path_[i]).get(cur) != simdjson::SUCCESS) return NoField(i);
  }
  if (cur.get(*text) != simdjson::SUCCESS) return NotAString(JsonTypeName(cur.type()));
  return Status::Ok();
}

Status JsonRecordParser::ParseInPlace(std::string* record, ReaderStats* stats) {
  if (record->size() >= in_place_from_) return ParseHuge(record, stats);
  std::string_view text;
  TM_RETURN_IF_ERROR(Parse(*record, &text, stats));
  record->assign(text);  // text is in the parser's buffers, never in *record
  return Status::Ok();
}

Status JsonRecordParser::ParseHuge(std::string* record, ReaderStats* stats) {
  StatusOr<JsonFieldMatch> scanned = ScanJsonField(*record, path_);
  if (!scanned.ok()) {
    return Status::InvalidArgument(std::string(scanned.status().message()) + kBadRecordHint);
  }
  const JsonFieldMatch& m = *scanned;
  if (m.lone_surrogates > 0) {
    if (options_.strict_utf8) {
      return LoneSurrogateError();
    }
    stats->invalid_utf8_bytes += m.lone_surrogates;
  }
  switch (m.kind) {
    case JsonFieldMatch::Kind::kString:
      UnescapeJsonStringInPlace(record, m.begin, m.end);
      return Status::Ok();
    case JsonFieldMatch::Kind::kNotObject:
      return NotAnObject(m.component, m.type);
    case JsonFieldMatch::Kind::kMissing:
      return NoField(m.component);
    case JsonFieldMatch::Kind::kNotString:
      return NotAString(m.type);
  }
  return Status::Internal("unknown JSON field match");
}

simdjson::error_code JsonRecordParser::ParsePadded(std::string_view json,
                                                   simdjson::dom::element* root) {
  // simdjson reads up to SIMDJSON_PADDING bytes past the end: parse from a padded copy.
  if (padded_.size() < json.size() + simdjson::SIMDJSON_PADDING) {
    padded_.resize(json.size() + simdjson::SIMDJSON_PADDING);
  }
  if (!json.empty()) std::memcpy(padded_.data(), json.data(), json.size());
  return parser_.parse(padded_.data(), json.size(), false).get(*root);
}

std::string JsonRecordParser::FieldPrefix(size_t components) const {
  std::string out;
  for (size_t i = 0; i < components; ++i) {
    if (i > 0) out.push_back('.');
    out += path_[i];
  }
  return out;
}

}  // namespace tokenmill
