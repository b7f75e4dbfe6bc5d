#include "tokenmill/formats/shard_writer.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "tokenmill/base/sha256.h"
#include "tokenmill/formats/formats_testing.h"
#include "tokenmill/formats/shard_reader.h"
#include "tokenmill/formats/tf_example.h"
#include "tokenmill/formats/tfrecord.h"

namespace tokenmill {
namespace {

using testing::Electra;
using testing::Gpt;
using testing::TempDir;
using testing::WriteShards;

ShardWriterOptions Options(const TempDir& dir, OutputFormat format, uint64_t shard_size) {
  ShardWriterOptions o;
  o.format = format;
  o.scratch_dir = dir.path();
  o.shard_size = shard_size;
  o.task_id = 3;
  o.vocab_size = 30522;
  return o;
}

std::vector<std::string> Names(const std::vector<ShardFile>& files) {
  std::vector<std::string> names;
  for (const ShardFile& f : files) names.push_back(f.name);
  return names;
}

uint64_t TfRecordSize(const Example& e) {
  std::string payload;
  EncodeTfExample(e, &payload);
  return payload.size() + kTfRecordOverhead;
}

TEST(OutputFormat, NamesRoundTrip) {
  for (OutputFormat f : {OutputFormat::kTfRecord, OutputFormat::kMegatron, OutputFormat::kLlmc}) {
    auto parsed = ParseOutputFormat(OutputFormatName(f));
    ASSERT_TRUE(parsed.ok());
    EXPECT_EQ(*parsed, f);
  }
  auto bad = ParseOutputFormat("parquet");
  EXPECT_TRUE(bad.status().Is(StatusCode::kInvalidArgument));
  EXPECT_NE(bad.status().message().find("use tfrecord, megatron or llmc"), std::string::npos);
}

TEST(ShardWriter, TfRecordRollsBeforeExceedingShardSize) {
  std::vector<Example> examples(7, Electra({101, 7592, 2088, 102}, 16, 2));
  const uint64_t record = TfRecordSize(examples[0]);
  struct Case {
    uint64_t shard_size;
    std::vector<uint64_t> per_shard;
  };
  for (const Case& c : {Case{3 * record, {3, 3, 1}}, Case{3 * record - 1, {2, 2, 2, 1}},
                        Case{record - 1, {1, 1, 1, 1, 1, 1, 1}}, Case{1ull << 30, {7}}}) {
    TempDir dir;
    std::vector<ShardFile> files =
        WriteShards(Options(dir, OutputFormat::kTfRecord, c.shard_size), examples);
    ASSERT_EQ(files.size(), c.per_shard.size()) << c.shard_size;
    for (size_t i = 0; i < files.size(); ++i) {
      char name[64];
      std::snprintf(name, sizeof(name), "part-000003-%03zu.tfrecord", i);
      EXPECT_EQ(files[i].name, name);
      EXPECT_EQ(files[i].examples, c.per_shard[i]);
      EXPECT_EQ(files[i].tokens, 4 * c.per_shard[i]);  // real tokens, not the padding
      EXPECT_EQ(files[i].bytes, record * c.per_shard[i]);
      if (c.shard_size >= record) {
        EXPECT_LE(files[i].bytes, c.shard_size);
      }
      EXPECT_EQ(Sha256Hex(testing::ReadAll(files[i].local_path)), files[i].sha256);
    }
    EXPECT_EQ(dir.List(), Names(files));
  }
}

TEST(ShardWriter, MegatronShardSizeCountsBothFiles) {
  std::vector<Example> examples(10, Gpt({1, 2, 3, 4, 5}));
  // An empty shard is 42 bytes of index; each 5-token document adds 10 + 20 bytes.
  const uint64_t shard_size = 42 + 4 * 30;
  TempDir dir;
  std::vector<ShardFile> files =
      WriteShards(Options(dir, OutputFormat::kMegatron, shard_size), examples);
  EXPECT_EQ(Names(files), (std::vector<std::string>{"part-000003-000.bin", "part-000003-000.idx",
                                                    "part-000003-001.bin", "part-000003-001.idx",
                                                    "part-000003-002.bin", "part-000003-002.idx"}));
  EXPECT_EQ(files[0].bytes + files[1].bytes, shard_size);
  EXPECT_EQ(files[0].examples, 4u);
  EXPECT_EQ(files[4].examples, 2u);
  EXPECT_EQ(files[0].tokens, 20u);
}

TEST(ShardWriter, LlmcRollsAtShardSize) {
  std::vector<Example> examples(7, Gpt({102, 1, 2, 3, 4, 5, 6, 7, 8, 9}));
  TempDir dir;
  std::vector<ShardFile> files =
      WriteShards(Options(dir, OutputFormat::kLlmc, 1024 + 3 * 20), examples);
  EXPECT_EQ(Names(files), (std::vector<std::string>{"part-000003-000.bin", "part-000003-001.bin",
                                                    "part-000003-002.bin"}));
  EXPECT_EQ(files[0].bytes, 1084u);
  EXPECT_EQ(files[2].examples, 1u);
}

TEST(ShardWriter, NoExampleNoFile) {
  TempDir dir;
  ShardWriterOptions options = Options(dir, OutputFormat::kTfRecord, 1000);
  options.scratch_dir = dir.Join("not-created");
  for (OutputFormat f : {OutputFormat::kTfRecord, OutputFormat::kMegatron, OutputFormat::kLlmc}) {
    options.format = f;
    auto writer = CreateShardWriter(options);
    ASSERT_TRUE(writer.ok());
    auto files = (*writer)->Finish();
    ASSERT_TRUE(files.ok());
    EXPECT_TRUE(files->empty());
  }
  EXPECT_FALSE(std::filesystem::exists(options.scratch_dir));
}

TEST(ShardWriter, AbandonLeavesNoFile) {
  for (OutputFormat f : {OutputFormat::kTfRecord, OutputFormat::kMegatron, OutputFormat::kLlmc}) {
    TempDir dir;
    auto writer = CreateShardWriter(Options(dir, f, 1100));
    ASSERT_TRUE(writer.ok());
    for (int i = 0; i < 100; ++i) ASSERT_TRUE((*writer)->Add(Gpt({1, 2, 3, 4, 5, 6})).ok());
    EXPECT_GT(dir.List().size(), 1u);  // several shards written, one open
    (*writer)->Abandon();
    EXPECT_TRUE(dir.List().empty()) << OutputFormatName(f);
    EXPECT_TRUE((*writer)->Add(Gpt({1})).Is(StatusCode::kFailedPrecondition));
    EXPECT_FALSE((*writer)->Finish().ok());
  }
}

TEST(ShardWriter, DestroyedUnfinishedLeavesNoFileFinishedKeepsThem) {
  TempDir dir;
  {
    auto writer = CreateShardWriter(Options(dir, OutputFormat::kMegatron, 1 << 20));
    ASSERT_TRUE(writer.ok());
    ASSERT_TRUE((*writer)->Add(Gpt({1, 2})).ok());
  }
  EXPECT_TRUE(dir.List().empty());
  std::vector<ShardFile> files;
  {
    auto writer = CreateShardWriter(Options(dir, OutputFormat::kMegatron, 1 << 20));
    ASSERT_TRUE(writer.ok());
    ASSERT_TRUE((*writer)->Add(Gpt({1, 2})).ok());
    auto done = (*writer)->Finish();
    ASSERT_TRUE(done.ok());
    files = *done;
  }
  EXPECT_EQ(dir.List(), Names(files));
}

TEST(ShardWriter, FirstErrorSticks) {
  TempDir dir;
  auto writer = CreateShardWriter(Options(dir, OutputFormat::kTfRecord, 1 << 20));
  ASSERT_TRUE(writer.ok());
  ASSERT_TRUE((*writer)->Add(Electra({101, 102}, 4, 1)).ok());
  Example bad = Electra({101, 102}, 4, 1);
  bad.segment_ids.pop_back();
  Status first = (*writer)->Add(bad);
  EXPECT_TRUE(first.Is(StatusCode::kInvalidArgument));
  EXPECT_NE(first.message().find("4 tokens but 3 segment_ids"), std::string::npos);
  Status again = (*writer)->Add(Electra({101, 102}, 4, 1));
  EXPECT_EQ(again.message(), first.message());
  EXPECT_EQ((*writer)->Finish().status().message(), first.message());
  (*writer)->Abandon();
  EXPECT_TRUE(dir.List().empty());
}

TEST(ShardWriter, ChecksExamples) {
  TempDir dir;
  auto writer = CreateShardWriter(Options(dir, OutputFormat::kTfRecord, 1 << 20));
  ASSERT_TRUE(writer.ok());
  Example e = Gpt({1, 2});
  e.num_real_tokens = 3;
  EXPECT_TRUE((*writer)->Add(e).Is(StatusCode::kInvalidArgument));
  writer = CreateShardWriter(Options(dir, OutputFormat::kTfRecord, 1 << 20));
  EXPECT_TRUE((*writer)->Add(Gpt({30522})).Is(StatusCode::kInvalidArgument));

  ShardWriterOptions options = Options(dir, OutputFormat::kTfRecord, 1 << 20);
  options.scratch_dir = "";
  EXPECT_TRUE(CreateShardWriter(options).status().Is(StatusCode::kInvalidArgument));
  options.scratch_dir = dir.path();
  options.shard_size = 0;
  EXPECT_TRUE(CreateShardWriter(options).status().Is(StatusCode::kInvalidArgument));
}

TEST(ShardWriter, UnusableScratchFolderIsAnIoError) {
  TempDir dir;
  testing::WriteFile(dir.Join("file"), "x");
  ShardWriterOptions options = Options(dir, OutputFormat::kTfRecord, 1 << 20);
  options.scratch_dir = dir.Join("file/sub");
  auto writer = CreateShardWriter(options);
  ASSERT_TRUE(writer.ok());
  Status s = (*writer)->Add(Gpt({1}));
  EXPECT_TRUE(s.Is(StatusCode::kIoError)) << s.ToString();
  EXPECT_NE(s.message().find("file/sub"), std::string::npos) << s.message();
}

// Files larger than the 1 MiB buffer, so that the writing threads take several buffers each.
TEST(ShardWriter, WriteBehindGivesTheSameFiles) {
  std::vector<Example> examples;
  for (uint32_t i = 0; i < 3000; ++i) {
    std::vector<uint32_t> ids(400);
    for (uint32_t j = 0; j < ids.size(); ++j) ids[j] = (i * 7919 + j * 104729) % 30000;
    examples.push_back(Gpt(ids));
  }
  for (OutputFormat format :
       {OutputFormat::kTfRecord, OutputFormat::kMegatron, OutputFormat::kLlmc}) {
    std::vector<std::vector<ShardFile>> runs;
    std::vector<TempDir> dirs(2);
    for (bool behind : {false, true}) {
      ShardWriterOptions options = Options(dirs[behind], format, 2 << 20);
      options.write_behind = behind;
      runs.push_back(WriteShards(options, examples));
    }
    ASSERT_EQ(runs[0].size(), runs[1].size()) << OutputFormatName(format);
    ASSERT_GE(runs[0].size(), 2u);
    for (size_t i = 0; i < runs[0].size(); ++i) {
      EXPECT_EQ(runs[0][i].name, runs[1][i].name);
      EXPECT_EQ(runs[0][i].sha256, runs[1][i].sha256);
      EXPECT_EQ(runs[1][i].sha256, Sha256Hex(testing::ReadAll(runs[1][i].local_path)));
      EXPECT_EQ(testing::ReadAll(runs[0][i].local_path), testing::ReadAll(runs[1][i].local_path));
    }
  }
}

TEST(ShardWriter, TfRecordRoundTripThroughTheReader) {
  TempDir dir;
  std::vector<Example> examples;
  for (uint32_t i = 0; i < 20; ++i) examples.push_back(Electra({101, 1000 + i, 102}, 8, 2));
  examples.push_back(Gpt({5, 6, 7}));
  std::vector<ShardFile> files =
      WriteShards(Options(dir, OutputFormat::kTfRecord, 1 << 20), examples);
  ASSERT_EQ(files.size(), 1u);
  auto reader = OpenLocalShard(files[0].local_path);
  ASSERT_TRUE(reader.ok());
  Example e;
  for (const Example& want : examples) {
    StatusOr<bool> got = (*reader)->Next(&e);
    ASSERT_TRUE(got.ok() && *got) << got.status().ToString();
    EXPECT_EQ(e.tokens, want.tokens);
    EXPECT_EQ(e.input_mask, want.input_mask);
    EXPECT_EQ(e.segment_ids, want.segment_ids);
    EXPECT_EQ(e.num_real_tokens, want.num_real_tokens);
  }
  StatusOr<bool> end = (*reader)->Next(&e);
  ASSERT_TRUE(end.ok());
  EXPECT_FALSE(*end);
  EXPECT_EQ((*reader)->counts().records, examples.size());
  EXPECT_EQ((*reader)->counts().tokens, 20u * 8 + 3);
  EXPECT_EQ((*reader)->counts().real_tokens, 20u * 3 + 3);
  EXPECT_EQ((*reader)->counts().real_tokens, files[0].tokens);
}

// A document in parts (Example::more) is one record: the same bytes as the whole document in a
// shard of its own, which it starts; the records after it follow the size rule.
TEST(ShardWriter, DocumentInPartsIsOneRecordInAShardItStarts) {
  auto part = [](std::vector<uint32_t> tokens, bool more) {
    Example e = Gpt(std::move(tokens));
    e.more = more;
    return e;
  };
  for (OutputFormat format : {OutputFormat::kMegatron, OutputFormat::kLlmc}) {
    SCOPED_TRACE(std::string(OutputFormatName(format)));
    const std::vector<Example> before = {Gpt({7, 8})};
    const std::vector<Example> parts = {part({1, 2, 3}, true), part({4}, true), part({}, true),
                                        part({5, 6}, false), Gpt({9, 9})};
    const std::vector<Example> whole = {Gpt({1, 2, 3, 4, 5, 6}), Gpt({9, 9})};
    TempDir a, b;
    std::vector<Example> with_parts = before;
    with_parts.insert(with_parts.end(), parts.begin(), parts.end());
    const std::vector<ShardFile> fa = WriteShards(Options(a, format, 1 << 20), with_parts);
    const std::vector<ShardFile> fb0 = WriteShards(Options(b, format, 1 << 20), before);
    ASSERT_FALSE(fb0.empty());
    TempDir c;
    const std::vector<ShardFile> fc = WriteShards(Options(c, format, 1 << 20), whole);
    // Shard 000: the document before; shard 001: the long document and the one after it.
    const size_t per_shard = format == OutputFormat::kMegatron ? 2 : 1;
    ASSERT_EQ(fa.size(), 2 * per_shard);
    EXPECT_EQ(fa[per_shard].examples, 2u);
    EXPECT_EQ(fa[per_shard].tokens, 8u);
    for (size_t k = 0; k < per_shard; ++k) {
      EXPECT_EQ(testing::ReadAll(fa[k].local_path), testing::ReadAll(fb0[k].local_path));
      EXPECT_EQ(testing::ReadAll(fa[per_shard + k].local_path), testing::ReadAll(fc[k].local_path));
    }
  }
}

TEST(ShardWriter, PartsAreRefusedByTfRecordAndMustEnd) {
  TempDir dir;
  Example e = Electra({101, 5, 102}, 8, 2);
  e.more = true;
  auto tf = CreateShardWriter(Options(dir, OutputFormat::kTfRecord, 1 << 20));
  ASSERT_TRUE(tf.ok());
  EXPECT_FALSE((*tf)->Add(e).ok());
  (*tf)->Abandon();
  auto mm = CreateShardWriter(Options(dir, OutputFormat::kMegatron, 1 << 20));
  ASSERT_TRUE(mm.ok());
  Example p = Gpt({1, 2});
  p.more = true;
  ASSERT_TRUE((*mm)->Add(p).ok());
  EXPECT_FALSE((*mm)->Finish().ok());  // the document never ended
  (*mm)->Abandon();
  EXPECT_TRUE(dir.List().empty());
}

}  // namespace
}  // namespace tokenmill
