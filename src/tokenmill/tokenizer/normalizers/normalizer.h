// The normalizer of HF tokenizers' pipeline: rewrites one segment of text (the text between added
// tokens) before pre-tokenization. See docs/tokenizers.md for the components.
// Thread-safety: immutable after construction; Normalize() may run on many threads.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "tokenmill/tokenizer/char_util.h"

namespace tokenmill::hf {

// A segment being normalized: its text and whether its first character is still the first
// character of the whole input (HF's offsets_original().0 == 0, which Metaspace's "first" scheme
// asks). A normalizer that removes the first character clears it.
struct Segment {
  std::string text;
  bool at_origin = false;
  // A later piece of a segment cut by Tokenizer::EncodeInPieces (see Normalizer::KeepsCut): what
  // applies only at a segment's start (Prepend) does not apply.
  bool continued = false;
  // More of the segment follows (an earlier piece): what applies only at a segment's end (Strip
  // right) does not apply.
  bool continues = false;
};

class Normalizer {
 public:
  virtual ~Normalizer() = default;
  virtual void Normalize(Segment* segment) const = 0;
  // Cutting long segments: whether normalizing the text before and after a cut point separately
  // (the part after it `continued`) gives the normalization of the whole, for a point just
  // before a character *cut (" " or "▁") that is a grapheme cluster of its own and follows a
  // character other than itself; and that character then stays " " or becomes "▁" (*cut is
  // updated). False (never cut) unless a normalizer knows better.
  virtual bool KeepsCut(std::string* cut) const {
    (void)cut;
    return false;
  }
};

// HF "Sequence": each in order.
class SequenceNormalizer final : public Normalizer {
 public:
  explicit SequenceNormalizer(std::vector<std::unique_ptr<Normalizer>> steps)
      : steps_(std::move(steps)) {}
  void Normalize(Segment* segment) const override {
    for (const auto& s : steps_) s->Normalize(segment);
  }
  bool KeepsCut(std::string* cut) const override {
    for (const auto& s : steps_) {
      if (!s->KeepsCut(cut)) return false;
    }
    return true;
  }

 private:
  std::vector<std::unique_ptr<Normalizer>> steps_;
};

}  // namespace tokenmill::hf
