// JsonFieldScan: the document text of one huge JSON record, found and unescaped in place.
//
// simdjson (json_record.h) parses a record into its own buffers: a record of 200 MB would be in
// memory three times (the line, simdjson's copy of the string, the document). For records past
// JsonRecordParser's in-place threshold this scanner validates the record whole (RFC 8259: the
// grammar of every value, string escapes, no control characters in strings, nesting at most
// kMaxJsonDepth as simdjson's default) and finds the string at the field path (the first of
// duplicate keys, as simdjson's at_key). UnescapeJsonStringInPlace then writes that string's
// text over the front of the record's own buffer. Numbers are checked against the grammar only
// (simdjson also rejects numbers no double holds, such as 1e400). Lone UTF-16 surrogate escapes
// become U+FFFD, as json_record.h does for simdjson. The record must be valid UTF-8 (the readers
// clean lines first).
// Thread-safety: pure functions.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "tokenmill/base/status.h"

namespace tokenmill {

inline constexpr size_t kMaxJsonDepth = 1024;

struct JsonFieldMatch {
  enum class Kind {
    kString,     // the value at the path is a string: its bytes (escaped) are [begin, end)
    kNotObject,  // the value at path[0..component) is `type`, not an object (0: the record)
    kMissing,    // the object at path[0..component) has no key path[component]
    kNotString,  // the value at the path is `type`, not a string
  };
  Kind kind = Kind::kMissing;
  size_t component = 0;
  std::string_view type;  // "an array", "a number"... for kNotObject and kNotString
  size_t begin = 0;
  size_t end = 0;
  size_t lone_surrogates = 0;  // lone surrogate escapes in the whole record (become U+FFFD)
};

// Validates `json` whole and finds the value at `path`. InvalidArgument("malformed JSON (...)")
// naming the byte offset if it is not one valid JSON value (with whitespace around).
StatusOr<JsonFieldMatch> ScanJsonField(std::string_view json, const std::vector<std::string>& path);

// Replaces *buffer with the text of the JSON string whose escaped bytes are (*buffer)[begin, end)
// (as ScanJsonField found and validated them), written from byte 0 on: the text of a JSON string
// is never longer than its escaped form, so the bytes are written before they are read.
void UnescapeJsonStringInPlace(std::string* buffer, size_t begin, size_t end);

}  // namespace tokenmill
