#include "tokenmill/base/crc32c.h"

#include <gtest/gtest.h>

#include <random>
#include <string>

namespace tokenmill {
namespace {

TEST(Crc32c, KnownVectors) {
  // RFC 3720 B.4 test vectors.
  std::string zeros(32, '\0');
  EXPECT_EQ(crc32c::Value(zeros), 0x8a9136aau);
  std::string ones(32, '\xff');
  EXPECT_EQ(crc32c::Value(ones), 0x62a8ab43u);
  std::string inc(32, '\0');
  for (int i = 0; i < 32; ++i) inc[i] = static_cast<char>(i);
  EXPECT_EQ(crc32c::Value(inc), 0x46dd794eu);
  EXPECT_EQ(crc32c::Value("123456789"), 0xe3069283u);
}

// The CRC bit by bit, as the polynomial's definition gives it.
uint32_t BitwiseCrc32c(const std::string& s) {
  uint32_t crc = 0xffffffffu;
  for (const char c : s) {
    crc ^= static_cast<unsigned char>(c);
    for (int k = 0; k < 8; ++k) crc = (crc & 1) ? (crc >> 1) ^ 0x82f63b78u : crc >> 1;
  }
  return ~crc;
}

TEST(Crc32c, MatchesTheDefinitionOnEveryLengthTo4096AndBeyond) {
  // Every tail after the 8-byte steps, at several alignments, and long buffers; the CPU's
  // instruction (where Extend uses it) and the table.
  std::mt19937 rng(5);
  std::string data(70000, '\0');
  for (char& c : data) c = static_cast<char>(rng());
  for (size_t n = 0; n <= 4096; ++n) {
    const std::string s = data.substr(n % 7, n);
    ASSERT_EQ(crc32c::Value(s), BitwiseCrc32c(s)) << "length " << n;
    ASSERT_EQ(crc32c::ExtendPortable(0, s.data(), s.size()), BitwiseCrc32c(s)) << "length " << n;
  }
  for (size_t n : {8191u, 8192u, 65536u, 69999u}) {
    const std::string s = data.substr(1, n);
    EXPECT_EQ(crc32c::Value(s), BitwiseCrc32c(s)) << "length " << n;
    EXPECT_EQ(crc32c::ExtendPortable(0, s.data(), s.size()), BitwiseCrc32c(s)) << "length " << n;
  }
}

TEST(Crc32c, ExtendEqualsWhole) {
  std::string s = "hello tokenmill, a somewhat longer string to cross 8-byte blocks";
  for (size_t cut = 0; cut <= s.size(); ++cut) {
    uint32_t a = crc32c::Value(s.data(), cut);
    EXPECT_EQ(crc32c::Extend(a, s.data() + cut, s.size() - cut), crc32c::Value(s));
  }
}

TEST(Crc32c, MaskRoundTrip) {
  for (uint32_t v : {0u, 1u, 0xdeadbeefu, 0xffffffffu}) {
    EXPECT_EQ(crc32c::Unmask(crc32c::Mask(v)), v);
    EXPECT_NE(crc32c::Mask(v), v);
  }
}

}  // namespace
}  // namespace tokenmill
