#include "tokenmill/formats/output_file.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "tokenmill/base/sha256.h"
#include "tokenmill/formats/byte_source.h"
#include "tokenmill/formats/formats_testing.h"

namespace tokenmill {
namespace {

using testing::TempDir;

class OutputFileModes : public ::testing::TestWithParam<bool> {};  // write-behind or not

TEST_P(OutputFileModes, BufferedAndDirectWritesAndDigest) {
  TempDir dir;
  auto file = OutputFile::Create(dir.Join("f"), 16, GetParam());
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

TEST_P(OutputFileModes, WriteAtRewritesAndRehashes) {
  TempDir dir;
  auto file = OutputFile::Create(dir.Join("f"), 4, GetParam());
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

TEST_P(OutputFileModes, DigestAtCloseReadsTheFileBack) {
  TempDir dir;
  auto file = OutputFile::Create(dir.Join("f"), 32, GetParam());
  ASSERT_TRUE(file.ok());
  (*file)->DigestAtClose();
  std::string expected = "HEADER";
  ASSERT_TRUE((*file)->Append("HEADER").ok());
  for (int i = 0; i < 300; ++i) {
    const std::string piece(i % 70, static_cast<char>('a' + i % 26));
    ASSERT_TRUE((*file)->Append(piece).ok());
    expected += piece;
  }
  ASSERT_TRUE((*file)->WriteAt(0, "header").ok());
  expected.replace(0, 6, "header");
  ASSERT_TRUE((*file)->Close().ok());
  EXPECT_EQ(testing::ReadAll(dir.Join("f")), expected);
  EXPECT_EQ((*file)->sha256(), Sha256Hex(expected));
}

TEST_P(OutputFileModes, InOrderAcrossManyBuffers) {
  TempDir dir;
  auto file = OutputFile::Create(dir.Join("f"), 64, GetParam());
  ASSERT_TRUE(file.ok());
  std::string expected;
  uint32_t x = 12345;
  for (int i = 0; i < 4000; ++i) {
    x = x * 1103515245 + 12345;
    std::string piece((x >> 16) % 150, static_cast<char>('a' + i % 26));  // some skip the buffer
    ASSERT_TRUE((*file)->Append(piece).ok());
    expected += piece;
  }
  ASSERT_TRUE((*file)->WriteAt(10, "rewritten").ok());
  expected.replace(10, 9, "rewritten");
  ASSERT_TRUE((*file)->Append("tail").ok());
  expected += "tail";
  ASSERT_TRUE((*file)->Close().ok());
  EXPECT_EQ(testing::ReadAll(dir.Join("f")), expected);
  EXPECT_EQ((*file)->sha256(), Sha256Hex(expected));
}

TEST_P(OutputFileModes, AFailedWriteIsReportedAndStopsTheWrites) {
  // /dev/full takes the open and refuses every write (ENOSPC).
  if (!std::filesystem::exists("/dev/full")) GTEST_SKIP() << "no /dev/full on this system";
  auto file = OutputFile::Create("/dev/full", 16, GetParam());
  ASSERT_TRUE(file.ok());
  Status first;
  for (int i = 0; i < 100 && first.ok(); ++i) first = (*file)->Append(std::string(10, 'x'));
  ASSERT_FALSE(first.ok()) << "a failed write must reach the caller";
  EXPECT_TRUE(first.Is(StatusCode::kIoError));
  EXPECT_NE(first.message().find("/dev/full: write failed"), std::string::npos) << first.ToString();
  EXPECT_FALSE((*file)->Append(std::string(40, 'y')).ok());
  EXPECT_FALSE((*file)->Close().ok());
}

TEST_P(OutputFileModes, DestroyedWithoutClose) {
  TempDir dir;
  {
    auto file = OutputFile::Create(dir.Join("f"), 8, GetParam());
    ASSERT_TRUE(file.ok());
    for (int i = 0; i < 1000; ++i) ASSERT_TRUE((*file)->Append("0123456").ok());
  }  // the writing thread finishes what it holds and is joined
  EXPECT_LE(testing::ReadAll(dir.Join("f")).size(), 7000u);
}

INSTANTIATE_TEST_SUITE_P(OutputFile, OutputFileModes, ::testing::Bool(),
                         [](const ::testing::TestParamInfo<bool>& info) {
                           return info.param ? "WriteBehind" : "Inline";
                         });

TEST(OutputFile, Errors) {
  TempDir dir;
  auto file = OutputFile::Create(dir.Join("no/such/folder/f"));
  EXPECT_TRUE(file.status().Is(StatusCode::kNotFound));
  EXPECT_NE(file.status().message().find("no/such/folder/f: cannot create"), std::string::npos);
  EXPECT_TRUE(RemoveFile(dir.Join("absent")).ok());
  EXPECT_TRUE(SyncDir(dir.path()).ok());
}

// A file left at the path may be a second link of a published shard: it is replaced, and the
// shard keeps its bytes.
TEST(OutputFile, ReplacesAnOldFileWithoutTruncatingItsOtherLinks) {
  TempDir dir;
  auto old_file = OutputFile::Create(dir.Join("shard"));
  ASSERT_TRUE(old_file.ok());
  ASSERT_TRUE((*old_file)->Append("published bytes").ok());
  ASSERT_TRUE((*old_file)->Close().ok());
  ASSERT_EQ(::link(dir.Join("shard").c_str(), dir.Join("published").c_str()), 0);
  auto file = OutputFile::Create(dir.Join("shard"));
  ASSERT_TRUE(file.ok());
  ASSERT_TRUE((*file)->Append("new").ok());
  ASSERT_TRUE((*file)->Close().ok());
  EXPECT_EQ(testing::ReadAll(dir.Join("shard")), "new");
  EXPECT_EQ(testing::ReadAll(dir.Join("published")), "published bytes");
}

// A shard's mode is the process's (0666 less the umask), whether it is published by a link of
// this file or by a copy.
TEST(OutputFile, TakesItsModeFromTheUmask) {
  TempDir dir;
  const mode_t old_mask = ::umask(027);
  auto file = OutputFile::Create(dir.Join("shard"));
  ::umask(old_mask);
  ASSERT_TRUE(file.ok());
  ASSERT_TRUE((*file)->Close().ok());
  struct stat st;
  ASSERT_EQ(::stat(dir.Join("shard").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0640u);
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
