// The io layer over a real S3 server (globs, readers, byte ranges, boundaries on s3:// URLs).
// Skipped unless an S3 endpoint is configured: run scripts/ceph-rgw.sh (or
// ../shared/infra/ceph-rgw.sh) and source its env.sh. TOKENMILL_REQUIRE_S3=1 turns the skip into
// a failure.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "tokenmill/io/document_reader.h"
#include "tokenmill/io/parquet_reader.h"
#include "tokenmill/io/test_util.h"
#include "tokenmill/storage/counting_storage.h"

namespace tokenmill {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

std::string Env(const char* name) {
  const char* v = std::getenv(name);
  return v == nullptr ? "" : v;
}

class S3IoTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::string bucket = Env("S3_BUCKET");
    if ((Env("AWS_ENDPOINT_URL").empty() && Env("AWS_ENDPOINT_URL_S3").empty()) || bucket.empty() ||
        Env("AWS_ACCESS_KEY_ID").empty()) {
      if (Env("TOKENMILL_REQUIRE_S3") == "1") {
        FAIL() << "TOKENMILL_REQUIRE_S3=1 but AWS_ENDPOINT_URL, S3_BUCKET or AWS_ACCESS_KEY_ID "
                  "is not set";
      }
      GTEST_SKIP() << "no S3 server: run scripts/ceph-rgw.sh and source its env.sh "
                      "(AWS_ENDPOINT_URL, S3_BUCKET, AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY)";
    }
    std::random_device rd;
    prefix_ = "s3://" + bucket + "/tm-io-test/" + std::to_string(rd()) + std::to_string(rd()) + "/";
    auto s = StorageFor(prefix_);
    ASSERT_TRUE(s.ok()) << s.status().ToString();
    storage_ = *s;
  }

  void TearDown() override {
    if (storage_ == nullptr) return;
    auto list = storage_->List(prefix_);
    if (list.ok()) {
      for (const ObjectInfo& o : *list) (void)storage_->Delete(o.url);
    }
  }

  std::string Put(const std::string& name, const std::string& data) {
    const std::string url = prefix_ + name;
    const Status s = storage_->Write(url, data);
    EXPECT_TRUE(s.ok()) << s.ToString();
    return url;
  }

  std::vector<std::string> Texts(const InputRange& range, const ReaderOptions& options = {}) {
    auto reader = OpenDocumentReader(*storage_, range, options);
    EXPECT_TRUE(reader.ok()) << reader.status().ToString();
    if (!reader.ok()) return {};
    auto docs = testing::ReadAll(**reader);
    EXPECT_TRUE(docs.ok()) << docs.status().ToString();
    std::vector<std::string> out;
    if (docs.ok()) {
      for (const Document& d : *docs) out.push_back(d.text);
    }
    return out;
  }

  std::string prefix_;
  Storage* storage_ = nullptr;
};

TEST_F(S3IoTest, GlobsListSortAndStayWithinAFolderLevel) {
  Put("b.txt", "b\n");
  Put("a.txt.gz", testing::Gzip("a\n"));
  Put("a.jsonl", "{\"text\": \"j\"}\n");
  Put("sub/c.txt", "c\n");
  auto r = ExpandGlobs({prefix_ + "*.txt*"});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->size(), 2u);
  EXPECT_EQ((*r)[0].url, prefix_ + "a.txt.gz");
  EXPECT_EQ((*r)[1].url, prefix_ + "b.txt");
  EXPECT_EQ((*r)[1].size, 2u);

  r = ExpandGlobs({prefix_ + "*/*.txt", prefix_ + "a.jsonl"});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->size(), 2u);
  EXPECT_EQ((*r)[0].url, prefix_ + "a.jsonl");
  EXPECT_EQ((*r)[1].url, prefix_ + "sub/c.txt");

  r = ExpandGlobs({prefix_ + "*.zst"});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kNotFound);
  EXPECT_THAT(r.status().message(), HasSubstr(prefix_ + "*.zst\" matches no file"));

  r = ExpandGlobs({prefix_ + "missing.txt"});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kNotFound);
}

TEST_F(S3IoTest, ReadsPlainCompressedAndJsonlObjects) {
  const std::string text = "one\ntwo\n\nthree\n";
  const std::string plain = Put("p.txt", text);
  const std::string gz =
      Put("p.txt.gz", testing::Gzip(text.substr(0, 5)) + testing::Gzip(text.substr(5)));
  const std::string zst = Put("p.txt.zst", testing::Zstd(text));
  for (const std::string& url : {plain, gz, zst}) {
    EXPECT_THAT(Texts(InputRange{url}), ElementsAre("one\ntwo", "three")) << url;
  }
  ReaderOptions jsonl;
  jsonl.format = InputFormat::kJsonl;
  jsonl.text_field = "m.t";
  const std::string j = Put("p.jsonl", "{\"m\": {\"t\": \"x\"}}\n\n{\"m\": {\"t\": \"y\"}}");
  EXPECT_THAT(Texts(InputRange{j}, jsonl), ElementsAre("x", "y"));

  std::string long_line(100000, 'z');
  long_line.push_back('\n');
  const std::string data = testing::Gzip(long_line);
  const std::string cut = Put("cut.txt.gz", data.substr(0, data.size() / 2));
  auto reader = OpenDocumentReader(*storage_, InputRange{cut}, {});
  ASSERT_TRUE(reader.ok());
  auto docs = testing::ReadAll(**reader);
  ASSERT_FALSE(docs.ok());
  EXPECT_EQ(docs.status().code(), StatusCode::kDataLoss);
  EXPECT_THAT(docs.status().message(), HasSubstr(cut + ": truncated gzip data"));
}

TEST_F(S3IoTest, RangesCutAtBoundariesGiveTheWholeFile) {
  const std::string data = testing::ReadFile(testing::RepoFile("data/sample/part-00.txt"));
  const std::string url = Put("sample.txt", data);
  const std::vector<std::string> whole = Texts(InputRange{url});
  ASSERT_EQ(whole.size(), 1949u);
  for (uint64_t task : {uint64_t{100000}, uint64_t{333333}}) {
    std::vector<uint64_t> cuts = {0};
    for (uint64_t at = task; at < data.size(); at += task) {
      auto b = NextDocumentBoundary(*storage_, url, at, data.size(), InputFormat::kText);
      ASSERT_TRUE(b.ok()) << b.status().ToString();
      cuts.push_back(*b);
    }
    cuts.push_back(data.size());
    std::vector<std::string> joined;
    for (size_t i = 0; i + 1 < cuts.size(); ++i) {
      for (std::string& t : Texts(InputRange{url, cuts[i], cuts[i + 1]})) {
        joined.push_back(std::move(t));
      }
    }
    EXPECT_EQ(joined, whole) << "task size " << task;
  }
}

TEST_F(S3IoTest, ParquetFetchesOnlyTheFooterAndTheTextColumnWithRangedReads) {
  const std::string data =
      testing::ReadFile(testing::RepoFile("data/sample-parquet/part-00.parquet"));
  const std::string url = Put("part-00.parquet", data);
  CountingStorage counting(storage_);
  ReaderOptions o;
  o.format = InputFormat::kParquet;
  auto footer = ReadParquetFooter(counting, url, data.size());
  ASSERT_TRUE(footer.ok()) << footer.status().ToString();
  EXPECT_EQ(counting.counters().bytes_read, kParquetTailRead);  // the footer fits the tail read
  // The text column's bytes that lie before the tail (the rest comes with the tail).
  uint64_t text_bytes = 0;
  for (const auto& rg : footer->meta.row_groups) {
    const auto& c = rg.columns[1];
    if (static_cast<uint64_t>(c.Start()) < footer->tail_offset) {
      text_bytes += static_cast<uint64_t>(c.total_compressed_size);
    }
  }
  // Cut as the planner does (several tasks), each read through the counting storage.
  const auto ranges = ParquetTaskRanges(*footer, 128 << 10);
  ASSERT_GT(ranges.size(), 2u);
  uint64_t docs = 0, fetched = 0;
  for (const auto& [begin, end] : ranges) {
    counting.ResetCounters();
    auto reader = OpenDocumentReader(counting, InputRange{url, begin, end}, o);
    ASSERT_TRUE(reader.ok()) << reader.status().ToString();
    auto read = testing::ReadAll(**reader);
    ASSERT_TRUE(read.ok()) << read.status().ToString();
    docs += read->size();
    // Per task: its own footer read plus its row groups' text chunks, nothing else.
    EXPECT_EQ(counting.counters().bytes_read, (*reader)->stats().bytes_in);
    fetched += counting.counters().bytes_read - footer->bytes_read;
  }
  EXPECT_EQ(docs, 1949u);
  EXPECT_EQ(fetched, text_bytes);
  std::printf("parquet on S3: %zu bytes file, %" PRIu64
              " bytes of text chunks fetched in %zu "
              "tasks (+%" PRIu64 " footer bytes each)\n",
              data.size(), fetched, ranges.size(), footer->bytes_read);
}

}  // namespace
}  // namespace tokenmill
