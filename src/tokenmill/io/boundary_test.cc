// NextDocumentBoundary: cutting a plain input at the boundaries and reading every range gives
// exactly the documents of reading it whole.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "tokenmill/base/rng.h"
#include "tokenmill/io/document_reader.h"
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

// The boundary by its definition, computed over the whole data.
uint64_t ReferenceBoundary(std::string_view data, uint64_t offset, InputFormat format) {
  if (offset == 0) return 0;
  if (offset >= data.size()) return data.size();
  bool seen_blank = false;
  size_t pos = 0;
  while (pos < data.size()) {
    size_t nl = data.find('\n', pos);
    if (nl == std::string_view::npos) nl = data.size();
    if (pos >= offset) {
      if (format == InputFormat::kJsonl) return pos;
      const bool blank = IsBlankLine(data.substr(pos, nl - pos));
      if (blank) {
        seen_blank = true;
      } else if (seen_blank) {
        return pos;
      }
    }
    pos = nl + 1;
  }
  return data.size();
}

struct Key {
  std::string text;
  uint64_t offset;
  bool operator==(const Key&) const = default;
};

std::vector<Key> ReadRange(const std::string& url, uint64_t begin, uint64_t end,
                           const ReaderOptions& options) {
  auto reader = OpenDocumentReader(Local(), InputRange{url, begin, end}, options);
  EXPECT_TRUE(reader.ok()) << reader.status().ToString();
  if (!reader.ok()) return {};
  auto docs = ReadAll(**reader);
  EXPECT_TRUE(docs.ok()) << docs.status().ToString();
  std::vector<Key> out;
  if (!docs.ok()) return out;
  for (const Document& d : *docs) out.push_back({d.text, d.offset});
  EXPECT_EQ((*reader)->stats().bytes_in, end == kToEnd ? (*reader)->stats().bytes_in : end - begin);
  return out;
}

// Cuts `url` at NextDocumentBoundary(first + k * task_size) and checks the ranges' documents.
void CheckCuts(const std::string& url, const std::string& data, uint64_t task_size, uint64_t first,
               const ReaderOptions& options) {
  const uint64_t size = data.size();
  const std::vector<Key> whole = ReadRange(url, 0, kToEnd, options);
  std::vector<uint64_t> cuts = {0};
  for (uint64_t at = first; at < size; at += task_size) {
    auto b = NextDocumentBoundary(Local(), url, at, size, options.format);
    ASSERT_TRUE(b.ok()) << b.status().ToString();
    ASSERT_EQ(*b, ReferenceBoundary(data, at, options.format)) << "offset " << at;
    ASSERT_GE(*b, cuts.back());
    ASSERT_GE(*b, at);
    cuts.push_back(*b);
  }
  cuts.push_back(size);
  std::vector<Key> joined;
  for (size_t i = 0; i + 1 < cuts.size(); ++i) {
    for (Key& k : ReadRange(url, cuts[i], cuts[i + 1], options)) joined.push_back(std::move(k));
  }
  ASSERT_EQ(joined.size(), whole.size()) << "task size " << task_size;
  for (size_t i = 0; i < whole.size(); ++i) {
    ASSERT_EQ(joined[i], whole[i]) << "document " << i << ", task size " << task_size;
  }
}

TEST(BoundaryTest, NastySyntheticInputs) {
  testing::TempDir dir;
  const std::vector<std::string> fixed = {
      "",
      "\n",
      "one document, no newline",
      "one document\nof two lines\n",
      "a\n\nb",
      "a\n \n\t\n\xE3\x80\x80\n\nb\n\n\n",
      "\xE3\x80\x80\n\xE3\x80\x80\n",
      "\n\n\nx\n\n\ny\n\n\n",
      "a\r\n\r\nb\r\n",
      " \n  \n   \n",
  };
  const std::vector<std::string> pieces = {"\n",
                                           "\n",
                                           "\n\n",
                                           " ",
                                           "  \n",
                                           "\t",
                                           "\r",
                                           "a",
                                           "word",
                                           "\xE3\x80\x80",
                                           "\xE3\x80\x80\n",
                                           "\xE4\xB8\xAD\xE6\x96\x87",
                                           "\xE2\x80\xA8",
                                           "\xC2\xA0"};
  std::vector<std::string> inputs = fixed;
  Rng rng(2024, 1);
  for (int i = 0; i < 50; ++i) {
    std::string data;
    for (int64_t n = rng.RandInt(0, 150); n > 0; --n) {
      data += pieces[static_cast<size_t>(rng.RandInt(0, static_cast<int64_t>(pieces.size()) - 1))];
    }
    inputs.push_back(data);
  }
  ReaderOptions options;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const std::string url = dir.Write("in-" + std::to_string(i) + ".txt", inputs[i]);
    for (uint64_t task : {1, 2, 3, 7, 16, 100}) {
      for (uint64_t first : std::set<uint64_t>{task, task / 2 + 1}) {
        SCOPED_TRACE("input " + std::to_string(i) + " task " + std::to_string(task));
        CheckCuts(url, inputs[i], task, first, options);
        if (::testing::Test::HasFatalFailure()) return;
      }
    }
  }
}

TEST(BoundaryTest, SampleCorpusWithRandomTaskSizes) {
  const std::string url = testing::RepoFile("data/sample/part-00.txt");
  const std::string data = testing::ReadFile(url);
  Rng rng(99, 0);
  ReaderOptions options;
  for (int i = 0; i < 6; ++i) {
    const auto task = static_cast<uint64_t>(rng.RandInt(2000, 400000));
    const auto first = static_cast<uint64_t>(rng.RandInt(1, static_cast<int64_t>(task)));
    SCOPED_TRACE("task " + std::to_string(task) + " first " + std::to_string(first));
    CheckCuts(url, data, task, first, options);
    if (::testing::Test::HasFatalFailure()) return;
  }
}

TEST(BoundaryTest, JsonlCutsAtLineStarts) {
  testing::TempDir dir;
  ReaderOptions options;
  options.format = InputFormat::kJsonl;
  const std::string small =
      "{\"text\": \"a\"}\n\n{\"text\": \"b\\nc\"}\n  \n{\"text\": \"\"}\n"
      "{\"text\": \"last\"}";
  const std::string url = dir.Write("s.jsonl", small);
  for (uint64_t task : {1, 2, 5, 13, 50}) CheckCuts(url, small, task, task, options);

  const std::string sample_url = testing::RepoFile("data/sample-jsonl/part-00.jsonl");
  const std::string sample = testing::ReadFile(sample_url);
  Rng rng(5, 0);
  for (int i = 0; i < 4; ++i) {
    const auto task = static_cast<uint64_t>(rng.RandInt(5000, 500000));
    CheckCuts(sample_url, sample, task, static_cast<uint64_t>(rng.RandInt(1, 5000)), options);
  }
}

TEST(BoundaryTest, EdgesAndErrors) {
  testing::TempDir dir;
  const std::string url = dir.Write("x.txt", "a\n\nb\n");
  EXPECT_EQ(*NextDocumentBoundary(Local(), url, 0, 5, InputFormat::kText), 0u);
  EXPECT_EQ(*NextDocumentBoundary(Local(), url, 1, 5, InputFormat::kText), 3u);
  EXPECT_EQ(*NextDocumentBoundary(Local(), url, 2, 5, InputFormat::kText), 3u);
  EXPECT_EQ(*NextDocumentBoundary(Local(), url, 3, 5, InputFormat::kText), 5u);
  EXPECT_EQ(*NextDocumentBoundary(Local(), url, 9, 5, InputFormat::kText), 5u);
  EXPECT_EQ(*NextDocumentBoundary(Local(), url, 3, 5, InputFormat::kJsonl), 3u);
  EXPECT_EQ(*NextDocumentBoundary(Local(), url, 4, 5, InputFormat::kJsonl), 5u);

  auto gz = NextDocumentBoundary(Local(), dir.path() + "/x.txt.gz", 10, 100, InputFormat::kText);
  ASSERT_FALSE(gz.ok());
  EXPECT_EQ(gz.status().code(), StatusCode::kInvalidArgument);

  auto missing =
      NextDocumentBoundary(Local(), dir.path() + "/none.txt", 1, 100, InputFormat::kText);
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), StatusCode::kNotFound);
}

TEST(BoundaryTest, ReadsOnlyWhatItNeeds) {
  testing::TempDir dir;
  std::string data = "first\n\nsecond\n";
  data += std::string(5 << 20, 'x');  // a long last line that the boundary search never reaches
  const std::string url = dir.Write("big.txt", data);
  Storage& storage = Local();
  const uint64_t before = storage.counters().bytes_read;
  auto b = NextDocumentBoundary(storage, url, 1, data.size(), InputFormat::kText);
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(*b, 7u);
  EXPECT_LE(storage.counters().bytes_read - before, uint64_t{2} << 20);
}

}  // namespace
}  // namespace tokenmill
