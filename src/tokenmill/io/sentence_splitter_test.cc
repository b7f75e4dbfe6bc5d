#include "tokenmill/io/sentence_splitter.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tokenmill/io/test_util.h"
#include "tokenmill/storage/storage.h"

namespace tokenmill {
namespace {

std::vector<std::string> Split(std::string_view text) {
  auto splitter = SentenceSplitter::Create();
  EXPECT_TRUE(splitter.ok()) << splitter.status().ToString();
  std::vector<std::string_view> views;
  (*splitter)->Split(text, &views);
  return std::vector<std::string>(views.begin(), views.end());
}

using V = std::vector<std::string>;

// The table of hard cases of docs/input-formats.md ("Sentences"), in the same order.
struct Case {
  const char* text;
  V want;
};
const Case kHardCases[] = {
    {"Mr. Smith went to Washington. He arrived at 3.14 p.m. on Monday.",
     {"Mr. Smith went to Washington.", "He arrived at 3.14 p.m. on Monday."}},
    // ICU 72's English suppressions know "Mrs.", "Prof.", "Ph.D.", "Jan.", "Etc." but not "Dr.".
    {"Mrs. Jones met Prof. Lee. Dr. Watson, Ph.D. student.",
     {"Mrs. Jones met Prof. Lee.", "Dr.", "Watson, Ph.D. student."}},
    {"It ended. e.g. this is fine. Next one.", {"It ended. e.g. this is fine.", "Next one."}},
    {"The U.S. economy grew 2.5% in 2019. Analysts were surprised.",
     {"The U.S. economy grew 2.5% in 2019.", "Analysts were surprised."}},
    {"Hello!! What?! Really...", {"Hello!!", "What?!", "Really..."}},
    {"See www.example.com. It works.", {"See www.example.com.", "It works."}},
    {"Go to https://example.com/a?b=1&c=2.html now! Then stop.",
     {"Go to https://example.com/a?b=1&c=2.html now!", "Then stop."}},
    {"今天天气很好。我们去公园吧！你去吗？", {"今天天气很好。", "我们去公园吧！", "你去吗？"}},
    {"他说：“你好。”然后走了。", {"他说：“你好。”", "然后走了。"}},
    {"「你知道吗？」她问。", {"「你知道吗？」", "她问。"}},
    {"（注：这是备注。）下一句。", {"（注：这是备注。）", "下一句。"}},
    {"第一，要努力；第二，要坚持。", {"第一，要努力；", "第二，要坚持。"}},
    {"他沉默了……过了很久才开口。", {"他沉默了……", "过了很久才开口。"}},
    {"他说：“算了吧……”转身离开。", {"他说：“算了吧……”", "转身离开。"}},
    {"价格是3.5元，约合0.5美元。访问https://example.com/a?b=1。",
     {"价格是3.5元，约合0.5美元。", "访问https://example.com/a?b=1。"}},
    {"结尾没有标点", {"结尾没有标点"}},
    {"  \t ", {}},
};

TEST(SentenceSplitter, HardCases) {
  for (const Case& c : kHardCases) {
    EXPECT_EQ(Split(c.text), c.want) << c.text;
  }
}

TEST(SentenceSplitter, ViewsPointIntoTheParagraph) {
  const std::string text = "One. Two.";
  auto splitter = SentenceSplitter::Create();
  ASSERT_TRUE(splitter.ok());
  std::vector<std::string_view> out;
  (*splitter)->Split(text, &out);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].data(), text.data());
  EXPECT_EQ(out[1].data(), text.data() + 5);
  // The splitter is reusable.
  out.clear();
  (*splitter)->Split("Three.", &out);
  EXPECT_EQ(out, (std::vector<std::string_view>{"Three."}));
}

TEST(SentenceSplittingReader, CutsEachLineOfTextAndJsonlDocuments) {
  testing::TempDir dir;
  auto storage = StorageFor("/");
  ASSERT_TRUE(storage.ok());
  ReaderOptions options;
  options.split_sentences = true;
  const std::string text =
      dir.Write("a.txt", "One. Two!\n今天很好。明天呢？\n\n \u3000\nThree\n\nFour. Five.\n");
  auto reader = OpenDocumentReader(**storage, InputRange{text}, options);
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  auto docs = testing::ReadAll(**reader);
  ASSERT_TRUE(docs.ok());
  ASSERT_EQ(docs->size(), 3u);
  EXPECT_EQ((*docs)[0].text, "One.\nTwo!\n今天很好。\n明天呢？");
  EXPECT_EQ((*docs)[1].text, "Three");
  EXPECT_EQ((*docs)[2].text, "Four.\nFive.");
  EXPECT_EQ((*docs)[2].line_number, 7u);

  options.format = InputFormat::kJsonl;
  const std::string jsonl =
      dir.Write("a.jsonl", "{\"text\": \"A. B.\\n\\nC; d. E\"}\n{\"text\": \" \"}\n");
  auto jr = OpenDocumentReader(**storage, InputRange{jsonl}, options);
  ASSERT_TRUE(jr.ok());
  auto jdocs = testing::ReadAll(**jr);
  ASSERT_TRUE(jdocs.ok()) << jdocs.status().ToString();
  // Lines without a sentence (the blank line inside the text) go: a record stays one document;
  // a document whose lines hold no sentence is skipped.
  ASSERT_EQ(jdocs->size(), 1u);
  EXPECT_EQ((*jdocs)[0].text, "A.\nB.\nC; d.\nE");
}

}  // namespace
}  // namespace tokenmill
