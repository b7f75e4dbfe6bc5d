// HF tokenizers' normalizers (tokenizers 0.23.2, normalizers/*.rs): Prepend, Replace, the Unicode
// normal forms, Lowercase, Strip, StripAccents and Nmt. Precompiled is in precompiled.h.
#pragma once

#include <memory>
#include <string>

#include "tokenmill/base/status.h"
#include "tokenmill/tokenizer/normalizers/normal_form.h"
#include "tokenmill/tokenizer/normalizers/normalizer.h"

namespace tokenmill::bpe {
class RegexSplitter;
}

namespace tokenmill::hf {

// "Prepend": `prefix` before a non-empty segment.
class PrependNormalizer final : public Normalizer {
 public:
  explicit PrependNormalizer(std::string prefix) : prefix_(std::move(prefix)) {}
  void Normalize(Segment* segment) const override;  // not to a `continued` segment
  bool KeepsCut(std::string* cut) const override {
    (void)cut;
    return true;
  }

 private:
  std::string prefix_;
};

// "Replace": every leftmost non-overlapping match of a literal string or a regex by `content`.
class ReplaceNormalizer final : public Normalizer {
 public:
  static StatusOr<std::unique_ptr<ReplaceNormalizer>> Literal(std::string pattern,
                                                              std::string content);
  static StatusOr<std::unique_ptr<ReplaceNormalizer>> Regex(std::string_view pattern,
                                                            std::string content);
  ~ReplaceNormalizer() override;
  void Normalize(Segment* segment) const override;
  bool KeepsCut(std::string* cut) const override;

 private:
  ReplaceNormalizer() = default;
  std::string literal_;
  std::unique_ptr<bpe::RegexSplitter> regex_;
  bool space_runs_ = false;  // the regex " {2,}"
  std::string content_;
};

using NormalForm = tokenmill::NormalForm;

// "NFC", "NFD", "NFKC", "NFKD".
class UnicodeNormalizer final : public Normalizer {
 public:
  explicit UnicodeNormalizer(NormalForm form) : form_(form) {}
  void Normalize(Segment* segment) const override;
  bool KeepsCut(std::string* cut) const override {  // never touches " " or "▁"
    (void)cut;
    return true;
  }

 private:
  NormalForm form_;
};

// "Lowercase": per character, without context (Rust's char::to_lowercase).
class LowercaseNormalizer final : public Normalizer {
 public:
  void Normalize(Segment* segment) const override;
  bool KeepsCut(std::string* cut) const override {  // never touches " " or "▁"
    (void)cut;
    return true;
  }
};

// "Strip": removes whitespace (Rust char::is_whitespace) at the start and/or end.
class StripNormalizer final : public Normalizer {
 public:
  StripNormalizer(bool left, bool right) : left_(left), right_(right) {}
  // Not at the start of a `continued` segment, nor at the end of one that `continues`.
  void Normalize(Segment* segment) const override;
  bool KeepsCut(std::string* cut) const override {
    (void)cut;
    return true;
  }

 private:
  bool left_;
  bool right_;
};

// "StripAccents": removes combining marks (Mn, Mc, Me).
class StripAccentsNormalizer final : public Normalizer {
 public:
  void Normalize(Segment* segment) const override;
  bool KeepsCut(std::string* cut) const override {  // never touches " " or "▁"
    (void)cut;
    return true;
  }
};

// "Nmt": removes control characters and maps some spaces to ' ' (HF's do_nmt).
class NmtNormalizer final : public Normalizer {
 public:
  void Normalize(Segment* segment) const override;
  bool KeepsCut(std::string* cut) const override {  // never touches " " or "▁"
    (void)cut;
    return true;
  }
};

}  // namespace tokenmill::hf
