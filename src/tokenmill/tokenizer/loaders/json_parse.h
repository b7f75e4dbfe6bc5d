// ParseJson: a JSON text into nlohmann::json, read by simdjson.
//
// The tokenizer loaders read their files (tokenizer.json, encoder.json) as nlohmann::json, whose
// own parser costs about 60 instructions a byte: 80 M for bert-base-uncased's 700 KB, most of
// the load. ParseJson parses with simdjson (a few instructions a byte) and builds the same value:
// the same types (non-negative integers unsigned, negative ones signed, others double), the last
// of duplicate keys, the same strings. A text simdjson rejects (malformed, lone surrogate escapes,
// integers past 64 bits, nesting past 1024) is handed to nlohmann's parser, so what is accepted
// and what is discarded does not change.
// Thread-safety: a pure function.
#pragma once

#include <nlohmann/json.hpp>
#include <string_view>

namespace tokenmill {

// The parsed value, or a discarded value (is_discarded()) if `text` is not valid JSON.
nlohmann::json ParseJson(std::string_view text);

}  // namespace tokenmill
