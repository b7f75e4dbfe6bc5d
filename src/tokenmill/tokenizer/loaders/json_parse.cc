#include "tokenmill/tokenizer/loaders/json_parse.h"

#include <simdjson.h>

#include <algorithm>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace tokenmill {
namespace {

nlohmann::json Convert(simdjson::dom::element e) {
  switch (e.type()) {
    case simdjson::dom::element_type::OBJECT: {
      // The fields sorted by key (stably: of duplicates, the last comes last and wins), then
      // inserted at the end of the map, each in constant time: a vocabulary of 100,000 entries
      // costs one sort, not 100,000 searches and rebalancings of the tree.
      const simdjson::dom::object object = e.get_object().value_unsafe();
      std::vector<std::pair<std::string_view, simdjson::dom::element>> fields;
      for (const auto field : object) fields.emplace_back(field.key, field.value);
      std::stable_sort(fields.begin(), fields.end(),
                       [](const auto& a, const auto& b) { return a.first < b.first; });
      nlohmann::json out = nlohmann::json::object();
      auto& map = out.get_ref<nlohmann::json::object_t&>();
      for (size_t i = 0; i < fields.size(); ++i) {
        if (i + 1 < fields.size() && fields[i + 1].first == fields[i].first) continue;
        map.emplace_hint(map.end(), std::string(fields[i].first), Convert(fields[i].second));
      }
      return out;
    }
    case simdjson::dom::element_type::ARRAY: {
      nlohmann::json out = nlohmann::json::array();
      const simdjson::dom::array array = e.get_array().value_unsafe();
      out.get_ref<nlohmann::json::array_t&>().reserve(array.size());
      for (const auto v : array) out.push_back(Convert(v));
      return out;
    }
    case simdjson::dom::element_type::STRING:
      return std::string(e.get_string().value_unsafe());
    case simdjson::dom::element_type::INT64: {
      const int64_t v = e.get_int64().value_unsafe();
      if (v >= 0) return static_cast<uint64_t>(v);  // nlohmann: number_unsigned
      return v;
    }
    case simdjson::dom::element_type::UINT64:
      return e.get_uint64().value_unsafe();
    case simdjson::dom::element_type::DOUBLE:
      return e.get_double().value_unsafe();
    case simdjson::dom::element_type::BOOL:
      return e.get_bool().value_unsafe();
    case simdjson::dom::element_type::NULL_VALUE:
      return nullptr;
  }
  return nullptr;
}

}  // namespace

nlohmann::json ParseJson(std::string_view text) {
  simdjson::dom::parser parser;
  const simdjson::padded_string padded(text);
  simdjson::dom::element root;
  if (parser.parse(padded).get(root) == simdjson::SUCCESS) return Convert(root);
  return nlohmann::json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
}

}  // namespace tokenmill
