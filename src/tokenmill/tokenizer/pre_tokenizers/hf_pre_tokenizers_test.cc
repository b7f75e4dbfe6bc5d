#include "tokenmill/tokenizer/pre_tokenizers/hf_pre_tokenizers.h"

#include <gtest/gtest.h>

#include "tokenmill/tokenizer/char_util.h"

namespace tokenmill::hf {
namespace {

std::vector<std::string> Cut(const PreTokenizer& p, std::string text, bool at_origin = true) {
  std::vector<Piece> pieces{{std::move(text), at_origin}};
  p.PreTokenize(&pieces);
  std::vector<std::string> out;
  for (const Piece& piece : pieces) out.push_back(piece.text);
  return out;
}

using V = std::vector<std::string>;

// The examples of HF's NormalizedString::split documentation.
TEST(HfSplitTest, FiveBehaviours) {
  auto split = [](SplitBehavior b, bool invert = false) {
    return SplitPreTokenizer(SplitPreTokenizer::Literal("-"), b, invert);
  };
  const std::string s = "the-final--countdown";
  EXPECT_EQ(Cut(split(SplitBehavior::kRemoved), s), (V{"the", "final", "countdown"}));
  EXPECT_EQ(Cut(split(SplitBehavior::kIsolated), s),
            (V{"the", "-", "final", "-", "-", "countdown"}));
  EXPECT_EQ(Cut(split(SplitBehavior::kMergedWithPrevious), s),
            (V{"the-", "final-", "-", "countdown"}));
  EXPECT_EQ(Cut(split(SplitBehavior::kMergedWithNext), s), (V{"the", "-final", "-", "-countdown"}));
  EXPECT_EQ(Cut(split(SplitBehavior::kContiguous), s), (V{"the", "-", "final", "--", "countdown"}));
  // invert: the matches become the gaps; Removed then keeps only the dashes.
  EXPECT_EQ(Cut(split(SplitBehavior::kRemoved, true), s), (V{"-", "-", "-"}));
}

TEST(HfSplitTest, RegexAndNoMatch) {
  auto re = SplitPreTokenizer::Regex("\\d+");
  ASSERT_TRUE(re.ok());
  SplitPreTokenizer p(*re, SplitBehavior::kIsolated, false);
  EXPECT_EQ(Cut(p, "ab12cd345"), (V{"ab", "12", "cd", "345"}));
  EXPECT_EQ(Cut(p, "none"), (V{"none"}));
  EXPECT_EQ(Cut(p, ""), (V{}));
  EXPECT_FALSE(SplitPreTokenizer::Regex("(").ok());
}

TEST(HfMetaspaceTest, SchemesAndSplit) {
  const std::string m = "\xE2\x96\x81";
  MetaspacePreTokenizer always(m, PrependScheme::kAlways, true);
  // HF's multiple_spaces test.
  EXPECT_EQ(Cut(always, "Hey   friend!"), (V{m + "Hey", m, m, m + "friend!"}));
  EXPECT_EQ(Cut(always, m + "Hey"), (V{m + "Hey"}));  // no second prefix
  MetaspacePreTokenizer first(m, PrependScheme::kFirst, false);
  EXPECT_EQ(Cut(first, "Hey friend", true), (V{m + "Hey" + m + "friend"}));
  EXPECT_EQ(Cut(first, "Hey friend", false), (V{"Hey" + m + "friend"}));
  MetaspacePreTokenizer never(m, PrependScheme::kNever, true);
  EXPECT_EQ(Cut(never, "a b"), (V{"a", m + "b"}));
}

TEST(HfPreTokenizersTest, CharacterClasses) {
  SplitPreTokenizer digits(SplitPreTokenizer::Chars(IsNumeric), SplitBehavior::kContiguous, false);
  EXPECT_EQ(Cut(digits, "Hey 123 friend"), (V{"Hey ", "123", " friend"}));
  SplitPreTokenizer single(SplitPreTokenizer::Chars(IsNumeric), SplitBehavior::kIsolated, false);
  EXPECT_EQ(Cut(single, "a12"), (V{"a", "1", "2"}));
  SplitPreTokenizer punct(SplitPreTokenizer::Chars(IsPunctuation), SplitBehavior::kIsolated, false);
  EXPECT_EQ(Cut(punct, "Hey friend!?"), (V{"Hey friend", "!", "?"}));
  SplitPreTokenizer ws(SplitPreTokenizer::Chars(IsWhitespace), SplitBehavior::kRemoved, false);
  EXPECT_EQ(Cut(ws, " Hey\tfriend\xE3\x80\x80x "), (V{"Hey", "friend", "x"}));
  auto w = SplitPreTokenizer::Regex("\\w+|[^\\w\\s]+");
  ASSERT_TRUE(w.ok());
  SplitPreTokenizer whitespace(*w, SplitBehavior::kRemoved, true);
  EXPECT_EQ(Cut(whitespace, "Hey friend!!  How are you?"),
            (V{"Hey", "friend", "!!", "How", "are", "you", "?"}));
}

TEST(HfPreTokenizersTest, AtOriginFollowsTheFirstPiece) {
  SplitPreTokenizer ws(SplitPreTokenizer::Chars(IsWhitespace), SplitBehavior::kRemoved, false);
  std::vector<Piece> pieces{{" a b", true}};
  ws.PreTokenize(&pieces);
  ASSERT_EQ(pieces.size(), 2u);
  EXPECT_FALSE(pieces[0].at_origin);  // the space before it was removed, as HF's offsets say
}

}  // namespace
}  // namespace tokenmill::hf
