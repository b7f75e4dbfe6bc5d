#include "tokenmill/job/content_stats.h"

#include <utf8proc.h>

#include <algorithm>
#include <bit>
#include <cstdio>
#include <cstring>
#include <nlohmann/json.hpp>

#include "tokenmill/base/bytes16.h"
#include "tokenmill/base/utf8.h"

namespace tokenmill {

int Histogram::BucketOf(uint64_t v) {
  if (v < 16) return static_cast<int>(v);
  const int e = std::bit_width(v) - 1;  // 2^e <= v < 2^(e+1), e >= 4
  const int sub = static_cast<int>((v >> (e - 3)) & 7);
  return 16 + (e - 4) * 8 + sub;
}

uint64_t Histogram::BucketLow(int b) {
  if (b < 16) return static_cast<uint64_t>(b);
  const int e = 4 + (b - 16) / 8;
  const uint64_t sub = static_cast<uint64_t>((b - 16) % 8);
  return (8 + sub) << (e - 3);
}

uint64_t Histogram::BucketHigh(int b) {
  if (b < 16) return static_cast<uint64_t>(b);
  const int e = 4 + (b - 16) / 8;
  return BucketLow(b) + ((uint64_t{1} << (e - 3)) - 1);
}

void Histogram::Add(uint64_t value, uint64_t times) {
  if (times == 0) return;
  if (count_ == 0 || value < min_) min_ = value;
  max_ = std::max(max_, value);
  count_ += times;
  sum_ += value * times;
  buckets_[BucketOf(value)] += times;
}

void Histogram::Merge(const Histogram& o) {
  if (o.count_ == 0) return;
  if (count_ == 0 || o.min_ < min_) min_ = o.min_;
  max_ = std::max(max_, o.max_);
  count_ += o.count_;
  sum_ += o.sum_;
  for (int b = 0; b < kBuckets; ++b) buckets_[b] += o.buckets_[b];
}

std::vector<Histogram::Bucket> Histogram::Buckets() const {
  std::vector<Bucket> out;
  int first = 0;
  while (first < kBuckets && buckets_[first] == 0) ++first;
  if (first == kBuckets) return out;
  int last = kBuckets - 1;
  while (buckets_[last] == 0) --last;
  for (int b = first; b <= last; ++b) out.push_back({BucketLow(b), BucketHigh(b), buckets_[b]});
  return out;
}

uint64_t Histogram::Quantile(double q) const {
  if (count_ == 0) return 0;
  const double target = q * static_cast<double>(count_);
  uint64_t seen = 0;
  for (int b = 0; b < kBuckets; ++b) {
    if (buckets_[b] == 0) continue;
    seen += buckets_[b];
    if (static_cast<double>(seen) >= target) return std::min(BucketHigh(b), max_);
  }
  return max_;
}

std::string_view CharClassName(CharClass c) {
  switch (c) {
    case CharClass::kHan:
      return "han";
    case CharClass::kLatin:
      return "latin";
    case CharClass::kKana:
      return "kana";
    case CharClass::kHangul:
      return "hangul";
    case CharClass::kCyrillic:
      return "cyrillic";
    case CharClass::kArabic:
      return "arabic";
    case CharClass::kDigit:
      return "digits";
    case CharClass::kWhitespace:
      return "whitespace";
    case CharClass::kPunctuation:
      return "punctuation";
    case CharClass::kOther:
      return "other";
  }
  return "other";
}

namespace {

struct Range {
  char32_t first, last;
  CharClass cls;
};

// Unicode blocks of the scripts (Unicode 15.1 Blocks.txt); digits, whitespace and punctuation
// are decided by the general category first, so the digits of a script's block count as digits.
constexpr Range kScriptRanges[] = {
    {0x0041, 0x005A, CharClass::kLatin},    {0x0061, 0x007A, CharClass::kLatin},
    {0x00AA, 0x00AA, CharClass::kLatin},    {0x00BA, 0x00BA, CharClass::kLatin},
    {0x00C0, 0x024F, CharClass::kLatin},    {0x0250, 0x02AF, CharClass::kLatin},
    {0x0400, 0x052F, CharClass::kCyrillic}, {0x0600, 0x06FF, CharClass::kArabic},
    {0x0750, 0x077F, CharClass::kArabic},   {0x0870, 0x08FF, CharClass::kArabic},
    {0x1100, 0x11FF, CharClass::kHangul},   {0x1C80, 0x1C8F, CharClass::kCyrillic},
    {0x1D00, 0x1D7F, CharClass::kLatin},    {0x1E00, 0x1EFF, CharClass::kLatin},
    {0x2C60, 0x2C7F, CharClass::kLatin},    {0x2DE0, 0x2DFF, CharClass::kCyrillic},
    {0x2E80, 0x2FDF, CharClass::kHan},      {0x3005, 0x3005, CharClass::kHan},
    {0x3007, 0x3007, CharClass::kHan},      {0x3021, 0x3029, CharClass::kHan},
    {0x3038, 0x303B, CharClass::kHan},      {0x3040, 0x30FF, CharClass::kKana},
    {0x3130, 0x318F, CharClass::kHangul},   {0x31F0, 0x31FF, CharClass::kKana},
    {0x3400, 0x4DBF, CharClass::kHan},      {0x4E00, 0x9FFF, CharClass::kHan},
    {0xA640, 0xA69F, CharClass::kCyrillic}, {0xA720, 0xA7FF, CharClass::kLatin},
    {0xA960, 0xA97F, CharClass::kHangul},   {0xAB30, 0xAB6F, CharClass::kLatin},
    {0xAC00, 0xD7FF, CharClass::kHangul},   {0xF900, 0xFAFF, CharClass::kHan},
    {0xFB00, 0xFB06, CharClass::kLatin},    {0xFB50, 0xFDFF, CharClass::kArabic},
    {0xFE70, 0xFEFF, CharClass::kArabic},   {0xFF21, 0xFF3A, CharClass::kLatin},
    {0xFF41, 0xFF5A, CharClass::kLatin},    {0xFF66, 0xFF9F, CharClass::kKana},
    {0xFFA0, 0xFFDC, CharClass::kHangul},   {0x1AFF0, 0x1B16F, CharClass::kKana},
    {0x1EE00, 0x1EEFF, CharClass::kArabic}, {0x20000, 0x323AF, CharClass::kHan},
};

// ASCII, looked up per byte. (AddDocument counts the same classes 16 bytes at a time; the tests
// compare the two.)
constexpr std::array<CharClass, 128> MakeAsciiTable() {
  std::array<CharClass, 128> t{};
  for (int c = 0; c < 128; ++c) {
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) {
      t[c] = CharClass::kLatin;
    } else if (c >= '0' && c <= '9') {
      t[c] = CharClass::kDigit;
    } else if (c == ' ' || (c >= 0x09 && c <= 0x0D)) {
      t[c] = CharClass::kWhitespace;
    } else if ((c >= 0x21 && c <= 0x2F) || (c >= 0x3A && c <= 0x40) || (c >= 0x5B && c <= 0x60) ||
               (c >= 0x7B && c <= 0x7E)) {
      t[c] = CharClass::kPunctuation;  // ASCII punctuation and symbols, as BERT treats them
    } else {
      t[c] = CharClass::kOther;  // control characters
    }
  }
  return t;
}
constexpr std::array<CharClass, 128> kAscii = MakeAsciiTable();

// Decodes the code point of the multi-byte UTF-8 sequence at s[*i] and advances *i past it. Text
// from the readers is valid UTF-8; a byte that does not start a valid sequence yields U+FFFD.
char32_t NextCodePoint(std::string_view s, size_t* i) {
  const auto byte = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char c = byte(*i);
  const size_t left = s.size() - *i;
  const auto cont = [&](size_t k) { return (byte(*i + k) & 0xC0) == 0x80; };
  if (c >= 0xC2 && c <= 0xDF && left >= 2 && cont(1)) {
    const char32_t cp = (char32_t{c} & 0x1F) << 6 | (byte(*i + 1) & 0x3F);
    *i += 2;
    return cp;
  }
  if (c >= 0xE0 && c <= 0xEF && left >= 3 && cont(1) && cont(2)) {
    const char32_t cp =
        (char32_t{c} & 0x0F) << 12 | (byte(*i + 1) & 0x3F) << 6 | (byte(*i + 2) & 0x3F);
    if (cp >= 0x800 && (cp < 0xD800 || cp > 0xDFFF)) {
      *i += 3;
      return cp;
    }
  }
  if (c >= 0xF0 && c <= 0xF4 && left >= 4 && cont(1) && cont(2) && cont(3)) {
    const char32_t cp = (char32_t{c} & 0x07) << 18 | (byte(*i + 1) & 0x3F) << 12 |
                        (byte(*i + 2) & 0x3F) << 6 | (byte(*i + 3) & 0x3F);
    if (cp >= 0x10000 && cp <= 0x10FFFF) {
      *i += 4;
      return cp;
    }
  }
  *i += 1;
  return 0xFFFD;
}

}  // namespace

CharClass ClassifyCodePoint(char32_t cp) {
  if (cp < 128) return kAscii[cp];
  // The large blocks whose assigned characters are all letters, without a category look-up.
  if (cp >= 0x4E00 && cp <= 0x9FFF) return CharClass::kHan;
  if (cp >= 0xAC00 && cp <= 0xD7A3) return CharClass::kHangul;
  if (cp >= 0x3041 && cp <= 0x3096) return CharClass::kKana;  // Hiragana letters
  if (cp >= 0x30A1 && cp <= 0x30FA) return CharClass::kKana;  // Katakana letters
  switch (utf8proc_category(static_cast<utf8proc_int32_t>(cp))) {
    case UTF8PROC_CATEGORY_ND:
      return CharClass::kDigit;
    case UTF8PROC_CATEGORY_ZS:
    case UTF8PROC_CATEGORY_ZL:
    case UTF8PROC_CATEGORY_ZP:
      return CharClass::kWhitespace;
    case UTF8PROC_CATEGORY_PC:
    case UTF8PROC_CATEGORY_PD:
    case UTF8PROC_CATEGORY_PS:
    case UTF8PROC_CATEGORY_PE:
    case UTF8PROC_CATEGORY_PI:
    case UTF8PROC_CATEGORY_PF:
    case UTF8PROC_CATEGORY_PO:
      return CharClass::kPunctuation;
    default:
      break;
  }
  if (cp == 0x0085) return CharClass::kWhitespace;  // NEL, a Cc that splits lines
  const Range* end = std::end(kScriptRanges);
  const Range* it = std::upper_bound(std::begin(kScriptRanges), end, cp,
                                     [](char32_t v, const Range& r) { return v < r.first; });
  if (it != std::begin(kScriptRanges)) {
    --it;
    if (cp <= it->last) return it->cls;
  }
  return CharClass::kOther;
}

namespace {

bool ByCount(const TokenCount& a, const TokenCount& b) {
  return a.count != b.count ? a.count > b.count : a.id < b.id;
}

}  // namespace

void ContentStats::Merge(const ContentStats& o) {
  tasks += o.tasks;
  for (const auto& [name, h] : o.histograms) histograms[name].Merge(h);
  for (int c = 0; c < kCharClasses; ++c) chars[c] += o.chars[c];
  for (const auto& [name, v] : o.counters) counters[name] += v;
  if (!o.top_tokens.empty()) {
    std::map<uint32_t, uint64_t> sum;
    for (const auto& t : top_tokens) sum[t.id] += t.count;
    for (const auto& t : o.top_tokens) sum[t.id] += t.count;
    top_tokens.clear();
    for (const auto& [id, n] : sum) top_tokens.push_back({id, n});
    std::sort(top_tokens.begin(), top_tokens.end(), ByCount);
  }
}

void ContentStatsSum::Add(const ContentStats& s) {
  ContentStats rest = s;
  rest.top_tokens.clear();
  sum_.Merge(rest);
  for (const auto& t : s.top_tokens) tokens_[t.id] += t.count;
}

ContentStats ContentStatsSum::Total() const {
  ContentStats total = sum_;
  std::vector<TokenCount> all;
  all.reserve(tokens_.size());
  for (const auto& [id, n] : tokens_) all.push_back({id, n});
  const size_t k = std::min(kTopTokens, all.size());
  std::partial_sort(all.begin(), all.begin() + static_cast<std::ptrdiff_t>(k), all.end(), ByCount);
  all.resize(k);
  total.top_tokens = std::move(all);
  return total;
}

void ContentStats::Trim() {
  if (top_tokens.size() > kTopTokens) top_tokens.resize(kTopTokens);
}

const Histogram& ContentStats::histogram(std::string_view name) const {
  static const Histogram kEmpty;
  auto it = histograms.find(name);
  return it == histograms.end() ? kEmpty : it->second;
}

void to_json(nlohmann::json& j, const Histogram& h) {
  nlohmann::json buckets = nlohmann::json::array();
  for (const auto& b : h.Buckets()) {
    if (b.count > 0) buckets.push_back({b.low, b.count});
  }
  j = {{"count", h.count()},
       {"sum", h.sum()},
       {"min", h.min()},
       {"max", h.max()},
       {"buckets", buckets}};
}

void from_json(const nlohmann::json& j, Histogram& h) {
  h = Histogram();
  h.count_ = j.at("count").get<uint64_t>();
  h.sum_ = j.at("sum").get<uint64_t>();
  h.min_ = j.at("min").get<uint64_t>();
  h.max_ = j.at("max").get<uint64_t>();
  uint64_t total = 0;
  for (const auto& b : j.at("buckets")) {
    const uint64_t low = b.at(0).get<uint64_t>();
    const uint64_t n = b.at(1).get<uint64_t>();
    const int bucket = Histogram::BucketOf(low);
    if (Histogram::BucketLow(bucket) != low) {
      throw std::invalid_argument("histogram bucket " + std::to_string(low) +
                                  " is not a bucket's lower bound");
    }
    h.buckets_[bucket] += n;
    total += n;
  }
  if (total != h.count_) {
    throw std::invalid_argument("histogram buckets hold " + std::to_string(total) +
                                " values but count is " + std::to_string(h.count_));
  }
}

void to_json(nlohmann::json& j, const ContentStats& s) {
  nlohmann::json histograms = nlohmann::json::object();
  for (const auto& [name, h] : s.histograms) histograms[name] = h;
  nlohmann::json chars = nlohmann::json::object();
  for (int c = 0; c < kCharClasses; ++c) {
    chars[std::string(CharClassName(static_cast<CharClass>(c)))] = s.chars[c];
  }
  nlohmann::json top = nlohmann::json::array();
  for (const auto& t : s.top_tokens) top.push_back({t.id, t.count});
  nlohmann::json counters = nlohmann::json::object();
  for (const auto& [name, v] : s.counters) counters[name] = v;
  j = {{"tasks", s.tasks},
       {"histograms", histograms},
       {"chars", chars},
       {"top_tokens", top},
       {"counters", counters}};
}

void from_json(const nlohmann::json& j, ContentStats& s) {
  s = ContentStats();
  s.tasks = j.value("tasks", uint64_t{0});
  if (j.contains("histograms")) {
    for (const auto& [name, h] : j.at("histograms").items())
      s.histograms[name] = h.get<Histogram>();
  }
  if (j.contains("chars")) {
    const auto& chars = j.at("chars");
    for (int c = 0; c < kCharClasses; ++c) {
      s.chars[c] = chars.value(std::string(CharClassName(static_cast<CharClass>(c))), uint64_t{0});
    }
  }
  if (j.contains("top_tokens")) {
    for (const auto& t : j.at("top_tokens")) {
      s.top_tokens.push_back({t.at(0).get<uint32_t>(), t.at(1).get<uint64_t>()});
    }
  }
  if (j.contains("counters")) {
    for (const auto& [name, v] : j.at("counters").items()) s.counters[name] = v.get<uint64_t>();
  }
}

std::string ToJson(const ContentStats& s) { return nlohmann::json(s).dump(); }

StatusOr<ContentStats> ContentStatsFromJson(std::string_view json) {
  try {
    return nlohmann::json::parse(json).get<ContentStats>();
  } catch (const std::exception& e) {
    return Status::DataLoss(std::string("malformed content statistics: ") + e.what());
  }
}

namespace {

// Whether this CPU runs the 32-byte scan (AVX2 and POPCNT), asked once a process.
bool CpuHasWideScan() {
#if defined(__x86_64__)
  static const bool has = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("popcnt");
  return has;
#else
  return false;
#endif
}

}  // namespace

ContentStatsCollector::ContentStatsCollector(uint32_t vocab_size)
    : wide_scan_(CpuHasWideScan()), token_counts_(vocab_size, 0) {}

namespace {

// Bits set in 16 bits, from a byte table: the baseline x86-64 target has no POPCNT, and
// std::popcount's bit-twiddling made the statistics 14% dearer (bench/stages).
constexpr std::array<uint8_t, 256> MakeBitCounts() {
  std::array<uint8_t, 256> t{};
  for (int v = 0; v < 256; ++v)
    t[v] = static_cast<uint8_t>(std::popcount(static_cast<unsigned>(v)));
  return t;
}
constexpr std::array<uint8_t, 256> kBitCounts = MakeBitCounts();

// The vector of kWidth bytes, and its helpers, inlined into the scan whatever it is compiled for
// (a 32-byte vector is never passed to or returned from a call).
// (Specializations: GCC drops the attribute of an alias template with a dependent size.)
template <int kWidth>
struct LanesOf;
template <>
struct LanesOf<16> {
  using Type = Bytes16;
};
template <>
struct LanesOf<32> {
  using Type = uint8_t __attribute__((vector_size(32)));
};
template <int kWidth>
using Lanes = typename LanesOf<kWidth>::Type;

template <int kWidth>
[[gnu::always_inline]] inline void LoadLanes(const char* p, Lanes<kWidth>* v) {
  std::memcpy(v, p, kWidth);
}

// The 16 lanes of `v` from lane 16 * part on.
template <int kWidth>
[[gnu::always_inline]] inline Bytes16 Part16(const Lanes<kWidth>& v, int part) {
  Bytes16 lanes;
  std::memcpy(&lanes, reinterpret_cast<const char*>(&v) + 16 * part, 16);
  return lanes;
}

// Bit k for lane k of a lane mask, and the sum of the lanes, 16 lanes at a time.
template <int kWidth>
[[gnu::always_inline]] inline uint32_t MaskBits(const Lanes<kWidth>& mask) {
  uint32_t bits = 0;
  for (int part = 0; part < kWidth / 16; ++part) {
    bits |= LaneBits(Part16<kWidth>(mask, part)) << (16 * part);
  }
  return bits;
}

template <int kWidth>
[[gnu::always_inline]] inline uint64_t SumAllLanes(const Lanes<kWidth>& v) {
  uint64_t sum = 0;
  for (int part = 0; part < kWidth / 16; ++part) sum += SumLanes(Part16<kWidth>(v, part));
  return sum;
}

// Bits set in a block's lane bits: the table for 16 (no POPCNT in the baseline target), the
// instruction for 32 (compiled for AVX2 and POPCNT).
template <int kWidth>
[[gnu::always_inline]] inline int CountBits(uint32_t bits) {
  if constexpr (kWidth == 16) {
    return kBitCounts[bits & 0xFF] + kBitCounts[(bits >> 8) & 0xFF];
  } else {
    return std::popcount(bits);
  }
}

}  // namespace

CharClass ContentStatsCollector::Classify(char32_t cp) {
  RecentClass& slot = recent_classes_[(cp * 0x9E3779B1u) >> 24];
  if (slot.cp != cp) slot = {cp, ClassifyCodePoint(cp)};
  return slot.cls;
}

// The characters of the text, kWidth bytes at a time, in chunks of up to 255 blocks (before a
// byte lane could overflow). First the vector pass, with no call that would spill its registers:
// the classes of ASCII bytes and the ideographs of U+4E00..U+9FFF (lead byte E5..E9, or E4 before
// B8..BF) are counted in byte lanes, and each block leaves three lane masks: the first bytes of
// characters, newlines, and the first bytes of any other character. Then the scalar pass over
// the masks: the other characters are decoded and classified one by one (in the block of their
// first byte), and lines are measured in characters.
template <int kWidth>
[[gnu::always_inline]] inline void ContentStatsCollector::ScanText(std::string_view text) {
  using V = Lanes<kWidth>;
  constexpr auto kAllLanes = static_cast<uint32_t>((uint64_t{1} << kWidth) - 1);
  const char* data = text.data();
  const size_t n = text.size();
  constexpr size_t kChunkBlocks = 255;
  std::array<uint32_t, kChunkBlocks> lead_bits, newline_bits, rare_bits;
  uint64_t line = 0;
  char tail[kWidth + 1];
  for (size_t chunk = 0; chunk < n; chunk += kWidth * kChunkBlocks) {
    const size_t blocks = std::min(kChunkBlocks, (n - chunk + kWidth - 1) / kWidth);
    V ascii{}, latin{}, digit{}, space{}, control{}, han{};
    uint64_t padding = 0;  // zeros after the text in the last block
    for (size_t k = 0; k < blocks; ++k) {
      const size_t i = chunk + kWidth * k;
      const char* block = data + i;
      uint32_t in = kAllLanes;  // the lanes of the text
      if (n - i < kWidth + 1) {
        // The last block, padded with zeros (and one byte more for `next`): the padding counts
        // as ASCII control characters, taken back after the chunk.
        std::memset(tail, 0, sizeof(tail));
        std::memcpy(tail, data + i, n - i);
        block = tail;
        if (n - i < kWidth) {
          in = static_cast<uint32_t>((uint64_t{1} << (n - i)) - 1);
          padding = kWidth - (n - i);
        }
      }
      V b, next;
      LoadLanes<kWidth>(block, &b);
      LoadLanes<kWidth>(block + 1, &next);
      const auto is_ascii = static_cast<V>(b < 0x80);
      const auto is_space = static_cast<V>((b == ' ') | (static_cast<V>(b - 9) < 5));
      const auto is_han =
          static_cast<V>((static_cast<V>(b - 0xE5) < 5) | ((b == 0xE4) & (next >= 0xB8)));
      const auto is_lead = static_cast<V>((b & 0xC0) != 0x80);
      const V lower = b | 0x20;
      ascii -= is_ascii;
      latin -= static_cast<V>(static_cast<V>(lower - 'a') < 26);
      digit -= static_cast<V>(static_cast<V>(b - '0') < 10);
      space -= is_space;
      control -= static_cast<V>((b < 0x20) | (b == 0x7F)) & ~is_space;
      han -= is_han;
      lead_bits[k] = MaskBits<kWidth>(is_lead) & in;
      newline_bits[k] = MaskBits<kWidth>(static_cast<V>(b == '\n'));
      rare_bits[k] = MaskBits<kWidth>(is_lead & ~is_ascii & ~is_han);
    }
    ascii_.ascii += SumAllLanes<kWidth>(ascii) - padding;
    ascii_.latin += SumAllLanes<kWidth>(latin);
    ascii_.digit += SumAllLanes<kWidth>(digit);
    ascii_.space += SumAllLanes<kWidth>(space);
    ascii_.control += SumAllLanes<kWidth>(control) - padding;
    chars_[static_cast<int>(CharClass::kHan)] += SumAllLanes<kWidth>(han);
    for (size_t k = 0; k < blocks; ++k) {
      for (uint32_t rare = rare_bits[k]; rare != 0; rare &= rare - 1) {
        size_t at = chunk + kWidth * k + static_cast<size_t>(std::countr_zero(rare));
        ++chars_[static_cast<int>(Classify(NextCodePoint(text, &at)))];
      }
      uint32_t rest = lead_bits[k];  // characters not counted yet
      uint32_t ends = newline_bits[k];
      if (ends != 0) {
        ascii_.newlines += static_cast<uint64_t>(CountBits<kWidth>(ends));
        for (; ends != 0; ends &= ends - 1) {
          const uint32_t upto = ends ^ (ends - 1);  // the lanes up to this newline
          line += static_cast<uint64_t>(CountBits<kWidth>(rest & (upto >> 1)));
          if (line > 0) line_chars_.Add(line);
          line = 0;
          rest &= ~upto;
        }
      }
      line += static_cast<uint64_t>(CountBits<kWidth>(rest));
    }
  }
  if (line > 0) line_chars_.Add(line);
}

#if defined(__x86_64__)
__attribute__((target("avx2,popcnt"))) void ContentStatsCollector::ScanTextAvx2(
    std::string_view text) {
  ScanText<32>(text);
}
#else
void ContentStatsCollector::ScanTextAvx2(std::string_view text) { ScanText<16>(text); }
#endif

void ContentStatsCollector::AddDocument(std::string_view text, uint64_t tokens) {
  document_tokens_.Add(tokens);
  if (wide_scan_) {
    ScanTextAvx2(text);
  } else {
    ScanText<16>(text);
  }
}

void ContentStatsCollector::AddExample(uint64_t real_tokens) { example_tokens_.Add(real_tokens); }

void ContentStatsCollector::OnTokens(std::span<const uint32_t> ids) {
  constexpr size_t kChunk = size_t{1} << 31;
  if (ids.size() > kChunk) {  // keeps since_fold_ meaningful for any span
    OnTokens(ids.first(kChunk));
    OnTokens(ids.subspan(kChunk));
    return;
  }
  if (since_fold_ + ids.size() > fold_limit_) FoldTokenCounts();
  since_fold_ += ids.size();
  const size_t n = token_counts_.size();
  for (const uint32_t id : ids) {
    if (id < n) {
      ++token_counts_[id];
    } else {
      ++out_of_range_ids_;
    }
  }
}

void ContentStatsCollector::FoldTokenCounts() {
  wide_counts_.resize(token_counts_.size(), 0);
  for (size_t id = 0; id < token_counts_.size(); ++id) {
    wide_counts_[id] += token_counts_[id];
    token_counts_[id] = 0;
  }
  since_fold_ = 0;
}

ContentStats ContentStatsCollector::Finish(const KindCounters& kind_counters) {
  ContentStats s;
  s.tasks = 1;
  s.histograms[std::string(kExampleTokens)] = example_tokens_;
  s.histograms[std::string(kDocumentTokens)] = document_tokens_;
  s.histograms[std::string(kLineChars)] = line_chars_;
  s.chars = chars_;
  s.chars[static_cast<int>(CharClass::kLatin)] += ascii_.latin;
  s.chars[static_cast<int>(CharClass::kDigit)] += ascii_.digit;
  s.chars[static_cast<int>(CharClass::kWhitespace)] += ascii_.space - ascii_.newlines;
  s.chars[static_cast<int>(CharClass::kOther)] += ascii_.control;
  s.chars[static_cast<int>(CharClass::kPunctuation)] +=
      ascii_.ascii - ascii_.latin - ascii_.digit - ascii_.space - ascii_.control;
  for (uint32_t id = 0; id < token_counts_.size(); ++id) {
    const uint64_t count = token_counts_[id] + (wide_counts_.empty() ? 0 : wide_counts_[id]);
    if (count > 0) s.top_tokens.push_back({id, count});
  }
  const size_t k = std::min(kTopTokens, s.top_tokens.size());
  std::partial_sort(s.top_tokens.begin(), s.top_tokens.begin() + static_cast<std::ptrdiff_t>(k),
                    s.top_tokens.end(), ByCount);
  s.top_tokens.resize(k);
  for (const auto& [name, v] : kind_counters) s.counters[name] += v;
  if (out_of_range_ids_ > 0) s.counters["ids_beyond_vocab"] = out_of_range_ids_;
  return s;
}

namespace {

std::string HexByte(unsigned char c) {
  char buf[8];
  std::snprintf(buf, sizeof(buf), "\\x%02X", static_cast<unsigned>(c));
  return buf;
}

}  // namespace

std::string VisibleToken(std::string_view token) {
  std::string out;
  size_t i = 0;
  while (i < token.size()) {
    const unsigned char c = static_cast<unsigned char>(token[i]);
    if (c == ' ') {
      out += "␣";
      ++i;
    } else if (c == '\n') {
      out += "↵";
      ++i;
    } else if (c == '\t') {
      out += "⇥";
      ++i;
    } else if (c < 0x20 || c == 0x7F) {
      out += HexByte(c);
      ++i;
    } else if (c < 0x80) {
      out += static_cast<char>(c);
      ++i;
    } else {
      // The longest valid UTF-8 sequence here, or one byte shown as \xNN.
      size_t len = (c >= 0xF0) ? 4 : (c >= 0xE0) ? 3 : (c >= 0xC0) ? 2 : 1;
      if (len > 1 && i + len <= token.size() &&
          FindInvalidUtf8(token.substr(i, len)) == std::string_view::npos) {
        out += token.substr(i, len);
        i += len;
      } else {
        out += HexByte(c);
        ++i;
      }
    }
  }
  return out;
}

}  // namespace tokenmill
