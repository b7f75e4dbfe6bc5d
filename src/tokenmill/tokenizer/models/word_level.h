// HF tokenizers' WordLevel model (models/wordlevel): a piece is one vocabulary token, or the
// unknown token.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "tokenmill/base/status.h"
#include "tokenmill/tokenizer/models/model.h"

namespace tokenmill::hf {

class WordLevelModel final : public Model {
 public:
  // Error if `unk_token` is not in `vocab` (HF fails on the first unknown piece instead).
  static StatusOr<std::unique_ptr<WordLevelModel>> Build(
      const std::vector<std::pair<std::string, uint32_t>>& vocab, const std::string& unk_token);

  void Encode(std::string_view piece, std::vector<uint32_t>* ids) const override;
  const std::vector<std::string>& pieces() const override { return pieces_; }

 private:
  std::unordered_map<std::string, uint32_t> vocab_;
  std::vector<std::string> pieces_;
  uint32_t unk_ = 0;
};

}  // namespace tokenmill::hf
