// ReferenceMerge: the byte-level BPE merge as its two rules define it, one pair at a time, for
// the tests and fuzz targets of BpeModel to compare its encoders with. Repeatedly the adjacent
// pair with the lowest priority merges, the leftmost among equals: under kRanks a pair whose
// concatenation is a token, at that token's id (and a piece that is a token is that token);
// under kMerges a pair on a merge line, at the line. Quadratic in the piece: short pieces only.
// Test-only code. Thread-safety: Encode() may run on many threads once the maps are filled.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tokenmill/tokenizer/models/bpe.h"

namespace tokenmill::bpe {

struct ReferenceMerge {
  MergeRule rule;
  std::map<std::string, uint32_t, std::less<>> ids;        // token bytes -> id
  std::map<std::pair<uint32_t, uint32_t>, uint32_t> line;  // kMerges: pair -> its (last) line

  std::vector<uint32_t> Encode(std::string_view piece) const {
    if (rule == MergeRule::kRanks) {
      if (const auto it = ids.find(piece); it != ids.end()) return {it->second};
    }
    std::vector<std::string> parts;
    for (const char c : piece) parts.emplace_back(1, c);
    for (;;) {
      size_t best = parts.size();
      uint32_t best_priority = UINT32_MAX;
      for (size_t k = 0; k + 1 < parts.size(); ++k) {
        const auto token = ids.find(parts[k] + parts[k + 1]);
        if (token == ids.end()) continue;
        uint32_t priority = token->second;
        if (rule == MergeRule::kMerges) {
          const auto l = line.find({ids.find(parts[k])->second, ids.find(parts[k + 1])->second});
          if (l == line.end()) continue;
          priority = l->second;
        }
        if (priority < best_priority) {
          best_priority = priority;
          best = k;
        }
      }
      if (best == parts.size()) break;
      parts[best] += parts[best + 1];
      parts.erase(parts.begin() + static_cast<std::ptrdiff_t>(best) + 1);
    }
    std::vector<uint32_t> out;
    for (const std::string& part : parts) out.push_back(ids.find(part)->second);
    return out;
  }
};

}  // namespace tokenmill::bpe
