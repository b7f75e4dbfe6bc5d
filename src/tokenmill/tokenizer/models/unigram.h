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
//
// Segments: when no piece that can be chosen holds a "▁" right after a character other than
// "▁" (checked at Build), no piece spans a point just before such a "▁", so every path passes
// through it and the Viterbi runs segment by segment, each seeded with the best score so far
// (the same sums, in the same order, as over the whole text). A segment of up to 30 bytes is
// remembered in a bounded per-thread cache with its path and the smallest margin between two
// compared candidates; a hit is taken only when that margin is wider than the rounding error of
// both the seed it was solved with and the current one (or the seeds are equal), so the path is
// the one the whole-text Viterbi finds. Most words of natural text are then one lookup.
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
  // Whether Encode cuts the text into segments (see above).
  bool segmented() const { return segments_; }
  // Tests: the whole-text Viterbi, to compare with the segmented one.
  void DisableSegmentsForTesting() { segments_ = false; }

 private:
  struct Node {
    int32_t id = -1;  // the piece ending here (-1 also for sentencepiece's unused pieces)
    float score_f = 0;
    double score = 0;
  };
  struct Edge {
    unsigned char byte;
    uint32_t node;
  };
  // One step of the best path: the piece (or, with `fallback`, the unknown character) starting
  // at `start`.
  struct Step {
    size_t start;
    int32_t id;
    bool fallback;
  };
  void Insert(const std::string& s, int32_t id, std::vector<std::vector<Edge>>* building);
  template <typename Score>
  void EncodeAs(std::string_view text, std::vector<uint32_t>* ids) const;
  // The Viterbi over `text` (at `offset` in the whole), the path so far scoring `base`: appends
  // the best path's steps to *path and returns its score. kMargin: also the smallest difference
  // between two compared candidates in *margin.
  template <typename Score, bool kMargin>
  Score Solve(std::string_view text, size_t offset, Score base, std::vector<Step>* path,
              double* margin) const;
  // Solve() through the per-thread cache.
  template <typename Score>
  Score SolveCached(std::string_view text, size_t offset, Score base,
                    std::vector<Step>* path) const;
  // The score of `base` followed by `step`, as the Viterbi adds it.
  template <typename Score>
  Score Add(Score base, const Step& step) const;
  // Emits path (ending at `end`) as ids.
  void Emit(std::string_view text, const std::vector<Step>& path, size_t end,
            std::vector<uint32_t>* ids) const;
  void EmitHf(std::string_view text, const std::vector<Step>& path, size_t end,
              std::vector<uint32_t>* ids) const;
  void EmitSpm(std::string_view text, const std::vector<Step>& path, size_t end,
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
  double max_abs_score_ = 0;  // over the pieces that can be chosen and the unknown score
  bool segments_ = false;     // the text may be cut before a "▁" that follows another character
  uint32_t serial_ = 0;       // tells this model's entries in the per-thread cache apart
  uint32_t byte_ids_[256];
  // The trie of the pieces as a double array: the child of cell s by byte c is cell
  // (links_[s].base & kBaseMask) + c if that cell's check is s. kHasPiece in base: a piece ends
  // at the cell, its id and score in leaves_ (apart, so the walk reads 8 bytes a cell).
  static constexpr uint32_t kEmpty = UINT32_MAX;
  static constexpr uint32_t kHasPiece = 1u << 31;
  static constexpr uint32_t kBaseMask = kHasPiece - 1;
  struct Cell {  // while building
    uint32_t base = 0;
    uint32_t check = kEmpty;
    int32_t id = -1;  // the piece ending here (-1 also for sentencepiece's unused pieces)
    float score_f = 0;
    double score = 0;
  };
  struct Link {
    uint32_t base;
    uint32_t check;
  };
  struct Leaf {
    int32_t id;
    float score_f;
    double score;
  };
  std::vector<Link> links_;
  std::vector<Leaf> leaves_;
  void BuildDoubleArray(std::vector<std::vector<Edge>>* building);
  std::vector<Node> nodes_;  // the trie while it is built
};

}  // namespace tokenmill::hf
