#include "tokenmill/formats/output_file.h"

#include <gtest/gtest.h>

#include <string>

#include "tokenmill/base/sha256.h"
#include "tokenmill/formats/byte_source.h"
#include "tokenmill/formats/formats_testing.h"

namespace tokenmill {
namespace {

using testing::TempDir;

TEST(OutputFile, BufferedAndDirectWritesAndDigest) {
  TempDir dir;
  auto file = OutputFile::Create(dir.Join("f"), 16);
  ASSERT_TRUE(file.ok());
  std::string expected;
  for (int i = 0; i < 50; ++i) {
    std::string piece(i % 40, static_cast<char>('a' + i % 26));  // below and above the buffer
    ASSERT_TRUE((*file)->Append(piece).ok());
    expected += piece;
  }
  EXPECT_EQ((*file)->bytes(), expected.size());
  ASSERT_TRUE((*file)->Close().ok());
  EXPECT_EQ(testing::ReadAll(dir.Join("f")), expected);
  EXPECT_EQ((*file)->sha256(), Sha256Hex(expected));
  EXPECT_TRUE((*file)->Append("x").Is(StatusCode::kFailedPrecondition));
}

TEST(OutputFile, WriteAtRewritesAndRehashes) {
  TempDir dir;
  auto file = OutputFile::Create(dir.Join("f"), 4);
  ASSERT_TRUE(file.ok());
  ASSERT_TRUE((*file)->Append("HEADER").ok());
  ASSERT_TRUE((*file)->Append(std::string(3000, 'b')).ok());
  ASSERT_TRUE((*file)->WriteAt(0, "header").ok());
  EXPECT_FALSE((*file)->WriteAt(3000, "too far").ok());
  ASSERT_TRUE((*file)->Close().ok());
  const std::string expected = "header" + std::string(3000, 'b');
  EXPECT_EQ(testing::ReadAll(dir.Join("f")), expected);
  EXPECT_EQ((*file)->sha256(), Sha256Hex(expected));
}

TEST(OutputFile, Errors) {
  TempDir dir;
  auto file = OutputFile::Create(dir.Join("no/such/folder/f"));
  EXPECT_TRUE(file.status().Is(StatusCode::kNotFound));
  EXPECT_NE(file.status().message().find("no/such/folder/f: cannot create"), std::string::npos);
  EXPECT_TRUE(RemoveFile(dir.Join("absent")).ok());
  EXPECT_TRUE(SyncDir(dir.path()).ok());
}

TEST(SourceReader, ReadsExactPiecesAcrossItsBuffer) {
  std::string data;
  for (int i = 0; i < 1000; ++i) data += static_cast<char>(i * 7);
  ByteSource source = MemorySource("m", data);
  SourceReader reader(source, 3, 10);
  std::string got = data.substr(0, 3);
  std::string_view piece;
  for (size_t n : {1, 9, 10, 11, 100, 0, 500}) {
    auto ok = reader.Read(n, &piece);
    ASSERT_TRUE(ok.ok() && *ok);
    got += std::string(piece);
  }
  EXPECT_EQ(reader.position(), got.size());
  auto short_read = reader.Read(reader.remaining() + 1, &piece);
  ASSERT_TRUE(short_read.ok());
  EXPECT_FALSE(*short_read);
  auto rest = reader.Read(reader.remaining(), &piece);
  ASSERT_TRUE(rest.ok() && *rest);
  got += std::string(piece);
  EXPECT_EQ(got, data);
}

TEST(SourceReader, ASourceShorterThanItsSizeIsDataLoss) {
  ByteSource source = MemorySource("m", "abc");
  source.size = 10;  // claims more than it has
  SourceReader reader(source);
  std::string_view piece;
  auto r = reader.Read(5, &piece);
  EXPECT_TRUE(r.status().Is(StatusCode::kDataLoss));
}

TEST(LocalFileSource, ReadsRanges) {
  TempDir dir;
  testing::WriteFile(dir.Join("f"), "0123456789");
  auto source = LocalFileSource(dir.Join("f"));
  ASSERT_TRUE(source.ok());
  EXPECT_EQ(source->size, 10u);
  EXPECT_EQ(*source->read_at(3, 4), "3456");
  EXPECT_EQ(*source->read_at(8, 100), "89");
  EXPECT_EQ(*source->read_at(20, 1), "");
  EXPECT_TRUE(LocalFileSource(dir.Join("nope")).status().Is(StatusCode::kNotFound));
  EXPECT_TRUE(LocalFileSource(dir.path()).status().Is(StatusCode::kInvalidArgument));
}

}  // namespace
}  // namespace tokenmill
