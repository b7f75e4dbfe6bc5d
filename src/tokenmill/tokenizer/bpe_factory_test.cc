// Byte-level BPE through the tokenizer factory (LoadTokenizer, LoadTokenizerFromStorage).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tokenmill/tokenizer/tokenizer.h"

namespace tokenmill {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

const std::string kVocabDir = TOKENMILL_SOURCE_DIR "/data/vocab/";

std::vector<uint32_t> Encode(const Tokenizer& t, std::string_view text) {
  std::vector<uint32_t> ids;
  t.Encode(text, &ids);
  return ids;
}

TEST(BpeFactoryTest, Gpt2FilesFromStorage) {
  // encoder.json finds its merges (vocab.bpe) beside it; tokenizer.json is a BPE model.
  for (const char* file : {"gpt2/encoder.json", "gpt2/tokenizer.json"}) {
    TokenizerOptions options;
    options.path = kVocabDir + file;
    auto t = LoadTokenizerFromStorage(options);
    ASSERT_TRUE(t.ok()) << file << ": " << t.status().ToString();
    EXPECT_EQ((*t)->kind(), TokenizerKind::kBytePairEncoding);
    EXPECT_THAT(Encode(**t, "Hello world"), ElementsAre(15496, 995));
    EXPECT_EQ((*t)->specials().eod, 50256u);
    EXPECT_EQ((*t)->vocab_size(), 50257u);
  }
}

TEST(BpeFactoryTest, TiktokenFileNameImpliesTheEncoding) {
  TokenizerOptions options;
  options.path = kVocabDir + "tiktoken/cl100k_base.tiktoken";
  auto t = LoadTokenizerFromStorage(options);
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  EXPECT_THAT(Encode(**t, "Hello world"), ElementsAre(9906, 1917));
  EXPECT_EQ((*t)->specials().eod, 100257u);
  EXPECT_EQ((*t)->vocab_size(), 100277u);
}

TEST(BpeFactoryTest, TiktokenWithAnotherNameNeedsTheEncoding) {
  TokenizerOptions options;
  options.path = "ranks.tiktoken";
  const std::vector<TokenizerFile> files = {{"main", "ranks.tiktoken", "IQ== 0\n"}};
  auto t = LoadTokenizer(options, files);
  ASSERT_FALSE(t.ok());
  EXPECT_THAT(t.status().message(), HasSubstr("encoding"));
}

TEST(BpeFactoryTest, SplitSpecialTokensFromOptions) {
  TokenizerOptions options;
  options.path = kVocabDir + "gpt2/tokenizer.json";
  options.split_special_tokens = false;
  auto t = LoadTokenizerFromStorage(options);
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  EXPECT_THAT(Encode(**t, "<|endoftext|>"), ElementsAre(50256));
}

TEST(BpeFactoryTest, ExplicitMergesAndMissingMergesNameTheFile) {
  TokenizerOptions options;
  options.path = kVocabDir + "gpt2/encoder.json";
  options.merges = kVocabDir + "gpt2/vocab.bpe";
  auto t = LoadTokenizerFromStorage(options);
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  options.merges = kVocabDir + "gpt2/no-such-merges.bpe";
  auto missing = LoadTokenizerFromStorage(options);
  ASSERT_FALSE(missing.ok());
  EXPECT_THAT(missing.status().message(), HasSubstr("no-such-merges.bpe"));
}

}  // namespace
}  // namespace tokenmill
