#include "tokenmill/base/py_random.h"

#include <algorithm>
#include <bit>

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

void PyRandom::Twist() {
  int kk = 0;
  for (; kk < kN - kM; ++kk) {
    const uint32_t y = (mt_[kk] & kUpperMask) | (mt_[kk + 1] & kLowerMask);
    mt_[kk] = mt_[kk + kM] ^ (y >> 1) ^ (-(y & 1u) & kMatrixA);
  }
  for (; kk < kN - 1; ++kk) {
    const uint32_t y = (mt_[kk] & kUpperMask) | (mt_[kk + 1] & kLowerMask);
    mt_[kk] = mt_[kk + (kM - kN)] ^ (y >> 1) ^ (-(y & 1u) & kMatrixA);
  }
  const uint32_t y = (mt_[kN - 1] & kUpperMask) | (mt_[0] & kLowerMask);
  mt_[kN - 1] = mt_[kM - 1] ^ (y >> 1) ^ (-(y & 1u) & kMatrixA);
  // Tempering, word by word independent.
  for (int i = 0; i < kN; ++i) {
    uint32_t t = mt_[i];
    t ^= (t >> 11);
    t ^= (t << 7) & 0x9d2c5680u;
    t ^= (t << 15) & 0xefc60000u;
    t ^= (t >> 18);
    out_[i] = t;
  }
  mti_ = 0;
}

int64_t PyRandom::RandInt(int64_t lo, int64_t hi) {
  const uint64_t width = static_cast<uint64_t>(hi) - static_cast<uint64_t>(lo) + 1;
  return lo + static_cast<int64_t>(RandBelow(width));
}

}  // namespace tokenmill
