#include "tokenmill/tokenizer/loaders/byte_level_bpe.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "tokenmill/base/utf8.h"
#include "tokenmill/tokenizer/loaders/bpe_test_util.h"
#include "tokenmill/tokenizer/pre_tokenizers/byte_level.h"

namespace tokenmill {
namespace {

using bpe_test::FormatIds;
using bpe_test::ParseIds;
using bpe_test::ReadFile;
using bpe_test::RepoPath;
using bpe_test::SharedPath;
using bpe_test::SplitLines;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;

// The ways to load a byte-level BPE tokenizer in these tests.
enum class Source { kTiktoken, kEncoderJson, kTokenizerJson };

// Loads `encoding` ("gpt2", "cl100k_base", ...) from the repo's data/vocab, or else from
// ../shared; nullptr (and *why set) when the files are in neither place.
std::unique_ptr<Tokenizer> LoadNew(std::string_view encoding, Source source, std::string* why,
                                   bool split_special_tokens) {
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

// LoadNew() once per configuration for the whole test program (tokenizers are immutable).
const Tokenizer* Load(std::string_view encoding, Source source, std::string* why,
                      bool split_special_tokens = true) {
  static auto* const loaded =
      new std::map<std::string, std::pair<std::unique_ptr<Tokenizer>, std::string>>;
  const std::string key = std::string(encoding) + "/" + std::to_string(static_cast<int>(source)) +
                          "/" + (split_special_tokens ? "split" : "literal");
  auto it = loaded->find(key);
  if (it == loaded->end()) {
    std::string reason;
    auto t = LoadNew(encoding, source, &reason, split_special_tokens);
    it = loaded->emplace(key, std::make_pair(std::move(t), reason)).first;
  }
  *why = it->second.second;
  return it->second.first.get();
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

TEST_P(BpeGoldenTest, EncodeValidUtf8GivesEncodesIds) {
  // `tokenize` checks its text a block at a time and encodes it without a second check.
  std::string why;
  auto tokenizer = Load(GetParam().encoding, GetParam().source, &why);
  if (tokenizer == nullptr) GTEST_SKIP() << why;
  size_t checked = 0;
  for (const char* input : {"edge-cases", "edge-cases-more", "part-00.head2000"}) {
    auto text = ReadFile(RepoPath(std::string("data/golden/") + input + ".txt"));
    ASSERT_TRUE(text) << input;
    for (const std::string_view line : SplitLines(*text)) {
      if (FindInvalidUtf8(line) != std::string_view::npos) continue;
      std::vector<uint32_t> want, got;
      tokenizer->Encode(line, &want);
      tokenizer->EncodeValidUtf8(line, &got);
      ASSERT_EQ(got, want) << input << ": " << line;
      ++checked;
    }
  }
  EXPECT_GT(checked, 2000u);
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

// ---- Loaders, special tokens, vocab_size, Decode, errors ----

std::string RepoVocab(const std::string& rel) {
  auto data = ReadFile(RepoPath("data/vocab/" + rel));
  EXPECT_TRUE(data.has_value()) << rel;
  return data.value_or("");
}

std::vector<uint32_t> Ids(const Tokenizer& t, std::string_view text) {
  std::vector<uint32_t> ids;
  t.Encode(text, &ids);
  return ids;
}

// cl100k_base from the repo (shared by the tests).
const Tokenizer* Cl100k(bool split_special_tokens = true) {
  std::string why;
  const Tokenizer* t = Load("cl100k_base", Source::kTiktoken, &why, split_special_tokens);
  EXPECT_NE(t, nullptr) << why;
  return t;
}

TEST(BpeTiktokenTest, EncodingComesFromTheFileNameOrTheOption) {
  const std::string ranks = RepoVocab("tiktoken/cl100k_base.tiktoken");
  auto by_name = LoadTiktoken(TokenizerOptions(), ranks, "cl100k_base.tiktoken");
  ASSERT_TRUE(by_name.ok()) << by_name.status().ToString();
  EXPECT_EQ((*by_name)->kind(), TokenizerKind::kBytePairEncoding);
  EXPECT_EQ((*by_name)->vocab_size(), 100277u);  // 100256 ranks, <|endofprompt|> = 100276

  auto unnamed = LoadTiktoken(TokenizerOptions(), ranks, "ranks.tiktoken");
  ASSERT_FALSE(unnamed.ok());
  EXPECT_THAT(unnamed.status().message(), HasSubstr("ranks.tiktoken"));
  EXPECT_THAT(unnamed.status().message(), HasSubstr("encoding"));
  EXPECT_THAT(unnamed.status().message(), HasSubstr("cl100k_base"));

  TokenizerOptions options;
  options.encoding = "cl100k_base";
  auto with_option = LoadTiktoken(options, ranks, "ranks.tiktoken");
  ASSERT_TRUE(with_option.ok()) << with_option.status().ToString();
  EXPECT_EQ(Ids(**with_option, "hello world"), Ids(**by_name, "hello world"));

  options.encoding = "o200k_base";
  auto wrong = LoadTiktoken(options, ranks, "cl100k_base.tiktoken");
  ASSERT_FALSE(wrong.ok());
  EXPECT_THAT(wrong.status().message(), HasSubstr("100256 ranks"));
  EXPECT_THAT(wrong.status().message(), HasSubstr("199998"));

  options.encoding = "cl200k";
  auto unknown = LoadTiktoken(options, ranks, "cl100k_base.tiktoken");
  ASSERT_FALSE(unknown.ok());
  EXPECT_THAT(unknown.status().message(), HasSubstr("unknown tiktoken encoding 'cl200k'"));
}

TEST(BpeTiktokenTest, KeysOfOtherKindsAreErrors) {
  const std::string ranks = RepoVocab("tiktoken/cl100k_base.tiktoken");
  TokenizerOptions options;
  options.lowercase = true;
  auto lower = LoadTiktoken(options, ranks, "cl100k_base.tiktoken");
  ASSERT_FALSE(lower.ok());
  EXPECT_THAT(lower.status().message(), HasSubstr("cl100k_base.tiktoken: [tokenizer] lowercase"));
  EXPECT_THAT(lower.status().message(), HasSubstr("WordPiece only"));
  options = TokenizerOptions();
  options.merges = "vocab.bpe";
  EXPECT_THAT(LoadTiktoken(options, ranks, "cl100k_base.tiktoken").status().message(),
              HasSubstr("merges applies to GPT-2 encoder.json only"));
  options = TokenizerOptions();
  options.encoding = "gpt2";
  EXPECT_THAT(LoadGpt2Encoder(options, "{}", "", "encoder.json").status().message(),
              HasSubstr("encoding applies to tiktoken rank files"));
  options = TokenizerOptions();
  options.compat = CompatMode::kGoogleBert;
  EXPECT_THAT(LoadBpeTokenizerJson(options, "{}", "tokenizer.json").status().message(),
              HasSubstr("compat applies to WordPiece only"));
}

TEST(BpeTiktokenTest, BadRankFileNamesFileAndLine) {
  TokenizerOptions options;
  options.encoding = "gpt2";
  auto bad = LoadTiktoken(options, "IQ== 0\nIg== 1\nnot-base64! 2\n", "mine.tiktoken");
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.status().message(), HasSubstr("mine.tiktoken line 3"));
  EXPECT_THAT(bad.status().message(), HasSubstr("<base64 token> <rank>"));

  // Base64 that is not: a length not a multiple of 4, padding too long or not at the end, a
  // character outside the alphabet (in the data or where the padding goes), no token at all.
  for (const char* token : {"QQ=", "QUJDR", "Q===", "====", "=QQQ", "QQ=Q", "Q=Q=", "QQ?=", "QQ=?",
                            "QUJD\x80"
                            "AAA",
                            "-_AA", ""}) {
    auto not_base64 =
        LoadTiktoken(options, "IQ== 0\n" + std::string(token) + " 1\n", "mine.tiktoken");
    ASSERT_FALSE(not_base64.ok()) << token;
    EXPECT_THAT(not_base64.status().message(), HasSubstr("mine.tiktoken line 2")) << token;
    EXPECT_THAT(not_base64.status().message(), HasSubstr("<base64 token> <rank>")) << token;
  }

  auto no_rank = LoadTiktoken(options, "IQ==\n", "mine.tiktoken");
  ASSERT_FALSE(no_rank.ok());
  EXPECT_THAT(no_rank.status().message(), HasSubstr("mine.tiktoken line 1"));

  auto repeated = LoadTiktoken(options, "IQ== 0\nIQ== 1\n", "mine.tiktoken");
  ASSERT_FALSE(repeated.ok());
  EXPECT_THAT(repeated.status().message(), HasSubstr("mine.tiktoken line 2"));
  EXPECT_THAT(repeated.status().message(), HasSubstr("repeated"));

  auto short_file = LoadTiktoken(options, "IQ== 0\n", "mine.tiktoken");
  ASSERT_FALSE(short_file.ok());
  EXPECT_THAT(short_file.status().message(), HasSubstr("has 1 ranks but encoding gpt2 has 50256"));
}

TEST(BpeTiktokenTest, SpecialTokens) {
  auto t = Cl100k();
  const SpecialTokens& s = t->specials();
  EXPECT_EQ(s.eod, 100257u);
  EXPECT_EQ(s.all.size(), 5u);
  EXPECT_EQ(s.all.at("<|fim_middle|>"), 100259u);
  EXPECT_EQ(s.all.at("<|endofprompt|>"), 100276u);
  EXPECT_FALSE(s.cls.has_value());

  // split_special_tokens (default true): the text is ordinary text, as encode_ordinary does.
  const auto plain = Ids(*t, "a<|endoftext|>b");
  EXPECT_EQ(std::count(plain.begin(), plain.end(), 100257u), 0);
  EXPECT_EQ(t->Decode(plain), "a<|endoftext|>b");

  auto literal = Cl100k(/*split_special_tokens=*/false);
  EXPECT_THAT(Ids(*literal, "<|endoftext|>"), ElementsAre(100257u));
  const auto mixed = Ids(*literal, "a <|endoftext|><|fim_prefix|> b");
  EXPECT_EQ(mixed, (std::vector<uint32_t>{Ids(*t, "a ")[0], Ids(*t, "a ")[1], 100257u, 100258u,
                                          Ids(*t, " b")[0]}));
  // A partial special token is text.
  EXPECT_EQ(Ids(*literal, "<|endoftext|"), Ids(*t, "<|endoftext|"));
}

// EncodeInPieces hands out Encode's ids in parts, the pieces encoded as the scanner finds them:
// the corpus sample as one text, with special tokens in it read as such or as text.
TEST(BpeTiktokenTest, EncodeInPiecesEqualsEncode) {
  const std::optional<std::string> corpus = ReadFile(RepoPath("data/sample/part-00.txt"));
  ASSERT_TRUE(corpus.has_value());
  std::string text = corpus->substr(0, 300000);
  for (size_t at = 1000; at < text.size(); at += 7919) text.insert(at, "<|endoftext|>");
  text += "\xFF<|fim_prefix|>";
  for (const bool split : {true, false}) {
    auto t = Cl100k(split);
    std::vector<uint32_t> want;
    t->Encode(text, &want);
    for (size_t piece_bytes : {size_t{1}, size_t{4096}, size_t{1} << 20}) {
      std::vector<uint32_t> got;
      int calls = 0;
      t->EncodeInPieces(text, piece_bytes, [&](std::span<const uint32_t> ids) {
        ++calls;
        got.insert(got.end(), ids.begin(), ids.end());
      });
      EXPECT_EQ(got, want) << "split " << split << ", pieces of " << piece_bytes;
      EXPECT_EQ(calls > 1, piece_bytes < text.size()) << piece_bytes;
    }
  }
}

// A pre-token of more than 16 pieces (a run of one letter, 3 MB) is streamed out of the
// backtracking encoder: several calls, the same ids as Encode.
TEST(BpeTiktokenTest, EncodeInPiecesStreamsAHugePreToken) {
  const std::string text = "one " + std::string(3 << 20, 'a') + " two";
  auto t = Cl100k();
  std::vector<uint32_t> want;
  t->Encode(text, &want);
  for (size_t piece_bytes : {size_t{4096}, size_t{1} << 16}) {
    std::vector<uint32_t> got;
    size_t calls = 0;
    size_t largest = 0;
    t->EncodeInPieces(text, piece_bytes, [&](std::span<const uint32_t> ids) {
      ++calls;
      largest = std::max(largest, ids.size());
      got.insert(got.end(), ids.begin(), ids.end());
    });
    EXPECT_EQ(got, want) << piece_bytes;
    EXPECT_GE(calls, 3u) << piece_bytes;
    EXPECT_LT(largest, want.size() / 2) << piece_bytes;
  }
}

TEST(BpeTiktokenTest, IdToTokenAndTokenToId) {
  auto t = Cl100k();
  const std::optional<uint32_t> the = t->TokenToId(" the");
  ASSERT_TRUE(the.has_value());
  EXPECT_EQ(t->IdToToken(*the), " the");
  EXPECT_THAT(Ids(*t, " the"), ElementsAre(*the));
  EXPECT_EQ(t->IdToToken(100257), "<|endoftext|>");
  EXPECT_EQ(t->TokenToId("<|endoftext|>"), 100257u);
  EXPECT_EQ(t->IdToToken(100256), "");  // no token has this id
  EXPECT_EQ(t->IdToToken(5000000), "");
  EXPECT_EQ(t->TokenToId("no such token at all"), std::nullopt);
  // Byte-level tokens are raw bytes, which need not be valid UTF-8 on their own.
  const auto cjk = Ids(*t, "\xe7\x96\xb5");  // 疵
  ASSERT_FALSE(cjk.empty());
  std::string joined;
  for (uint32_t id : cjk) joined += t->IdToToken(id);
  EXPECT_EQ(joined, "\xe7\x96\xb5");
}

TEST(BpeTiktokenTest, InvalidUtf8BecomesReplacementCharacters) {
  auto t = Cl100k();
  EXPECT_EQ(Ids(*t,
                "a\xff"
                "b"),
            Ids(*t,
                "a\xef\xbf\xbd"
                "b"));
  EXPECT_EQ(Ids(*t, "\xe4\xb8"), Ids(*t, "\xef\xbf\xbd"));  // truncated at the end
  EXPECT_EQ(Ids(*t, "x\xed\xa0\x80y"), Ids(*t,
                                           "x\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd"
                                           "y"));
  EXPECT_TRUE(Ids(*t, "").empty());
}

TEST(BpeTiktokenTest, DecodeRoundTripsValidUtf8) {
  std::string why;
  std::vector<const Tokenizer*> tokenizers;
  for (auto [encoding, source] :
       {std::pair{"gpt2", Source::kEncoderJson}, std::pair{"gpt2", Source::kTokenizerJson},
        std::pair{"cl100k_base", Source::kTiktoken}, std::pair{"o200k_base", Source::kTiktoken}}) {
    if (auto t = Load(encoding, source, &why)) tokenizers.push_back(t);
  }
  ASSERT_GE(tokenizers.size(), 3u);
  for (const char* file : {"data/golden/edge-cases.txt", "data/golden/edge-cases-more.txt",
                           "data/golden/part-00.head2000.txt"}) {
    auto text = ReadFile(RepoPath(file));
    ASSERT_TRUE(text.has_value());
    for (const auto& t : tokenizers) {
      for (std::string_view line : SplitLines(*text)) {
        ASSERT_EQ(t->Decode(Ids(*t, line)), line) << file;
      }
    }
  }
}

// GPT-2's merges decide whether a token is taken whole the first time a piece asks for it:
// threads that meet the same tokens first at once, on a tokenizer loaded for this test, get the
// ids of one that met them one at a time. (Under ThreadSanitizer: the answers race without harm.)
TEST(BpeTokenizerJsonTest, ThreadsFirstMeetingTokensTogetherGetTheSameIds) {
  std::string why;
  const Tokenizer* reference = Load("gpt2", Source::kTokenizerJson, &why);
  ASSERT_NE(reference, nullptr) << why;
  auto text = ReadFile(RepoPath("data/golden/part-00.head2000.txt"));
  ASSERT_TRUE(text.has_value());
  const auto lines = SplitLines(*text);
  std::vector<std::vector<uint32_t>> want;
  for (std::string_view line : lines) want.push_back(Ids(*reference, line));
  const std::unique_ptr<Tokenizer> fresh = LoadNew("gpt2", Source::kTokenizerJson, &why, true);
  ASSERT_NE(fresh, nullptr) << why;
  std::vector<int> mismatches(4, 0);
  std::vector<std::thread> threads;
  for (size_t t = 0; t < mismatches.size(); ++t) {
    threads.emplace_back([&, t] {
      for (size_t i = 0; i < lines.size(); ++i) mismatches[t] += Ids(*fresh, lines[i]) != want[i];
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_THAT(mismatches, ::testing::Each(0));
}

TEST(BpeTiktokenTest, ConcurrentEncodeGivesTheSameIds) {
  const Tokenizer* t = Cl100k();
  auto text = ReadFile(RepoPath("data/golden/part-00.head2000.txt"));
  ASSERT_TRUE(text.has_value());
  const auto lines = SplitLines(*text);
  std::vector<std::vector<uint32_t>> want;
  for (std::string_view line : lines) want.push_back(Ids(*t, line));
  std::vector<int> mismatches(4, 0);
  std::vector<std::thread> threads;
  for (int k = 0; k < 4; ++k) {
    threads.emplace_back([&, k] {
      std::vector<uint32_t> ids;
      for (size_t i = 0; i < lines.size(); ++i) {
        const size_t line = (i * 7 + k * 13) % lines.size();  // each thread in its own order
        ids.clear();
        t->Encode(lines[line], &ids);
        if (ids != want[line]) ++mismatches[k];
      }
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(mismatches, std::vector<int>(4, 0));
}

TEST(BpeGpt2Test, VocabSizeAndEndOfText) {
  std::string why;
  for (Source source : {Source::kEncoderJson, Source::kTokenizerJson}) {
    auto t = Load("gpt2", source, &why);
    ASSERT_NE(t, nullptr) << why;
    EXPECT_EQ(t->vocab_size(), 50257u);
    EXPECT_EQ(t->specials().eod, 50256u);
    EXPECT_EQ(t->IdToToken(50256), "<|endoftext|>");
    const std::optional<uint32_t> the = t->TokenToId(" the");  // "\u0120the" in the file
    ASSERT_TRUE(the.has_value());
    EXPECT_EQ(*the, 262u);
    auto literal = Load("gpt2", source, &why, /*split_special_tokens=*/false);
    ASSERT_NE(literal, nullptr) << why;
    EXPECT_THAT(Ids(*literal, "<|endoftext|>"), ElementsAre(50256u));
    EXPECT_NE(Ids(*t, "<|endoftext|>").size(), 1u);
  }
  auto r50k = Load("gpt2", Source::kTiktoken, &why);
  if (r50k == nullptr) GTEST_SKIP() << why;
  EXPECT_EQ(r50k->vocab_size(), 50257u);
}

TEST(BpeGpt2Test, O200kVocabSize) {
  std::string why;
  auto t = Load("o200k_base", Source::kTiktoken, &why);
  if (t == nullptr) GTEST_SKIP() << why;
  EXPECT_EQ(t->vocab_size(), 200019u);
  EXPECT_EQ(t->specials().eod, 199999u);
  EXPECT_EQ(t->specials().all.at("<|endofprompt|>"), 200018u);
}

TEST(BpeGpt2Test, EncoderJsonErrorsNameFileAndLine) {
  const std::string encoder = RepoVocab("gpt2/encoder.json");
  TokenizerOptions options;
  auto bad_line =
      LoadGpt2Encoder(options, encoder, "#version: 0.2\n\u0120 t\nbad line here\n", "encoder.json");
  ASSERT_FALSE(bad_line.ok());
  EXPECT_THAT(bad_line.status().message(), HasSubstr("line 3"));
  EXPECT_THAT(bad_line.status().message(), HasSubstr("two tokens"));

  auto unknown = LoadGpt2Encoder(options, encoder, "#version: 0.2\nzzzzqqqq t\n", "encoder.json");
  ASSERT_FALSE(unknown.ok());
  EXPECT_THAT(unknown.status().message(), HasSubstr("line 2"));
  EXPECT_THAT(unknown.status().message(), HasSubstr("zzzzqqqq"));

  auto not_json = LoadGpt2Encoder(options, "[1, 2", "", "encoder.json");
  ASSERT_FALSE(not_json.ok());
  EXPECT_THAT(not_json.status().message(), HasSubstr("encoder.json"));

  auto bad_id = LoadGpt2Encoder(options, R"({"a": -1})", "", "encoder.json");
  ASSERT_FALSE(bad_id.ok());
  EXPECT_THAT(bad_id.status().message(), HasSubstr("\"a\""));

  // Characters outside the alphabet: U+00AD (byte 173 is written U+0143), U+0200 (past it),
  // a three-byte character; the alphabet's own characters of one and two bytes load.
  for (const std::string token : {"a\u00ad", "\u0200", "\u4e2d", "x\u0120\u4e2d"}) {
    auto outside = LoadGpt2Encoder(options, "{\"!\": 0, \"" + token + "\": 1}", "#version: 0.2\n",
                                   "encoder.json");
    ASSERT_FALSE(outside.ok()) << token;
    EXPECT_THAT(outside.status().message(), HasSubstr("byte-level alphabet")) << token;
  }
  auto inside = LoadGpt2Encoder(options, "{\"!\": 0, \"\u0120\u00ff\u0143\": 1}", "#version: 0.2\n",
                                "encoder.json");
  EXPECT_THAT(inside.status().message(), Not(HasSubstr("byte-level alphabet")));
}

// ---- tokenizer.json beyond GPT-2's: built here, small ----

// GPT-2's byte-level alphabet: the character that stands for byte b.
std::string ByteChar(unsigned b) {
  unsigned extra = 0;
  unsigned cp = b;
  if (!((b >= 33 && b <= 126) || (b >= 161 && b <= 172) || b >= 174)) {
    for (unsigned x = 0; x < b; ++x) {
      if (!((x >= 33 && x <= 126) || (x >= 161 && x <= 172) || x >= 174)) ++extra;
    }
    cp = 256 + extra;
  }
  std::string out;
  if (cp < 0x80) {
    out.push_back(static_cast<char>(cp));
  } else {
    out.push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
  return out;
}

// A tokenizer.json whose byte tokens have id = byte value, plus `merges` (byte-level strings)
// whose results get ids from 256 on.
nlohmann::json SmallTokenizerJson(const std::vector<std::pair<std::string, std::string>>& merges) {
  nlohmann::json vocab = nlohmann::json::object();
  for (unsigned b = 0; b < 256; ++b) vocab[ByteChar(b)] = b;
  nlohmann::json merge_list = nlohmann::json::array();
  uint32_t next = 256;
  for (const auto& [a, b] : merges) {
    if (!vocab.contains(a + b)) vocab[a + b] = next++;
    merge_list.push_back(a + " " + b);
  }
  nlohmann::json j;
  j["version"] = "1.0";
  j["added_tokens"] = nlohmann::json::array();
  j["normalizer"] = nullptr;
  j["pre_tokenizer"] = {{"type", "ByteLevel"}, {"add_prefix_space", false}, {"use_regex", true}};
  j["model"] = {{"type", "BPE"},
                {"dropout", nullptr},
                {"unk_token", nullptr},
                {"vocab", vocab},
                {"merges", merge_list}};
  return j;
}

StatusOr<std::unique_ptr<Tokenizer>> FromJson(const nlohmann::json& j, bool split = true) {
  TokenizerOptions options;
  options.split_special_tokens = split;
  return LoadBpeTokenizerJson(options, j.dump(), "small/tokenizer.json");
}

// Tokens and merge sides of every length, long ones before short ones and two-byte characters
// among them, each found by its own bytes: the loader converts them all through one reused
// buffer. A token outside the byte-level alphabet on the way is kept as text.
TEST(BpeTokenizerJsonTest, TokensOfEveryLengthInAnyOrderAreEachTheirOwnBytes) {
  const std::string e = ByteChar(0xC3) + ByteChar(0xA9);  // "é": four bytes for two
  auto j = SmallTokenizerJson({{"a", "b"},
                               {"ab", "ab"},
                               {"abab", "abab"},
                               {"abababab", "abababab"},  // 16 bytes: past a short string's room
                               {"c", "d"},
                               {ByteChar(0xC3), ByteChar(0xA9)},
                               {e, e},
                               {"abababababababab", e + e}});
  j["model"]["vocab"]["x\u4e2d"] = 264;
  auto t = FromJson(j);
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  const std::pair<std::string, uint32_t> tokens[] = {
      {"ab", 256}, {"abab", 257},   {"abababab", 258},     {"abababababababab", 259},
      {"cd", 260}, {"\u00e9", 261}, {"\u00e9\u00e9", 262}, {"abababababababab\u00e9\u00e9", 263}};
  for (const auto& [text, id] : tokens) EXPECT_THAT(Ids(**t, text), ElementsAre(id)) << text;
  EXPECT_THAT(Ids(**t, "ababab"), ElementsAre(257u, 256u));
}

// model.merges as "a b" strings or [a, b] pairs gives the same tokenizer; an entry of neither form,
// or a token not in the vocabulary, is refused with the entry's 1-based index.
TEST(BpeTokenizerJsonTest, MergesAsStringsOrPairsAndBadEntriesNamed) {
  auto j = SmallTokenizerJson({{"a", "b"}, {"ab", "c"}, {ByteChar(' '), "abc"}});
  auto strings = FromJson(j);
  ASSERT_TRUE(strings.ok()) << strings.status().ToString();
  nlohmann::json pairs = nlohmann::json::array();
  for (const auto& m : j["model"]["merges"]) {
    const std::string s = m.get<std::string>();
    pairs.push_back({s.substr(0, s.find(' ')), s.substr(s.find(' ') + 1)});
  }
  auto jp = j;
  jp["model"]["merges"] = pairs;
  auto as_pairs = FromJson(jp);
  ASSERT_TRUE(as_pairs.ok()) << as_pairs.status().ToString();
  for (const std::string text : {"abc", " abc abcab", "cab ab"}) {
    EXPECT_EQ(Ids(**as_pairs, text), Ids(**strings, text)) << text;
  }
  EXPECT_THAT(Ids(**strings, " abc"), ElementsAre(258u));
  const std::pair<nlohmann::json, std::string> bad[] = {
      {"ab", "entry 2 \"ab\": expected two tokens separated by one space"},
      {"a b c", "entry 2 \"a b c\": expected two tokens separated by one space"},
      {nlohmann::json::array({"a"}), "entry 2 is neither \"a b\" nor [a, b]"},
      {7, "entry 2 is neither \"a b\" nor [a, b]"},
      {nlohmann::json::array({"a", 1}), "entry 2 is neither \"a b\" nor [a, b]"},
      {"a zz", "entry 2: token \"zz\" is not in model.vocab"},
      {nlohmann::json::array({"zz", "a"}), "entry 2: token \"zz\" is not in model.vocab"}};
  for (const auto& [entry, message] : bad) {
    auto jb = j;
    jb["model"]["merges"][1] = entry;
    auto t = FromJson(jb);
    ASSERT_FALSE(t.ok()) << entry.dump();
    EXPECT_THAT(t.status().message(), HasSubstr("small/tokenizer.json: model.merges " + message))
        << entry.dump();
  }
}

// The loader converts and fetches tokens and merges some way ahead of adding them: with more of
// each than it looks ahead, every merge still gets its own ids, and a bad entry past the first
// few is named by its own index, the earliest one first.
TEST(BpeTokenizerJsonTest, ManyMergesKeepTheirIdsAndBadOnesTheirIndex) {
  std::vector<std::pair<std::string, std::string>> merges;
  for (int i = 0; i < 60; ++i) {
    merges.emplace_back(std::string(1, static_cast<char>('a' + i % 26)),
                        std::string(1, static_cast<char>('a' + (i / 26 + i % 7) % 26)));
  }
  auto j = SmallTokenizerJson(merges);
  auto t = FromJson(j);
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  for (const auto& [a, b] : merges) {
    const uint32_t id = j["model"]["vocab"][a + b].get<uint32_t>();
    EXPECT_THAT(Ids(**t, a + b), ElementsAre(id)) << a + b;
  }
  // Entry 41 names a token that is not in the vocabulary, entry 45 one whose join is not.
  auto jb = j;
  jb["model"]["merges"][40] = "a zz";
  jb["model"]["merges"][44] = ByteChar(' ') + " " + ByteChar(' ');
  auto bad = FromJson(jb);
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.status().message(),
              HasSubstr("model.merges entry 41: token \"zz\" is not in model.vocab"));
  jb["model"]["merges"][40] = j["model"]["merges"][40];
  bad = FromJson(jb);
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.status().message(),
              HasSubstr("model.merges entry 45: the merged token is not in the vocabulary"));
}

TEST(BpeTokenizerJsonTest, AddPrefixSpace) {
  auto j = SmallTokenizerJson({{"a", "b"}, {ByteChar(' '), "a"}});
  j["pre_tokenizer"]["add_prefix_space"] = true;
  auto t = FromJson(j);
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  EXPECT_THAT(Ids(**t, "ab"), ElementsAre(' ', 256u));  // " ab": (a,b) is the first merge
  EXPECT_THAT(Ids(**t, " a"), ElementsAre(257u));       // no second space
  EXPECT_TRUE(Ids(**t, "").empty());
}

// DeepSeek-V3's three Split steps run as one scanner; nested in a Sequence of their own they are
// three PCRE2 splitters in turn, and both give the same ids.
TEST(BpeTokenizerJsonTest, DeepSeekV3SplitChainIsOneScanner) {
  auto j = SmallTokenizerJson({{"1", "2"}, {"12", "3"}, {"4", "5"}, {ByteChar(' '), "x"}});
  const auto split = [](std::string_view regex) {
    return nlohmann::json{{"type", "Split"},
                          {"pattern", {{"Regex", std::string(regex)}}},
                          {"behavior", "Isolated"},
                          {"invert", false}};
  };
  const auto regexes = bpe::PatternRegexes(bpe::Pattern::kDeepSeekV3);
  ASSERT_EQ(regexes.size(), 3u);
  const nlohmann::json byte_level = {
      {"type", "ByteLevel"}, {"add_prefix_space", false}, {"use_regex", false}};
  j["pre_tokenizer"] = {
      {"type", "Sequence"},
      {"pretokenizers", {split(regexes[0]), split(regexes[1]), split(regexes[2]), byte_level}}};
  auto fused = FromJson(j);
  ASSERT_TRUE(fused.ok()) << fused.status().ToString();
  // Digits in threes before anything else: "x12345" is x|123|45, and " x" keeps its space.
  EXPECT_THAT(Ids(**fused, "x12345 x1"), ElementsAre('x', 257u, 258u, 259u, '1'));
  nlohmann::json nested = j;
  nested["pre_tokenizer"]["pretokenizers"][0] = {{"type", "Sequence"},
                                                 {"pretokenizers", {split(regexes[0])}}};
  auto regex = FromJson(nested);
  ASSERT_TRUE(regex.ok()) << regex.status().ToString();
  for (const char* file : {"data/golden/edge-cases.txt", "data/golden/edge-cases-more.txt",
                           "data/golden/part-00.head2000.txt"}) {
    auto text = bpe_test::ReadFile(bpe_test::RepoPath(file));
    ASSERT_TRUE(text.has_value()) << file;
    size_t line_number = 0;
    for (std::string_view line : bpe_test::SplitLines(*text)) {
      ++line_number;
      ASSERT_EQ(Ids(**fused, line), Ids(**regex, line)) << file << ":" << line_number;
    }
  }
}

// HF's Digits step before ByteLevel (Command R's layout): with individual_digits and GPT-2's
// regex in the ByteLevel step, one scanner; nested in a Sequence of its own, a PCRE2 split and
// then GPT-2's scanner, with the same ids. Without individual_digits, runs of digits.
TEST(BpeTokenizerJsonTest, DigitsBeforeByteLevel) {
  auto j = SmallTokenizerJson({{"1", "2"}, {ByteChar(' '), "1"}, {"a", "b"}});
  const nlohmann::json digits = {{"type", "Digits"}, {"individual_digits", true}};
  const nlohmann::json byte_level = {
      {"type", "ByteLevel"}, {"add_prefix_space", false}, {"use_regex", true}};
  j["pre_tokenizer"] = {{"type", "Sequence"}, {"pretokenizers", {digits, byte_level}}};
  auto fused = FromJson(j);
  ASSERT_TRUE(fused.ok()) << fused.status().ToString();
  // Every digit alone, and the space before one too: no "12", no " 1".
  EXPECT_THAT(Ids(**fused, "ab 12"), ElementsAre(258u, ' ', '1', '2'));
  nlohmann::json nested = j;
  nested["pre_tokenizer"]["pretokenizers"][0] = {{"type", "Sequence"}, {"pretokenizers", {digits}}};
  auto steps = FromJson(nested);
  ASSERT_TRUE(steps.ok()) << steps.status().ToString();
  for (const char* file : {"data/golden/edge-cases.txt", "data/golden/edge-cases-more.txt",
                           "data/golden/part-00.head2000.txt"}) {
    auto text = bpe_test::ReadFile(bpe_test::RepoPath(file));
    ASSERT_TRUE(text.has_value()) << file;
    size_t line_number = 0;
    for (std::string_view line : bpe_test::SplitLines(*text)) {
      ++line_number;
      ASSERT_EQ(Ids(**fused, line), Ids(**steps, line)) << file << ":" << line_number;
    }
  }
  // Runs of digits without individual_digits: "12" merges, " " stays apart.
  j["pre_tokenizer"]["pretokenizers"][0]["individual_digits"] = false;
  auto runs = FromJson(j);
  ASSERT_TRUE(runs.ok()) << runs.status().ToString();
  EXPECT_THAT(Ids(**runs, "ab 12"), ElementsAre(258u, ' ', 256u));
  // After the ByteLevel step it would see the byte-mapped text: refused.
  std::swap(j["pre_tokenizer"]["pretokenizers"][0], j["pre_tokenizer"]["pretokenizers"][1]);
  auto after = FromJson(j);
  ASSERT_FALSE(after.ok());
  EXPECT_THAT(after.status().message(), HasSubstr("a Digits step after the ByteLevel step"));
}

TEST(BpeTokenizerJsonTest, SplitStepsBeforeByteLevel) {
  // With merges "3 4", "1 2", "12 3": GPT-2's split keeps "1234" whole (12|34), cl100k's splits
  // digits in threes (123|4).
  auto j = SmallTokenizerJson({{"3", "4"}, {"1", "2"}, {"12", "3"}});
  auto gpt2 = FromJson(j);
  ASSERT_TRUE(gpt2.ok()) << gpt2.status().ToString();
  EXPECT_THAT(Ids(**gpt2, "1234"), ElementsAre(257u, 256u));
  j["pre_tokenizer"] = {
      {"type", "Sequence"},
      {"pretokenizers",
       {{{"type", "Split"},
         {"pattern", {{"Regex", std::string(bpe::PatternRegex(bpe::Pattern::kCl100k))}}},
         {"behavior", "Isolated"},
         {"invert", false}},
        {{"type", "ByteLevel"}, {"add_prefix_space", false}, {"use_regex", false}}}}};
  auto cl100k = FromJson(j);
  ASSERT_TRUE(cl100k.ok()) << cl100k.status().ToString();
  EXPECT_THAT(Ids(**cl100k, "1234"), ElementsAre(258u, '4'));
  // The ByteLevel step after the Split hands pieces on whole, so the Split is the last stage:
  // Encode and EncodeInPieces (which then streams the Split's pieces) agree on a longer text.
  std::string text;
  for (int i = 0; i < 3000; ++i) text += " 1234 x" + std::to_string(i) + " \xE4\xB8\xAD 12\n";
  const std::vector<uint32_t> want = Ids(**cl100k, text);
  for (size_t piece_bytes : {size_t{1}, size_t{4096}}) {
    std::vector<uint32_t> got;
    (*cl100k)->EncodeInPieces(text, piece_bytes, [&](std::span<const uint32_t> ids) {
      got.insert(got.end(), ids.begin(), ids.end());
    });
    EXPECT_EQ(got, want) << piece_bytes;
  }
  // A Split after the ByteLevel step would see HF's byte-mapped text: refused.
  nlohmann::json reversed = j;
  std::swap(reversed["pre_tokenizer"]["pretokenizers"][0],
            reversed["pre_tokenizer"]["pretokenizers"][1]);
  auto after = FromJson(reversed);
  ASSERT_FALSE(after.ok());
  EXPECT_THAT(after.status().message(), HasSubstr("a Split after the ByteLevel step"));
  // Also where the ByteLevel step sits in a nested Sequence.
  nlohmann::json nested = reversed;
  nested["pre_tokenizer"]["pretokenizers"][0] = {
      {"type", "Sequence"}, {"pretokenizers", {reversed["pre_tokenizer"]["pretokenizers"][0]}}};
  auto nested_after = FromJson(nested);
  ASSERT_FALSE(nested_after.ok());
  EXPECT_THAT(nested_after.status().message(), HasSubstr("a Split after the ByteLevel step"));
  // "Removed" with invert keeps the matches and drops the text between them (the Xenova gpt-4
  // and gpt-4o files spell tiktoken's Split so: their patterns match every character, so the
  // two agree on them).
  nlohmann::json removed = j;
  removed["pre_tokenizer"]["pretokenizers"][0]["behavior"] = "Removed";
  removed["pre_tokenizer"]["pretokenizers"][0]["invert"] = true;
  auto matches_only = FromJson(removed);
  ASSERT_TRUE(matches_only.ok()) << matches_only.status().ToString();
  EXPECT_EQ(Ids(**matches_only, text), want);
  removed["pre_tokenizer"]["pretokenizers"][0]["pattern"] = {{"Regex", "\\p{N}+"}};
  auto digits_only = FromJson(removed);
  ASSERT_TRUE(digits_only.ok()) << digits_only.status().ToString();
  EXPECT_THAT(Ids(**digits_only, "x12 y34"), ElementsAre(257u, 256u));  // "12", "34"
  // Other behaviours are refused, naming what is supported.
  for (const auto& [behavior, invert] : {std::pair<std::string, bool>{"Removed", false},
                                         {"Isolated", true},
                                         {"MergedWithPrevious", false},
                                         {"Contiguous", false}}) {
    nlohmann::json other = j;
    other["pre_tokenizer"]["pretokenizers"][0]["behavior"] = behavior;
    other["pre_tokenizer"]["pretokenizers"][0]["invert"] = invert;
    auto refused = FromJson(other);
    ASSERT_FALSE(refused.ok()) << behavior;
    EXPECT_THAT(refused.status().message(),
                HasSubstr("behavior \"" + behavior + "\"" + (invert ? " with" : " without")));
    EXPECT_THAT(refused.status().message(), HasSubstr("\"Removed\" with invert"));
  }
  // Any other regex runs on PCRE2: here every digit alone, the text between kept.
  j["pre_tokenizer"]["pretokenizers"][0]["pattern"] = {{"Regex", "\\p{N}"}};
  auto digits = FromJson(j);
  ASSERT_TRUE(digits.ok()) << digits.status().ToString();
  EXPECT_THAT(Ids(**digits, "x12"), ElementsAre('x', '1', '2'));
  j["pre_tokenizer"]["pretokenizers"][0]["pattern"] = {{"Regex", "(unclosed"}};
  auto bad = FromJson(j);
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.status().message(), HasSubstr("small/tokenizer.json"));
  EXPECT_THAT(bad.status().message(), HasSubstr("(unclosed"));
}

TEST(BpeTokenizerJsonTest, AddedTokens) {
  auto j = SmallTokenizerJson({{"a", "b"}});
  j["added_tokens"] = {
      {{"id", 300},
       {"content", "<x>"},
       {"special", false},
       {"lstrip", false},
       {"rstrip", false},
       {"single_word", false},
       {"normalized", false}},
      {{"id", 301},
       {"content", "<s>"},
       {"special", true},
       {"lstrip", true},
       {"rstrip", true},
       {"single_word", false},
       {"normalized", false}},
  };
  auto split = FromJson(j, /*split=*/true);
  ASSERT_TRUE(split.ok()) << split.status().ToString();
  // A non-special added token always matches; a special one only without splitting.
  EXPECT_THAT(Ids(**split, "ab<x>ab"), ElementsAre(256u, 300u, 256u));
  EXPECT_EQ(Ids(**split, "<s>"), (std::vector<uint32_t>{'<', 's', '>'}));
  EXPECT_EQ((*split)->vocab_size(), 302u);
  EXPECT_EQ((*split)->specials().all.at("<s>"), 301u);
  EXPECT_EQ((*split)->IdToToken(300), "<x>");
  auto literal = FromJson(j, /*split=*/false);
  ASSERT_TRUE(literal.ok());
  // lstrip and rstrip take the spaces around.
  EXPECT_THAT(Ids(**literal, "ab  <s>  ab"), ElementsAre(256u, 301u, 256u));
}

// The BOS and EOS of the model families tokenmill knows are found among the special tokens,
// whatever the family: Llama-3's, DeepSeek-V3's; a non-special token of the same text is not one.
TEST(BpeTokenizerJsonTest, BeginAndEndOfSequenceOfEachFamily) {
  auto added = [](uint32_t id, const std::string& content, bool special) {
    return nlohmann::json{{"id", id},           {"content", content}, {"special", special},
                          {"lstrip", false},    {"rstrip", false},    {"single_word", false},
                          {"normalized", false}};
  };
  auto llama3 = SmallTokenizerJson({});
  llama3["added_tokens"] = {added(300, "<|begin_of_text|>", true),
                            added(301, "<|end_of_text|>", true), added(302, "<|eot_id|>", true)};
  auto t = FromJson(llama3);
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  EXPECT_EQ((*t)->specials().bos, 300u);
  EXPECT_EQ((*t)->specials().eos, 301u);
  EXPECT_FALSE((*t)->specials().eod.has_value());

  auto deepseek = SmallTokenizerJson({});
  deepseek["added_tokens"] = {added(300,
                                    "<\xEF\xBD\x9C"
                                    "begin\xE2\x96\x81of\xE2\x96\x81sentence\xEF\xBD\x9C>",
                                    true),
                              added(301,
                                    "<\xEF\xBD\x9C"
                                    "end\xE2\x96\x81of\xE2\x96\x81sentence\xEF\xBD\x9C>",
                                    true)};
  t = FromJson(deepseek);
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  EXPECT_EQ((*t)->specials().bos, 300u);
  EXPECT_EQ((*t)->specials().eos, 301u);

  auto command_r = SmallTokenizerJson({});
  command_r["added_tokens"] = {added(300, "<BOS_TOKEN>", true), added(301, "<EOS_TOKEN>", true),
                               added(302, "<|END_OF_TURN_TOKEN|>", false)};
  t = FromJson(command_r);
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  EXPECT_EQ((*t)->specials().bos, 300u);
  EXPECT_EQ((*t)->specials().eos, 301u);

  auto claude = SmallTokenizerJson({});
  claude["added_tokens"] = {added(300, "<EOT>", true), added(301, "<META>", true),
                            added(302, "<SOS>", true)};
  t = FromJson(claude);
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  EXPECT_EQ((*t)->specials().eos, 300u);
  EXPECT_FALSE((*t)->specials().bos.has_value());
  EXPECT_FALSE((*t)->specials().eod.has_value());

  auto qwen = SmallTokenizerJson({});
  qwen["added_tokens"] = {added(300, "<|endoftext|>", true), added(301, "<|im_end|>", true),
                          added(302, "<s>", false)};
  t = FromJson(qwen);
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  EXPECT_EQ((*t)->specials().eod, 300u);
  EXPECT_FALSE((*t)->specials().bos.has_value());
  EXPECT_FALSE((*t)->specials().eos.has_value());
}

TEST(BpeTokenizerJsonTest, NormalizerNfc) {
  auto j = SmallTokenizerJson({});
  j["normalizer"] = {{"type", "NFC"}};
  auto t = FromJson(j);
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  EXPECT_THAT(Ids(**t, "e\xcc\x81"), ElementsAre(0xC3u, 0xA9u));  // e + U+0301 -> U+00E9
  j["normalizer"] = {{"type", "Lowercase"}};
  auto lower = FromJson(j);
  ASSERT_FALSE(lower.ok());
  EXPECT_THAT(lower.status().message(), HasSubstr("'Lowercase' is not supported"));
}

TEST(BpeTokenizerJsonTest, ClearErrors) {
  auto j = SmallTokenizerJson({});
  j["pre_tokenizer"] = {{"type", "Metaspace"}};
  auto metaspace = FromJson(j);
  ASSERT_FALSE(metaspace.ok());
  EXPECT_THAT(metaspace.status().message(), HasSubstr("small/tokenizer.json"));
  EXPECT_THAT(metaspace.status().message(), HasSubstr("'Metaspace'"));

  j = SmallTokenizerJson({});
  j["model"]["dropout"] = 0.1;
  EXPECT_THAT(FromJson(j).status().message(), HasSubstr("dropout"));

  j = SmallTokenizerJson({});
  j["model"]["merges"] = {"a b c"};
  EXPECT_THAT(FromJson(j).status().message(), HasSubstr("merges entry 1"));

  j = SmallTokenizerJson({});
  j["model"]["merges"] = {"a zz"};
  EXPECT_THAT(FromJson(j).status().message(), HasSubstr("\"zz\" is not in model.vocab"));

  j = SmallTokenizerJson({});
  j["model"]["vocab"] = "not an object";
  auto structure = FromJson(j);
  ASSERT_FALSE(structure.ok());
  EXPECT_THAT(structure.status().message(), HasSubstr("small/tokenizer.json"));

  auto not_json = LoadBpeTokenizerJson(TokenizerOptions(), "{", "t.json");
  EXPECT_THAT(not_json.status().message(), HasSubstr("t.json: not valid JSON"));
}

TEST(BpeTokenizerJsonTest, MergesAsPairsOfStrings) {
  auto j = SmallTokenizerJson({{"a", "b"}});
  j["model"]["merges"] = nlohmann::json::array({nlohmann::json::array({"a", "b"})});  // [l, r]
  auto t = FromJson(j);
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  EXPECT_THAT(Ids(**t, "ab"), ElementsAre(256u));
}

}  // namespace
}  // namespace tokenmill
