// CodePointTable: one byte per Unicode code point in a two-stage table (identical 256-code-point
// blocks are stored once), as the pre-tokenizers' character tables need it.
// Thread-safety: immutable after construction.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace tokenmill {

class CodePointTable {
 public:
  static constexpr uint32_t kMaxCodePoint = 0x10FFFF;

  // Every code point's value, from `ranges` of {first, last, value} (others 0).
  template <typename Ranges, typename ValueOf>
  CodePointTable(const Ranges& ranges, ValueOf value_of) {
    std::vector<uint8_t> flat(kMaxCodePoint + 1, 0);
    for (const auto& r : ranges) {
      for (uint32_t cp = r.first; cp <= r.last; ++cp) flat[cp] = value_of(r);
    }
    std::map<std::string, uint16_t> seen;
    for (uint32_t block = 0; block <= (kMaxCodePoint >> 8); ++block) {
      const uint8_t* first = flat.data() + (static_cast<size_t>(block) << 8);
      std::string key(reinterpret_cast<const char*>(first), 256);
      auto [it, inserted] = seen.emplace(std::move(key), static_cast<uint16_t>(seen.size()));
      if (inserted) blocks_.insert(blocks_.end(), first, first + 256);
      index_[block] = it->second;
    }
  }

  uint8_t Of(uint32_t cp) const { return cp > kMaxCodePoint ? 0 : OfValid(cp); }
  // Of a code point known to be at most kMaxCodePoint (e.g. one of 3 UTF-8 bytes).
  uint8_t OfValid(uint32_t cp) const {
    return blocks_[(static_cast<size_t>(index_[cp >> 8]) << 8) | (cp & 0xFF)];
  }
  // The value of a code point below 0x100 (block 0 is stored first).
  uint8_t Low(uint8_t cp) const { return blocks_[cp]; }

 private:
  std::array<uint16_t, (kMaxCodePoint >> 8) + 1> index_{};
  std::vector<uint8_t> blocks_;
};

}  // namespace tokenmill
