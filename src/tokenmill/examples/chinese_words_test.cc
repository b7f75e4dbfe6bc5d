#include "tokenmill/examples/chinese_words.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace tokenmill {
namespace {

// The words of `text` as strings of their Han characters.
std::vector<std::u32string> Words(std::string_view text) {
  auto segmenter = ChineseWordSegmenter::Create();
  EXPECT_TRUE(segmenter.ok()) << segmenter.status().ToString();
  std::vector<HanCharacter> chars;
  uint32_t next = 0;
  (*segmenter)->Segment(text, &chars, &next);
  std::vector<std::u32string> words;
  uint32_t last = UINT32_MAX;
  for (const HanCharacter& h : chars) {
    if (words.empty() || h.word != last) words.emplace_back();
    words.back().push_back(h.c);
    last = h.word;
  }
  return words;
}

TEST(ChineseWordSegmenter, DictionaryWords) {
  // ICU 72's CJ dictionary.
  EXPECT_EQ(Words("中华人民共和国成立了"),
            (std::vector<std::u32string>{U"中华", U"人民", U"共和国", U"成立", U"了"}));
  EXPECT_EQ(Words("我喜欢自然语言处理"),
            (std::vector<std::u32string>{U"我", U"喜欢", U"自然", U"语言", U"处理"}));
}

TEST(ChineseWordSegmenter, OnlyHanCharactersOfIdeographicWords) {
  // Latin words, digits and punctuation belong to no word; words are numbered on.
  auto segmenter = ChineseWordSegmenter::Create();
  ASSERT_TRUE(segmenter.ok());
  std::vector<HanCharacter> chars;
  uint32_t next = 10;
  (*segmenter)->Segment("BERT 模型，2019年。", &chars, &next);
  std::u32string all;
  for (const HanCharacter& h : chars) all.push_back(h.c);
  EXPECT_EQ(all, U"模型年");
  ASSERT_EQ(chars.size(), 3u);
  EXPECT_EQ(chars[0].word, 10u);
  EXPECT_EQ(chars[1].word, 10u);
  EXPECT_GT(chars[2].word, chars[1].word);
  EXPECT_EQ(next, chars[2].word + 1);
  // Invalid UTF-8 does not crash.
  chars.clear();
  (*segmenter)->Segment("\xff\xfe中文", &chars, &next);
  EXPECT_EQ(chars.size(), 2u);
}

TEST(ChineseWordSegmenter, IsHan) {
  EXPECT_TRUE(ChineseWordSegmenter::IsHan(U'中'));
  EXPECT_TRUE(ChineseWordSegmenter::IsHan(U'\U00020000'));  // CJK Extension B
  EXPECT_FALSE(ChineseWordSegmenter::IsHan(U'a'));
  EXPECT_FALSE(ChineseWordSegmenter::IsHan(U'。'));
  EXPECT_FALSE(ChineseWordSegmenter::IsHan(U'カ'));
}

}  // namespace
}  // namespace tokenmill
