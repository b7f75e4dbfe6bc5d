// PyRandom: CPython 3's random.Random reproduced bit for bit (Modules/_randommodule.c and
// Lib/random.py, unchanged from Python 3.2 to 3.13).
//
//   generator   MT19937 (Matsumoto and Nishimura), genrand_uint32.
//   Seed(n)     random.Random(n) for an int n: init_by_array over the 32-bit words of |n|,
//               least significant first ([0] for n == 0).
//   Random()    random(): (a * 2^26 + b) / 2^53 with a = genrand >> 5, b = genrand >> 6.
//   GetRandBits(k)   getrandbits(k), k <= 64: 32-bit words least significant first, the last
//               word shifted right by 32 - (k mod 32).
//   RandBelow(n)     _randbelow_with_getrandbits(n): getrandbits(n.bit_length()) until < n.
//   RandInt(a, b)    randint(a, b) = randrange(a, b + 1) = a + _randbelow(b - a + 1).
//   Shuffle(v)  shuffle(v): for i from len-1 down to 1, swap v[i] with v[_randbelow(i + 1)].
// Used where tokenmill must make the same random choices as a Python reference script
// (create_pretraining_data.py's random.Random(FLAGS.random_seed)).
// Thread-safety: not thread-safe; use one instance per thread.
#pragma once

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

namespace tokenmill {

class PyRandom {
 public:
  // random.Random(seed) for a non-negative int seed (Python uses |seed|).
  explicit PyRandom(uint64_t seed);
  // The state init_by_array(key) leaves: random.Random(n) where n's 32-bit words are `key`.
  // REQUIRES: !key.empty().
  explicit PyRandom(std::span<const uint32_t> key);

  // Inline: the BERT builder draws a few hundred numbers an example (shuffles, masking). The
  // words of a block are tempered when the block is made (a loop the compiler vectorizes), so a
  // draw is one load.
  uint32_t GenRandUint32() {
    if (mti_ >= kN) Twist();
    return out_[mti_++];
  }
  double Random() {
    const uint32_t a = GenRandUint32() >> 5;
    const uint32_t b = GenRandUint32() >> 6;
    return (a * 67108864.0 + b) * (1.0 / 9007199254740992.0);
  }
  // REQUIRES: k <= 64.
  uint64_t GetRandBits(int k) {
    if (k <= 0) return 0;
    if (k <= 32) return GenRandUint32() >> (32 - k);
    // Words least significant first; the last (most significant) one keeps its top bits.
    const uint64_t low = GenRandUint32();
    const uint64_t high = GenRandUint32() >> (64 - k);
    return low | (high << 32);
  }
  // REQUIRES: n >= 1. Uniform in [0, n).
  uint64_t RandBelow(uint64_t n) {
    const int k = std::bit_width(n);
    uint64_t r = GetRandBits(k);
    while (r >= n) r = GetRandBits(k);
    return r;
  }
  // REQUIRES: lo <= hi. Uniform in [lo, hi], both included.
  int64_t RandInt(int64_t lo, int64_t hi);

  template <typename T>
  void Shuffle(std::vector<T>* v) {
    // RandBelow(i + 1) with both of the next words in the block: the first draw or the second
    // is taken without a branch (a draw is rejected up to one time in two, at random), and only
    // two rejections in a row take the loop. The position in the block stays in a register.
    T* data = v->data();
    int m = mti_;
    for (size_t i = v->size(); i-- > 1;) {
      const uint64_t n = i + 1;
      uint64_t j = 0;
      bool drawn = false;
      if (n <= UINT32_MAX && m + 2 <= kN) {
        const int shift = 32 - std::bit_width(n);
        const uint64_t r0 = out_[m] >> shift;
        const uint64_t r1 = out_[m + 1] >> shift;
        const bool first = r0 < n;
        m += first ? 1 : 2;
        j = first ? r0 : r1;
        drawn = first || r1 < n;
      }
      if (!drawn) {  // the end of the block, or two rejections: the loop goes on from here
        mti_ = m;
        j = RandBelow(n);
        m = mti_;
      }
      using std::swap;
      swap(data[i], data[j]);
    }
    mti_ = m;
  }

 private:
  static constexpr int kN = 624;
  void InitGenRand(uint32_t s);
  void InitByArray(std::span<const uint32_t> key);
  void Twist();  // the next kN words of the state, and their tempered values in out_

  std::array<uint32_t, kN> mt_;
  std::array<uint32_t, kN> out_;  // tempered mt_
  int mti_ = kN + 1;
};

}  // namespace tokenmill
