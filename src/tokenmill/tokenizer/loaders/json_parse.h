// ParseJson: a JSON text into nlohmann::json, read by simdjson; ParseTokenizerJsonText also keeps
// a tokenizer.json's vocabulary and merges out of nlohmann's values.
//
// The tokenizer loaders read their files (tokenizer.json, encoder.json) as nlohmann::json, whose
// own parser costs about 60 instructions a byte: 80 M for bert-base-uncased's 700 KB, most of
// the load. ParseJson parses with simdjson (a few instructions a byte) and builds the same value:
// the same types (non-negative integers unsigned, negative ones signed, others double), the last
// of duplicate keys, the same strings. A text simdjson rejects (malformed, lone surrogate escapes,
// integers past 64 bits, nesting past 1024) is handed to nlohmann's parser, so what is accepted
// and what is discarded does not change; so is a text that may hold an integer written -0, which
// simdjson reads without its sign (nlohmann's parser: a signed 0, which the loaders refuse as an
// id, as HF's reader does).
// Thread-safety: a pure function.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace tokenmill {

// The parsed value, or a discarded value (is_discarded()) if `text` is not valid JSON.
nlohmann::json ParseJson(std::string_view text);

// An object's members, each key once with the value of its last occurrence (as ParseJson keeps).
using JsonMembers = std::vector<std::pair<std::string, nlohmann::json>>;

// The members of the object that `text` is (in the order of the file; in key order if `text` went
// to nlohmann's parser); nullopt if `text` is not valid JSON or not an object. For files that
// are one big object (GPT-2's encoder.json).
std::optional<JsonMembers> ParseJsonObjectMembers(std::string_view text);

// A BPE model's merges, each as its two tokens.
using MergePairs = std::vector<std::pair<std::string, std::string>>;

// Where a merge rule written "a b" (tokenizer.json, GPT-2's merges.txt) splits: the index of its
// one space, or npos if it has none or more than one.
size_t MergeSpace(std::string_view merge);

// A tokenizer.json for the loaders: `json` as ParseJson gives it, except for the two big members
// of "model", which are most of a file and cost more as nlohmann values (a std::map, a node per
// string) to build and to free than the rest of a load:
// - model.vocab, when it is an object, is an empty object there and its members are in `vocab`
//   (in the order of the file; in key order if `text` went to nlohmann's parser);
// - model.merges, when it is an array of which every entry is a string "a b" with exactly one
//   space or an array of two strings [a, b], is an empty array there and the entries' two tokens
//   are in `merges`, in order. Any other merges value stays in `json` whole, for the loaders to
//   name the entry they refuse.
// Of duplicate keys the last wins, as in `json`.
struct ParsedTokenizerJson {
  nlohmann::json json;
  std::optional<JsonMembers> vocab;  // set if model.vocab is an object
  std::optional<MergePairs> merges;  // set if model.merges is a well-formed array
};
ParsedTokenizerJson ParseTokenizerJsonText(std::string_view text);
// The same from a value already parsed (its model.vocab members and model.merges moved out).
ParsedTokenizerJson TakeVocab(nlohmann::json json);

}  // namespace tokenmill
