#include "tokenmill/tokenizer/wordpiece.h"

#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace tokenmill {
namespace {

TEST(WordPieceTableTest, LaterDuplicateWins) {
  WordPieceTable t;
  t.Build({{"a", 1}, {"b", 2}, {"a", 3}});
  EXPECT_EQ(t.Find("a"), 3u);
  EXPECT_EQ(t.Find("b"), 2u);
  EXPECT_EQ(t.Find("c"), WordPieceTable::kNotFound);
}

}  // namespace
}  // namespace tokenmill
