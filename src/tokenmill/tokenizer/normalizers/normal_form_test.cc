#include "tokenmill/tokenizer/normalizers/normal_form.h"

#include <gtest/gtest.h>
#include <utf8proc.h>

#include <cstdlib>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "tokenmill/tokenizer/char_util.h"

namespace tokenmill {
namespace {

constexpr NormalForm kForms[] = {NormalForm::kNfc, NormalForm::kNfd, NormalForm::kNfkc,
                                 NormalForm::kNfkd};

// utf8proc alone, as the normalizers called it before the quick check.
std::string Reference(const std::string& text, NormalForm form) {
  int options = UTF8PROC_STABLE;
  switch (form) {
    case NormalForm::kNfc:
      options |= UTF8PROC_COMPOSE;
      break;
    case NormalForm::kNfd:
      options |= UTF8PROC_DECOMPOSE;
      break;
    case NormalForm::kNfkc:
      options |= UTF8PROC_COMPOSE | UTF8PROC_COMPAT;
      break;
    case NormalForm::kNfkd:
      options |= UTF8PROC_DECOMPOSE | UTF8PROC_COMPAT;
      break;
  }
  utf8proc_uint8_t* out = nullptr;
  const utf8proc_ssize_t n = utf8proc_map(reinterpret_cast<const utf8proc_uint8_t*>(text.data()),
                                          static_cast<utf8proc_ssize_t>(text.size()), &out,
                                          static_cast<utf8proc_option_t>(options));
  std::string result = n >= 0 ? std::string(reinterpret_cast<const char*>(out), n) : text;
  std::free(out);
  return result;
}

std::string Utf8(std::initializer_list<char32_t> cps) {
  std::string s;
  for (char32_t cp : cps) hf::AppendUtf8(cp, &s);
  return s;
}

TEST(NormalFormTest, AsciiAndCjkPassTheQuickCheck) {
  for (NormalForm form : kForms) {
    EXPECT_TRUE(QuickCheckNormal("Hello, world! 123\t\n", form));
    EXPECT_TRUE(QuickCheckNormal("中文和English混合、好。", form));
    EXPECT_TRUE(QuickCheckNormal("", form));
  }
  // A fullwidth comma has a compatibility decomposition.
  EXPECT_TRUE(QuickCheckNormal("好，", NormalForm::kNfc));
  EXPECT_FALSE(QuickCheckNormal("好，", NormalForm::kNfkc));
  EXPECT_EQ(ToNormalForm("好，", NormalForm::kNfkc), "好,");
  // A combining mark: maybe not normal in any form.
  for (NormalForm form : kForms) EXPECT_FALSE(QuickCheckNormal(Utf8({'e', 0x301}), form));
  // A precomposed letter is NFC and NFKC, not NFD or NFKD.
  EXPECT_TRUE(QuickCheckNormal(Utf8({0xE9}), NormalForm::kNfc));
  EXPECT_TRUE(QuickCheckNormal(Utf8({0xE9}), NormalForm::kNfkc));
  EXPECT_FALSE(QuickCheckNormal(Utf8({0xE9}), NormalForm::kNfd));
  // A ligature has a compatibility decomposition only.
  EXPECT_TRUE(QuickCheckNormal(Utf8({0xFB01}), NormalForm::kNfc));
  EXPECT_FALSE(QuickCheckNormal(Utf8({0xFB01}), NormalForm::kNfkc));
  // A Hangul trailing consonant composes with the syllable before it.
  EXPECT_FALSE(QuickCheckNormal(Utf8({0xAC00, 0x11A8}), NormalForm::kNfc));
  EXPECT_EQ(ToNormalForm(Utf8({0xAC00, 0x11A8}), NormalForm::kNfc), Utf8({0xAC01}));
  // A starter that is the second part of a composition (Tamil AA after E).
  EXPECT_FALSE(QuickCheckNormal(Utf8({0x0BC6, 0x0BBE}), NormalForm::kNfc));
  EXPECT_EQ(ToNormalForm(Utf8({0x0BC6, 0x0BBE}), NormalForm::kNfc), Utf8({0x0BCA}));
}

TEST(NormalFormTest, ThreadsComputeBlocksTogether) {
  // Code points of many blocks no test before has met, from four threads at once.
  std::string text;
  for (char32_t cp = 0x20001; cp < 0x2F000; cp += 37) hf::AppendUtf8(cp, &text);
  const std::string want = Reference(text, NormalForm::kNfkc);
  std::vector<std::thread> threads;
  std::vector<std::string> got(4);
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] { got[t] = ToNormalForm(text, NormalForm::kNfkc); });
  }
  for (auto& th : threads) th.join();
  for (const auto& g : got) EXPECT_EQ(g, want);
}

TEST(NormalFormTest, EveryCodePointAloneAsUtf8proc) {
  // Every code point of planes 0 and 1, and every 31st above (all 17 planes' blocks).
  for (NormalForm form : kForms) {
    for (char32_t cp = 1; cp <= 0x10FFFF; cp += cp < 0x20000 ? 1 : 31) {
      if (cp >= 0xD800 && cp <= 0xDFFF) continue;
      const std::string s = Utf8({cp});
      ASSERT_EQ(ToNormalForm(s, form), Reference(s, form))
          << "U+" << std::hex << static_cast<uint32_t>(cp) << " form " << static_cast<int>(form);
    }
  }
}

TEST(NormalFormTest, SequencesAsUtf8proc) {
  // Letters, marks, the starters that compose as second parts, Hangul jamo and syllables,
  // compatibility characters, CJK: random sequences of them in every form.
  const std::vector<char32_t> pool = {
      'a',    'e',    'A',    ' ',    0x300,   0x301,   0x308,   0x327,   0x323,   0x345,   0x0344,
      0x00C5, 0x212B, 0x00E9, 0x1E9B, 0x0958,  0x093C,  0x0915,  0x0B47,  0x0B3E,  0x0B56,  0x0B57,
      0x0BC6, 0x0BC7, 0x0BBE, 0x0BD7, 0x0CBF,  0x0CC6,  0x0CC2,  0x0CD5,  0x0CD6,  0x09C7,  0x09BE,
      0x09D7, 0x0D46, 0x0D3E, 0x0D57, 0x0DD9,  0x0DCF,  0x0DDF,  0x1025,  0x102E,  0x1B05,  0x1B35,
      0x1100, 0x1161, 0x11A7, 0x11A8, 0xAC00,  0xAC01,  0xD7A3,  0xFB01,  0x2460,  0xFF21,  0x3000,
      0x4E2D, 0x6587, 0xFF0C, 0x3002, 0x1F600, 0x1D15E, 0x1D165, 0x11099, 0x110BA, 0x2F800, 0xF900};
  std::mt19937 rng(7);
  std::uniform_int_distribution<size_t> pick(0, pool.size() - 1);
  std::uniform_int_distribution<int> length(1, 6);
  for (int trial = 0; trial < 20000; ++trial) {
    std::string s;
    for (int k = length(rng); k > 0; --k) hf::AppendUtf8(pool[pick(rng)], &s);
    for (NormalForm form : kForms) {
      ASSERT_EQ(ToNormalForm(s, form), Reference(s, form)) << s;
      std::string in_place = s;
      NormalizeInPlace(&in_place, form);
      ASSERT_EQ(in_place, Reference(s, form)) << s;
    }
  }
}

TEST(NormalFormTest, InvalidUtf8IsKept) {
  for (NormalForm form : kForms) {
    for (const std::string& bad :
         {std::string("a\xff"
                      "b"),
          std::string("\xe4\xb8"), std::string("\xed\xa0\x80"), std::string("\xc0\xaf")}) {
      EXPECT_FALSE(QuickCheckNormal(bad, form));
      EXPECT_EQ(ToNormalForm(bad, form), bad);
    }
  }
}

}  // namespace
}  // namespace tokenmill
