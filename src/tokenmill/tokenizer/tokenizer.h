// Tokenizer: text to token ids, bit-exact with the reference implementations.
//
// Kinds: BERT WordPiece (vocab.txt or a HuggingFace tokenizer.json with a WordPiece model),
// byte-level BPE (tiktoken rank files, GPT-2 encoder.json + vocab.bpe, HuggingFace tokenizer.json
// with a ByteLevel pre-tokenizer and a BPE model) and every other tokenizer.json through HF's
// general pipeline (SentencePiece-style BPE such as Llama-2 and Gemma, WordLevel).
// LoadTokenizer() is the only switch over kinds.
// Thread-safety: a loaded Tokenizer is immutable; Encode() may be called from many threads.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "tokenmill/base/status.h"

namespace tokenmill {

// kBytePairEncoding: byte-level and SentencePiece-style BPE; kUnigram: SentencePiece Unigram
// (tokenizer.json or .model); kWordLevel: HF WordLevel.
enum class TokenizerKind { kWordPiece, kBytePairEncoding, kUnigram, kWordLevel };

// Which reference a WordPiece tokenizer reproduces bit for bit.
enum class CompatMode {
  kHuggingFace,    // HF tokenizers 0.23.2 BertWordPieceTokenizer (default)
  kGoogleBert,     // google-research/bert tokenization.py
  kGoogleElectra,  // google-research/electra model/tokenization.py
};

// The [tokenizer] table of a job file and the flags of `tokenize`. Unset optionals take the
// defaults of the chosen kind and compat mode.
struct TokenizerOptions {
  std::string path;                   // vocab.txt, tokenizer.json, encoder.json or *.tiktoken
  std::optional<std::string> merges;  // encoder.json: the merges (default: vocab.bpe beside it)
  std::optional<std::string>
      encoding;                       // tiktoken: "cl100k_base", "o200k_base", "r50k_base", "gpt2"
  std::optional<bool> lowercase;      // WordPiece. Default: true, or tokenizer.json's setting
  std::optional<bool> strip_accents;  // WordPiece. Default: follows lowercase
  std::optional<bool> handle_chinese_chars;     // WordPiece. Default: true
  std::optional<bool> clean_text;               // WordPiece. Default: true
  std::optional<int> max_input_chars_per_word;  // WordPiece. Default: 100 (HF) or 200 (Google)
  bool split_special_tokens = true;  // true: "[SEP]" / "<|endoftext|>" in text are plain text
  CompatMode compat = CompatMode::kHuggingFace;
};

// The ids of the special tokens a builder may insert; absent ones are nullopt.
struct SpecialTokens {
  std::optional<uint32_t> cls, sep, pad, mask, unk;  // BERT
  std::optional<uint32_t> eod;                       // <|endoftext|> (GPT)
  std::optional<uint32_t> bos, eos;                  // kBosSpellings, kEosSpellings
  std::map<std::string, uint32_t> all;               // every special token by its text
};

// How model families spell their beginning- and end-of-sequence tokens, in the order a loader
// looks for them: SentencePiece (<s>, </s>), Gemma (<bos>, <eos>), Llama-3 (<|begin_of_text|>,
// <|end_of_text|>), DeepSeek-V3 (<｜begin▁of▁sentence｜>, <｜end▁of▁sentence｜>, with fullwidth
// bars and U+2581), Command R (<BOS_TOKEN>, <EOS_TOKEN>; its chat's <|END_OF_TURN_TOKEN|> is not
// a document's end), Claude (<EOT>, its tokenizer_config.json's eos_token; that file also names it
// bos_token, which is not taken as a BOS: it ends a text).
inline constexpr std::string_view kBosSpellings[] = {
    "<s>", "<bos>", "<|begin_of_text|>",
    "<\xEF\xBD\x9C"
    "begin\xE2\x96\x81of\xE2\x96\x81sentence\xEF\xBD\x9C>",
    "<BOS_TOKEN>"};
inline constexpr std::string_view kEosSpellings[] = {
    "</s>",
    "<eos>",
    "<|end_of_text|>",
    "<\xEF\xBD\x9C"
    "end\xE2\x96\x81of\xE2\x96\x81sentence\xEF\xBD\x9C>",
    "<EOS_TOKEN>",
    "<EOT>"};

// The first of `spellings` that is a special token of `specials` (`specials.all`). (Inline: the
// loaders' libraries sit below the one of tokenizer.cc.)
inline std::optional<uint32_t> FindSpecial(const SpecialTokens& specials,
                                           std::span<const std::string_view> spellings) {
  for (std::string_view s : spellings) {
    if (auto it = specials.all.find(std::string(s)); it != specials.all.end()) return it->second;
  }
  return std::nullopt;
}

class Tokenizer {
 public:
  virtual ~Tokenizer() = default;

  virtual TokenizerKind kind() const = 0;

  // Appends the ids of `text` to *ids, without adding special tokens. `text` should be valid
  // UTF-8 (readers repair it); invalid bytes never crash and are dropped or replaced.
  virtual void Encode(std::string_view text, std::vector<uint32_t>* ids) const = 0;

  // Encode for text the caller has already found to be valid UTF-8 (`tokenize` checks its input
  // a block at a time): the same ids, without checking each text again. REQUIRES: `text` is valid
  // UTF-8.
  virtual void EncodeValidUtf8(std::string_view text, std::vector<uint32_t>* ids) const {
    Encode(text, ids);
  }

  // The ids of `text`, exactly Encode's, handed to `sink` in order and, where the tokenizer can
  // cut the text without changing any id, in several calls of about `piece_bytes` of text each,
  // so that a huge document never has all its ids (or its normalized copies) in memory. The
  // default encodes the whole text and calls `sink` once (if there are ids).
  using IdPieceSink = std::function<void(std::span<const uint32_t> ids)>;
  virtual void EncodeInPieces(std::string_view text, size_t piece_bytes,
                              const IdPieceSink& sink) const {
    (void)piece_bytes;
    std::vector<uint32_t> ids;
    Encode(text, &ids);
    if (!ids.empty()) sink(ids);
  }

  // One past the largest id (including special tokens).
  virtual uint32_t vocab_size() const = 0;

  // The token's text ("##ing"; for byte-level BPE the raw bytes it stands for). Empty if unknown.
  virtual std::string_view IdToToken(uint32_t id) const = 0;
  virtual std::optional<uint32_t> TokenToId(std::string_view token) const = 0;

  // Readable text for `inspect`: WordPiece joins pieces ("##" glued), BPE concatenates bytes.
  virtual std::string Decode(std::span<const uint32_t> ids) const = 0;

  virtual const SpecialTokens& specials() const = 0;
};

// The files that make up a tokenizer, by role, with their bytes: "main" (options.path) and for
// encoder.json also "merges". Names are kept, since the file name selects the kind.
struct TokenizerFile {
  std::string role;  // "main" or "merges"
  std::string name;  // base name, e.g. "vocab.txt", "cl100k_base.tiktoken"
  std::string data;
  // Sha256Hex(data) where the caller has already computed it (LoadSharedTokenizer then does not
  // hash the file again: a Gemma-3 tokenizer.json is 33 MB); empty otherwise.
  std::string sha256 = {};
};

// The locations of the files `options` needs (options.path first).
StatusOr<std::vector<std::pair<std::string, std::string>>> TokenizerFileLocations(
    const TokenizerOptions& options);  // (role, location)

// Builds a tokenizer from file contents; the only switch over tokenizer kinds.
StatusOr<std::unique_ptr<Tokenizer>> LoadTokenizer(const TokenizerOptions& options,
                                                   const std::vector<TokenizerFile>& files);

// Reads the files through Storage (local paths, s3://, gs://) and calls LoadTokenizer.
StatusOr<std::unique_ptr<Tokenizer>> LoadTokenizerFromStorage(const TokenizerOptions& options);

// As LoadTokenizer, but a process builds the same tokenizer (equal options, files of equal names
// and bytes) once: `tokenmill run` plans, works and writes its report in one process, and a
// tokenizer takes from milliseconds to seconds to build. The last kSharedTokenizers built stay
// alive for the process's lifetime. Thread-safe.
inline constexpr size_t kSharedTokenizers = 2;
StatusOr<std::shared_ptr<const Tokenizer>> LoadSharedTokenizer(
    const TokenizerOptions& options, const std::vector<TokenizerFile>& files);

std::string_view CompatModeName(CompatMode mode);
StatusOr<CompatMode> ParseCompatMode(std::string_view name);  // "huggingface", "google-bert", ...

}  // namespace tokenmill
