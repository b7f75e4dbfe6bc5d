#include "tokenmill/tokenizer/loaders/hf_tokenizer_json.h"

#include <gtest/gtest.h>

#include "tokenmill/tokenizer/tokenizer.h"

namespace tokenmill {
namespace {

using Ids = std::vector<uint32_t>;
using nlohmann::json;

const std::string kMeta = "\xE2\x96\x81";

// A Llama-2-like file: Prepend + Replace, no pre-tokenizer, BPE with byte fallback.
json LlamaLike() {
  json j;
  j["normalizer"] = {{"type", "Sequence"},
                     {"normalizers",
                      {{{"type", "Prepend"}, {"prepend", kMeta}},
                       {{"type", "Replace"}, {"pattern", {{"String", " "}}}, {"content", kMeta}}}}};
  j["pre_tokenizer"] = nullptr;
  j["model"] = {{"type", "BPE"},
                {"unk_token", "<unk>"},
                {"byte_fallback", true},
                {"fuse_unk", true},
                {"vocab",
                 {{"<unk>", 0},
                  {"<s>", 1},
                  {"</s>", 2},
                  {kMeta, 3},
                  {"h", 4},
                  {"i", 5},
                  {kMeta + "h", 6},
                  {kMeta + "hi", 7},
                  {"<0x21>", 8}}},
                {"merges", {kMeta + " h", kMeta + "h i"}}};
  j["added_tokens"] = {{{"id", 0}, {"content", "<unk>"}, {"special", true}, {"normalized", false}},
                       {{"id", 1}, {"content", "<s>"}, {"special", true}, {"normalized", false}},
                       {{"id", 2}, {"content", "</s>"}, {"special", true}, {"normalized", false}}};
  return j;
}

StatusOr<std::unique_ptr<Tokenizer>> Load(const json& j, bool split_special = false) {
  TokenizerOptions o;
  o.path = "tokenizer.json";
  o.split_special_tokens = split_special;
  return LoadTokenizer(o, {{"main", "tokenizer.json", j.dump()}});
}

Ids Enc(const Tokenizer& t, std::string_view s) {
  Ids ids;
  t.Encode(s, &ids);
  return ids;
}

TEST(HfPipelineTest, LlamaLayoutPerSegmentNormalization) {
  auto t = Load(LlamaLike());
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  EXPECT_EQ((*t)->kind(), TokenizerKind::kBytePairEncoding);
  EXPECT_EQ(Enc(**t, "hi hi!"), (Ids{7, 7, 8}));
  // Each segment between special tokens gets its own "▁" (HF's legacy Llama behaviour).
  EXPECT_EQ(Enc(**t, "hi</s>hi"), (Ids{7, 2, 7}));
  EXPECT_EQ(Enc(**t, "h?"), (Ids{6, 0}));  // no <0x3F>: unknown
  EXPECT_EQ((*t)->specials().unk, 0u);
  EXPECT_EQ((*t)->TokenToId("<s>"), 1u);
  EXPECT_EQ((*t)->Decode(Ids{7, 8}), " hi!");
  auto plain = Load(LlamaLike(), /*split_special=*/true);
  ASSERT_TRUE(plain.ok());
  EXPECT_NE(Enc(**plain, "hi</s>"), (Ids{7, 2}));  // </s> is text
}

TEST(HfPipelineTest, DecodesTokensThatOnlyLookLikeBytePieces) {
  json j = LlamaLike();
  j["model"]["vocab"]["<0xZZ>"] = 9;  // not two hex digits: text, not a byte
  j["model"]["vocab"]["<0x4a>"] = 10;
  auto t = Load(j);
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  EXPECT_EQ((*t)->Decode(Ids{9, 10, 8}), "<0xZZ>J!");
}

TEST(HfPipelineTest, AddedTokensNormalizedAndStripped) {
  json j = LlamaLike();
  j["added_tokens"].push_back(
      {{"id", 9}, {"content", "hi"}, {"special", false}, {"normalized", true}});
  j["added_tokens"].push_back({{"id", 10},
                               {"content", "<x>"},
                               {"special", false},
                               {"normalized", false},
                               {"lstrip", true},
                               {"rstrip", true}});
  j["added_tokens"].push_back({{"id", 11},
                               {"content", "i"},
                               {"special", false},
                               {"normalized", false},
                               {"single_word", true}});
  auto t = Load(j);
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  // "hi" normalized is "▁hi": only a segment's first word matches it.
  EXPECT_EQ(Enc(**t, "hi"), (Ids{9}));
  EXPECT_EQ(Enc(**t, "h  <x>  hi"), (Ids{6, 10, 9}));  // spaces around <x> are taken
  EXPECT_EQ(Enc(**t, "i"), (Ids{11}));
  EXPECT_EQ(Enc(**t, "hi"), (Ids{9}));  // "i" inside a word is not single_word
}

TEST(HfPipelineTest, UnigramWithMetaspace) {
  json j;
  j["normalizer"] = nullptr;
  j["pre_tokenizer"] = {
      {"type", "Metaspace"}, {"replacement", kMeta}, {"prepend_scheme", "always"}, {"split", true}};
  j["model"] = {{"type", "Unigram"},
                {"unk_id", 0},
                {"vocab", json::array({json::array({"<unk>", 0.0}), json::array({kMeta, -2.0}),
                                       json::array({kMeta + "ab", -1.0}), json::array({"a", -3.0}),
                                       json::array({"b", -3.0})})}};
  auto t = Load(j);
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  EXPECT_EQ((*t)->kind(), TokenizerKind::kUnigram);
  EXPECT_EQ(Enc(**t, "ab ab"), (Ids{2, 2}));
  EXPECT_EQ(Enc(**t, "ba"), (Ids{1, 4, 3}));
  j["model"].erase("unk_id");
  auto missing = Load(j);
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("model.unk_id"), std::string::npos);
}

TEST(HfPipelineTest, UnsupportedComponentsNameTheirJsonPath) {
  json j = LlamaLike();
  j["normalizer"]["normalizers"][1] = {{"type", "Frobnicate"}};
  auto t = Load(j);
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.status().message().find("tokenizer.json: normalizer.normalizers[1]"),
            std::string::npos)
      << t.status().message();
  EXPECT_NE(t.status().message().find("Frobnicate"), std::string::npos);
  json p = LlamaLike();
  p["pre_tokenizer"] = {{"type", "Sequence"},
                        {"pretokenizers",
                         {{{"type", "Split"},
                           {"pattern", {{"String", " "}}},
                           {"behavior", "Sideways"},
                           {"invert", false}}}}};
  auto s = Load(p);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.status().message().find("pre_tokenizer.pretokenizers[0].behavior"), std::string::npos)
      << s.status().message();
  json d = LlamaLike();
  d["model"]["dropout"] = 0.1;
  EXPECT_FALSE(Load(d).ok());
  json u = LlamaLike();
  u["model"]["unk_token"] = "<nope>";
  auto unk = Load(u);
  ASSERT_FALSE(unk.ok());
  EXPECT_NE(unk.status().message().find("<nope>"), std::string::npos);
}

}  // namespace
}  // namespace tokenmill

namespace tokenmill {
namespace {

// The pieces of EncodeInPieces, concatenated, and how many there were.
std::pair<Ids, int> EncPieces(const Tokenizer& t, std::string_view s, size_t piece_bytes) {
  Ids ids;
  int calls = 0;
  t.EncodeInPieces(s, piece_bytes, [&](std::span<const uint32_t> piece) {
    ++calls;
    ids.insert(ids.end(), piece.begin(), piece.end());
  });
  return {ids, calls};
}

// Random texts over characters chosen to meet every cut rule: spaces and runs of them, a
// character after which a token continues into "▁" ("i", through the token "i▁h"), one the
// vocabulary lacks (byte fallback, unknown), a combining mark after a space (no cluster boundary),
// an added token.
std::string RandomText(uint32_t* seed, size_t n) {
  static const char* const kParts[] = {"h",         "i",   " ", "  ", "!",  "\xC3\xA9",
                                       " \xCC\x81", "<s>", "x", "hi", " hi"};
  std::string s;
  while (s.size() < n) {
    *seed = *seed * 1103515245u + 12345u;
    s += kParts[(*seed >> 16) % (sizeof(kParts) / sizeof(kParts[0]))];
  }
  return s;
}

TEST(HfPipelineTest, EncodeInPiecesEqualsEncodeOnTheLlamaLayout) {
  json j = LlamaLike();
  j["model"]["vocab"]["i" + kMeta + "h"] = 9;  // a token across "▁" after "i": no cut there
  j["model"]["vocab"]["i" + kMeta] = 10;
  j["model"]["merges"].push_back("i " + kMeta);
  j["model"]["merges"].push_back("i" + kMeta + " h");
  auto t = Load(j);
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  uint32_t seed = 7;
  int cut = 0;
  for (int round = 0; round < 300; ++round) {
    const std::string text = RandomText(&seed, 1 + round % 97);
    const Ids want = Enc(**t, text);
    for (size_t piece_bytes : {1, 2, 3, 5, 8, 40}) {
      const auto [got, calls] = EncPieces(**t, text, piece_bytes);
      ASSERT_EQ(got, want) << "\"" << text << "\" in pieces of " << piece_bytes;
      if (calls > 1) ++cut;
    }
  }
  EXPECT_GT(cut, 500);  // the texts were cut
  // Never after "i": "hi hi hi" has cuts only before a space after "i", so it stays whole.
  EXPECT_EQ(EncPieces(**t, "hi hi hi hi", 1).second, 1);
  EXPECT_GT(EncPieces(**t, "hh hh hh hh", 1).second, 1);
}

// model.merges as "a b" strings or [a, b] pairs gives the same tokenizer; an entry of neither
// form is refused with its 0-based index.
TEST(HfPipelineTest, MergesAsStringsOrPairsAndBadEntriesNamed) {
  auto strings = Load(LlamaLike());
  ASSERT_TRUE(strings.ok()) << strings.status().ToString();
  json j = LlamaLike();
  j["model"]["merges"] = json::array({json::array({kMeta, "h"}), json::array({kMeta + "h", "i"})});
  auto pairs = Load(j);
  ASSERT_TRUE(pairs.ok()) << pairs.status().ToString();
  for (const std::string text : {"hi", "hi hi!", " h i"}) {
    EXPECT_EQ(Enc(**pairs, text), Enc(**strings, text)) << text;
  }
  EXPECT_EQ(Enc(**pairs, "hi"), (Ids{7}));
  const std::pair<json, std::string> bad[] = {
      {kMeta + "h",
       "model.merges[1]: \"" + kMeta + "h\": expected two tokens separated by one space"},
      {"a b c", "model.merges[1]: \"a b c\": expected two tokens separated by one space"},
      {json::array({"a", "b", "c"}), "model.merges[1]: neither \"a b\" nor [a, b]"},
      {json::array({"a", 1}), "model.merges[1]: neither \"a b\" nor [a, b]"}};
  for (const auto& [entry, message] : bad) {
    json jb = LlamaLike();
    jb["model"]["merges"][1] = entry;
    auto t = Load(jb);
    ASSERT_FALSE(t.ok()) << entry.dump();
    EXPECT_NE(t.status().message().find("tokenizer.json: " + message), std::string::npos)
        << t.status().ToString();
  }
}

TEST(HfPipelineTest, EncodeValidUtf8GivesEncodesIds) {
  auto t = Load(LlamaLike());
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  uint32_t seed = 11;
  for (int round = 0; round < 300; ++round) {
    const std::string text = RandomText(&seed, 1 + round % 97);
    Ids got;
    (*t)->EncodeValidUtf8(text, &got);
    ASSERT_EQ(got, Enc(**t, text)) << text;
  }
}

TEST(HfPipelineTest, EncodeInPiecesWithMetaspaceAndItsLeadingSpaceRule) {
  json j = LlamaLike();
  j["normalizer"] = nullptr;
  j["pre_tokenizer"] = {
      {"type", "Metaspace"}, {"replacement", kMeta}, {"prepend_scheme", "always"}, {"split", true}};
  auto t = Load(j);
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  // HF replaces ' ' first: a text that starts with a space gets no second "▁".
  EXPECT_EQ(Enc(**t, " hi"), (Ids{7}));
  EXPECT_EQ(Enc(**t, "hi"), (Ids{7}));
  uint32_t seed = 11;
  for (int round = 0; round < 200; ++round) {
    const std::string text = RandomText(&seed, 1 + round % 61);
    const Ids want = Enc(**t, text);
    for (size_t piece_bytes : {1, 4, 16}) {
      ASSERT_EQ(EncPieces(**t, text, piece_bytes).first, want) << text;
    }
  }
  EXPECT_GT(EncPieces(**t, "hh hh hh hh", 1).second, 1);
}

// The SpmConverter's Unigram layout: Precompiled (here empty), Strip, Replace(" {2,}", "▁"), then
// Metaspace, which cuts before every "▁" whatever the model: Strip applies only at the ends of
// the whole segment, and a run of spaces after a cut is replaced as in the whole text.
TEST(HfPipelineTest, EncodeInPiecesWithStripAndSpaceRuns) {
  json j = LlamaLike();
  j["normalizer"] = {
      {"type", "Sequence"},
      {"normalizers",
       {{{"type", "Strip"}, {"strip_left", true}, {"strip_right", true}},
        {{"type", "Replace"}, {"pattern", {{"Regex", " {2,}"}}}, {"content", kMeta}}}}};
  j["pre_tokenizer"] = {
      {"type", "Metaspace"}, {"replacement", kMeta}, {"prepend_scheme", "always"}, {"split", true}};
  auto t = Load(j);
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  uint32_t seed = 5;
  int cut = 0;
  for (int round = 0; round < 300; ++round) {
    const std::string text = " \t" + RandomText(&seed, 1 + round % 71) + "\t ";
    const Ids want = Enc(**t, text);
    for (size_t piece_bytes : {1, 3, 9}) {
      const auto [got, calls] = EncPieces(**t, text, piece_bytes);
      ASSERT_EQ(got, want) << "\"" << text << "\" in pieces of " << piece_bytes;
      if (calls > 1) ++cut;
    }
  }
  EXPECT_GT(cut, 300);
}

TEST(HfPipelineTest, EncodeInPiecesKeepsTextWholeWhereACutCouldChangeIds) {
  // A regex Replace, a literal one holding a space: the pipeline cannot tell, so the text is
  // never cut.
  for (const json& norm :
       {json{{"type", "Replace"}, {"pattern", {{"Regex", "h+"}}}, {"content", "i"}},
        json{{"type", "Replace"}, {"pattern", {{"String", "h "}}}, {"content", "i"}}}) {
    json j = LlamaLike();
    j["normalizer"]["normalizers"].push_back(norm);
    auto t = Load(j);
    ASSERT_TRUE(t.ok()) << t.status().ToString();
    const auto [ids, calls] = EncPieces(**t, "hh hh hh hh ", 1);
    EXPECT_EQ(calls, 1) << norm.dump();
    EXPECT_EQ(ids, Enc(**t, "hh hh hh hh ")) << norm.dump();
  }
}

}  // namespace
}  // namespace tokenmill
