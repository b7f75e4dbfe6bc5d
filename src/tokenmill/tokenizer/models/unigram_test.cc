// The Unigram model: cutting the text into segments (and answering segments from the per-thread
// cache) gives the ids of the whole-text Viterbi, for both flavors, on the trained models of
// data/spm and on made-up vocabularies full of ties.
#include "tokenmill/tokenizer/models/unigram.h"

#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>
#include <string>
#include <vector>

namespace tokenmill::hf {
namespace {

const std::string kRepo = TOKENMILL_SOURCE_DIR;
constexpr std::string_view kSpace = "\xE2\x96\x81";

std::string ReadFile(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::ostringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

// The vocabulary of a Unigram tokenizer.json.
std::vector<UnigramPiece> JsonVocab(const std::string& path, uint32_t* unk) {
  const auto j = nlohmann::json::parse(ReadFile(path));
  std::vector<UnigramPiece> vocab;
  for (const auto& e : j["model"]["vocab"]) {
    vocab.push_back({e[0].get<std::string>(), e[1].get<double>(), PieceType::kNormal});
  }
  *unk = j["model"]["unk_id"].get<uint32_t>();
  return vocab;
}

// Lines as SentencePiece hands them to the model: spaces as "▁", one in front.
std::vector<std::string> Escaped(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    std::string s(kSpace);
    for (char c : line) {
      if (c == ' ') {
        s.append(kSpace);
      } else {
        s.push_back(c);
      }
    }
    out.push_back(std::move(s));
  }
  return out;
}

std::vector<uint32_t> Ids(const UnigramModel& m, std::string_view text) {
  std::vector<uint32_t> ids;
  m.Encode(text, &ids);
  return ids;
}

// Encodes every line with the segmented model and with the whole-text one; both twice (the
// second pass answers from the cache, with other seeds than the first).
void ExpectSameIds(const std::vector<UnigramPiece>& vocab, uint32_t unk, bool byte_fallback,
                   UnigramFlavor flavor, const std::vector<std::string>& lines) {
  auto cut = UnigramModel::Build(vocab, unk, byte_fallback, flavor);
  auto whole = UnigramModel::Build(vocab, unk, byte_fallback, flavor);
  ASSERT_TRUE(cut.ok()) << cut.status().ToString();
  ASSERT_TRUE(whole.ok());
  ASSERT_TRUE((*cut)->segmented());
  (*whole)->DisableSegmentsForTesting();
  size_t checked = 0;
  for (int pass = 0; pass < 2; ++pass) {
    for (const std::string& line : lines) {
      ASSERT_EQ(Ids(**cut, line), Ids(**whole, line)) << "line: " << line;
      ++checked;
    }
  }
  EXPECT_EQ(checked, 2 * lines.size());
}

TEST(UnigramSegmentsTest, TrainedModelsOnTheCorpusBothFlavors) {
  const auto lines = Escaped(ReadFile(kRepo + "/data/sample/part-00.txt"));
  ASSERT_GT(lines.size(), 10000u);
  for (const char* name : {"unigram", "unigram-bytes"}) {
    SCOPED_TRACE(name);
    uint32_t unk = 0;
    const auto vocab = JsonVocab(kRepo + "/data/spm/" + name + ".tokenizer.json", &unk);
    ASSERT_FALSE(vocab.empty());
    const bool bytes = std::string(name) == "unigram-bytes";
    ExpectSameIds(vocab, unk, bytes, UnigramFlavor::kHuggingFace, lines);
    ExpectSameIds(vocab, unk, bytes, UnigramFlavor::kSentencePiece, lines);
  }
}

TEST(UnigramSegmentsTest, TiesAndLongLinesOnAMadeUpVocabulary) {
  // Few distinct scores, so that many segmentations tie exactly; unknown characters; lines long
  // enough that float path sums lose their low bits.
  std::vector<UnigramPiece> vocab = {{"<unk>", 0, PieceType::kUnknown}};
  const std::vector<std::string> atoms = {"a",
                                          "b",
                                          "c",
                                          "ab",
                                          "bc",
                                          "abc",
                                          "ca",
                                          "\xE2\x96\x81",
                                          "\xE2\x96\x81"
                                          "a",
                                          "\xE2\x96\x81"
                                          "ab",
                                          "\xE2\x96\x81\xE2\x96\x81",
                                          "\xE4\xB8\xAD",
                                          "\xE4\xB8\xAD\xE6\x96\x87"};
  for (size_t i = 0; i < atoms.size(); ++i) {
    // Scores that are not sums of each other in binary: path sums round differently with
    // different seeds, and pairs like "ab" against "a" + "b" come within a rounding of a tie.
    const double score = i % 3 == 0 ? -1.1 : i % 3 == 1 ? -2.2 : -3.3;
    vocab.push_back({atoms[i], score, PieceType::kNormal});
  }
  std::mt19937 rng(7);
  const std::vector<std::string> chars = {
      "a", "b", "c", "\xE2\x96\x81", "\xE4\xB8\xAD", "\xE6\x96\x87", "z"};
  std::vector<std::string> lines;
  for (int n = 0; n < 400; ++n) {
    std::string line;
    const size_t length = 1 + rng() % (n < 300 ? 40 : 4000);
    for (size_t k = 0; k < length; ++k) line += chars[rng() % chars.size()];
    lines.push_back(line);
  }
  ExpectSameIds(vocab, 0, false, UnigramFlavor::kHuggingFace, lines);
  ExpectSameIds(vocab, 0, false, UnigramFlavor::kSentencePiece, lines);
}

TEST(UnigramSegmentsTest, APieceWithSpaceInsideKeepsTheWholeText) {
  std::vector<UnigramPiece> vocab = {{"<unk>", 0, PieceType::kUnknown},
                                     {"a", -1, PieceType::kNormal},
                                     {"\xE2\x96\x81\xE2\x96\x81", -1, PieceType::kNormal}};
  auto runs = UnigramModel::Build(vocab, 0, false, UnigramFlavor::kHuggingFace);
  ASSERT_TRUE(runs.ok());
  EXPECT_TRUE((*runs)->segmented());  // "▁▁" follows only "▁": no cut falls inside it
  vocab.push_back(
      {"a\xE2\x96\x81"
       "b",
       -1, PieceType::kNormal});
  auto inside = UnigramModel::Build(vocab, 0, false, UnigramFlavor::kHuggingFace);
  ASSERT_TRUE(inside.ok());
  EXPECT_FALSE((*inside)->segmented());
  // Such a piece is still found across the point a cut would be.
  EXPECT_EQ(Ids(**inside,
                "a\xE2\x96\x81"
                "b"),
            std::vector<uint32_t>{3});
  // sentencepiece: an unused piece is never chosen, so it does not stop the cutting.
  vocab.back().type = PieceType::kUnused;
  auto unused = UnigramModel::Build(vocab, 0, false, UnigramFlavor::kSentencePiece);
  ASSERT_TRUE(unused.ok());
  EXPECT_TRUE((*unused)->segmented());
}

TEST(UnigramSegmentsTest, WithoutAnUnknownIdAnUnknownCharacterGivesNoId) {
  // (The tokenizer.json loader requires unk_id; the model alone takes none.)
  const std::vector<UnigramPiece> vocab = {{"\xE2\x96\x81"
                                            "a",
                                            -1, PieceType::kNormal},
                                           {"a", -2, PieceType::kNormal}};
  auto m = UnigramModel::Build(vocab, std::nullopt, false, UnigramFlavor::kHuggingFace);
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(Ids(**m,
                "\xE2\x96\x81"
                "ab"
                "\xE2\x96\x81"
                "a"),
            (std::vector<uint32_t>{0, 0}));
}

}  // namespace
}  // namespace tokenmill::hf
