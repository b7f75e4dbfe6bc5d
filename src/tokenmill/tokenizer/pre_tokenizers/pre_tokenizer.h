// The pre-tokenizer of HF tokenizers' pipeline: cuts a normalized segment into the pieces the
// model encodes one by one. See docs/tokenizers.md for the components.
// Thread-safety: immutable after construction; PreTokenize() may run on many threads.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace tokenmill::hf {

// A piece: its text and whether it starts at the first character of the whole input (only the
// first piece of the first segment can; Metaspace's "first" scheme asks).
struct Piece {
  std::string text;
  bool at_origin = false;
};

class PreTokenizer {
 public:
  virtual ~PreTokenizer() = default;
  // Replaces *pieces by their pieces, in order; empty pieces are dropped.
  virtual void PreTokenize(std::vector<Piece>* pieces) const = 0;
  // The same for one piece, handing each (non-empty) piece to `visit` instead of building it,
  // where the pre-tokenizer can; false (and nothing visited) where it cannot.
  virtual bool Visit(std::string_view text, bool at_origin,
                     const std::function<void(std::string_view)>& visit) const {
    (void)text;
    (void)at_origin;
    (void)visit;
    return false;
  }
  // Cutting long segments: whether pre-tokenizing the text before and after a cut point
  // separately (the part after it not at the origin) gives the pieces of the whole, except that
  // a piece may be cut at that point, for a point just before a character *cut (" " or "▁") that
  // follows a character other than itself; *cut becomes what the character turns into. False
  // unless a pre-tokenizer knows better.
  virtual bool KeepsCut(std::string* cut) const {
    (void)cut;
    return false;
  }
  // Whether every piece boundary includes the point before each "▁" (so the model never sees
  // across it, whatever its vocabulary).
  virtual bool CutsBeforeMeta() const { return false; }
};

// HF "Sequence": each in order.
class SequencePreTokenizer final : public PreTokenizer {
 public:
  explicit SequencePreTokenizer(std::vector<std::unique_ptr<PreTokenizer>> steps)
      : steps_(std::move(steps)) {}
  void PreTokenize(std::vector<Piece>* pieces) const override {
    for (const auto& s : steps_) s->PreTokenize(pieces);
  }
  bool KeepsCut(std::string* cut) const override {
    for (const auto& s : steps_) {
      if (!s->KeepsCut(cut)) return false;
    }
    return true;
  }
  // Pre-tokenizers only ever cut pieces further, so one step that cuts there is enough.
  bool CutsBeforeMeta() const override {
    for (const auto& s : steps_) {
      if (s->CutsBeforeMeta()) return true;
    }
    return false;
  }

 private:
  std::vector<std::unique_ptr<PreTokenizer>> steps_;
};

}  // namespace tokenmill::hf
