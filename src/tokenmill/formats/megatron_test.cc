#include "tokenmill/formats/megatron.h"

#include <gtest/gtest.h>

#include <algorithm>
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

ShardWriterOptions MegatronOptions(const TempDir& dir, uint32_t vocab, uint64_t task = 7) {
  ShardWriterOptions o;
  o.format = OutputFormat::kMegatron;
  o.scratch_dir = dir.path();
  o.vocab_size = vocab;
  o.task_id = task;
  return o;
}

std::vector<std::vector<uint32_t>> ReadTokens(const std::string& location, Status* status) {
  return testing::ReadTokens(OpenLocalShard(location), status);
}

TEST(Megatron, DTypeFollowsMegatronsOptimalDtype) {
  EXPECT_EQ(MegatronDTypeForVocab(1), MegatronDType::kUint16);
  EXPECT_EQ(MegatronDTypeForVocab(50257), MegatronDType::kUint16);
  EXPECT_EQ(MegatronDTypeForVocab(65499), MegatronDType::kUint16);
  EXPECT_EQ(MegatronDTypeForVocab(65500), MegatronDType::kInt32);
  EXPECT_EQ(MegatronDTypeForVocab(100277), MegatronDType::kInt32);
  EXPECT_EQ(MegatronDTypeSize(8), 2u);
  EXPECT_EQ(MegatronDTypeSize(4), 4u);
  EXPECT_EQ(MegatronDTypeSize(9), 0u);
}

TEST(Megatron, IndexExactBytes) {
  std::string idx = EncodeMegatronIndex(MegatronDType::kUint16, {2, 0, 3}, {0, 1, 2, 3});
  EXPECT_EQ(testing::Hex(idx),
            "4d4d49444944580000"  // MMIDIDX\0\0
            "0100000000000000"    // version 1
            "08"                  // uint16
            "0300000000000000"    // 3 sequences
            "0400000000000000"    // 4 document indices
            "02000000"
            "00000000"
            "03000000"  // lengths
            "0000000000000000"
            "0400000000000000"
            "0400000000000000"  // byte pointers
            "0000000000000000"
            "0100000000000000"
            "0200000000000000"
            "0300000000000000");
  auto parsed = ParseMegatronIndex(idx, "x.idx", 10);
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  EXPECT_EQ(parsed->sequence_lengths, (std::vector<int32_t>{2, 0, 3}));
  EXPECT_EQ(parsed->sequence_pointers, (std::vector<int64_t>{0, 4, 4}));
  EXPECT_EQ(parsed->total_tokens, 5u);
  EXPECT_FALSE(ParseMegatronIndex(idx, "x.idx", 12).ok());  // .bin of the wrong size
}

TEST(Megatron, WriteAndReadBack) {
  TempDir dir;
  std::vector<Example> docs = testing::GptDocuments(50, 40, 50257, 50256, 1);
  docs.push_back(Gpt({}));  // an empty document is kept as a zero-length sequence
  std::vector<ShardFile> files = WriteShards(MegatronOptions(dir, 50257), docs);
  ASSERT_EQ(files.size(), 2u);
  EXPECT_EQ(files[0].name, "part-000007-000.bin");
  EXPECT_EQ(files[1].name, "part-000007-000.idx");
  EXPECT_EQ(files[0].local_path, dir.Join("part-000007-000.bin"));
  uint64_t tokens = 0;
  for (const Example& e : docs) tokens += e.tokens.size();
  EXPECT_EQ(files[0].examples, docs.size());
  EXPECT_EQ(files[0].tokens, tokens);
  EXPECT_EQ(files[0].bytes, tokens * 2);
  EXPECT_EQ(files[1].examples, 0u);
  EXPECT_EQ(files[1].tokens, 0u);
  EXPECT_EQ(files[1].bytes, 34 + 20 * docs.size() + 8);
  for (const ShardFile& f : files) {
    std::string content = ReadAll(f.local_path);
    EXPECT_EQ(content.size(), f.bytes);
    EXPECT_EQ(Sha256Hex(content), f.sha256);
  }
  for (std::string location : {dir.Join("part-000007-000"), dir.Join("part-000007-000.idx"),
                               dir.Join("part-000007-000.bin")}) {
    Status status;
    auto got = ReadTokens(location, &status);
    ASSERT_TRUE(status.ok()) << status.ToString();
    ASSERT_EQ(got.size(), docs.size());
    for (size_t i = 0; i < docs.size(); ++i) EXPECT_EQ(got[i], docs[i].tokens) << i;
  }
  auto reader = OpenLocalShard(dir.Join("part-000007-000"));
  ASSERT_TRUE(reader.ok());
  EXPECT_EQ((*reader)->info().format, OutputFormat::kMegatron);
  EXPECT_EQ((*reader)->info().dtype, "uint16");
  EXPECT_EQ((*reader)->info().sequences, static_cast<int64_t>(docs.size()));
  EXPECT_EQ((*reader)->info().documents, static_cast<int64_t>(docs.size()));
  EXPECT_EQ((*reader)->info().tokens, static_cast<int64_t>(tokens));
}

TEST(Megatron, WidthAtTheDtypeBoundary) {
  for (uint32_t vocab : {65499u, 65500u}) {
    TempDir dir;
    std::vector<Example> docs = {Gpt({0, vocab - 1, 65498})};
    std::vector<ShardFile> files = WriteShards(MegatronOptions(dir, vocab), docs);
    ASSERT_EQ(files.size(), 2u);
    const bool narrow = vocab < 65500;
    EXPECT_EQ(files[0].bytes, narrow ? 6u : 12u);
    std::string idx = ReadAll(files[1].local_path);
    EXPECT_EQ(static_cast<uint8_t>(idx[17]), narrow ? 8 : 4);
    Status status;
    auto got = ReadTokens(dir.Join("part-000007-000"), &status);
    ASSERT_TRUE(status.ok()) << status.ToString();
    ASSERT_EQ(got.size(), 1u);
    EXPECT_EQ(got[0], docs[0].tokens);
  }
}

TEST(Megatron, RefusesWhatItCannotHold) {
  TempDir dir;
  ShardWriterOptions no_vocab = MegatronOptions(dir, 0);
  EXPECT_TRUE(CreateShardWriter(no_vocab).status().Is(StatusCode::kInvalidArgument));

  auto writer = CreateShardWriter(MegatronOptions(dir, 1000));
  ASSERT_TRUE(writer.ok());
  Status s = (*writer)->Add(Gpt({1, 1000}));
  EXPECT_TRUE(s.Is(StatusCode::kInvalidArgument));
  EXPECT_NE(s.message().find("token id 1000 at position 1 is outside the vocabulary"),
            std::string::npos)
      << s.message();
  (*writer)->Abandon();

  writer = CreateShardWriter(MegatronOptions(dir, 1000));
  ASSERT_TRUE(writer.ok());
  s = (*writer)->Add(testing::Electra({101, 102}, 4, 1));
  EXPECT_TRUE(s.Is(StatusCode::kInvalidArgument));
  EXPECT_NE(s.message().find("input_mask"), std::string::npos) << s.message();
  (*writer)->Abandon();
  EXPECT_TRUE(dir.List().empty());
}

// Flipping any byte of the .idx (xor 0xff) is detected; flipping any single bit of either file
// never crashes, and a bit flip in the .bin changes exactly one token (the format has no
// checksum over token data).
TEST(Megatron, CorruptionOfEveryByte) {
  TempDir dir;
  std::vector<Example> docs = {Gpt({5, 6, 7}), Gpt({8}), Gpt({9, 10})};
  WriteShards(MegatronOptions(dir, 50257), docs);
  const std::string idx_path = dir.Join("part-000007-000.idx");
  const std::string bin_path = dir.Join("part-000007-000.bin");
  const std::string idx = ReadAll(idx_path);
  const std::string bin = ReadAll(bin_path);
  for (size_t i = 0; i < idx.size(); ++i) {
    for (int mask : {0xff, 0x01, 0x02, 0x10, 0x80}) {
      std::string bad = idx;
      bad[i] = static_cast<char>(bad[i] ^ mask);
      testing::WriteFile(idx_path, bad);
      Status status;
      ReadTokens(dir.Join("part-000007-000"), &status);
      if (mask == 0xff) {
        ASSERT_TRUE(status.Is(StatusCode::kDataLoss)) << "idx byte " << i;
        EXPECT_NE(status.message().find("part-000007-000"), std::string::npos);
      }
    }
  }
  testing::WriteFile(idx_path, idx);
  for (size_t i = 0; i < bin.size(); ++i) {
    for (int bit = 0; bit < 8; ++bit) {
      std::string bad = bin;
      bad[i] = static_cast<char>(bad[i] ^ (1 << bit));
      testing::WriteFile(bin_path, bad);
      Status status;
      auto got = ReadTokens(dir.Join("part-000007-000"), &status);
      ASSERT_TRUE(status.ok());
      size_t differing = 0;
      for (size_t d = 0; d < got.size(); ++d) {
        for (size_t t = 0; t < got[d].size(); ++t) differing += got[d][t] != docs[d].tokens[t];
      }
      EXPECT_EQ(differing, 1u);
    }
  }
  // A truncated or extended .bin is a size error.
  testing::WriteFile(bin_path, bin.substr(0, bin.size() - 1));
  Status status;
  ReadTokens(dir.Join("part-000007-000"), &status);
  EXPECT_TRUE(status.Is(StatusCode::kDataLoss));
  EXPECT_NE(status.message().find("the .bin beside this index has 11 bytes"), std::string::npos)
      << status.message();
}

TEST(Megatron, VocabCheckOnRead) {
  TempDir dir;
  WriteShards(MegatronOptions(dir, 50257), {Gpt({5, 6, 700})});
  ShardReaderOptions options;
  options.vocab_size = 700;
  auto reader = OpenLocalShard(dir.Join("part-000007-000"), options);
  ASSERT_TRUE(reader.ok());
  Example e;
  StatusOr<bool> got = (*reader)->Next(&e);
  ASSERT_FALSE(got.ok());
  EXPECT_NE(got.status().message().find("token id 700 at byte offset 4"), std::string::npos)
      << got.status().message();
}

TEST(Megatron, ParseErrorsNameTheField) {
  std::string idx = EncodeMegatronIndex(MegatronDType::kUint16, {1, 1}, {0, 1, 2});
  auto expect_error = [](const std::string& data, const std::string& needle) {
    auto r = ParseMegatronIndex(data, "p.idx", std::nullopt);
    ASSERT_FALSE(r.ok());
    EXPECT_TRUE(r.status().Is(StatusCode::kDataLoss));
    EXPECT_NE(r.status().message().find(needle), std::string::npos) << r.status().message();
  };
  expect_error(idx.substr(0, 20), "shorter than the 34-byte header");
  expect_error("X" + idx.substr(1), "bad magic");
  std::string multimodal = idx + std::string(2, '\0');  // one mode byte per sequence
  expect_error(multimodal, "multimodal indexes are not supported");
  std::string bad_doc = idx;
  bad_doc[34 + 24 + 8] = 5;  // document index 1 = 5
  expect_error(bad_doc, "byte offset 66: document index 1 is 5");
  std::string bad_pointer = idx;
  bad_pointer[34 + 8 + 8] = 3;  // second pointer = 3, expected 2
  expect_error(bad_pointer, "byte offset 50: sequence 1 starts at byte 3");
  std::string unknown_dtype = idx;
  unknown_dtype[17] = 0;
  expect_error(unknown_dtype, "unknown dtype code 0");
  // A float dtype is a valid index but holds no token ids.
  std::string float_idx = EncodeMegatronIndex(MegatronDType::kFloat32, {1, 1}, {0, 1, 2});
  EXPECT_TRUE(ParseMegatronIndex(float_idx, "p.idx", 8).ok());
  std::string float_bin(8, '\0');
  auto reader =
      OpenMegatronShard(MemorySource("f.idx", float_idx), MemorySource("f.bin", float_bin));
  EXPECT_TRUE(reader.status().Is(StatusCode::kInvalidArgument));
}

// A large index (4 MB) is checked and read through reads of at most 1 MiB, never whole, across
// the check's blocks (16,384 entries); corruption past the first block is named at its offset.
TEST(Megatron, LargeIndexReadThroughBoundedBuffers) {
  constexpr int32_t kSequences = 200000;
  std::vector<int32_t> lengths;
  std::vector<int64_t> documents = {0};
  std::string bin;
  for (int32_t i = 0; i < kSequences; ++i) {
    lengths.push_back(i % 3);
    for (int32_t k = 0; k < i % 3; ++k) {
      bin.push_back(static_cast<char>(i % 251));
      bin.push_back(0);
    }
    documents.push_back(i + 1);
  }
  const std::string idx = EncodeMegatronIndex(MegatronDType::kUint16, lengths, documents);
  ASSERT_GT(idx.size(), uint64_t{4000000});
  uint64_t largest_read = 0;
  auto bounded = [&largest_read](ByteSource source) {
    ReadAtFn read = source.read_at;
    source.read_at = [read, &largest_read](uint64_t offset,
                                           uint64_t length) -> StatusOr<std::string> {
      largest_read = std::max(largest_read, length);
      return read(offset, length);
    };
    return source;
  };
  auto reader =
      OpenMegatronShard(bounded(MemorySource("big.idx", idx)), MemorySource("big.bin", bin));
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  EXPECT_EQ((*reader)->info().sequences, kSequences);
  EXPECT_EQ((*reader)->info().documents, kSequences);
  EXPECT_EQ((*reader)->info().tokens, static_cast<int64_t>(bin.size() / 2));
  Status status;
  std::vector<std::vector<uint32_t>> got = testing::ReadTokens(std::move(reader), &status);
  ASSERT_TRUE(status.ok()) << status.ToString();
  ASSERT_EQ(got.size(), size_t{kSequences});
  for (int32_t i = 0; i < kSequences; ++i) {
    ASSERT_EQ(got[i], std::vector<uint32_t>(i % 3, static_cast<uint32_t>(i % 251))) << i;
  }
  EXPECT_LE(largest_read, uint64_t{1} << 20);  // a buffer, not the file
  EXPECT_LT(largest_read, idx.size() / 2);

  // Sequence 150,000's pointer (tenth block) off by one; then document index 120,000.
  std::string bad_pointer = idx;
  const uint64_t pointer_at = 34 + 4 * uint64_t{kSequences} + 8 * 150000;
  bad_pointer[pointer_at] = static_cast<char>(bad_pointer[pointer_at] + 1);
  auto bad = OpenMegatronShard(MemorySource("big.idx", bad_pointer), MemorySource("big.bin", bin));
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("byte offset " + std::to_string(pointer_at) +
                                        ": sequence 150000 starts at byte"),
            std::string::npos)
      << bad.status().ToString();
  std::string bad_document = idx;
  const uint64_t document_at = 34 + 12 * uint64_t{kSequences} + 8 * 120000;
  bad_document[document_at] = static_cast<char>(bad_document[document_at] - 7);
  bad = OpenMegatronShard(MemorySource("big.idx", bad_document), MemorySource("big.bin", bin));
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("byte offset " + std::to_string(document_at) +
                                        ": document index 120000 is"),
            std::string::npos)
      << bad.status().ToString();
}

}  // namespace
}  // namespace tokenmill
