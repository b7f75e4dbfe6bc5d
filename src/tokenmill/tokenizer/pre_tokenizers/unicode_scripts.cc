#include "tokenmill/tokenizer/pre_tokenizers/unicode_scripts.h"

#include <cstddef>

#include "tokenmill/tokenizer/char_util.h"
#include "tokenmill/tokenizer/code_point_table.h"

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

}  // namespace

uint8_t ScriptClass(uint32_t cp) {
  static const CodePointTable* const table =
      new CodePointTable(kRanges, [](const ScriptRange& r) { return r.script; });
  return table->Of(cp);
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
