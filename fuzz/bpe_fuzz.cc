// Fuzz target: byte-level BPE pre-tokenization and encoding on arbitrary bytes.
//
// Input: the first byte selects what else runs (bit 0: the o200k_base tokenizer when its ranks
// are in ../shared; bit 1: the tokenizers that match special tokens literally); the rest is text.
// Checks, aborting on failure:
//  - on the text made valid (invalid UTF-8 replaced by U+FFFD), every hand-written scanner (GPT-2,
//    cl100k_base, o200k_base, Qwen2, Tekken, DeepSeek-V3, GPT-2 after Digits) cuts exactly the
//    pieces that PCRE2 cuts with the same regexes (in turn where there are several);
//  - on the raw bytes, the scanners' pieces are non-empty and cover the input;
//  - Encode() never crashes, every id is below vocab_size(), Decode() gives back the valid text
//    (specials decode to their text), and EncodeInPieces() gives the same ids;
//  - for every piece of the text, the linear and the heap merge give the same ids.

#include <cstdint>
#include <cstdlib>
#include <iterator>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "tokenmill/base/small_file.h"
#include "tokenmill/base/utf8.h"
#include "tokenmill/tokenizer/loaders/byte_level_bpe.h"
#include "tokenmill/tokenizer/models/bpe.h"
#include "tokenmill/tokenizer/pre_tokenizers/byte_level.h"

namespace {

using namespace tokenmill;

std::optional<std::string> Vocab(const std::string& rel) {
  if (auto d = ReadSmallFile(std::string(TOKENMILL_SOURCE_DIR) + "/data/vocab/" + rel)) return d;
  return ReadSmallFile(std::string(TOKENMILL_SOURCE_DIR) + "/../shared/data/vocab/" + rel);
}

std::unique_ptr<Tokenizer> Tiktoken(const std::string& name, bool split_special_tokens) {
  auto ranks = Vocab("tiktoken/" + name + ".tiktoken");
  if (!ranks) return nullptr;
  TokenizerOptions options;
  options.split_special_tokens = split_special_tokens;
  auto t = LoadTiktoken(options, *ranks, name + ".tiktoken");
  if (!t.ok()) std::abort();
  return std::move(t).value();
}

std::unique_ptr<Tokenizer> Gpt2(bool split_special_tokens) {
  auto encoder = Vocab("gpt2/encoder.json");
  auto merges = Vocab("gpt2/vocab.bpe");
  if (!encoder || !merges) return nullptr;
  TokenizerOptions options;
  options.split_special_tokens = split_special_tokens;
  auto t = LoadGpt2Encoder(options, *encoder, *merges, "encoder.json");
  if (!t.ok()) std::abort();
  return std::move(t).value();
}

constexpr bpe::Pattern kPatterns[] = {bpe::Pattern::kGpt2,      bpe::Pattern::kCl100k,
                                      bpe::Pattern::kO200k,     bpe::Pattern::kQwen2,
                                      bpe::Pattern::kTekken,    bpe::Pattern::kDeepSeekV3,
                                      bpe::Pattern::kGpt2Digits};
constexpr size_t kPatternCount = std::size(kPatterns);

struct Setup {
  std::vector<std::unique_ptr<bpe::RegexSplitter>> regex[kPatternCount];  // each pattern's chain
  std::unique_ptr<Tokenizer> cl100k, gpt2, o200k, cl100k_literal, gpt2_literal;
  std::unique_ptr<bpe::BpeModel> model;  // cl100k_base's ranks, to compare merge algorithms
};

const Setup& Get() {
  static const Setup* const setup = [] {
    auto* s = new Setup;
    for (size_t i = 0; i < kPatternCount; ++i) {
      for (std::string_view regex : bpe::PatternRegexes(kPatterns[i])) {
        auto r = bpe::RegexSplitter::Compile(regex);
        if (!r.ok()) std::abort();
        s->regex[i].push_back(std::move(r).value());
      }
    }
    s->cl100k = Tiktoken("cl100k_base", true);
    s->cl100k_literal = Tiktoken("cl100k_base", false);
    s->o200k = Tiktoken("o200k_base", true);
    s->gpt2 = Gpt2(true);
    s->gpt2_literal = Gpt2(false);
    if (s->cl100k != nullptr) {
      s->model = std::make_unique<bpe::BpeModel>(bpe::MergeRule::kRanks);
      for (uint32_t id = 0; id < 100256; ++id) {
        if (!s->model->AddToken(s->cl100k->IdToToken(id), id).ok()) std::abort();
      }
      if (!s->model->Finish().ok()) std::abort();
      s->model->set_characterwise_build_bytes(0);  // kAuto below: the characterwise encoder
    }
    return s;
  }();
  return *setup;
}

void CheckEncode(const Tokenizer* t, std::string_view raw, std::string_view valid) {
  if (t == nullptr) return;
  std::vector<uint32_t> ids;
  t->Encode(raw, &ids);
  for (uint32_t id : ids) {
    if (id >= t->vocab_size()) std::abort();
  }
  if (t->Decode(ids) != valid) std::abort();
  std::vector<uint32_t> pieces;  // the same ids handed out in pieces
  t->EncodeInPieces(raw, 3, [&](std::span<const uint32_t> p) {
    pieces.insert(pieces.end(), p.begin(), p.end());
  });
  if (pieces != ids) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const Setup& s = Get();
  const uint8_t flags = size > 0 ? data[0] : 0;
  const std::string_view raw =
      size > 0 ? std::string_view(reinterpret_cast<const char*>(data) + 1, size - 1) : "";
  std::string valid;
  AppendValidUtf8(raw, InvalidUtf8::kReplace, &valid);

  std::vector<std::string_view> got;
  std::vector<std::string_view> want;
  std::vector<std::string_view> next;
  for (size_t i = 0; i < kPatternCount; ++i) {
    const bpe::PreTokenizer scanner = bpe::PreTokenizer::ForPattern(kPatterns[i]);
    got.clear();
    scanner.Split(valid, &got);
    want.assign(1, valid);
    if (valid.empty()) want.clear();
    for (const auto& regex : s.regex[i]) {  // each regex on the pieces of the one before
      next.clear();
      for (std::string_view piece : want) regex->Split(piece, &next);
      want.swap(next);
    }
    if (got != want) std::abort();
    got.clear();
    scanner.Split(raw, &got);
    size_t covered = 0;
    for (std::string_view piece : got) {
      if (piece.empty() || piece.data() != raw.data() + covered) std::abort();
      covered += piece.size();
    }
    if (covered != raw.size()) std::abort();
  }

  CheckEncode(s.cl100k.get(), raw, valid);
  CheckEncode(s.gpt2.get(), raw, valid);
  if (flags & 1) CheckEncode(s.o200k.get(), raw, valid);
  if (flags & 2) {
    CheckEncode(s.cl100k_literal.get(), raw, valid);
    CheckEncode(s.gpt2_literal.get(), raw, valid);
  }

  if (s.model != nullptr) {
    got.clear();
    bpe::PreTokenizer::ForPattern(bpe::Pattern::kCl100k).Split(valid, &got);
    std::vector<uint32_t> linear;
    std::vector<uint32_t> heap;
    std::vector<uint32_t> automatic;
    for (std::string_view piece : got) {
      linear.clear();
      heap.clear();
      automatic.clear();
      s.model->EncodePiece(piece, &linear, bpe::BpeModel::Algorithm::kLinear);
      s.model->EncodePiece(piece, &heap, bpe::BpeModel::Algorithm::kHeap);
      s.model->EncodePiece(piece, &automatic, bpe::BpeModel::Algorithm::kAuto);
      if (linear != heap || automatic != heap) std::abort();
    }
  }
  return 0;
}
