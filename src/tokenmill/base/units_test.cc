#include "tokenmill/base/units.h"

#include <gtest/gtest.h>

namespace tokenmill {
namespace {

TEST(ParseByteSize, Units) {
  EXPECT_EQ(*ParseByteSize("1048576"), 1048576u);
  EXPECT_EQ(*ParseByteSize("256MiB"), 256ull << 20);
  EXPECT_EQ(*ParseByteSize("4 MB"), 4000000u);
  EXPECT_EQ(*ParseByteSize("1.5GiB"), 1610612736u);
  EXPECT_EQ(*ParseByteSize("64kib"), 65536u);
  EXPECT_FALSE(ParseByteSize("").ok());
  EXPECT_FALSE(ParseByteSize("MiB").ok());
  EXPECT_FALSE(ParseByteSize("12 parsecs").ok());
}

TEST(FormatBytes, Human) {
  EXPECT_EQ(FormatBytes(999), "999 B");
  EXPECT_EQ(FormatBytes(1.5e6), "1.5 MB");
}

}  // namespace
}  // namespace tokenmill
