// StringReadStream: a ReadStream over bytes held in memory (an owned string).
//
// Used where the bytes are already in memory: fuzzers, tools and tests that feed the readers
// without a file. `max_chunk` caps the bytes returned per Read (Default: no cap), which lets
// callers exercise short reads.
// Thread-safety: used by one thread.
#pragma once

#include <algorithm>
#include <cstring>
#include <string>

#include "tokenmill/storage/storage.h"

namespace tokenmill {

class StringReadStream : public ReadStream {
 public:
  explicit StringReadStream(std::string data, size_t max_chunk = SIZE_MAX)
      : data_(std::move(data)), max_chunk_(max_chunk == 0 ? 1 : max_chunk) {}

  StatusOr<size_t> Read(char* buf, size_t n) override {
    const size_t k = std::min({n, max_chunk_, data_.size() - pos_});
    if (k > 0) std::memcpy(buf, data_.data() + pos_, k);
    pos_ += k;
    return k;
  }

 private:
  std::string data_;
  size_t max_chunk_;
  size_t pos_ = 0;
};

}  // namespace tokenmill
