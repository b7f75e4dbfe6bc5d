#include "tokenmill/tokenizer/models/hf_bpe.h"

#include <gtest/gtest.h>

#include <random>

#include "tokenmill/tokenizer/models/unigram.h"
#include "tokenmill/tokenizer/models/word_level.h"

namespace tokenmill::hf {
namespace {

using Ids = std::vector<uint32_t>;
const std::string kMeta = "\xE2\x96\x81";

std::unique_ptr<HfBpeModel> Make(std::vector<std::pair<std::string, uint32_t>> vocab,
                                 std::vector<std::pair<std::string, std::string>> merges,
                                 HfBpeOptions o = {}) {
  auto m = HfBpeModel::Build(vocab, merges, std::move(o));
  EXPECT_TRUE(m.ok()) << m.status().ToString();
  return std::move(m).value();
}

Ids Enc(const Model& m, std::string_view s) {
  Ids ids;
  m.Encode(s, &ids);
  return ids;
}

TEST(HfBpeTest, LowestRankThenLeftmost) {
  auto m = Make({{"a", 0}, {"b", 1}, {"ab", 2}, {"ba", 3}, {"aba", 4}},
                {{"b", "a"}, {"a", "b"}, {"ab", "a"}});
  // "aba": (b,a) has rank 0 -> a|ba; (a,ba) is no merge.
  EXPECT_EQ(Enc(*m, "aba"), (Ids{0, 3}));
  EXPECT_EQ(Enc(*m, "abab"), (Ids{0, 3, 1}));
}

TEST(HfBpeTest, ByteFallbackUnknownAndDrop) {
  std::vector<std::pair<std::string, uint32_t>> vocab{
      {"<unk>", 0}, {"a", 1}, {"<0xC3>", 2}, {"<0xA9>", 3}};
  HfBpeOptions o;
  o.byte_fallback = true;
  o.unk_token = "<unk>";
  o.fuse_unk = true;
  auto m = Make(vocab, {}, o);
  EXPECT_EQ(Enc(*m,
                "a\xC3\xA9"
                "a"),
            (Ids{1, 2, 3, 1}));                // é -> its bytes
  EXPECT_EQ(Enc(*m, "axya"), (Ids{1, 0, 1}));  // fused unknown
  o.byte_fallback = false;
  o.fuse_unk = false;
  auto unfused = Make(vocab, {}, o);
  EXPECT_EQ(Enc(*unfused, "axya"), (Ids{1, 0, 0, 1}));
  auto none = Make({{"a", 0}}, {});
  EXPECT_EQ(Enc(*none, "axa"), (Ids{0, 0}));  // HF drops a character it cannot encode
  o.unk_token = "<missing>";
  EXPECT_FALSE(HfBpeModel::Build(vocab, {}, o).ok());
  EXPECT_FALSE(HfBpeModel::Build(vocab, {{"a", "zz"}}, {}).ok());
}

TEST(HfBpeTest, PrefixSuffixAndIgnoreMerges) {
  HfBpeOptions o;
  o.continuing_subword_prefix = "##";
  auto m = Make({{"a", 0}, {"##b", 1}, {"ab", 2}}, {{"a", "##b"}}, o);
  EXPECT_EQ(Enc(*m, "ab"), (Ids{2}));
  HfBpeOptions s;
  s.end_of_word_suffix = "</w>";
  auto w = Make({{"a", 0}, {"b</w>", 1}, {"ab</w>", 2}}, {{"a", "b</w>"}}, s);
  EXPECT_EQ(Enc(*w, "ab"), (Ids{2}));
  HfBpeOptions ig;
  ig.ignore_merges = true;
  auto i = Make({{"a", 0}, {"b", 1}, {"abb", 2}}, {}, ig);
  EXPECT_EQ(Enc(*i, "abb"), (Ids{2}));
  EXPECT_EQ(Enc(*i, "ab"), (Ids{0, 1}));
}

// Cutting long pieces before "▁" never changes the ids, also with a token holding ">▁".
TEST(HfBpeTest, CuttingLongPiecesKeepsIds) {
  std::vector<std::pair<std::string, uint32_t>> vocab{
      {"<unk>", 0},     {"a", 1},  {"b", 2},         {kMeta, 3},   {">", 4},
      {kMeta + "a", 5}, {"ab", 6}, {">" + kMeta, 7}, {"<0x78>", 8}};
  std::vector<std::pair<std::string, std::string>> merges{{kMeta, "a"}, {"a", "b"}, {">", kMeta}};
  HfBpeOptions o;
  o.byte_fallback = true;
  o.unk_token = "<unk>";
  o.fuse_unk = true;
  auto m = Make(vocab, merges, o);
  const std::vector<std::string> alphabet{"a", "b", kMeta, ">", "x", "y"};
  std::mt19937 rng(7);
  for (int round = 0; round < 200; ++round) {
    std::string s;
    const int n = 200 + static_cast<int>(rng() % 400);
    for (int k = 0; k < n; ++k) s += alphabet[rng() % alphabet.size()];
    Ids whole;
    m->EncodeWhole(s, &whole);
    EXPECT_EQ(Enc(*m, s), whole) << s;
  }
}

TEST(UnigramTest, ViterbiUnknownAndByteFallback) {
  std::vector<UnigramPiece> vocab{{"<unk>", 0}, {"a", -1}, {"b", -2}, {"ab", -2.5}, {"<0x78>", -9}};
  auto m = UnigramModel::Build(vocab, 0, false, UnigramFlavor::kHuggingFace);
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(Enc(**m, "ab"), (Ids{3}));          // -2.5 beats -3
  EXPECT_EQ(Enc(**m, "axyb"), (Ids{1, 0, 2}));  // unknowns fused
  auto fb = UnigramModel::Build(vocab, 0, true, UnigramFlavor::kHuggingFace);
  ASSERT_TRUE(fb.ok());
  EXPECT_EQ(Enc(**fb, "axb"), (Ids{1, 4, 2}));  // 'x' is unknown; its byte token <0x78> exists
  EXPECT_EQ(Enc(**fb, "ayb"), (Ids{1, 0, 2}));  // no <0x79>: unknown
  EXPECT_FALSE(UnigramModel::Build(vocab, 9, false, UnigramFlavor::kHuggingFace).ok());
}

TEST(WordLevelTest, PiecesOrUnknown) {
  auto m = WordLevelModel::Build({{"[UNK]", 0}, {"hello", 1}}, "[UNK]");
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(Enc(**m, "hello"), (Ids{1}));
  EXPECT_EQ(Enc(**m, "bye"), (Ids{0}));
  EXPECT_FALSE(WordLevelModel::Build({{"hello", 1}}, "[UNK]").ok());
}

}  // namespace
}  // namespace tokenmill::hf
