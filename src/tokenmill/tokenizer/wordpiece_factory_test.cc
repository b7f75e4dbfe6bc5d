// WordPiece through the tokenizer factory (LoadTokenizer, LoadTokenizerFromStorage).
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tokenmill/tokenizer/tokenizer.h"

namespace tokenmill {
namespace {

const std::string kVocabDir = TOKENMILL_SOURCE_DIR "/data/vocab/";

std::vector<uint32_t> Encode(const Tokenizer& t, std::string_view text) {
  std::vector<uint32_t> ids;
  t.Encode(text, &ids);
  return ids;
}

TEST(WordPieceFactoryTest, VocabTxtAndTokenizerJsonFromStorage) {
  for (const char* file : {"bert-base-uncased/vocab.txt", "bert-base-uncased/tokenizer.json"}) {
    TokenizerOptions options;
    options.path = kVocabDir + file;
    auto t = LoadTokenizerFromStorage(options);
    ASSERT_TRUE(t.ok()) << t.status().ToString();
    EXPECT_EQ((*t)->kind(), TokenizerKind::kWordPiece);
    EXPECT_EQ(Encode(**t, "Hello, World!"), (std::vector<uint32_t>{7592, 1010, 2088, 999}));
    EXPECT_EQ((*t)->specials().cls, 101u);
  }
}

TEST(WordPieceFactoryTest, TokenizerJsonWithoutModelTypeIsWordPiece) {
  // The shared tokenizer.json files have no "type" in "model", as older HF files.
  const std::vector<TokenizerFile> files = {
      {"main", "tokenizer.json",
       R"({"model":{"unk_token":"[UNK]","continuing_subword_prefix":"##",)"
       R"("max_input_chars_per_word":100,"vocab":{"[UNK]":0,"[CLS]":1,"[SEP]":2,"hi":3}},)"
       R"("normalizer":{"type":"BertNormalizer","lowercase":true},)"
       R"("pre_tokenizer":{"type":"BertPreTokenizer"}})"}};
  TokenizerOptions options;
  options.path = "tokenizer.json";
  auto t = LoadTokenizer(options, files);
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  EXPECT_EQ(Encode(**t, "HI"), (std::vector<uint32_t>{3}));
}

TEST(WordPieceFactoryTest, CompatModeFromOptions) {
  TokenizerOptions options;
  options.path = kVocabDir + "bert-base-uncased/vocab.txt";
  options.compat = CompatMode::kGoogleBert;
  auto t = LoadTokenizerFromStorage(options);
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  // Google BERT: a word-final capital sigma is lowercased to final sigma.
  options.compat = CompatMode::kHuggingFace;
  auto hf = LoadTokenizerFromStorage(options);
  ASSERT_TRUE(hf.ok());
  EXPECT_NE(Encode(**t, "ΟΔΟΣ"), Encode(**hf, "ΟΔΟΣ"));
}

TEST(WordPieceFactoryTest, MissingFileNamesIt) {
  TokenizerOptions options;
  options.path = kVocabDir + "no-such-model/vocab.txt";
  auto t = LoadTokenizerFromStorage(options);
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.status().message().find("no-such-model/vocab.txt"), std::string::npos);
}

}  // namespace
}  // namespace tokenmill
