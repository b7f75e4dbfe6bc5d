#include "tokenmill/tokenizer/pre_tokenizers/unicode_scripts.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace tokenmill::hf {
namespace {

using V = std::vector<std::string>;

V Cut(std::string text) {
  std::vector<Piece> pieces{{std::move(text), true}};
  UnicodeScriptsPreTokenizer().PreTokenize(&pieces);
  V out;
  for (const Piece& p : pieces) out.push_back(p.text);
  return out;
}

// The examples of HF's pre_tokenizers/unicode_scripts tests.
TEST(UnicodeScriptsTest, HfExamples) {
  EXPECT_EQ(Cut("どこで生れ。Yes"), (V{"どこで生れ", "。", "Yes"}));
  EXPECT_EQ(Cut("Apples are りんご 林檎"), (V{"Apples are ", "りんご 林檎"}));
}

TEST(UnicodeScriptsTest, SpacesStayWithTheScriptBeforeThemAndLeadingOnesAreDropped) {
  EXPECT_EQ(Cut("  hello 你好"), (V{"hello ", "你好"}));
  EXPECT_EQ(Cut("   "), V{});  // no character with a script: nothing left
  EXPECT_EQ(Cut(""), V{});
  EXPECT_EQ(Cut("abc"), V{"abc"});
}

TEST(UnicodeScriptsTest, DigitsAndPunctuationAreCommonNotAny) {
  EXPECT_EQ(Cut("abc123,def"), (V{"abc", "123,", "def"}));
  EXPECT_EQ(Cut("ПриветWorld"), (V{"Привет", "World"}));
}

TEST(UnicodeScriptsTest, KanaAndTheProlongedSoundMarkAreHan) {
  EXPECT_EQ(ScriptClass(U'ー'), ScriptClass(U'中'));
  EXPECT_EQ(ScriptClass(U'グ'), ScriptClass(U'中'));
  EXPECT_EQ(ScriptClass(U'ひ'), ScriptClass(U'中'));
  EXPECT_EQ(Cut("カタカナとひらがなと漢字"), V{"カタカナとひらがなと漢字"});
}

// HF's table is Unicode 9.0: a character assigned later has no script and never cuts, and the few
// characters whose script changed since keep their old one.
TEST(UnicodeScriptsTest, UnicodeNinePointZeroScripts) {
  EXPECT_EQ(ScriptClass(0x20), 0);
  EXPECT_EQ(ScriptClass(0x1C90), 0);   // GEORGIAN MTAVRULI CAPITAL LETTER AN (Unicode 11.0)
  EXPECT_EQ(ScriptClass(0x11A00), 0);  // ZANABAZAR SQUARE LETTER A (Unicode 10.0)
  EXPECT_EQ(ScriptClass(0x0589), ScriptClass('.'));     // ARMENIAN FULL STOP: Common in 9.0
  EXPECT_EQ(ScriptClass(0x0953), ScriptClass(0x0915));  // DEVANAGARI GRAVE ACCENT: Devanagari
  EXPECT_EQ(ScriptClass(0xD800), 0);
  EXPECT_EQ(ScriptClass(0x110000), 0);
  EXPECT_EQ(Cut("a\xE1\xB2\x90"
                "b"),
            V{"a\xE1\xB2\x90"
              "b"});
}

TEST(UnicodeScriptsTest, OnlyTheFirstPieceOfAnOriginPieceKeepsTheOrigin) {
  std::vector<Piece> pieces{{"ab中", true}, {" c", true}};
  UnicodeScriptsPreTokenizer().PreTokenize(&pieces);
  ASSERT_EQ(pieces.size(), 3u);
  EXPECT_TRUE(pieces[0].at_origin);
  EXPECT_FALSE(pieces[1].at_origin);
  EXPECT_EQ(pieces[2].text, "c");
  EXPECT_FALSE(pieces[2].at_origin);  // its leading space was dropped
}

}  // namespace
}  // namespace tokenmill::hf
