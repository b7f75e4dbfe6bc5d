#include "tokenmill/tokenizer/pre_tokenizers/unicode_scripts.h"

#include <array>
#include <cstddef>
#include <map>
#include <string>
#include <utility>

#include "tokenmill/tokenizer/char_util.h"

namespace tokenmill::hf {
namespace {

struct ScriptRange {
  uint32_t first;
  uint32_t last;
  uint8_t script;
};

constexpr ScriptRange kRanges[] = {
#include "tokenmill/tokenizer/pre_tokenizers/unicode_scripts_table.inc"
};

constexpr uint32_t kMaxCodePoint = 0x10FFFF;

// Two-stage table: identical 256-code-point blocks are stored once.
class ScriptTable {
 public:
  ScriptTable() {
    std::vector<uint8_t> flat(kMaxCodePoint + 1, 0);
    for (const ScriptRange& r : kRanges) {
      for (uint32_t cp = r.first; cp <= r.last; ++cp) flat[cp] = r.script;
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

  uint8_t Get(uint32_t cp) const {
    if (cp > kMaxCodePoint) return 0;
    return blocks_[(static_cast<size_t>(index_[cp >> 8]) << 8) | (cp & 0xFF)];
  }

 private:
  std::array<uint16_t, (kMaxCodePoint >> 8) + 1> index_{};
  std::vector<uint8_t> blocks_;
};

}  // namespace

uint8_t ScriptClass(uint32_t cp) {
  static const ScriptTable* const table = new ScriptTable();
  return table->Get(cp);
}

void UnicodeScriptsPreTokenizer::PreTokenize(std::vector<Piece>* pieces) const {
  std::vector<Piece> out;
  out.reserve(pieces->size());
  std::vector<size_t> cuts;
  for (Piece& piece : *pieces) {
    const std::string& text = piece.text;
    cuts.clear();
    uint8_t last = 0;  // 0: no character with a script seen yet
    for (size_t i = 0; i < text.size();) {
      size_t len;
      const uint8_t script = ScriptClass(DecodeAt(text, i, &len));
      if (script != 0) {
        if (script != last) cuts.push_back(i);  // also the first scripted character
        last = script;
      }
      i += len;
    }
    if (cuts.size() == 1 && cuts[0] == 0) {  // one script throughout: the piece stays whole
      out.push_back(std::move(piece));
      continue;
    }
    cuts.push_back(text.size());
    for (size_t k = 0; k + 1 < cuts.size(); ++k) {
      out.push_back({text.substr(cuts[k], cuts[k + 1] - cuts[k]), piece.at_origin && cuts[k] == 0});
    }
  }
  pieces->swap(out);
}

}  // namespace tokenmill::hf
