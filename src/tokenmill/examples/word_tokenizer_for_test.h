// WordTokenizerForTest: a tiny Tokenizer for the builders' tests, over the public interface.
//
// Splits text on ASCII spaces, tabs and newlines. The word "tN" (N a decimal number below
// vocab_size) is id N; any other word is [UNK]. Ids 0-4 are [PAD] [UNK] [CLS] [SEP] [MASK] when
// `bert` is set; the last id is <|endoftext|> when `eod` is set. Thread-safety: immutable after
// construction.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "tokenmill/tokenizer/tokenizer.h"

namespace tokenmill {

class WordTokenizerForTest : public Tokenizer {
 public:
  explicit WordTokenizerForTest(uint32_t vocab_size = 1000, bool bert = true, bool eod = false)
      : vocab_size_(vocab_size) {
    for (uint32_t i = 0; i < vocab_size; ++i) names_.push_back("t" + std::to_string(i));
    if (bert) {
      const char* names[] = {"[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"};
      for (uint32_t i = 0; i < 5; ++i) specials_.all[names[i]] = i;
      specials_.pad = 0;
      specials_.unk = 1;
      specials_.cls = 2;
      specials_.sep = 3;
      specials_.mask = 4;
    }
    if (eod) {
      specials_.eod = vocab_size - 1;
      specials_.all["<|endoftext|>"] = vocab_size - 1;
    }
  }

  TokenizerKind kind() const override { return TokenizerKind::kWordPiece; }

  void Encode(std::string_view text, std::vector<uint32_t>* ids) const override {
    size_t pos = 0;
    while (pos < text.size()) {
      const size_t end = text.find_first_of(" \t\n", pos);
      const std::string_view word =
          text.substr(pos, end == std::string_view::npos ? std::string_view::npos : end - pos);
      if (!word.empty()) {
        const std::optional<uint32_t> id = TokenToId(word);
        if (id.has_value()) {
          ids->push_back(*id);
        } else if (specials_.unk.has_value()) {
          ids->push_back(*specials_.unk);
        }
      }
      if (end == std::string_view::npos) break;
      pos = end + 1;
    }
  }

  // Cuts the text before the first ' ' at or after each piece_bytes, as the real tokenizers cut
  // at points that do not change the ids.
  void EncodeInPieces(std::string_view text, size_t piece_bytes,
                      const IdPieceSink& sink) const override {
    std::vector<uint32_t> ids;
    size_t start = 0;
    while (start < text.size()) {
      size_t end = text.find(' ', start + std::max<size_t>(piece_bytes, 1));
      if (end == std::string_view::npos) end = text.size();
      ids.clear();
      Encode(text.substr(start, end - start), &ids);
      if (!ids.empty()) sink(ids);
      start = end;
    }
  }

  uint32_t vocab_size() const override { return vocab_size_; }

  std::string_view IdToToken(uint32_t id) const override {
    for (const auto& [name, special] : specials_.all) {
      if (special == id) return name;
    }
    if (id >= vocab_size_) return {};
    return names_[id];
  }

  std::optional<uint32_t> TokenToId(std::string_view token) const override {
    const auto it = specials_.all.find(std::string(token));
    if (it != specials_.all.end()) return it->second;
    if (token.size() < 2 || token.size() > 8 || token[0] != 't') return std::nullopt;
    uint32_t n = 0;
    for (const char c : token.substr(1)) {
      if (c < '0' || c > '9') return std::nullopt;
      n = n * 10 + static_cast<uint32_t>(c - '0');
    }
    if (n >= vocab_size_ || (n < 5 && specials_.cls.has_value())) return std::nullopt;
    if (specials_.eod.has_value() && n == *specials_.eod) return std::nullopt;
    return n;
  }

  std::string Decode(std::span<const uint32_t> ids) const override {
    std::string out;
    for (const uint32_t id : ids) {
      if (!out.empty()) out.push_back(' ');
      out.append(IdToToken(id));
    }
    return out;
  }

  const SpecialTokens& specials() const override { return specials_; }

 private:
  uint32_t vocab_size_;
  SpecialTokens specials_;
  std::vector<std::string> names_;  // "t0", "t1", ...
};

}  // namespace tokenmill
