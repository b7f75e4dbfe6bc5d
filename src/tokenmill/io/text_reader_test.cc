// Tests of the "text" format reader, fed from memory (document_reader_test.cc reads real files).

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tokenmill/base/rng.h"
#include "tokenmill/io/readers.h"
#include "tokenmill/io/string_stream.h"
#include "tokenmill/io/test_util.h"

namespace tokenmill {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing::ReadAll;

struct Doc {
  std::string text;
  uint64_t line;
  uint64_t offset;
  bool operator==(const Doc&) const = default;
};
std::ostream& operator<<(std::ostream& os, const Doc& d) {
  return os << "{\"" << d.text << "\", " << d.line << ", " << d.offset << "}";
}

std::unique_ptr<DocumentReader> Open(std::string data, ReaderOptions options = {},
                                     uint64_t begin = 0, size_t chunk = SIZE_MAX,
                                     Compression c = Compression::kNone) {
  auto r = OpenDocumentReaderOnStream(std::make_unique<StringReadStream>(std::move(data), chunk),
                                      "/in.txt", begin, c, options);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return std::move(r).value();
}

std::vector<Doc> Docs(std::string data, ReaderOptions options = {}, uint64_t begin = 0,
                      size_t chunk = SIZE_MAX) {
  auto reader = Open(std::move(data), options, begin, chunk);
  auto docs = ReadAll(*reader);
  EXPECT_TRUE(docs.ok()) << docs.status().ToString();
  std::vector<Doc> out;
  if (!docs.ok()) return out;
  for (const Document& d : *docs) out.push_back({d.text, d.line_number, d.offset});
  return out;
}

TEST(TextReaderTest, BlankLinesSeparateDocuments) {
  EXPECT_THAT(Docs("a\nb\n\nc\n"), ElementsAre(Doc{"a\nb", 1, 0}, Doc{"c", 4, 5}));
  EXPECT_THAT(Docs("a\nb\n\nc"), ElementsAre(Doc{"a\nb", 1, 0}, Doc{"c", 4, 5}));
  EXPECT_THAT(Docs(""), ElementsAre());
  EXPECT_THAT(Docs("\n\n \n"), ElementsAre());
  EXPECT_THAT(Docs("only one document"), ElementsAre(Doc{"only one document", 1, 0}));
}

TEST(TextReaderTest, RunsOfBlankLinesOfAnyWhitespaceAreOneSeparator) {
  // Separators: spaces and tabs; U+3000; \r; a run of several; leading and trailing blanks.
  const std::string data =
      "\n \n"
      "one\n"
      " \t \n"
      "two\n"
      "\xE3\x80\x80\xE3\x80\x80\n"
      "three\n"
      "\r\n"
      "\n"
      "\xC2\xA0\xE2\x80\xA8\n"
      "four\n"
      "  \n";
  EXPECT_THAT(Docs(data), ElementsAre(Doc{"one", 3, 3}, Doc{"two", 5, 11}, Doc{"three", 7, 22},
                                      Doc{"four", 11, 37}));
}

TEST(TextReaderTest, LinesKeepCarriageReturnsAndUnicodeSeparators) {
  EXPECT_THAT(Docs("a\r\nb\xE2\x80\xA8"
                   "c\r\n\r\nd"),
              ElementsAre(Doc{"a\r\nb\xE2\x80\xA8"
                              "c\r",
                              1, 0},
                          Doc{"d", 4, 12}));
  // Leading and trailing whitespace inside a document's lines is kept.
  EXPECT_THAT(Docs("  indented\t\n\xE3\x80\x80x"),
              ElementsAre(Doc{"  indented\t\n\xE3\x80\x80x", 1, 0}));
}

TEST(TextReaderTest, MatchesAReferenceSplitterOnRandomInputs) {
  const std::vector<std::string> pieces = {
      "\n",           "\n",           "\n",           " ",        "\t",  "\r", "a", "bc",
      "\xE3\x80\x80", "\xE4\xB8\xAD", "\xE2\x80\xA8", "\xC2\x85", "\x1F"};
  Rng rng(42, 0);
  for (int iter = 0; iter < 300; ++iter) {
    std::string data;
    const int64_t n = rng.RandInt(0, 200);
    for (int64_t i = 0; i < n; ++i) {
      data += pieces[static_cast<size_t>(rng.RandInt(0, static_cast<int64_t>(pieces.size()) - 1))];
    }
    std::vector<Doc> expected;
    for (const auto& d : testing::ReferenceTextDocuments(data)) {
      expected.push_back({d.text, d.line_number, d.offset});
    }
    EXPECT_EQ(Docs(data, {}, 0, static_cast<size_t>(rng.RandInt(1, 50))), expected)
        << "input: " << data;
  }
}

TEST(TextReaderTest, InvalidUtf8IsDroppedOrReplacedAndCounted) {
  const std::string data = "ok\xFF line\n\n\xC0\xAF\n\nfine\n";
  auto reader = Open(data);
  auto docs = ReadAll(*reader);
  ASSERT_TRUE(docs.ok());
  ASSERT_EQ(docs->size(), 2u);  // the line of invalid bytes only is blank once they are dropped
  EXPECT_EQ((*docs)[0].text, "ok line");
  EXPECT_EQ((*docs)[1].text, "fine");
  EXPECT_EQ(reader->stats().invalid_utf8_bytes, 3u);

  ReaderOptions replace;
  replace.invalid_utf8 = InvalidUtf8::kReplace;
  EXPECT_THAT(Docs(data, replace),
              ElementsAre(Doc{"ok\xEF\xBF\xBD line", 1, 0}, Doc{"\xEF\xBF\xBD\xEF\xBF\xBD", 3, 10},
                          Doc{"fine", 5, 14}));
}

TEST(TextReaderTest, StrictUtf8NamesFileOffsetAndLine) {
  ReaderOptions strict;
  strict.strict_utf8 = true;
  auto reader = Open("good\n\nbad \xE4\xB8 here\n", strict);
  Document doc;
  ASSERT_TRUE(*reader->Next(&doc));
  auto r = reader->Next(&doc);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kDataLoss);
  EXPECT_THAT(r.status().message(), HasSubstr("/in.txt:3 (byte 10)"));
  EXPECT_THAT(r.status().message(), HasSubstr("byte 0xE4"));
  EXPECT_THAT(r.status().message(), HasSubstr("strict_utf8 = false"));
  // The error sticks.
  auto again = reader->Next(&doc);
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(again.status().message(), r.status().message());

  // In a range that starts later: the absolute byte, and the line within the range.
  auto ranged = Open("x\n\n\xFF", strict, 5000);
  auto rr = ReadAll(*ranged);
  ASSERT_FALSE(rr.ok());
  EXPECT_THAT(rr.status().message(),
              HasSubstr("/in.txt byte 5003 (line 3 of the range starting at byte 5000)"));

  // Compressed: the offset counts decompressed bytes.
  auto gz = Open(testing::Gzip("a\nb\xFF\n"), strict, 0, SIZE_MAX, Compression::kGzip);
  auto gr = ReadAll(*gz);
  ASSERT_FALSE(gr.ok());
  EXPECT_THAT(gr.status().message(), HasSubstr("/in.txt:2 (decompressed byte 3)"));
}

TEST(TextReaderTest, RangeOffsetsAreAbsoluteAndLinesCountFromTheRange) {
  EXPECT_THAT(Docs("a\n\nb\n", {}, 1000), ElementsAre(Doc{"a", 1, 1000}, Doc{"b", 3, 1003}));
}

TEST(TextReaderTest, ByteOrderMarkAtTheStartIsRemoved) {
  EXPECT_THAT(Docs("\xEF\xBB\xBFhello\n\nworld\n"),
              ElementsAre(Doc{"hello", 1, 0}, Doc{"world", 3, 10}));
  EXPECT_THAT(Docs("\xEF\xBB\xBF\n\nworld\n"), ElementsAre(Doc{"world", 3, 5}));
  // Only at the start of the object: inside a range that starts later it is text.
  EXPECT_THAT(Docs("\xEF\xBB\xBFx\n", {}, 10), ElementsAre(Doc{"\xEF\xBB\xBFx", 1, 10}));
}

TEST(TextReaderTest, StatsCountBytesLinesAndDocuments) {
  auto reader = Open("a\nb\n\n\nc\n");
  auto docs = ReadAll(*reader);
  ASSERT_TRUE(docs.ok());
  const ReaderStats& s = reader->stats();
  EXPECT_EQ(s.documents, 2u);
  EXPECT_EQ(s.lines, 5u);
  EXPECT_EQ(s.bytes_in, 8u);
  EXPECT_EQ(s.bytes_decoded, 8u);
  EXPECT_EQ(s.invalid_utf8_bytes, 0u);

  const std::string gz = testing::Gzip("a\nb\n\n\nc\n");
  auto zreader = Open(gz, {}, 0, SIZE_MAX, Compression::kGzip);
  ASSERT_TRUE(ReadAll(*zreader).ok());
  EXPECT_EQ(zreader->stats().bytes_in, gz.size());
  EXPECT_EQ(zreader->stats().bytes_decoded, 8u);
  EXPECT_EQ(zreader->stats().documents, 2u);
}

TEST(TextReaderTest, HugeDocumentsReadWhole) {
  // Past 16 MiB a document reserves room for the largest one allowed (no growth by doubling):
  // documents of 20 MiB, then a small one, then one larger than what the first reserved, read
  // whole and in order.
  std::string line(1000, 'x');
  std::string big, bigger;
  while (big.size() < (size_t{20} << 20)) big += line + "\n";
  big.pop_back();
  ReaderOptions options;
  options.max_document_bytes = size_t{24} << 20;
  while (bigger.size() < (size_t{23} << 20)) bigger += line + "\n";
  bigger.pop_back();
  const std::string input = big + "\n\nsmall\n\n" + bigger + "\n";
  const auto docs = Docs(input, options);
  ASSERT_EQ(docs.size(), 3u);
  EXPECT_TRUE(docs[0].text == big);
  EXPECT_EQ(docs[1].text, "small");
  EXPECT_TRUE(docs[2].text == bigger);
}

TEST(TextReaderTest, HugeLinesAreReadIntoTheDocument) {
  // A line longer than the reader's buffer goes to the document piece by piece, with its
  // invalid UTF-8 dropped across the pieces' edges, and a byte order mark before it.
  std::string line;
  std::string clean;
  for (int i = 0; line.size() < 3000000; ++i) {
    line += "word\xC3\xA9 ";
    clean += "word\xC3\xA9 ";
    if (i % 1000 == 0) line += "\xFF";
  }
  const auto docs = Docs("\xEF\xBB\xBF" + line + "\nnext\n\n" + line);
  ASSERT_EQ(docs.size(), 2u);
  EXPECT_TRUE(docs[0].text == clean + "\nnext");
  EXPECT_TRUE(docs[1].text == clean);
  EXPECT_EQ(docs[1].line, 4u);
}

TEST(TextReaderTest, DocumentLongerThanTheLimitIsAnError) {
  ReaderOptions small;
  small.max_document_bytes = 10;
  EXPECT_THAT(Docs("12345\n1234\n\nabc\n", small),
              ElementsAre(Doc{"12345\n1234", 1, 0}, Doc{"abc", 4, 12}));
  auto reader = Open("ok\n\n12345\n12345\n", small);
  auto r = ReadAll(*reader);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(r.status().message(), HasSubstr("/in.txt:3 (byte 4)"));
  EXPECT_THAT(r.status().message(), HasSubstr("max_document_bytes"));
}

}  // namespace
}  // namespace tokenmill
