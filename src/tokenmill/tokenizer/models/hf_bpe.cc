#include "tokenmill/tokenizer/models/hf_bpe.h"

#include <algorithm>
#include <cstdio>
#include <memory>

#include "tokenmill/tokenizer/char_util.h"

namespace tokenmill::hf {

using bpe::BpeModel;

StatusOr<std::unique_ptr<HfBpeModel>> HfBpeModel::Build(
    const std::vector<std::pair<std::string, uint32_t>>& vocab,
    const std::vector<std::pair<std::string, std::string>>& merges, HfBpeOptions options,
    const std::vector<uint32_t>& priorities) {
  std::unique_ptr<HfBpeModel> m(new HfBpeModel());
  m->options_ = std::move(options);
  m->plain_ =
      m->options_.continuing_subword_prefix.empty() && m->options_.end_of_word_suffix.empty();
  m->model_.Reserve(vocab.size());
  m->model_.set_ids_only(true);
  uint32_t limit = 0;
  for (const auto& [token, id] : vocab) limit = std::max(limit, id + 1);
  m->pieces_.assign(limit, std::string());
  for (const auto& [token, id] : vocab) {
    if (token.empty()) return Status::InvalidArgument("the empty string is not a valid token");
    Status st = m->model_.AddToken(token, id);
    if (!st.ok()) return st.WithContext("token \"" + token + "\"");
    m->pieces_[id] = token;
  }
  if (m->options_.unk_token.has_value()) {
    const uint32_t unk = m->Find(*m->options_.unk_token);
    if (unk == BpeModel::kNone) {
      return Status::InvalidArgument("unk_token \"" + *m->options_.unk_token +
                                     "\" is not in the vocabulary");
    }
    m->unk_id_ = unk;
  }
  const std::string& prefix = m->options_.continuing_subword_prefix;
  std::string joined;  // a merge's result, the buffer reused
  for (size_t i = 0; i < merges.size(); ++i) {
    const auto& [a, b] = merges[i];
    const uint32_t left = m->Find(a);
    const uint32_t right = m->Find(b);
    joined.assign(a);
    if (!prefix.empty() && std::string_view(b).starts_with(prefix)) {
      joined.append(b, prefix.size(), std::string::npos);
    } else {
      joined.append(b);
    }
    const uint32_t result = m->Find(joined);
    if (left == BpeModel::kNone || right == BpeModel::kNone || result == BpeModel::kNone) {
      return Status::InvalidArgument("merge " + std::to_string(i) + " (\"" + a + "\", \"" + b +
                                     "\"): token \"" +
                                     (left == BpeModel::kNone    ? a
                                      : right == BpeModel::kNone ? b
                                                                 : joined) +
                                     "\" is not in the vocabulary");
    }
    TM_RETURN_IF_ERROR(m->model_.AddMergeWithResult(
        left, right, result, i < priorities.size() ? priorities[i] : BpeModel::kNone));
  }
  TM_RETURN_IF_ERROR(m->model_.Finish());
  for (int b = 0; b < 256; ++b) {
    char name[8];
    std::snprintf(name, sizeof(name), "<0x%02X>", b);
    m->byte_ids_[b] = m->Find(name);
  }
  for (int c = 0; c < 128; ++c) {
    const char ch = static_cast<char>(c);
    m->ascii_ids_[c] = c == 0 ? m->Find(std::string_view(&ch, 1)) : m->Find(std::string(1, ch));
  }
  // Where a long piece may be cut (before ▁ after another character).
  if (m->plain_) {
    m->cut_ = m->Find(m->meta_) != BpeModel::kNone;
    for (const auto& [token, id] : vocab) {
      for (size_t pos = token.find(m->meta_, 1); pos != std::string::npos;
           pos = token.find(m->meta_, pos + 1)) {
        const size_t start = CharStartBefore(token, pos);
        const std::string before = token.substr(start, pos - start);
        if (before == m->meta_) continue;
        if (before == ">") m->cut_after_unknown_ = false;
        if (std::find(m->unsafe_before_meta_.begin(), m->unsafe_before_meta_.end(), before) ==
            m->unsafe_before_meta_.end()) {
          m->unsafe_before_meta_.push_back(before);
        }
      }
    }
  }
  return m;
}

bool HfBpeModel::CutsBeforeMeta(std::string_view before) const {
  if (!cut_ || before == meta_) return false;
  for (const std::string& u : unsafe_before_meta_) {
    if (before == u) return false;
  }
  return cut_after_unknown_ || Find(before) != BpeModel::kNone;
}

void HfBpeModel::EncodeWhole(std::string_view piece, std::vector<uint32_t>* ids) const {
  EncodeWord(piece, ids);
}

void HfBpeModel::Encode(std::string_view piece, std::vector<uint32_t>* ids) const {
  if (piece.empty()) return;
  if (options_.ignore_merges) {
    const uint32_t whole = Find(piece);
    if (whole != BpeModel::kNone) {
      ids->push_back(whole);
      return;
    }
  }
  if (!cut_ || piece.size() <= 256) {
    EncodeWord(piece, ids);
    return;
  }
  // Cut before every ▁ that follows a character after which no token can continue into ▁.
  size_t start = 0;
  size_t prev_start = 0;  // start of the previous character
  size_t i = 0;
  const auto meta0 = static_cast<char>(0xE2);
  while (i < piece.size()) {
    const size_t len = Utf8Length(static_cast<unsigned char>(piece[i]));
    if (piece[i] == meta0 && i > start && piece.compare(i, 3, meta_) == 0) {
      if (CutsBeforeMeta(piece.substr(prev_start, i - prev_start))) {
        EncodeWord(piece.substr(start, i - start), ids);
        start = i;
      }
    }
    prev_start = i;
    i += len;
  }
  EncodeWord(piece.substr(start), ids);
}

void HfBpeModel::EncodeWord(std::string_view word, std::vector<uint32_t>* ids) const {
  if (word.empty()) return;
  thread_local std::vector<uint32_t> symbols;
  symbols.clear();
  uint32_t unk = BpeModel::kNone;  // a pending unknown (fused runs emit one)
  std::string decorated;
  for (size_t i = 0; i < word.size();) {
    const size_t len = std::min(Utf8Length(static_cast<unsigned char>(word[i])), word.size() - i);
    const std::string_view ch = word.substr(i, len);
    const bool first = i == 0;
    i += len;
    const bool last = i >= word.size();
    std::string_view s = ch;
    uint32_t id;
    if (plain_) {
      id = len == 1 && static_cast<unsigned char>(ch[0]) < 0x80
               ? ascii_ids_[static_cast<unsigned char>(ch[0])]
               : Find(ch);
    } else {
      decorated.clear();
      if (!first) decorated.append(options_.continuing_subword_prefix);
      decorated.append(ch);
      if (last) decorated.append(options_.end_of_word_suffix);
      s = decorated;
      id = Find(s);
    }
    if (id != BpeModel::kNone) {
      if (unk != BpeModel::kNone) {
        symbols.push_back(unk);
        unk = BpeModel::kNone;
      }
      symbols.push_back(id);
      continue;
    }
    if (options_.byte_fallback) {
      bool all = true;
      for (char b : s) {
        if (byte_ids_[static_cast<unsigned char>(b)] == BpeModel::kNone) {
          all = false;
          break;
        }
      }
      if (all) {  // as HF: a pending unknown is not emitted first
        for (char b : s) symbols.push_back(byte_ids_[static_cast<unsigned char>(b)]);
        continue;
      }
    }
    if (unk_id_.has_value()) {
      if (unk != BpeModel::kNone && !options_.fuse_unk) symbols.push_back(unk);
      unk = *unk_id_;
    }
    // else: HF drops the character
  }
  if (unk != BpeModel::kNone) symbols.push_back(unk);
  model_.MergeIds(symbols, ids);
  if (symbols.capacity() > (1u << 20)) std::vector<uint32_t>().swap(symbols);
}

}  // namespace tokenmill::hf
