#include "tokenmill/tokenizer/loaders/json_parse.h"

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <iterator>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "tokenmill/testing/expected_merges.h"

namespace tokenmill {
namespace {

using nlohmann::json;

// The same value as nlohmann's own parser, with the same types all the way down.
void ExpectSameAsNlohmann(const std::string& text) {
  const json want = json::parse(text, nullptr, /*allow_exceptions=*/false);
  const json got = ParseJson(text);
  ASSERT_EQ(got.is_discarded(), want.is_discarded()) << text;
  if (want.is_discarded()) return;
  EXPECT_EQ(got, want) << text;
  std::vector<std::pair<const json*, const json*>> stack = {{&got, &want}};
  while (!stack.empty()) {
    const auto [a, b] = stack.back();
    stack.pop_back();
    ASSERT_EQ(a->type(), b->type()) << text << ": " << a->dump() << " vs " << b->dump();
    if (a->is_object()) {
      for (auto it = a->begin(); it != a->end(); ++it) stack.push_back({&*it, &b->at(it.key())});
    } else if (a->is_array()) {
      for (size_t i = 0; i < a->size(); ++i) stack.push_back({&(*a)[i], &(*b)[i]});
    }
  }
}

TEST(ParseJsonTest, SameValuesAndTypesAsNlohmann) {
  for (
      const std::string text :
      {R"({"a": 1, "b": -2, "c": 3.5, "d": 1e3, "e": 18446744073709551615, "f": -9223372036854775808})",
       R"({"s": "x\u00e9\ud83d\ude00\n\"", "t": true, "n": null, "z": [], "o": {}})",
       R"({"dup": 1, "dup": 2, "k": {"dup": "a", "dup": "b"}})",
       R"([1, [2, [3, [4]]], "x", -0.0, 0, 1.7976931348623157e308])", R"("top")", R"(12)",
       R"(  {"a" : [ 1 , 2 ]}  )", "\xEF\xBB\xBF{\"bom\": 1}",
       R"({"big": 123456789012345678901234567890})", R"({"lone": "\ud800"})", R"({"bad": 01})",
       R"({"a": 1,})", R"({"a": 1} x)", "", "[", R"({"a": "\x"})", "{\"ctl\": \"a\tb\"}",
       R"({"nul": "a\u0000b"})"}) {
    ExpectSameAsNlohmann(text);
  }
}

// An integer written -0 (simdjson keeps no sign for it) is read by nlohmann's parser: a signed 0,
// as nlohmann's own parse gives. The same bytes inside strings change nothing.
TEST(ParseJsonTest, AnIntegerMinusZeroKeepsItsSign) {
  for (const std::string text : {"-0", " -0 ", "\xEF\xBB\xBF-0", "[-0]", "[1,-0]", "[1, \n -0 ]",
                                 R"({"a":-0})", R"({"a": -0, "b": "x"})",
                                 R"({"model": {"vocab": {"a": -0}}})", R"({"s": "-0", "n": -0})"}) {
    ExpectSameAsNlohmann(text);
    const json got = ParseJson(text);
    const json* zero = &got;
    while (zero->is_array()) zero = &zero->back();
    if (zero->is_object()) zero = zero->contains("n") ? &(*zero)["n"] : &zero->front();
    if (zero->is_object()) zero = &(*zero)["vocab"]["a"];
    EXPECT_TRUE(zero->is_number_integer() && !zero->is_number_unsigned()) << text;
  }
  const ParsedTokenizerJson p = ParseTokenizerJsonText(R"({"model": {"vocab": {"a": -0}}})");
  ASSERT_TRUE(p.vocab.has_value());
  EXPECT_FALSE((*p.vocab)[0].second.is_number_unsigned());
  // -0 as the start of other numbers, or inside strings: simdjson's own reading, the same values.
  for (const std::string text :
       {"-0.0", "[-0e1]", "[-0E1]", R"({"s": "a-0", "t": "-0"})", R"(["x -0", "[-0"])"}) {
    ExpectSameAsNlohmann(text);
  }
  EXPECT_TRUE(std::signbit(ParseJson("-0.0").get<double>()));
}

TEST(ParseJsonTest, RealTokenizerFiles) {
  for (const char* name : {"bert-base-uncased/tokenizer.json", "bert-base-chinese/tokenizer.json",
                           "gpt2/tokenizer.json", "gpt2/encoder.json"}) {
    std::ifstream in(std::string(TOKENMILL_SOURCE_DIR "/data/vocab/") + name, std::ios::binary);
    ASSERT_TRUE(in.good()) << name;
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    SCOPED_TRACE(name);
    ExpectSameAsNlohmann(text);
  }
}

TEST(ParseJsonTest, RandomDocuments) {
  std::mt19937 rng(11);
  const std::vector<std::string> atoms = {"0",    "-1",   "7",     "2.5",         "-3e-2", "true",
                                          "null", "\"\"", "\"a\"", "\"\\u4e2d\"", "1E+2"};
  for (int i = 0; i < 2000; ++i) {
    std::string text;
    int depth = 0;
    const int n = 1 + static_cast<int>(rng() % 30);
    std::vector<char> open;
    for (int k = 0; k < n; ++k) {
      const uint32_t r = rng() % 4;
      if (r == 0 && open.size() < 6) {
        const bool obj = rng() % 2 == 0;
        text += obj ? "{" : "[";
        open.push_back(obj ? '}' : ']');
        if (obj) text += "\"k" + std::to_string(rng() % 3) + "\":";
        ++depth;
      } else if (r == 1 && !open.empty()) {
        text += atoms[rng() % atoms.size()];
        text += open.back();
        open.pop_back();
      } else {
        text += atoms[rng() % atoms.size()];
        if (!open.empty()) {
          text += ",";
          if (open.back() == '}') text += "\"k" + std::to_string(rng() % 3) + "\":";
        }
      }
    }
    if (!open.empty()) text += atoms[0];
    while (!open.empty()) {
      text += open.back();
      open.pop_back();
    }
    if (rng() % 4 == 0 && !text.empty()) text.erase(rng() % text.size(), 1);  // often malformed
    ExpectSameAsNlohmann(text);
    if (::testing::Test::HasFatalFailure()) return;
  }
}

// ParseTokenizerJsonText against nlohmann's parser: the same value with model.vocab and
// model.merges emptied, the vocabulary's members those of nlohmann's object (each key once, the
// last value), and the merges the pairs of nlohmann's array when it is well-formed.
void ExpectVocabTakenAsNlohmann(const std::string& text) {
  json want = json::parse(text, nullptr, /*allow_exceptions=*/false);
  const ParsedTokenizerJson got = ParseTokenizerJsonText(text);
  ASSERT_EQ(got.json.is_discarded(), want.is_discarded()) << text;
  if (want.is_discarded()) return;
  const bool has_model = want.is_object() && want.contains("model") && want["model"].is_object();
  const std::optional<MergePairs> merges = has_model && want["model"].contains("merges")
                                               ? testing::ExpectedMerges(want["model"]["merges"])
                                               : std::nullopt;
  ASSERT_EQ(got.merges.has_value(), merges.has_value()) << text;
  if (merges.has_value()) {
    EXPECT_EQ(*got.merges, *merges) << text;
    want["model"]["merges"] = json::array();
  }
  const bool object_vocab = want.is_object() && want.contains("model") &&
                            want["model"].is_object() && want["model"].contains("vocab") &&
                            want["model"]["vocab"].is_object();
  ASSERT_EQ(got.vocab.has_value(), object_vocab) << text;
  if (object_vocab) {
    json members = json::object();
    for (const auto& [key, value] : *got.vocab) {
      EXPECT_FALSE(members.contains(key)) << "twice: " << key;
      members[key] = value;
    }
    EXPECT_EQ(members, want["model"]["vocab"]) << text;
    want["model"]["vocab"] = json::object();
  }
  EXPECT_EQ(got.json, want) << text;
}

TEST(ParseTokenizerJsonTest, VocabularyTakenOutOfTheValue) {
  for (const std::string text :
       {R"({"model": {"type": "WordPiece", "vocab": {"b": 1, "a": 0, "c": 2}}, "x": [1]})",
        R"({"model": {"vocab": {"a": 0, "b": 1, "a": 7}}})",            // last wins
        R"({"model": {"vocab": {"a": 0}, "vocab": [["a", 0.5]]}})",     // array last
        R"({"model": {"vocab": [["a", 0.5]], "vocab": {"z": 3}}})",     // object last
        R"({"model": {"vocab": {"a": 0}}, "model": {"type": "BPE"}})",  // no vocab last
        R"({"model": {"vocab": {"a": 0}}, "model": 3})",                // model not object
        R"({"model": {"vocab": {}}})", R"({"model": {}})", R"({"vocab": {"a": 1}})",
        R"([{"model": {"vocab": {"a": 1}}}])", R"({"model": {"vocab": {"a": 1}}} x)",
        // Lone surrogate and a too-large integer: nlohmann's parser, the vocabulary moved out.
        R"({"model": {"vocab": {"\ud800": 1, "b": 2}}})",
        R"({"model": {"vocab": {"a": 123456789012345678901234567890}}})"}) {
    ExpectVocabTakenAsNlohmann(text);
  }
  // The members keep the file's order (simdjson path).
  const ParsedTokenizerJson p =
      ParseTokenizerJsonText(R"({"model": {"vocab": {"b": 1, "a": 0, "c": 2, "b": 5}}})");
  ASSERT_TRUE(p.vocab.has_value());
  ASSERT_EQ(p.vocab->size(), 3u);
  EXPECT_EQ((*p.vocab)[0].first, "b");
  EXPECT_EQ((*p.vocab)[0].second, 5);
  EXPECT_EQ((*p.vocab)[1].first, "a");
  EXPECT_EQ((*p.vocab)[2].first, "c");
}

TEST(ParseTokenizerJsonTest, MergesTakenOutOfTheValueWhenWellFormed) {
  for (const std::string text :
       {R"({"model": {"type": "BPE", "merges": ["a b", "ab c"]}})",
        R"({"model": {"merges": [["a", "b"], ["a b", "c"], ["", " "]]}})",  // pairs keep spaces
        R"({"model": {"merges": ["a b", ["c", "d"]]}})",                    // both forms
        R"({"model": {"merges": []}})",
        R"({"model": {"merges": ["\u0000 \n", "\u00e9 \ud83d\ude00"]}})",  // escapes
        // Left in the value whole: one entry the loaders must name.
        R"({"model": {"merges": ["a b", "ab"]}})",        // no space
        R"({"model": {"merges": ["a b c"]}})",            // two spaces
        R"({"model": {"merges": [["a"], ["a", "b"]]}})",  // one token
        R"({"model": {"merges": [["a", "b", "c"]]}})",    // three
        R"({"model": {"merges": [["a", 1]]}})",           // not a string
        R"({"model": {"merges": ["a b", 7]}})",           // not a merge
        R"({"model": {"merges": {"a": "b"}}})",           // not a list
        R"({"model": {"merges": "a b"}})",
        // Duplicate keys: the last wins, as in the value.
        R"({"model": {"merges": ["a b"], "merges": ["c d"]}})",
        R"({"model": {"merges": ["a b"], "merges": ["cd"]}})",
        R"({"model": {"merges": ["ab"], "merges": ["c d"]}})",
        R"({"model": {"merges": ["a b"]}, "model": {"type": "BPE"}})",
        R"({"model": {"merges": ["a b"]}, "model": 3})", R"({"merges": ["a b"]})",
        R"([{"model": {"merges": ["a b"]}}])",
        // nlohmann's parser (an integer past 64 bits elsewhere): the same rule.
        R"({"x": 123456789012345678901234567890, "model": {"merges": ["a b", ["c", "d"]]}})",
        R"({"x": 123456789012345678901234567890, "model": {"merges": [["c", "d"], "a b c"]}})"}) {
    ExpectVocabTakenAsNlohmann(text);
  }
  const ParsedTokenizerJson p =
      ParseTokenizerJsonText(R"({"model": {"merges": ["a b", ["c d", "e"]], "vocab": {"a": 0}}})");
  ASSERT_TRUE(p.merges.has_value());
  EXPECT_EQ(*p.merges, (MergePairs{{"a", "b"}, {"c d", "e"}}));
  EXPECT_EQ(p.json["model"]["merges"], json::array());
  EXPECT_TRUE(p.vocab.has_value());
}

TEST(MergeSpaceTest, OneSpaceExactly) {
  EXPECT_EQ(MergeSpace("a b"), 1u);
  EXPECT_EQ(MergeSpace("\xC4\xA0t he"), 3u);  // "Ġt he": bytes, not characters
  EXPECT_EQ(MergeSpace(" b"), 0u);            // an empty first token is the loaders' to refuse
  EXPECT_EQ(MergeSpace("a "), 1u);
  EXPECT_EQ(MergeSpace("ab"), std::string_view::npos);
  EXPECT_EQ(MergeSpace(""), std::string_view::npos);
  EXPECT_EQ(MergeSpace("a b c"), std::string_view::npos);
  EXPECT_EQ(MergeSpace("a  b"), std::string_view::npos);
  EXPECT_EQ(MergeSpace("a\tb"), std::string_view::npos);  // only ' ' separates
}

TEST(ParseTokenizerJsonTest, ObjectMembers) {
  for (const std::string text :
       {R"({"b": 1, "a": 2, "b": 3})", R"({})", R"({"\ud800": 1, "x": 2})", R"({"a": 1e999})"}) {
    const json want = json::parse(text, nullptr, /*allow_exceptions=*/false);
    const std::optional<JsonMembers> got = ParseJsonObjectMembers(text);
    ASSERT_EQ(got.has_value(), !want.is_discarded()) << text;
    if (!got.has_value()) continue;
    json members = json::object();
    for (const auto& [key, value] : *got) members[key] = value;
    EXPECT_EQ(members.size(), got->size()) << text;
    EXPECT_EQ(members, want) << text;
  }
  for (const std::string text : {"[1]", "3", "{", ""}) {
    EXPECT_FALSE(ParseJsonObjectMembers(text).has_value()) << text;
  }
  std::ifstream in(TOKENMILL_SOURCE_DIR "/data/vocab/gpt2/encoder.json", std::ios::binary);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::optional<JsonMembers> got = ParseJsonObjectMembers(text);
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ(got->size(), json::parse(text).size());
}

TEST(ParseTokenizerJsonTest, RealTokenizerFilesAndManyKeys) {
  for (const char* name : {"bert-base-uncased/tokenizer.json", "gpt2/tokenizer.json"}) {
    std::ifstream in(std::string(TOKENMILL_SOURCE_DIR "/data/vocab/") + name, std::ios::binary);
    ASSERT_TRUE(in.good()) << name;
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    SCOPED_TRACE(name);
    ExpectVocabTakenAsNlohmann(text);
  }
  // Many keys with duplicates, so the member table grows past its first size.
  std::mt19937 rng(5);
  std::string text = R"({"model": {"vocab": {)";
  for (int i = 0; i < 5000; ++i) {
    if (i > 0) text += ",";
    text += "\"k" + std::to_string(rng() % 3000) + "\": " + std::to_string(i);
  }
  text += "}}}";
  ExpectVocabTakenAsNlohmann(text);
}

}  // namespace
}  // namespace tokenmill
