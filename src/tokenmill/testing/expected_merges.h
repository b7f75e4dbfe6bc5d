// ExpectedMerges: the pairs ParseTokenizerJsonText promises for a model.merges value, derived from
// nlohmann's parse of the same text (every entry a string with exactly one space, or an array of
// two strings; otherwise nullopt). The oracle of json_parse_test and json_parse_fuzz.
//
// Test-only code.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "tokenmill/tokenizer/loaders/json_parse.h"

namespace tokenmill::testing {

inline std::optional<MergePairs> ExpectedMerges(const nlohmann::json& merges) {
  if (!merges.is_array()) return std::nullopt;
  MergePairs out;
  for (const nlohmann::json& e : merges) {
    if (e.is_array() && e.size() == 2 && e[0].is_string() && e[1].is_string()) {
      out.emplace_back(e[0].get<std::string>(), e[1].get<std::string>());
      continue;
    }
    if (!e.is_string()) return std::nullopt;
    const std::string s = e.get<std::string>();
    const size_t space = MergeSpace(s);  // its own test: MergeSpaceTest
    if (space == std::string::npos) return std::nullopt;
    out.emplace_back(s.substr(0, space), s.substr(space + 1));
  }
  return out;
}

}  // namespace tokenmill::testing
