// Tests of the "jsonl" format reader, fed from memory (document_reader_test.cc reads real files).

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tokenmill/io/json_record.h"
#include "tokenmill/io/readers.h"
#include "tokenmill/io/string_stream.h"
#include "tokenmill/io/test_util.h"

namespace tokenmill {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing::ReadAll;

ReaderOptions Jsonl() {
  ReaderOptions o;
  o.format = InputFormat::kJsonl;
  return o;
}

std::unique_ptr<DocumentReader> Open(std::string data, ReaderOptions options = Jsonl(),
                                     Compression c = Compression::kNone, uint64_t begin = 0) {
  auto r = OpenDocumentReaderOnStream(std::make_unique<StringReadStream>(std::move(data), 5),
                                      "/in.jsonl", begin, c, options);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return std::move(r).value();
}

std::vector<std::string> Texts(std::string data, ReaderOptions options = Jsonl()) {
  auto reader = Open(std::move(data), options);
  auto docs = ReadAll(*reader);
  EXPECT_TRUE(docs.ok()) << docs.status().ToString();
  std::vector<std::string> out;
  if (docs.ok()) {
    for (const Document& d : *docs) out.push_back(d.text);
  }
  return out;
}

Status FirstError(std::string data, ReaderOptions options = Jsonl()) {
  auto reader = Open(std::move(data), options);
  auto docs = ReadAll(*reader);
  return docs.ok() ? Status::Ok() : docs.status();
}

TEST(JsonlReaderTest, ReadsTheTextFieldOfEachLine) {
  auto reader = Open(
      "{\"id\": 1, \"text\": \"first\\nline two\"}\n"
      "{\"text\": \"\\u4e2d\\u6587 \xE4\xB8\xAD\", \"extra\": [1, {\"a\": null}]}\n"
      "  {\"text\":\"crlf\"}  \r\n"
      "{\"text\":\"last, no newline\"}");
  auto docs = ReadAll(*reader);
  ASSERT_TRUE(docs.ok()) << docs.status().ToString();
  ASSERT_EQ(docs->size(), 4u);
  EXPECT_EQ((*docs)[0].text, "first\nline two");
  EXPECT_EQ((*docs)[0].line_number, 1u);
  EXPECT_EQ((*docs)[0].offset, 0u);
  EXPECT_EQ((*docs)[1].text, "\xE4\xB8\xAD\xE6\x96\x87 \xE4\xB8\xAD");
  EXPECT_EQ((*docs)[1].line_number, 2u);
  EXPECT_EQ((*docs)[1].offset, 37u);
  EXPECT_EQ((*docs)[2].text, "crlf");
  EXPECT_EQ((*docs)[3].text, "last, no newline");
  EXPECT_EQ(reader->stats().documents, 4u);
  EXPECT_EQ(reader->stats().lines, 4u);
}

TEST(JsonlReaderTest, DottedFieldPaths) {
  ReaderOptions o = Jsonl();
  o.text_field = "meta.body.text";
  EXPECT_THAT(Texts("{\"meta\": {\"x\": 1, \"body\": {\"text\": \"deep\"}}}\n", o),
              ElementsAre("deep"));
  o.text_field = "content";
  EXPECT_THAT(Texts("{\"content\": \"c\", \"text\": \"t\"}\n", o), ElementsAre("c"));

  o.text_field = "meta.body.text";
  Status s = FirstError("{\"meta\": {\"body\": 3}}\n", o);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("/in.jsonl:1 (byte 0)"));
  EXPECT_THAT(s.message(), HasSubstr("field \"meta.body\" is a number, not an object"));
  s = FirstError("{\"meta\": {}}\n", o);
  EXPECT_THAT(s.message(), HasSubstr("no field \"meta.body\""));
}

TEST(JsonlReaderTest, InvalidFieldPathIsRejectedAtOpen) {
  for (const char* bad : {"", ".", "a..b", ".a", "a."}) {
    ReaderOptions o = Jsonl();
    o.text_field = bad;
    auto r = OpenDocumentReaderOnStream(std::make_unique<StringReadStream>(""), "/in.jsonl", 0,
                                        Compression::kNone, o);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
    EXPECT_THAT(r.status().message(), HasSubstr("text_field"));
  }
}

TEST(JsonlReaderTest, BadRecordsNameFileAndLine) {
  const std::string good = "{\"text\": \"ok\"}\n";
  struct Case {
    std::string line;
    std::string message;
  };
  const std::vector<Case> cases = {
      {"{\"text\": \"unterminated}", "malformed JSON"},
      {"{\"text\": \"a\"} {\"text\": \"b\"}", "malformed JSON"},
      {"{\"text\": \"a\", \"x\": [1,}", "malformed JSON"},
      {"not json", "malformed JSON"},
      {"[\"text\"]", "the record holds an array, not a JSON object"},
      {"\"text\"", "the record holds a string, not a JSON object"},
      {"{\"id\": 3}", "no field \"text\""},
      {"{\"text\": 42}", "field \"text\" is a number, not a string"},
      {"{\"text\": null}", "field \"text\" is null, not a string"},
      {"{\"text\": [\"a\"]}", "field \"text\" is an array, not a string"},
      {"{\"text\": {\"a\": 1}}", "field \"text\" is an object, not a string"},
  };
  for (const Case& c : cases) {
    const Status s = FirstError(good + "\n" + c.line + "\n" + good);
    ASSERT_FALSE(s.ok()) << c.line;
    EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << c.line;
    EXPECT_THAT(s.message(), HasSubstr("/in.jsonl:3 (byte 16)")) << c.line;
    EXPECT_THAT(s.message(), HasSubstr(c.message)) << c.line;
    EXPECT_THAT(s.message(), HasSubstr("on_bad_record = \"skip\"")) << c.line;

    ReaderOptions skip = Jsonl();
    skip.skip_bad_records = true;
    auto reader = Open(good + c.line + "\n" + good, skip);
    auto docs = ReadAll(*reader);
    ASSERT_TRUE(docs.ok()) << c.line << ": " << docs.status().ToString();
    EXPECT_EQ(docs->size(), 2u);
    EXPECT_EQ(reader->stats().skipped_records, 1u) << c.line;
  }
}

TEST(JsonlReaderTest, EmptyTextsAreSkippedAndCountedBlankLinesSilently) {
  auto reader = Open("\n{\"text\": \"\"}\n   \n\t\r\n{\"text\": \"a\"}\n\n{\"text\": \"\"}");
  auto docs = ReadAll(*reader);
  ASSERT_TRUE(docs.ok()) << docs.status().ToString();
  ASSERT_EQ(docs->size(), 1u);
  EXPECT_EQ((*docs)[0].text, "a");
  EXPECT_EQ((*docs)[0].line_number, 5u);
  EXPECT_EQ(reader->stats().empty_documents, 2u);
  EXPECT_EQ(reader->stats().skipped_records, 0u);
  EXPECT_EQ(reader->stats().lines, 7u);
}

TEST(JsonlReaderTest, LoneSurrogateEscapesBecomeReplacementCharacters) {
  EXPECT_THAT(Texts("{\"text\": \"a\\ud800b\\uDC00c\\ud83d\\ude00\\\\ud800\"}\n"),
              ElementsAre("a\xEF\xBF\xBD"
                          "b\xEF\xBF\xBD"
                          "c\xF0\x9F\x98\x80\\ud800"));
  auto reader = Open("{\"text\": \"\\ud800\\ud800\"}\n");
  auto docs = ReadAll(*reader);
  ASSERT_TRUE(docs.ok());
  EXPECT_EQ((*docs)[0].text, "\xEF\xBF\xBD\xEF\xBF\xBD");
  EXPECT_EQ(reader->stats().invalid_utf8_bytes, 2u);

  ReaderOptions strict = Jsonl();
  strict.strict_utf8 = true;
  const Status s = FirstError("{\"text\": \"ok\"}\n{\"text\": \"\\udfff\"}\n", strict);
  EXPECT_EQ(s.code(), StatusCode::kDataLoss);
  EXPECT_THAT(s.message(), HasSubstr("/in.jsonl:2 (byte 15)"));
  EXPECT_THAT(s.message(), HasSubstr("surrogate"));
  // A broken string escape is still a malformed record.
  EXPECT_THAT(FirstError("{\"text\": \"\\ud800\\x\"}\n").message(), HasSubstr("malformed JSON"));
}

TEST(JsonlReaderTest, InvalidUtf8InTheLineIsHandledBeforeParsing) {
  auto reader = Open(
      "{\"text\": \"a\xFF"
      "b\"}\n");
  auto docs = ReadAll(*reader);
  ASSERT_TRUE(docs.ok()) << docs.status().ToString();
  EXPECT_EQ((*docs)[0].text, "ab");
  EXPECT_EQ(reader->stats().invalid_utf8_bytes, 1u);

  ReaderOptions replace = Jsonl();
  replace.invalid_utf8 = InvalidUtf8::kReplace;
  EXPECT_THAT(Texts("{\"text\": \"a\xFF"
                    "b\"}\n",
                    replace),
              ElementsAre("a\xEF\xBF\xBD"
                          "b"));

  ReaderOptions strict = Jsonl();
  strict.strict_utf8 = true;
  const Status s = FirstError("{\"text\": \"a\xFF\"}\n", strict);
  EXPECT_EQ(s.code(), StatusCode::kDataLoss);
  EXPECT_THAT(s.message(), HasSubstr("/in.jsonl:1 (byte 11)"));
}

TEST(JsonlReaderTest, ByteOrderMarkAndNulCharacters) {
  EXPECT_THAT(Texts("\xEF\xBB\xBF{\"text\": \"bom\"}\n"), ElementsAre("bom"));
  EXPECT_THAT(Texts("{\"text\": \"a\\u0000b\"}\n"), ElementsAre(std::string("a\0b", 3)));
}

TEST(JsonlReaderTest, HugeRecordsAreParsedInPlace) {
  // Past JsonRecordParser::kInPlaceFrom a record is validated and unescaped where it was read:
  // the same text as simdjson gives, the same errors.
  std::string text;
  std::string escaped;
  for (int i = 0; text.size() < (size_t{17} << 20); ++i) {
    text += "line " + std::to_string(i) + " \xE4\xB8\xAD\"\n";
    escaped += "line " + std::to_string(i) + " \\u4e2d\\\"\\n";
  }
  const std::string huge = "{\"id\": [1, {\"a\": null}], \"text\": \"" + escaped + "\"}";
  ASSERT_GE(huge.size(), JsonRecordParser::kInPlaceFrom);
  const auto texts = Texts("{\"text\": \"small\"}\n" + huge + "\n{\"text\": \"after\"}\n");
  ASSERT_EQ(texts.size(), 3u);
  EXPECT_EQ(texts[0], "small");
  EXPECT_TRUE(texts[1] == text);
  EXPECT_EQ(texts[2], "after");

  const Status s = FirstError("{\"text\": \"ok\"}\n" + huge.substr(0, huge.size() - 2) + "}\n");
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("/in.jsonl:2 (byte 15)"));
  EXPECT_THAT(s.message(), HasSubstr("malformed JSON"));
  EXPECT_THAT(FirstError("{\"other\": \"" + escaped + "\"}\n").message(),
              HasSubstr("no field \"text\""));
}

TEST(JsonlReaderTest, GzipAndRanges) {
  auto reader =
      Open(testing::Gzip("{\"text\": \"x\"}\n{\"text\": \"y\"}\n"), Jsonl(), Compression::kGzip);
  auto docs = ReadAll(*reader);
  ASSERT_TRUE(docs.ok());
  ASSERT_EQ(docs->size(), 2u);
  EXPECT_EQ((*docs)[1].text, "y");
  EXPECT_EQ((*docs)[1].offset, 14u);

  auto ranged = Open("{\"text\": \"x\"}\n{\"text\": 1}\n", Jsonl(), Compression::kNone, 700);
  auto r = ReadAll(*ranged);
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(),
              HasSubstr("/in.jsonl byte 714 (line 2 of the range starting at byte 700)"));
}

}  // namespace
}  // namespace tokenmill
