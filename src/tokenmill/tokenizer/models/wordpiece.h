// BERT WordPiece: BertNormalizer + BertPreTokenizer + greedy longest-match-first WordPiece,
// bit-exact with HF tokenizers 0.23.2, google-research/bert and google-research/electra
// (CompatMode). See docs/tokenizers.md for every rule and known difference.
// Thread-safety: the loaders are pure functions; a loaded tokenizer is immutable and may be
// used from many threads.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tokenmill/base/byte_set.h"
#include "tokenmill/base/status.h"
#include "tokenmill/tokenizer/loaders/json_parse.h"
#include "tokenmill/tokenizer/normalizers/bert_normalizer.h"
#include "tokenmill/tokenizer/tokenizer.h"

namespace tokenmill {

// From a vocab.txt (one token per line, split on '\n' only; id = line number from 0).
// `source` names the file in error messages. Requires [UNK], [CLS] and [SEP] in the vocab.
StatusOr<std::unique_ptr<Tokenizer>> LoadWordPieceVocab(const TokenizerOptions& options,
                                                        std::string_view vocab_txt,
                                                        std::string_view source);

// From a HuggingFace tokenizer.json whose model is WordPiece (normalizer BertNormalizer,
// pre-tokenizer BertPreTokenizer). Settings in the file are defaults; explicit options win.
StatusOr<std::unique_ptr<Tokenizer>> LoadWordPieceTokenizerJson(const TokenizerOptions& options,
                                                                std::string_view json,
                                                                std::string_view source);
// The same from the file already parsed (discarded JSON: "not valid JSON").
StatusOr<std::unique_ptr<Tokenizer>> LoadWordPieceParsedTokenizerJson(
    const TokenizerOptions& options, const ParsedTokenizerJson& json, std::string_view source);

// A hash table from token text to id (open addressing; the bytes of keys past their 8th live in
// one string). Thread-safety: immutable after Build().
class WordPieceTable {
 public:
  static constexpr uint32_t kNotFound = 0xFFFFFFFF;

  // Later entries with the same text win, as in both references.
  void Build(const std::vector<std::pair<std::string_view, uint32_t>>& entries);
  uint32_t Find(std::string_view key) const;

 private:
  // 16 bytes, four to a cache line: the table of a 30,000-token vocabulary is 1 MiB, which
  // stays in the cache better beside the rest of a pipeline than slots of 24 bytes did.
  struct Slot {
    uint64_t head;  // the first 8 bytes of the key, zero-padded
    uint32_t id;    // kNotFound: an empty slot
    uint32_t meta;  // Compact: size | (offset of the key's bytes past the 8th in tails_) <<
                    // kSizeBits. Wide: an index into wide_keys_.
  };
  // Where the sizes and offsets of the keys do not fit `meta` (a key of 2^kSizeBits bytes or
  // more, or tails_ of 2^(32 - kSizeBits) bytes or more), every slot names one of these instead.
  struct WideKey {
    uint32_t size;
    uint32_t offset;
  };
  static constexpr int kSizeBits = 8;
  // The first min(n, 8) bytes of p as a little-endian integer, zero-padded.
  static uint64_t Head(const char* p, size_t n);
  static uint64_t Hash(uint64_t head, const char* p, size_t n);
  // Whether the key of a slot whose head matches is p[0..n).
  bool SameKey(uint32_t meta, const char* p, size_t n) const;

  std::vector<Slot> slots_;
  std::string tails_;  // the bytes past the 8th of each key longer than 8 bytes
  std::vector<WideKey> wide_keys_;
  bool wide_ = false;
  uint64_t mask_ = 0;
};

// A double-array trie over token bytes, for the greedy longest-match search.
// Thread-safety: immutable after Build().
class WordPieceTrie {
 public:
  static constexpr uint32_t kNotFound = 0xFFFFFFFF;

  // Later entries with the same text win. Empty keys are ignored.
  void Build(const std::vector<std::pair<std::string_view, uint32_t>>& entries);
  // The length of the longest key that is a prefix of `text` (0 if none); sets *id to its id.
  size_t LongestPrefix(std::string_view text, uint32_t* id) const;

 private:
  struct Cell {
    int32_t base;   // children of this cell are at base + byte + 1; 0: no children
    int32_t check;  // the parent cell; -1: free
    uint32_t id;    // kNotFound: no key ends here
  };
  std::vector<Cell> cells_;
};

// The WordPiece tokenizer that the loaders return. Thread-safety: immutable; Encode() may be
// called from many threads.
class WordPieceTokenizer final : public Tokenizer {
 public:
  struct Config {
    std::vector<std::string> vocab;                // by id; "" for ids without a token
    std::string unk_token = "[UNK]";               // Default: "[UNK]"
    std::string continuing_subword_prefix = "##";  // Default: "##"
    int max_input_chars_per_word = 100;            // Default: 100 (> 0)
    BertNormalizerOptions normalizer;              // Default: HF, all switches on
    // Matched literally in the text before normalization, longest first (see Encode()).
    // Default: none.
    std::vector<std::pair<std::string, uint32_t>> literal_tokens;
    SpecialTokens specials;
  };

  // REQUIRES: config.unk_token is in config.vocab.
  explicit WordPieceTokenizer(Config config);

  TokenizerKind kind() const override { return TokenizerKind::kWordPiece; }
  void Encode(std::string_view text, std::vector<uint32_t>* ids) const override;
  // Cuts the text before an ASCII space once `piece_bytes` have gone by: a space always ends a
  // word and every normalization context (accents, Python's final sigma), so the ids are those
  // of Encode(). Not when a literal token holds a space (it could span the cut): then whole.
  void EncodeInPieces(std::string_view text, size_t piece_bytes,
                      const IdPieceSink& sink) const override;
  uint32_t vocab_size() const override { return static_cast<uint32_t>(config_.vocab.size()); }
  std::string_view IdToToken(uint32_t id) const override;
  std::optional<uint32_t> TokenToId(std::string_view token) const override;
  std::string Decode(std::span<const uint32_t> ids) const override;
  const SpecialTokens& specials() const override { return config_.specials; }

  // Encode() through the exact slow path of the normalizer for every token (tests, fuzzing).
  void EncodeSlowly(std::string_view text, std::vector<uint32_t>* ids) const;

  const Config& config() const { return config_; }

  // Appends the ids of one pre-tokenized word of `chars` code points.
  void EncodeWord(std::string_view word, size_t chars, std::vector<uint32_t>* ids) const;
  // Appends the id of a word of one code point (`utf8` is its encoding).
  void EncodeChar(char32_t cp, std::string_view utf8, std::vector<uint32_t>* ids) const;

 private:
  template <bool kSlowly>
  void EncodeImpl(std::string_view text, std::vector<uint32_t>* ids) const;

  Config config_;
  std::shared_ptr<const BertPreTokenizer> pre_tokenizer_;
  WordPieceTable all_;            // every token
  WordPieceTrie initial_trie_;    // every token
  WordPieceTrie continuation_;    // "##x" tokens, keyed by "x"
  std::vector<uint32_t> single_;  // BMP code point -> id of the one-character token
  uint32_t unk_id_ = 0;
  ByteSet literal_first_bytes_;     // the literal tokens' first bytes
  bool literal_has_space_ = false;  // a literal token holds ' '
};

}  // namespace tokenmill
