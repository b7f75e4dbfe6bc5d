#include "tokenmill/tokenizer/bert_normalizer.h"

#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace tokenmill {
namespace {

struct WordSink {
  std::vector<std::string> words;
  std::vector<size_t> chars;
  void Word(std::string_view w, size_t n) {
    words.emplace_back(w);
    chars.push_back(n);
  }
  void Char(char32_t, std::string_view w) { Word(w, 1); }
  size_t Mark() const { return words.size(); }
  void Rollback(size_t m) {
    words.resize(m);
    chars.resize(m);
  }
};

std::vector<std::string> Words(const BertNormalizerOptions& o, std::string_view text) {
  WordSink fast;
  BertPreTokenizer::Get(o)->Split(text, fast);
  WordSink slow;
  BertPreTokenizer::Get(o)->SplitSlowly(text, slow);
  EXPECT_EQ(fast.words, slow.words) << "fast and slow paths disagree on: " << text;
  EXPECT_EQ(fast.chars, slow.chars);
  return fast.words;
}

using V = std::vector<std::string>;

BertNormalizerOptions Hf() { return BertNormalizerOptions{}; }

TEST(BertPreTokenizerTest, SplitsOnWhitespaceAndPunctuation) {
  EXPECT_EQ(Words(Hf(), "Hello, World!  a-b"), (V{"hello", ",", "world", "!", "a", "-", "b"}));
  EXPECT_EQ(Words(Hf(), ""), V{});
  EXPECT_EQ(Words(Hf(), "   "), V{});
}

}  // namespace
}  // namespace tokenmill
