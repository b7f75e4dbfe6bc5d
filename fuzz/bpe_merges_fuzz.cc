// Fuzz target: the merge step of byte-level BPE (BpeModel) on vocabularies grown from the input,
// in any merge order, against a plain reference merge.
//
// bpe_fuzz runs the real vocabularies, whose merges go in rising priority. Here the input grows
// the vocabulary itself, so the encoders meet what real files rarely show: tokens formed at a
// lower priority than one of their parts (irregular, as 107 of Llama-3's), tokens across the
// cuts between characters, and pieces that are tokens merging cannot reach.
//
// Input:
//   byte 0        flags: bit 0 the rule (0 kMerges: merge lines; 1 kRanks: tiktoken ranks);
//                 bit 1 a backtracking window of a few positions (its marks slide on short pieces)
//   byte 1        G, how many tokens to grow
//   G x 3 bytes   (kind, a, b): the next token is A + B, where A is the byte a, or if bit 0 of
//                 kind is set the grown token a (modulo those grown so far); B likewise with b
//                 and bit 1. Skipped when it is longer than 16 bytes or already a token
//   byte          S, how many swaps (at most 15 used)
//   S x 2 bytes   (i, j): exchange the priorities of grown tokens i and j (merge lines for
//                 kMerges, ranks for kRanks), which makes tokens irregular
//   the rest      pieces, separated by '\n'
// Checks, aborting on failure, for each piece (its first 256 bytes): kLinear, kHeap and kAuto
// (the characterwise encoder's tables built at once, the per-thread cache; each piece twice)
// give the reference's ids; so does kBacktrack when backtracks(); irregular_tokens() is 0
// exactly when backtracks().

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tokenmill/tokenizer/models/bpe.h"
#include "tokenmill/tokenizer/models/bpe_reference.h"

namespace {

using tokenmill::bpe::BpeModel;
using tokenmill::bpe::MergeRule;
using tokenmill::bpe::ReferenceMerge;

// Reads the input one byte at a time; 0 once it is used up.
class Bytes {
 public:
  Bytes(const uint8_t* data, size_t size) : data_(data), size_(size) {}
  uint8_t Next() { return pos_ < size_ ? data_[pos_++] : 0; }
  std::string_view Rest() const {
    return {reinterpret_cast<const char*>(data_) + pos_, size_ - pos_};
  }

 private:
  const uint8_t* data_;
  size_t size_;
  size_t pos_ = 0;
};

std::vector<uint32_t> Encode(const BpeModel& model, std::string_view piece,
                             BpeModel::Algorithm algorithm) {
  std::vector<uint32_t> ids;
  model.EncodePiece(piece, &ids, algorithm);
  return ids;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Bytes in(data, size);
  const uint8_t flags = in.Next();
  const MergeRule rule = (flags & 1) ? MergeRule::kRanks : MergeRule::kMerges;
  ReferenceMerge ref{rule, {}, {}};

  // Grow the tokens: the 256 bytes, then concatenations of two earlier tokens.
  std::vector<std::string> tokens;
  for (int b = 0; b < 256; ++b) tokens.emplace_back(1, static_cast<char>(b));
  std::vector<std::pair<uint32_t, uint32_t>> merges;  // grown token k: tokens[first] + [second]
  for (int grow = in.Next(); grow > 0; --grow) {
    const uint8_t kind = in.Next();
    const size_t grown_so_far = tokens.size() - 256;
    auto token = [&](bool grown, uint8_t v) -> size_t {
      return grown && grown_so_far > 0 ? 256 + v % grown_so_far : v;
    };
    const size_t a = token(kind & 1, in.Next());
    const size_t b = token(kind & 2, in.Next());
    std::string joined = tokens[a] + tokens[b];
    if (joined.size() > 16 || std::find(tokens.begin(), tokens.end(), joined) != tokens.end()) {
      continue;
    }
    merges.push_back({static_cast<uint32_t>(a), static_cast<uint32_t>(b)});
    tokens.push_back(std::move(joined));
  }
  // The priority of each grown token: its rank (kRanks) or its merge line (kMerges), in the
  // order grown unless swapped.
  const size_t grown = merges.size();
  std::vector<uint32_t> order(grown);
  for (size_t k = 0; k < grown; ++k) order[k] = static_cast<uint32_t>(k);
  for (int swaps = in.Next() & 15; swaps > 0; --swaps) {
    const uint8_t i = in.Next();
    const uint8_t j = in.Next();
    if (grown > 0) std::swap(order[i % grown], order[j % grown]);
  }

  BpeModel model(rule);
  // Ids: a token's index in `tokens`, but a grown token's id is its rank under kRanks
  // (256 + order[k]); under kMerges order[k] is its merge line instead.
  auto id_of = [&](size_t t) -> uint32_t {
    return rule == MergeRule::kRanks && t >= 256 ? 256 + order[t - 256] : static_cast<uint32_t>(t);
  };
  for (size_t t = 0; t < tokens.size(); ++t) {
    if (!model.AddToken(tokens[t], id_of(t)).ok()) std::abort();
    ref.ids[tokens[t]] = id_of(t);
  }
  if (rule == MergeRule::kMerges) {
    std::vector<size_t> by_line(grown);
    for (size_t k = 0; k < grown; ++k) by_line[order[k]] = k;
    for (size_t line = 0; line < grown; ++line) {
      const auto [a, b] = merges[by_line[line]];
      if (!model.AddMerge(a, b).ok()) std::abort();
      ref.line[{a, b}] = static_cast<uint32_t>(line);
    }
  }
  if (!model.Finish().ok()) std::abort();
  model.set_characterwise_build_bytes(0);
  if (flags & 2) model.set_backtrack_window(8);
  const bool backtracks = model.backtracks();
  if (backtracks != (model.irregular_tokens() == 0)) std::abort();

  std::string_view text = in.Rest();
  while (!text.empty()) {
    const size_t end = std::min(text.find('\n'), text.size());
    const std::string_view piece = text.substr(0, std::min<size_t>(end, 256));
    text.remove_prefix(std::min(end + 1, text.size()));
    if (piece.empty()) continue;
    const std::vector<uint32_t> want = ref.Encode(piece);
    if (Encode(model, piece, BpeModel::Algorithm::kHeap) != want) std::abort();
    if (Encode(model, piece, BpeModel::Algorithm::kLinear) != want) std::abort();
    if (Encode(model, piece, BpeModel::Algorithm::kAuto) != want) std::abort();
    if (Encode(model, piece, BpeModel::Algorithm::kAuto) != want) std::abort();  // cached now
    if (backtracks && Encode(model, piece, BpeModel::Algorithm::kBacktrack) != want) std::abort();
  }
  return 0;
}
