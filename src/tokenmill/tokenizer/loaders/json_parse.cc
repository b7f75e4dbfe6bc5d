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

// A merge "a b": its two tokens, if the string has exactly one space.
bool SplitMerge(std::string_view s, MergePairs* out) {
  const size_t space = MergeSpace(s);
  if (space == std::string_view::npos) return false;
  out->emplace_back(std::string(s.substr(0, space)), std::string(s.substr(space + 1)));
  return true;
}

// model.merges as pairs, if it is an array of well-formed entries (see ParsedTokenizerJson).
std::optional<MergePairs> MergesOf(simdjson::dom::element value) {
  if (value.type() != simdjson::dom::element_type::ARRAY) return std::nullopt;
  const simdjson::dom::array array = value.get_array().value_unsafe();
  MergePairs merges;
  merges.reserve(array.size());
  for (const auto e : array) {
    if (e.type() == simdjson::dom::element_type::STRING) {
      if (!SplitMerge(e.get_string().value_unsafe(), &merges)) return std::nullopt;
      continue;
    }
    if (e.type() != simdjson::dom::element_type::ARRAY) return std::nullopt;
    const simdjson::dom::array pair = e.get_array().value_unsafe();
    std::string_view parts[2];
    size_t n = 0;
    for (const auto part : pair) {
      if (n == 2 || part.type() != simdjson::dom::element_type::STRING) return std::nullopt;
      parts[n++] = part.get_string().value_unsafe();
    }
    if (n != 2) return std::nullopt;
    merges.emplace_back(std::string(parts[0]), std::string(parts[1]));
  }
  return merges;
}

// The same on a parsed value (the nlohmann path); the strings are moved out of it.
std::optional<MergePairs> MergesOf(nlohmann::json& value) {
  if (!value.is_array()) return std::nullopt;
  for (const nlohmann::json& e : value) {  // all checked first: nothing is moved from a refused one
    const bool pair = e.is_array() && e.size() == 2 && e[0].is_string() && e[1].is_string();
    const bool merge =
        e.is_string() && MergeSpace(e.get_ref<const std::string&>()) != std::string_view::npos;
    if (!merge && !pair) return std::nullopt;
  }
  MergePairs merges;
  merges.reserve(value.size());
  for (nlohmann::json& e : value) {
    if (e.is_string()) {
      SplitMerge(e.get_ref<const std::string&>(), &merges);
    } else {
      merges.emplace_back(std::move(e[0].get_ref<std::string&>()),
                          std::move(e[1].get_ref<std::string&>()));
    }
  }
  return merges;
}

// Convert for the "model" object of a tokenizer.json: model.vocab, if an object, goes to *vocab,
// model.merges, if well-formed, to *merges (the last of duplicate keys).
nlohmann::json ConvertModel(simdjson::dom::object model, std::optional<JsonMembers>* vocab,
                            std::optional<MergePairs>* merges) {
  vocab->reset();  // of duplicate "model" keys, the last one's vocabulary and merges
  merges->reset();
  nlohmann::json out = nlohmann::json::object();
  for (const auto field : model) {
    nlohmann::json& slot = out[std::string(field.key)];
    if (field.key == "vocab" && field.value.type() == simdjson::dom::element_type::OBJECT) {
      *vocab = Members(field.value.get_object().value_unsafe());
      slot = nlohmann::json::object();
    } else if (field.key == "merges" && (*merges = MergesOf(field.value)).has_value()) {
      slot = nlohmann::json::array();
    } else {
      if (field.key == "vocab") vocab->reset();
      slot = Convert(field.value);
    }
  }
  return out;
}

// Whether the text may hold an integer written -0: "-0" where a value starts (at the start, or
// after '[', ':' or ',', spaces between) and not followed by a digit, '.', 'e' or 'E'. simdjson
// keeps no sign for an integer zero, where nlohmann's parser gives a signed 0 (and HF's reader
// the float -0.0), so such a text goes to nlohmann's parser. The same bytes inside a string only
// cost that detour.
bool MayHoldIntegerMinusZero(std::string_view text) {
  constexpr std::string_view kBom = "\xEF\xBB\xBF";
  for (size_t at = text.find("-0"); at != std::string_view::npos; at = text.find("-0", at + 1)) {
    if (at + 2 < text.size()) {
      const char c = text[at + 2];
      if ((c >= '0' && c <= '9') || c == '.' || c == 'e' || c == 'E') continue;
    }
    size_t p = at;
    while (p > 0 && (text[p - 1] == ' ' || text[p - 1] == '\t' || text[p - 1] == '\n' ||
                     text[p - 1] == '\r')) {
      --p;
    }
    if (p == 0 || (p == kBom.size() && text.starts_with(kBom))) return true;
    const char before = text[p - 1];
    if (before == '[' || before == ':' || before == ',') return true;
  }
  return false;
}

// nlohmann's parse of a text simdjson refused (or that may hold an integer -0); discarded if
// it is not JSON.
nlohmann::json ParseWithNlohmann(std::string_view text) {
  return nlohmann::json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
}

// simdjson's parse of `text`, false if it refuses it or the text may hold an integer -0 (checked
// first: such a text is not parsed twice).
bool ParseWithSimdjson(simdjson::dom::parser& parser, const simdjson::padded_string& padded,
                       std::string_view text, simdjson::dom::element* root) {
  return !MayHoldIntegerMinusZero(text) && parser.parse(padded).get(*root) == simdjson::SUCCESS;
}

}  // namespace

size_t MergeSpace(std::string_view merge) {
  const size_t space = merge.find(' ');
  if (space == std::string_view::npos || merge.find(' ', space + 1) != std::string_view::npos) {
    return std::string_view::npos;
  }
  return space;
}

ParsedTokenizerJson ParseTokenizerJsonText(std::string_view text) {
  simdjson::dom::parser parser;
  const simdjson::padded_string padded(text);
  simdjson::dom::element root;
  if (!ParseWithSimdjson(parser, padded, text, &root) ||
      root.type() != simdjson::dom::element_type::OBJECT) {
    return TakeVocab(ParseWithNlohmann(text));
  }
  ParsedTokenizerJson out;
  out.json =
      ConvertObject(root.get_object().value_unsafe(), "model", [&](simdjson::dom::element value) {
        if (value.type() != simdjson::dom::element_type::OBJECT) {
          out.vocab.reset();
          out.merges.reset();
          return Convert(value);
        }
        return ConvertModel(value.get_object().value_unsafe(), &out.vocab, &out.merges);
      });
  return out;
}

std::optional<JsonMembers> ParseJsonObjectMembers(std::string_view text) {
  simdjson::dom::parser parser;
  const simdjson::padded_string padded(text);
  simdjson::dom::element root;
  if (ParseWithSimdjson(parser, padded, text, &root)) {
    if (root.type() != simdjson::dom::element_type::OBJECT) return std::nullopt;
    return Members(root.get_object().value_unsafe());
  }
  nlohmann::json j = ParseWithNlohmann(text);
  if (j.is_discarded() || !j.is_object()) return std::nullopt;
  return MoveMembers(j);
}

ParsedTokenizerJson TakeVocab(nlohmann::json json) {
  ParsedTokenizerJson out;
  out.json = std::move(json);
  if (!out.json.is_object()) return out;
  const auto model = out.json.find("model");
  if (model == out.json.end() || !model->is_object()) return out;
  if (const auto merges = model->find("merges"); merges != model->end()) {
    out.merges = MergesOf(*merges);
    if (out.merges.has_value()) *merges = nlohmann::json::array();
  }
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
  if (ParseWithSimdjson(parser, padded, text, &root)) return Convert(root);
  return ParseWithNlohmann(text);
}

}  // namespace tokenmill
