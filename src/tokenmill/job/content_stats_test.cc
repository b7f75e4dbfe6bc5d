#include "tokenmill/job/content_stats.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <random>

#include "tokenmill/base/utf8.h"
#include "tokenmill/tokenizer/char_util.h"

namespace tokenmill {
namespace {

TEST(HistogramTest, BucketsAreContiguousAndCoverEveryValue) {
  EXPECT_EQ(Histogram::BucketOf(0), 0);
  EXPECT_EQ(Histogram::BucketOf(15), 15);
  EXPECT_EQ(Histogram::BucketOf(16), 16);
  EXPECT_EQ(Histogram::BucketLow(16), 16u);
  EXPECT_EQ(Histogram::BucketHigh(16), 17u);
  EXPECT_EQ(Histogram::BucketOf(UINT64_MAX), Histogram::kBuckets - 1);
  EXPECT_EQ(Histogram::BucketHigh(Histogram::kBuckets - 1), UINT64_MAX);
  for (int b = 0; b + 1 < Histogram::kBuckets; ++b) {
    ASSERT_EQ(Histogram::BucketHigh(b) + 1, Histogram::BucketLow(b + 1)) << b;
    ASSERT_EQ(Histogram::BucketOf(Histogram::BucketLow(b)), b);
    ASSERT_EQ(Histogram::BucketOf(Histogram::BucketHigh(b)), b);
  }
  // 128 real tokens (a full ELECTRA example) share a bucket with 128..143.
  EXPECT_EQ(Histogram::BucketLow(Histogram::BucketOf(128)), 128u);
  EXPECT_EQ(Histogram::BucketHigh(Histogram::BucketOf(128)), 143u);
}

TEST(HistogramTest, AddMergeAndQuantiles) {
  Histogram a, b, all;
  for (uint64_t v = 0; v < 1000; ++v) {
    (v % 3 ? a : b).Add(v);
    all.Add(v);
  }
  Histogram merged = a;
  merged.Merge(b);
  EXPECT_EQ(merged, all);
  EXPECT_EQ(all.count(), 1000u);
  EXPECT_EQ(all.sum(), 999u * 1000 / 2);
  EXPECT_EQ(all.min(), 0u);
  EXPECT_EQ(all.max(), 999u);
  const uint64_t median = all.Quantile(0.5);
  EXPECT_GE(median, 499u);
  EXPECT_LE(median, 499u + 499u / 8);
  EXPECT_EQ(all.Quantile(1.0), 999u);
  uint64_t total = 0;
  for (const auto& bucket : all.Buckets()) total += bucket.count;
  EXPECT_EQ(total, 1000u);
  EXPECT_EQ(Histogram().Quantile(0.5), 0u);
}

TEST(CharClassTest, Scripts) {
  EXPECT_EQ(ClassifyCodePoint(U'a'), CharClass::kLatin);
  EXPECT_EQ(ClassifyCodePoint(U'é'), CharClass::kLatin);
  EXPECT_EQ(ClassifyCodePoint(U'中'), CharClass::kHan);
  EXPECT_EQ(ClassifyCodePoint(0x20000), CharClass::kHan);
  EXPECT_EQ(ClassifyCodePoint(U'か'), CharClass::kKana);
  EXPECT_EQ(ClassifyCodePoint(U'カ'), CharClass::kKana);
  EXPECT_EQ(ClassifyCodePoint(U'ー'), CharClass::kKana);
  EXPECT_EQ(ClassifyCodePoint(U'한'), CharClass::kHangul);
  EXPECT_EQ(ClassifyCodePoint(U'Ж'), CharClass::kCyrillic);
  EXPECT_EQ(ClassifyCodePoint(U'ب'), CharClass::kArabic);
  EXPECT_EQ(ClassifyCodePoint(U'7'), CharClass::kDigit);
  EXPECT_EQ(ClassifyCodePoint(0x0663), CharClass::kDigit);  // ARABIC-INDIC DIGIT THREE
  EXPECT_EQ(ClassifyCodePoint(0xFF15), CharClass::kDigit);  // FULLWIDTH DIGIT FIVE
  EXPECT_EQ(ClassifyCodePoint(U' '), CharClass::kWhitespace);
  EXPECT_EQ(ClassifyCodePoint(0x3000), CharClass::kWhitespace);  // IDEOGRAPHIC SPACE
  EXPECT_EQ(ClassifyCodePoint(U'。'), CharClass::kPunctuation);
  EXPECT_EQ(ClassifyCodePoint(U'，'), CharClass::kPunctuation);
  EXPECT_EQ(ClassifyCodePoint(U','), CharClass::kPunctuation);
  EXPECT_EQ(ClassifyCodePoint(U'α'), CharClass::kOther);
  EXPECT_EQ(ClassifyCodePoint(0x1F600), CharClass::kOther);  // an emoji
  EXPECT_EQ(CharClassName(CharClass::kDigit), "digits");
}

TEST(ContentStatsCollectorTest, CountsCharactersLinesTokensAndExamples) {
  ContentStatsCollector c(10);
  c.AddDocument("ab 中文\n\nкот", 5);
  const uint32_t ids[] = {1, 2, 2, 3, 2, 42};  // 42 is beyond the vocabulary
  c.OnTokens(ids);
  c.AddExample(7);
  c.AddExample(128);
  ContentStats s = c.Finish({{"electra.one_segment_examples", 3}});
  EXPECT_EQ(s.tasks, 1u);
  EXPECT_EQ(s.chars[static_cast<int>(CharClass::kLatin)], 2u);
  EXPECT_EQ(s.chars[static_cast<int>(CharClass::kHan)], 2u);
  EXPECT_EQ(s.chars[static_cast<int>(CharClass::kCyrillic)], 3u);
  EXPECT_EQ(s.chars[static_cast<int>(CharClass::kWhitespace)], 1u);  // the \n are not counted
  const Histogram& lines = s.histogram(kLineChars);
  EXPECT_EQ(lines.count(), 2u);  // the empty line is not a line
  EXPECT_EQ(lines.sum(), 5u + 3u);
  EXPECT_EQ(s.histogram(kDocumentTokens).sum(), 5u);
  EXPECT_EQ(s.histogram(kExampleTokens).count(), 2u);
  EXPECT_EQ(s.histogram(kExampleTokens).max(), 128u);
  ASSERT_EQ(s.top_tokens.size(), 3u);
  EXPECT_EQ(s.top_tokens[0], (TokenCount{2, 3}));
  EXPECT_EQ(s.top_tokens[1], (TokenCount{1, 1}));  // ties: smaller id first
  EXPECT_EQ(s.top_tokens[2], (TokenCount{3, 1}));
  EXPECT_EQ(s.counters.at("electra.one_segment_examples"), 3u);
  EXPECT_EQ(s.counters.at("ids_beyond_vocab"), 1u);
}

TEST(ContentStatsCollectorTest, TopTokensAreBounded) {
  ContentStatsCollector c(1000);
  std::vector<uint32_t> ids;
  for (uint32_t id = 0; id < 1000; ++id) {
    for (uint32_t k = 0; k <= id % 97; ++k) ids.push_back(id);
  }
  c.OnTokens(ids);
  ContentStats s = c.Finish({});
  EXPECT_EQ(s.top_tokens.size(), kTopTokens);
  for (size_t i = 1; i < s.top_tokens.size(); ++i) {
    EXPECT_GE(s.top_tokens[i - 1].count, s.top_tokens[i].count);
  }
  EXPECT_EQ(s.top_tokens[0].count, 97u);
}

// The statistics of `text` alone, scanned as this CPU scans it (32 bytes at a time with AVX2)
// and 16 bytes at a time: the two must agree.
ContentStats StatsOfText(const std::string& text) {
  ContentStatsCollector wide(10), narrow(10);
  narrow.set_narrow_scan_for_testing();
  wide.AddDocument(text, 0);
  narrow.AddDocument(text, 0);
  ContentStats s = wide.Finish({});
  EXPECT_EQ(s, narrow.Finish({})) << text;
  return s;
}

TEST(ContentStatsCollectorTest, CharactersAndLinesOfRandomTextEqualACharByCharCount) {
  // Runs of ASCII (counted 16 or 32 bytes at a time: every byte of 0..127, runs longer than the
  // 255 blocks after which the lanes fold), newlines anywhere, empty lines, CJK (runs of
  // U+4E00..U+9FFF are counted without decoding: its edges and neighbours too) and Latin-1
  // characters between them: the classes and line lengths of a plain count.
  std::mt19937_64 rng(11);
  std::string every_ascii_byte;
  for (int c = 0; c < 128; ++c) every_ascii_byte += static_cast<char>(c);
  std::string long_run;
  for (int i = 0; i < 5000; ++i) long_run += static_cast<char>(i % 7 == 0 ? ' ' : 'a' + i % 26);
  const std::vector<std::string> pieces = {every_ascii_byte,
                                           long_run,
                                           std::string(4097, '@'),
                                           "\x7F\x7F\x7F~[`{/:",
                                           "\r\v\f\x1F\x01\x01\x01",
                                           "a",
                                           "Z",
                                           " ",
                                           "\n",
                                           "\n\n",
                                           ",",
                                           "7",
                                           "abcdefghijklmnop",
                                           "中",
                                           "文",
                                           "é",
                                           "\t",
                                           "\u3400",
                                           "\u4DC0",
                                           "\u4E00",
                                           "\u9FFF",
                                           "\uA000",
                                           "\U00020000",
                                           "\u4E01\u4E02\u4E03"};
  for (int round = 0; round < 200; ++round) {
    std::string text;
    const int count = static_cast<int>(rng() % 60);
    for (int i = 0; i < count; ++i) text += pieces[rng() % pieces.size()];
    const ContentStats s = StatsOfText(text);
    std::array<uint64_t, kCharClasses> chars{};
    Histogram lines;
    uint64_t line = 0;
    for (size_t i = 0; i < text.size();) {
      if (text[i] == '\n') {
        if (line > 0) lines.Add(line);
        line = 0;
        ++i;
        continue;
      }
      const auto b = static_cast<unsigned char>(text[i]);
      const size_t len = b < 0x80 ? 1 : b < 0xE0 ? 2 : b < 0xF0 ? 3 : 4;  // valid UTF-8 here
      char32_t cp = len == 1 ? b : b & (0xFF >> (len + 1));
      for (size_t k = 1; k < len; ++k)
        cp = (cp << 6) | (static_cast<unsigned char>(text[i + k]) & 0x3F);
      i += len;
      ++chars[static_cast<int>(ClassifyCodePoint(cp))];
      ++line;
    }
    if (line > 0) lines.Add(line);
    EXPECT_EQ(s.chars, chars) << text;
    EXPECT_EQ(s.histogram(kLineChars), lines) << text;
  }
}

TEST(ContentStatsCollectorTest, ManyDistinctCharactersAcrossDocumentsAreEachClassifiedRight) {
  // The collector remembers the classes of recent characters beyond ASCII and U+4E00..U+9FFF in
  // a small table: thousands of distinct ones (from every script class, most of them sharing a
  // slot), over documents added to one collector, still count as ClassifyCodePoint says.
  std::mt19937_64 rng(5);
  const std::vector<std::pair<char32_t, char32_t>> ranges = {
      {0x80, 0x24F},    {0x370, 0x52F},     {0x600, 0x6FF},     {0x2000, 0x206F},
      {0x3000, 0x30FF}, {0x3400, 0x4DFF},   {0xAC00, 0xD7A3},   {0xE000, 0xE0FF},
      {0xFF00, 0xFFEF}, {0x1F300, 0x1F6FF}, {0x20000, 0x2A6DF}, {0x10FFF0, 0x10FFFF}};
  ContentStatsCollector wide(10), narrow(10);
  narrow.set_narrow_scan_for_testing();
  std::array<uint64_t, kCharClasses> chars{};
  for (int doc = 0; doc < 50; ++doc) {
    std::string text;
    for (int i = 0; i < 400; ++i) {
      const auto& [lo, hi] = ranges[rng() % ranges.size()];
      const auto cp = static_cast<char32_t>(lo + rng() % (hi - lo + 1));
      if (cp >= 0x4E00 && cp <= 0x9FFF) continue;
      hf::AppendUtf8(cp, &text);
      ++chars[static_cast<int>(ClassifyCodePoint(cp))];
    }
    wide.AddDocument(text, 0);
    narrow.AddDocument(text, 0);
  }
  const ContentStats s = wide.Finish({});
  EXPECT_EQ(s.chars, chars);
  EXPECT_EQ(narrow.Finish({}).chars, chars);
}

TEST(ContentStatsCollectorTest, InvalidUtf8CountsEachCharacterStartOnce) {
  // Bytes the readers would have refused: every byte that does not continue a sequence is one
  // character of some class (a newline ends a line), whatever follows it, and nothing is read
  // beyond the text (the sanitizer builds check that).
  std::mt19937_64 rng(5);
  for (int round = 0; round < 300; ++round) {
    std::string text(rng() % 200, '\0');
    for (char& c : text) c = static_cast<char>(rng() % 4 == 0 ? '\n' : rng() % 256);
    const ContentStats s = StatsOfText(text);
    uint64_t starts = 0;
    for (const char ch : text) {
      if ((static_cast<unsigned char>(ch) & 0xC0) != 0x80 && ch != '\n') ++starts;
    }
    uint64_t counted = 0;
    for (const uint64_t n : s.chars) counted += n;
    EXPECT_EQ(counted, starts);
    EXPECT_EQ(s.histogram(kLineChars).sum(), starts);
  }
}

TEST(ContentStatsCollectorTest, FoldedCountsEqualUnfolded) {
  // The 32-bit per-id counts fold into 64-bit ones before they could overflow; with a tiny fold
  // limit every path (a fold between spans, a span longer than the limit) gives the same counts.
  std::mt19937_64 rng(7);
  ContentStatsCollector plain(300);
  ContentStatsCollector folded(300);
  folded.set_fold_limit_for_testing(5);
  for (int span = 0; span < 200; ++span) {
    std::vector<uint32_t> ids(rng() % 9);
    for (uint32_t& id : ids) id = static_cast<uint32_t>(rng() % 40);
    plain.OnTokens(ids);
    folded.OnTokens(ids);
  }
  const ContentStats a = plain.Finish({});
  const ContentStats b = folded.Finish({});
  ASSERT_FALSE(a.top_tokens.empty());
  EXPECT_EQ(a.top_tokens, b.top_tokens);
}

ContentStats RandomTask(uint64_t seed) {
  std::mt19937_64 rng(seed);
  ContentStatsCollector c(500);
  std::vector<uint32_t> ids;
  for (int i = 0; i < 3000; ++i) ids.push_back(static_cast<uint32_t>(rng() % 500 * (rng() % 2)));
  c.OnTokens(ids);
  for (int i = 0; i < 50; ++i) c.AddExample(rng() % 600);
  c.AddDocument("Hello, 世界 " + std::to_string(seed), rng() % 1000);
  return c.Finish({{"bert.masked_tokens", seed}});
}

TEST(ContentStatsTest, MergeIsIndependentOfOrderAndGrouping) {
  std::vector<ContentStats> tasks;
  for (uint64_t t = 0; t < 12; ++t) tasks.push_back(RandomTask(t));
  ContentStatsSum forward, backward;
  for (const auto& t : tasks) forward.Add(t);
  for (auto it = tasks.rbegin(); it != tasks.rend(); ++it) backward.Add(*it);
  EXPECT_EQ(forward.Total(), backward.Total());
  // Two workers' partial merges, merged: the same again.
  ContentStats a, b;
  for (size_t i = 0; i < tasks.size(); ++i) (i % 2 ? a : b).Merge(tasks[i]);
  b.Merge(a);
  b.Trim();
  EXPECT_EQ(b, forward.Total());
  const ContentStats total = forward.Total();
  EXPECT_EQ(total.tasks, 12u);
  EXPECT_EQ(total.counters.at("bert.masked_tokens"), 66u);
  EXPECT_EQ(total.histogram(kExampleTokens).count(), 600u);
  EXPECT_LE(total.top_tokens.size(), kTopTokens);
}

TEST(ContentStatsTest, JsonRoundTripAndErrors) {
  const ContentStats s = RandomTask(7);
  auto back = ContentStatsFromJson(ToJson(s));
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(*back, s);
  const nlohmann::json j = nlohmann::json::parse(ToJson(s));
  EXPECT_TRUE(j["chars"].contains("hangul"));
  EXPECT_TRUE(j["histograms"].contains("example_tokens"));
  // Unknown counters and histograms are kept: new kinds need no format change.
  auto extended = ContentStatsFromJson(
      R"({"tasks":1,"histograms":{"bert.masked_per_example":{"count":1,"sum":20,"min":20,)"
      R"("max":20,"buckets":[[20,1]]}},"counters":{"bert.random_next":4}})");
  ASSERT_TRUE(extended.ok()) << extended.status().ToString();
  EXPECT_EQ(extended->histogram("bert.masked_per_example").sum(), 20u);
  EXPECT_EQ(extended->counters.at("bert.random_next"), 4u);
  // A bucket that is not a lower bound, or counts that do not add up, are refused.
  auto bad = ContentStatsFromJson(
      R"({"histograms":{"x":{"count":1,"sum":17,"min":17,"max":17,"buckets":[[17,1]]}}})");
  EXPECT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("lower bound"), std::string::npos);
  auto short_count = ContentStatsFromJson(
      R"({"histograms":{"x":{"count":2,"sum":16,"min":16,"max":16,"buckets":[[16,1]]}}})");
  EXPECT_FALSE(short_count.ok());
  EXPECT_FALSE(ContentStatsFromJson("{").ok());
}

TEST(ContentStatsTest, VisibleToken) {
  EXPECT_EQ(VisibleToken(" the\n"), "␣the↵");
  EXPECT_EQ(VisibleToken("##ing"), "##ing");
  EXPECT_EQ(VisibleToken("中"), "中");
  EXPECT_EQ(VisibleToken("\xe4\xb8"), "\\xE4\\xB8");  // half a character (byte-level BPE)
  EXPECT_EQ(VisibleToken(std::string("\x01", 1)), "\\x01");
  EXPECT_EQ(VisibleToken("\t\x7f"), "⇥\\x7F");
  // What it makes of any bytes is valid UTF-8 (done records store it as JSON text), and making
  // it visible again changes nothing.
  std::string all;
  for (int b = 0; b < 256; ++b) all += static_cast<char>(b);
  const std::string visible = VisibleToken(all);
  EXPECT_EQ(FindInvalidUtf8(visible), std::string_view::npos);
  EXPECT_EQ(VisibleToken(visible), visible);
}

}  // namespace
}  // namespace tokenmill
