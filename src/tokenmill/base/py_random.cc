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

// Several words at a time, in the compiler's vector extensions: four (SSE2 here, NEON on ARM)
// or eight (AVX2, where the CPU has it). The helpers take and give vectors by reference, so that
// no 32-byte vector is ever passed by value between code built with and without AVX.
using Words4 = uint32_t __attribute__((vector_size(16)));
using Words8 = uint32_t __attribute__((vector_size(32)));

template <typename W>
[[gnu::always_inline]] inline void Load(const uint32_t* p, W* v) {
  std::memcpy(v, p, sizeof(W));
}

template <typename W>
[[gnu::always_inline]] inline void Store(uint32_t* p, const W& v) {
  std::memcpy(p, &v, sizeof(W));
}

// mt[k] of the next state, in *here, from mt[k] (*here), mt[k + 1] and mt[k + kM] (or its new
// value): one word (uint32_t) or several (Words4, Words8).
template <typename W>
[[gnu::always_inline]] inline void TwistWords(W* here, const W& next, const W& far) {
  const W y = (*here & kUpperMask) | (next & kLowerMask);
  *here = far ^ (y >> 1) ^ (-(y & 1u) & kMatrixA);
}

// mt[k] of the next state from the W's at k, k + 1 and k + far.
template <typename W>
[[gnu::always_inline]] inline void TwistAt(uint32_t* mt, int k, int far) {
  W here, next, ahead;
  Load(mt + k, &here);
  Load(mt + k + 1, &next);
  Load(mt + k + far, &ahead);
  TwistWords(&here, next, ahead);
  Store(mt + k, here);
}

// The next state of mt (kN words) and its tempered words in out, W's lanes at a time: word k
// takes words k + 1 and k + kM (k + kM - kN past the end, already new), so a group of lanes reads
// only words the group does not write, as the one-word loop does (at most kN - kM = 227 lanes).
template <typename W, int kN>
[[gnu::always_inline]] inline void TwistBy(uint32_t* mt, uint32_t* out) {
  constexpr int kLanes = sizeof(W) / sizeof(uint32_t);
  constexpr int kFirst = kN - kM;  // 227 words use the old words past kM
  static_assert(kLanes <= kFirst && kN % kLanes == 0);
  int kk = 0;
  for (; kk + kLanes <= kFirst; kk += kLanes) TwistAt<W>(mt, kk, kM);
  for (; kk < kFirst; ++kk) TwistAt<uint32_t>(mt, kk, kM);
  for (; kk + kLanes <= kN - 1; kk += kLanes) TwistAt<W>(mt, kk, kM - kN);
  for (; kk < kN - 1; ++kk) TwistAt<uint32_t>(mt, kk, kM - kN);
  TwistWords(&mt[kN - 1], mt[0], mt[kM - 1]);
  // Tempering, word by word independent.
  for (int i = 0; i < kN; i += kLanes) {
    W t;
    Load(mt + i, &t);
    t ^= (t >> 11);
    t ^= (t << 7) & 0x9d2c5680u;
    t ^= (t << 15) & 0xefc60000u;
    t ^= (t >> 18);
    Store(out + i, t);
  }
}

#if defined(__x86_64__)
template <int kN>
[[gnu::target("avx2")]] void TwistAvx2(uint32_t* mt, uint32_t* out) {
  TwistBy<Words8, kN>(mt, out);
}
// A BERT job draws about a thousand words an example (its candidates' shuffle, the masking, a
// draw for every token truncate_seq_pair removes): a block of 624 made twice as fast is a few
// percent of the whole run.
bool HasAvx2() {
  __builtin_cpu_init();  // as GCC asks of code that may run before the constructors
  return __builtin_cpu_supports("avx2");
}

bool& UseAvx2() {
  static bool use = HasAvx2();
  return use;
}
#endif

}  // namespace

void PyRandom::Twist() {
#if defined(__x86_64__)
  if (UseAvx2()) {
    TwistAvx2<kN>(mt_.data(), out_.data());
    mti_ = 0;
    return;
  }
#endif
  TwistBy<Words4, kN>(mt_.data(), out_.data());
  mti_ = 0;
}

void PyRandom::UsePortableTwistForTesting(bool portable) {
#if defined(__x86_64__)
  UseAvx2() = !portable && HasAvx2();
#else
  (void)portable;
#endif
}

int64_t PyRandom::RandInt(int64_t lo, int64_t hi) {
  const uint64_t width = static_cast<uint64_t>(hi) - static_cast<uint64_t>(lo) + 1;
  return lo + static_cast<int64_t>(RandBelow(width));
}

}  // namespace tokenmill
