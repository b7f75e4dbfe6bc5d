#include "tokenmill/tokenizer/loaders/json_parse.h"

#include <simdjson.h>

#include <string>

namespace tokenmill {
namespace {

nlohmann::json Convert(simdjson::dom::element e) {
  switch (e.type()) {
    case simdjson::dom::element_type::OBJECT: {
      nlohmann::json out = nlohmann::json::object();
      const simdjson::dom::object object = e.get_object().value_unsafe();
      for (const auto field : object) {
        out[std::string(field.key)] = Convert(field.value);  // a later duplicate wins
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
