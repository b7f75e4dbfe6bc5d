#include "tokenmill/formats/shard_reader.h"

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "tokenmill/formats/formats_testing.h"
#include "tokenmill/formats/tfrecord.h"

namespace tokenmill {
namespace {

using testing::Gpt;
using testing::TempDir;

// Shards held in memory under URL-like names: the readers never touch the file system here.
class MemoryStore {
 public:
  // Writes `examples` with a real writer and keeps the files under "<prefix>/<name>".
  void Add(const std::string& prefix, OutputFormat format, const std::vector<Example>& examples) {
    TempDir dir;
    ShardWriterOptions o;
    o.format = format;
    o.scratch_dir = dir.path();
    o.vocab_size = 1000;
    for (const ShardFile& f : testing::WriteShards(o, examples)) {
      files_[prefix + "/" + f.name] = testing::ReadAll(f.local_path);
    }
  }
  void Put(const std::string& name, std::string data) { files_[name] = std::move(data); }
  std::string& Get(const std::string& name) { return files_.at(name); }

  SourceOpener Opener() {
    return [this](const std::string& location) -> StatusOr<ByteSource> {
      ++opens_;
      auto it = files_.find(location);
      if (it == files_.end()) return Status::NotFound(location + ": no such object");
      return MemorySource(location, it->second);
    };
  }
  int opens() const { return opens_; }

 private:
  std::map<std::string, std::string> files_;
  int opens_ = 0;
};

std::vector<std::vector<uint32_t>> ReadAllTokens(ShardReader& reader) {
  Status status;
  auto tokens = testing::ReadTokens(reader, &status);
  EXPECT_TRUE(status.ok()) << status.ToString();
  return tokens;
}

const std::vector<Example> kDocs = {Gpt({999, 1, 2, 3}), Gpt({999, 4}), Gpt({999, 5, 6})};
const std::vector<std::vector<uint32_t>> kTokens = {{999, 1, 2, 3}, {999, 4}, {999, 5, 6}};

TEST(OpenShard, OpensEachFormatByName) {
  MemoryStore store;
  store.Add("s3://b/tf", OutputFormat::kTfRecord, kDocs);
  store.Add("s3://b/mg", OutputFormat::kMegatron, kDocs);
  store.Add("s3://b/lc", OutputFormat::kLlmc, kDocs);
  ShardReaderOptions options;
  options.eod_id = 999;
  struct Case {
    std::string location;
    OutputFormat format;
  };
  for (const Case& c : {Case{"s3://b/tf/part-000000-000.tfrecord", OutputFormat::kTfRecord},
                        Case{"s3://b/mg/part-000000-000.idx", OutputFormat::kMegatron},
                        Case{"s3://b/mg/part-000000-000.bin", OutputFormat::kMegatron},
                        Case{"s3://b/mg/part-000000-000", OutputFormat::kMegatron},
                        Case{"s3://b/lc/part-000000-000.bin", OutputFormat::kLlmc}}) {
    auto reader = OpenShard(c.location, store.Opener(), options);
    ASSERT_TRUE(reader.ok()) << c.location << ": " << reader.status().ToString();
    EXPECT_EQ((*reader)->info().format, c.format) << c.location;
    EXPECT_EQ(ReadAllTokens(**reader), kTokens) << c.location;
    EXPECT_EQ((*reader)->counts().records, 3u);
    EXPECT_EQ((*reader)->counts().tokens, 9u);
  }
}

TEST(OpenShard, SniffsFilesWithoutAKnownExtension) {
  MemoryStore store;
  store.Add("x", OutputFormat::kTfRecord, kDocs);
  store.Add("y", OutputFormat::kLlmc, kDocs);
  store.Put("tf-data", store.Get("x/part-000000-000.tfrecord"));
  store.Put("llmc-data", store.Get("y/part-000000-000.bin"));
  store.Put("text", "hello, this is not a shard at all");
  auto tf = OpenShard("tf-data", store.Opener());
  ASSERT_TRUE(tf.ok()) << tf.status().ToString();
  EXPECT_EQ((*tf)->info().format, OutputFormat::kTfRecord);
  auto lc = OpenShard("llmc-data", store.Opener());
  ASSERT_TRUE(lc.ok()) << lc.status().ToString();
  EXPECT_EQ((*lc)->info().format, OutputFormat::kLlmc);
  auto text = OpenShard("text", store.Opener());
  EXPECT_TRUE(text.status().Is(StatusCode::kInvalidArgument));
  EXPECT_NE(text.status().message().find("cannot tell the shard format"), std::string::npos);
  auto bin = OpenShard("plain.bin", [](const std::string& l) -> StatusOr<ByteSource> {
    if (l == "plain.bin") return MemorySource(l, "\x01\x02\x03\x04\x05\x06");
    return Status::NotFound(l);
  });
  EXPECT_TRUE(bin.status().Is(StatusCode::kInvalidArgument));
  EXPECT_NE(bin.status().message().find("no Megatron .idx beside it"), std::string::npos);
  auto missing = OpenShard("nothing.tfrecord", store.Opener());
  EXPECT_TRUE(missing.status().Is(StatusCode::kNotFound));
}

TEST(OpenShard, LocalFiles) {
  TempDir dir;
  ShardWriterOptions o;
  o.format = OutputFormat::kTfRecord;
  o.scratch_dir = dir.path();
  ASSERT_EQ(testing::WriteShards(o, kDocs).size(), 1u);
  auto reader = OpenLocalShard(dir.Join("part-000000-000.tfrecord"));
  ASSERT_TRUE(reader.ok());
  EXPECT_EQ(ReadAllTokens(**reader), kTokens);
  EXPECT_EQ((*reader)->info().bytes, testing::ReadAll(dir.Join("part-000000-000.tfrecord")).size());
  EXPECT_TRUE(OpenLocalShard(dir.Join("absent.tfrecord")).status().Is(StatusCode::kNotFound));
}

TEST(OpenShard, TfRecordDecodeErrorNamesFileAndOffset) {
  // A record with a valid frame whose data is not a tf.train.Example.
  MemoryStore store;
  store.Add("x", OutputFormat::kTfRecord, {Gpt({1})});
  std::string file = store.Get("x/part-000000-000.tfrecord");
  std::string record;
  AppendTfRecord("\x0b", &record);  // a field of wire type 3 (group): not valid here
  store.Put("bad.tfrecord", file + record);
  auto reader = OpenShard("bad.tfrecord", store.Opener());
  ASSERT_TRUE(reader.ok());
  Example e;
  ASSERT_TRUE((*reader)->Next(&e).ok());
  StatusOr<bool> got = (*reader)->Next(&e);
  ASSERT_FALSE(got.ok());
  EXPECT_TRUE(got.status().Is(StatusCode::kDataLoss));
  EXPECT_NE(got.status().message().find("bad.tfrecord: record at byte offset " +
                                        std::to_string(file.size())),
            std::string::npos)
      << got.status().message();
}

}  // namespace
}  // namespace tokenmill
