#include "tokenmill/tokenizer/pre_tokenizers/unicode_classes.h"

#include <utility>
#include <vector>

namespace tokenmill::bpe {
namespace {

constexpr ClassRange kRanges[] = {
#include "tokenmill/tokenizer/pre_tokenizers/unicode_classes_table.inc"
};
constexpr ClassRange kPunctRanges[] = {
#include "tokenmill/tokenizer/pre_tokenizers/unicode_punct_table.inc"
};

std::vector<std::pair<uint32_t, uint32_t>> RangesIn(std::span<const ClassRange> table, uint8_t mask,
                                                    bool complement) {
  std::vector<std::pair<uint32_t, uint32_t>> out;
  auto add = [&out](uint32_t first, uint32_t last) {
    if (!out.empty() && out.back().second + 1 == first) {
      out.back().second = last;
    } else {
      out.emplace_back(first, last);
    }
  };
  uint32_t next = 0;  // first code point not yet looked at
  for (const ClassRange& r : table) {
    if (complement && r.first > next) add(next, r.first - 1);  // class 0: in the complement
    const bool in = (r.bits & mask) != 0;
    if (in != complement) add(r.first, r.last);
    next = r.last + 1;
  }
  if (complement && next <= kMaxCodePoint) add(next, kMaxCodePoint);
  return out;
}

}  // namespace

std::span<const ClassRange> ClassRanges() { return kRanges; }
std::span<const ClassRange> PunctRanges() { return kPunctRanges; }

std::vector<std::pair<uint32_t, uint32_t>> RangesOf(uint8_t mask, bool complement) {
  return RangesIn(kRanges, mask, complement);
}
std::vector<std::pair<uint32_t, uint32_t>> PunctRangesOf(uint8_t mask, bool complement) {
  return RangesIn(kPunctRanges, mask, complement);
}

const CharClasses& CharClasses::Get() {
  static const CharClasses* const table = new CharClasses();
  return *table;
}

CharClasses::CharClasses() : table_(kRanges, [](const ClassRange& r) { return r.bits; }) {}

}  // namespace tokenmill::bpe
