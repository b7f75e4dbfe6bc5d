#include "tokenmill/base/py_random.h"

#include <algorithm>
#include <bit>
#include <cstring>

namespace tokenmill {
namespace {

constexpr int kM = 397;
constexpr uint32_t kMatrixA = 0x9908b0dfu;
constexpr uint32_t kUpperMask = 0x80000000u;
constexpr uint32_t kLowerMask = 0x7fffffffu;

}  // namespace

PyRandom::PyRandom(uint64_t seed) {
  const uint32_t lo = static_cast<uint32_t>(seed);
  const uint32_t hi = static_cast<uint32_t>(seed >> 32);
  if (hi != 0) {
    const uint32_t key[2] = {lo, hi};
    InitByArray(key);
  } else {
    const uint32_t key[1] = {lo};
    InitByArray(key);
  }
}

PyRandom::PyRandom(std::span<const uint32_t> key) { InitByArray(key); }

void PyRandom::InitGenRand(uint32_t s) {
  mt_[0] = s;
  for (int i = 1; i < kN; ++i) {
    mt_[i] = 1812433253u * (mt_[i - 1] ^ (mt_[i - 1] >> 30)) + static_cast<uint32_t>(i);
  }
  mti_ = kN;
}

void PyRandom::InitByArray(std::span<const uint32_t> key) {
  InitGenRand(19650218u);
  int i = 1;
  size_t j = 0;
  const size_t n = std::max<size_t>(kN, key.size());
  for (size_t k = n; k > 0; --k) {
    mt_[i] = (mt_[i] ^ ((mt_[i - 1] ^ (mt_[i - 1] >> 30)) * 1664525u)) + key[j] +
             static_cast<uint32_t>(j);
    ++i;
    ++j;
    if (i >= kN) {
      mt_[0] = mt_[kN - 1];
      i = 1;
    }
    if (j >= key.size()) j = 0;
  }
  for (int k = kN - 1; k > 0; --k) {
    mt_[i] =
        (mt_[i] ^ ((mt_[i - 1] ^ (mt_[i - 1] >> 30)) * 1566083941u)) - static_cast<uint32_t>(i);
    ++i;
    if (i >= kN) {
      mt_[0] = mt_[kN - 1];
      i = 1;
    }
  }
  mt_[0] = 0x80000000u;  // MSB is 1, assuring a non-zero initial array
}

namespace {

// Four words at a time (the compiler's vector extensions: SSE2 here, NEON on ARM).
using Words4 = uint32_t __attribute__((vector_size(16)));

Words4 Load4(const uint32_t* p) {
  Words4 v;
  std::memcpy(&v, p, sizeof(v));
  return v;
}

void Store4(uint32_t* p, Words4 v) { std::memcpy(p, &v, sizeof(v)); }

// mt[k] of the next state from mt[k], mt[k + 1] and mt[k + kM] (or its new value): one word
// (uint32_t) or four (Words4).
template <typename W>
W TwistWords(W here, W next, W far) {
  const W y = (here & kUpperMask) | (next & kLowerMask);
  return far ^ (y >> 1) ^ (-(y & 1u) & kMatrixA);
}

}  // namespace

void PyRandom::Twist() {
  // Word k takes words k + 1 and k + kM (k + kM - kN past the end, already new): four at a
  // time, each reading only words a group of four does not write, as the one-word loop does.
  constexpr int kFirst = kN - kM;  // 227 words use the old words past kM
  int kk = 0;
  for (; kk + 4 <= kFirst; kk += 4) {
    Store4(&mt_[kk], TwistWords(Load4(&mt_[kk]), Load4(&mt_[kk + 1]), Load4(&mt_[kk + kM])));
  }
  for (; kk < kFirst; ++kk) mt_[kk] = TwistWords(mt_[kk], mt_[kk + 1], mt_[kk + kM]);
  for (; kk + 4 <= kN - 1; kk += 4) {
    Store4(&mt_[kk], TwistWords(Load4(&mt_[kk]), Load4(&mt_[kk + 1]), Load4(&mt_[kk + (kM - kN)])));
  }
  for (; kk < kN - 1; ++kk) mt_[kk] = TwistWords(mt_[kk], mt_[kk + 1], mt_[kk + (kM - kN)]);
  mt_[kN - 1] = TwistWords(mt_[kN - 1], mt_[0], mt_[kM - 1]);
  // Tempering, word by word independent.
  static_assert(kN % 4 == 0);
  for (int i = 0; i < kN; i += 4) {
    Words4 t = Load4(&mt_[i]);
    t ^= (t >> 11);
    t ^= (t << 7) & 0x9d2c5680u;
    t ^= (t << 15) & 0xefc60000u;
    t ^= (t >> 18);
    Store4(&out_[i], t);
  }
  mti_ = 0;
}

int64_t PyRandom::RandInt(int64_t lo, int64_t hi) {
  const uint64_t width = static_cast<uint64_t>(hi) - static_cast<uint64_t>(lo) + 1;
  return lo + static_cast<int64_t>(RandBelow(width));
}

}  // namespace tokenmill
