#include "tokenmill/base/py_random.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <numeric>
#include <vector>

namespace tokenmill {
namespace {

// Every golden value below was printed by CPython 3.11 (Debian 12's /usr/bin/python3); the
// one-liner that prints it is in the comment above it.

TEST(PyRandom, GenRandMatchesCPython) {
  // r=random.Random(12345); print([r.getrandbits(32) for _ in range(5)])
  PyRandom r(12345);
  for (uint32_t want : {1789368711u, 3146859322u, 43676229u, 3522623596u, 3544234957u}) {
    EXPECT_EQ(r.GenRandUint32(), want);
  }
  // r=random.Random(0); print([r.getrandbits(32) for _ in range(3)])
  PyRandom zero(0);
  for (uint32_t want : {3626764237u, 1654615998u, 3255389356u}) {
    EXPECT_EQ(zero.GenRandUint32(), want);
  }
  // r=random.Random(2**40+7); print([r.getrandbits(32) for _ in range(3)])  (two key words)
  PyRandom big((uint64_t{1} << 40) + 7);
  for (uint32_t want : {2635837658u, 3209733218u, 3500038837u}) {
    EXPECT_EQ(big.GenRandUint32(), want);
  }
  const uint32_t key[2] = {7, 256};
  PyRandom by_key(key);
  EXPECT_EQ(by_key.GenRandUint32(), 2635837658u);
}

// Where the CPU has AVX2 the state is twisted eight words at a time; the four-word way (other
// CPUs) must give the same words, block after block.
TEST(PyRandom, BothWaysOfTwistingGiveTheSameWords) {
  PyRandom fast(12345);
  std::vector<uint32_t> words;
  for (int i = 0; i < 10 * 624 + 5; ++i) words.push_back(fast.GenRandUint32());
  PyRandom::UsePortableTwistForTesting(true);
  PyRandom portable(12345);
  for (size_t i = 0; i < words.size(); ++i) {
    ASSERT_EQ(portable.GenRandUint32(), words[i]) << "word " << i;
  }
  // r=random.Random(12345); [r.getrandbits(32) for _ in range(5)], as GenRandMatchesCPython
  PyRandom golden(12345);
  EXPECT_EQ(golden.GenRandUint32(), 1789368711u);
  PyRandom::UsePortableTwistForTesting(false);
  // r=random.Random(12345); w=[r.getrandbits(32) for _ in range(6245)]
  // print(w[624], w[3000], w[-1])  (the second block's first word, one inside, the last)
  EXPECT_EQ(words[624], 4171722749u);
  EXPECT_EQ(words[3000], 3777108314u);
  EXPECT_EQ(words.back(), 304152283u);
}

TEST(PyRandom, RandomMatchesCPython) {
  // r=random.Random(12345); print([repr(r.random()) for _ in range(5)])
  PyRandom r(12345);
  for (double want : {0.41661987254534116, 0.010169169457068361, 0.8252065092537432,
                      0.2986398551995928, 0.3684116894884757}) {
    EXPECT_EQ(r.Random(), want);
  }
  // r=random.Random(12345); [r.random() for _ in range(700)]; print(repr(r.random()))
  // (crosses the regeneration of the 624-word state)
  PyRandom s(12345);
  for (int i = 0; i < 700; ++i) s.Random();
  EXPECT_EQ(s.Random(), 0.6799084155778294);
}

TEST(PyRandom, GetRandBitsMatchesCPython) {
  // r=random.Random(12345); print([r.getrandbits(k) for k in (1,5,31,32,33,48,64)])
  PyRandom r(12345);
  EXPECT_EQ(r.GetRandBits(1), 0u);
  EXPECT_EQ(r.GetRandBits(5), 23u);
  EXPECT_EQ(r.GetRandBits(31), 21838114u);
  EXPECT_EQ(r.GetRandBits(32), 3522623596u);
  EXPECT_EQ(r.GetRandBits(33), 7839202253u);
  EXPECT_EQ(r.GetRandBits(48), 240699839850818u);
  EXPECT_EQ(r.GetRandBits(64), 17188393767951940199u);
}

TEST(PyRandom, RandIntAndRandBelowMatchCPython) {
  // r=random.Random(12345); print([r.randint(0,9) for _ in range(20)], r.randint(2,125),
  //                               r.randint(0, 2**40))
  PyRandom r(12345);
  for (int64_t want : {6, 0, 4, 5, 3, 4, 9, 6, 2, 5, 1, 6, 4, 8, 2, 9, 8, 2, 5, 1}) {
    EXPECT_EQ(r.RandInt(0, 9), want);
  }
  EXPECT_EQ(r.RandInt(2, 125), 69);
  EXPECT_EQ(r.RandInt(0, int64_t{1} << 40), 367236606106);
  // r=random.Random(7); print([r._randbelow(n) for n in (1,2,3,1000,2**32,2**32+1)])
  PyRandom s(7);
  EXPECT_EQ(s.RandBelow(1), 0u);
  EXPECT_EQ(s.RandBelow(2), 0u);
  EXPECT_EQ(s.RandBelow(3), 1u);
  EXPECT_EQ(s.RandBelow(1000), 666u);
  EXPECT_EQ(s.RandBelow(uint64_t{1} << 32), 207388624u);
  EXPECT_EQ(s.RandBelow((uint64_t{1} << 32) + 1), 404285457u);
}

TEST(PyRandom, ShuffleMatchesCPython) {
  // r=random.Random(12345); x=list(range(20)); r.shuffle(x); print(x)
  PyRandom r(12345);
  std::vector<int> v(20);
  std::iota(v.begin(), v.end(), 0);
  r.Shuffle(&v);
  EXPECT_EQ(
      v, (std::vector<int>{16, 18, 3, 8, 19, 10, 7, 14, 12, 1, 5, 2, 15, 17, 4, 6, 11, 9, 0, 13}));
  // r=random.Random(12345); x=list(range(1000)); r.shuffle(x)
  // print(sum(i*v for i,v in enumerate(x)), x[:8])  (crosses the regeneration of the state)
  PyRandom big(12345);
  std::vector<int> w(1000);
  std::iota(w.begin(), w.end(), 0);
  big.Shuffle(&w);
  int64_t weighted = 0;
  for (size_t i = 0; i < w.size(); ++i) weighted += static_cast<int64_t>(i) * w[i];
  EXPECT_EQ(weighted, 244455654);
  EXPECT_EQ(std::vector<int>(w.begin(), w.begin() + 8),
            (std::vector<int>{669, 944, 291, 633, 922, 752, 781, 258}));
  std::vector<int> empty, one{5};
  r.Shuffle(&empty);
  r.Shuffle(&one);
  EXPECT_EQ(one, std::vector<int>{5});
}

TEST(PyRandom, ShufflesOfEverySizeMatchCPython) {
  // r=random.Random(99); s=0
  // for n in range(1,300):
  //   x=list(range(n)); r.shuffle(x); s=(s*31+sum(i*v for i,v in enumerate(x)))%(2**61-1)
  // print(s, r.getrandbits(32))
  // (every size of a BERT instance's candidates, the two-draw path at every place of the block)
  PyRandom r(99);
  constexpr uint64_t kModulus = (uint64_t{1} << 61) - 1;
  uint64_t s = 0;
  for (int n = 1; n < 300; ++n) {
    std::vector<int> x(static_cast<size_t>(n));
    std::iota(x.begin(), x.end(), 0);
    r.Shuffle(&x);
    uint64_t weighted = 0;
    for (size_t i = 0; i < x.size(); ++i) weighted += i * static_cast<uint64_t>(x[i]);
    s = static_cast<uint64_t>((static_cast<unsigned __int128>(s) * 31 + weighted) % kModulus);
  }
  EXPECT_EQ(s, 1998118224762101784u);
  EXPECT_EQ(r.GenRandUint32(), 1995948384u);
}

}  // namespace
}  // namespace tokenmill
