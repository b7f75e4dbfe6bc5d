// Fuzz target: the BERT WordPiece tokenizer (normalizer, pre-tokenizer, WordPiece, loaders).
//
// Flag byte (the input's first byte):
//   bits 0-1  compat mode (0, 3: huggingface, 1: google-bert, 2: google-electra)
//   bit  2    lowercase
//   bit  3    strip_accents
//   bit  4    clean_text
//   bit  5    handle_chinese_chars
//   bit  6    split_special_tokens = false (special tokens matched in the text)
//   bit  7    the rest is a vocabulary (vocab.txt, or tokenizer.json if it starts with '{'),
//             loaded, then used on a fixed text; otherwise the rest is text for
//             data/vocab/bert-base-uncased/vocab.txt with max_input_chars_per_word = 8.
// Checks: no crash, every id is below vocab_size(), the per-code-point fast path and the exact
// slow path give the same ids, and load errors name the file.
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "tokenmill/tokenizer/models/wordpiece.h"

namespace {

using tokenmill::CompatMode;
using tokenmill::Tokenizer;
using tokenmill::TokenizerOptions;
using tokenmill::WordPieceTokenizer;

TokenizerOptions OptionsFor(uint8_t flags) {
  TokenizerOptions o;
  const int mode = flags & 3;
  o.compat = mode == 1   ? CompatMode::kGoogleBert
             : mode == 2 ? CompatMode::kGoogleElectra
                         : CompatMode::kHuggingFace;
  o.lowercase = (flags & 4) != 0;
  o.strip_accents = (flags & 8) != 0;
  o.clean_text = (flags & 16) != 0;
  o.handle_chinese_chars = (flags & 32) != 0;
  o.split_special_tokens = (flags & 64) == 0;
  return o;
}

void Check(const Tokenizer& t, std::string_view text) {
  std::vector<uint32_t> ids;
  t.Encode(text, &ids);
  for (uint32_t id : ids) {
    if (id >= t.vocab_size()) std::abort();
  }
  std::vector<uint32_t> slow;
  static_cast<const WordPieceTokenizer&>(t).EncodeSlowly(text, &slow);
  if (slow != ids) std::abort();
  (void)t.Decode(ids);
}

// The real vocabulary, loaded once per option set.
const Tokenizer& RealTokenizer(uint8_t flags) {
  static std::mutex mu;
  static auto* cache = new std::map<uint8_t, std::unique_ptr<Tokenizer>>();
  static const std::string* vocab = [] {
    std::ifstream in(TOKENMILL_SOURCE_DIR "/data/vocab/bert-base-uncased/vocab.txt",
                     std::ios::binary);
    auto* s =
        new std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (s->empty()) std::abort();  // the fuzzer runs from a source checkout
    return s;
  }();
  std::lock_guard<std::mutex> lock(mu);
  auto& slot = (*cache)[flags];
  if (slot == nullptr) {
    TokenizerOptions o = OptionsFor(flags);
    o.max_input_chars_per_word = 8;  // reach the [UNK]-by-length rule with short inputs
    auto t = tokenmill::LoadWordPieceVocab(o, *vocab, "vocab.txt");
    if (!t.ok()) std::abort();
    slot = std::move(t).value();
  }
  return *slot;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const uint8_t flags = data[0];
  const std::string_view rest(reinterpret_cast<const char*>(data + 1), size - 1);
  if ((flags & 128) == 0) {
    Check(RealTokenizer(flags & 127), rest);
    return 0;
  }
  const TokenizerOptions o = OptionsFor(flags);
  const bool json = !rest.empty() && rest[0] == '{';
  auto t = json ? tokenmill::LoadWordPieceTokenizerJson(o, rest, "fuzz.json")
                : tokenmill::LoadWordPieceVocab(o, rest, "fuzz.txt");
  if (!t.ok()) {
    if (t.status().message().find(json ? "fuzz.json" : "fuzz.txt") == std::string::npos) {
      std::abort();
    }
    return 0;
  }
  Check(**t, "Hello, [SEP] wörld! 中文 ΣΑΣ unaffable [UNK]");
  Check(**t, rest);
  return 0;
}
