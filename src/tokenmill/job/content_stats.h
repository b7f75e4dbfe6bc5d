// ContentStats: a fixed-size, mergeable summary of what tasks produced (docs/report.md, "Content
// statistics"): histograms with fixed buckets, the script mix by characters, the most frequent
// token ids (a bounded top-K) and named counters. Each task records one with its done record;
// `status`, `finalize` and `report` merge them.
//
// Everything in it is determined by the task's input and the job spec, never by timing, so the
// merge of all tasks' summaries is the same whatever the number of workers or retries. Merging
// is a sum, so it does not depend on the order; the top-K list is cut to kTopTokens by Trim().
//
// Thread-safety: plain values. ContentStatsCollector is used by one thread (one task).
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <nlohmann/json_fwd.hpp>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "tokenmill/base/status.h"
#include "tokenmill/examples/example_builder.h"

namespace tokenmill {

// A histogram of non-negative integers with fixed log-linear buckets: values 0..15 have a bucket
// each; above, every power of two [2^e, 2^(e+1)) is cut into 8 equal buckets (12.5% wide).
class Histogram {
 public:
  static constexpr int kBuckets = 16 + 60 * 8;  // covers every uint64_t

  static int BucketOf(uint64_t value);
  static uint64_t BucketLow(int bucket);   // smallest value in the bucket
  static uint64_t BucketHigh(int bucket);  // largest value in the bucket

  void Add(uint64_t value, uint64_t times = 1);
  void Merge(const Histogram& other);

  uint64_t count() const { return count_; }
  uint64_t sum() const { return sum_; }
  uint64_t min() const { return count_ ? min_ : 0; }
  uint64_t max() const { return max_; }
  // Counts of the buckets from the smallest to the largest value's, both included.
  struct Bucket {
    uint64_t low = 0, high = 0, count = 0;
  };
  std::vector<Bucket> Buckets() const;
  // The smallest value v such that at least q of the values are <= v, as the high end of its
  // bucket (clamped to max()). 0 when empty.
  uint64_t Quantile(double q) const;

  bool operator==(const Histogram& o) const = default;

 private:
  friend void from_json(const nlohmann::json& j, Histogram& h);
  uint64_t count_ = 0, sum_ = 0, min_ = 0, max_ = 0;
  std::array<uint64_t, kBuckets> buckets_{};  // by bucket (4 KB: Add is one increment)
};

// The character classes of the script mix, in the order they are reported.
enum class CharClass {
  kHan,
  kLatin,
  kKana,
  kHangul,
  kCyrillic,
  kArabic,
  kDigit,
  kWhitespace,
  kPunctuation,
  kOther,
};
inline constexpr int kCharClasses = 10;
std::string_view CharClassName(CharClass c);  // "han", "latin", ..., "other"
CharClass ClassifyCodePoint(char32_t cp);

// Names of the histograms every task records.
inline constexpr std::string_view kExampleTokens = "example_tokens";    // real tokens / example
inline constexpr std::string_view kDocumentTokens = "document_tokens";  // tokens / document
inline constexpr std::string_view kLineChars = "line_chars";  // characters / non-empty line

// The most frequent token ids kept per task and in a merged summary.
inline constexpr size_t kTopTokens = 64;

struct TokenCount {
  uint32_t id = 0;
  uint64_t count = 0;
  bool operator==(const TokenCount& o) const = default;
};

// A token's text (Tokenizer::IdToToken) as reports show it, always valid UTF-8: spaces as "␣",
// newlines as "↵", tabs as "⇥", other control characters and bytes that are not UTF-8 (half a
// character of byte-level BPE) as \xNN.
std::string VisibleToken(std::string_view token);

struct ContentStats {
  uint64_t tasks = 0;  // task summaries merged into this one
  std::map<std::string, Histogram, std::less<>> histograms;
  std::array<uint64_t, kCharClasses> chars{};  // by CharClass
  // Sorted by count (descending), then id. A task lists its kTopTokens most frequent ids with
  // their exact counts; a merge sums the counts of the ids listed, so a merged count is a lower
  // bound of the true count (exact for ids every task listed).
  std::vector<TokenCount> top_tokens;
  std::map<std::string, uint64_t, std::less<>> counters;  // named, e.g. "bert.masked_tokens"

  // Sums `other` into this summary. Keeps every listed id; call Trim() when done merging.
  void Merge(const ContentStats& other);
  // Cuts top_tokens to kTopTokens.
  void Trim();
  const Histogram& histogram(std::string_view name) const;  // an empty one if absent

  bool operator==(const ContentStats& o) const = default;
};

// Sums the summaries of many tasks: Add is O(size of the added summary), so summing N tasks costs
// O(N * kTopTokens), where repeated Merge would cost O(N * distinct ids).
class ContentStatsSum {
 public:
  void Add(const ContentStats& s);
  // The sum so far, trimmed.
  ContentStats Total() const;

 private:
  ContentStats sum_;  // top_tokens unused
  std::unordered_map<uint32_t, uint64_t> tokens_;
};

// {"tasks", "histograms": {name: {"count","sum","min","max","buckets": [[low, count], ...]}},
//  "chars": {"han": n, ...}, "top_tokens": [[id, count], ...], "counters": {name: n}}
void to_json(nlohmann::json& j, const ContentStats& s);
void from_json(const nlohmann::json& j, ContentStats& s);
void to_json(nlohmann::json& j, const Histogram& h);
void from_json(const nlohmann::json& j, Histogram& h);
std::string ToJson(const ContentStats& s);
StatusOr<ContentStats> ContentStatsFromJson(std::string_view json);

// Builds the ContentStats of one task from what the task runner and the builder see.
class ContentStatsCollector : public TokenObserver {
 public:
  explicit ContentStatsCollector(uint32_t vocab_size);

  // A document as read (characters and lines) and the tokens the builder made of it. The text
  // is valid UTF-8 (the readers check it); invalid bytes count as some class, never overread.
  void AddDocument(std::string_view text, uint64_t tokens);
  // An example as written: its tokens that are not padding.
  void AddExample(uint64_t real_tokens);
  void OnTokens(std::span<const uint32_t> ids) override;
  // For tests: fold the 32-bit counts after this many ids instead of before 2^32.
  void set_fold_limit_for_testing(uint64_t limit) { fold_limit_ = limit; }
  // For tests: scan text 16 bytes at a time even where the CPU has 32-byte vectors (AVX2).
  void set_narrow_scan_for_testing() { wide_scan_ = false; }

  // The summary, with the builder's kind-specific counters.
  ContentStats Finish(const KindCounters& kind_counters);

 private:
  Histogram example_tokens_, document_tokens_, line_chars_;
  std::array<uint64_t, kCharClasses> chars_{};  // of characters beyond ASCII
  struct AsciiTotals {                          // ASCII bytes by class (newlines are also spaces)
    uint64_t ascii = 0, latin = 0, digit = 0, space = 0, control = 0, newlines = 0;
  };
  AsciiTotals ascii_;
  void FoldTokenCounts();
  // AddDocument's count of characters and lines, kWidth (16 or 32) bytes at a time; the 32-byte
  // scan is compiled for AVX2 (ScanTextAvx2) and chosen where the CPU has it (wide_scan_).
  template <int kWidth>
  void ScanText(std::string_view text);
  void ScanTextAvx2(std::string_view text);
  bool wide_scan_ = false;
  // ClassifyCodePoint of the characters ScanText leaves to it (beyond ASCII and U+4E00..U+9FFF),
  // remembered: a text uses a few of them over and over (CJK punctuation, accented letters).
  CharClass Classify(char32_t cp);
  struct RecentClass {
    char32_t cp = ~char32_t{0};  // empty: no code point
    CharClass cls = CharClass::kOther;
  };
  std::array<RecentClass, 256> recent_classes_{};

  // By id, in 32 bits (half the cache footprint of the per-token increment); folded into
  // wide_counts_ before any could overflow.
  std::vector<uint32_t> token_counts_;
  std::vector<uint64_t> wide_counts_;  // empty until the first fold
  uint64_t since_fold_ = 0;            // ids counted into token_counts_ since the last fold
  uint64_t fold_limit_ = UINT32_MAX;
  uint64_t out_of_range_ids_ = 0;
};

}  // namespace tokenmill
