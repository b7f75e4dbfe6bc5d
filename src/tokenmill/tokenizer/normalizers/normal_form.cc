#include "tokenmill/tokenizer/normalizers/normal_form.h"

#include <utf8proc.h>

#include <array>
#include <atomic>
#include <bitset>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <vector>

#include "tokenmill/tokenizer/char_util.h"

namespace tokenmill {
namespace {

constexpr char32_t kMaxCodePoint = 0x10FFFF;
constexpr size_t kBlocks = (kMaxCodePoint + 1) >> 8;
// Canonical compositions have their parts below this (planes 0 and 1; plane 2 holds only
// singletons, which compose with nothing).
constexpr char32_t kCompositionLimit = 0x30000;

int OptionsOf(NormalForm form) {
  int options = UTF8PROC_STABLE;
  switch (form) {
    case NormalForm::kNfc:
      options |= UTF8PROC_COMPOSE;
      break;
    case NormalForm::kNfd:
      options |= UTF8PROC_DECOMPOSE;
      break;
    case NormalForm::kNfkc:
      options |= UTF8PROC_COMPOSE | UTF8PROC_COMPAT;
      break;
    case NormalForm::kNfkd:
      options |= UTF8PROC_DECOMPOSE | UTF8PROC_COMPAT;
      break;
  }
  return options;
}

bool Composes(NormalForm form) { return form == NormalForm::kNfc || form == NormalForm::kNfkc; }

bool IsHangulSyllable(char32_t cp) { return cp >= 0xAC00 && cp <= 0xD7A3; }

// utf8proc_map of `text` into *out; false when utf8proc refuses it (invalid UTF-8).
bool MapText(std::string_view text, NormalForm form, std::string* out) {
  utf8proc_uint8_t* mapped = nullptr;
  const utf8proc_ssize_t n = utf8proc_map(reinterpret_cast<const utf8proc_uint8_t*>(text.data()),
                                          static_cast<utf8proc_ssize_t>(text.size()), &mapped,
                                          static_cast<utf8proc_option_t>(OptionsOf(form)));
  const bool ok = n >= 0;
  if (ok) out->assign(reinterpret_cast<const char*>(mapped), static_cast<size_t>(n));
  std::free(mapped);
  return ok;
}

// The code points that may be the second part of a canonical composition: every code point
// after the first in the canonical decomposition of any code point (a superset, which only sends
// more text to utf8proc), and the Hangul vowels and trailing consonants.
class Seconds {
 public:
  static const Seconds& Get() {
    static const Seconds* const seconds = new Seconds();
    return *seconds;
  }
  bool Has(char32_t cp) const { return cp < kCompositionLimit && (*bits_)[cp]; }

 private:
  Seconds() : bits_(std::make_unique<std::bitset<kCompositionLimit>>()) {
    std::bitset<kCompositionLimit>& bits = *bits_;
    for (char32_t cp = 0; cp < kCompositionLimit; ++cp) {
      if (cp >= 0xD800 && cp <= 0xDFFF) continue;
      const utf8proc_property_t* p = utf8proc_get_property(static_cast<utf8proc_int32_t>(cp));
      if (p->decomp_seqindex == UINT16_MAX || p->decomp_type != 0) continue;
      utf8proc_int32_t parts[32];
      int boundclass = 0;
      const utf8proc_ssize_t n =
          utf8proc_decompose_char(static_cast<utf8proc_int32_t>(cp), parts, 32,
                                  static_cast<utf8proc_option_t>(UTF8PROC_DECOMPOSE), &boundclass);
      for (utf8proc_ssize_t k = 1; k < n && k < 32; ++k) {
        if (parts[k] >= 0 && static_cast<char32_t>(parts[k]) < kCompositionLimit) {
          bits[static_cast<size_t>(parts[k])] = true;
        }
      }
    }
    for (char32_t cp = 0x1161; cp <= 0x1175; ++cp) bits[cp] = true;  // Hangul V
    // Hangul T (utf8proc also composes U+11A7, the base before the first trailing consonant).
    for (char32_t cp = 0x11A7; cp <= 0x11C2; ++cp) bits[cp] = true;
  }
  const std::unique_ptr<std::bitset<kCompositionLimit>> bits_;
};

// Per form: which code points pass the quick check, 256 bits a block, computed on first use.
class QuickCheckTable {
 public:
  static const QuickCheckTable& For(NormalForm form) {
    static QuickCheckTable* const tables[4] = {
        new QuickCheckTable(NormalForm::kNfc), new QuickCheckTable(NormalForm::kNfd),
        new QuickCheckTable(NormalForm::kNfkc), new QuickCheckTable(NormalForm::kNfkd)};
    return *tables[static_cast<int>(form)];
  }

  bool Passes(char32_t cp) const {
    const Block* block = blocks_[cp >> 8].load(std::memory_order_acquire);
    if (block == nullptr) block = &Compute(cp >> 8);
    return (block->bits[(cp & 0xFF) >> 6] >> (cp & 63)) & 1;
  }

 private:
  struct Block {
    std::array<uint64_t, 4> bits{};
  };

  explicit QuickCheckTable(NormalForm form)
      : form_(form), blocks_(std::make_unique<std::atomic<const Block*>[]>(kBlocks)) {}

  const Block& Compute(size_t index) const {
    std::lock_guard<std::mutex> lock(mu_);
    if (const Block* done = blocks_[index].load(std::memory_order_relaxed)) return *done;
    auto block = std::make_unique<Block>();
    const Seconds* seconds = Composes(form_) ? &Seconds::Get() : nullptr;
    std::string mapped;
    for (char32_t k = 0; k < 256; ++k) {
      const char32_t cp = static_cast<char32_t>(index << 8) | k;
      if (cp >= 0xD800 && cp <= 0xDFFF) continue;  // not in valid UTF-8
      const utf8proc_property_t* p = utf8proc_get_property(static_cast<utf8proc_int32_t>(cp));
      if (p->combining_class != 0) continue;
      if (seconds != nullptr && seconds->Has(cp)) continue;
      bool passes = p->decomp_seqindex == UINT16_MAX && !IsHangulSyllable(cp);
      if (!passes) {  // its own normal form, by utf8proc
        std::string text;
        hf::AppendUtf8(cp, &text);
        passes = MapText(text, form_, &mapped) && mapped == text;
      }
      if (passes) block->bits[k >> 6] |= uint64_t{1} << (k & 63);
    }
    const Block* published = block.get();
    owned_.push_back(std::move(block));
    blocks_[index].store(published, std::memory_order_release);
    return *published;
  }

  const NormalForm form_;
  const std::unique_ptr<std::atomic<const Block*>[]> blocks_;
  mutable std::mutex mu_;
  mutable std::vector<std::unique_ptr<Block>> owned_;
};

}  // namespace

bool QuickCheckNormal(std::string_view text, NormalForm form) {
  const auto* s = reinterpret_cast<const unsigned char*>(text.data());
  const size_t n = text.size();
  const QuickCheckTable* table = nullptr;
  size_t i = 0;
  while (i < n) {
    // ASCII passes every form: 8 bytes at a time.
    while (i + 8 <= n) {
      uint64_t word;
      std::memcpy(&word, s + i, 8);
      if ((word & 0x8080808080808080ULL) != 0) break;
      i += 8;
    }
    if (i >= n) break;
    const unsigned char b = s[i];
    if (b < 0x80) {
      ++i;
      continue;
    }
    char32_t cp;
    size_t length;
    if (b >= 0xC2 && b <= 0xDF && i + 1 < n && (s[i + 1] & 0xC0) == 0x80) {
      cp = (static_cast<char32_t>(b & 0x1F) << 6) | (s[i + 1] & 0x3F);
      length = 2;
    } else if (b >= 0xE0 && b <= 0xEF && i + 2 < n && (s[i + 1] & 0xC0) == 0x80 &&
               (s[i + 2] & 0xC0) == 0x80) {
      cp = (static_cast<char32_t>(b & 0x0F) << 12) | (static_cast<char32_t>(s[i + 1] & 0x3F) << 6) |
           (s[i + 2] & 0x3F);
      length = 3;
      if (cp < 0x800 || (cp >= 0xD800 && cp <= 0xDFFF)) return false;
    } else if (b >= 0xF0 && b <= 0xF4 && i + 3 < n && (s[i + 1] & 0xC0) == 0x80 &&
               (s[i + 2] & 0xC0) == 0x80 && (s[i + 3] & 0xC0) == 0x80) {
      cp = (static_cast<char32_t>(b & 0x07) << 18) |
           (static_cast<char32_t>(s[i + 1] & 0x3F) << 12) |
           (static_cast<char32_t>(s[i + 2] & 0x3F) << 6) | (s[i + 3] & 0x3F);
      length = 4;
      if (cp < 0x10000 || cp > kMaxCodePoint) return false;
    } else {
      return false;  // invalid: utf8proc decides
    }
    if (table == nullptr) table = &QuickCheckTable::For(form);
    if (!table->Passes(cp)) return false;
    i += length;
  }
  return true;
}

std::string ToNormalForm(std::string_view text, NormalForm form) {
  if (QuickCheckNormal(text, form)) return std::string(text);
  std::string out;
  if (!MapText(text, form, &out)) return std::string(text);  // invalid UTF-8: kept as it is
  return out;
}

void NormalizeInPlace(std::string* text, NormalForm form) {
  if (QuickCheckNormal(*text, form)) return;
  std::string out;
  if (MapText(*text, form, &out)) text->swap(out);
}

}  // namespace tokenmill
