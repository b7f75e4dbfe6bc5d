#include "tokenmill/formats/llmc.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tokenmill/base/sha256.h"
#include "tokenmill/formats/formats_testing.h"
#include "tokenmill/formats/shard_reader.h"

namespace tokenmill {
namespace {

using testing::Gpt;
using testing::ReadAll;
using testing::TempDir;
using testing::WriteShards;

ShardWriterOptions LlmcOptions(const TempDir& dir, uint32_t vocab) {
  ShardWriterOptions o;
  o.format = OutputFormat::kLlmc;
  o.scratch_dir = dir.path();
  o.vocab_size = vocab;
  o.task_id = 12;
  return o;
}

std::vector<std::vector<uint32_t>> ReadRecords(const std::string& path,
                                               const ShardReaderOptions& options, Status* status) {
  auto source = LocalFileSource(path);
  if (!source.ok()) {
    *status = source.status();
    return {};
  }
  return testing::ReadTokens(OpenLlmcShard(*source, options), status);
}

TEST(Llmc, HeaderFollowsTheVocabulary) {
  EXPECT_EQ(LlmcHeaderForVocab(50257, 0).magic, kLlmcMagicUint16);
  EXPECT_EQ(LlmcHeaderForVocab(65536, 0).magic, kLlmcMagicUint16);
  EXPECT_EQ(LlmcHeaderForVocab(65536, 0).token_bytes(), 2u);
  LlmcHeader wide = LlmcHeaderForVocab(65537, 0);
  EXPECT_EQ(wide.magic, kLlmcMagicUint32);
  EXPECT_EQ(wide.version, kLlmcVersionUint32);
  EXPECT_EQ(wide.token_bytes(), 4u);
}

TEST(Llmc, HeaderExactBytes) {
  std::string h = EncodeLlmcHeader(LlmcHeaderForVocab(50257, 3));
  ASSERT_EQ(h.size(), 1024u);
  EXPECT_EQ(testing::Hex(h.substr(0, 12)),
            "88d83401"
            "01000000"
            "03000000");  // 20240520, 1, 3
  EXPECT_EQ(h.substr(12), std::string(1012, '\0'));
  h = EncodeLlmcHeader(LlmcHeaderForVocab(128256, 70000));
  EXPECT_EQ(testing::Hex(h.substr(0, 12)),
            "a1d93401"
            "07000000"
            "70110100");  // 20240801, 7, 70000
}

TEST(Llmc, WriteAndReadBack) {
  TempDir dir;
  const uint32_t eod = 50256;
  std::vector<Example> docs = testing::GptDocuments(40, 30, 50257, eod, 2);
  std::vector<ShardFile> files = WriteShards(LlmcOptions(dir, 50257), docs);
  ASSERT_EQ(files.size(), 1u);
  EXPECT_EQ(files[0].name, "part-000012-000.bin");
  uint64_t tokens = 0;
  std::vector<uint32_t> all;
  for (const Example& e : docs) {
    tokens += e.tokens.size();
    all.insert(all.end(), e.tokens.begin(), e.tokens.end());
  }
  EXPECT_EQ(files[0].examples, docs.size());
  EXPECT_EQ(files[0].tokens, tokens);
  EXPECT_EQ(files[0].bytes, 1024 + 2 * tokens);
  std::string content = ReadAll(files[0].local_path);
  EXPECT_EQ(content.size(), files[0].bytes);
  EXPECT_EQ(Sha256Hex(content), files[0].sha256);  // the digest covers the final header

  ShardReaderOptions by_document;
  by_document.eod_id = eod;
  Status status;
  auto got = ReadRecords(files[0].local_path, by_document, &status);
  ASSERT_TRUE(status.ok()) << status.ToString();
  ASSERT_EQ(got.size(), docs.size());
  for (size_t i = 0; i < docs.size(); ++i) EXPECT_EQ(got[i], docs[i].tokens) << i;

  ShardReaderOptions chunks;
  chunks.llmc_chunk_tokens = 7;
  got = ReadRecords(files[0].local_path, chunks, &status);
  ASSERT_TRUE(status.ok()) << status.ToString();
  std::vector<uint32_t> joined;
  for (const auto& r : got) {
    EXPECT_LE(r.size(), 7u);
    joined.insert(joined.end(), r.begin(), r.end());
  }
  EXPECT_EQ(joined, all);
  EXPECT_EQ(got.size(), (all.size() + 6) / 7);

  auto reader = OpenLocalShard(files[0].local_path);
  ASSERT_TRUE(reader.ok());
  EXPECT_EQ((*reader)->info().format, OutputFormat::kLlmc);
  EXPECT_EQ((*reader)->info().tokens, static_cast<int64_t>(tokens));
  EXPECT_EQ((*reader)->info().llmc_magic, kLlmcMagicUint16);
}

TEST(Llmc, WidthAtTheBoundary) {
  for (uint32_t vocab : {65536u, 65537u}) {
    TempDir dir;
    std::vector<Example> docs = {Gpt({vocab - 1, 0, 1})};
    std::vector<ShardFile> files = WriteShards(LlmcOptions(dir, vocab), docs);
    ASSERT_EQ(files.size(), 1u);
    const bool narrow = vocab <= 65536;
    EXPECT_EQ(files[0].bytes, 1024u + (narrow ? 6 : 12));
    std::string content = ReadAll(files[0].local_path);
    EXPECT_EQ(testing::Hex(content.substr(0, 4)), narrow ? "88d83401" : "a1d93401");
    Status status;
    auto got = ReadRecords(files[0].local_path, {}, &status);
    ASSERT_TRUE(status.ok()) << status.ToString();
    ASSERT_EQ(got.size(), 1u);
    EXPECT_EQ(got[0], docs[0].tokens);
  }
}

TEST(Llmc, RefusesWhatItCannotHold) {
  TempDir dir;
  EXPECT_TRUE(CreateShardWriter(LlmcOptions(dir, 0)).status().Is(StatusCode::kInvalidArgument));
  auto writer = CreateShardWriter(LlmcOptions(dir, 100));
  ASSERT_TRUE(writer.ok());
  Status s = (*writer)->Add(Gpt({}));
  EXPECT_TRUE(s.Is(StatusCode::kInvalidArgument));
  EXPECT_NE(s.message().find("empty document"), std::string::npos) << s.message();
  (*writer)->Abandon();
  EXPECT_TRUE(dir.List().empty());
}

// Every header byte flipped (xor 0xff) is detected by the llm.c reader; any single bit flipped
// anywhere never crashes; a truncated file is a size error.
TEST(Llmc, CorruptionOfEveryByte) {
  TempDir dir;
  std::vector<Example> docs = {Gpt({9, 1, 2}), Gpt({9, 3})};
  std::vector<ShardFile> files = WriteShards(LlmcOptions(dir, 50257), docs);
  ASSERT_EQ(files.size(), 1u);
  const std::string path = files[0].local_path;
  const std::string good = ReadAll(path);
  ShardReaderOptions options;
  options.eod_id = 9;
  for (size_t i = 0; i < good.size(); ++i) {
    for (int mask : {0xff, 0x01, 0x40, 0x80}) {
      std::string bad = good;
      bad[i] = static_cast<char>(bad[i] ^ mask);
      testing::WriteFile(path, bad);
      Status status;
      ReadRecords(path, options, &status);
      if (i < kLlmcHeaderBytes && mask == 0xff) {
        ASSERT_TRUE(status.Is(StatusCode::kDataLoss)) << "header byte " << i;
        EXPECT_NE(status.message().find(path), std::string::npos);
        EXPECT_NE(status.message().find("byte offset"), std::string::npos);
      }
    }
  }
  for (size_t n = 0; n < good.size(); ++n) {
    testing::WriteFile(path, good.substr(0, n));
    Status status;
    ReadRecords(path, options, &status);
    EXPECT_FALSE(status.ok()) << n;
  }
}

}  // namespace
}  // namespace tokenmill
