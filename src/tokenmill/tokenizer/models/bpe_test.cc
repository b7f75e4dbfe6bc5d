#include "tokenmill/tokenizer/models/bpe.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <iterator>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "tokenmill/tokenizer/loaders/bpe_test_util.h"
#include "tokenmill/tokenizer/loaders/byte_level_bpe.h"
#include "tokenmill/tokenizer/models/bpe_reference.h"
#include "tokenmill/tokenizer/pre_tokenizers/byte_level.h"

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
  // (a,a) (b,c) (a,b) (a,bc) (aa,aa): each token's own last merge. (ab,c) never merges: "abc"
  // merges b and c first, so ab and c are never neighbours within its bytes.
  EXPECT_EQ(model.pair_count(), 5u);
  EXPECT_THAT(Encode(model, "abcabc"), ElementsAre(259, 259));
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

// The 256 single bytes as tokens, id = byte value, in the model and the reference.
void AddByteTokens(BpeModel* model, ReferenceMerge* ref) {
  for (int b = 0; b < 256; ++b) {
    EXPECT_TRUE(model->AddToken(std::string(1, static_cast<char>(b)), b).ok());
    ref->ids[std::string(1, static_cast<char>(b))] = b;
  }
}

// A random vocabulary over "abc" (and the 256 bytes): `trained` grows it as BPE training does
// (each new token the concatenation of two earlier ones, later priorities for later tokens);
// otherwise tokens of 2 to 6 letters get ranks in random order (pairs may then create pairs of
// an earlier priority, which the bucket queue hands to the heap).
std::pair<BpeModel, ReferenceMerge> RandomModel(MergeRule rule, bool trained, uint32_t seed) {
  std::mt19937 rng(seed);
  ReferenceMerge ref{rule, {}, {}};
  BpeModel model(rule);
  AddByteTokens(&model, &ref);
  std::vector<std::string> tokens = {"a", "b", "c"};
  uint32_t next_id = 256;
  std::vector<std::pair<uint32_t, uint32_t>> merges;
  if (trained || rule == MergeRule::kMerges) {
    for (int i = 0; i < 60; ++i) {
      const std::string left = tokens[rng() % tokens.size()];
      const std::string right = tokens[rng() % tokens.size()];
      const std::string joined = left + right;
      if (joined.size() > 8) continue;
      if (!ref.ids.contains(joined)) {
        EXPECT_TRUE(model.AddToken(joined, next_id).ok());
        ref.ids[joined] = next_id++;
        tokens.push_back(joined);
      }
      merges.push_back({ref.ids.at(left), ref.ids.at(right)});
    }
    if (!trained) std::shuffle(merges.begin(), merges.end(), rng);
  } else {
    std::vector<std::string> words;
    for (int i = 0; i < 60; ++i) {
      std::string word;
      const size_t length = 2 + rng() % 5;
      while (word.size() < length) word.push_back("abc"[rng() % 3]);
      if (!ref.ids.contains(word)) {
        ref.ids[word] = 0;
        words.push_back(word);
      }
    }
    std::vector<uint32_t> ranks(words.size());
    for (size_t k = 0; k < ranks.size(); ++k) ranks[k] = 256 + static_cast<uint32_t>(k);
    std::shuffle(ranks.begin(), ranks.end(), rng);
    for (size_t k = 0; k < words.size(); ++k) {
      ref.ids[words[k]] = ranks[k];
      EXPECT_TRUE(model.AddToken(words[k], ranks[k]).ok());
    }
  }
  if (rule == MergeRule::kMerges) {
    for (size_t k = 0; k < merges.size(); ++k) {
      EXPECT_TRUE(model.AddMerge(merges[k].first, merges[k].second).ok());
      ref.line[merges[k]] = static_cast<uint32_t>(k);
    }
  }
  EXPECT_TRUE(model.Finish().ok());
  return {std::move(model), std::move(ref)};
}

std::string RandomPiece(std::mt19937& rng, size_t length) {
  std::string piece;
  // Runs of one letter now and then: the merge's worst case.
  while (piece.size() < length) {
    const char c = "abc"[rng() % 3];
    piece.append(rng() % 8 == 0 ? 1 + rng() % 40 : 1, c);
  }
  piece.resize(length);
  return piece;
}

// Long pieces of a kind, at least `length` bytes: a run of one of " a0=", RandomPiece, CJK
// ideographs, random bytes, random 'a' and 'b'.
enum class PieceKind { kRun, kRandom, kCjk, kBytes, kAb };
std::string LongPiece(std::mt19937& rng, PieceKind kind, size_t length) {
  static const std::string cjk[] = {"\xe4\xb8\xad", "\xe6\x96\x87", "\xe7\x9a\x84", "\xe4\xba\xba"};
  std::string piece;
  switch (kind) {
    case PieceKind::kRun:
      piece.assign(length, " a0="[rng() % 4]);
      break;
    case PieceKind::kRandom:
      piece = RandomPiece(rng, length);
      break;
    case PieceKind::kCjk:
      while (piece.size() < length) piece += cjk[rng() % 4];
      break;
    case PieceKind::kBytes:
      while (piece.size() < length) piece.push_back(static_cast<char>(rng() & 0xFF));
      break;
    case PieceKind::kAb:
      while (piece.size() < length) piece.push_back("ab"[rng() % 2]);
      break;
  }
  return piece;
}

TEST(BpeModelTest, AllAlgorithmsMatchAReferenceOnRandomVocabularies) {
  // Lengths up to 300 cover the cache (up to 22 bytes), the split, the linear merge (up to 64)
  // and the heap. kBacktrack merges as kAuto in the models that do not merge in rising priority
  // (backtracks() false: most untrained ones, and some trained ones where a later token is a
  // part of an earlier one).
  int backtracking = 0;
  for (const MergeRule rule : {MergeRule::kRanks, MergeRule::kMerges}) {
    for (const bool trained : {true, false}) {
      for (uint32_t seed = 1; seed <= 6; ++seed) {
        auto [model, ref] = RandomModel(rule, trained, seed);
        SCOPED_TRACE(testing::Message() << "rule " << static_cast<int>(rule) << " trained "
                                        << trained << " seed " << seed);
        EXPECT_TRUE(model.splits_long_pieces());
        backtracking += model.backtracks();
        std::mt19937 rng(seed * 31 + trained);
        for (int round = 0; round < 150; ++round) {
          const size_t length = 1 + rng() % (round % 3 == 0 ? 300 : 40);
          const std::string piece = RandomPiece(rng, length);
          const std::vector<uint32_t> want = ref.Encode(piece);
          // Twice with kAuto: the second is answered by the per-thread cache.
          EXPECT_EQ(Encode(model, piece), want) << piece;
          EXPECT_EQ(Encode(model, piece), want) << piece;
          EXPECT_EQ(Encode(model, piece, BpeModel::Algorithm::kLinear), want) << piece;
          EXPECT_EQ(Encode(model, piece, BpeModel::Algorithm::kHeap), want) << piece;
          EXPECT_EQ(Encode(model, piece, BpeModel::Algorithm::kBacktrack), want) << piece;
        }
      }
    }
  }
  std::printf("%d of 24 models backtrack\n", backtracking);
  EXPECT_GE(backtracking, 6);
}

TEST(BpeModelTest, BucketQueueMatchesTheHeapOnLongPieces) {
  // kAuto merges pieces of kQueueMinBytes or more with the bucket queue (after the split); in
  // the untrained vocabularies the queue meets pairs of earlier priorities and hands over to
  // the heap mid-way.
  for (const MergeRule rule : {MergeRule::kRanks, MergeRule::kMerges}) {
    for (const bool trained : {true, false}) {
      auto [model, ref] = RandomModel(rule, trained, 99);
      std::mt19937 rng(5);
      for (int round = 0; round < 6; ++round) {
        const size_t length = BpeModel::kQueueMinBytes + rng() % 6000;
        std::string piece = round % 2 == 0 ? RandomPiece(rng, length) : std::string(length, 'a');
        EXPECT_EQ(Encode(model, piece), Encode(model, piece, BpeModel::Algorithm::kHeap))
            << "round " << round;
      }
    }
  }
}

TEST(BpeModelTest, BucketQueueHandsOverWhenAMergeCreatesAnEarlierPair) {
  // "aa" (300) creates (aa, a) = "aaa" (260), earlier than the bucket being merged: after the
  // first "aa" the next merge is "aaa", not the next "aa"; two "aaa" then make "aaaaaa" (301).
  BpeModel model = SmallModel(MergeRule::kRanks, {{"aa", 300}, {"aaa", 260}, {"aaaaaa", 301}});
  ASSERT_TRUE(model.Finish().ok());
  std::string piece(BpeModel::kQueueMinBytes + 7, 'a');
  const std::vector<uint32_t> heap = Encode(model, piece, BpeModel::Algorithm::kHeap);
  ASSERT_FALSE(heap.empty());
  EXPECT_EQ(heap[0], 301u);
  EXPECT_EQ(Encode(model, piece), heap);
  piece[100] = 'b';
  EXPECT_EQ(Encode(model, piece), Encode(model, piece, BpeModel::Algorithm::kHeap));
}

TEST(BpeModelTest, NoSplitWhenAMergeResultIsNotTheConcatenation) {
  // HF's continuing_subword_prefix: "a" + "b" gives "##ab"; a cut could then be crossed.
  BpeModel model = SmallModel(MergeRule::kMerges, {{"##ab", 256}, {"ab", 257}});
  ASSERT_TRUE(model.AddMergeWithResult('a', 'b', 256).ok());
  ASSERT_TRUE(model.Finish().ok());
  EXPECT_FALSE(model.splits_long_pieces());
  const std::string piece = std::string(100, 'x') + "ab";
  std::vector<uint32_t> want(piece.size() - 2, 'x');
  want.push_back(256);
  EXPECT_EQ(Encode(model, piece), want);
  EXPECT_EQ(Encode(model, piece, BpeModel::Algorithm::kHeap), want);
}

TEST(BpeModelTest, SplitKeepsTokensThatSpanManyBytes) {
  // A long token inside a piece longer than kLinearMergeMaxBytes (so it is split): no cut may
  // fall inside it.
  BpeModel model = SmallModel(MergeRule::kRanks, {{"xy", 256}, {"xyxy", 257}, {"xyxyxyxy", 258}});
  ASSERT_TRUE(model.Finish().ok());
  ASSERT_TRUE(model.splits_long_pieces());
  const std::string piece = std::string(100, 'z') + "xyxyxyxy" + std::string(30, 'z') + "xyx";
  std::vector<uint32_t> want(100, 'z');
  want.push_back(258);
  want.insert(want.end(), 30, 'z');
  want.insert(want.end(), {256, 'x'});
  EXPECT_EQ(Encode(model, piece), want);
  EXPECT_EQ(Encode(model, piece, BpeModel::Algorithm::kHeap), want);
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

// A model of the real cl100k_base ranks (every id below 100256), finished.
BpeModel Cl100kModel() {
  BpeModel model(MergeRule::kRanks);
  for (uint32_t id = 0; id < 100256; ++id) {
    EXPECT_TRUE(model.AddToken(Cl100k().IdToToken(id), id).ok()) << id;
  }
  EXPECT_TRUE(model.Finish().ok());
  return model;
}

TEST(BpeModelTest, LinearAndHeapMergesAgree) {
  // Pieces of all lengths up to kLinearMergeMaxBytes from a small alphabet (many merges), CJK
  // and random bytes, merged both ways with the real cl100k_base ranks.
  BpeModel model = Cl100kModel();
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

TEST(BpeModelTest, LongPiecesMergeAsTheHeapBeforeAndAfterTheBacktrackingTables) {
  // Table borders and rules (runs of '-', '=', '+-', spaces: tokens span every cut), 65 bytes
  // up to a few KiB, with the real cl100k_base ranks. kAuto merges them until such pieces add
  // up to kBacktrackBuildTotalBytes, then builds the backtracking tables and uses them: the
  // ids stay the heap's on both sides of that point.
  BpeModel model = Cl100kModel();
  ASSERT_TRUE(model.splits_long_pieces());
  std::mt19937 rng(11);
  const std::string units[] = {"-", "=", "+-", "- ", " ", "*", "-+-", "_"};
  size_t fed = 0;
  int round = 0;
  while (fed < 2 * BpeModel::kBacktrackBuildTotalBytes) {
    const std::string& unit = units[rng() % 8];
    const size_t len = BpeModel::kBacktrackMinBytes + rng() % (round % 16 == 0 ? 4000 : 200);
    std::string piece = rng() % 2 ? "|" : "";
    while (piece.size() < len) piece += unit;
    if (rng() % 3 == 0) piece[rng() % piece.size()] = '+';
    fed += piece.size();
    ASSERT_EQ(Encode(model, piece), Encode(model, piece, BpeModel::Algorithm::kHeap)) << piece;
    ++round;
  }
  EXPECT_TRUE(model.backtracks());
}

// Characters of 3 and 4 bytes (and ASCII letters) for the characterwise encoder's tests.
const std::string kWideAlphabet[] = {
    "\xe4\xb8\xad", "\xe6\x96\x87", "\xe7\x9a\x84", "\xe4\xba\xba", "\xf0\x9f\x98\x80", "a", "b"};

std::string RandomWidePiece(std::mt19937& rng, size_t characters) {
  std::string piece;
  for (size_t k = 0; k < characters; ++k) {
    const size_t pick = rng() % 16;
    piece += pick < 10 ? kWideAlphabet[pick % 4] : kWideAlphabet[4 + pick % 3];
  }
  if (rng() % 8 == 0) piece.insert(rng() % (piece.size() + 1), 1, '\xe5');  // a broken one
  return piece;
}

// A vocabulary grown as BPE training grows one (each token the concatenation of two earlier
// ones, later ranks for later tokens) from the bytes of kWideAlphabet: tokens within a
// character, tokens of several characters, and tokens across the cut between two characters
// (the last byte of one and the first of the next).
// `lines` (kMerges): kShuffled shuffles the merge lines once the tokens are grown, so that the
// merges of many tokens' bytes no longer go in rising priority (backtracks() false); kSwapped
// swaps two lines a few times, which leaves most tokens regular, as in Llama-3's file.
enum class MergeLines { kTrained, kShuffled, kSwapped };
std::pair<BpeModel, ReferenceMerge> RandomWideModel(MergeRule rule, uint32_t seed,
                                                    MergeLines lines = MergeLines::kTrained) {
  std::mt19937 rng(seed);
  ReferenceMerge ref{rule, {}, {}};
  BpeModel model(rule);
  AddByteTokens(&model, &ref);
  uint32_t next_id = 256;
  std::vector<std::pair<uint32_t, uint32_t>> merges;
  for (int i = 0; i < 120; ++i) {
    // A pair of adjacent tokens in the current encoding of a random text, as training picks.
    const std::string text = RandomWidePiece(rng, 2 + rng() % 6);
    std::vector<std::string> parts;
    for (const uint32_t id : ref.Encode(text)) {
      for (const auto& [bytes, token] : ref.ids) {
        if (token == id) parts.push_back(bytes);
      }
    }
    if (parts.size() < 2) continue;
    const size_t k = rng() % (parts.size() - 1);
    const std::string joined = parts[k] + parts[k + 1];
    if (joined.size() > 12 || ref.ids.contains(joined)) continue;
    EXPECT_TRUE(model.AddToken(joined, next_id).ok());
    if (rule == MergeRule::kMerges) {
      merges.push_back({ref.ids.at(parts[k]), ref.ids.at(parts[k + 1])});
      ref.line[merges.back()] = next_id;
    }
    ref.ids[joined] = next_id++;
  }
  if (lines == MergeLines::kShuffled) std::shuffle(merges.begin(), merges.end(), rng);
  if (lines == MergeLines::kSwapped) {
    for (int k = 0; k < 3; ++k)
      std::swap(merges[rng() % merges.size()], merges[rng() % merges.size()]);
  }
  for (size_t k = 0; k < merges.size(); ++k) {
    EXPECT_TRUE(model.AddMerge(merges[k].first, merges[k].second).ok());
    ref.line[merges[k]] = static_cast<uint32_t>(k);
  }
  EXPECT_TRUE(model.Finish().ok());
  return {std::move(model), std::move(ref)};
}

// EncodePieces of the pieces of a text, given the text (short pieces then read 8 bytes at a
// time where those lie in it) and not, against EncodePiece of each piece in turn. The text sits
// in an allocation of its exact size, so that AddressSanitizer sees a read past its end.
void ExpectEncodePiecesMatchesEncodePiece(const BpeModel& model, const ReferenceMerge& ref,
                                          std::mt19937& rng, bool wide) {
  for (int round = 0; round < 200; ++round) {
    std::string built;
    std::vector<size_t> cuts = {0};
    const size_t count = 1 + rng() % 40;
    for (size_t k = 0; k < count; ++k) {
      // Mostly 2 to 9 bytes, around the 8-byte load; now and then longer ones or single bytes.
      const size_t length = rng() % 8 == 0 ? 1 + rng() % 30 : 2 + rng() % 8;
      std::string piece = wide ? RandomWidePiece(rng, 1 + length / 3) : RandomPiece(rng, length);
      if (rng() % 4 == 0 && ref.ids.size() > 256) {  // a whole token now and then
        auto it = ref.ids.begin();
        std::advance(it, rng() % ref.ids.size());
        piece = it->first;
      }
      built += piece;
      cuts.push_back(built.size());
    }
    const auto text = std::make_unique<char[]>(built.size());
    std::memcpy(text.get(), built.data(), built.size());
    const std::string_view within(text.get(), built.size());
    std::vector<std::string_view> pieces;
    std::vector<uint32_t> want;
    for (size_t k = 0; k + 1 < cuts.size(); ++k) {
      pieces.push_back(within.substr(cuts[k], cuts[k + 1] - cuts[k]));
      model.EncodePiece(pieces.back(), &want);
    }
    std::vector<uint32_t> got;
    model.EncodePieces(pieces, &got, within);
    EXPECT_EQ(got, want) << built;
    got.clear();
    model.EncodePieces(pieces, &got);
    EXPECT_EQ(got, want) << built;
  }
}

TEST(BpeModelTest, EncodePiecesWithinATextMatchesEncodePiece) {
  for (const MergeRule rule : {MergeRule::kRanks, MergeRule::kMerges}) {
    for (const bool trained : {true, false}) {
      for (uint32_t seed = 1; seed <= 3; ++seed) {
        SCOPED_TRACE(testing::Message() << "rule " << static_cast<int>(rule) << " trained "
                                        << trained << " seed " << seed);
        auto [model, ref] = RandomModel(rule, trained, seed);
        std::mt19937 rng(seed * 7 + trained);
        ExpectEncodePiecesMatchesEncodePiece(model, ref, rng, false);
      }
    }
    for (const MergeLines lines : {MergeLines::kTrained, MergeLines::kShuffled}) {
      SCOPED_TRACE(testing::Message() << "wide, rule " << static_cast<int>(rule));
      auto [model, ref] = RandomWideModel(rule, 5, lines);
      std::mt19937 rng(11);
      ExpectEncodePiecesMatchesEncodePiece(model, ref, rng, true);
    }
  }
}

TEST(BpeModelTest, CharacterwiseMatchesAReferenceOnWideCharacters) {
  // Pieces of CJK characters, an emoji, letters and a broken character, with vocabularies that
  // have tokens across the cuts between characters (some cuts are then invalid and the piece is
  // merged whole) and pieces that are tokens themselves.
  size_t checked = 0;
  for (const MergeRule rule : {MergeRule::kRanks, MergeRule::kMerges}) {
    for (uint32_t seed = 1; seed <= 8; ++seed) {
      auto [model, ref] = RandomWideModel(rule, seed);
      SCOPED_TRACE(testing::Message() << "rule " << static_cast<int>(rule) << " seed " << seed);
      ASSERT_TRUE(model.backtracks());
      model.set_characterwise_build_bytes(0);
      std::mt19937 rng(seed * 7 + 1);
      std::vector<std::string> pieces;
      for (int round = 0; round < 300; ++round) {
        pieces.push_back(RandomWidePiece(rng, 2 + rng() % 30));
      }
      for (const auto& [bytes, id] : ref.ids) {
        if (bytes.size() >= BpeModel::kCharacterwiseMinBytes) pieces.push_back(bytes);
      }
      for (const std::string& piece : pieces) {
        const std::vector<uint32_t> want = ref.Encode(piece);
        EXPECT_EQ(Encode(model, piece), want) << piece;
        EXPECT_EQ(Encode(model, piece), want) << piece;  // the memos answer some now
        EXPECT_EQ(Encode(model, piece, BpeModel::Algorithm::kHeap), want) << piece;
        ++checked;
      }
    }
  }
  EXPECT_GT(checked, 4800u);
}

TEST(BpeModelTest, CharacterwiseWithoutRisingPrioritiesJoinsWhatItCannotClear) {
  // Merge lines shuffled: the validity test does not hold (backtracks() false), so only the cuts
  // that no token can span stay cuts; the pieces still merge exactly.
  size_t not_rising = 0;
  for (uint32_t seed = 1; seed <= 12; ++seed) {
    auto [model, ref] = RandomWideModel(MergeRule::kMerges, seed, MergeLines::kShuffled);
    SCOPED_TRACE(testing::Message() << "seed " << seed);
    not_rising += !model.backtracks();
    model.set_characterwise_build_bytes(0);
    std::mt19937 rng(seed * 13 + 5);
    for (int round = 0; round < 300; ++round) {
      const std::string piece = RandomWidePiece(rng, 2 + rng() % 30);
      const std::vector<uint32_t> want = ref.Encode(piece);
      EXPECT_EQ(Encode(model, piece), want) << piece;
      EXPECT_EQ(Encode(model, piece), want) << piece;
    }
  }
  EXPECT_GE(not_rising, 6u);
}

TEST(BpeModelTest, CharacterwiseTestsTheCutsBetweenRegularTokensOnly) {
  // A few merge lines swapped: some tokens merge at a lower priority than one of their parts
  // (irregular), most do not. The backtracking encoder needs them all regular; the characterwise
  // one tests the cuts between two regular tokens and joins the others. Pieces of the swapped
  // models' tokens and random ones must merge as the reference does.
  size_t with_irregular = 0;
  size_t checked = 0;
  for (uint32_t seed = 1; seed <= 40; ++seed) {
    auto [model, ref] = RandomWideModel(MergeRule::kMerges, seed, MergeLines::kSwapped);
    SCOPED_TRACE(testing::Message() << "seed " << seed);
    const size_t irregular = model.irregular_tokens();
    EXPECT_LT(irregular, ref.ids.size() - 256);  // never every grown token
    EXPECT_EQ(model.backtracks(), irregular == 0);
    with_irregular += irregular > 0 ? 1 : 0;
    model.set_characterwise_build_bytes(0);
    std::mt19937 rng(seed * 31 + 3);
    std::vector<std::string> pieces;
    for (int round = 0; round < 300; ++round) {
      pieces.push_back(RandomWidePiece(rng, 2 + rng() % 30));
    }
    std::vector<std::string> tokens;
    for (const auto& [bytes, id] : ref.ids) {
      if (bytes.size() >= 2) tokens.push_back(bytes);
    }
    for (int round = 0; round < 300 && !tokens.empty(); ++round) {
      std::string piece;  // tokens side by side: their cuts are the ones the test answers
      for (size_t k = 2 + rng() % 6; k > 0; --k) piece += tokens[rng() % tokens.size()];
      pieces.push_back(piece);
    }
    for (const std::string& piece : pieces) {
      const std::vector<uint32_t> want = ref.Encode(piece);
      EXPECT_EQ(Encode(model, piece), want) << piece;
      EXPECT_EQ(Encode(model, piece), want) << piece;  // the memos answer some now
      ++checked;
    }
  }
  EXPECT_GE(with_irregular, 10u);
  EXPECT_GT(checked, 20000u);
}

TEST(BpeModelTest, CharacterwiseSeesATwoByteTokenAcrossTheCut) {
  // "\xad\xe6" (the last byte of U+4E2D and the first of U+6587) merges before either
  // character is whole, so the piece is not the two characters' tokens; no token of 3 bytes
  // or more lies across the cut, only this 2-byte one.
  BpeModel model = SmallModel(MergeRule::kRanks, {{"\xad\xe6", 256},
                                                  {"\xe4\xb8", 257},
                                                  {"\x96\x87", 258},
                                                  {"\xe4\xb8\xad", 259},
                                                  {"\xe6\x96\x87", 260}});
  ASSERT_TRUE(model.Finish().ok());
  ASSERT_TRUE(model.backtracks());
  model.set_characterwise_build_bytes(0);
  const std::string piece = "\xe4\xb8\xad\xe6\x96\x87";
  EXPECT_THAT(Encode(model, piece, BpeModel::Algorithm::kHeap), ElementsAre(257, 256, 258));
  EXPECT_THAT(Encode(model, piece), ElementsAre(257, 256, 258));
  EXPECT_THAT(Encode(model, piece + "\xe4\xb8\xad"), ElementsAre(257, 256, 258, 259));
}

TEST(BpeModelTest, CharacterwiseTellsAWordFromItsNeighbours) {
  // The word U+4E2D U+6587 is a token; U+4E2D U+6586 is not, though the bytes across its cut
  // (\xb8\xad | \xe6 and \xad | \xe6\x96) are the word's: the cut inside the word is joined, the
  // other one kept.
  BpeModel model = SmallModel(MergeRule::kRanks, {{"\xe4\xb8", 256},
                                                  {"\xe4\xb8\xad", 257},
                                                  {"\xe6\x96", 258},
                                                  {"\xe6\x96\x87", 259},
                                                  {"\xe6\x96\x86", 260},
                                                  {"\xe4\xb8\xad\xe6\x96\x87", 261}});
  ASSERT_TRUE(model.Finish().ok());
  ASSERT_TRUE(model.backtracks());
  model.set_characterwise_build_bytes(0);
  const std::string word = "\xe4\xb8\xad\xe6\x96\x87";
  const std::string other = "\xe4\xb8\xad\xe6\x96\x86";
  for (const std::string& piece : {word + other, other + word, other + other + word}) {
    EXPECT_EQ(Encode(model, piece), Encode(model, piece, BpeModel::Algorithm::kHeap));
  }
  EXPECT_THAT(Encode(model, word + other), ElementsAre(261, 257, 260));
  EXPECT_THAT(Encode(model, other + word), ElementsAre(257, 260, 261));
}

TEST(BpeModelTest, CharacterwiseMatchesTheHeapOnChineseWithCl100k) {
  // Every line of the Chinese sample through kAuto (characterwise for the CJK runs) and the heap,
  // piece by piece as the cl100k_base pre-tokenizer cuts them.
  BpeModel model = Cl100kModel();
  model.set_characterwise_build_bytes(0);
  const std::optional<std::string> text =
      bpe_test::ReadFile(bpe_test::RepoPath("data/sample/part-00.txt"));
  ASSERT_TRUE(text.has_value());
  std::vector<std::string_view> pieces;
  PreTokenizer::ForPattern(Pattern::kCl100k).Split(*text, &pieces);
  size_t wide = 0;
  for (const std::string_view piece : pieces) {
    if (piece.size() < BpeModel::kCharacterwiseMinBytes ||
        static_cast<unsigned char>(piece[0]) < 0x80) {
      continue;
    }
    ++wide;
    ASSERT_EQ(Encode(model, piece), Encode(model, piece, BpeModel::Algorithm::kHeap)) << piece;
  }
  EXPECT_GT(wide, 10000u);
}

TEST(BpeModelTest, CharacterwiseTablesAreBuiltOnceWhileThreadsEncode) {
  // Four threads encode the Chinese sample with one new model, whose characterwise (and
  // backtracking) tables are built by whichever thread gets there first; every thread's ids
  // equal the heap's. (Under ThreadSanitizer: no race in the building and publishing.)
  BpeModel model = Cl100kModel();
  const std::optional<std::string> text =
      bpe_test::ReadFile(bpe_test::RepoPath("data/sample/part-00.txt"));
  ASSERT_TRUE(text.has_value());
  std::vector<std::string_view> pieces;
  PreTokenizer::ForPattern(Pattern::kCl100k).Split(*text, &pieces);
  std::vector<uint32_t> want;
  for (const std::string_view piece : pieces) {
    model.EncodePiece(piece, &want, BpeModel::Algorithm::kHeap);
  }
  std::vector<std::vector<uint32_t>> got(4);
  std::vector<std::thread> threads;
  for (size_t t = 0; t < got.size(); ++t) {
    threads.emplace_back([&, t] {
      for (const std::string_view piece : pieces) model.EncodePiece(piece, &got[t]);
    });
  }
  for (std::thread& thread : threads) thread.join();
  for (const std::vector<uint32_t>& ids : got) EXPECT_TRUE(ids == want);
}

TEST(BpeModelTest, LongPiecesAgreeWithTheHeapOnCl100k) {
  // kAuto (split, cache, linear, bucket queue) against the heap on long pieces of letters, CJK,
  // digits and random bytes, with the real cl100k_base ranks.
  BpeModel model = Cl100kModel();
  ASSERT_TRUE(model.splits_long_pieces());
  std::mt19937 rng(3);
  const std::string cjk[] = {"\xe4\xb8\xad", "\xe6\x96\x87", "\xe7\x9a\x84",
                             "\xe4\xba\xba", "\xe5\x9c\xa8", "\xe6\x98\xaf"};
  for (int round = 0; round < 40; ++round) {
    const size_t length = round < 30 ? 23 + rng() % 400 : BpeModel::kQueueMinBytes + rng() % 20000;
    std::string piece;
    while (piece.size() < length) {
      switch (round % 4) {
        case 0:
          piece += cjk[rng() % 6];
          break;
        case 1:
          piece.push_back("etaoin shrdlu"[rng() % 13]);
          break;
        case 2:
          piece.push_back(static_cast<char>('0' + rng() % 10));
          break;
        default:
          piece.push_back(static_cast<char>(rng() & 0xFF));
      }
    }
    const std::vector<uint32_t> heap = Encode(model, piece, BpeModel::Algorithm::kHeap);
    EXPECT_EQ(Encode(model, piece), heap) << "round " << round;
    EXPECT_EQ(Encode(model, piece, BpeModel::Algorithm::kBacktrack), heap) << "round " << round;
  }
  const std::string run(200000, 'a');
  const std::vector<uint32_t> heap = Encode(model, run, BpeModel::Algorithm::kHeap);
  EXPECT_EQ(Encode(model, run), heap);
  EXPECT_EQ(Encode(model, run, BpeModel::Algorithm::kBacktrack), heap);
}

TEST(BpeModelTest, BacktrackMatchesTheHeapOnCl100k) {
  // The backtracking encoder against the heap with the real cl100k_base ranks: pieces of all
  // lengths up to 300 from small alphabets (many merges), CJK, random bytes, and runs of one
  // letter (the search goes back the most there).
  BpeModel model = Cl100kModel();
  ASSERT_TRUE(model.backtracks());
  std::mt19937 rng(5);
  const std::string alphabets[] = {"ab", "abc ", "0123456789", "\xe4\xb8\xad\xe6\x96\x87", " \n"};
  for (int round = 0; round < 3000; ++round) {
    const std::string& alphabet = alphabets[round % 5];
    const size_t len = 2 + rng() % 300;
    std::string piece;
    if (round % 7 == 6) {
      while (piece.size() < len) piece.push_back(static_cast<char>(rng() & 0xFF));
    } else if (round % 5 == 3) {
      while (piece.size() + 3 <= len) piece += alphabet.substr(3 * (rng() % 2), 3);
    } else if (round % 11 == 10) {
      piece.assign(len, alphabet[rng() % alphabet.size()]);
    } else {
      while (piece.size() < len) piece.push_back(alphabet[rng() % alphabet.size()]);
    }
    EXPECT_EQ(Encode(model, piece, BpeModel::Algorithm::kBacktrack),
              Encode(model, piece, BpeModel::Algorithm::kHeap))
        << piece;
  }
  for (const char c : {'a', ' ', '0', '='}) {
    for (size_t len = 1; len <= 200; ++len) {
      const std::string run(len, c);
      EXPECT_EQ(Encode(model, run, BpeModel::Algorithm::kBacktrack),
                Encode(model, run, BpeModel::Algorithm::kHeap))
          << len << " x " << c;
    }
  }
}

TEST(BpeModelTest, BacktrackWindowSlides) {
  // The backtracking encoder keeps its marks for a window of positions that slides with the
  // search (2^20 by default; here the smallest, 8 times the longest token): pieces longer than
  // it, against the heap, with the real cl100k_base ranks (runs of one letter, letters with
  // runs, CJK, random bytes) and with the random vocabularies.
  BpeModel model = Cl100kModel();
  ASSERT_TRUE(model.backtracks());
  model.set_backtrack_window(1);
  std::mt19937 rng(9);
  for (int round = 0; round < 12; ++round) {
    const size_t length = 2000 + rng() % 30000;
    const std::string piece = LongPiece(rng, static_cast<PieceKind>(round % 4), length);
    EXPECT_EQ(Encode(model, piece, BpeModel::Algorithm::kBacktrack),
              Encode(model, piece, BpeModel::Algorithm::kHeap))
        << "round " << round;
  }
  for (const MergeRule rule : {MergeRule::kRanks, MergeRule::kMerges}) {
    for (uint32_t seed = 1; seed <= 6; ++seed) {
      auto small = RandomModel(rule, true, seed).first;
      if (!small.backtracks()) continue;
      small.set_backtrack_window(1);
      for (int round = 0; round < 10; ++round) {
        const std::string piece = RandomPiece(rng, 100 + rng() % 400);
        EXPECT_EQ(Encode(small, piece, BpeModel::Algorithm::kBacktrack),
                  Encode(small, piece, BpeModel::Algorithm::kHeap))
            << piece;
      }
    }
  }
}

// EncodePieceStreaming with a flush: what it hands out and leaves in *ids is EncodePiece's, or it
// says it lost the search; a dry run says the same. With the smallest window and lags of a few
// positions, the search goes back over handed-out ids on some pieces: both outcomes are seen.
TEST(BpeModelTest, StreamingHandsOutTheIdsOfEncodePieceOrSaysItLost) {
  BpeModel model = Cl100kModel();
  ASSERT_TRUE(model.backtracks());
  std::mt19937 rng(13);
  int lost = 0;
  int streamed = 0;
  for (const size_t lag : {size_t{1}, size_t{3}, size_t{16}, SIZE_MAX}) {
    model.set_commit_lag_for_testing(lag);
    for (const size_t window : {size_t{1}, size_t{1} << 20}) {
      if (window != 1 && lag != SIZE_MAX) continue;
      model.set_backtrack_window(window);
      for (int round = 0; round < (window == 1 ? 24 : 4); ++round) {
        const size_t length = window == 1 ? 100 + rng() % 20000 : (size_t{3} << 19) + rng() % 1000;
        const std::string piece = LongPiece(
            rng, round % 4 == 3 ? PieceKind::kAb : static_cast<PieceKind>(round % 4), length);
        std::vector<uint32_t> want = {7, 8};  // ids already in the vector go out first
        model.EncodePiece(piece, &want);
        std::vector<uint32_t> got;
        std::vector<uint32_t> ids = {7, 8};
        size_t flushes = 0;
        const bool ok = model.EncodePieceStreaming(piece, &ids, [&](std::span<const uint32_t> s) {
          ++flushes;
          got.insert(got.end(), s.begin(), s.end());
        });
        std::vector<uint32_t> dry;
        EXPECT_EQ(model.EncodePieceStreaming(piece, &dry, {}), ok) << round;
        if (!ok) {
          ++lost;
          continue;
        }
        ++streamed;
        got.insert(got.end(), ids.begin(), ids.end());
        EXPECT_EQ(got, want) << "window " << window << ", lag " << lag << ", round " << round;
        if (lag != SIZE_MAX && piece.size() > 1000) {
          EXPECT_GT(flushes, 0u) << round;
        }
      }
    }
  }
  EXPECT_GT(lost, 0);
  EXPECT_GT(streamed, 30);
  // The default lag (half the window) on a 3 MB run: handed out as it goes, little left in *ids.
  model.set_commit_lag_for_testing(SIZE_MAX);
  const std::string run(3 << 20, 'a');
  std::vector<uint32_t> want;
  model.EncodePiece(run, &want);
  std::vector<uint32_t> got;
  std::vector<uint32_t> ids;
  ASSERT_TRUE(model.EncodePieceStreaming(
      run, &ids, [&](std::span<const uint32_t> s) { got.insert(got.end(), s.begin(), s.end()); }));
  EXPECT_LT(ids.size(), want.size() / 2);
  got.insert(got.end(), ids.begin(), ids.end());
  EXPECT_EQ(got, want);
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
