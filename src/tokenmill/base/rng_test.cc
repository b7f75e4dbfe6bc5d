#include "tokenmill/base/rng.h"

#include <gtest/gtest.h>

namespace tokenmill {
namespace {

TEST(Rng, DeterministicPerSeedAndStream) {
  Rng a(42, 7), b(42, 7), c(42, 8), d(43, 7);
  for (int i = 0; i < 100; ++i) {
    uint64_t x = a.Next();
    EXPECT_EQ(x, b.Next());
    (void)c;
  }
  Rng e(42, 7);
  EXPECT_NE(e.Next(), c.Next());
  Rng f(42, 7);
  EXPECT_NE(f.Next(), d.Next());
}

TEST(Rng, PinnedSequence) {
  // The generator is part of the data format: these values must never change.
  Rng r(12345, 0);
  const uint64_t first = r.Next();
  Rng r2(12345, 0);
  EXPECT_EQ(first, r2.Next());
  EXPECT_EQ(first, 0x447b4ce70b723e4eull) << std::hex << first;
}

TEST(Rng, RangesAndMoments) {
  Rng r(1, 2);
  double sum = 0;
  const int n = 200000;
  for (int i = 0; i < n; ++i) {
    double u = r.Uniform01();
    ASSERT_GE(u, 0.0);
    ASSERT_LT(u, 1.0);
    sum += u;
  }
  EXPECT_NEAR(sum / n, 0.5, 0.01);
  int counts[6] = {0};
  for (int i = 0; i < 60000; ++i) {
    int64_t v = r.RandInt(5, 10);
    ASSERT_GE(v, 5);
    ASSERT_LE(v, 10);
    counts[v - 5]++;
  }
  for (int c : counts) EXPECT_NEAR(c, 10000, 500);
  EXPECT_EQ(r.RandInt(3, 3), 3);
}

}  // namespace
}  // namespace tokenmill
