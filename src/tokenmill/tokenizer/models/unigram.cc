#include "tokenmill/tokenizer/models/unigram.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <numeric>
#include <string_view>
#include <type_traits>

#include "tokenmill/tokenizer/char_util.h"

namespace tokenmill::hf {

namespace {
constexpr uint32_t kNoId = UINT32_MAX;
constexpr double kUnkPenalty = 10.0;
constexpr int32_t kFallback = std::numeric_limits<int32_t>::min();

// The per-thread cache of solved segments: direct-mapped, 8192 entries of 128 bytes (1 MiB a
// thread, allocated on first use); an entry belongs to one model (its serial).
struct SegmentCache {
  static constexpr size_t kMaxBytes = 30;
  static constexpr size_t kMaxSteps = 10;
  static constexpr size_t kEntries = 8192;
  struct Entry {
    double base = 0;          // the seed it was solved with
    double max_abs_base = 0;  // any seed up to this magnitude gives the same path
    uint64_t hash = 0;
    uint32_t serial = 0;  // 0: empty (model serials start at 1)
    uint8_t length = 0;
    uint8_t steps = 0;
    char bytes[kMaxBytes];
    int32_t ids[kMaxSteps];
    uint8_t lengths[kMaxSteps];  // bytes of each step; bit 7: an unknown character
  };
  static_assert(sizeof(Entry) <= 128);
  std::unique_ptr<Entry[]> entries{new Entry[kEntries]};

  static SegmentCache& ForThread() {
    thread_local SegmentCache cache;
    return cache;
  }
  Entry& Slot(uint64_t hash) { return entries[(hash >> 40) & (kEntries - 1)]; }
};

std::atomic<uint32_t> next_serial{1};

uint64_t HashSegment(std::string_view s) {
  uint64_t h = 0x9E3779B97F4A7C15ULL ^ (s.size() * 0xFF51AFD7ED558CCDULL);
  size_t i = 0;
  for (; i + 8 <= s.size(); i += 8) {
    uint64_t w;
    std::memcpy(&w, s.data() + i, 8);
    h = (h ^ w) * 0xBF58476D1CE4E5B9ULL;
    h ^= h >> 29;
  }
  if (i < s.size()) {
    uint64_t w = 0;
    std::memcpy(&w, s.data() + i, s.size() - i);
    h = (h ^ w) * 0x94D049BB133111EBULL;
  }
  h ^= h >> 32;
  h *= 0xD6E8FEB86659FD93ULL;
  h ^= h >> 32;
  return h;
}
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
    if (flavor == UnigramFlavor::kHuggingFace) {
      m->ids_.insert_or_assign(p.piece, id);  // HF's token_to_ids: the last id of a repeat
    } else {
      m->ids_.emplace(p.piece, id);
    }
    bool in_trie = !p.piece.empty();
    if (flavor == UnigramFlavor::kSentencePiece) {
      in_trie = in_trie && (p.type == PieceType::kNormal || p.type == PieceType::kUserDefined ||
                            p.type == PieceType::kUnused);
    }
    if (in_trie) m->Insert(p.piece, static_cast<int32_t>(id), &building);
    m->pieces_.push_back(std::move(p.piece));
  }
  m->serial_ = next_serial.fetch_add(1, std::memory_order_relaxed);
  m->max_abs_score_ = std::abs(m->unk_score_);
  m->segments_ = true;
  for (uint32_t id = 0; id < m->pieces_.size(); ++id) {
    const PieceType type = m->types_[id];
    const bool chosen = flavor == UnigramFlavor::kHuggingFace || type == PieceType::kNormal ||
                        type == PieceType::kUserDefined;
    if (!chosen || m->pieces_[id].empty()) continue;
    m->max_abs_score_ = std::max({m->max_abs_score_, std::abs(m->scores_[id]),
                                  std::abs(static_cast<double>(m->scores_f_[id]))});
    // A piece with "▁" right after another character could span a cut.
    const std::string_view piece = m->pieces_[id];
    for (size_t at = piece.find(kMetaspace, 1); at != std::string_view::npos;
         at = piece.find(kMetaspace, at + 1)) {
      if (at < 3 || piece.substr(at - 3, 3) != kMetaspace) m->segments_ = false;
    }
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
  m->BuildDoubleArray(&building);
  for (int b = 0; b < 256; ++b) {
    char name[8];
    std::snprintf(name, sizeof(name), "<0x%02X>", b);
    auto it = m->ids_.find(name);
    m->byte_ids_[b] = it == m->ids_.end() ? kNoId : it->second;
  }
  return m;
}

void UnigramModel::BuildDoubleArray(std::vector<std::vector<Edge>>* building) {
  // Breadth first, each node's children at the lowest base whose cells are all free.
  constexpr uint32_t kRootCheck = UINT32_MAX - 1;
  std::vector<Cell> da(1024);
  // up: a union-find over the cells whose root from i is the first free cell at or after i.
  std::vector<uint32_t> up(da.size() + 1);
  std::iota(up.begin(), up.end(), 0u);
  auto grow = [&](size_t size) {
    const size_t old = up.size();
    da.resize(size);
    up.resize(size + 1);
    std::iota(up.begin() + static_cast<std::ptrdiff_t>(old), up.end(), static_cast<uint32_t>(old));
  };
  auto free_from = [&](size_t i) {
    size_t root = i;
    while (up[root] != root) root = up[root];
    while (up[i] != root) {
      const size_t next = up[i];
      up[i] = static_cast<uint32_t>(root);
      i = next;
    }
    return root;
  };
  auto take = [&](size_t i, uint32_t check) {
    da[i].check = check;
    up[i] = static_cast<uint32_t>(i + 1);
  };
  take(0, kRootCheck);
  uint32_t max_base = 0;
  std::vector<std::pair<uint32_t, uint32_t>> queue{{0, 0}};  // (trie node, cell)
  for (size_t q = 0; q < queue.size(); ++q) {
    const auto [n, cell] = queue[q];
    const Node& node = nodes_[n];
    da[cell].id = node.id;
    da[cell].score = node.score;
    da[cell].score_f = node.score_f;
    auto& kids = (*building)[n];
    if (kids.empty()) continue;
    std::sort(kids.begin(), kids.end(),
              [](const Edge& x, const Edge& y) { return x.byte < y.byte; });
    uint32_t base = 0;
    for (size_t p = free_from(size_t{kids[0].byte} + 1);; p = free_from(p + 1)) {
      if (p + 512 > da.size()) grow(2 * da.size() + 512);
      const size_t b = p - kids[0].byte;
      bool fits = true;
      for (size_t k = 1; k < kids.size() && fits; ++k) fits = da[b + kids[k].byte].check == kEmpty;
      if (fits) {
        base = static_cast<uint32_t>(b);
        break;
      }
    }
    da[cell].base = base;
    max_base = std::max(max_base, base);
    for (const Edge& e : kids) {
      take(base + e.byte, cell);
      queue.emplace_back(e.node, base + e.byte);
    }
  }
  // Every base + byte stays inside the array.
  size_t used = da.size();
  while (used > 0 && da[used - 1].check == kEmpty) --used;
  da.resize(std::max<size_t>(used, size_t{max_base} + 256) + 1);
  links_.resize(da.size());
  leaves_.resize(da.size());
  for (size_t i = 0; i < da.size(); ++i) {
    links_[i] = {da[i].base | (da[i].id >= 0 ? kHasPiece : 0), da[i].check};
    leaves_[i] = {da[i].id, da[i].score_f, da[i].score};
  }
  std::vector<Node>().swap(nodes_);
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

template <typename Score, bool kMargin>
Score UnigramModel::Solve(std::string_view text, size_t offset, Score base, std::vector<Step>* path,
                          double* margin) const {
  struct Best {
    Score score;
    int32_t id;         // kFallback: the unknown character
    int32_t starts_at;  // -1: unset (pieces are below 2 GiB: Encode cuts longer ones)
  };
  const size_t size = text.size();
  thread_local std::vector<Best> best;
  best.assign(size + 1, Best{0, -1, -1});
  best[0].score = base;
  double min_margin = std::numeric_limits<double>::infinity();
  const Score unk_score = static_cast<Score>(unk_score_);
  size_t starts_at = 0;
  while (starts_at < size) {
    const Score till_here = best[starts_at].score;
    bool has_single_node = false;
    const size_t mblen =
        std::min(Utf8Length(static_cast<unsigned char>(text[starts_at])), size - starts_at);
    uint32_t state = 0;  // the root
    for (size_t key_pos = starts_at; key_pos < size;) {
      const uint32_t next =
          (links_[state].base & kBaseMask) + static_cast<unsigned char>(text[key_pos]);
      if (links_[next].check != state) break;
      state = next;
      ++key_pos;
      if ((links_[state].base & kHasPiece) != 0) {
        const Leaf& nd = leaves_[state];
        Best& target = best[key_pos];
        // sentencepiece: the piece score and the path sum are floats, but its candidate is a
        // double (a conditional with a double branch), compared as a double and stored rounded
        // back to float. HF: doubles throughout.
        const double candidate =
            flavor_ == UnigramFlavor::kSentencePiece
                ? static_cast<double>(nd.score_f) + static_cast<double>(till_here)
                : nd.score + static_cast<double>(till_here);
        if constexpr (kMargin) {
          if (target.starts_at >= 0) {
            min_margin =
                std::min(min_margin, std::abs(candidate - static_cast<double>(target.score)));
          }
        }
        if (target.starts_at < 0 || candidate > static_cast<double>(target.score)) {
          target = {static_cast<Score>(candidate), nd.id, static_cast<int32_t>(starts_at)};
        }
        if (key_pos - starts_at == mblen) has_single_node = true;
      }
    }
    if (!has_single_node) {
      Best& target = best[starts_at + mblen];
      const Score candidate = unk_score + till_here;
      if constexpr (kMargin) {
        if (target.starts_at >= 0) {
          min_margin = std::min(min_margin, std::abs(static_cast<double>(candidate) -
                                                     static_cast<double>(target.score)));
        }
      }
      if (target.starts_at < 0 || candidate > target.score) {
        target = {candidate, kFallback, static_cast<int32_t>(starts_at)};
      }
    }
    starts_at += mblen;
  }
  const int32_t unk = unk_id_.has_value() ? static_cast<int32_t>(*unk_id_) : -1;
  const size_t first = path->size();
  for (size_t ends_at = size; ends_at > 0;) {
    const Best& b = best[ends_at];
    const bool fallback = b.id == kFallback;
    path->push_back({offset + static_cast<size_t>(b.starts_at), fallback ? unk : b.id, fallback});
    ends_at = static_cast<size_t>(b.starts_at);
  }
  std::reverse(path->begin() + static_cast<std::ptrdiff_t>(first), path->end());
  const Score score = best[size].score;
  if (best.capacity() > (size_t{1} << 20)) std::vector<Best>().swap(best);  // a huge piece
  if constexpr (kMargin) *margin = min_margin;
  return score;
}

template <typename Score>
Score UnigramModel::Add(Score base, const Step& step) const {
  if (step.fallback) return static_cast<Score>(static_cast<Score>(unk_score_) + base);
  const auto id = static_cast<size_t>(step.id);
  return flavor_ == UnigramFlavor::kSentencePiece
             ? static_cast<Score>(static_cast<double>(scores_f_[id]) + static_cast<double>(base))
             : static_cast<Score>(scores_[id] + static_cast<double>(base));
}

template <typename Score>
Score UnigramModel::SolveCached(std::string_view text, size_t offset, Score base,
                                std::vector<Step>* path) const {
  if (text.size() > SegmentCache::kMaxBytes) {
    return Solve<Score, false>(text, offset, base, path, nullptr);
  }
  const uint64_t hash = HashSegment(text);
  SegmentCache::Entry& e = SegmentCache::ForThread().Slot(hash);
  const double abs_base = std::abs(static_cast<double>(base));
  if (e.serial == serial_ && e.hash == hash && e.length == text.size() &&
      std::memcmp(e.bytes, text.data(), text.size()) == 0 &&
      (e.base == static_cast<double>(base) || abs_base <= e.max_abs_base)) {
    size_t at = offset;
    for (size_t k = 0; k < e.steps; ++k) {
      const Step step{at, e.ids[k], (e.lengths[k] & 0x80) != 0};
      path->push_back(step);
      base = Add(base, step);
      at += e.lengths[k] & 0x7F;
    }
    return base;
  }
  const size_t first = path->size();
  double margin = 0;
  const Score score = Solve<Score, true>(text, offset, base, path, &margin);
  const size_t steps = path->size() - first;
  if (steps <= SegmentCache::kMaxSteps) {
    // Each path sum of the segment is off its exact value by at most one rounding per step, a
    // rounding being at most eps times the magnitude (seed plus at most `reach`); the decisions
    // hold for any seed whose error, with this one's, stays below the smallest margin (with a
    // factor of 2 to spare).
    const double eps = std::is_same_v<Score, float> ? 0x1p-24 : 0x1p-53;
    const double per = 4.0 * static_cast<double>(text.size() + 2) * eps;
    const double reach = static_cast<double>(text.size()) * max_abs_score_;
    e.serial = serial_;
    e.hash = hash;
    e.length = static_cast<uint8_t>(text.size());
    std::memcpy(e.bytes, text.data(), text.size());
    e.steps = static_cast<uint8_t>(steps);
    e.base = static_cast<double>(base);
    e.max_abs_base = (margin - per * (abs_base + reach)) / per - reach;
    for (size_t k = 0; k < steps; ++k) {
      const Step& step = (*path)[first + k];
      const size_t step_end = k + 1 < steps ? (*path)[first + k + 1].start : offset + text.size();
      e.ids[k] = step.id;
      e.lengths[k] = static_cast<uint8_t>((step_end - step.start) | (step.fallback ? 0x80 : 0));
    }
  }
  return score;
}

template <typename Score>
void UnigramModel::EncodeAs(std::string_view text, std::vector<uint32_t>* ids) const {
  thread_local std::vector<Step> path;
  path.clear();
  if (!segments_) {
    Solve<Score, false>(text, 0, Score{0}, &path, nullptr);
    Emit(text, path, text.size(), ids);
  } else {
    // Cut before every "▁" that follows a character other than "▁".
    Score score = 0;
    size_t begin = 0;
    const int32_t unk = unk_id_.has_value() ? static_cast<int32_t>(*unk_id_) : -1;
    while (begin < text.size()) {
      size_t end = begin;
      while (true) {
        end = text.find(kMetaspace, end + 1);
        if (end == std::string_view::npos) {
          end = text.size();
          break;
        }
        if (end < begin + 3 || text.substr(end - 3, 3) != kMetaspace) break;
      }
      score = SolveCached<Score>(text.substr(begin, end - begin), begin, score, &path);
      begin = end;
      // Emit long paths as they grow (a run of unknowns may join across a cut: keep it whole).
      if (path.size() >= 4096 && path.back().id != unk && path.back().id >= 0) {
        Emit(text, path, begin, ids);
        path.clear();
      }
    }
    Emit(text, path, text.size(), ids);
  }
  if (path.capacity() > (size_t{1} << 16)) std::vector<Step>().swap(path);
}

void UnigramModel::Emit(std::string_view text, const std::vector<Step>& path, size_t end,
                        std::vector<uint32_t>* ids) const {
  if (ids->capacity() < ids->size() + path.size()) {
    ids->reserve(std::max(2 * ids->capacity(), ids->size() + path.size()));
  }
  if (flavor_ == UnigramFlavor::kHuggingFace) {
    EmitHf(text, path, end, ids);
  } else {
    EmitSpm(text, path, end, ids);
  }
}

void UnigramModel::EmitHf(std::string_view text, const std::vector<Step>& path, size_t end,
                          std::vector<uint32_t>* ids) const {
  const int32_t unk = unk_id_.has_value() ? static_cast<int32_t>(*unk_id_) : -2;
  // HF maps each piece of the path back to its id by its text (the last id of a repeated
  // piece, which is also the one its trie node holds); a fused run of unknowns may be a piece.
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
    const size_t start = path[k].start;
    // Fuse the run of unknowns (id -1: an unknown character of a model without unk_id).
    if (path[k].id == unk || path[k].id < 0) {
      size_t j = k + 1;
      while (j < path.size() && (path[j].id == unk || path[j].id < 0)) ++j;
      const size_t run_end = j < path.size() ? path[j].start : end;
      emit(text.substr(start, run_end - start));
      k = j;
      continue;
    }
    ids->push_back(static_cast<uint32_t>(path[k].id));
    ++k;
  }
}

void UnigramModel::EmitSpm(std::string_view text, const std::vector<Step>& path, size_t end,
                           std::vector<uint32_t>* ids) const {
  const int32_t unk = unk_id_.has_value() ? static_cast<int32_t>(*unk_id_) : -2;
  bool prev_unk = false;
  for (size_t k = 0; k < path.size(); ++k) {
    const bool is_unk = path[k].id == unk || path[k].id < 0;
    if (is_unk && byte_fallback_) {
      const size_t start = path[k].start;
      const size_t stop = k + 1 < path.size() ? path[k + 1].start : end;
      for (size_t i = start; i < stop; ++i) {
        const uint32_t b = byte_ids_[static_cast<unsigned char>(text[i])];
        ids->push_back(b != kNoId ? b : static_cast<uint32_t>(unk));
      }
      prev_unk = false;
      continue;
    }
    if (!(is_unk && prev_unk)) {
      ids->push_back(is_unk ? static_cast<uint32_t>(unk) : static_cast<uint32_t>(path[k].id));
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
    EncodeAs<float>(piece, ids);
  } else {
    EncodeAs<double>(piece, ids);
  }
}

}  // namespace tokenmill::hf
