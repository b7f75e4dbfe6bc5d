#include "tokenmill/tokenizer/normalizers/bert_normalizer.h"

#include <utf8proc.h>

#include <algorithm>
#include <map>
#include <mutex>
#include <tuple>

namespace tokenmill {
namespace {

using bert::UnicodeRef;

constexpr char32_t kMaxCodePoint = 0x10FFFF;

bool IsHfChinese(char32_t cp) {
  return (cp >= 0x4E00 && cp <= 0x9FFF) || (cp >= 0x3400 && cp <= 0x4DBF) ||
         (cp >= 0x20000 && cp <= 0x2A6DF) || (cp >= 0x2A700 && cp <= 0x2B73F) ||
         (cp >= 0x2B740 && cp <= 0x2B81F) || (cp >= 0x2B920 && cp <= 0x2CEAF) ||
         (cp >= 0xF900 && cp <= 0xFAFF) || (cp >= 0x2F800 && cp <= 0x2FA1F);
}

// google-research/bert and electra: the same ranges, but Extension E from U+2B820.
bool IsGoogleChinese(char32_t cp) {
  return (cp >= 0x4E00 && cp <= 0x9FFF) || (cp >= 0x3400 && cp <= 0x4DBF) ||
         (cp >= 0x20000 && cp <= 0x2A6DF) || (cp >= 0x2A700 && cp <= 0x2B73F) ||
         (cp >= 0x2B740 && cp <= 0x2B81F) || (cp >= 0x2B820 && cp <= 0x2CEAF) ||
         (cp >= 0xF900 && cp <= 0xFAFF) || (cp >= 0x2F800 && cp <= 0x2FA1F);
}

// Stable sort by combining class of every run of non-zero classes (canonical ordering).
void CanonicalOrder(UnicodeRef ref, std::u32string* s) {
  std::u32string& v = *s;
  for (size_t i = 1; i < v.size(); ++i) {
    const int c = bert::CombiningClass(ref, v[i]);
    if (c == 0) continue;
    size_t j = i;
    while (j > 0) {
      const int p = bert::CombiningClass(ref, v[j - 1]);
      if (p == 0 || p <= c) break;
      std::swap(v[j - 1], v[j]);
      --j;
    }
  }
}

}  // namespace

std::shared_ptr<const BertPreTokenizer> BertPreTokenizer::Get(
    const BertNormalizerOptions& options) {
  static std::mutex mu;
  static auto* cache =
      new std::map<std::tuple<int, bool, bool, bool, bool>, std::shared_ptr<BertPreTokenizer>>();
  const auto key =
      std::make_tuple(static_cast<int>(options.compat), options.clean_text,
                      options.handle_chinese_chars, options.strip_accents, options.lowercase);
  std::lock_guard<std::mutex> lock(mu);
  auto& slot = (*cache)[key];
  if (slot == nullptr) slot = std::make_shared<BertPreTokenizer>(options);
  return slot;
}

BertPreTokenizer::BertPreTokenizer(const BertNormalizerOptions& options)
    : options_(options),
      ref_(options.compat == CompatMode::kHuggingFace ? UnicodeRef::kHf : UnicodeRef::kPython),
      stage1_(new std::atomic<const Block*>[kBlockCount]) {
  static_assert(kBlockCount << 8 == kMaxCodePoint + 1);
  for (size_t b = 0; b < kBlockCount; ++b) stage1_[b].store(nullptr, std::memory_order_relaxed);
  const Block& ascii = BlockOf(0);
  for (int c = 0; c < 128; ++c) {
    const uint32_t rec = ascii.records[c];
    AsciiEntry& e = ascii_[c];
    e.byte = static_cast<char>(c);
    if ((rec & kMappedBit) != 0) {
      // ASCII maps to one ASCII character (lowercasing); nothing else changes it.
      e.byte = static_cast<char>(ascii.pool[(rec >> kPoolShift) + 1] & 0x7F);
    }
    const uint32_t raw = rec & 3;
    const uint32_t post = (rec >> 2) & 3;
    if (raw == kRawDrop) {
      e.cls = kAsciiDrop;
    } else if (raw == kRawSpace || post == kPostSpace) {
      e.cls = kAsciiSpace;
    } else if (post == kPostPunct) {
      e.cls = kAsciiPunct;
    } else {
      e.cls = kAsciiWord;
    }
  }
}

// Computes block `index` (256 records) the first time a text uses it. A block that is wholly
// unassigned or wholly private use is one record 256 times (see UniformBlock).
const BertPreTokenizer::Block& BertPreTokenizer::ComputeBlock(size_t index) const {
  std::lock_guard<std::mutex> lock(mu_);
  if (const Block* done = stage1_[index].load(std::memory_order_acquire)) return *done;
  auto block = std::make_unique<Block>();
  const auto first = static_cast<char32_t>(index << 8);
  if (UniformBlock(first)) {
    std::fill(std::begin(block->records), std::end(block->records),
              ComputeRecord(first, &block->pool));
  } else {
    for (size_t k = 0; k < 256; ++k)
      block->records[k] = ComputeRecord(first | static_cast<char32_t>(k), &block->pool);
  }
  // Blocks alike share one copy (the CJK ideograph blocks are all alike): the blocks a text uses
  // stay few and hot in the cache.
  std::vector<uint32_t> key(std::begin(block->records), std::end(block->records));
  key.insert(key.end(), block->pool.begin(), block->pool.end());
  const Block*& same = distinct_[std::move(key)];
  if (same == nullptr) {
    same = block.get();
    owned_.push_back(std::move(block));
  }
  stage1_[index].store(same, std::memory_order_release);
  return *same;
}

// The 256 code points from `first` are all unassigned (Cn) or all private use (Co) in utf8proc's
// Unicode, and all inside or all outside the Chinese ranges. Such characters have no
// decomposition, no case mapping, are neither whitespace nor punctuation, and their category is
// the same in the references' older Unicode versions (code points are never unassigned again, and
// the private use areas are fixed), so ComputeRecord gives all of them one record. A test checks
// the table against ComputeRecord on every code point (MatchesComputedRecords).
bool BertPreTokenizer::UniformBlock(char32_t first) const {
  const utf8proc_category_t cat0 = utf8proc_category(static_cast<utf8proc_int32_t>(first));
  if (cat0 != UTF8PROC_CATEGORY_CN && cat0 != UTF8PROC_CATEGORY_CO) return false;
  const bool chinese = IsChinese(first);
  for (char32_t cp = first + 1; cp < first + 256; ++cp) {
    if (utf8proc_category(static_cast<utf8proc_int32_t>(cp)) != cat0) return false;
    if (IsChinese(cp) != chinese) return false;
  }
  return true;
}

size_t BertPreTokenizer::CountRecordMismatches() const {
  size_t mismatches = 0;
  std::vector<uint32_t> pool;
  for (char32_t cp = 0; cp <= kMaxCodePoint; ++cp) {
    pool.clear();
    const uint32_t want = ComputeRecord(cp, &pool);
    const Block& block = BlockOf(cp);
    const uint32_t got = block.records[cp & 0xFF];
    const uint32_t flags = (1u << kPoolShift) - 1;
    bool same = (want & flags) == (got & flags);
    if (same && (want & kMappedBit) != 0) {
      const uint32_t* a = pool.data() + (want >> kPoolShift);
      const uint32_t* b = block.pool.data() + (got >> kPoolShift);
      same = std::equal(a, a + a[0] + 1, b);
    }
    if (!same) ++mismatches;
  }
  return mismatches;
}

bool BertPreTokenizer::IsChinese(char32_t cp) const {
  return ref_ == UnicodeRef::kHf ? IsHfChinese(cp) : IsGoogleChinese(cp);
}

uint32_t BertPreTokenizer::PostClassOf(char32_t cp) const {
  if (ref_ == UnicodeRef::kHf ? bert::RustIsWhitespace(cp) : bert::PythonIsSpace(cp)) {
    return kPostSpace;
  }
  if (bert::IsBertPunctuation(ref_, cp)) return kPostPunct;
  return kPostWord;
}

uint32_t BertPreTokenizer::ComputeRecord(char32_t cp, std::vector<uint32_t>* pool) const {
  const uint32_t post = PostClassOf(cp);
  if (cp >= 0xD800 && cp <= 0xDFFF) return kRawDrop | (post << 2);  // never decoded

  // What the character is before normalization.
  uint32_t raw = kRawNormal;
  const bool tab_lf_cr = cp == '\t' || cp == '\n' || cp == '\r';
  if (ref_ == UnicodeRef::kHf) {
    const bool control = !tab_lf_cr && bert::HfIsOther(cp);
    if (options_.clean_text && (cp == 0 || cp == 0xFFFD || control)) {
      raw = kRawDrop;
    } else if (bert::RustIsWhitespace(cp)) {
      raw = kRawSpace;  // clean_text maps it to ' '; BertPreTokenizer splits on it anyway
    }
  } else {
    const utf8proc_category_t cat = bert::PythonCategory(cp);
    bool control = cat == UTF8PROC_CATEGORY_CC || cat == UTF8PROC_CATEGORY_CF;
    if (options_.compat == CompatMode::kGoogleElectra) {
      control = control || cat == UTF8PROC_CATEGORY_CS || cat == UTF8PROC_CATEGORY_CO ||
                cat == UTF8PROC_CATEGORY_CN;
    }
    control = control && !tab_lf_cr;
    if (options_.clean_text && (cp == 0 || cp == 0xFFFD || control)) {
      raw = kRawDrop;
    } else if (bert::PythonIsSpace(cp)) {
      raw = kRawSpace;  // _is_whitespace (" \t\n\r", Zs) is a subset of str.split()'s set
    }
  }
  if (raw == kRawNormal && options_.handle_chinese_chars && IsChinese(cp)) raw = kRawCjk;
  if (raw == kRawDrop || raw == kRawSpace) return raw | (post << 2);

  // Normalization of the character alone.
  std::u32string seq(1, cp);
  bool slow = false;
  char32_t buf[bert::kMaxDecomposition > bert::kMaxLowercase ? bert::kMaxDecomposition
                                                             : bert::kMaxLowercase];
  auto lowercase = [&](const std::u32string& in) {
    std::u32string out;
    for (char32_t c : in) out.append(buf, static_cast<size_t>(bert::Lowercase(ref_, c, buf)));
    return out;
  };
  auto strip = [&](const std::u32string& in) {
    std::u32string out;
    for (char32_t c : in) {
      const int k = bert::Decompose(ref_, c, buf);
      for (int j = 0; j < k; ++j) {
        if (bert::IsNonspacingMark(ref_, buf[j])) continue;
        // A kept mark with a combining class may be reordered with its neighbours by NFD.
        if (bert::CombiningClass(ref_, buf[j]) != 0) slow = true;
        out.push_back(buf[j]);
      }
    }
    return out;
  };
  if (ref_ == UnicodeRef::kHf) {
    if (options_.strip_accents) seq = strip(seq);
    if (options_.lowercase) seq = lowercase(seq);
  } else {
    if (options_.lowercase) {
      if (cp == 0x3A3) slow = true;  // final sigma: depends on the neighbours
      seq = lowercase(seq);
    }
    if (options_.strip_accents) seq = strip(seq);
  }
  uint32_t rec = raw | (post << 2);
  if (slow && raw == kRawNormal) rec |= kSlowBit;
  if (seq.size() == 1 && seq[0] == cp) return rec;
  rec |= kMappedBit | static_cast<uint32_t>(pool->size() << kPoolShift);
  pool->push_back(static_cast<uint32_t>(seq.size()));
  for (char32_t c : seq) pool->push_back(static_cast<uint32_t>(c) | (PostClassOf(c) << 24));
  return rec;
}

size_t BertPreTokenizer::Decode(std::string_view text, size_t i, char32_t* cp) {
  const auto* s = reinterpret_cast<const unsigned char*>(text.data());
  const size_t n = text.size();
  const unsigned char b = s[i];
  if (b < 0x80) {
    *cp = b;
    return 1;
  }
  size_t need;
  char32_t c;
  unsigned char lo = 0x80, hi = 0xBF;  // valid range of the second byte
  if (b >= 0xC2 && b <= 0xDF) {
    need = 1;
    c = b & 0x1F;
  } else if (b >= 0xE0 && b <= 0xEF) {
    need = 2;
    c = b & 0x0F;
    if (b == 0xE0) lo = 0xA0;
    if (b == 0xED) hi = 0x9F;  // no surrogates
  } else if (b >= 0xF0 && b <= 0xF4) {
    need = 3;
    c = b & 0x07;
    if (b == 0xF0) lo = 0x90;
    if (b == 0xF4) hi = 0x8F;
  } else {
    *cp = kInvalid;
    return 1;
  }
  size_t k = 1;
  for (; k <= need; ++k) {
    if (i + k >= n) break;
    const unsigned char t = s[i + k];
    if (k == 1 ? (t < lo || t > hi) : (t < 0x80 || t > 0xBF)) break;
    c = (c << 6) | (t & 0x3F);
  }
  if (k <= need) {  // truncated: the bytes read so far are one ill-formed subsequence
    *cp = kInvalid;
    return k;
  }
  *cp = c;
  return need + 1;
}

void BertPreTokenizer::AppendUtf8(char32_t cp, std::string* out) {
  if (cp < 0x80) {
    out->push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    const char b[2] = {static_cast<char>(0xC0 | (cp >> 6)), static_cast<char>(0x80 | (cp & 0x3F))};
    out->append(b, 2);
  } else if (cp < 0x10000) {
    const char b[3] = {static_cast<char>(0xE0 | (cp >> 12)),
                       static_cast<char>(0x80 | ((cp >> 6) & 0x3F)),
                       static_cast<char>(0x80 | (cp & 0x3F))};
    out->append(b, 3);
  } else {
    const char b[4] = {
        static_cast<char>(0xF0 | (cp >> 18)), static_cast<char>(0x80 | ((cp >> 12) & 0x3F)),
        static_cast<char>(0x80 | ((cp >> 6) & 0x3F)), static_cast<char>(0x80 | (cp & 0x3F))};
    out->append(b, 4);
  }
}

std::string& BertPreTokenizer::ScratchWord() {
  thread_local std::string word;
  return word;
}

size_t BertPreTokenizer::TokenEnd(std::string_view text, size_t start) const {
  size_t i = start;
  while (i < text.size()) {
    const auto b = static_cast<unsigned char>(text[i]);
    if (b < 0x80) {
      if (ascii_[b].cls == kAsciiSpace) return i;
      ++i;
      continue;
    }
    char32_t cp;
    const size_t len = Decode(text, i, &cp);
    if (cp != kInvalid) {
      const uint32_t raw = Record(cp) & 3;
      if (raw == kRawSpace || raw == kRawCjk) return i;
    }
    i += len;
  }
  return i;
}

void BertPreTokenizer::NormalizeTokenSlowly(std::string_view raw, std::u32string* out) const {
  // The characters that survive clean_text.
  std::u32string chars;
  for (size_t i = 0; i < raw.size();) {
    char32_t cp;
    i += Decode(raw, i, &cp);
    if (cp == kInvalid) {
      if (ref_ == UnicodeRef::kPython) continue;
      cp = 0xFFFD;
    }
    if ((Record(cp) & 3) == kRawDrop) continue;
    chars.push_back(cp);
  }
  char32_t buf[bert::kMaxDecomposition > bert::kMaxLowercase ? bert::kMaxDecomposition
                                                             : bert::kMaxLowercase];
  auto strip = [&](const std::u32string& in) {
    std::u32string nfd;
    for (char32_t c : in) nfd.append(buf, static_cast<size_t>(bert::Decompose(ref_, c, buf)));
    CanonicalOrder(ref_, &nfd);
    std::u32string kept;
    for (char32_t c : nfd) {
      if (!bert::IsNonspacingMark(ref_, c)) kept.push_back(c);
    }
    return kept;
  };
  if (ref_ == UnicodeRef::kHf) {
    // BertNormalizer: NFD and strip, then lowercase char by char.
    if (options_.strip_accents) chars = strip(chars);
    if (options_.lowercase) {
      std::u32string lower;
      for (char32_t c : chars) {
        lower.append(buf, static_cast<size_t>(bert::Lowercase(ref_, c, buf)));
      }
      chars = std::move(lower);
    }
  } else {
    // BasicTokenizer: token.lower(), then NFD and strip.
    if (options_.lowercase) {
      std::u32string lower;
      for (size_t i = 0; i < chars.size(); ++i) {
        if (chars[i] == 0x3A3) {
          // Python's Final_Sigma: preceded by a cased letter and not followed by one (skipping
          // case-ignorable characters both ways).
          size_t j = i;
          while (j > 0 && bert::PythonIsCaseIgnorable(chars[j - 1])) --j;
          bool final_sigma = j > 0 && bert::PythonIsCased(chars[j - 1]);
          if (final_sigma) {
            size_t k = i + 1;
            while (k < chars.size() && bert::PythonIsCaseIgnorable(chars[k])) ++k;
            final_sigma = k == chars.size() || !bert::PythonIsCased(chars[k]);
          }
          lower.push_back(final_sigma ? 0x3C2 : 0x3C3);
          continue;
        }
        lower.append(buf, static_cast<size_t>(bert::Lowercase(ref_, chars[i], buf)));
      }
      chars = std::move(lower);
    }
    if (options_.strip_accents) chars = strip(chars);
  }
  *out = std::move(chars);
}

}  // namespace tokenmill
