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
};

}  // namespace tokenmill::hf
