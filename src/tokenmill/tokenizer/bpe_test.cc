#include "tokenmill/tokenizer/bpe.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "tokenmill/tokenizer/bpe_test_util.h"

namespace tokenmill {
namespace {

using bpe_test::FormatIds;
using bpe_test::ParseIds;
using bpe_test::ReadFile;
using bpe_test::RepoPath;
using bpe_test::SharedPath;
using bpe_test::SplitLines;

// The ways to load a byte-level BPE tokenizer in these tests.
enum class Source { kTiktoken, kEncoderJson, kTokenizerJson };

// Loads `encoding` ("gpt2", "cl100k_base", ...) from the repo's data/vocab, or else from
// ../shared; nullptr (and *why set) when the files are in neither place.
std::unique_ptr<Tokenizer> Load(std::string_view encoding, Source source, std::string* why,
                                bool split_special_tokens = true) {
  TokenizerOptions options;
  options.split_special_tokens = split_special_tokens;
  auto read = [why](const std::string& rel) -> std::optional<std::string> {
    if (auto data = ReadFile(RepoPath("data/vocab/" + rel))) return data;
    if (auto data = ReadFile(SharedPath("vocab/" + rel))) return data;
    *why = "data/vocab/" + rel + " is neither in the repo nor in ../shared/data";
    return std::nullopt;
  };
  StatusOr<std::unique_ptr<Tokenizer>> t = Status::NotFound("not loaded");
  switch (source) {
    case Source::kTiktoken: {
      const std::string name = std::string(encoding == "gpt2" ? "r50k_base" : encoding);
      auto data = read("tiktoken/" + name + ".tiktoken");
      if (!data) return nullptr;
      t = LoadTiktoken(options, *data, name + ".tiktoken");
      break;
    }
    case Source::kEncoderJson: {
      auto encoder = read("gpt2/encoder.json");
      auto merges = read("gpt2/vocab.bpe");
      if (!encoder || !merges) return nullptr;
      t = LoadGpt2Encoder(options, *encoder, *merges, "encoder.json");
      break;
    }
    case Source::kTokenizerJson: {
      auto json = read("gpt2/tokenizer.json");
      if (!json) return nullptr;
      t = LoadBpeTokenizerJson(options, *json, "tokenizer.json");
      break;
    }
  }
  EXPECT_TRUE(t.ok()) << t.status().ToString();
  if (!t.ok()) {
    *why = t.status().ToString();
    return nullptr;
  }
  return std::move(t).value();
}

// Encodes every line of `input` and compares with `golden` (one id array per line); reports
// the first differing line. Returns the number of lines compared.
size_t ExpectGolden(const Tokenizer& tokenizer, std::string_view input, std::string_view golden,
                    size_t max_lines, const std::string& what) {
  const auto lines = SplitLines(input);
  const auto expected = SplitLines(golden);
  const size_t n = std::min(max_lines, lines.size());
  EXPECT_GE(expected.size(), n) << what;
  std::vector<uint32_t> ids;
  for (size_t i = 0; i < n && i < expected.size(); ++i) {
    ids.clear();
    tokenizer.Encode(lines[i], &ids);
    const auto want = ParseIds(expected[i]);
    EXPECT_TRUE(want.has_value()) << what << ": golden line " << i + 1 << " is malformed";
    if (!want.has_value() || ids != *want) {
      ADD_FAILURE() << what << ": first difference at line " << i + 1 << "\n  text: " << lines[i]
                    << "\n  want: " << expected[i] << "\n  got:  " << FormatIds(ids);
      return i;
    }
  }
  return n;
}

struct GoldenCase {
  std::string encoding;  // golden file suffix
  Source source;
};

std::string CaseName(const GoldenCase& c) {
  const char* source = c.source == Source::kTiktoken      ? "tiktoken"
                       : c.source == Source::kEncoderJson ? "encoder_json"
                                                          : "tokenizer_json";
  return c.encoding + "_" + source;
}

class BpeGoldenTest : public ::testing::TestWithParam<GoldenCase> {};

TEST_P(BpeGoldenTest, EdgeCases) {
  std::string why;
  auto tokenizer = Load(GetParam().encoding, GetParam().source, &why);
  if (tokenizer == nullptr) GTEST_SKIP() << why;
  for (const char* input : {"edge-cases", "edge-cases-more"}) {
    auto text = ReadFile(RepoPath(std::string("data/golden/") + input + ".txt"));
    auto golden = ReadFile(
        RepoPath(std::string("data/golden/") + input + "." + GetParam().encoding + ".ids.jsonl"));
    ASSERT_TRUE(text && golden) << input;
    const size_t lines = SplitLines(*text).size();
    EXPECT_EQ(ExpectGolden(*tokenizer, *text, *golden, lines, input), lines);
  }
}

TEST_P(BpeGoldenTest, Corpus2000Lines) {
  std::string why;
  auto tokenizer = Load(GetParam().encoding, GetParam().source, &why);
  if (tokenizer == nullptr) GTEST_SKIP() << why;
  auto text = ReadFile(RepoPath("data/golden/part-00.head2000.txt"));
  auto golden =
      ReadFile(RepoPath("data/golden/part-00.head2000." + GetParam().encoding + ".ids.jsonl"));
  ASSERT_TRUE(text && golden);
  EXPECT_EQ(ExpectGolden(*tokenizer, *text, *golden, 2000, "part-00.head2000"), 2000u);
}

TEST_P(BpeGoldenTest, Corpus20000LinesFromShared) {
  auto text = ReadFile(SharedPath("corpus/part-00.txt"));
  auto golden =
      ReadFile(SharedPath("golden/part-00.head20000." + GetParam().encoding + ".ids.jsonl.gz"));
  if (!text || !golden) {
    GTEST_SKIP() << "../shared/data (corpus/part-00.txt and the 20000-line golden files) is "
                    "absent; the 2000-line test covers a fresh clone";
  }
  std::string why;
  auto tokenizer = Load(GetParam().encoding, GetParam().source, &why);
  if (tokenizer == nullptr) GTEST_SKIP() << why;
  EXPECT_EQ(ExpectGolden(*tokenizer, *text, *golden, 20000, "part-00.head20000"), 20000u);
}

INSTANTIATE_TEST_SUITE_P(All, BpeGoldenTest,
                         ::testing::Values(GoldenCase{"gpt2", Source::kTiktoken},
                                           GoldenCase{"gpt2", Source::kEncoderJson},
                                           GoldenCase{"gpt2", Source::kTokenizerJson},
                                           GoldenCase{"cl100k_base", Source::kTiktoken},
                                           GoldenCase{"o200k_base", Source::kTiktoken}),
                         [](const ::testing::TestParamInfo<GoldenCase>& info) {
                           return CaseName(info.param);
                         });

}  // namespace
}  // namespace tokenmill
