// The seeded pseudo-random generator behind every random choice in tokenmill.
//
// Algorithm (part of the data format: changing it changes output bytes, so it is versioned with
// kDataFormatVersion in job/):
//   state = SplitMix64 expansion of Mix(seed, stream) into four 64-bit words,
//   generator = xoshiro256** (Blackman and Vigna, 2018).
//   Uniform01()  = (Next() >> 11) * 2^-53, in [0, 1).
//   RandInt(a,b) = a + unbiased bounded draw in [0, b - a] (rejection sampling, Lemire's method).
// Each task seeds its own stream with (job seed, task id), so results never depend on which
// worker ran the task or how many times it was retried.
// Thread-safety: not thread-safe; use one instance per thread.
#pragma once

#include <cstdint>

namespace tokenmill {

class Rng {
 public:
  Rng(uint64_t seed, uint64_t stream);

  uint64_t Next();
  double Uniform01();
  // REQUIRES: lo <= hi. Returns an integer in [lo, hi], both inclusive.
  int64_t RandInt(int64_t lo, int64_t hi);

 private:
  uint64_t s_[4];
};

}  // namespace tokenmill
