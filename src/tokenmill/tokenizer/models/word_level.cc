#include "tokenmill/tokenizer/models/word_level.h"

#include <algorithm>

namespace tokenmill::hf {

StatusOr<std::unique_ptr<WordLevelModel>> WordLevelModel::Build(
    const std::vector<std::pair<std::string, uint32_t>>& vocab, const std::string& unk_token) {
  auto m = std::make_unique<WordLevelModel>();
  uint32_t limit = 0;
  for (const auto& [token, id] : vocab) limit = std::max(limit, id + 1);
  m->pieces_.assign(limit, std::string());
  for (const auto& [token, id] : vocab) {
    m->vocab_.emplace(token, id);
    m->pieces_[id] = token;
  }
  auto it = m->vocab_.find(unk_token);
  if (it == m->vocab_.end()) {
    return Status::InvalidArgument("unk_token \"" + unk_token +
                                   "\" is not in the vocabulary; add it to model.vocab, or make "
                                   "model.unk_token one of its tokens");
  }
  m->unk_ = it->second;
  return m;
}

void WordLevelModel::Encode(std::string_view piece, std::vector<uint32_t>* ids) const {
  auto it = vocab_.find(std::string(piece));
  ids->push_back(it == vocab_.end() ? unk_ : it->second);
}

}  // namespace tokenmill::hf
