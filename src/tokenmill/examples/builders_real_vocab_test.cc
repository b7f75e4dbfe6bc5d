// The builders with the real tokenizers and the sample corpus (data/).
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "tokenmill/base/rng.h"
#include "tokenmill/examples/electra_builder.h"
#include "tokenmill/examples/example_builder.h"
#include "tokenmill/io/document_reader.h"
#include "tokenmill/storage/storage.h"
#include "tokenmill/tokenizer/tokenizer.h"

namespace tokenmill {
namespace {

const std::string kData = TOKENMILL_SOURCE_DIR "/data";

std::unique_ptr<Tokenizer> LoadChineseBert() {
  TokenizerOptions options;
  options.path = kData + "/vocab/bert-base-chinese/vocab.txt";
  options.lowercase = true;
  auto tokenizer = LoadTokenizerFromStorage(options);
  EXPECT_TRUE(tokenizer.ok()) << tokenizer.status().ToString();
  return tokenizer.ok() ? std::move(tokenizer).value() : nullptr;
}

std::unique_ptr<Tokenizer> LoadCl100k() {
  TokenizerOptions options;
  options.path = kData + "/vocab/tiktoken/cl100k_base.tiktoken";
  auto tokenizer = LoadTokenizerFromStorage(options);
  EXPECT_TRUE(tokenizer.ok()) << tokenizer.status().ToString();
  return tokenizer.ok() ? std::move(tokenizer).value() : nullptr;
}

// Every document of the given input files, in order.
std::vector<std::string> ReadDocuments(const std::vector<std::string>& files, InputFormat format) {
  std::vector<std::string> docs;
  ReaderOptions options;
  options.format = format;
  for (const std::string& file : files) {
    auto storage = StorageFor(file);
    EXPECT_TRUE(storage.ok());
    if (!storage.ok()) return docs;
    auto reader = OpenDocumentReader(**storage, InputRange{file}, options);
    EXPECT_TRUE(reader.ok()) << reader.status().ToString();
    if (!reader.ok()) return docs;
    Document doc;
    while (true) {
      auto more = (*reader)->Next(&doc);
      EXPECT_TRUE(more.ok()) << more.status().ToString();
      if (!more.ok() || !*more) break;
      docs.push_back(doc.text);
    }
  }
  return docs;
}

TEST(ElectraRealVocab, SmallDocument) {
  auto tokenizer = LoadChineseBert();
  ASSERT_NE(tokenizer, nullptr);
  ASSERT_EQ(tokenizer->specials().cls, 101u);
  ASSERT_EQ(tokenizer->specials().sep, 102u);
  // max 8: A's target is (8 - 3) // 2 = 2. "中文" (704 3152) starts A; "测试" (3844 6407) does not
  // fit, and A has reached its target, so it starts B without a coin toss.
  uint64_t task = 0;
  while (Rng(12345, task).Uniform01() < 0.1) ++task;  // no one-segment draw
  ExampleOptions options;
  options.max_seq_length = 8;
  auto builder = CreateExampleBuilder(options, *tokenizer, task);
  ASSERT_TRUE(builder.ok());
  std::vector<Example> out;
  const ExampleSink sink = [&](const Example& e) {
    out.push_back(e);
    return Status::Ok();
  };
  ASSERT_TRUE(
      (*builder)
          ->AddDocument("\xe3\x80\x80\xe4\xb8\xad\xe6\x96\x87\n\xe6\xb5\x8b\xe8\xaf\x95", sink)
          .ok());
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].tokens, (std::vector<uint32_t>{101, 704, 3152, 102, 3844, 6407, 102, 0}));
  EXPECT_EQ(out[0].segment_ids, (std::vector<uint8_t>{0, 0, 0, 0, 1, 1, 1, 0}));
  EXPECT_EQ(out[0].input_mask, (std::vector<uint8_t>{1, 1, 1, 1, 1, 1, 1, 0}));
  EXPECT_EQ(out[0].num_real_tokens, 7u);
}

void ExpectBinomial(uint64_t hits, uint64_t n, double p, const char* what) {
  const double sigma = std::sqrt(static_cast<double>(n) * p * (1 - p));
  EXPECT_NEAR(static_cast<double>(hits), p * static_cast<double>(n), 5 * sigma)
      << what << ": " << hits << " of " << n;
}

TEST(ElectraRealVocab, SampleCorpus) {
  auto tokenizer = LoadChineseBert();
  ASSERT_NE(tokenizer, nullptr);
  const std::vector<std::string> docs = ReadDocuments(
      {kData + "/sample/part-00.txt", kData + "/sample/part-01.txt.gz"}, InputFormat::kText);
  ASSERT_EQ(docs.size(), 1949u + 1985u);
  ExampleOptions options;
  options.max_seq_length = 128;
  auto builder = CreateExampleBuilder(options, *tokenizer, 0);
  ASSERT_TRUE(builder.ok());
  uint64_t real_tokens = 0, segment_b = 0;
  const ExampleSink sink = [&](const Example& e) {
    EXPECT_EQ(e.tokens.size(), 128u);
    EXPECT_EQ(e.tokens[0], 101u);
    EXPECT_EQ(e.tokens[e.num_real_tokens - 1], 102u);
    for (uint32_t i = e.num_real_tokens; i < 128; ++i) {
      if (e.tokens[i] != 0 || e.input_mask[i] != 0 || e.segment_ids[i] != 0) {
        return Status::Internal("padding not zero");
      }
    }
    real_tokens += e.num_real_tokens;
    segment_b += e.segment_ids[e.num_real_tokens - 1];
    return Status::Ok();
  };
  for (const std::string& doc : docs) ASSERT_TRUE((*builder)->AddDocument(doc, sink).ok());
  ASSERT_TRUE((*builder)->Finish(sink).ok());
  const BuilderStats& s = (*builder)->stats();
  EXPECT_EQ(s.documents, docs.size());
  EXPECT_GT(s.examples, 5000u);
  EXPECT_GT(s.tokens, 600000u);
  EXPECT_LT(s.unk_tokens, s.tokens / 20);
  // Every id the tokenizer made is in an example or was truncated.
  const uint64_t specials = 2 * s.examples + segment_b;
  EXPECT_EQ(real_tokens - specials + s.truncated_tokens, s.tokens);
  ExpectBinomial(s.one_segment_hits, s.one_segment_draws, 0.1, "one-segment draw");
  ExpectBinomial(s.random_target_hits, s.random_target_draws, 0.05, "random-target draw");
  ExpectBinomial(s.overflow_coin_heads, s.overflow_coin_tosses, 0.5, "overflow coin");
  EXPECT_GT(s.overflow_coin_tosses, 1000u);
}

TEST(GptRealVocab, Cl100kEndOfText) {
  auto tokenizer = LoadCl100k();
  ASSERT_NE(tokenizer, nullptr);
  std::vector<std::string> docs =
      ReadDocuments({kData + "/sample-jsonl/part-00.jsonl"}, InputFormat::kJsonl);
  ASSERT_EQ(docs.size(), 1949u);
  docs.resize(300);
  for (const bool eod_first : {false, true}) {
    ExampleOptions options;
    options.kind = ExampleKind::kGpt;
    options.eod_first = eod_first;
    auto builder = CreateExampleBuilder(options, *tokenizer, 0);
    ASSERT_TRUE(builder.ok()) << builder.status().ToString();
    std::vector<Example> out;
    const ExampleSink sink = [&](const Example& e) {
      out.push_back(e);
      return Status::Ok();
    };
    for (const std::string& doc : docs) ASSERT_TRUE((*builder)->AddDocument(doc, sink).ok());
    ASSERT_EQ(out.size(), docs.size());
    uint64_t tokens = 0;
    for (size_t i = 0; i < docs.size(); ++i) {
      std::vector<uint32_t> want;
      if (eod_first) want.push_back(100257);
      tokenizer->Encode(docs[i], &want);
      if (!eod_first) want.push_back(100257);
      ASSERT_EQ(out[i].tokens, want) << "document " << i;
      EXPECT_EQ(out[i].num_real_tokens, want.size());
      tokens += want.size() - 1;
    }
    EXPECT_EQ((*builder)->stats().tokens, tokens);
    EXPECT_EQ((*builder)->stats().unk_tokens, 0u);
  }
  // cl100k_base has no [CLS]: ELECTRA examples are refused.
  ExampleOptions electra;
  auto refused = CreateExampleBuilder(electra, *tokenizer, 0);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("[CLS]"), std::string::npos);
}

}  // namespace
}  // namespace tokenmill
