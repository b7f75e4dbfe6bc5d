// The model of HF tokenizers' pipeline: one pre-tokenized piece to token ids.
// Thread-safety: immutable after construction; Encode() may run on many threads.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace tokenmill::hf {

class Model {
 public:
  virtual ~Model() = default;
  // Appends the ids of `piece` (valid UTF-8, not empty) to *ids.
  virtual void Encode(std::string_view piece, std::vector<uint32_t>* ids) const = 0;
  // The vocabulary, by id ("" where an id has no token).
  virtual const std::vector<std::string>& pieces() const = 0;
  // Whether the ids of a piece are always those of its two parts when it is cut just before a
  // "▁" that follows the character `before` (no token spans that point, and nothing is carried
  // across it). False unless a model knows better.
  virtual bool CutsBeforeMeta(std::string_view before) const {
    (void)before;
    return false;
  }
};

}  // namespace tokenmill::hf
