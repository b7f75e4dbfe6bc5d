#include "tokenmill/examples/bert_builder.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "tokenmill/examples/word_tokenizer_for_test.h"

namespace tokenmill {
namespace {

// The tokenizer of testdata/make_bert_golden.py: words separated by spaces; the vocabulary is
// [PAD] [UNK] [CLS] [SEP] [MASK], w5 .. w199, ##p200 .. ##p299 (id = line), other words [UNK].
class VocabTokenizerForTest : public Tokenizer {
 public:
  // `pieces_named_as_words`: the tokens of ids 200 .. 299 read "p200" .. "p299" (not pieces),
  // though the text's "##p200" .. "##p299" still encode to them.
  explicit VocabTokenizerForTest(bool with_mask = true, bool pieces_named_as_words = false) {
    tokens_ = {"[PAD]", "[UNK]", "[CLS]", "[SEP]", with_mask ? "[MASK]" : "[unused0]"};
    for (int i = 5; i < 200; ++i) tokens_.push_back("w" + std::to_string(i));
    for (int i = 200; i < 300; ++i) tokens_.push_back("##p" + std::to_string(i));
    for (uint32_t i = 0; i < tokens_.size(); ++i) ids_[tokens_[i]] = i;
    if (pieces_named_as_words) {
      for (size_t i = 200; i < 300; ++i) tokens_[i] = tokens_[i].substr(2);
    }
    specials_.pad = 0;
    specials_.unk = 1;
    specials_.cls = 2;
    specials_.sep = 3;
    if (with_mask) specials_.mask = 4;
  }
  TokenizerKind kind() const override { return TokenizerKind::kWordPiece; }
  void Encode(std::string_view text, std::vector<uint32_t>* ids) const override {
    std::istringstream in{std::string(text)};
    std::string word;
    while (in >> word) ids->push_back(TokenToId(word).value_or(1));
  }
  uint32_t vocab_size() const override { return static_cast<uint32_t>(tokens_.size()); }
  std::string_view IdToToken(uint32_t id) const override {
    return id < tokens_.size() ? std::string_view(tokens_[id]) : std::string_view();
  }
  std::optional<uint32_t> TokenToId(std::string_view token) const override {
    auto it = ids_.find(std::string(token));
    if (it == ids_.end()) return std::nullopt;
    return it->second;
  }
  std::string Decode(std::span<const uint32_t> ids) const override {
    std::string out;
    for (uint32_t id : ids) out += std::string(IdToToken(id)) + " ";
    return out;
  }
  const SpecialTokens& specials() const override { return specials_; }

 private:
  std::vector<std::string> tokens_;
  std::map<std::string, uint32_t> ids_;
  SpecialTokens specials_;
};

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

const std::string kTestdata = TOKENMILL_SOURCE_DIR "/src/tokenmill/examples/testdata/";

// One instance as the golden files write it.
std::string Describe(const Example& e) {
  auto join = [](auto begin, auto end) {
    std::string s;
    for (auto it = begin; it != end; ++it) s += (s.empty() ? "" : " ") + std::to_string(*it);
    return s;
  };
  size_t predictions = 0;
  while (predictions < e.masked_lm_weights.size() && e.masked_lm_weights[predictions] == 1.0f) {
    ++predictions;
  }
  const auto real = static_cast<std::ptrdiff_t>(e.num_real_tokens);
  const auto p = static_cast<std::ptrdiff_t>(predictions);
  return join(e.tokens.begin(), e.tokens.begin() + real) + " | " +
         join(e.segment_ids.begin(), e.segment_ids.begin() + real) + " | " +
         join(e.masked_lm_positions.begin(), e.masked_lm_positions.begin() + p) + " | " +
         join(e.masked_lm_ids.begin(), e.masked_lm_ids.begin() + p) + " | " +
         std::to_string(e.next_sentence_label);
}

// Checks what every BERT example must satisfy.
void CheckLayout(const Example& e, const ExampleOptions& o) {
  ASSERT_TRUE(e.bert);
  ASSERT_EQ(e.tokens.size(), o.max_seq_length);
  ASSERT_EQ(e.input_mask.size(), o.max_seq_length);
  ASSERT_EQ(e.segment_ids.size(), o.max_seq_length);
  ASSERT_EQ(e.masked_lm_positions.size(), o.max_predictions_per_seq);
  ASSERT_EQ(e.masked_lm_ids.size(), o.max_predictions_per_seq);
  ASSERT_EQ(e.masked_lm_weights.size(), o.max_predictions_per_seq);
  ASSERT_LE(e.next_sentence_label, 1u);
  const uint32_t n = e.num_real_tokens;
  ASSERT_GE(n, 5u);  // [CLS] a [SEP] b [SEP]
  EXPECT_EQ(e.tokens[0], 2u);
  EXPECT_EQ(e.tokens[n - 1], 3u);
  for (uint32_t i = 0; i < o.max_seq_length; ++i) {
    EXPECT_EQ(e.input_mask[i], i < n ? 1 : 0);
    if (i >= n) {
      EXPECT_EQ(e.tokens[i], 0u);
      EXPECT_EQ(e.segment_ids[i], 0);
    }
  }
  uint32_t previous = 0;
  for (uint32_t k = 0; k < o.max_predictions_per_seq; ++k) {
    if (e.masked_lm_weights[k] == 0.0f) {
      EXPECT_EQ(e.masked_lm_positions[k], 0u);
      EXPECT_EQ(e.masked_lm_ids[k], 0u);
      continue;
    }
    EXPECT_EQ(e.masked_lm_weights[k], 1.0f);
    EXPECT_GT(e.masked_lm_positions[k], previous);
    EXPECT_LT(e.masked_lm_positions[k], n - 1);
    previous = e.masked_lm_positions[k];
  }
}

struct GoldenCase {
  std::string file;
  ExampleOptions options;
};

std::vector<GoldenCase> GoldenCases() {
  auto make = [](std::string file, uint32_t m, uint32_t p, double mlm, double shrt, uint32_t d,
                 uint64_t seed, bool wwm) {
    GoldenCase c;
    c.file = std::move(file);
    c.options.kind = ExampleKind::kBert;
    c.options.max_seq_length = m;
    c.options.max_predictions_per_seq = p;
    c.options.masked_lm_prob = mlm;
    c.options.short_seq_prob = shrt;
    c.options.dupe_factor = d;
    c.options.seed = seed;
    c.options.do_whole_word_mask = wwm;
    c.options.google_compat = true;
    return c;
  };
  return {make("bert_golden_m32_p5_d2_s12345.txt", 32, 5, 0.15, 0.1, 2, 12345, false),
          make("bert_golden_m16_p3_d3_s7_wwm.txt", 16, 3, 0.2, 0.3, 3, 7, true),
          make("bert_golden_m64_p10_d1_s99_wwm.txt", 64, 10, 0.15, 0.1, 1, 99, true)};
}

std::vector<std::string> GoldenLines(const std::string& file) {
  std::istringstream in(ReadFile(kTestdata + file));
  std::vector<std::string> lines;
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty() && line[0] != '#') lines.push_back(line);
  }
  return lines;
}

// Splits the corpus at blank lines, as the text reader does.
std::vector<std::string> Documents(const std::string& corpus) {
  std::vector<std::string> docs;
  std::istringstream in(corpus);
  std::string line, doc;
  while (std::getline(in, line)) {
    if (line.find_first_not_of(' ') == std::string::npos) {
      if (!doc.empty()) docs.push_back(doc);
      doc.clear();
      continue;
    }
    doc += (doc.empty() ? "" : "\n") + line;
  }
  if (!doc.empty()) docs.push_back(doc);
  return docs;
}

TEST(BertBuilder, GoogleCompatMatchesTheScriptInstanceForInstance) {
  const VocabTokenizerForTest tokenizer;
  const std::string corpus = ReadFile(kTestdata + "bert_golden_input.txt");
  ASSERT_FALSE(corpus.empty());
  for (const GoldenCase& c : GoldenCases()) {
    SCOPED_TRACE(c.file);
    const std::vector<std::string> want = GoldenLines(c.file);
    ASSERT_GT(want.size(), 100u);
    // The whole corpus as one text (the builder cuts it at blank lines), and document by
    // document: the same instances.
    for (const bool by_document : {false, true}) {
      auto builder = BertBuilder::Create(c.options, tokenizer, 0);
      ASSERT_TRUE(builder.ok()) << builder.status().ToString();
      std::vector<std::string> got;
      auto sink = [&](const Example& e) {
        CheckLayout(e, c.options);
        got.push_back(Describe(e));
        return Status::Ok();
      };
      if (by_document) {
        for (const std::string& doc : Documents(corpus)) {
          ASSERT_TRUE((*builder)->AddDocument(doc, sink).ok());
        }
      } else {
        ASSERT_TRUE((*builder)->AddDocument(corpus, sink).ok());
      }
      EXPECT_TRUE(got.empty());  // compat: nothing before the end of the input
      ASSERT_TRUE((*builder)->Finish(sink).ok());
      ASSERT_EQ(got.size(), want.size());
      for (size_t i = 0; i < want.size(); ++i) ASSERT_EQ(got[i], want[i]) << "instance " << i;
      const BuilderStats& s = (*builder)->stats();
      EXPECT_EQ(s.examples, want.size());
      // One short-sequence draw per document and round.
      EXPECT_EQ(s.short_seq_draws, c.options.dupe_factor * Documents(corpus).size());
      EXPECT_EQ(s.masked_tokens, s.masked_as_mask + s.masked_as_original + s.masked_as_random);
    }
  }
}

TEST(BertBuilder, EachVocabularyGivesItsOwnMasking) {
  // The builders of a worker's tasks share what they read of a vocabulary, found by its tokens:
  // a vocabulary whose "##" pieces are named as words masks them one by one under whole word
  // masking, and the golden vocabulary, used after it, still gives the script's instances.
  const std::string corpus = ReadFile(kTestdata + "bert_golden_input.txt");
  const GoldenCase c = GoldenCases()[1];  // whole word masking
  ASSERT_TRUE(c.options.do_whole_word_mask);
  auto run = [&](const Tokenizer& tokenizer) {
    auto builder = BertBuilder::Create(c.options, tokenizer, 0);
    EXPECT_TRUE(builder.ok());
    std::vector<std::string> got;
    auto sink = [&](const Example& e) {
      got.push_back(Describe(e));
      return Status::Ok();
    };
    EXPECT_TRUE((*builder)->AddDocument(corpus, sink).ok());
    EXPECT_TRUE((*builder)->Finish(sink).ok());
    return got;
  };
  const std::vector<std::string> want = GoldenLines(c.file);
  EXPECT_NE(run(VocabTokenizerForTest(true, /*pieces_named_as_words=*/true)), want);
  EXPECT_EQ(run(VocabTokenizerForTest()), want);
  EXPECT_NE(run(VocabTokenizerForTest(true, /*pieces_named_as_words=*/true)), want);
}

ExampleOptions DefaultOptions() {
  ExampleOptions o;
  o.kind = ExampleKind::kBert;
  o.max_seq_length = 32;
  o.max_predictions_per_seq = 5;
  o.dupe_factor = 3;
  o.random_next_window = 7;
  return o;
}

std::vector<std::string> RunDefault(const ExampleOptions& o, uint64_t task, BuilderStats* stats) {
  const VocabTokenizerForTest tokenizer;
  auto builder = BertBuilder::Create(o, tokenizer, task);
  EXPECT_TRUE(builder.ok());
  std::vector<std::string> got;
  auto sink = [&](const Example& e) {
    CheckLayout(e, o);
    got.push_back(Describe(e));
    return Status::Ok();
  };
  for (const std::string& doc : Documents(ReadFile(kTestdata + "bert_golden_input.txt"))) {
    EXPECT_TRUE((*builder)->AddDocument(doc, sink).ok());
  }
  EXPECT_TRUE((*builder)->Finish(sink).ok());
  if (stats != nullptr) *stats = (*builder)->stats();
  return got;
}

TEST(BertBuilder, DefaultModeIsDeterministicPerSeedAndTask) {
  const ExampleOptions o = DefaultOptions();
  BuilderStats stats;
  const std::vector<std::string> a = RunDefault(o, 3, &stats);
  EXPECT_EQ(a, RunDefault(o, 3, nullptr));
  EXPECT_NE(a, RunDefault(o, 4, nullptr));
  ExampleOptions other_seed = o;
  other_seed.seed = 1;
  EXPECT_NE(a, RunDefault(other_seed, 3, nullptr));
  EXPECT_EQ(stats.examples, a.size());
  EXPECT_EQ(stats.short_seq_draws, 3 * stats.documents);
  EXPECT_GT(stats.random_next, 0u);
  EXPECT_LT(stats.random_next, stats.examples);
}

TEST(BertBuilder, DefaultModeEmitsEachWindowAsItCloses) {
  ExampleOptions o = DefaultOptions();
  o.random_next_window = 5;
  const VocabTokenizerForTest tokenizer;
  auto builder = BertBuilder::Create(o, tokenizer, 0);
  ASSERT_TRUE(builder.ok());
  size_t emitted = 0;
  auto sink = [&](const Example&) {
    ++emitted;
    return Status::Ok();
  };
  const std::vector<std::string> docs = Documents(ReadFile(kTestdata + "bert_golden_input.txt"));
  for (size_t i = 0; i < 4; ++i) ASSERT_TRUE((*builder)->AddDocument(docs[i], sink).ok());
  EXPECT_EQ(emitted, 0u);
  ASSERT_TRUE((*builder)->AddDocument(docs[4], sink).ok());
  EXPECT_GE(emitted, 5u * o.dupe_factor);  // every document makes at least one instance a round
  const size_t after_first = emitted;
  ASSERT_TRUE((*builder)->AddDocument(docs[5], sink).ok());
  EXPECT_EQ(emitted, after_first);
  ASSERT_TRUE((*builder)->Finish(sink).ok());
  EXPECT_GT(emitted, after_first);
}

TEST(BertBuilder, WindowOfTheWholeInputIsTheScriptWithOtherStreams) {
  // With one window the default mode runs the script's algorithm; only the random streams differ,
  // so the counts of documents and draws per document agree.
  ExampleOptions o = DefaultOptions();
  o.random_next_window = 100000;
  BuilderStats stats;
  const std::vector<std::string> got = RunDefault(o, 0, &stats);
  EXPECT_EQ(stats.short_seq_draws, o.dupe_factor * stats.documents);
  EXPECT_EQ(stats.examples, got.size());
}

TEST(BertBuilder, MaskingFrequencies) {
  ExampleOptions o = DefaultOptions();
  o.max_seq_length = 64;
  o.max_predictions_per_seq = 20;
  o.dupe_factor = 20;
  o.random_next_window = 50;
  BuilderStats s;
  RunDefault(o, 9, &s);
  ASSERT_GT(s.masked_tokens, 5000u);
  const double n = static_cast<double>(s.masked_tokens);
  auto near = [&](uint64_t count, double p) {
    const double sd = std::sqrt(n * p * (1 - p));
    EXPECT_NEAR(static_cast<double>(count), n * p, 5 * sd) << "p = " << p;
  };
  near(s.masked_as_mask, 0.8);
  near(s.masked_as_original, 0.1);
  near(s.masked_as_random, 0.1);
  const double ex = static_cast<double>(s.short_seq_draws);
  EXPECT_NEAR(static_cast<double>(s.short_seq_hits), ex * 0.1, 5 * std::sqrt(ex * 0.09));
}

TEST(BertBuilder, WholeWordMaskingMasksAllPiecesOfAWord) {
  ExampleOptions o = DefaultOptions();
  o.do_whole_word_mask = true;
  o.max_seq_length = 64;
  o.max_predictions_per_seq = 20;
  const VocabTokenizerForTest tokenizer;
  auto builder = BertBuilder::Create(o, tokenizer, 0);
  ASSERT_TRUE(builder.ok());
  size_t checked = 0;
  auto sink = [&](const Example& e) {
    std::set<uint32_t> masked(
        e.masked_lm_positions.begin(),
        e.masked_lm_positions.begin() +
            std::count(e.masked_lm_weights.begin(), e.masked_lm_weights.end(), 1.0f));
    // The original tokens: masked_lm_ids at masked positions, input_ids elsewhere.
    std::vector<uint32_t> original(e.tokens.begin(), e.tokens.begin() + e.num_real_tokens);
    for (size_t k = 0; k < masked.size(); ++k) {
      original[e.masked_lm_positions[k]] = e.masked_lm_ids[k];
    }
    // A "##" piece (ids >= 200) is masked exactly when the piece or word before it (skipping
    // [SEP]) is.
    uint32_t last = 0;
    for (uint32_t i = 1; i + 1 < e.num_real_tokens; ++i) {
      if (original[i] == 3) continue;
      if (original[i] >= 200 && last != 0) {
        EXPECT_EQ(masked.count(i), masked.count(last)) << "position " << i;
        ++checked;
      }
      last = i;
    }
    return Status::Ok();
  };
  for (const std::string& doc : Documents(ReadFile(kTestdata + "bert_golden_input.txt"))) {
    ASSERT_TRUE((*builder)->AddDocument(doc, sink).ok());
  }
  ASSERT_TRUE((*builder)->Finish(sink).ok());
  EXPECT_GT(checked, 100u);
  EXPECT_LT((*builder)->stats().masked_words, (*builder)->stats().masked_tokens);
}

TEST(BertBuilder, RejectsBadOptionsNamingTheKey) {
  const VocabTokenizerForTest tokenizer;
  auto fails = [&](ExampleOptions o, const std::string& key) {
    auto b = BertBuilder::Create(o, tokenizer, 0);
    ASSERT_FALSE(b.ok()) << key;
    EXPECT_TRUE(b.status().Is(StatusCode::kInvalidArgument));
    EXPECT_NE(b.status().message().find(key), std::string::npos) << b.status().ToString();
  };
  ExampleOptions o = DefaultOptions();
  o.max_predictions_per_seq = 33;
  fails(o, "max_predictions_per_seq");
  o = DefaultOptions();
  o.max_predictions_per_seq = 0;
  fails(o, "max_predictions_per_seq");
  for (double p : {0.0, 1.0, -0.1, 1.5, std::nan("")}) {
    o = DefaultOptions();
    o.masked_lm_prob = p;
    fails(o, "masked_lm_prob");
  }
  o = DefaultOptions();
  o.short_seq_prob = 1.01;
  fails(o, "short_seq_prob");
  o = DefaultOptions();
  o.max_seq_length = 4;
  fails(o, "max_seq_length");
  o = DefaultOptions();
  o.dupe_factor = 0;
  fails(o, "dupe_factor");
  o = DefaultOptions();
  o.random_next_window = 0;
  fails(o, "random_next_window");

  const VocabTokenizerForTest no_mask(false);
  auto b = BertBuilder::Create(DefaultOptions(), no_mask, 0);
  ASSERT_FALSE(b.ok());
  EXPECT_NE(b.status().message().find("[MASK]"), std::string::npos);
  const WordTokenizerForTest no_specials(100, false);
  EXPECT_FALSE(BertBuilder::Create(DefaultOptions(), no_specials, 0).ok());
}

TEST(BertBuilder, GoogleCompatRefusesInputOverTheLimit) {
  const VocabTokenizerForTest tokenizer;
  ExampleOptions o = DefaultOptions();
  o.google_compat = true;
  auto builder = BertBuilder::Create(o, tokenizer, 0);
  ASSERT_TRUE(builder.ok());
  const std::string line(1 << 20, ' ');  // blank: costs no tokens, counts as input
  auto sink = [](const Example&) { return Status::Ok(); };
  Status s;
  for (uint64_t i = 0; i <= kGoogleCompatMaxInputBytes >> 20 && s.ok(); ++i) {
    s = (*builder)->AddDocument(line, sink);
  }
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("compat = \"google\""), std::string::npos) << s.ToString();
  EXPECT_NE(s.message().find("default mode"), std::string::npos);
}

TEST(BertBuilder, GoogleCompatRefusesCarriageReturns) {
  const VocabTokenizerForTest tokenizer;
  ExampleOptions o = DefaultOptions();
  o.google_compat = true;
  auto builder = BertBuilder::Create(o, tokenizer, 0);
  ASSERT_TRUE(builder.ok());
  auto sink = [](const Example&) { return Status::Ok(); };
  const Status s = (*builder)->AddDocument("w5 w6\r\nw7", sink);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("carriage return"), std::string::npos) << s.ToString();
}

TEST(BertBuilder, EmptyInputMakesNoExamples) {
  const VocabTokenizerForTest tokenizer;
  for (bool compat : {false, true}) {
    ExampleOptions o = DefaultOptions();
    o.google_compat = compat;
    auto builder = BertBuilder::Create(o, tokenizer, 0);
    ASSERT_TRUE(builder.ok());
    size_t n = 0;
    auto sink = [&](const Example&) {
      ++n;
      return Status::Ok();
    };
    ASSERT_TRUE((*builder)->AddDocument(" \n\t\n", sink).ok());
    ASSERT_TRUE((*builder)->Finish(sink).ok());
    EXPECT_EQ(n, 0u);
  }
}

TEST(BertBuilder, OneDocumentOneSentence) {
  // A lone one-sentence document: segment B is a random next drawn from itself.
  const VocabTokenizerForTest tokenizer;
  ExampleOptions o = DefaultOptions();
  o.dupe_factor = 1;
  auto builder = BertBuilder::Create(o, tokenizer, 0);
  ASSERT_TRUE(builder.ok());
  std::vector<Example> got;
  auto sink = [&](const Example& e) {
    got.push_back(e);
    return Status::Ok();
  };
  ASSERT_TRUE((*builder)->AddDocument("w5 w6 w7", sink).ok());
  ASSERT_TRUE((*builder)->Finish(sink).ok());
  ASSERT_EQ(got.size(), 1u);
  CheckLayout(got[0], o);
  EXPECT_EQ(got[0].num_real_tokens, 9u);
  EXPECT_EQ(got[0].next_sentence_label, 1u);
  EXPECT_EQ(got[0].masked_lm_weights[0], 1.0f);  // max(1, round(9 * 0.15)) = 1 prediction
  EXPECT_EQ(got[0].masked_lm_weights[1], 0.0f);
}

std::unique_ptr<Tokenizer> LoadChineseBert() {
  TokenizerOptions options;
  options.path = TOKENMILL_SOURCE_DIR "/data/vocab/bert-base-chinese/vocab.txt";
  options.compat = CompatMode::kGoogleBert;
  auto tokenizer = LoadTokenizerFromStorage(options);
  EXPECT_TRUE(tokenizer.ok()) << tokenizer.status().ToString();
  return tokenizer.ok() ? std::move(*tokenizer) : nullptr;
}

TEST(BertBuilder, ChineseWholeWordsAreMaskedWhole) {
  const std::unique_ptr<Tokenizer> tokenizer = LoadChineseBert();
  ASSERT_NE(tokenizer, nullptr);
  // ICU's words: 中华 / 人民 / 共和国 / 成立 / 了 and 我 / 喜欢 / 自然 / 语言 / 处理.
  const std::vector<std::vector<std::string>> words = {
      {"中", "华"}, {"人", "民"}, {"共", "和", "国"}, {"喜", "欢"},
      {"自", "然"}, {"语", "言"}, {"处", "理"}};
  std::vector<std::vector<uint32_t>> word_ids;
  for (const auto& w : words) {
    word_ids.emplace_back();
    for (const std::string& c : w) word_ids.back().push_back(*tokenizer->TokenToId(c));
  }
  for (const bool chinese : {true, false}) {
    ExampleOptions o;
    o.kind = ExampleKind::kBert;
    o.max_seq_length = 64;
    o.max_predictions_per_seq = 20;
    o.masked_lm_prob = 0.3;
    o.dupe_factor = 20;
    o.chinese_whole_word = chinese;
    auto builder = BertBuilder::Create(o, *tokenizer, 0);
    ASSERT_TRUE(builder.ok()) << builder.status().ToString();
    size_t whole = 0, split = 0;
    auto sink = [&](const Example& e) {
      std::vector<uint32_t> original(e.tokens.begin(), e.tokens.begin() + e.num_real_tokens);
      std::vector<bool> masked(original.size(), false);
      for (size_t k = 0; k < e.masked_lm_weights.size() && e.masked_lm_weights[k] > 0; ++k) {
        original[e.masked_lm_positions[k]] = e.masked_lm_ids[k];
        masked[e.masked_lm_positions[k]] = true;
      }
      for (const auto& w : word_ids) {
        for (size_t i = 0; i + w.size() <= original.size(); ++i) {
          if (!std::equal(w.begin(), w.end(), original.begin() + i)) continue;
          const size_t n = static_cast<size_t>(
              std::count(masked.begin() + i, masked.begin() + i + w.size(), true));
          if (n == w.size()) ++whole;
          if (n != 0 && n != w.size()) ++split;
        }
      }
      return Status::Ok();
    };
    for (int d = 0; d < 6; ++d) {
      ASSERT_TRUE((*builder)
                      ->AddDocument("中华人民共和国成立了。\n我喜欢自然语言处理。\n"
                                    "BERT 模型，2019年。",
                                    sink)
                      .ok());
    }
    ASSERT_TRUE((*builder)->Finish(sink).ok());
    const BuilderStats& s = (*builder)->stats();
    if (chinese) {
      EXPECT_EQ(split, 0u);
      EXPECT_GT(whole, 20u);
      EXPECT_LT(s.masked_words, s.masked_tokens);  // words of several characters
    } else {
      EXPECT_GT(split, 0u);  // characters are masked one by one
      EXPECT_EQ(s.masked_words, s.masked_tokens);
    }
  }
}

TEST(BertBuilder, ChineseWholeWordIsNotForGoogleCompat) {
  const VocabTokenizerForTest tokenizer;
  ExampleOptions o = DefaultOptions();
  o.google_compat = true;
  o.chinese_whole_word = true;
  auto b = BertBuilder::Create(o, tokenizer, 0);
  ASSERT_FALSE(b.ok());
  EXPECT_NE(b.status().message().find("chinese_whole_word"), std::string::npos);
}

}  // namespace
}  // namespace tokenmill
