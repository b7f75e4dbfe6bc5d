// WordPiece through the tokenizer factory (LoadTokenizer, LoadTokenizerFromStorage).
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tokenmill/base/sha256.h"
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

TEST(WordPieceFactoryTest, SharedTokenizersAreBuiltOncePerOptionsAndBytes) {
  const std::string vocab = "[UNK]\n[CLS]\n[SEP]\nhi\nthere\n";
  TokenizerOptions options;
  options.path = "vocab.txt";
  const std::vector<TokenizerFile> files = {{"main", "vocab.txt", vocab}};
  auto a = LoadSharedTokenizer(options, files);
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  auto again = LoadSharedTokenizer(options, {{"main", "vocab.txt", vocab}});
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(a->get(), again->get()) << "same options and bytes: the same tokenizer";
  EXPECT_EQ(Encode(**again, "hi there"), (std::vector<uint32_t>{3, 4}));
  // Other bytes, other options: built anew.
  auto other_bytes = LoadSharedTokenizer(options, {{"main", "vocab.txt", vocab + "x\n"}});
  ASSERT_TRUE(other_bytes.ok());
  EXPECT_NE(other_bytes->get(), a->get());
  EXPECT_EQ((*other_bytes)->vocab_size(), 6u);
  TokenizerOptions cased = options;
  cased.lowercase = false;
  auto other_options = LoadSharedTokenizer(cased, files);
  ASSERT_TRUE(other_options.ok());
  EXPECT_NE(other_options->get(), a->get());
  EXPECT_EQ(Encode(**other_options, "HI"), (std::vector<uint32_t>{0}));
  EXPECT_EQ(Encode(**a, "HI"), (std::vector<uint32_t>{3}));
  // Errors are not kept.
  EXPECT_FALSE(LoadSharedTokenizer(options, {{"main", "vocab.txt", "hi\n"}}).ok());
}

TEST(WordPieceFactoryTest, ASharedTokenizerFoundByTheDigestItsCallerGives) {
  const std::string vocab = "[UNK]\n[CLS]\n[SEP]\nwith\ndigest\n";
  TokenizerOptions options;
  options.path = "vocab.txt";
  auto hashed = LoadSharedTokenizer(options, {{"main", "vocab.txt", vocab}});
  ASSERT_TRUE(hashed.ok()) << hashed.status().ToString();
  // The digest given is the one it would compute: the same tokenizer, not a second build.
  auto given = LoadSharedTokenizer(options, {{"main", "vocab.txt", vocab, Sha256Hex(vocab)}});
  ASSERT_TRUE(given.ok()) << given.status().ToString();
  EXPECT_EQ(given->get(), hashed->get());
  // The key is the digest: a caller's digest stands for the bytes (it verified them).
  const std::string other = "[UNK]\n[CLS]\n[SEP]\nother\n";
  auto by_other_digest =
      LoadSharedTokenizer(options, {{"main", "vocab.txt", vocab, Sha256Hex(other)}});
  ASSERT_TRUE(by_other_digest.ok());
  EXPECT_NE(by_other_digest->get(), hashed->get());
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
