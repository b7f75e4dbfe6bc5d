#include "tokenmill/tokenizer/normalizers/hf_normalizers.h"

#include <gtest/gtest.h>

#include "tokenmill/tokenizer/normalizers/precompiled.h"

namespace tokenmill::hf {
namespace {

std::string Norm(const Normalizer& n, std::string text, bool* at_origin = nullptr) {
  Segment s{std::move(text), true};
  n.Normalize(&s);
  if (at_origin != nullptr) *at_origin = s.at_origin;
  return s.text;
}

TEST(HfNormalizersTest, PrependOnlyNonEmpty) {
  PrependNormalizer p("\xE2\x96\x81");
  EXPECT_EQ(Norm(p, "hi"), "\xE2\x96\x81hi");
  EXPECT_EQ(Norm(p, ""), "");
}

TEST(HfNormalizersTest, ReplaceLiteralAndRegex) {
  auto lit = ReplaceNormalizer::Literal(" ", "\xE2\x96\x81");
  ASSERT_TRUE(lit.ok());
  EXPECT_EQ(Norm(**lit, " a  b"),
            "\xE2\x96\x81"
            "a\xE2\x96\x81\xE2\x96\x81"
            "b");
  auto re = ReplaceNormalizer::Regex(" {2,}", " ");
  ASSERT_TRUE(re.ok());
  EXPECT_EQ(Norm(**re, "a    b c"), "a b c");
  auto del = ReplaceNormalizer::Literal("x", "");
  bool origin = true;
  EXPECT_EQ(Norm(**del, "xab", &origin), "ab");
  EXPECT_FALSE(origin);
}

TEST(HfNormalizersTest, UnicodeForms) {
  EXPECT_EQ(Norm(UnicodeNormalizer(NormalForm::kNfc), "e\xCC\x81"), "\xC3\xA9");
  EXPECT_EQ(Norm(UnicodeNormalizer(NormalForm::kNfd), "\xC3\xA9"), "e\xCC\x81");
  EXPECT_EQ(Norm(UnicodeNormalizer(NormalForm::kNfkc), "\xEF\xBC\xA1"), "A");   // fullwidth A
  EXPECT_EQ(Norm(UnicodeNormalizer(NormalForm::kNfkd), "\xEF\xAC\x81"), "fi");  // ligature
}

TEST(HfNormalizersTest, LowercasePerCharacter) {
  LowercaseNormalizer l;
  EXPECT_EQ(Norm(l, "HeLLo \xCE\xA3\xCE\xA3"), "hello \xCF\x83\xCF\x83");  // no final sigma
  EXPECT_EQ(Norm(l, "\xC4\xB0"), "i\xCC\x87");                             // İ
}

TEST(HfNormalizersTest, StripAndAccentsAndNmt) {
  bool origin = true;
  EXPECT_EQ(Norm(StripNormalizer(true, true), " \t a b \xE3\x80\x80", &origin), "a b");
  EXPECT_FALSE(origin);
  EXPECT_EQ(Norm(StripNormalizer(false, true), " a "), " a");
  EXPECT_EQ(Norm(StripAccentsNormalizer(), "e\xCC\x81t\xCC\x88"), "et");
  EXPECT_EQ(Norm(NmtNormalizer(),
                 "a\x01"
                 "b\tc\xE2\x80\x8B"
                 "d"),
            "ab c d");
}

TEST(HfPrecompiledTest, EmptyAndMalformedCharsMaps) {
  EXPECT_TRUE(CharsMap::Parse("").ok());
  EXPECT_FALSE(CharsMap::Parse("ab").ok());
  EXPECT_FALSE(CharsMap::Parse(std::string("\xFF\x00\x00\x00", 4) + "abcd").ok());
  std::string out;
  EXPECT_TRUE(DecodeBase64Blob("aGk=", &out));
  EXPECT_EQ(out, "hi");
  EXPECT_FALSE(DecodeBase64Blob("a*b", &out));
}

}  // namespace
}  // namespace tokenmill::hf
