#include "tokenmill/examples/electra_builder.h"

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <functional>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "tokenmill/base/python_space.h"
#include "tokenmill/base/rng.h"
#include "tokenmill/examples/example_builder.h"
#include "tokenmill/examples/word_tokenizer_for_test.h"

namespace tokenmill {
namespace {

constexpr uint32_t kCls = 2;
constexpr uint32_t kSep = 3;

struct BuilderRun {
  std::unique_ptr<ExampleBuilder> builder;
  std::vector<Example> examples;
  ExampleSink sink;
  ElectraBuilder* electra() { return static_cast<ElectraBuilder*>(builder.get()); }
};

std::unique_ptr<BuilderRun> MakeRun(const Tokenizer& tokenizer, uint32_t max_seq_length,
                                    uint64_t seed, uint64_t task) {
  auto run = std::make_unique<BuilderRun>();
  ExampleOptions options;
  options.kind = ExampleKind::kElectra;
  options.max_seq_length = max_seq_length;
  options.seed = seed;
  auto builder = CreateExampleBuilder(options, tokenizer, task);
  EXPECT_TRUE(builder.ok()) << builder.status().ToString();
  run->builder = std::move(builder).value();
  BuilderRun* raw = run.get();
  run->sink = [raw](const Example& e) {
    raw->examples.push_back(e);
    return Status::Ok();
  };
  return run;
}

// The first task id whose random stream satisfies `pred` (which makes the draws the builder
// will make, in the documented order).
uint64_t FindTask(uint64_t seed, const std::function<bool(Rng&)>& pred) {
  for (uint64_t task = 0; task < 1000000; ++task) {
    Rng rng(seed, task);
    if (pred(rng)) return task;
  }
  ADD_FAILURE() << "no task id found";
  return 0;
}

// The example [CLS] a [SEP] (b [SEP]) padded to max_len, built by hand.
Example Expected(const std::vector<uint32_t>& a, const std::vector<uint32_t>& b, uint32_t max_len) {
  Example e;
  e.tokens.push_back(kCls);
  e.tokens.insert(e.tokens.end(), a.begin(), a.end());
  e.tokens.push_back(kSep);
  e.segment_ids.assign(e.tokens.size(), 0);
  if (!b.empty()) {
    e.tokens.insert(e.tokens.end(), b.begin(), b.end());
    e.tokens.push_back(kSep);
    e.segment_ids.resize(e.tokens.size(), 1);
  }
  e.num_real_tokens = static_cast<uint32_t>(e.tokens.size());
  e.input_mask.assign(e.tokens.size(), 1);
  e.tokens.resize(max_len, 0);
  e.input_mask.resize(max_len, 0);
  e.segment_ids.resize(max_len, 0);
  return e;
}

void ExpectSame(const Example& got, const Example& want) {
  EXPECT_EQ(got.tokens, want.tokens);
  EXPECT_EQ(got.input_mask, want.input_mask);
  EXPECT_EQ(got.segment_ids, want.segment_ids);
  EXPECT_EQ(got.num_real_tokens, want.num_real_tokens);
}

// Checks the layout of an ELECTRA example; returns a description of the first problem.
std::string LayoutProblem(const Example& e, uint32_t max_len) {
  if (e.tokens.size() != max_len || e.input_mask.size() != max_len ||
      e.segment_ids.size() != max_len) {
    return "not padded to max_seq_length";
  }
  const uint32_t n = e.num_real_tokens;
  if (n < 3 || n > max_len) return "bad num_real_tokens " + std::to_string(n);
  if (e.tokens[0] != kCls) return "no [CLS] at 0";
  uint32_t a = 0;  // length of [CLS] A [SEP]
  while (a < n && e.segment_ids[a] == 0) ++a;
  if (a < 3) return "segment A shorter than [CLS] x [SEP]";
  if (e.tokens[a - 1] != kSep) return "no [SEP] at the end of segment A";
  for (uint32_t i = a; i < n; ++i) {
    if (e.segment_ids[i] != 1) return "segment ids not 0...0 1...1";
  }
  if (a < n && (n - a < 2 || e.tokens[n - 1] != kSep)) return "bad segment B";
  for (uint32_t i = 1; i < n; ++i) {
    const bool boundary = (i == a - 1) || (i == n - 1);
    if ((e.tokens[i] == kSep) != boundary) return "[SEP] at " + std::to_string(i);
    if (e.tokens[i] == kCls) return "[CLS] at " + std::to_string(i);
    if (e.input_mask[i] != 1) return "mask 0 at a real token";
  }
  if (e.input_mask[0] != 1) return "mask 0 at [CLS]";
  for (uint32_t i = n; i < max_len; ++i) {
    if (e.tokens[i] != 0 || e.input_mask[i] != 0 || e.segment_ids[i] != 0) {
      return "padding not zero at " + std::to_string(i);
    }
  }
  return "";
}

std::string Words(uint32_t from, uint32_t count) {
  std::string s;
  for (uint32_t i = 0; i < count; ++i) {
    if (i > 0) s += ' ';
    s += "t" + std::to_string(from + i);
  }
  return s;
}

std::vector<uint32_t> Ids(uint32_t from, uint32_t count) {
  std::vector<uint32_t> v;
  for (uint32_t i = 0; i < count; ++i) v.push_back(from + i);
  return v;
}

TEST(ElectraBuilder, LongLinesStreamedGiveTheSameExamples) {
  // Lines past stream_bytes() are tokenized in pieces and only their first 100000 ids kept: the
  // examples, their random draws and the statistics are those of whole lines.
  WordTokenizerForTest tokenizer(200000);
  std::mt19937 rng(7);
  std::vector<std::string> docs;
  for (int d = 0; d < 12; ++d) {
    std::string doc;
    for (int l = 0; l < 6; ++l) {
      const uint32_t r = rng() % 10;
      const uint32_t count = r < 6 ? rng() % 40 : r < 8 ? rng() % 3000 : 99990 + rng() % 20;
      if (!doc.empty()) doc += '\n';
      doc += Words(5 + rng() % 1000, count) + (rng() % 4 == 0 ? " unknown" : "");
    }
    docs.push_back(doc);
  }
  docs.push_back(Words(5, 130000));
  for (const uint32_t max_len : {uint32_t{128}, uint32_t{512}}) {
    for (const uint64_t task : {uint64_t{1}, uint64_t{2}, uint64_t{3}, uint64_t{4}}) {
      auto whole = MakeRun(tokenizer, max_len, 12345, task);
      auto streamed = MakeRun(tokenizer, max_len, 12345, task);
      streamed->electra()->set_streaming_for_testing(64, 100, 100000);
      for (const std::string& doc : docs) {
        ASSERT_TRUE(whole->builder->AddDocument(doc, whole->sink).ok());
        ASSERT_TRUE(streamed->builder->AddDocument(doc, streamed->sink).ok());
      }
      ASSERT_TRUE(whole->builder->Finish(whole->sink).ok());
      ASSERT_TRUE(streamed->builder->Finish(streamed->sink).ok());
      ASSERT_EQ(streamed->examples.size(), whole->examples.size());
      for (size_t i = 0; i < whole->examples.size(); ++i) {
        ExpectSame(streamed->examples[i], whole->examples[i]);
      }
      const BuilderStats& a = whole->builder->stats();
      const BuilderStats& b = streamed->builder->stats();
      EXPECT_EQ(b.tokens, a.tokens);
      EXPECT_EQ(b.unk_tokens, a.unk_tokens);
      EXPECT_EQ(b.truncated_tokens, a.truncated_tokens);
      EXPECT_EQ(b.one_segment_hits, a.one_segment_hits);
      EXPECT_EQ(b.overflow_coin_tosses, a.overflow_coin_tosses);
      EXPECT_EQ(b.random_target_hits, a.random_target_hits);
      EXPECT_GT(a.one_segment_hits, 0u);
    }
  }
}

TEST(ElectraBuilder, RejectsBadOptions) {
  WordTokenizerForTest tokenizer;
  ExampleOptions options;
  options.max_seq_length = 4;
  auto b = CreateExampleBuilder(options, tokenizer, 0);
  ASSERT_FALSE(b.ok());
  EXPECT_EQ(b.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(b.status().message().find("max_seq_length 4"), std::string::npos);
  options.max_seq_length = kMaxMaxSeqLength + 1;
  EXPECT_FALSE(CreateExampleBuilder(options, tokenizer, 0).ok());
  options.max_seq_length = 5;
  EXPECT_TRUE(CreateExampleBuilder(options, tokenizer, 0).ok());
  options.max_seq_length = kMaxMaxSeqLength;
  EXPECT_TRUE(CreateExampleBuilder(options, tokenizer, 0).ok());

  WordTokenizerForTest no_bert(1000, /*bert=*/false, /*eod=*/true);
  options.max_seq_length = 128;
  b = CreateExampleBuilder(options, no_bert, 0);
  ASSERT_FALSE(b.ok());
  EXPECT_EQ(b.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(b.status().message().find("[CLS]"), std::string::npos) << b.status().message();
}

TEST(ElectraBuilder, OneSentenceDocument) {
  // One sentence always goes to segment A, whatever the draws.
  WordTokenizerForTest tokenizer;
  auto run = MakeRun(tokenizer, 8, 12345, 0);
  ASSERT_TRUE(run->builder->AddDocument("t10 t11 t12", run->sink).ok());
  ASSERT_EQ(run->examples.size(), 1u);
  const Example& e = run->examples[0];
  EXPECT_EQ(e.tokens, (std::vector<uint32_t>{2, 10, 11, 12, 3, 0, 0, 0}));
  EXPECT_EQ(e.input_mask, (std::vector<uint8_t>{1, 1, 1, 1, 1, 0, 0, 0}));
  EXPECT_EQ(e.segment_ids, (std::vector<uint8_t>{0, 0, 0, 0, 0, 0, 0, 0}));
  EXPECT_EQ(e.num_real_tokens, 5u);
  const BuilderStats& s = run->builder->stats();
  EXPECT_EQ(s.documents, 1u);
  EXPECT_EQ(s.lines, 1u);
  EXPECT_EQ(s.tokens, 3u);
  EXPECT_EQ(s.examples, 1u);
  EXPECT_EQ(s.one_segment_draws, 1u);
  EXPECT_EQ(s.random_target_draws, 1u);
  EXPECT_EQ(s.overflow_coin_tosses, 0u);
  EXPECT_EQ(s.truncated_tokens, 0u);
  ASSERT_TRUE(run->builder->Finish(run->sink).ok());
  EXPECT_EQ(run->examples.size(), 1u);
}

TEST(ElectraBuilder, TwoSegments) {
  // max 16: A's target is (16 - 3) // 2 = 6. Sentence 1 (6 ids) starts A; sentence 2 does not
  // fit and A is not short of its target, so it starts B without a coin toss; sentence 3 follows
  // B is non-empty.
  WordTokenizerForTest tokenizer;
  const uint64_t task = FindTask(1, [](Rng& r) { return r.Uniform01() >= 0.1; });
  auto run = MakeRun(tokenizer, 16, 1, task);
  ASSERT_TRUE(run->builder->AddDocument(Words(10, 6) + "\nt16 t17\nt18", run->sink).ok());
  ASSERT_EQ(run->examples.size(), 1u);
  ExpectSame(run->examples[0], Expected(Ids(10, 6), Ids(16, 3), 16));
  EXPECT_EQ(run->builder->stats().one_segment_hits, 0u);
  EXPECT_EQ(run->builder->stats().overflow_coin_tosses, 0u);
  EXPECT_EQ(run->examples[0].segment_ids,
            (std::vector<uint8_t>{0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 0, 0, 0, 0}));
}

TEST(ElectraBuilder, OneSegmentDraw) {
  // The same input when the first draw is below 0.1: A's target is 100000, all goes to A.
  WordTokenizerForTest tokenizer;
  const uint64_t task = FindTask(1, [](Rng& r) { return r.Uniform01() < 0.1; });
  auto run = MakeRun(tokenizer, 16, 1, task);
  ASSERT_TRUE(run->builder->AddDocument(Words(10, 6) + "\nt16 t17\nt18", run->sink).ok());
  ASSERT_EQ(run->examples.size(), 1u);
  ExpectSame(run->examples[0], Expected(Ids(10, 9), {}, 16));
  EXPECT_EQ(run->builder->stats().one_segment_draws, 1u);
  EXPECT_EQ(run->builder->stats().one_segment_hits, 1u);
}

TEST(ElectraBuilder, OverflowCoin) {
  // max 16, A's target 6: sentence 1 has 3 ids; sentence 2 (4 ids) would make 7 >= 6 while A
  // is short (3 < 6) and B empty: the coin decides. Draw order: one-segment, coin, target.
  WordTokenizerForTest tokenizer;
  const std::string doc = Words(10, 3) + "\n" + Words(20, 4) + "\nt30";
  for (const bool heads : {true, false}) {
    const uint64_t task = FindTask(
        2, [heads](Rng& r) { return r.Uniform01() >= 0.1 && (r.Uniform01() < 0.5) == heads; });
    auto run = MakeRun(tokenizer, 16, 2, task);
    ASSERT_TRUE(run->builder->AddDocument(doc, run->sink).ok());
    ASSERT_EQ(run->examples.size(), 1u);
    if (heads) {
      // A = 3 + 4 = 7 ids; "t30": 7 + 1 >= 6, B empty but A not short: goes to B, no toss.
      ExpectSame(run->examples[0], Expected({10, 11, 12, 20, 21, 22, 23}, {30}, 16));
    } else {
      // B = sentence 2; "t30": 3 + 1 < 6 fits in A.
      ExpectSame(run->examples[0], Expected({10, 11, 12, 30}, Ids(20, 4), 16));
    }
    EXPECT_EQ(run->builder->stats().overflow_coin_tosses, 1u);
    EXPECT_EQ(run->builder->stats().overflow_coin_heads, heads ? 1u : 0u);
  }
}

TEST(ElectraBuilder, Truncation) {
  // max 8: A's target is 2. "t10 t11 t12" starts A; 20 more ids start B (A is not short of 2,
  // so no toss); the buffer (23 >= 8) is flushed at once. A keeps 3 (<= 6), B keeps 8-3-3 = 2.
  WordTokenizerForTest tokenizer;
  const uint64_t task = FindTask(3, [](Rng& r) { return r.Uniform01() >= 0.1; });
  auto run = MakeRun(tokenizer, 8, 3, task);
  ASSERT_TRUE(run->electra()->AddLine("t10 t11 t12", run->sink).ok());
  EXPECT_TRUE(run->examples.empty());
  ASSERT_TRUE(run->electra()->AddLine(Words(13, 20), run->sink).ok());
  ASSERT_EQ(run->examples.size(), 1u);
  ExpectSame(run->examples[0], Expected({10, 11, 12}, {13, 14}, 8));
  EXPECT_EQ(run->builder->stats().truncated_tokens, 18u);

  // A single long sentence: A is cut to max - 2.
  const uint64_t task2 = FindTask(3, [](Rng& r) { return true; });
  auto run2 = MakeRun(tokenizer, 8, 3, task2);
  ASSERT_TRUE(run2->electra()->AddLine(Words(100, 50), run2->sink).ok());
  ASSERT_EQ(run2->examples.size(), 1u);
  ExpectSame(run2->examples[0], Expected(Ids(100, 6), {}, 8));
  EXPECT_EQ(run2->builder->stats().truncated_tokens, 44u);
}

TEST(ElectraBuilder, RandomTargetLength) {
  // Draws for a one-sentence example: one-segment, then target (< 0.05: RandInt(5, max)).
  WordTokenizerForTest tokenizer;
  const uint32_t max_len = 64;
  int64_t expected_target = 0;
  const uint64_t task = FindTask(4, [&](Rng& r) {
    r.Uniform01();
    if (r.Uniform01() >= 0.05) return false;
    expected_target = r.RandInt(5, max_len);
    return expected_target < 40;
  });
  auto run = MakeRun(tokenizer, max_len, 4, task);
  ElectraBuilder* electra = run->electra();
  EXPECT_EQ(electra->target_length(), max_len);
  ASSERT_TRUE(run->builder->AddDocument("t10", run->sink).ok());
  ASSERT_EQ(run->examples.size(), 1u);
  EXPECT_EQ(electra->target_length(), expected_target);
  EXPECT_EQ(run->builder->stats().random_target_hits, 1u);
  // The next example is flushed as soon as the buffer reaches the random target.
  for (int64_t i = 0; i < expected_target - 1; ++i) {
    ASSERT_TRUE(run->electra()->AddLine("t20", run->sink).ok());
  }
  EXPECT_EQ(run->examples.size(), 1u);
  ASSERT_TRUE(run->electra()->AddLine("t20", run->sink).ok());
  ASSERT_EQ(run->examples.size(), 2u);
  EXPECT_EQ(run->examples[1].tokens.size(), max_len);
}

TEST(ElectraBuilder, BlankAndWhitespaceLines) {
  WordTokenizerForTest tokenizer;
  auto run = MakeRun(tokenizer, 16, 5, 0);
  // U+3000 IDEOGRAPHIC SPACE alone is a blank line: it ends the buffered example.
  ASSERT_TRUE(run->builder->AddDocument("t10\n\xe3\x80\x80\nt11", run->sink).ok());
  ASSERT_EQ(run->examples.size(), 2u);
  ExpectSame(run->examples[0], Expected({10}, {}, 16));
  ExpectSame(run->examples[1], Expected({11}, {}, 16));
  // Blank lines with nothing buffered emit nothing; nor does Finish().
  ASSERT_TRUE(run->builder->AddDocument("\xe3\x80\x80\n \t\n\xc2\xa0", run->sink).ok());
  ASSERT_TRUE(run->builder->Finish(run->sink).ok());
  EXPECT_EQ(run->examples.size(), 2u);
  EXPECT_EQ(run->builder->stats().lines, 6u);
  EXPECT_EQ(run->builder->stats().documents, 2u);
  // Lines are stripped as Python does; U+200B is not whitespace (an unknown word here).
  ASSERT_TRUE(run->electra()->AddLine("\xe2\x80\x83t12 \xe2\x80\x8b\xe2\x80\xa8", run->sink).ok());
  ASSERT_TRUE(run->builder->Finish(run->sink).ok());
  ASSERT_EQ(run->examples.size(), 3u);
  ExpectSame(run->examples[2], Expected({12, 1}, {}, 16));
  EXPECT_EQ(run->builder->stats().unk_tokens, 1u);
  EXPECT_EQ(run->builder->stats().tokens, 4u);
}

TEST(ElectraBuilder, SentencesAcrossDocumentsNeverMix) {
  WordTokenizerForTest tokenizer;
  auto run = MakeRun(tokenizer, 128, 6, 0);
  ASSERT_TRUE(run->builder->AddDocument("t10 t11\nt12", run->sink).ok());
  ASSERT_TRUE(run->builder->AddDocument("t13", run->sink).ok());
  ASSERT_EQ(run->examples.size(), 2u);
  EXPECT_EQ(run->examples[1].num_real_tokens, 3u);
}

TEST(ElectraBuilder, SinkErrorIsReturned) {
  WordTokenizerForTest tokenizer;
  ExampleOptions options;
  auto builder = CreateExampleBuilder(options, tokenizer, 0);
  ASSERT_TRUE(builder.ok());
  const Status st =
      (*builder)->AddDocument("t10", [](const Example&) { return Status::IoError("disk full"); });
  EXPECT_EQ(st.code(), StatusCode::kIoError);
}

TEST(ElectraBuilder, DeterministicPerSeedAndTask) {
  WordTokenizerForTest tokenizer;
  std::string doc;
  for (int i = 0; i < 40; ++i) doc += Words(10 + i, 1 + i % 7) + "\n";
  auto a = MakeRun(tokenizer, 16, 7, 1);
  auto b = MakeRun(tokenizer, 16, 7, 1);
  auto c = MakeRun(tokenizer, 16, 7, 2);
  for (int i = 0; i < 20; ++i) {
    ASSERT_TRUE(a->builder->AddDocument(doc, a->sink).ok());
    ASSERT_TRUE(b->builder->AddDocument(doc, b->sink).ok());
    ASSERT_TRUE(c->builder->AddDocument(doc, c->sink).ok());
  }
  ASSERT_EQ(a->examples.size(), b->examples.size());
  for (size_t i = 0; i < a->examples.size(); ++i) ExpectSame(a->examples[i], b->examples[i]);
  bool differ = a->examples.size() != c->examples.size();
  for (size_t i = 0; !differ && i < a->examples.size(); ++i) {
    differ = a->examples[i].tokens != c->examples[i].tokens;
  }
  EXPECT_TRUE(differ);
}

// Golden outputs of google-research/electra's ExampleBuilder (see data/PROVENANCE.md) on a
// synthetic corpus, with its random.random / random.randint bound to tokenmill's Rng.
struct Golden {
  uint32_t max_seq_length = 0;
  uint64_t seed = 0, task = 0, random_calls = 0, randint_calls = 0;
  std::vector<std::pair<std::vector<uint32_t>, uint32_t>> examples;  // real ids, |[CLS] A [SEP]|
};

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

Golden ReadGolden(const std::string& path) {
  Golden g;
  std::istringstream in(ReadFile(path));
  std::string line;
  std::getline(in, line);
  size_t count = 0;
  const int n = std::sscanf(
      line.c_str(),
      "# max_seq_length=%u seed=%lu task=%lu examples=%zu random_calls=%lu randint_calls=%lu",
      &g.max_seq_length, &g.seed, &g.task, &count, &g.random_calls, &g.randint_calls);
  EXPECT_EQ(n, 6) << path;
  while (std::getline(in, line)) {
    const size_t tab = line.find('\t');
    std::istringstream ids(line.substr(0, tab));
    std::vector<uint32_t> v;
    uint32_t id;
    while (ids >> id) v.push_back(id);
    g.examples.emplace_back(v, static_cast<uint32_t>(std::stoul(line.substr(tab + 1))));
  }
  EXPECT_EQ(g.examples.size(), count) << path;
  return g;
}

std::vector<std::string> SplitLines(const std::string& text) {
  std::vector<std::string> lines;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t nl = text.find('\n', pos);
    if (nl == std::string::npos) nl = text.size();
    lines.push_back(text.substr(pos, nl - pos));
    pos = nl + 1;
  }
  return lines;
}

void CheckGolden(const Golden& g, const std::vector<Example>& got, const BuilderStats& stats) {
  ASSERT_EQ(got.size(), g.examples.size());
  for (size_t i = 0; i < got.size(); ++i) {
    const auto& [ids, a] = g.examples[i];
    const Example& e = got[i];
    ASSERT_EQ(e.num_real_tokens, ids.size()) << "example " << i;
    ASSERT_EQ(std::vector<uint32_t>(e.tokens.begin(), e.tokens.begin() + e.num_real_tokens), ids)
        << "example " << i;
    ASSERT_EQ(LayoutProblem(e, g.max_seq_length), "") << "example " << i;
    uint32_t seg0 = 0;
    for (uint32_t k = 0; k < e.num_real_tokens; ++k) seg0 += e.segment_ids[k] == 0;
    ASSERT_EQ(seg0, a) << "example " << i;
  }
  EXPECT_EQ(stats.examples, g.examples.size());
  EXPECT_EQ(stats.one_segment_draws + stats.overflow_coin_tosses + stats.random_target_draws,
            g.random_calls);
  EXPECT_EQ(stats.random_target_hits, g.randint_calls);
}

class ElectraGolden : public testing::TestWithParam<std::string> {};

TEST_P(ElectraGolden, LineByLineLikeWriteExamples) {
  const std::string dir = TOKENMILL_SOURCE_DIR "/src/tokenmill/examples/testdata/";
  const Golden g = ReadGolden(dir + GetParam());
  WordTokenizerForTest tokenizer;
  auto run = MakeRun(tokenizer, g.max_seq_length, g.seed, g.task);
  ElectraBuilder* electra = run->electra();
  const std::vector<std::string> lines = SplitLines(ReadFile(dir + "electra_golden_input.txt"));
  ASSERT_EQ(lines.size(), 1467u);
  for (const std::string& line : lines) ASSERT_TRUE(electra->AddLine(line, run->sink).ok());
  ASSERT_TRUE(run->builder->Finish(run->sink).ok());
  CheckGolden(g, run->examples, run->builder->stats());
}

TEST_P(ElectraGolden, DocumentByDocument) {
  // Documents as the text reader makes them: runs of blank lines separate documents.
  const std::string dir = TOKENMILL_SOURCE_DIR "/src/tokenmill/examples/testdata/";
  const Golden g = ReadGolden(dir + GetParam());
  WordTokenizerForTest tokenizer;
  auto run = MakeRun(tokenizer, g.max_seq_length, g.seed, g.task);
  std::string doc;
  bool in_doc = false;
  for (const std::string& line : SplitLines(ReadFile(dir + "electra_golden_input.txt"))) {
    if (PythonStrip(line).empty()) {
      if (in_doc) {
        ASSERT_TRUE(run->builder->AddDocument(doc, run->sink).ok());
      }
      doc.clear();
      in_doc = false;
      continue;
    }
    if (in_doc) doc += '\n';
    doc += line;
    in_doc = true;
  }
  if (in_doc) {
    ASSERT_TRUE(run->builder->AddDocument(doc, run->sink).ok());
  }
  ASSERT_TRUE(run->builder->Finish(run->sink).ok());
  CheckGolden(g, run->examples, run->builder->stats());
}

INSTANTIATE_TEST_SUITE_P(Files, ElectraGolden,
                         testing::Values("electra_golden_m8_s12345_t0.txt",
                                         "electra_golden_m32_s7_t3.txt",
                                         "electra_golden_m128_s99_t41.txt"));

// Random documents: sentence lengths from 0 to 3 * max_seq_length ids.
std::string RandomDocument(Rng& rng, uint32_t max_len) {
  std::string doc;
  const int64_t lines = rng.RandInt(1, 12);
  for (int64_t l = 0; l < lines; ++l) {
    if (l > 0) doc += '\n';
    const int64_t words = rng.Uniform01() < 0.2 ? rng.RandInt(0, 3 * max_len) : rng.RandInt(0, 9);
    for (int64_t w = 0; w < words; ++w) {
      if (w > 0) doc += ' ';
      doc += "t" + std::to_string(rng.RandInt(5, 999));
    }
  }
  return doc;
}

TEST(ElectraBuilder, LayoutInvariantsOnRandomDocuments) {
  WordTokenizerForTest tokenizer;
  for (const uint32_t max_len : {5u, 6u, 7u, 9u, 16u, 64u, 512u}) {
    Rng data(99, max_len);
    auto run = MakeRun(tokenizer, max_len, 17, max_len);
    BuilderRun* raw = run.get();
    uint64_t checked = 0;
    run->sink = [&](const Example& e) {
      const std::string problem = LayoutProblem(e, max_len);
      EXPECT_EQ(problem, "") << "max_seq_length " << max_len;
      ++checked;
      return problem.empty() ? Status::Ok() : Status::Internal(problem);
    };
    for (int d = 0; d < 3000; ++d) {
      ASSERT_TRUE(raw->builder->AddDocument(RandomDocument(data, max_len), raw->sink).ok());
    }
    ASSERT_TRUE(raw->builder->Finish(raw->sink).ok());
    const BuilderStats& s = raw->builder->stats();
    EXPECT_EQ(checked, s.examples);
    EXPECT_GT(s.examples, 500u);
  }
}

// |hits - p n| <= 5 sigma of the binomial distribution.
void ExpectBinomial(uint64_t hits, uint64_t n, double p, const char* what) {
  const double sigma = std::sqrt(static_cast<double>(n) * p * (1 - p));
  EXPECT_NEAR(static_cast<double>(hits), p * static_cast<double>(n), 5 * sigma)
      << what << ": " << hits << " of " << n;
}

TEST(ElectraBuilder, DrawFrequencies) {
  WordTokenizerForTest tokenizer;
  Rng data(2024, 0);
  auto run = MakeRun(tokenizer, 64, 12345, 0);
  for (int d = 0; d < 30000; ++d) {
    ASSERT_TRUE(run->builder->AddDocument(RandomDocument(data, 16), run->sink).ok());
  }
  ASSERT_TRUE(run->builder->Finish(run->sink).ok());
  const BuilderStats& s = run->builder->stats();
  ASSERT_GT(s.one_segment_draws, 20000u);
  ASSERT_GT(s.overflow_coin_tosses, 10000u);
  EXPECT_EQ(s.one_segment_draws, s.examples);
  EXPECT_EQ(s.random_target_draws, s.examples);
  ExpectBinomial(s.one_segment_hits, s.one_segment_draws, 0.1, "one-segment draw");
  ExpectBinomial(s.random_target_hits, s.random_target_draws, 0.05, "random-target draw");
  ExpectBinomial(s.overflow_coin_heads, s.overflow_coin_tosses, 0.5, "overflow coin");
}

}  // namespace
}  // namespace tokenmill
