#include "tokenmill/tokenizer/models/bpe.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "tokenmill/tokenizer/loaders/byte_level_bpe.h"
#include "tokenmill/tokenizer/loaders/bpe_test_util.h"

namespace tokenmill::bpe {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// A model whose single bytes have id = byte value, plus `extra` tokens (bytes, id).
BpeModel SmallModel(MergeRule rule, const std::vector<std::pair<std::string, uint32_t>>& extra) {
  BpeModel model(rule);
  for (int b = 0; b < 256; ++b) {
    EXPECT_TRUE(model.AddToken(std::string(1, static_cast<char>(b)), b).ok());
  }
  for (const auto& [bytes, id] : extra) EXPECT_TRUE(model.AddToken(bytes, id).ok()) << bytes;
  return model;
}

std::vector<uint32_t> Encode(const BpeModel& model, std::string_view piece,
                             BpeModel::Algorithm algorithm = BpeModel::Algorithm::kAuto) {
  std::vector<uint32_t> ids;
  model.EncodePiece(piece, &ids, algorithm);
  return ids;
}

TEST(BpeModelTest, RanksMergeLowestFirstAndLeftmostOnTies) {
  BpeModel model = SmallModel(MergeRule::kRanks,
                              {{"aa", 256}, {"bc", 257}, {"ab", 258}, {"abc", 259}, {"aaaa", 260}});
  ASSERT_TRUE(model.Finish().ok());
  EXPECT_THAT(Encode(model, "aaa"), ElementsAre(256, 'a'));  // leftmost of two equal pairs
  EXPECT_THAT(Encode(model, "aaaaa"), ElementsAre(260, 'a'));
  // "bc" (257) before "ab" (258); then a + bc = "abc".
  EXPECT_THAT(Encode(model, "abc"), ElementsAre(259));
  EXPECT_THAT(Encode(model, "abcab"), ElementsAre(259, 258));
  EXPECT_EQ(model.pair_count(), 6u);  // (a,a) (b,c) (a,b) (a,bc) (ab,c) (aa,aa)
}

TEST(BpeModelTest, RanksTakeAWholeTokenEvenIfMergesCannotReachIt) {
  // tiktoken looks a piece up whole before merging.
  BpeModel model = SmallModel(MergeRule::kRanks, {{"xyz", 300}});
  ASSERT_TRUE(model.Finish().ok());
  EXPECT_THAT(Encode(model, "xyz"), ElementsAre(300));
  EXPECT_THAT(Encode(model, "xyzx"), ElementsAre('x', 'y', 'z', 'x'));
}

TEST(BpeModelTest, MergesFollowTheListAndItsLastDuplicate) {
  BpeModel model = SmallModel(MergeRule::kMerges, {{"ab", 256}, {"bc", 257}, {"xyz", 258}});
  ASSERT_TRUE(model.AddMerge('a', 'b').ok());
  ASSERT_TRUE(model.AddMerge('b', 'c').ok());
  ASSERT_TRUE(model.AddMerge('a', 'b').ok());  // a later duplicate moves (a, b) after (b, c)
  ASSERT_TRUE(model.Finish().ok());
  EXPECT_THAT(Encode(model, "abc"), ElementsAre('a', 257));
  // Not reachable by merges: never taken whole (HF's BPE merges from bytes).
  EXPECT_THAT(Encode(model, "xyz"), ElementsAre('x', 'y', 'z'));
}

TEST(BpeModelTest, IgnoreMergesTakesVocabularyTokensWhole) {
  BpeModel model = SmallModel(MergeRule::kMerges, {{"xyz", 258}});
  model.set_ignore_merges(true);
  ASSERT_TRUE(model.Finish().ok());
  EXPECT_THAT(Encode(model, "xyz"), ElementsAre(258));
}

TEST(BpeModelTest, MergesWithoutAByteTokenUseUnknownOrDrop) {
  BpeModel model(MergeRule::kMerges);
  ASSERT_TRUE(model.AddToken("a", 0).ok());
  ASSERT_TRUE(model.AddToken("b", 1).ok());
  ASSERT_TRUE(model.AddToken("ab", 2).ok());
  ASSERT_TRUE(model.AddMerge(0, 1).ok());
  ASSERT_TRUE(model.Finish().ok());
  EXPECT_THAT(Encode(model, "abzab"), ElementsAre(2, 2));  // 'z' has no token: dropped
  model.set_unknown_id(1);
  EXPECT_THAT(Encode(model, "abzab"), ElementsAre(2, 1, 2));
}

TEST(BpeModelTest, BuildErrors) {
  BpeModel model(MergeRule::kRanks);
  ASSERT_TRUE(model.AddToken("a", 0).ok());
  EXPECT_THAT(model.AddToken("a", 1).message(), HasSubstr("repeated"));
  EXPECT_THAT(model.AddToken("b", 0).message(), HasSubstr("used twice"));
  EXPECT_FALSE(model.AddToken("", 2).ok());
  const Status finish = model.Finish();
  EXPECT_THAT(finish.message(), HasSubstr("0x00"));
  EXPECT_THAT(finish.message(), HasSubstr("256 bytes"));

  BpeModel merges(MergeRule::kMerges);
  ASSERT_TRUE(merges.AddToken("a", 0).ok());
  ASSERT_TRUE(merges.AddToken("b", 1).ok());
  EXPECT_THAT(merges.AddMerge(0, 1).message(), HasSubstr("not in the vocabulary"));
  EXPECT_THAT(merges.AddMerge(0, 7).message(), HasSubstr("unknown"));
}

// The real cl100k_base ranks from the repo.
const Tokenizer& Cl100k() {
  static const Tokenizer* const t = [] {
    auto ranks = bpe_test::ReadFile(bpe_test::RepoPath("data/vocab/tiktoken/cl100k_base.tiktoken"));
    auto loaded = LoadTiktoken(TokenizerOptions(), ranks.value(), "cl100k_base.tiktoken");
    return loaded.value().release();
  }();
  return *t;
}

TEST(BpeModelTest, LinearAndHeapMergesAgree) {
  // Pieces of all lengths up to kLinearMergeMaxBytes from a small alphabet (many merges), CJK
  // and random bytes, merged both ways with the real cl100k_base ranks.
  BpeModel model(MergeRule::kRanks);
  for (uint32_t id = 0; id < 100256; ++id) {
    ASSERT_TRUE(model.AddToken(Cl100k().IdToToken(id), id).ok()) << id;
  }
  ASSERT_TRUE(model.Finish().ok());
  std::mt19937 rng(7);
  const std::string alphabets[] = {"ab", "abc ", "0123456789", "\xe4\xb8\xad\xe6\x96\x87"};
  for (int round = 0; round < 2000; ++round) {
    const std::string& alphabet = alphabets[round % 4];
    const size_t len = 2 + rng() % (BpeModel::kLinearMergeMaxBytes - 1);
    std::string piece;
    if (round % 5 == 4) {
      while (piece.size() < len) piece.push_back(static_cast<char>(rng() & 0xFF));
    } else if (round % 4 == 3) {
      while (piece.size() + 3 <= len) piece += alphabet.substr(3 * (rng() % 2), 3);
    } else {
      while (piece.size() < len) piece.push_back(alphabet[rng() % alphabet.size()]);
    }
    EXPECT_EQ(Encode(model, piece, BpeModel::Algorithm::kLinear),
              Encode(model, piece, BpeModel::Algorithm::kHeap))
        << piece;
  }
}

TEST(BpeModelTest, OneMegabyteRunOfOneLetterFinishes) {
  // The heap merge is O(n log n); a quadratic merge would take hours here. No time is asserted.
  const std::string text(1 << 20, 'a');
  std::vector<uint32_t> ids;
  Cl100k().Encode(text, &ids);
  EXPECT_EQ(Cl100k().Decode(ids), text);
  EXPECT_LT(ids.size(), text.size() / 4);
  // Each id stands for a run of 'a'.
  for (uint32_t token : {ids.front(), ids.back()}) {
    const std::string_view bytes = Cl100k().IdToToken(token);
    EXPECT_EQ(bytes.find_first_not_of('a'), std::string_view::npos);
  }
}

TEST(BpeModelTest, LongPiecesOfManyKindsRoundTrip) {
  std::string digits;
  std::string base64;
  std::mt19937 rng(11);
  const char* alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  for (int i = 0; i < 100000; ++i) {
    digits.push_back(static_cast<char>('0' + rng() % 10));
    base64.push_back(alphabet[rng() % 64]);
  }
  for (const std::string& text : {digits, base64}) {
    std::vector<uint32_t> ids;
    Cl100k().Encode(text, &ids);
    EXPECT_EQ(Cl100k().Decode(ids), text);
  }
}

}  // namespace
}  // namespace tokenmill::bpe
