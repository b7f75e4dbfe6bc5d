#include "tokenmill/tokenizer/pre_tokenizers/byte_level.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "tokenmill/tokenizer/loaders/bpe_test_util.h"
#include "tokenmill/tokenizer/pre_tokenizers/unicode_classes.h"

namespace tokenmill::bpe {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

constexpr Pattern kPatterns[] = {Pattern::kGpt2,      Pattern::kCl100k, Pattern::kO200k,
                                 Pattern::kQwen2,     Pattern::kTekken, Pattern::kDeepSeekV3,
                                 Pattern::kGpt2Digits};

std::vector<std::string> Pieces(Pattern p, std::string_view text) {
  std::vector<std::string_view> pieces;
  PreTokenizer::ForPattern(p).Split(text, &pieces);
  return {pieces.begin(), pieces.end()};
}

// The reference: the pattern's regexes themselves, run by PCRE2 with tiktoken's character
// classes, each on the pieces of the one before (as HF runs a Sequence of Split steps).
void ReferenceSplit(Pattern p, std::string_view text, std::vector<std::string_view>* pieces) {
  static const auto* const splitters = [] {
    auto* all = new std::vector<std::vector<const RegexSplitter*>>;
    for (Pattern q : kPatterns) {
      all->resize(std::max(all->size(), static_cast<size_t>(q) + 1));
      for (std::string_view regex : PatternRegexes(q)) {
        (*all)[static_cast<size_t>(q)].push_back(RegexSplitter::Compile(regex).value().release());
      }
    }
    return all;
  }();
  std::vector<std::string_view> in = {text};
  for (const RegexSplitter* splitter : (*splitters)[static_cast<size_t>(p)]) {
    std::vector<std::string_view> out;
    for (std::string_view piece : in) splitter->Split(piece, &out);
    in = std::move(out);
  }
  pieces->insert(pieces->end(), in.begin(), in.end());
}

std::vector<std::string> ReferencePieces(Pattern p, std::string_view text) {
  std::vector<std::string_view> pieces;
  ReferenceSplit(p, text, &pieces);
  return {pieces.begin(), pieces.end()};
}

// Checks the scanner against PCRE2 on every line of `text`; returns the lines compared.
size_t ExpectScannerMatchesReference(Pattern p, std::string_view text, const std::string& what) {
  const PreTokenizer scanner = PreTokenizer::ForPattern(p);
  std::vector<std::string_view> got;
  std::vector<std::string_view> want;
  size_t lines = 0;
  for (std::string_view line : bpe_test::SplitLines(text)) {
    got.clear();
    want.clear();
    scanner.Split(line, &got);
    ReferenceSplit(p, line, &want);
    if (got != want) {
      ADD_FAILURE() << PatternName(p) << " scanner differs from PCRE2 on " << what << " line "
                    << lines + 1 << ": " << line;
      return lines;
    }
    ++lines;
  }
  return lines;
}

TEST(BpeUnicodeTest, ClassesAreTiktokens) {
  const CharClasses& cc = CharClasses::Get();
  EXPECT_EQ(cc.Of('A'), kLu);
  EXPECT_EQ(cc.Of('a'), kLl);
  EXPECT_EQ(cc.Of(0x01C5), kLt);  // ǅ
  EXPECT_EQ(cc.Of(0x02B0), kLm);
  EXPECT_EQ(cc.Of(0x4E00), kLo);
  EXPECT_EQ(cc.Of(0x0301), kMark);
  EXPECT_EQ(cc.Of('5'), kNumber);
  EXPECT_EQ(cc.Of(0x2167), kNumber);  // Ⅷ (Nl)
  EXPECT_EQ(cc.Of(' '), kSpace);
  EXPECT_EQ(cc.Of(0x3000), kSpace);
  EXPECT_EQ(cc.Of(0x0085), kSpace);
  EXPECT_EQ(cc.Of(0x180E), 0);     // not White_Space since Unicode 6.3 (PCRE2's \s has it)
  EXPECT_EQ(cc.Of(0x200B), 0);     // zero width space is Cf
  EXPECT_EQ(cc.Of(0x11380), kLo);  // Tulu-Tigalari, new in Unicode 16.0: a letter to tiktoken
  EXPECT_EQ(cc.Of(0x10940), 0);    // Sidetic, new in Unicode 17.0: unassigned to tiktoken
  EXPECT_EQ(cc.Of(0x0295), kLl);   // Ll in Unicode 16 (Lo from 17.0)
  EXPECT_EQ(cc.Of(0xE000), 0);     // private use
  EXPECT_EQ(cc.Of(0x110000), 0);
}

TEST(BpeUnicodeTest, PunctuationAndSymbolsAreTiktokens) {
  const auto bits = [](uint32_t cp) -> int {
    for (const ClassRange& r : PunctRanges()) {
      if (cp >= r.first && cp <= r.last) return r.bits;
    }
    return 0;
  };
  EXPECT_EQ(bits('!'), kPunct);
  EXPECT_EQ(bits('-'), kPunct);
  EXPECT_EQ(bits('$'), kSymbol);
  EXPECT_EQ(bits('`'), kSymbol);
  EXPECT_EQ(bits('A'), 0);
  EXPECT_EQ(bits(' '), 0);
  EXPECT_EQ(bits(0xFF0C), kPunct);   // full-width comma
  EXPECT_EQ(bits(0x309B), kSymbol);  // ゛ (Sk)
  EXPECT_EQ(bits(0x1F600), kSymbol);
  EXPECT_EQ(bits(0x0301), 0);  // a mark
  size_t p = 0;
  for (const auto& [first, last] : PunctRangesOf(kPunct, false)) p += last - first + 1;
  size_t not_p = 0;
  for (const auto& [first, last] : PunctRangesOf(kPunct, true)) not_p += last - first + 1;
  EXPECT_EQ(p + not_p, kMaxCodePoint + 1);
  EXPECT_GT(p, 800u);
}

TEST(BpeUnicodeTest, RangesOfComplementCoversEverything) {
  size_t in = 0;
  for (const auto& [first, last] : RangesOf(kLetter, false)) in += last - first + 1;
  size_t out = 0;
  for (const auto& [first, last] : RangesOf(kLetter, true)) out += last - first + 1;
  EXPECT_EQ(in + out, kMaxCodePoint + 1);
  EXPECT_GT(in, 100000u);
}

TEST(BpePreTokenizerTest, Gpt2ContractionsAndWhitespaceRuns) {
  EXPECT_THAT(
      Pieces(Pattern::kGpt2, "I'm You're He'll We've They'd 's 't   multiple   spaces\tand\ttabs"),
      ElementsAre("I", "'m", " You", "'re", " He", "'ll", " We", "'ve", " They", "'d", " '", "s",
                  " '", "t", "  ", " multiple", "  ", " spaces", "\t", "and", "\t", "tabs"));
  // Contractions are case-sensitive in GPT-2.
  EXPECT_THAT(Pieces(Pattern::kGpt2, "don't DON'T"), ElementsAre("don", "'t", " DON", "'", "T"));
  // A whitespace run before a word leaves its last space to the word; at the end it stays whole.
  EXPECT_THAT(Pieces(Pattern::kGpt2, "Hello  world 123456 !!!  ?   "),
              ElementsAre("Hello", " ", " world", " 123456", " !!!", " ", " ?", "   "));
  EXPECT_THAT(Pieces(Pattern::kGpt2, "a\n\nb"), ElementsAre("a", "\n", "\n", "b"));
  EXPECT_THAT(Pieces(Pattern::kGpt2, "\xe3\x80\x80x"), ElementsAre("\xe3\x80\x80", "x"));
}

TEST(BpePreTokenizerTest, Cl100kNumbersContractionsAndPrefixes) {
  EXPECT_THAT(Pieces(Pattern::kCl100k, "1234567 a1b22 9"),
              ElementsAre("123", "456", "7", " a", "1", "b", "22", " ", "9"));
  // Case-insensitive contractions; U+017F (long s) folds to 's'.
  EXPECT_THAT(Pieces(Pattern::kCl100k, "I'M you'Re x'\xc5\xbfy"),
              ElementsAre("I", "'M", " you", "'Re", " x", "'\xc5\xbf", "y"));
  // One non-letter, non-digit, non-newline character joins the letters after it.
  EXPECT_THAT(Pieces(Pattern::kCl100k, ".hello ..hello\tworld ,x"),
              ElementsAre(".hello", " ..", "hello", "\tworld", " ,", "x"));
  // Newlines: \s*[\r\n]+ takes the run up to its last newline.
  EXPECT_THAT(Pieces(Pattern::kCl100k, "a\n\n  b\r\n"),
              ElementsAre("a", "\n\n", " ", " b", "\r\n"));
  EXPECT_THAT(Pieces(Pattern::kCl100k, "x!!\n\ny"), ElementsAre("x", "!!\n\n", "y"));
  // Qwen2: one digit a piece.
  EXPECT_THAT(Pieces(Pattern::kQwen2, "1234 a1b22 don't"),
              ElementsAre("1", "2", "3", "4", " a", "1", "b", "2", "2", " don", "'t"));
}

TEST(BpePreTokenizerTest, O200kCaseClasses) {
  EXPECT_THAT(
      Pieces(Pattern::kO200k, "HELLOWorld helloWorld HTTPServer camelCaseString"),
      ElementsAre("HELLOWorld", " hello", "World", " HTTPServer", " camel", "Case", "String"));
  // The contraction belongs to the word, in any case.
  EXPECT_THAT(Pieces(Pattern::kO200k, "don't DON'T can'T x's"),
              ElementsAre("don't", " DON'T", " can'T", " x's"));
  // Titlecase (Lt) counts as upper case: Ǆ (Lu) and ǅ (Lt) start a word.
  EXPECT_THAT(Pieces(Pattern::kO200k, "\xc7\x84ungla \xc7\x85ungla"),
              ElementsAre("\xc7\x84ungla", " \xc7\x85ungla"));
  EXPECT_THAT(Pieces(Pattern::kO200k, "12345 a/b/\n/c"),
              ElementsAre("123", "45", " a", "/b", "/\n/", "c"));
  // A combining mark is in both case classes and also a valid prefix character.
  EXPECT_THAT(Pieces(Pattern::kO200k,
                     "\xcc\x81"
                     "A"),
              ElementsAre("\xcc\x81", "A"));
  EXPECT_THAT(Pieces(Pattern::kO200k, "!\xcc\x81"), ElementsAre("!\xcc\x81"));
}

TEST(BpePreTokenizerTest, TekkenIsO200kWithoutContractionsAndWithSingleDigits) {
  EXPECT_THAT(Pieces(Pattern::kTekken, "don't HTTPServer x1234"),
              ElementsAre("don", "'t", " HTTPServer", " x", "1", "2", "3", "4"));
  EXPECT_THAT(Pieces(Pattern::kO200k, "don't HTTPServer x1234"),
              ElementsAre("don't", " HTTPServer", " x", "123", "4"));
  EXPECT_EQ(KnownPattern(PatternRegex(Pattern::kTekken)), Pattern::kTekken);
}

TEST(BpePreTokenizerTest, Gpt2AfterDigitsKeepsEveryDigitAndTheSpaceBeforeItApart) {
  EXPECT_THAT(
      Pieces(Pattern::kGpt2Digits, "ab 123 x1y  4\xd9\xa3 'll"),
      ElementsAre("ab", " ", "1", "2", "3", " x", "1", "y", "  ", "4", "\xd9\xa3", " '", "ll"));
  EXPECT_THAT(Pieces(Pattern::kGpt2, "ab 123 x1y  4"),
              ElementsAre("ab", " 123", " x", "1", "y", " ", " 4"));
  const std::vector<std::string> chain = {R"(\p{N})", std::string(PatternRegex(Pattern::kGpt2))};
  EXPECT_EQ(KnownChain(chain), Pattern::kGpt2Digits);
}

TEST(BpePreTokenizerTest, DeepSeekV3DigitsCjkRunsAndSegments) {
  // Digits in threes, cut off first: the text between is split on its own, so the spaces before
  // a digit end their segment and stay whole.
  EXPECT_THAT(Pieces(Pattern::kDeepSeekV3, "abc1234567 x  42"),
              ElementsAre("abc", "123", "456", "7", " x", "  ", "42"));
  // Runs of [一-龥぀-ゟ゠-ヿ] are cut off next: the space before one is not its prefix; the
  // full-width comma is not in the set, so it is split with the text around it.
  EXPECT_THAT(
      Pieces(Pattern::kDeepSeekV3, "\xe4\xb8\xad\xe6\x96\x87 \xe4\xb8\xad\xef\xbc\x8c\xe6\x96\x87"),
      ElementsAre("\xe4\xb8\xad\xe6\x96\x87", " ", "\xe4\xb8\xad", "\xef\xbc\x8c", "\xe6\x96\x87"));
  // An ASCII punctuation character takes the ASCII letters after it; other punctuation and
  // symbols run together with a space before them and the newlines after them.
  EXPECT_THAT(Pieces(Pattern::kDeepSeekV3, "don't f(a) (b x.\xc3\xa9 !!\n\ny $5"),
              ElementsAre("don", "'t", " f", "(a", ")", " (", "b", " x", ".", "\xc3\xa9", " !!\n\n",
                          "y", " $", "5"));
  // Characters no alternative matches (a control, a zero width space) are kept between the
  // matches as one piece, unless letters follow them.
  EXPECT_THAT(Pieces(Pattern::kDeepSeekV3, "a\x01\xe2\x80\x8b.b \x01x"),
              ElementsAre("a", "\x01\xe2\x80\x8b", ".b", " ", "\x01x"));
}

TEST(BpePreTokenizerTest, ScannersMatchPcre2OnHandPickedCases) {
  const char* cases[] = {
      "",
      " ",
      "   ",
      "'",
      "''s",
      "'S'T'RE'vE'Ll'D",
      "\xc5\xbf's",
      "a  \t\n \r\n b",
      "\n",
      " \n ",
      "x\xcc\x81y \xcc\x81\xcc\x81 !\xcc\x81 A\xcc\x81"
      "B",
      "ABC'S abc'd Ab'LL",
      "\xe3\x80\x80\xe3\x80\x80\xe5\x85\xa8\xe8\xa7\x92",
      "1\xd9\xa3"
      "2\xe2\x85\xa7"
      "3",
      "\xef\xbc\x91\xef\xbc\x92\xef\xbc\x93\xef\xbc\x94",
      "http://a.b/c?d=1&e=2 // C++ /usr/bin/",
      "\xf0\x9f\x98\x80\xf0\x9f\x91\x8d\xf0\x9f\x8f\xbd "
      "\xf0\x9f\x91\xa8\xe2\x80\x8d\xf0\x9f\x91\xa9",
      "x\xc2\x85y\xe2\x80\xa8z\xe2\x80\xa9",
      "\xe1\xa0\x8e\xe1\xa0\x8e"
      "a",
      "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd",
  };
  for (const char* c : cases) {
    for (Pattern p : kPatterns) {
      EXPECT_EQ(Pieces(p, c), ReferencePieces(p, c)) << PatternName(p) << ": " << c;
    }
  }
}

// Runs of ASCII letters are skipped 16 bytes at a time: every run length around the block size
// (mixed case, lower case, capitalized), after each prefix the patterns treat apart, ended by
// the bytes beside the letters' ranges ('@' '[' '`' '{'), by letters and non-letters outside
// ASCII, or by the end of the text.
TEST(BpePreTokenizerTest, ScannersMatchPcre2OnLetterRunsOfEveryLength) {
  const char* ends[] = {"", " ", "@", "[", "`", "{", "0", "'s",
                        // é, 中, an em dash, a combining acute, long s
                        "\xc3\xa9x", "\xe4\xb8\xadx", "\xe2\x80\x94", "\xcc\x81", "\xc5\xbf"};
  const char* starts[] = {"", " ", "!", "\xe4\xb8\xad", "\xc3\xa9"};
  for (size_t length = 0; length <= 40; ++length) {
    // Mixed case, lower case (o200k's second class), and capitalized.
    std::string mixed, lower, capitalized;
    for (size_t k = 0; k < length; ++k) {
      mixed += "aZqMzA"[k % 6];
      lower += "azqmyb"[k % 6];
      capitalized += k == 0 ? 'Q' : "azqmyb"[k % 6];
    }
    for (const std::string& letters : {mixed, lower, capitalized}) {
      for (const char* start : starts) {
        for (const char* end : ends) {
          const std::string text = std::string(start) + letters + end + " " + letters;
          for (Pattern p : kPatterns) {
            EXPECT_EQ(Pieces(p, text), ReferencePieces(p, text)) << PatternName(p) << ": " << text;
          }
        }
      }
    }
  }
}

TEST(BpePreTokenizerTest, ScannersMatchPcre2OnRepoGoldenInputs) {
  for (const char* file : {"data/golden/edge-cases.txt", "data/golden/edge-cases-more.txt",
                           "data/golden/part-00.head2000.txt"}) {
    auto text = bpe_test::ReadFile(bpe_test::RepoPath(file));
    ASSERT_TRUE(text.has_value()) << file;
    const size_t lines = bpe_test::SplitLines(*text).size();
    for (Pattern p : kPatterns) EXPECT_EQ(ExpectScannerMatchesReference(p, *text, file), lines);
  }
}

TEST(BpePreTokenizerTest, ScannersMatchPcre2OnSharedGoldenInput) {
  // The 20000 lines of the shared golden files (the repo has their first 2000).
  auto text = bpe_test::ReadFile(bpe_test::SharedPath("corpus/part-00.txt"));
  if (!text.has_value()) GTEST_SKIP() << "../shared/data/corpus/part-00.txt is absent";
  std::string_view head = *text;
  size_t pos = 0;
  for (int line = 0; line < 20000 && pos != std::string_view::npos; ++line) {
    pos = head.find('\n', pos);
    if (pos != std::string_view::npos) ++pos;
  }
  if (pos != std::string_view::npos) head = head.substr(0, pos);
  for (Pattern p : kPatterns) {
    EXPECT_EQ(ExpectScannerMatchesReference(p, head, "part-00.txt"), 20000u);
  }
}

TEST(BpePreTokenizerTest, PiecesCoverInvalidUtf8WithoutCrashing) {
  const std::string bad = "ab\xff\xfe \xe4\xb8 x\xf0\x9f\x98 '\xc5 1\x80\x80 \xed\xa0\x80";
  for (Pattern p : kPatterns) {
    std::string joined;
    for (const auto& piece : Pieces(p, bad)) {
      EXPECT_FALSE(piece.empty());
      joined += piece;
    }
    EXPECT_EQ(joined, bad);
  }
  std::vector<std::string_view> pieces;
  ReferenceSplit(Pattern::kGpt2, bad, &pieces);
  EXPECT_THAT(pieces, ElementsAre(bad));
}

TEST(BpePreTokenizerTest, KnownPatternSpellings) {
  EXPECT_EQ(KnownPattern(PatternRegex(Pattern::kO200k)), Pattern::kO200k);
  // Qwen2/2.5/3's Split regex, as their tokenizer.json spells it.
  EXPECT_EQ(
      KnownPattern(
          R"((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)"),
      Pattern::kQwen2);
  EXPECT_EQ(
      KnownPattern(R"('(?:[sdmt]|ll|ve|re)| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+)"),
      Pattern::kGpt2);
  EXPECT_EQ(
      KnownPattern(
          R"('(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]++[\r\n]*|\s*[\r\n]|\s+(?!\S)|\s+)"),
      Pattern::kCl100k);
  EXPECT_EQ(KnownPattern(R"(\p{N}|\s+)"), std::nullopt);
  // DeepSeek-V3's three Split regexes, as its tokenizer.json spells them (the third with CR and
  // LF characters in it), are one scanner; any other chain is not.
  const std::vector<std::string> deepseek = {
      R"(\p{N}{1,3})",
      "[\xE4\xB8\x80-\xE9\xBE\xA5\xE3\x81\x80-\xE3\x82\x9F\xE3\x82\xA0-\xE3\x83\xBF]+",
      "[!\"#$%&'()*+,\\-./"
      ":;<=>?@\\[\\\\\\]^_`{|}~][A-Za-z]+|[^\r\n\\p{L}\\p{P}\\p{S}]?[\\p{L}\\p{M}]+| "
      "?[\\p{P}\\p{S}]+[\r\n]*|\\s*[\r\n]+|\\s+(?!\\S)|\\s+"};
  EXPECT_EQ(KnownChain(deepseek), Pattern::kDeepSeekV3);
  EXPECT_EQ(KnownChain(std::span(deepseek).first(2)), std::nullopt);
  std::vector<std::string> escaped = deepseek;
  escaped[2] =
      R"([!"#$%&'()*+,\-./:;<=>?@\[\\\]^_`{|}~][A-Za-z]+|[^\r\n\p{L}\p{P}\p{S}]?[\p{L}\p{M}]+| ?[\p{P}\p{S}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)";
  EXPECT_EQ(KnownChain(escaped), std::nullopt);  // \r written as an escape: not the same string
  EXPECT_EQ(PatternRegexes(Pattern::kDeepSeekV3).size(), 3u);
  EXPECT_EQ(PatternRegexes(Pattern::kDeepSeekV3)[2], deepseek[2]);
  EXPECT_EQ(PreTokenizer::ForRegex(PatternRegex(Pattern::kCl100k)).value().name(), "cl100k_base");
  EXPECT_EQ(PreTokenizer::ForRegex(PatternRegex(Pattern::kCl100k), true).value().name(), "regex");
}

TEST(BpePreTokenizerTest, ExpandClassesRewritesOnlyItsClasses) {
  const std::string expanded = ExpandClasses(R"(\p{L}+|[^\s\p{N}]|\d|\S|\P{Lu}|\pN|x\[)");
  EXPECT_EQ(expanded.find("\\p"), std::string::npos);
  EXPECT_THAT(expanded, HasSubstr("\\d"));                     // not ours: unchanged
  EXPECT_THAT(expanded, HasSubstr("x\\["));                    // escapes stay escaped
  EXPECT_THAT(expanded, HasSubstr("[\\x{41}-\\x{5A}"));        // \p{L} starts with A-Z
  EXPECT_THAT(expanded, HasSubstr("[^\\x{9}-\\x{D}\\x{20}"));  // [^\s...] stays one class
  // \S outside a class becomes the complement of White_Space.
  EXPECT_THAT(expanded, HasSubstr("[\\x{0}-\\x{8}\\x{E}-\\x{1F}"));
}

TEST(BpePreTokenizerTest, ExpandClassesRewritesPunctuationAndSymbols) {
  const std::string expanded = ExpandClasses(R"([^\r\n\p{L}\p{P}\p{S}]|\p{P}+|\P{S}|\p{^P})");
  EXPECT_EQ(expanded.find("\\p"), std::string::npos);
  EXPECT_EQ(expanded.find("\\P"), std::string::npos);
  EXPECT_THAT(expanded, HasSubstr("[\\x{21}-\\x{23}\\x{25}"));  // \p{P}: ! " # then % (not $)
  // PCRE2 with the expansion and the table agree on a character new in Unicode 15 (U+11F43
  // KAWI DANDA, Po), which PCRE2's own Unicode 14 tables do not have.
  auto splitter = RegexSplitter::Compile(R"(\p{P}+)");
  ASSERT_TRUE(splitter.ok());
  std::vector<std::pair<size_t, size_t>> spans;
  (*splitter)->Matches(
      "a\xf0\x91\xbd\x83"
      "b",
      &spans);
  EXPECT_THAT(spans, ElementsAre(std::pair<size_t, size_t>{1, 5}));
}

TEST(BpePreTokenizerTest, RegexSplitterKeepsGapsAndSkipsEmptyMatches) {
  auto splitter = RegexSplitter::Compile("a+|b*");
  ASSERT_TRUE(splitter.ok()) << splitter.status().ToString();
  std::vector<std::string_view> pieces;
  (*splitter)->Split(
      "xaay\xc3\xa9"
      "bbz",
      &pieces);
  EXPECT_THAT(pieces, ElementsAre("x", "aa", "y\xc3\xa9", "bb", "z"));
  // Without the gaps: the matches only.
  pieces.clear();
  (*splitter)->Split("xaayaz", &pieces, /*keep_gaps=*/false);
  EXPECT_THAT(pieces, ElementsAre("aa", "a"));
  pieces.clear();
  auto matches_only = PreTokenizer::ForRegex("a+", /*force_regex=*/false, /*keep_gaps=*/false);
  ASSERT_TRUE(matches_only.ok());
  matches_only->Split("xaayaz", &pieces);
  EXPECT_THAT(pieces, ElementsAre("aa", "a"));
  // A scanner's pattern matches every character: without the gaps it is the same scanner.
  EXPECT_EQ(PreTokenizer::ForRegex(PatternRegex(Pattern::kCl100k), false, false).value().name(),
            "cl100k_base");
}

TEST(BpePreTokenizerTest, BadRegexIsAClearError) {
  auto splitter = RegexSplitter::Compile("(unclosed");
  ASSERT_FALSE(splitter.ok());
  EXPECT_THAT(splitter.status().message(), HasSubstr("(unclosed"));
  EXPECT_THAT(splitter.status().message(), HasSubstr("does not compile"));
}

// Plain ASCII is cut 64 bytes at a time from masks of its classes, the rest by the scanners:
// random texts of runs of each class (long enough to cross blocks), the bytes the masks leave to
// the scanners among them (apostrophes, whitespace other than a single space, controls, letters
// and marks outside ASCII), at every length around the block size. Split and Visit must both give
// PCRE2's pieces.
TEST(BpePreTokenizerTest, ScannersMatchPcre2OnRandomPlainAsciiAcrossBlocks) {
  const std::vector<std::string> plain = {"a", "b", "z", "A", "Q", "Z", "0", "7", "9", " ",
                                          ",", ".", "/", "-", "@", "[", "`", "{", "~", "!"};
  const std::vector<std::string> rare = {
      "'",    "'s",   "'LL",  "  ",       "   ",          "\n",       "\r\n",     "\t",
      "\x0b", "\x1f", "\x7f", "\xc3\xa9", "\xe4\xb8\xad", "\xc5\xbf", "\xcc\x81", "\xef\xbc\x8c"};
  std::mt19937 rng(20261205);
  std::vector<std::string_view> visited;
  for (int round = 0; round < 3000; ++round) {
    std::string text;
    const size_t length = rng() % 200;
    const unsigned rare_per_1000 = round % 3 == 0 ? 0 : (round % 3 == 1 ? 20 : 150);
    while (text.size() < length) {
      if (rng() % 1000 < rare_per_1000) {
        text += rare[rng() % rare.size()];
      } else {
        // Runs of one class member: letters mostly short, sometimes past a block.
        const std::string& c = plain[rng() % plain.size()];
        const size_t run = rng() % 8 == 0 ? rng() % 80 : rng() % 4 + 1;
        for (size_t k = 0; k < run; ++k) text += rng() % 4 == 0 ? plain[rng() % 6] : c;
      }
    }
    for (Pattern p : kPatterns) {
      const std::vector<std::string> want = ReferencePieces(p, text);
      ASSERT_EQ(Pieces(p, text), want) << PatternName(p) << ": " << text;
      visited.clear();
      PreTokenizer::ForPattern(p).Visit(text, [&](std::string_view v) { visited.push_back(v); });
      ASSERT_EQ(std::vector<std::string>(visited.begin(), visited.end()), want)
          << PatternName(p) << " (Visit): " << text;
    }
  }
}

// Random texts from characters of every class the patterns tell apart (and some they do not
// know: unassigned, private use, format characters), in and beside DeepSeek-V3's CJK set.
TEST(BpePreTokenizerTest, ScannersMatchPcre2OnRandomMixedText) {
  const std::vector<std::string> chars = {
      "a",
      "Z",
      "q",
      "0",
      "7",
      " ",
      " ",
      "  ",
      "\n",
      "\r",
      "\t",
      "'",
      "'s",
      "'LL",
      "!",
      "(",
      "$",
      "-",
      ".",
      "/",
      "\x01",
      "\x7f",
      "\xc3\xa9",          // é
      "\xcc\x81",          // combining acute (Mn)
      "\xc7\x85",          // ǅ (Lt)
      "\xc5\xbf",          // long s
      "\xc2\xa0",          // no-break space
      "\xc2\x85",          // next line (a space)
      "\xc2\xab",          // « (Pi)
      "\xd9\xa3",          // Arabic-Indic three (Nd)
      "\xe4\xb8\xad",      // 中
      "\xe9\xbe\xa5",      // 龥, the end of DeepSeek-V3's Han range
      "\xe9\xbe\xa6",      // 龦, just past it (a letter all the same)
      "\xe3\x81\x82",      // あ
      "\xe3\x81\x80",      // U+3040, unassigned, in DeepSeek-V3's set
      "\xe3\x82\x99",      // combining voiced mark (Mn), in the set
      "\xe3\x82\x9b",      // ゛ (Sk), in the set
      "\xe3\x82\xa0",      // ゠ (Pd), in the set
      "\xe3\x83\xbb",      // ・ (Po), in the set
      "\xe3\x83\xbc",      // ー (Lm), in the set
      "\xe3\x80\x87",      // 〇 (Nl)
      "\xe3\x80\x82",      // 。 (Po)
      "\xe3\x80\x80",      // ideographic space
      "\xef\xbc\x8c",      // full-width comma
      "\xef\xbc\x91",      // full-width one (Nd)
      "\xe2\x85\xa7",      // Ⅷ (Nl)
      "\xe2\x82\xac",      // € (Sc)
      "\xe2\x80\x8b",      // zero width space (Cf)
      "\xe2\x80\x8d",      // zero width joiner (Cf)
      "\xe2\x80\xa8",      // line separator
      "\xed\x95\x9c",      // 한
      "\xee\x80\x80",      // private use
      "\xef\xbf\xbd",      // replacement character (So)
      "\xf0\x9f\x98\x80",  // 😀 (So)
      "\xf0\x9d\x9f\x8e",  // mathematical bold zero (Nd)
  };
  std::mt19937 rng(20261207);
  for (int round = 0; round < 6000; ++round) {
    std::string text;
    const size_t length = rng() % 40;
    for (size_t k = 0; k < length; ++k) {
      // Runs of one character now and then: digit runs past three, long CJK runs.
      const std::string& c = chars[rng() % chars.size()];
      const size_t run = rng() % 6 == 0 ? rng() % 7 + 1 : 1;
      for (size_t r = 0; r < run; ++r) text += c;
    }
    for (Pattern p : kPatterns) {
      ASSERT_EQ(Pieces(p, text), ReferencePieces(p, text)) << PatternName(p) << ": " << text;
    }
  }
}

TEST(BpePreTokenizerTest, WholeTextIsOnePiece) {
  std::vector<std::string_view> pieces;
  PreTokenizer::WholeText().Split("a b  c", &pieces);
  EXPECT_THAT(pieces, ElementsAre("a b  c"));
  pieces.clear();
  PreTokenizer::WholeText().Split("", &pieces);
  EXPECT_TRUE(pieces.empty());
}

}  // namespace
}  // namespace tokenmill::bpe
