#include "tokenmill/examples/gpt_builder.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tokenmill/examples/example_builder.h"
#include "tokenmill/examples/word_tokenizer_for_test.h"

namespace tokenmill {
namespace {

// vocab 1000 with <|endoftext|> = 999 and no BERT specials, like a GPT encoding.
const WordTokenizerForTest& GptTokenizer() {
  static const WordTokenizerForTest* tokenizer =
      new WordTokenizerForTest(1000, /*bert=*/false, /*eod=*/true);
  return *tokenizer;
}

StatusOr<std::unique_ptr<ExampleBuilder>> Make(const Tokenizer& tokenizer, ExampleOptions options) {
  options.kind = ExampleKind::kGpt;
  return CreateExampleBuilder(options, tokenizer, 0);
}

std::vector<Example> Build(ExampleBuilder& builder, const std::vector<std::string>& docs) {
  std::vector<Example> out;
  const ExampleSink sink = [&](const Example& e) {
    out.push_back(e);
    return Status::Ok();
  };
  for (const std::string& doc : docs) EXPECT_TRUE(builder.AddDocument(doc, sink).ok());
  EXPECT_TRUE(builder.Finish(sink).ok());
  return out;
}

TEST(GptBuilder, AppendsEndOfDocument) {
  auto builder = Make(GptTokenizer(), {});
  ASSERT_TRUE(builder.ok()) << builder.status().ToString();
  const auto examples = Build(**builder, {"t10 t11\nt12", "t13"});
  ASSERT_EQ(examples.size(), 2u);
  EXPECT_EQ(examples[0].tokens, (std::vector<uint32_t>{10, 11, 12, 999}));
  EXPECT_EQ(examples[0].num_real_tokens, 4u);
  EXPECT_TRUE(examples[0].input_mask.empty());
  EXPECT_TRUE(examples[0].segment_ids.empty());
  EXPECT_EQ(examples[1].tokens, (std::vector<uint32_t>{13, 999}));
  const BuilderStats& s = (*builder)->stats();
  EXPECT_EQ(s.documents, 2u);
  EXPECT_EQ(s.lines, 3u);
  EXPECT_EQ(s.tokens, 4u);  // the tokenizer's ids; end-of-document tokens are not counted
  EXPECT_EQ(s.examples, 2u);
  EXPECT_EQ(s.unk_tokens, 0u);
  EXPECT_EQ(s.truncated_tokens, 0u);
  EXPECT_EQ(s.one_segment_draws, 0u);
}

TEST(GptBuilder, EodFirstForLlmc) {
  ExampleOptions options;
  options.eod_first = true;
  auto builder = Make(GptTokenizer(), options);
  ASSERT_TRUE(builder.ok());
  const auto examples = Build(**builder, {"t10 t11", "t12"});
  ASSERT_EQ(examples.size(), 2u);
  EXPECT_EQ(examples[0].tokens, (std::vector<uint32_t>{999, 10, 11}));
  EXPECT_EQ(examples[1].tokens, (std::vector<uint32_t>{999, 12}));
  EXPECT_EQ(examples[1].num_real_tokens, 2u);
}

TEST(GptBuilder, NoEod) {
  ExampleOptions options;
  options.append_eod = false;
  options.eod_first = true;  // no token at all, before or after
  auto builder = Make(GptTokenizer(), options);
  ASSERT_TRUE(builder.ok());
  const auto examples = Build(**builder, {"t10 t11"});
  ASSERT_EQ(examples.size(), 1u);
  EXPECT_EQ(examples[0].tokens, (std::vector<uint32_t>{10, 11}));
  // A tokenizer without <|endoftext|> is fine when no token is added.
  WordTokenizerForTest bert;
  EXPECT_TRUE(Make(bert, options).ok());
}

TEST(GptBuilder, EmptyDocumentMakesNoExample) {
  for (const bool eod_first : {false, true}) {
    ExampleOptions options;
    options.eod_first = eod_first;
    auto builder = Make(GptTokenizer(), options);
    ASSERT_TRUE(builder.ok());
    const auto examples = Build(**builder, {"", "  \t ", "t10"});
    ASSERT_EQ(examples.size(), 1u);
    EXPECT_EQ(examples[0].num_real_tokens, 2u);
    EXPECT_EQ((*builder)->stats().documents, 3u);
    EXPECT_EQ((*builder)->stats().examples, 1u);
  }
}

TEST(GptBuilder, EodTokenOverride) {
  ExampleOptions options;
  options.eod_token = "[SEP]";
  WordTokenizerForTest bert;  // a BERT vocabulary: no <|endoftext|>, but [SEP] = 3
  auto builder = Make(bert, options);
  ASSERT_TRUE(builder.ok()) << builder.status().ToString();
  const auto examples = Build(**builder, {"t10 nope"});
  ASSERT_EQ(examples.size(), 1u);
  EXPECT_EQ(examples[0].tokens, (std::vector<uint32_t>{10, 1, 3}));
  EXPECT_EQ((*builder)->stats().unk_tokens, 1u);
  // A plain vocabulary token works too (found with TokenToId).
  options.eod_token = "t42";
  builder = Make(GptTokenizer(), options);
  ASSERT_TRUE(builder.ok());
  EXPECT_EQ(Build(**builder, {"t10"})[0].tokens, (std::vector<uint32_t>{10, 42}));
}

TEST(GptBuilder, MissingEodTokenIsAnError) {
  ExampleOptions options;
  options.eod_token = "<|im_end|>";
  auto builder = Make(GptTokenizer(), options);
  ASSERT_FALSE(builder.ok());
  EXPECT_EQ(builder.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(builder.status().message().find("'<|im_end|>'"), std::string::npos)
      << builder.status().message();
  // The default needs <|endoftext|> or an EOS; the message lists every spelling looked for.
  WordTokenizerForTest bert;
  builder = Make(bert, {});
  ASSERT_FALSE(builder.ok());
  EXPECT_NE(builder.status().message().find("(<|endoftext|>, </s>, <eos>, <|end_of_text|>, "),
            std::string::npos)
      << builder.status().message();
  EXPECT_NE(builder.status().message().find(", <EOS_TOKEN> or <EOT>); set [examples] eod_token"),
            std::string::npos)
      << builder.status().message();
}

TEST(GptBuilder, SinkErrorIsReturned) {
  auto builder = Make(GptTokenizer(), {});
  ASSERT_TRUE(builder.ok());
  const Status st =
      (*builder)->AddDocument("t10", [](const Example&) { return Status::Cancelled("stop"); });
  EXPECT_EQ(st.code(), StatusCode::kCancelled);
}

// A SentencePiece model: EOD defaults to its EOS </s>, prepend_bos puts its <s> before the text.
TEST(GptBuilder, SentencePieceBosAndEos) {
  TokenizerOptions topt;
  topt.path = TOKENMILL_SOURCE_DIR "/data/spm/unigram.model";
  auto tokenizer = LoadTokenizerFromStorage(topt);
  ASSERT_TRUE(tokenizer.ok()) << tokenizer.status().ToString();
  const Tokenizer& tok = **tokenizer;
  ASSERT_TRUE(tok.specials().bos.has_value());
  ASSERT_TRUE(tok.specials().eos.has_value());
  std::vector<uint32_t> text;
  tok.Encode("hello world", &text);
  for (const bool eod_first : {false, true}) {
    ExampleOptions options;
    options.prepend_bos = true;
    options.eod_first = eod_first;
    auto builder = Make(tok, options);
    ASSERT_TRUE(builder.ok()) << builder.status().ToString();
    const auto examples = Build(**builder, {"hello world", ""});
    ASSERT_EQ(examples.size(), 1u);
    std::vector<uint32_t> want;
    if (eod_first) want.push_back(*tok.specials().eos);
    want.push_back(*tok.specials().bos);
    want.insert(want.end(), text.begin(), text.end());
    if (!eod_first) want.push_back(*tok.specials().eos);
    EXPECT_EQ(examples[0].tokens, want);
  }
  ExampleOptions named;
  named.prepend_bos = true;
  named.bos_token = "</s>";
  named.eod_token = "<unk>";
  auto builder = Make(tok, named);
  ASSERT_TRUE(builder.ok());
  const auto examples = Build(**builder, {"a"});
  ASSERT_EQ(examples.size(), 1u);
  EXPECT_EQ(examples[0].tokens.front(), *tok.specials().eos);
  EXPECT_EQ(examples[0].tokens.back(), *tok.specials().unk);
  named.bos_token = "<nope>";
  auto bad = Make(tok, named);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("bos_token '<nope>'"), std::string::npos);
}

TEST(GptBuilder, PrependBosWithoutBosIsAnError) {
  ExampleOptions options;
  options.prepend_bos = true;
  auto builder = Make(GptTokenizer(), options);
  ASSERT_FALSE(builder.ok());
  EXPECT_NE(builder.status().message().find("prepend_bos"), std::string::npos);
  EXPECT_NE(builder.status().message().find("(<s>, <bos>, <|begin_of_text|>, "), std::string::npos)
      << builder.status().message();
  EXPECT_NE(builder.status().message().find(" or <BOS_TOKEN>); set [examples] bos_token"),
            std::string::npos)
      << builder.status().message();
}

// A document longer than stream_bytes() comes in parts whose tokens, joined, are the example a
// short document gives; the statistics are the same.
TEST(GptBuilder, LongDocumentsComeInParts) {
  for (const bool eod_first : {false, true}) {
    ExampleOptions options;
    options.eod_first = eod_first;
    auto whole = Make(GptTokenizer(), options);
    auto parts = Make(GptTokenizer(), options);
    ASSERT_TRUE(whole.ok() && parts.ok());
    static_cast<GptBuilder&>(**parts).set_streaming_for_testing(8, 4, 3);
    const std::vector<std::string> docs = {"t1 t2 t3 t4 t5 t6 t7", "t8", "t9 t10\nt11 t12", " "};
    const std::vector<Example> want = Build(**whole, docs);
    const std::vector<Example> got = Build(**parts, docs);
    std::vector<Example> joined;
    bool open = false;
    for (const Example& e : got) {
      if (!open)
        joined.push_back(e);
      else
        joined.back().tokens.insert(joined.back().tokens.end(), e.tokens.begin(), e.tokens.end());
      open = e.more;
    }
    EXPECT_FALSE(open);
    EXPECT_GT(got.size(), want.size());
    ASSERT_EQ(joined.size(), want.size());
    for (size_t k = 0; k < want.size(); ++k) EXPECT_EQ(joined[k].tokens, want[k].tokens) << k;
    const BuilderStats& a = (*whole)->stats();
    const BuilderStats& b = (*parts)->stats();
    EXPECT_EQ(a.documents, b.documents);
    EXPECT_EQ(a.lines, b.lines);
    EXPECT_EQ(a.tokens, b.tokens);
    EXPECT_EQ(a.examples, b.examples);
    EXPECT_EQ(a.unk_tokens, b.unk_tokens);
  }
}

}  // namespace
}  // namespace tokenmill
