#include "tokenmill/tokenizer/normalizers/bert_normalizer.h"

#include <random>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tokenmill/tokenizer/normalizers/bert_unicode.h"

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

// Splits with the fast path, and checks that the exact slow path agrees.
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

BertNormalizerOptions Mode(CompatMode compat, bool lowercase = true, bool strip = true) {
  BertNormalizerOptions o;
  o.compat = compat;
  o.lowercase = lowercase;
  o.strip_accents = strip;
  return o;
}
const BertNormalizerOptions kHf = Mode(CompatMode::kHuggingFace);
const BertNormalizerOptions kBert = Mode(CompatMode::kGoogleBert);
const BertNormalizerOptions kElectra = Mode(CompatMode::kGoogleElectra);

TEST(BertPreTokenizerTest, SplitsOnWhitespaceAndPunctuation) {
  EXPECT_EQ(Words(kHf, "Hello, World!  a-b"), (V{"hello", ",", "world", "!", "a", "-", "b"}));
  EXPECT_EQ(Words(kHf, ""), V{});
  EXPECT_EQ(Words(kHf, " \t\r\n "), V{});
  // ASCII symbols that are not Unicode punctuation count too: $ + < = > ^ ` | ~
  EXPECT_EQ(Words(kHf, "a$b+c^d`e|f~g"),
            (V{"a", "$", "b", "+", "c", "^", "d", "`", "e", "|", "f", "~", "g"}));
  // Unicode punctuation (P*) splits; symbols (S*) do not.
  EXPECT_EQ(Words(kHf, "x\u00ABy\u2014z\u00A9w"), (V{"x", "\u00AB", "y", "\u2014", "z\u00A9w"}));
}

TEST(BertPreTokenizerTest, PunctuationTablesDifferPerReference) {
  // U+2E45 (Unicode 10) is not punctuation in HF's old tables, it is for Python 3.11.
  EXPECT_EQ(Words(kHf, "a\u2E45b"), V{"a\u2E45b"});
  EXPECT_EQ(Words(kBert, "a\u2E45b"), (V{"a", "\u2E45", "b"}));
  // U+166D was Po until Unicode 12: HF still splits on it, Python does not.
  EXPECT_EQ(Words(kHf, "a\u166Db"), (V{"a", "\u166D", "b"}));
  EXPECT_EQ(Words(kBert, "a\u166Db"), V{"a\u166Db"});
}

TEST(BertPreTokenizerTest, CleanTextDropsControlsAndMapsWhitespace) {
  // NUL, U+FFFD, Cc and Cf (ZWJ, BOM, soft hyphen) vanish; NBSP, U+3000, U+2028 separate.
  EXPECT_EQ(Words(kHf,
                  "a\x01"
                  "b\u200Dc\uFEFFd\u00ADe\uFFFDf"),
            V{"abcdef"});
  EXPECT_EQ(Words(kHf, std::string_view("a\0b", 3)), V{"ab"});
  EXPECT_EQ(Words(kHf, "a\u00A0b\u3000c\u2028d\u2029e\u0085f"), (V{"a", "b", "c", "d", "ef"}));
  EXPECT_EQ(Words(kBert, "a\u00A0b\u3000c\u2028d\u2029e\u0085f"), (V{"a", "b", "c", "d", "ef"}));
  BertNormalizerOptions raw = kHf;
  raw.clean_text = false;
  EXPECT_EQ(Words(raw,
                  "a\x01"
                  "b\u200Dc"),
            V{"a\x01"
              "b\u200Dc"});
  EXPECT_EQ(Words(raw, "a\u00A0b"), (V{"a", "b"}));  // the pre-tokenizer still splits
}

TEST(BertPreTokenizerTest, ControlCharactersPerMode) {
  // Private use (Co): HF and ELECTRA drop it, BERT keeps it (it later gives [UNK]).
  EXPECT_EQ(Words(kHf, "a\uE031b"), V{"ab"});
  EXPECT_EQ(Words(kElectra, "a\uE031b"), V{"ab"});
  EXPECT_EQ(Words(kBert, "a\uE031b"), V{"a\uE031b"});
  // Unassigned (Cn): only ELECTRA drops it.
  EXPECT_EQ(Words(kHf, "x\u0378y"), V{"x\u0378y"});
  EXPECT_EQ(Words(kBert, "x\u0378y"), V{"x\u0378y"});
  EXPECT_EQ(Words(kElectra, "x\u0378y"), V{"xy"});
  // Python 3.11 is Unicode 14: U+31350 (CJK Extension H, Unicode 15) is unassigned there.
  EXPECT_EQ(Words(kElectra, "x\U00031350y"), V{"xy"});
  EXPECT_EQ(Words(kHf, "x\U00031350y"), V{"x\U00031350y"});
}

TEST(BertPreTokenizerTest, ChineseCharactersAreWordsWithRangesPerMode) {
  EXPECT_EQ(Words(kHf, "ab中文cd"), (V{"ab", "中", "文", "cd"}));
  // Extension E from U+2B820 for Google, from U+2B920 for HF.
  EXPECT_EQ(Words(kHf, "a\U0002B820b"), V{"a\U0002B820b"});
  EXPECT_EQ(Words(kBert, "a\U0002B820b"), (V{"a", "\U0002B820", "b"}));
  EXPECT_EQ(Words(kHf, "a\U0002B920b"), (V{"a", "\U0002B920", "b"}));
  // Hiragana and Hangul are not in the ranges.
  EXPECT_EQ(Words(kHf, "aの"), V{"aの"});
  BertNormalizerOptions off = kHf;
  off.handle_chinese_chars = false;
  EXPECT_EQ(Words(off, "ab中文cd"), V{"ab中文cd"});
  // A compatibility ideograph is split, then NFD maps it to the unified one.
  EXPECT_EQ(Words(kHf, "a\uF900b"), (V{"a", "\u8C48", "b"}));
  EXPECT_EQ(Words(Mode(CompatMode::kHuggingFace, false, false), "a\uF900b"),
            (V{"a", "\uF900", "b"}));
}

TEST(BertPreTokenizerTest, AccentsAndLowercase) {
  EXPECT_EQ(Words(kHf, "Café NAÏVE Ångström"), (V{"cafe", "naive", "angstrom"}));
  EXPECT_EQ(Words(kHf, "cafe\u0301"), V{"cafe"});  // decomposed input
  EXPECT_EQ(Words(Mode(CompatMode::kHuggingFace, true, false), "Café"), V{"café"});
  EXPECT_EQ(Words(Mode(CompatMode::kHuggingFace, false, true), "Café"), V{"Cafe"});
  EXPECT_EQ(Words(Mode(CompatMode::kHuggingFace, false, false), "Café"), V{"Café"});
  // Hangul decomposes to jamo under NFD.
  EXPECT_EQ(Words(kHf, "한"), V{"\u1112\u1161\u11AB"});
  // İ lowercases to i + U+0307; the mark is stripped or kept.
  EXPECT_EQ(Words(kHf, "İ"), V{"i"});
  EXPECT_EQ(Words(Mode(CompatMode::kHuggingFace, true, false), "İ"), V{"i\u0307"});
  EXPECT_EQ(Words(kBert, "İ"), V{"i"});
  // A spacing accent becomes ASCII punctuation after NFD (U+1FEF -> '`').
  EXPECT_EQ(Words(kHf, "a\u1FEFb"), (V{"a", "`", "b"}));
}

TEST(BertPreTokenizerTest, FinalSigmaOnlyInGoogleModes) {
  // Python's str.lower(): a capital sigma at the end of a word becomes final sigma.
  EXPECT_EQ(Words(kBert, "ΣΑΣ ΑΣ. Σ"), (V{"σας", "ας", ".", "σ"}));
  EXPECT_EQ(Words(kElectra, "ΟΔΟΣ"), V{"οδος"});
  // HF lowercases char by char.
  EXPECT_EQ(Words(kHf, "ΣΑΣ ΑΣ. Σ"), (V{"σασ", "ασ", ".", "σ"}));
  // The context is the whitespace token, before punctuation splitting: "Σ" after "Α."
  // (the full stop is case-ignorable) is final, and so is one before "-".
  EXPECT_EQ(Words(kBert, "Α.Σ ΑΣ-Β"), (V{"α", ".", "ς", "ας", "-", "β"}));
  // A CJK character ends the token: spaces were put around it.
  EXPECT_EQ(Words(kBert, "ΑΣ中Β"), (V{"ας", "中", "β"}));
  // Without lowercasing nothing changes.
  EXPECT_EQ(Words(Mode(CompatMode::kGoogleBert, false, false), "ΑΣ"), V{"ΑΣ"});
}

TEST(BertPreTokenizerTest, CanonicalOrderingOfKeptMarks) {
  // U+1D16D (ccc 226) before U+1D165 (ccc 216) is reordered by NFD; both are Mc, so
  // strip_accents keeps them, in canonical order.
  EXPECT_EQ(Words(kHf, "a\U0001D16D\U0001D165"), V{"a\U0001D165\U0001D16D"});
  EXPECT_EQ(Words(kBert, "a\U0001D16D\U0001D165"), V{"a\U0001D165\U0001D16D"});
  // U+16FF0 (Unicode 13, class 6) is a class-0 starter for HF's older NFD data: no reordering.
  EXPECT_EQ(Words(kHf, "a\U0001D16D\U00016FF0"), V{"a\U0001D16D\U00016FF0"});
  EXPECT_EQ(Words(kBert, "a\U0001D16D\U00016FF0"), V{"a\U00016FF0\U0001D16D"});
  // Without NFD the order stays.
  EXPECT_EQ(Words(Mode(CompatMode::kHuggingFace, false, false), "a\U0001D16D\U0001D165"),
            V{"a\U0001D16D\U0001D165"});
}

TEST(BertPreTokenizerTest, InvalidUtf8) {
  // Google's code decodes with errors="ignore"; HF reads U+FFFD, which clean_text drops.
  EXPECT_EQ(Words(kBert,
                  "a\xFF"
                  "b\xE2\x82"
                  "c"),
            V{"abc"});
  EXPECT_EQ(Words(kHf,
                  "a\xFF"
                  "b\xE2\x82"
                  "c"),
            V{"abc"});
  BertNormalizerOptions raw = kHf;
  raw.clean_text = false;
  // One U+FFFD per maximal ill-formed subsequence.
  EXPECT_EQ(Words(raw,
                  "a\xFF"
                  "b\xE2\x82"
                  "c\xF0\x9F"),
            V{"a\uFFFDb\uFFFDc\uFFFD"});
}

TEST(BertPreTokenizerTest, CharacterCounts) {
  WordSink sink;
  BertPreTokenizer::Get(kHf)->Split("héllo 中 ab", sink);
  EXPECT_EQ(sink.words, (V{"hello", "中", "ab"}));
  EXPECT_EQ(sink.chars, (std::vector<size_t>{5, 1, 2}));
}

// A sink that keeps at most max_word_bytes bytes of a word.
struct CappedSink : WordSink {
  size_t max_word_bytes = 8;
};

TEST(BertPreTokenizerTest, LongWordsKeepTheirFirstBytesAndTheirWholeCount) {
  CappedSink sink;
  const std::string huge(1000000, 'A');
  BertPreTokenizer::Get(kHf)->Split(
      "abcdefgh ABCDEFGHIJ, " + huge + " \xC3\xA9" + huge +
          "\xC3\xA9\xC3\xA9 abc\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9 x",
      sink);
  EXPECT_EQ(sink.words, (V{"abcdefgh", "abcdefgh", ",", "aaaaaaaa", "eaaaaaaa", "abceeeee", "x"}));
  EXPECT_EQ(sink.chars, (std::vector<size_t>{8, 10, 1, 1000000, 1000003, 9, 1}));
  // Without the strip of accents, a kept multi-byte character may pass the limit by 3 bytes.
  CappedSink marks;
  BertPreTokenizer::Get(Mode(CompatMode::kHuggingFace, true, false))
      ->Split("abcdefg\xC3\xA9\xC3\xA9z", marks);
  EXPECT_EQ(marks.words, (V{"abcdefg\xC3\xA9"}));
  EXPECT_EQ(marks.chars, (std::vector<size_t>{10}));
}

TEST(BertPreTokenizerTest, TablesAreSharedPerOptions) {
  EXPECT_EQ(BertPreTokenizer::Get(kHf), BertPreTokenizer::Get(kHf));
  EXPECT_NE(BertPreTokenizer::Get(kHf), BertPreTokenizer::Get(kBert));
}

// The per code point table is built with shortcuts for uniform blocks; it must equal a record
// computed directly for every code point, in every mode and option set.
TEST(BertPreTokenizerTest, TableMatchesComputedRecordsOnEveryCodePoint) {
  for (CompatMode compat :
       {CompatMode::kHuggingFace, CompatMode::kGoogleBert, CompatMode::kGoogleElectra}) {
    for (bool lower : {false, true}) {
      BertNormalizerOptions o = Mode(compat, lower, lower);
      EXPECT_EQ(BertPreTokenizer(o).CountRecordMismatches(), 0u)
          << static_cast<int>(compat) << " lowercase=" << lower;
      o.handle_chinese_chars = false;
      o.clean_text = false;
      EXPECT_EQ(BertPreTokenizer(o).CountRecordMismatches(), 0u)
          << static_cast<int>(compat) << " lowercase=" << lower << " without clean_text";
    }
  }
}

// The fast path (per code point table) and the exact slow path agree on random text made of
// the characters where the rules interact.
TEST(BertPreTokenizerTest, FastPathMatchesSlowPathOnRandomText) {
  const std::vector<std::string> alphabet = {"a",          "B",
                                             "s",          "Z",
                                             "0",          " ",
                                             ".",          ",",
                                             ":",          "'",
                                             "-",          "\t",
                                             "\u03A3",     "\u03C3",
                                             "\u0391",     "\u038C",
                                             "\u0301",     "\u0308",
                                             "\u0345",     "\U0001D165",
                                             "\U0001D16D", "\u1B44",
                                             "\U00016FF0", "\u302E",
                                             "\u0F71",     "\u0130",
                                             "\u2028",     "\u00A0",
                                             "\u3000",     "\u200D",
                                             "\uFEFF",     "\u00AD",
                                             "\u02B0",     "\u00AA",
                                             "\uE031",     "\u0378",
                                             "\uFFFD",     std::string(1, '\0'),
                                             "\x7F",       "\x1C",
                                             "中",         "\uF900",
                                             "\U0002B820", "한",
                                             "Ａ",         "\u1FEF",
                                             "\u212B",     "\U0001D15E",
                                             "é",          "\u0323",
                                             "\xFF",       "\xE2\x82",
                                             "\u2019",     "\uFF0E"};
  std::mt19937 rng(42);
  std::uniform_int_distribution<size_t> pick(0, alphabet.size() - 1);
  std::uniform_int_distribution<int> length(0, 20);
  for (CompatMode compat :
       {CompatMode::kHuggingFace, CompatMode::kGoogleBert, CompatMode::kGoogleElectra}) {
    for (int flags = 0; flags < 16; ++flags) {
      BertNormalizerOptions o = Mode(compat, flags & 1, flags & 2);
      o.clean_text = flags & 4;
      o.handle_chinese_chars = flags & 8;
      for (int i = 0; i < 300; ++i) {
        std::string text;
        for (int n = length(rng); n > 0; --n) text += alphabet[pick(rng)];
        Words(o, text);
      }
    }
  }
}

TEST(BertUnicodeTest, PredicatesFollowTheReferenceData) {
  using bert::UnicodeRef;
  // HF's category tables are from about Unicode 9; Python 3.11 has Unicode 14.
  EXPECT_FALSE(bert::IsNonspacingMark(UnicodeRef::kHf, 0x1ABF));  // Mn since Unicode 13
  EXPECT_TRUE(bert::IsNonspacingMark(UnicodeRef::kPython, 0x1ABF));
  EXPECT_TRUE(bert::IsNonspacingMark(UnicodeRef::kHf, 0x1734));  // Mn until Unicode 14
  EXPECT_FALSE(bert::IsNonspacingMark(UnicodeRef::kPython, 0x1734));
  EXPECT_TRUE(bert::HfIsOther(0xE000));
  EXPECT_FALSE(bert::HfIsOther(0x0378));
  EXPECT_FALSE(bert::HfIsOther(0x0890));  // Cf since Unicode 14
  // Rust (Unicode 16) lowercases U+A7CB; utf8proc (Unicode 15) does not know it.
  char32_t out[bert::kMaxLowercase];
  ASSERT_EQ(bert::Lowercase(UnicodeRef::kHf, 0xA7CB, out), 1);
  EXPECT_EQ(out[0], 0x264u);
  ASSERT_EQ(bert::Lowercase(UnicodeRef::kPython, 0x130, out), 2);
  EXPECT_EQ(out[1], 0x307u);
  EXPECT_TRUE(bert::PythonIsSpace(0x1C));
  EXPECT_FALSE(bert::RustIsWhitespace(0x1C));
  EXPECT_TRUE(bert::PythonIsCased(0x00AA));
  EXPECT_TRUE(bert::PythonIsCaseIgnorable('.'));
  EXPECT_FALSE(bert::PythonIsCaseIgnorable(','));
}

}  // namespace
}  // namespace tokenmill
