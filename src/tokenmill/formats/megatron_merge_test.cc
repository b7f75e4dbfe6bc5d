#include "tokenmill/formats/megatron_merge.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "tokenmill/base/sha256.h"
#include "tokenmill/formats/formats_testing.h"
#include "tokenmill/formats/megatron.h"
#include "tokenmill/formats/shard_reader.h"

namespace tokenmill {
namespace {

using testing::Gpt;
using testing::ReadAll;
using testing::TempDir;

// Writes `docs` as Megatron shard(s) of task `task` in `dir`; returns the prefixes.
std::vector<std::string> WritePart(const TempDir& dir, uint64_t task, uint32_t vocab,
                                   const std::vector<Example>& docs, uint64_t shard_size) {
  ShardWriterOptions o;
  o.format = OutputFormat::kMegatron;
  o.scratch_dir = dir.path();
  o.vocab_size = vocab;
  o.task_id = task;
  o.shard_size = shard_size;
  std::vector<std::string> prefixes;
  for (const ShardFile& f : testing::WriteShards(o, docs)) {
    if (f.name.ends_with(".bin"))
      prefixes.push_back(f.local_path.substr(0, f.local_path.size() - 4));
  }
  return prefixes;
}

TEST(MegatronMerge, EqualsTheConcatenation) {
  TempDir dir;
  std::vector<Example> a = testing::GptDocuments(30, 20, 50257, 50256, 10);
  std::vector<Example> b = testing::GptDocuments(5, 50, 50257, 50256, 11);
  std::vector<Example> c = testing::GptDocuments(17, 9, 50257, 50256, 12);
  std::vector<std::string> prefixes = WritePart(dir, 0, 50257, a, 400);  // several shards
  ASSERT_GT(prefixes.size(), 1u);
  for (const auto& p : WritePart(dir, 1, 50257, b, 1 << 20)) prefixes.push_back(p);
  for (const auto& p : WritePart(dir, 2, 50257, c, 1 << 20)) prefixes.push_back(p);

  auto merged = MergeMegatron(prefixes, dir.Join("merged"));
  ASSERT_TRUE(merged.ok()) << merged.status().ToString();
  ASSERT_EQ(merged->size(), 2u);
  std::vector<Example> all = a;
  all.insert(all.end(), b.begin(), b.end());
  all.insert(all.end(), c.begin(), c.end());
  uint64_t tokens = 0;
  for (const Example& e : all) tokens += e.tokens.size();
  EXPECT_EQ((*merged)[0].name, "merged.bin");
  EXPECT_EQ((*merged)[1].name, "merged.idx");
  EXPECT_EQ((*merged)[0].examples, all.size());
  EXPECT_EQ((*merged)[0].tokens, tokens);
  for (const ShardFile& f : *merged) EXPECT_EQ(Sha256Hex(ReadAll(f.local_path)), f.sha256);

  auto reader = OpenLocalShard(dir.Join("merged"));
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  EXPECT_EQ((*reader)->info().documents, static_cast<int64_t>(all.size()));
  Example e;
  for (const Example& want : all) {
    StatusOr<bool> got = (*reader)->Next(&e);
    ASSERT_TRUE(got.ok() && *got);
    EXPECT_EQ(e.tokens, want.tokens);
  }
  ASSERT_FALSE(*(*reader)->Next(&e));

  // The index is exactly what a single writer of all documents would produce.
  std::vector<int32_t> lengths;
  std::vector<int64_t> documents = {0};
  for (const Example& d : all) {
    lengths.push_back(static_cast<int32_t>(d.tokens.size()));
    documents.push_back(static_cast<int64_t>(lengths.size()));
  }
  EXPECT_EQ(ReadAll(dir.Join("merged.idx")),
            EncodeMegatronIndex(MegatronDType::kUint16, lengths, documents));
}

TEST(MegatronMerge, RebasesMultiSequenceDocuments) {
  // Parts whose documents hold several sequences (as Megatron's sentence-split data does).
  TempDir dir;
  testing::WriteFile(dir.Join("p1.bin"), std::string(2 * 6, '\1'));
  testing::WriteFile(dir.Join("p1.idx"),
                     EncodeMegatronIndex(MegatronDType::kUint16, {1, 2, 3}, {0, 2, 3}));
  testing::WriteFile(dir.Join("p2.bin"), std::string(2 * 4, '\2'));
  testing::WriteFile(dir.Join("p2.idx"),
                     EncodeMegatronIndex(MegatronDType::kUint16, {4, 0}, {0, 0, 2}));
  auto merged = MergeMegatron({dir.Join("p1"), dir.Join("p2")}, dir.Join("m"));
  ASSERT_TRUE(merged.ok()) << merged.status().ToString();
  auto index = ParseMegatronIndex(ReadAll(dir.Join("m.idx")), "m.idx", 20);
  ASSERT_TRUE(index.ok()) << index.status().ToString();
  EXPECT_EQ(index->sequence_lengths, (std::vector<int32_t>{1, 2, 3, 4, 0}));
  EXPECT_EQ(index->sequence_pointers, (std::vector<int64_t>{0, 2, 6, 12, 20}));
  EXPECT_EQ(index->document_indices, (std::vector<int64_t>{0, 2, 3, 3, 5}));
  EXPECT_EQ(ReadAll(dir.Join("m.bin")), std::string(12, '\1') + std::string(8, '\2'));
}

TEST(MegatronMerge, Errors) {
  TempDir dir;
  std::vector<std::string> narrow = WritePart(dir, 0, 50257, {Gpt({1, 2})}, 1 << 20);
  std::vector<std::string> wide = WritePart(dir, 1, 100277, {Gpt({3})}, 1 << 20);
  auto mixed = MergeMegatron({narrow[0], wide[0]}, dir.Join("out"));
  EXPECT_TRUE(mixed.status().Is(StatusCode::kInvalidArgument));
  EXPECT_NE(mixed.status().message().find("same vocabulary size"), std::string::npos);
  EXPECT_FALSE(std::filesystem::exists(dir.Join("out.bin")));
  EXPECT_FALSE(std::filesystem::exists(dir.Join("out.idx")));

  EXPECT_TRUE(MergeMegatron({}, dir.Join("out")).status().Is(StatusCode::kInvalidArgument));
  EXPECT_TRUE(MergeMegatron({narrow[0]}, narrow[0]).status().Is(StatusCode::kInvalidArgument));
  EXPECT_TRUE(
      MergeMegatron({dir.Join("absent")}, dir.Join("out")).status().Is(StatusCode::kNotFound));

  // A damaged part is refused, after a good one too: an existing output stays untouched, and
  // the merge's scratch files go.
  testing::WriteFile(dir.Join("out.bin"), "keep");
  std::vector<std::string> good = WritePart(dir, 2, 50257, {Gpt({4, 5, 6})}, 1 << 20);
  std::string bin = ReadAll(narrow[0] + ".bin");
  testing::WriteFile(narrow[0] + ".bin", bin + "x");
  for (const auto& parts : {std::vector<std::string>{narrow[0]}, {good[0], narrow[0]}}) {
    auto damaged = MergeMegatron(parts, dir.Join("out"));
    EXPECT_TRUE(damaged.status().Is(StatusCode::kDataLoss)) << damaged.status().ToString();
    EXPECT_NE(damaged.status().message().find(narrow[0] + ".idx"), std::string::npos)
        << damaged.status().ToString();
    EXPECT_EQ(ReadAll(dir.Join("out.bin")), "keep");
    EXPECT_FALSE(std::filesystem::exists(dir.Join("out.idx")));
    for (const auto& e : std::filesystem::directory_iterator(dir.path())) {
      EXPECT_EQ(e.path().filename().string().find(".merging"), std::string::npos) << e.path();
    }
  }
}

// Parts read through another opener (a bucket's, in finalize): each file once, front to back.
TEST(MegatronMerge, ReadsEachPartOnceFrontToBackThroughItsOpener) {
  TempDir dir;
  std::vector<Example> docs = testing::GptDocuments(40, 30, 50257, 50256, 13);
  std::vector<std::string> prefixes = WritePart(dir, 0, 50257, docs, 300);
  ASSERT_GT(prefixes.size(), 2u);
  std::map<std::string, std::vector<std::pair<uint64_t, uint64_t>>> reads;  // (offset, bytes)
  const SourceOpener open = [&](const std::string& path) -> StatusOr<ByteSource> {
    TM_ASSIGN_OR_RETURN(ByteSource local, LocalFileSource(path));
    ByteSource source = local;
    source.read_at = [&reads, path, local](uint64_t offset,
                                           uint64_t length) -> StatusOr<std::string> {
      TM_ASSIGN_OR_RETURN(std::string bytes, local.read_at(offset, length));
      reads[path].emplace_back(offset, bytes.size());
      return bytes;
    };
    return source;
  };
  auto merged = MergeMegatron(prefixes, dir.Join("m"), open);
  ASSERT_TRUE(merged.ok()) << merged.status().ToString();
  auto plain = MergeMegatron(prefixes, dir.Join("p"));
  ASSERT_TRUE(plain.ok()) << plain.status().ToString();
  EXPECT_EQ(ReadAll(dir.Join("m.bin")), ReadAll(dir.Join("p.bin")));
  EXPECT_EQ(ReadAll(dir.Join("m.idx")), ReadAll(dir.Join("p.idx")));
  EXPECT_EQ(reads.size(), 2 * prefixes.size());
  for (const auto& [path, list] : reads) {
    uint64_t next = 0;
    for (const auto& [offset, bytes] : list) {
      EXPECT_EQ(offset, next) << path;
      next = offset + bytes;
    }
    EXPECT_EQ(next, std::filesystem::file_size(path)) << path;
  }
}

}  // namespace
}  // namespace tokenmill
