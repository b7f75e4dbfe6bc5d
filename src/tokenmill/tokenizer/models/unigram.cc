#include "tokenmill/tokenizer/models/unigram.h"

#include <algorithm>
#include <cstdio>
#include <limits>

#include "tokenmill/tokenizer/char_util.h"

namespace tokenmill::hf {

namespace {
constexpr uint32_t kNoId = UINT32_MAX;
constexpr double kUnkPenalty = 10.0;
}  // namespace

StatusOr<std::unique_ptr<UnigramModel>> UnigramModel::Build(std::vector<UnigramPiece> vocab,
                                                            std::optional<uint32_t> unk_id,
                                                            bool byte_fallback,
                                                            UnigramFlavor flavor) {
  std::unique_ptr<UnigramModel> m(new UnigramModel());
  m->flavor_ = flavor;
  m->byte_fallback_ = byte_fallback;
  if (vocab.empty()) return Status::InvalidArgument("the vocabulary is empty");
  if (unk_id.has_value() && *unk_id >= vocab.size()) {
    return Status::InvalidArgument("unk_id " + std::to_string(*unk_id) + " is not in the " +
                                   std::to_string(vocab.size()) + "-piece vocabulary");
  }
  m->unk_id_ = unk_id;
  double min_score = std::numeric_limits<double>::infinity();
  double max_score = -std::numeric_limits<double>::infinity();
  for (const UnigramPiece& p : vocab) {
    const bool counts = flavor == UnigramFlavor::kHuggingFace || p.type == PieceType::kNormal;
    if (counts) min_score = std::min(min_score, p.score);
    if (p.type == PieceType::kNormal) max_score = std::max(max_score, p.score);
  }
  if (min_score == std::numeric_limits<double>::infinity()) min_score = 0;
  if (max_score == -std::numeric_limits<double>::infinity()) max_score = 0;
  if (flavor == UnigramFlavor::kSentencePiece) {
    m->unk_score_ = static_cast<float>(static_cast<float>(min_score) - 10.0f);
  } else {
    m->unk_score_ = min_score - kUnkPenalty;
  }
  std::vector<std::vector<Edge>> building(1);
  m->nodes_.emplace_back();
  for (uint32_t id = 0; id < vocab.size(); ++id) {
    UnigramPiece& p = vocab[id];
    double score = p.score;
    if (flavor == UnigramFlavor::kSentencePiece && p.type == PieceType::kUserDefined) {
      score = static_cast<float>(
          static_cast<float>(p.piece.size()) * static_cast<float>(max_score) - 0.1f);
    }
    m->scores_.push_back(score);
    m->scores_f_.push_back(static_cast<float>(score));
    m->types_.push_back(p.type);
    m->ids_.emplace(p.piece, id);
    bool in_trie = !p.piece.empty();
    if (flavor == UnigramFlavor::kSentencePiece) {
      in_trie = in_trie && (p.type == PieceType::kNormal || p.type == PieceType::kUserDefined ||
                            p.type == PieceType::kUnused);
    }
    if (in_trie) m->Insert(p.piece, static_cast<int32_t>(id), &building);
    m->pieces_.push_back(std::move(p.piece));
  }
  for (Node& n : m->nodes_) {
    if (n.id < 0) continue;
    n.score = m->scores_[static_cast<size_t>(n.id)];
    n.score_f = m->scores_f_[static_cast<size_t>(n.id)];
    if (flavor == UnigramFlavor::kSentencePiece &&
        m->types_[static_cast<size_t>(n.id)] == PieceType::kUnused) {
      n.id = -1;  // in the trie but never chosen
    }
  }
  // Flatten the children lists, sorted by byte.
  std::fill(std::begin(m->root_children_), std::end(m->root_children_), -1);
  for (size_t n = 0; n < building.size(); ++n) {
    auto& kids = building[n];
    std::sort(kids.begin(), kids.end(),
              [](const Edge& a, const Edge& b) { return a.byte < b.byte; });
    m->nodes_[n].first_child = static_cast<uint32_t>(m->edges_.size());
    m->nodes_[n].child_count = static_cast<uint16_t>(kids.size());
    m->edges_.insert(m->edges_.end(), kids.begin(), kids.end());
  }
  for (const Edge& e : building[0]) m->root_children_[e.byte] = static_cast<int32_t>(e.node);
  size_t capacity = 16;
  int bits = 4;
  while (capacity < 2 * m->edges_.size()) {
    capacity *= 2;
    ++bits;
  }
  m->edge_keys_.assign(capacity, 0);
  m->edge_nodes_.assign(capacity, 0);
  m->mask_ = capacity - 1;
  m->shift_ = 64 - bits;
  for (size_t n = 0; n < building.size(); ++n) {
    for (const Edge& e : building[n]) {
      const uint64_t key = (static_cast<uint64_t>(n) << 8 | e.byte) + 1;
      size_t i = (key * 0x9E3779B97F4A7C15ULL) >> m->shift_;
      while (m->edge_keys_[i] != 0) i = (i + 1) & m->mask_;
      m->edge_keys_[i] = key;
      m->edge_nodes_[i] = e.node;
    }
  }
  for (int b = 0; b < 256; ++b) {
    char name[8];
    std::snprintf(name, sizeof(name), "<0x%02X>", b);
    auto it = m->ids_.find(name);
    m->byte_ids_[b] = it == m->ids_.end() ? kNoId : it->second;
  }
  return m;
}

void UnigramModel::Insert(const std::string& s, int32_t id,
                          std::vector<std::vector<Edge>>* building) {
  uint32_t node = 0;
  for (char ch : s) {
    const auto b = static_cast<unsigned char>(ch);
    uint32_t child = UINT32_MAX;
    for (const Edge& e : (*building)[node]) {
      if (e.byte == b) {
        child = e.node;
        break;
      }
    }
    if (child == UINT32_MAX) {
      child = static_cast<uint32_t>(nodes_.size());
      nodes_.emplace_back();
      building->emplace_back();
      (*building)[node].push_back({b, child});
    }
    node = child;
  }
  // A repeated piece: HF's token_to_ids keeps the last id; SentencePiece refuses such models.
  nodes_[node].id = id;
}

template <typename Score>
void UnigramModel::Viterbi(std::string_view text, std::vector<uint32_t>* ids) const {
  struct Best {
    Score score;
    int32_t id;
    int32_t starts_at;  // -1: unset (pieces are below 2 GiB: Encode cuts longer ones)
  };
  const size_t size = text.size();
  thread_local std::vector<Best> best;
  best.assign(size + 1, Best{0, -1, -1});
  const int32_t unk = unk_id_.has_value() ? static_cast<int32_t>(*unk_id_) : -1;
  const Score unk_score = static_cast<Score>(unk_score_);
  size_t starts_at = 0;
  while (starts_at < size) {
    const Score till_here = best[starts_at].score;
    bool has_single_node = false;
    const size_t mblen =
        std::min(Utf8Length(static_cast<unsigned char>(text[starts_at])), size - starts_at);
    int32_t node = root_children_[static_cast<unsigned char>(text[starts_at])];
    size_t key_pos = starts_at + 1;
    while (node >= 0) {
      const Node& nd = nodes_[static_cast<size_t>(node)];
      if (nd.id >= 0) {
        Best& target = best[key_pos];
        // sentencepiece: the piece score and the path sum are floats, but its candidate is a
        // double (a conditional with a double branch), compared as a double and stored rounded
        // back to float. HF: doubles throughout.
        const double candidate =
            flavor_ == UnigramFlavor::kSentencePiece
                ? static_cast<double>(nd.score_f) + static_cast<double>(till_here)
                : nd.score + static_cast<double>(till_here);
        if (target.starts_at < 0 || candidate > static_cast<double>(target.score)) {
          target = {static_cast<Score>(candidate), nd.id, static_cast<int32_t>(starts_at)};
        }
        if (key_pos - starts_at == mblen) has_single_node = true;
      }
      if (key_pos >= size) break;
      node = nd.child_count == 0
                 ? -1
                 : Child(static_cast<uint32_t>(node), static_cast<unsigned char>(text[key_pos]));
      ++key_pos;
    }
    if (!has_single_node) {
      Best& target = best[starts_at + mblen];
      const Score candidate = unk_score + till_here;
      if (target.starts_at < 0 || candidate > target.score) {
        target = {candidate, unk, static_cast<int32_t>(starts_at)};
      }
    }
    starts_at += mblen;
  }
  thread_local std::vector<std::pair<size_t, int32_t>> path;  // (start, id), end to start
  path.clear();
  for (size_t ends_at = size; ends_at > 0;) {
    const Best& b = best[ends_at];
    path.emplace_back(static_cast<size_t>(b.starts_at), b.id);
    ends_at = static_cast<size_t>(b.starts_at);
  }
  std::reverse(path.begin(), path.end());
  if (flavor_ == UnigramFlavor::kHuggingFace) {
    EmitHf(text, path, ids);
  } else {
    EmitSpm(text, path, ids);
  }
  if (best.capacity() > (size_t{1} << 20)) {  // a huge piece: give the memory back
    std::vector<Best>().swap(best);
    std::vector<std::pair<size_t, int32_t>>().swap(path);
  }
}

void UnigramModel::EmitHf(std::string_view text,
                          const std::vector<std::pair<size_t, int32_t>>& path,
                          std::vector<uint32_t>* ids) const {
  const int32_t unk = unk_id_.has_value() ? static_cast<int32_t>(*unk_id_) : -2;
  auto emit = [&](std::string_view s) {
    auto it = ids_.find(std::string(s));
    if (it != ids_.end()) {
      ids->push_back(it->second);
      return;
    }
    if (byte_fallback_) {
      bool all = true;
      for (char c : s) all = all && byte_ids_[static_cast<unsigned char>(c)] != kNoId;
      if (all) {
        for (char c : s) ids->push_back(byte_ids_[static_cast<unsigned char>(c)]);
        return;
      }
    }
    if (unk_id_.has_value()) ids->push_back(*unk_id_);
  };
  size_t k = 0;
  while (k < path.size()) {
    const size_t start = path[k].first;
    size_t end = k + 1 < path.size() ? path[k + 1].first : text.size();
    if (path[k].second == unk) {  // fuse the run of unknowns
      size_t j = k + 1;
      while (j < path.size() && path[j].second == unk) ++j;
      end = j < path.size() ? path[j].first : text.size();
      emit(text.substr(start, end - start));
      k = j;
      continue;
    }
    emit(text.substr(start, end - start));
    ++k;
  }
}

void UnigramModel::EmitSpm(std::string_view text,
                           const std::vector<std::pair<size_t, int32_t>>& path,
                           std::vector<uint32_t>* ids) const {
  const int32_t unk = unk_id_.has_value() ? static_cast<int32_t>(*unk_id_) : -2;
  bool prev_unk = false;
  for (size_t k = 0; k < path.size(); ++k) {
    const bool is_unk = path[k].second == unk || path[k].second < 0;
    if (is_unk && byte_fallback_) {
      const size_t start = path[k].first;
      const size_t end = k + 1 < path.size() ? path[k + 1].first : text.size();
      for (size_t i = start; i < end; ++i) {
        const uint32_t b = byte_ids_[static_cast<unsigned char>(text[i])];
        ids->push_back(b != kNoId ? b : static_cast<uint32_t>(unk));
      }
      prev_unk = false;
      continue;
    }
    if (!(is_unk && prev_unk)) {
      ids->push_back(is_unk ? static_cast<uint32_t>(unk) : static_cast<uint32_t>(path[k].second));
    }
    prev_unk = is_unk;
  }
}

void UnigramModel::Encode(std::string_view piece, std::vector<uint32_t>* ids) const {
  if (piece.empty()) return;
  constexpr size_t kMax = size_t{1} << 30;  // never in practice; keeps positions in int32
  if (piece.size() > kMax) {
    size_t cut = kMax;
    while (cut > 0 && (static_cast<unsigned char>(piece[cut]) & 0xC0) == 0x80) --cut;
    Encode(piece.substr(0, cut), ids);
    Encode(piece.substr(cut), ids);
    return;
  }
  if (flavor_ == UnigramFlavor::kSentencePiece) {
    Viterbi<float>(piece, ids);
  } else {
    Viterbi<double>(piece, ids);
  }
}

}  // namespace tokenmill::hf
