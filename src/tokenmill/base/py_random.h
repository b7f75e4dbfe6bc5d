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

#include <algorithm>
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
    // A loop over the words drawn rather than over i. While n = i + 1 keeps its bit width k,
    // word w gives j = w >> (32 - k), taken when j < n, that is when w < n << (32 - k) (`limit`,
    // lowered as n is); a word turned down leaves i where it is and swaps v[i] with itself. No
    // branch depends on the words, and no word's load waits for the comparison before it.
    T* data = v->data();
    size_t i = v->size();
    if (i < 2) return;
    --i;
    using std::swap;
    for (; i >= UINT32_MAX; --i) swap(data[i], data[RandBelow(i + 1)]);  // draws of two words
    int m = mti_;
    while (i >= 1) {
      const int width = std::bit_width(i + 1);
      const int shift = 32 - width;
      const size_t last = std::max<size_t>(1, (size_t{1} << (width - 1)) - 1);  // of this width
      uint64_t limit = static_cast<uint64_t>(i + 1) << shift;
      while (i >= last) {
        if (m >= kN) {
          Twist();
          m = 0;
        }
        const uint64_t word = out_[m++];
        const bool taken = word < limit;
        const size_t j = taken ? static_cast<size_t>(word >> shift) : i;
        swap(data[i], data[j]);
        i -= taken ? 1 : 0;
        limit -= static_cast<uint64_t>(taken) << shift;
      }
    }
    mti_ = m;
  }

  // Tests: the state is twisted four words at a time even where the CPU has AVX2 (the way of
  // other CPUs). Not thread-safe: set before any draw.
  static void UsePortableTwistForTesting(bool portable);

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
