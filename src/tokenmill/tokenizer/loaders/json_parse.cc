#include "tokenmill/tokenizer/loaders/json_parse.h"

#include <simdjson.h>

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

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

// The members of an object, in order, each key once with its last value: a key seen before is
// found in an open-addressing table of member indices.
JsonMembers Members(simdjson::dom::object object) {
  size_t count = 0;  // object.size() saturates; a walk of the tape does not
  for ([[maybe_unused]] const auto field : object) ++count;
  size_t capacity = 16;
  while (capacity < 2 * count) capacity *= 2;
  std::vector<uint32_t> slots(capacity, UINT32_MAX);
  const std::hash<std::string_view> hash;
  JsonMembers out;
  out.reserve(count);
  for (const auto field : object) {
    size_t s = hash(field.key) & (capacity - 1);
    while (slots[s] != UINT32_MAX && out[slots[s]].first != field.key) s = (s + 1) & (capacity - 1);
    if (slots[s] != UINT32_MAX) {
      out[slots[s]].second = Convert(field.value);  // a later duplicate wins
      continue;
    }
    slots[s] = static_cast<uint32_t>(out.size());
    out.emplace_back(std::string(field.key), Convert(field.value));
  }
  return out;
}

// The members of a nlohmann object, moved out (in key order).
JsonMembers MoveMembers(nlohmann::json& object) {
  JsonMembers members;
  members.reserve(object.size());
  for (auto& [key, value] : object.get_ref<nlohmann::json::object_t&>()) {
    members.emplace_back(key, std::move(value));
  }
  return members;
}

// Convert of an object, except that the values of `key` go through divert(value) (of duplicate
// keys the last wins, as in Convert).
template <typename Divert>
nlohmann::json ConvertObject(simdjson::dom::object object, std::string_view key, Divert divert) {
  nlohmann::json out = nlohmann::json::object();
  for (const auto field : object) {
    out[std::string(field.key)] = field.key == key ? divert(field.value) : Convert(field.value);
  }
  return out;
}

// Convert for the "model" object of a tokenizer.json: model.vocab, if an object, goes to *vocab.
nlohmann::json ConvertModel(simdjson::dom::object model, std::optional<JsonMembers>* vocab) {
  vocab->reset();  // of duplicate "model" keys, the last one's vocabulary
  return ConvertObject(model, "vocab", [&](simdjson::dom::element value) {
    if (value.type() != simdjson::dom::element_type::OBJECT) {
      vocab->reset();
      return Convert(value);
    }
    *vocab = Members(value.get_object().value_unsafe());
    return nlohmann::json(nlohmann::json::object());
  });
}

}  // namespace

ParsedTokenizerJson ParseTokenizerJsonText(std::string_view text) {
  simdjson::dom::parser parser;
  const simdjson::padded_string padded(text);
  simdjson::dom::element root;
  if (parser.parse(padded).get(root) != simdjson::SUCCESS ||
      root.type() != simdjson::dom::element_type::OBJECT) {
    return TakeVocab(ParseJson(text));
  }
  ParsedTokenizerJson out;
  out.json =
      ConvertObject(root.get_object().value_unsafe(), "model", [&](simdjson::dom::element value) {
        if (value.type() != simdjson::dom::element_type::OBJECT) {
          out.vocab.reset();
          return Convert(value);
        }
        return ConvertModel(value.get_object().value_unsafe(), &out.vocab);
      });
  return out;
}

std::optional<JsonMembers> ParseJsonObjectMembers(std::string_view text) {
  simdjson::dom::parser parser;
  const simdjson::padded_string padded(text);
  simdjson::dom::element root;
  if (parser.parse(padded).get(root) == simdjson::SUCCESS) {
    if (root.type() != simdjson::dom::element_type::OBJECT) return std::nullopt;
    return Members(root.get_object().value_unsafe());
  }
  nlohmann::json j = ParseJson(text);
  if (j.is_discarded() || !j.is_object()) return std::nullopt;
  return MoveMembers(j);
}

ParsedTokenizerJson TakeVocab(nlohmann::json json) {
  ParsedTokenizerJson out;
  out.json = std::move(json);
  if (!out.json.is_object()) return out;
  const auto model = out.json.find("model");
  if (model == out.json.end() || !model->is_object()) return out;
  const auto vocab = model->find("vocab");
  if (vocab == model->end() || !vocab->is_object()) return out;
  out.vocab = MoveMembers(*vocab);
  *vocab = nlohmann::json::object();
  return out;
}

nlohmann::json ParseJson(std::string_view text) {
  simdjson::dom::parser parser;
  const simdjson::padded_string padded(text);
  simdjson::dom::element root;
  if (parser.parse(padded).get(root) == simdjson::SUCCESS) return Convert(root);
  return nlohmann::json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
}

}  // namespace tokenmill
