#include "tokenmill/tokenizer/loaders/json_parse.h"

#include <simdjson.h>

#include <algorithm>
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
  JsonMembers out;
  size_t capacity = 16;
  while (capacity < 2 * object.size()) capacity *= 2;
  std::vector<uint32_t> slots(capacity, UINT32_MAX);
  const std::hash<std::string_view> hash;
  for (const auto field : object) {
    for (size_t s = hash(field.key) & (capacity - 1);; s = (s + 1) & (capacity - 1)) {
      if (slots[s] == UINT32_MAX) {
        if (out.size() * 2 >= capacity) {  // object.size() saturates: grow and insert again
          capacity *= 2;
          std::fill(slots.begin(), slots.end(), UINT32_MAX);
          slots.resize(capacity, UINT32_MAX);
          for (uint32_t i = 0; i < out.size(); ++i) {
            size_t t = hash(out[i].first) & (capacity - 1);
            while (slots[t] != UINT32_MAX) t = (t + 1) & (capacity - 1);
            slots[t] = i;
          }
          s = hash(field.key) & (capacity - 1);
          while (slots[s] != UINT32_MAX) s = (s + 1) & (capacity - 1);
        }
        slots[s] = static_cast<uint32_t>(out.size());
        out.emplace_back(std::string(field.key), Convert(field.value));
        break;
      }
      if (out[slots[s]].first == field.key) {
        out[slots[s]].second = Convert(field.value);  // a later duplicate wins
        break;
      }
    }
  }
  return out;
}

// Convert for the "model" object of a tokenizer.json: model.vocab, if an object, goes to *vocab.
nlohmann::json ConvertModel(simdjson::dom::object model, std::optional<JsonMembers>* vocab) {
  vocab->reset();  // of duplicate "model" keys, the last one's vocabulary
  nlohmann::json out = nlohmann::json::object();
  for (const auto field : model) {
    if (field.key == "vocab" && field.value.type() == simdjson::dom::element_type::OBJECT) {
      *vocab = Members(field.value.get_object().value_unsafe());
      out["vocab"] = nlohmann::json::object();
    } else {
      if (field.key == "vocab") vocab->reset();
      out[std::string(field.key)] = Convert(field.value);
    }
  }
  return out;
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
  out.json = nlohmann::json::object();
  const simdjson::dom::object object = root.get_object().value_unsafe();
  for (const auto field : object) {
    if (field.key == "model" && field.value.type() == simdjson::dom::element_type::OBJECT) {
      out.json["model"] = ConvertModel(field.value.get_object().value_unsafe(), &out.vocab);
    } else {
      if (field.key == "model") out.vocab.reset();
      out.json[std::string(field.key)] = Convert(field.value);
    }
  }
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
  JsonMembers members;
  members.reserve(j.size());
  for (auto& [key, value] : j.get_ref<nlohmann::json::object_t&>()) {
    members.emplace_back(key, std::move(value));
  }
  return members;
}

ParsedTokenizerJson TakeVocab(nlohmann::json json) {
  ParsedTokenizerJson out;
  out.json = std::move(json);
  if (!out.json.is_object()) return out;
  const auto model = out.json.find("model");
  if (model == out.json.end() || !model->is_object()) return out;
  const auto vocab = model->find("vocab");
  if (vocab == model->end() || !vocab->is_object()) return out;
  JsonMembers& members = out.vocab.emplace();
  members.reserve(vocab->size());
  for (auto& [key, value] : vocab->get_ref<nlohmann::json::object_t&>()) {
    members.emplace_back(key, std::move(value));
  }
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
