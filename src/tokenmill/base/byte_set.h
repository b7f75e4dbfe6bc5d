// ByteSet: a set of byte values, and the first position of a text that holds one of them. Used
// to skip the text between the candidates of a literal match (added and special tokens), which is
// almost all of it: one byte in the set goes through memchr, up to kMaxVectorBytes are compared
// 16 bytes at a time (bytes16.h), more byte by byte through a table.
// Thread-safety: immutable after the last Add(); Find() may run on many threads.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace tokenmill {

class ByteSet {
 public:
  static constexpr size_t kMaxVectorBytes = 8;

  void Add(unsigned char b);
  bool Contains(unsigned char b) const { return table_[b]; }
  bool empty() const { return count_ == 0; }

  // The first position at or after `pos` of a byte in the set, or text.size() if there is none
  // (also when pos >= text.size()).
  size_t Find(std::string_view text, size_t pos) const;

 private:
  bool table_[256] = {};
  uint8_t bytes_[kMaxVectorBytes] = {};  // the first kMaxVectorBytes distinct bytes added
  size_t count_ = 0;                     // distinct bytes
};

}  // namespace tokenmill
