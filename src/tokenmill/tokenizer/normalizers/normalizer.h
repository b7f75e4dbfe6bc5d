// The normalizer of HF tokenizers' pipeline: rewrites one segment of text (the text between added
// tokens) before pre-tokenization. See docs/tokenizers.md for the components.
// Thread-safety: immutable after construction; Normalize() may run on many threads.
#pragma once

#include <memory>
#include <string>
#include <vector>

namespace tokenmill::hf {

// A segment being normalized: its text and whether its first character is still the first
// character of the whole input (HF's offsets_original().0 == 0, which Metaspace's "first" scheme
// asks). A normalizer that removes the first character clears it.
struct Segment {
  std::string text;
  bool at_origin = false;
};

class Normalizer {
 public:
  virtual ~Normalizer() = default;
  virtual void Normalize(Segment* segment) const = 0;
};

// HF "Sequence": each in order.
class SequenceNormalizer final : public Normalizer {
 public:
  explicit SequenceNormalizer(std::vector<std::unique_ptr<Normalizer>> steps)
      : steps_(std::move(steps)) {}
  void Normalize(Segment* segment) const override {
    for (const auto& s : steps_) s->Normalize(segment);
  }

 private:
  std::vector<std::unique_ptr<Normalizer>> steps_;
};

}  // namespace tokenmill::hf
