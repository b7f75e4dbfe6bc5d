// HF tokenizers' BPE model (models/bpe/model.rs) over Unicode characters, as SentencePiece-style
// tokenizers use it (Llama-2, Mistral, Gemma): every character is a symbol (with
// continuing_subword_prefix / end_of_word_suffix), a character not in the vocabulary becomes its
// <0xXX> byte tokens (byte_fallback) or the unknown token (fused if fuse_unk) or is dropped; then
// the merges apply, lowest rank first, leftmost among equals (bpe::BpeModel::MergeIds).
//
// Long pieces: a piece is cut before a "▁" that follows another character when no vocabulary
// token can span that place (no token holds that character followed by "▁"); the parts merge
// independently and give the same ids, in O(n log n) and bounded memory.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "tokenmill/base/status.h"
#include "tokenmill/tokenizer/models/bpe.h"
#include "tokenmill/tokenizer/models/model.h"

namespace tokenmill::hf {

struct HfBpeOptions {
  std::optional<std::string> unk_token;
  bool fuse_unk = false;
  bool byte_fallback = false;
  bool ignore_merges = false;
  std::string continuing_subword_prefix;
  std::string end_of_word_suffix;
};

class HfBpeModel final : public Model {
 public:
  // `vocab`: (token, id); `merges`: the (left, right) lines in order. Errors name what is wrong;
  // the caller adds the file and JSON path.
  static StatusOr<std::unique_ptr<HfBpeModel>> Build(
      const std::vector<std::pair<std::string, uint32_t>>& vocab,
      const std::vector<std::pair<std::string, std::string>>& merges, HfBpeOptions options,
      const std::vector<uint32_t>& priorities = {});  // optional, one per merge

  void Encode(std::string_view piece, std::vector<uint32_t>* ids) const override;
  const std::vector<std::string>& pieces() const override { return pieces_; }
  bool CutsBeforeMeta(std::string_view before) const override;
  std::optional<uint32_t> unk_id() const { return unk_id_; }

  // Encodes without cutting long pieces (for tests: the cut must not change ids).
  void EncodeWhole(std::string_view piece, std::vector<uint32_t>* ids) const;

 private:
  HfBpeModel() : model_(bpe::MergeRule::kMerges) {}
  uint32_t Find(std::string_view s) const { return model_.Find(s); }
  void EncodeWord(std::string_view word, std::vector<uint32_t>* ids) const;

  bpe::BpeModel model_;
  HfBpeOptions options_;
  std::optional<uint32_t> unk_id_;
  std::vector<std::string> pieces_;
  uint32_t byte_ids_[256];             // <0xXX>, or kNone
  uint32_t ascii_ids_[128];            // single ASCII characters (no prefix/suffix), or kNone
  bool plain_ = true;                  // no prefix and no suffix
  std::string meta_ = "\xE2\x96\x81";  // ▁
  // The characters c for which some token holds c followed by ▁ (cutting after c is unsafe);
  // `cut_after_unknown_` false if such a token holds ">▁" (byte tokens and <unk> end in '>').
  std::vector<std::string> unsafe_before_meta_;
  bool cut_after_unknown_ = true;
  bool cut_ = false;  // cutting is possible at all
};

}  // namespace tokenmill::hf
