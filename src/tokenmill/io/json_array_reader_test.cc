// The "json" format: one JSON array of objects, streamed element by element.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tokenmill/io/readers.h"
#include "tokenmill/io/string_stream.h"
#include "tokenmill/io/test_util.h"

namespace tokenmill {
namespace {

using ::testing::HasSubstr;
using testing::ReadAll;

ReaderOptions JsonOptions(std::string field = "text") {
  ReaderOptions o;
  o.format = InputFormat::kJson;
  o.text_field = std::move(field);
  return o;
}

StatusOr<std::unique_ptr<DocumentReader>> OpenJson(std::string data, const ReaderOptions& o,
                                                   size_t chunk = SIZE_MAX,
                                                   Compression c = Compression::kNone) {
  return OpenDocumentReaderOnStream(std::make_unique<StringReadStream>(std::move(data), chunk),
                                    "/d/wudao.json", 0, c, o);
}

std::vector<std::string> Texts(const std::string& data, const ReaderOptions& o,
                               size_t chunk = SIZE_MAX) {
  auto reader = OpenJson(data, o, chunk);
  EXPECT_TRUE(reader.ok()) << reader.status().ToString();
  auto docs = ReadAll(**reader);
  EXPECT_TRUE(docs.ok()) << docs.status().ToString();
  std::vector<std::string> out;
  if (docs.ok()) {
    for (const auto& d : *docs) out.push_back(d.text);
  }
  return out;
}

Status ErrorOf(const std::string& data, const ReaderOptions& o) {
  auto reader = OpenJson(data, o);
  if (!reader.ok()) return reader.status();
  return ReadAll(**reader).status();
}

TEST(JsonArrayReader, ReadsElementsInOrderWhateverTheReadSize) {
  const std::string data =
      "\xEF\xBB\xBF [\n {\"title\": \"t]\", \"content\": \"第一篇 [with] {braces}, "
      "\\\"quotes\\\"\"},"
      "{\"content\": \"second\\nline\", \"nested\": {\"a\": [1, {\"b\": \"]\"}]}}\n,\n"
      "{\"content\": \"\"},  {\"content\": \"third\"} ]\n";
  const std::vector<std::string> want = {"第一篇 [with] {braces}, \"quotes\"", "second\nline",
                                         "third"};
  for (size_t chunk : {size_t{1}, size_t{3}, size_t{7}, SIZE_MAX}) {
    EXPECT_EQ(Texts(data, JsonOptions("content"), chunk), want) << chunk;
  }
  auto reader = OpenJson(data, JsonOptions("content"));
  ASSERT_TRUE(reader.ok());
  ASSERT_TRUE(ReadAll(**reader).ok());
  EXPECT_EQ((*reader)->stats().empty_documents, 1u);
  EXPECT_EQ((*reader)->stats().documents, 3u);
  EXPECT_EQ((*reader)->stats().lines, 4u);
}

TEST(JsonArrayReader, EmptyArrayAndDottedField) {
  EXPECT_TRUE(Texts("[]", JsonOptions()).empty());
  EXPECT_TRUE(Texts("  [ \n ]  ", JsonOptions()).empty());
  EXPECT_EQ(Texts("[{\"m\": {\"t\": \"x\"}}]", JsonOptions("m.t")), std::vector<std::string>{"x"});
}

TEST(JsonArrayReader, GzipInput) {
  const std::string data = testing::Gzip("[{\"text\": \"a\"}, {\"text\": \"b\"}]");
  auto reader = OpenJson(data, JsonOptions(), SIZE_MAX, Compression::kGzip);
  ASSERT_TRUE(reader.ok());
  auto docs = ReadAll(**reader);
  ASSERT_TRUE(docs.ok());
  ASSERT_EQ(docs->size(), 2u);
  EXPECT_EQ((*docs)[1].text, "b");
}

TEST(JsonArrayReader, BadInputIsAnErrorNamingFileAndPlace) {
  const ReaderOptions o = JsonOptions();
  EXPECT_THAT(ErrorOf("", o).message(), HasSubstr("/d/wudao.json: the file is empty"));
  EXPECT_THAT(ErrorOf("{\"text\": \"jsonl\"}\n", o).message(),
              HasSubstr("must be one JSON array of objects"));
  EXPECT_THAT(ErrorOf("[{\"text\": \"a\"}", o).message(), HasSubstr("truncated"));
  EXPECT_THAT(ErrorOf("[{\"text\": \"a", o).message(), HasSubstr("ends inside array element 1"));
  EXPECT_THAT(ErrorOf("[{\"text\": \"a\"} {\"text\": \"b\"}]", o).message(),
              HasSubstr("expected ',' or ']'"));
  EXPECT_THAT(ErrorOf("[{\"text\": \"a\"}] []", o).message(),
              HasSubstr("data after the end of the JSON array"));
  EXPECT_THAT(ErrorOf("[{\"text\": \"a\"},]", o).message(), HasSubstr("an empty array element"));
  const Status missing = ErrorOf("[{\"text\": \"a\"}, {\"body\": \"b\"}]", o);
  EXPECT_THAT(missing.message(), HasSubstr("/d/wudao.json byte 16 (array element 2)"));
  EXPECT_THAT(missing.message(), HasSubstr("no field \"text\""));
}

TEST(JsonArrayReader, SkipBadRecordsSkipsAndCounts) {
  ReaderOptions o = JsonOptions();
  o.skip_bad_records = true;
  o.max_document_bytes = 40;
  const std::string data = "[{\"text\": 5}, {\"text\": \"ok\"}, [1], {\"text\": \"" +
                           std::string(60, 'x') +
                           "\"}, {\"text\": \"also ok\"}, {\"text\": \"bad]\\x\"}]";
  auto reader = OpenJson(data, o);
  ASSERT_TRUE(reader.ok());
  auto docs = ReadAll(**reader);
  ASSERT_TRUE(docs.ok()) << docs.status().ToString();
  ASSERT_EQ(docs->size(), 2u);
  EXPECT_EQ((*docs)[0].text, "ok");
  EXPECT_EQ((*docs)[1].text, "also ok");
  EXPECT_EQ((*reader)->stats().skipped_records, 4u);
}

TEST(JsonArrayReader, MemoryIsBoundedByTheElementNotTheFile) {
  // Many elements, each short: max_document_bytes far below the file size.
  std::string data = "[";
  for (int i = 0; i < 20000; ++i) {
    if (i > 0) data += ",\n";
    data += "{\"text\": \"document " + std::to_string(i) + "\"}";
  }
  data += "]";
  ReaderOptions o = JsonOptions();
  o.max_document_bytes = 64;
  auto texts = Texts(data, o, 4096);
  ASSERT_EQ(texts.size(), 20000u);
  EXPECT_EQ(texts.back(), "document 19999");
}

}  // namespace
}  // namespace tokenmill
