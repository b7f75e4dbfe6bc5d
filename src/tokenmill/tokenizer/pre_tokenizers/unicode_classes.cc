#include "tokenmill/tokenizer/pre_tokenizers/unicode_classes.h"

#include <map>
#include <string>
#include <utility>
#include <vector>

namespace tokenmill::bpe {
namespace {

constexpr ClassRange kRanges[] = {
#include "tokenmill/tokenizer/pre_tokenizers/unicode_classes_table.inc"
};

}  // namespace

std::span<const ClassRange> ClassRanges() { return kRanges; }

std::vector<std::pair<uint32_t, uint32_t>> RangesOf(uint8_t mask, bool complement) {
  std::vector<std::pair<uint32_t, uint32_t>> out;
  auto add = [&out](uint32_t first, uint32_t last) {
    if (!out.empty() && out.back().second + 1 == first) {
      out.back().second = last;
    } else {
      out.emplace_back(first, last);
    }
  };
  uint32_t next = 0;  // first code point not yet looked at
  for (const ClassRange& r : kRanges) {
    if (complement && r.first > next) add(next, r.first - 1);  // class 0: in the complement
    const bool in = (r.bits & mask) != 0;
    if (in != complement) add(r.first, r.last);
    next = r.last + 1;
  }
  if (complement && next <= kMaxCodePoint) add(next, kMaxCodePoint);
  return out;
}

const CharClasses& CharClasses::Get() {
  static const CharClasses* const table = new CharClasses();
  return *table;
}

CharClasses::CharClasses() {
  std::vector<uint8_t> flat(kMaxCodePoint + 1, 0);
  for (const ClassRange& r : kRanges) {
    for (uint32_t cp = r.first; cp <= r.last; ++cp) flat[cp] = r.bits;
  }
  // Two-stage table: identical 256-code-point blocks are stored once.
  std::map<std::string, uint16_t> seen;
  for (uint32_t block = 0; block <= (kMaxCodePoint >> 8); ++block) {
    const uint8_t* first = flat.data() + (block << 8);
    std::string key(reinterpret_cast<const char*>(first), 256);
    auto [it, inserted] = seen.emplace(std::move(key), static_cast<uint16_t>(seen.size()));
    if (inserted) blocks_.insert(blocks_.end(), first, first + 256);
    index_[block] = it->second;
  }
}

}  // namespace tokenmill::bpe
