#include "tokenmill/io/jsonl_text.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace tokenmill {
namespace {

using ::testing::ElementsAre;

TEST(SplitFieldPathTest, DotsSeparateKeys) {
  EXPECT_THAT(*SplitFieldPath("text"), ElementsAre("text"));
  EXPECT_THAT(*SplitFieldPath("meta.body.text"), ElementsAre("meta", "body", "text"));
  for (const char* bad : {"", ".", "a.", ".a", "a..b"}) {
    EXPECT_EQ(SplitFieldPath(bad).status().code(), StatusCode::kInvalidArgument) << bad;
  }
}

std::string Fix(std::string_view in, size_t* n) {
  std::string out;
  ReplaceLoneSurrogateEscapes(in, &out, n);
  return out;
}

TEST(ReplaceLoneSurrogateEscapesTest, OnlyLoneSurrogatesChange) {
  size_t n = 0;
  EXPECT_EQ(Fix(R"({"t": "a\ud800b"})", &n), R"({"t": "a\uFFFDb"})");
  EXPECT_EQ(n, 1u);
  EXPECT_EQ(Fix(R"("\uDC00\uD800")", &n), R"("\uFFFD\uFFFD")");
  EXPECT_EQ(n, 2u);
  EXPECT_EQ(Fix(R"("\ud83d\ude00 \u00e9 \n \\ud800")", &n), R"("\ud83d\ude00 \u00e9 \n \\ud800")");
  EXPECT_EQ(n, 0u);
  EXPECT_EQ(Fix(R"("\ud800\u0041")", &n), R"("\uFFFD\u0041")");
  EXPECT_EQ(n, 1u);
  EXPECT_EQ(Fix(R"("\ud800)", &n), R"("\uFFFD)");  // at the very end
  EXPECT_EQ(Fix(R"("\ud8)", &n), R"("\ud8)");      // too short to be an escape
  EXPECT_EQ(n, 0u);
  EXPECT_EQ(Fix("\\", &n), "\\");
}

}  // namespace
}  // namespace tokenmill
