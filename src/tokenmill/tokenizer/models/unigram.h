// The Unigram model (SentencePiece's EncodeOptimized Viterbi), in the two variants that are each
// bit-exact with their reference:
//  - kHuggingFace (HF tokenizers models/unigram): every vocab piece is in the trie, scores are
//    doubles, the unknown score is min(all scores) - 10; unknown pieces are fused, then a fused
//    string that is not a piece becomes its <0xXX> bytes (byte_fallback) or the unknown id.
//  - kSentencePiece (sentencepiece 0.1.97 unigram_model.cc): only normal, user-defined and unused
//    pieces are in the trie (unused ones never chosen), user-defined pieces score
//    length * max_score - 0.1, scores and path sums are floats (each candidate sum a double, as
//    sentencepiece's arithmetic has it), the unknown score is
//    min(normal scores) - 10; consecutive unknowns are joined into one unknown unless
//    byte_fallback turns each into its bytes.
// Ties keep the first candidate (strictly greater replaces), which is the longest path's earliest
// start in both.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "tokenmill/base/status.h"
#include "tokenmill/tokenizer/models/model.h"

namespace tokenmill::hf {

enum class UnigramFlavor { kHuggingFace, kSentencePiece };

// SentencePiece piece types (sentencepiece_model.proto).
enum class PieceType {
  kNormal = 1,
  kUnknown = 2,
  kControl = 3,
  kUserDefined = 4,
  kUnused = 5,
  kByte = 6
};

struct UnigramPiece {
  std::string piece;
  double score = 0;
  PieceType type = PieceType::kNormal;
};

class UnigramModel final : public Model {
 public:
  static StatusOr<std::unique_ptr<UnigramModel>> Build(std::vector<UnigramPiece> vocab,
                                                       std::optional<uint32_t> unk_id,
                                                       bool byte_fallback, UnigramFlavor flavor);

  void Encode(std::string_view piece, std::vector<uint32_t>* ids) const override;
  const std::vector<std::string>& pieces() const override { return pieces_; }
  std::optional<uint32_t> unk_id() const { return unk_id_; }

 private:
  struct Node {
    uint32_t first_child = 0;  // index into edges_
    uint16_t child_count = 0;
    int32_t id = -1;  // the piece ending here (-1 also for sentencepiece's unused pieces)
    float score_f = 0;
    double score = 0;
  };
  struct Edge {
    unsigned char byte;
    uint32_t node;
  };
  void Insert(const std::string& s, int32_t id, std::vector<std::vector<Edge>>* building);
  template <typename Score>
  void Viterbi(std::string_view text, std::vector<uint32_t>* ids) const;
  void EmitHf(std::string_view text, const std::vector<std::pair<size_t, int32_t>>& path,
              std::vector<uint32_t>* ids) const;
  void EmitSpm(std::string_view text, const std::vector<std::pair<size_t, int32_t>>& path,
               std::vector<uint32_t>* ids) const;

  UnigramFlavor flavor_ = UnigramFlavor::kHuggingFace;
  std::vector<std::string> pieces_;
  std::vector<double> scores_;
  std::vector<float> scores_f_;
  std::vector<PieceType> types_;
  std::unordered_map<std::string, uint32_t> ids_;
  std::optional<uint32_t> unk_id_;
  bool byte_fallback_ = false;
  double unk_score_ = 0;
  uint32_t byte_ids_[256];
  // The child of `node` by `byte`, or -1: an open-addressing table over (node, byte).
  int32_t Child(uint32_t node, unsigned char byte) const {
    const uint64_t key = (static_cast<uint64_t>(node) << 8 | byte) + 1;
    for (size_t i = (key * 0x9E3779B97F4A7C15ULL) >> shift_;; i = (i + 1) & mask_) {
      if (edge_keys_[i] == key) return static_cast<int32_t>(edge_nodes_[i]);
      if (edge_keys_[i] == 0) return -1;
    }
  }
  std::vector<Node> nodes_;
  std::vector<Edge> edges_;
  std::vector<uint64_t> edge_keys_;  // 0: empty
  std::vector<uint32_t> edge_nodes_;
  size_t mask_ = 0;
  int shift_ = 64;
  int32_t root_children_[256];
};

}  // namespace tokenmill::hf
