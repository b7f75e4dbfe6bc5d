// Fuzz target: the tokenizer loaders' JSON reading (tokenizer/loaders/json_parse.h) against
// nlohmann's own parser, on arbitrary text. Aborts if ParseJson gives another value or other
// types than nlohmann's parser, if ParseTokenizerJsonText's value (model.vocab and a well-formed
// model.merges emptied), its vocabulary's members or its merges differ from nlohmann's, or if
// ParseJsonObjectMembers differs.

#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include "tokenmill/testing/expected_merges.h"
#include "tokenmill/tokenizer/loaders/json_parse.h"

namespace tokenmill {
namespace {

using nlohmann::json;

// The same value with the same types all the way down (json's operator== equates 1 and 1.0).
bool SameTyped(const json& a, const json& b) {
  if (a.type() != b.type() || a != b) return false;
  if (a.is_object()) {
    for (auto it = a.begin(); it != a.end(); ++it) {
      if (!SameTyped(*it, b.at(it.key()))) return false;
    }
  } else if (a.is_array()) {
    for (size_t i = 0; i < a.size(); ++i) {
      if (!SameTyped(a[i], b[i])) return false;
    }
  }
  return true;
}

// The members as an object: each key once, the value nlohmann's parser kept.
bool SameMembers(const JsonMembers& members, const json& object) {
  json built = json::object();
  for (const auto& [key, value] : members) {
    if (built.contains(key)) return false;
    built[key] = value;
  }
  return SameTyped(built, object);
}

int FuzzJsonParse(const uint8_t* data, size_t size) {
  if (size > 4096) return 0;  // nesting that deep says nothing more; SameTyped recurses
  const std::string text(reinterpret_cast<const char*>(data), size);
  json want = json::parse(text, nullptr, /*allow_exceptions=*/false);
  const json got = ParseJson(text);
  if (got.is_discarded() != want.is_discarded()) std::abort();
  if (want.is_discarded()) {
    if (ParseJsonObjectMembers(text).has_value()) std::abort();
    return 0;
  }
  if (!SameTyped(got, want)) std::abort();
  const std::optional<JsonMembers> members = ParseJsonObjectMembers(text);
  if (members.has_value() != want.is_object()) std::abort();
  if (members.has_value() && !SameMembers(*members, want)) std::abort();
  const ParsedTokenizerJson parsed = ParseTokenizerJsonText(text);
  const bool object_vocab = want.is_object() && want.contains("model") &&
                            want["model"].is_object() && want["model"].contains("vocab") &&
                            want["model"]["vocab"].is_object();
  if (parsed.vocab.has_value() != object_vocab) std::abort();
  if (object_vocab) {
    if (!SameMembers(*parsed.vocab, want["model"]["vocab"])) std::abort();
    want["model"]["vocab"] = json::object();
  }
  const bool has_merges = want.is_object() && want.contains("model") && want["model"].is_object() &&
                          want["model"].contains("merges");
  const std::optional<MergePairs> merges =
      has_merges ? testing::ExpectedMerges(want["model"]["merges"]) : std::nullopt;
  if (parsed.merges != merges) std::abort();
  if (merges.has_value()) want["model"]["merges"] = json::array();
  if (!SameTyped(parsed.json, want)) std::abort();
  return 0;
}

}  // namespace
}  // namespace tokenmill

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return tokenmill::FuzzJsonParse(data, size);
}
