// OpenDocumentReader over real files through Storage: plain, gzip and zstd, text and JSONL, the
// sample corpus and (when present) the shared corpus.

#include "tokenmill/io/document_reader.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "tokenmill/io/readers.h"
#include "tokenmill/io/test_util.h"

namespace tokenmill {
namespace {

using ::testing::HasSubstr;
using testing::ReadAll;

Storage& Local() {
  auto s = StorageFor("/");
  EXPECT_TRUE(s.ok());
  return **s;
}

StatusOr<std::vector<Document>> ReadUrl(const std::string& url, const ReaderOptions& options,
                                        ReaderStats* stats = nullptr) {
  TM_ASSIGN_OR_RETURN(auto reader, OpenDocumentReader(Local(), InputRange{url}, options));
  TM_ASSIGN_OR_RETURN(auto docs, ReadAll(*reader));
  if (stats != nullptr) *stats = reader->stats();
  return docs;
}

// Two documents, then an error; counts the reads.
class TwoThenError final : public StickyErrorReader {
 public:
  int reads = 0;
  const ReaderStats& stats() const override { return stats_; }

 private:
  StatusOr<bool> ReadDocument(Document* doc) override {
    ++reads;
    if (reads > 2) return Status::DataLoss("/x.txt:3: broken (read " + std::to_string(reads) + ")");
    doc->text = "doc " + std::to_string(reads);
    return true;
  }
  ReaderStats stats_;
};

TEST(StickyErrorReader, AnErrorIsReturnedAgainWithoutReadingFurther) {
  TwoThenError reader;
  Document doc;
  ASSERT_TRUE(*reader.Next(&doc));
  EXPECT_EQ(doc.text, "doc 1");
  ASSERT_TRUE(*reader.Next(&doc));
  EXPECT_EQ(doc.text, "doc 2");
  for (int i = 0; i < 3; ++i) {
    const StatusOr<bool> r = reader.Next(&doc);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().message(), "/x.txt:3: broken (read 3)");
  }
  EXPECT_EQ(reader.reads, 3);
}

std::vector<std::string> Texts(const std::vector<Document>& docs) {
  std::vector<std::string> out;
  for (const Document& d : docs) out.push_back(d.text);
  return out;
}

ReaderOptions JsonlOptions() {
  ReaderOptions o;
  o.format = InputFormat::kJsonl;
  return o;
}

TEST(DocumentReaderTest, SameDocumentsFromPlainGzipAndZstdFiles) {
  testing::TempDir dir;
  const std::string text = "a b\nc\n\n\xE4\xB8\xAD\xE6\x96\x87\n\n\nlast";
  const std::string plain = dir.Write("x.txt", text);
  const std::string gz =
      dir.Write("x.txt.gz", testing::Gzip(text.substr(0, 7)) + testing::Gzip(text.substr(7)));
  const std::string zst = dir.Write("x.txt.zst", testing::Zstd(text));
  for (const std::string& url : {plain, gz, zst, "file://" + plain}) {
    ReaderStats stats;
    auto docs = ReadUrl(url, {}, &stats);
    ASSERT_TRUE(docs.ok()) << url << ": " << docs.status().ToString();
    EXPECT_EQ(Texts(*docs),
              (std::vector<std::string>{"a b\nc", "\xE4\xB8\xAD\xE6\x96\x87", "last"}))
        << url;
    EXPECT_EQ(stats.bytes_decoded, text.size());
    EXPECT_EQ(stats.bytes_in,
              std::filesystem::file_size(url.starts_with("file://") ? url.substr(7) : url));
  }
}

TEST(DocumentReaderTest, ByteRangesOfPlainFiles) {
  testing::TempDir dir;
  const std::string url = dir.Write("r.txt", "one\n\ntwo\n\nthree\n");
  auto reader = OpenDocumentReader(Local(), InputRange{url, 5, 10}, {});
  ASSERT_TRUE(reader.ok());
  auto docs = ReadAll(**reader);
  ASSERT_TRUE(docs.ok());
  ASSERT_EQ(docs->size(), 1u);
  EXPECT_EQ((*docs)[0].text, "two");
  EXPECT_EQ((*docs)[0].offset, 5u);
  EXPECT_EQ((*reader)->stats().bytes_in, 5u);

  auto empty = OpenDocumentReader(Local(), InputRange{url, 10, 10}, {});
  ASSERT_TRUE(empty.ok());
  EXPECT_TRUE(ReadAll(**empty)->empty());
}

TEST(DocumentReaderTest, BadRangesAndMissingFiles) {
  testing::TempDir dir;
  const std::string gz = dir.Write("c.txt.gz", testing::Gzip("x\n"));
  auto r = OpenDocumentReader(Local(), InputRange{gz, 10, kToEnd}, {});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(r.status().message(), HasSubstr(gz + ": a gzip file can only be read whole"));

  r = OpenDocumentReader(Local(), InputRange{gz, 0, 1}, {});
  ASSERT_FALSE(r.ok());

  const std::string plain = dir.Write("p.txt", "x\n");
  r = OpenDocumentReader(Local(), InputRange{plain, 2, 1}, {});
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), HasSubstr("the end is before the begin"));

  r = OpenDocumentReader(Local(), InputRange{dir.path() + "/missing.txt"}, {});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kNotFound);
}

TEST(DocumentReaderTest, TruncatedCompressedFilesAreDataLossNamingTheFile) {
  testing::TempDir dir;
  std::string body;
  for (int i = 0; i < 20000; ++i) body += "line " + std::to_string(i) + "\n\n";
  const std::string gzip_data = testing::Gzip(body);
  const std::string gz = dir.Write("t.txt.gz", gzip_data.substr(0, gzip_data.size() / 2));
  auto docs = ReadUrl(gz, {});
  ASSERT_FALSE(docs.ok());
  EXPECT_EQ(docs.status().code(), StatusCode::kDataLoss);
  EXPECT_THAT(docs.status().message(), HasSubstr(gz + ": truncated gzip data"));

  std::string jsonl;
  for (int i = 0; i < 20000; ++i) jsonl += "{\"text\": \"line " + std::to_string(i) + "\"}\n";
  const std::string zstd_data = testing::Zstd(jsonl);
  const std::string zst = dir.Write("t.jsonl.zst", zstd_data.substr(0, zstd_data.size() - 3));
  docs = ReadUrl(zst, JsonlOptions());
  ASSERT_FALSE(docs.ok());
  EXPECT_EQ(docs.status().code(), StatusCode::kDataLoss);
  EXPECT_THAT(docs.status().message(), HasSubstr(zst + ": truncated zstd data"));
}

TEST(DocumentReaderTest, JsonlFilesWithErrorsNameFileAndLine) {
  testing::TempDir dir;
  const std::string url = dir.Write("bad.jsonl.gz", testing::Gzip("{\"text\": \"a\"}\n{oops}\n"));
  auto docs = ReadUrl(url, JsonlOptions());
  ASSERT_FALSE(docs.ok());
  EXPECT_THAT(docs.status().message(), HasSubstr(url + ":2 (decompressed byte 14)"));
}

// Every reader of a decoding stream counts the object's bytes read and decoded, whatever its
// format and compression.
TEST(DocumentReaderTest, EveryStreamFormatCountsTheBytesReadAndDecoded) {
  testing::TempDir dir;
  const std::vector<std::pair<InputFormat, std::string>> inputs = {
      {InputFormat::kText, "one\n\ntwo three\n"},
      {InputFormat::kJsonl, "{\"text\": \"one\"}\n{\"text\": \"two three\"}\n"},
      {InputFormat::kJson, "[{\"text\": \"one\"}, {\"text\": \"two three\"}]\n"}};
  for (const auto& [format, content] : inputs) {
    ReaderOptions options;
    options.format = format;
    const std::string name = "in" + std::to_string(static_cast<int>(format));
    const std::string gzipped = testing::Gzip(content);
    for (const auto& [url, size] :
         {std::pair{dir.Write(name + ".txt", content), content.size()},
          std::pair{dir.Write(name + ".txt.gz", gzipped), gzipped.size()}}) {
      ReaderStats stats;
      auto docs = ReadUrl(url, options, &stats);
      ASSERT_TRUE(docs.ok()) << url << ": " << docs.status().ToString();
      EXPECT_EQ(Texts(*docs), (std::vector<std::string>{"one", "two three"})) << url;
      EXPECT_EQ(stats.bytes_in, size) << url;
      EXPECT_EQ(stats.bytes_decoded, content.size()) << url;
      EXPECT_EQ(stats.documents, 2u) << url;
    }
  }
}

// The sample corpus: the text files and the JSONL files hold the same documents.
TEST(DocumentReaderTest, SampleCorpusTextAndJsonlAgree) {
  const std::vector<std::pair<std::string, std::string>> pairs = {
      {"data/sample/part-00.txt", "data/sample-jsonl/part-00.jsonl"},
      {"data/sample/part-01.txt.gz", "data/sample-jsonl/part-01.jsonl.gz"}};
  const std::vector<size_t> counts = {1949, 1985};
  for (size_t i = 0; i < pairs.size(); ++i) {
    ReaderStats text_stats, jsonl_stats;
    auto text = ReadUrl(testing::RepoFile(pairs[i].first), {}, &text_stats);
    auto jsonl = ReadUrl(testing::RepoFile(pairs[i].second), JsonlOptions(), &jsonl_stats);
    ASSERT_TRUE(text.ok()) << text.status().ToString();
    ASSERT_TRUE(jsonl.ok()) << jsonl.status().ToString();
    EXPECT_EQ(text->size(), counts[i]);
    EXPECT_EQ(Texts(*text), Texts(*jsonl));
    EXPECT_EQ(text_stats.documents, counts[i]);
    EXPECT_EQ(jsonl_stats.lines, counts[i]);
    EXPECT_EQ(text_stats.invalid_utf8_bytes, 0u);
    EXPECT_EQ(jsonl_stats.empty_documents, 0u);
  }
  // The naive reference splitter agrees on the plain text file, offsets and lines included.
  const std::string data = testing::ReadFile(testing::RepoFile("data/sample/part-00.txt"));
  auto docs = ReadUrl(testing::RepoFile("data/sample/part-00.txt"), {});
  ASSERT_TRUE(docs.ok());
  const auto ref = testing::ReferenceTextDocuments(data);
  ASSERT_EQ(ref.size(), docs->size());
  for (size_t i = 0; i < ref.size(); ++i) {
    ASSERT_EQ((*docs)[i].text, ref[i].text);
    ASSERT_EQ((*docs)[i].offset, ref[i].offset);
    ASSERT_EQ((*docs)[i].line_number, ref[i].line_number);
  }
}

// The full shared corpus (28 MB), when the shared data folder is present.
TEST(DocumentReaderTest, SharedCorpusTextAndJsonlAgree) {
  const std::string base = std::string(TOKENMILL_SOURCE_DIR) + "/../shared/data";
  if (!std::filesystem::exists(base + "/corpus/part-00.txt")) {
    GTEST_SKIP() << "shared corpus not found at " << base << " (only the sample corpus is tested)";
  }
  auto text_files = ExpandGlobs({base + "/corpus/part-0*"});
  auto jsonl_files = ExpandGlobs({base + "/corpus-jsonl/part-0?.jsonl*"});
  ASSERT_TRUE(text_files.ok()) << text_files.status().ToString();
  ASSERT_TRUE(jsonl_files.ok()) << jsonl_files.status().ToString();
  ASSERT_EQ(text_files->size(), 8u);
  ASSERT_EQ(jsonl_files->size(), 8u);
  size_t total = 0;
  for (size_t i = 0; i < 8; ++i) {
    auto text = ReadUrl((*text_files)[i].url, {});
    auto jsonl = ReadUrl((*jsonl_files)[i].url, JsonlOptions());
    ASSERT_TRUE(text.ok()) << text.status().ToString();
    ASSERT_TRUE(jsonl.ok()) << jsonl.status().ToString();
    ASSERT_EQ(Texts(*text), Texts(*jsonl)) << (*text_files)[i].url;
    total += text->size();
  }
  EXPECT_EQ(total, 44956u);  // shared/data/PROVENANCE.md
}

TEST(IsBlankLineTest, PythonStripSemantics) {
  EXPECT_TRUE(IsBlankLine(""));
  EXPECT_TRUE(IsBlankLine(" \t\r\v\f"));
  EXPECT_TRUE(IsBlankLine("\x1C\x1D\x1E\x1F"));
  EXPECT_TRUE(IsBlankLine("\xE3\x80\x80\xE3\x80\x80"));              // U+3000 U+3000
  EXPECT_TRUE(IsBlankLine("\xC2\x85 \xC2\xA0"));                     // U+0085, U+00A0
  EXPECT_TRUE(IsBlankLine("\xE2\x80\xA8\xE2\x80\xA9"));              // U+2028, U+2029
  EXPECT_TRUE(IsBlankLine("\xE2\x80\xAF\xE2\x81\x9F\xE1\x9A\x80"));  // U+202F U+205F U+1680
  EXPECT_FALSE(IsBlankLine("a"));
  EXPECT_FALSE(IsBlankLine("  a  "));
  EXPECT_FALSE(IsBlankLine("\xE2\x80\x8B"));  // U+200B ZERO WIDTH SPACE is not whitespace
  EXPECT_FALSE(IsBlankLine("\xE1\xA0\x8E"));  // U+180E is not whitespace since Unicode 6.3
  EXPECT_FALSE(IsBlankLine("\xEF\xBB\xBF"));  // U+FEFF
  EXPECT_FALSE(IsBlankLine(std::string_view("\0", 1)));
  EXPECT_FALSE(IsBlankLine(" \xFF "));    // invalid bytes are not whitespace
  EXPECT_FALSE(IsBlankLine("\xE3\x80"));  // truncated U+3000
}

}  // namespace
}  // namespace tokenmill
