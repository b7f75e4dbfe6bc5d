#include "tokenmill/io/decompress.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "tokenmill/base/rng.h"
#include "tokenmill/io/string_stream.h"
#include "tokenmill/io/test_util.h"

namespace tokenmill {
namespace {

using testing::Gzip;
using ::testing::HasSubstr;
using testing::Zstd;

// Some megabytes of text that compress a little but not too well.
std::string SampleText(size_t size, uint64_t seed) {
  Rng rng(seed, 0);
  std::string s;
  s.reserve(size);
  while (s.size() < size) {
    const int64_t r = rng.RandInt(0, 40);
    if (r == 0) {
      s += '\n';
    } else if (r < 6) {
      s += ' ';
    } else if (r == 6) {
      s += "\xE4\xB8\xAD";  // 中
    } else {
      s += static_cast<char>('a' + rng.RandInt(0, 25));
    }
  }
  return s;
}

StatusOr<std::string> Decode(std::string data, Compression c, size_t chunk = SIZE_MAX,
                             size_t out_size = 4096, uint64_t* bytes_in = nullptr) {
  auto stream = NewDecodingStream(std::make_unique<StringReadStream>(std::move(data), chunk), c,
                                  "/data/x.gz");
  std::string out;
  std::string buf(out_size, '\0');
  while (true) {
    TM_ASSIGN_OR_RETURN(const size_t n, stream->Read(buf.data(), buf.size()));
    if (n == 0) break;
    out.append(buf.data(), n);
  }
  if (stream->bytes_out() != out.size()) return Status::Internal("bytes_out mismatch");
  if (bytes_in != nullptr) *bytes_in = stream->bytes_in();
  return out;
}

TEST(CompressionTest, ChosenByExtension) {
  EXPECT_EQ(CompressionForUrl("/a/b.txt.gz"), Compression::kGzip);
  EXPECT_EQ(CompressionForUrl("s3://b/k/part.jsonl.zst"), Compression::kZstd);
  EXPECT_EQ(CompressionForUrl("gs://b/x.txt"), Compression::kNone);
  EXPECT_EQ(CompressionForUrl("/a.gz/b.txt"), Compression::kNone);
  EXPECT_EQ(CompressionForUrl("/a/b.gzip"), Compression::kNone);
  EXPECT_EQ(CompressionForUrl("gz"), Compression::kNone);
  EXPECT_TRUE(IsCompressed("x.zst"));
  EXPECT_FALSE(IsCompressed("x.jsonl"));
}

TEST(DecompressTest, PlainPassesThrough) {
  const std::string text = SampleText(100000, 1);
  uint64_t in = 0;
  auto out = Decode(text, Compression::kNone, 777, 1000, &in);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(*out, text);
  EXPECT_EQ(in, text.size());
}

TEST(DecompressTest, GzipRoundTripWithShortReads) {
  const std::string text = SampleText(3 << 20, 2);
  const std::string gz = Gzip(text);
  for (size_t chunk : {size_t{1} << 30, size_t{4096}, size_t{7}}) {
    if (chunk == 7) {  // byte-by-byte-ish reads on a smaller input, to keep the test fast
      const std::string small = text.substr(0, 50000);
      auto out = Decode(Gzip(small), Compression::kGzip, chunk, 13);
      ASSERT_TRUE(out.ok()) << out.status().ToString();
      EXPECT_EQ(*out, small);
      continue;
    }
    uint64_t in = 0;
    auto out = Decode(gz, Compression::kGzip, chunk, 65536, &in);
    ASSERT_TRUE(out.ok()) << out.status().ToString();
    EXPECT_EQ(*out, text);
    EXPECT_EQ(in, gz.size());
  }
}

TEST(DecompressTest, GzipConcatenatedMembersAreAllRead) {
  const std::string a = SampleText(200000, 3), b = SampleText(1000, 4), c = "last\n";
  const std::string gz = Gzip(a) + Gzip(b) + Gzip("") + Gzip(c);
  for (size_t chunk : {size_t{1} << 30, size_t{100}}) {
    auto out = Decode(gz, Compression::kGzip, chunk);
    ASSERT_TRUE(out.ok()) << out.status().ToString();
    EXPECT_EQ(*out, a + b + c);
  }
}

TEST(DecompressTest, GzipTrailingZerosIgnoredGarbageRejected) {
  const std::string gz = Gzip("hello\n");
  auto zeros = Decode(gz + std::string(1000, '\0'), Compression::kGzip);
  ASSERT_TRUE(zeros.ok()) << zeros.status().ToString();
  EXPECT_EQ(*zeros, "hello\n");

  auto garbage = Decode(gz + "junk", Compression::kGzip);
  ASSERT_FALSE(garbage.ok());
  EXPECT_EQ(garbage.status().code(), StatusCode::kDataLoss);
  EXPECT_THAT(garbage.status().message(), HasSubstr("/data/x.gz"));
  EXPECT_THAT(garbage.status().message(),
              HasSubstr("compressed byte " + std::to_string(gz.size())));

  auto zeros_then_garbage = Decode(gz + std::string(10, '\0') + "x", Compression::kGzip);
  ASSERT_FALSE(zeros_then_garbage.ok());
  EXPECT_THAT(zeros_then_garbage.status().message(),
              HasSubstr("compressed byte " + std::to_string(gz.size() + 10)));
}

TEST(DecompressTest, GzipTruncatedIsDataLossWithOffset) {
  const std::string text = SampleText(300000, 5);
  const std::string gz = Gzip(text);
  for (size_t cut :
       {size_t{1}, size_t{5}, size_t{10}, gz.size() / 2, gz.size() - 8, gz.size() - 1}) {
    auto out = Decode(gz.substr(0, cut), Compression::kGzip, 1000);
    ASSERT_FALSE(out.ok()) << "cut at " << cut;
    EXPECT_EQ(out.status().code(), StatusCode::kDataLoss);
    EXPECT_THAT(out.status().message(), HasSubstr("/data/x.gz: truncated gzip data"));
    EXPECT_THAT(out.status().message(), HasSubstr("compressed byte " + std::to_string(cut)));
  }
  // A second member cut short is also detected.
  auto out = Decode(gz + gz.substr(0, 100), Compression::kGzip);
  ASSERT_FALSE(out.ok());
  EXPECT_THAT(out.status().message(), HasSubstr("inside gzip member 2"));
}

TEST(DecompressTest, GzipEmptyAndCorrupt) {
  auto empty = Decode("", Compression::kGzip);
  ASSERT_FALSE(empty.ok());
  EXPECT_EQ(empty.status().code(), StatusCode::kDataLoss);
  EXPECT_THAT(empty.status().message(), HasSubstr("empty"));

  auto not_gzip = Decode("plain text, not gzip\n", Compression::kGzip);
  ASSERT_FALSE(not_gzip.ok());
  EXPECT_EQ(not_gzip.status().code(), StatusCode::kDataLoss);
  EXPECT_THAT(not_gzip.status().message(), HasSubstr("corrupt gzip data"));

  std::string gz = Gzip(SampleText(10000, 6));
  gz[gz.size() - 6] ^= 0x55;  // the CRC-32 trailer
  auto bad_crc = Decode(gz, Compression::kGzip);
  ASSERT_FALSE(bad_crc.ok());
  EXPECT_EQ(bad_crc.status().code(), StatusCode::kDataLoss);
}

TEST(DecompressTest, ZstdRoundTripAndMultipleFrames) {
  const std::string a = SampleText(2 << 20, 7), b = "tail\n";
  const std::string zst = Zstd(a) + Zstd(b);
  for (size_t chunk : {size_t{1} << 30, size_t{1000}}) {
    uint64_t in = 0;
    auto out = Decode(zst, Compression::kZstd, chunk, 50000, &in);
    ASSERT_TRUE(out.ok()) << out.status().ToString();
    EXPECT_EQ(*out, a + b);
    EXPECT_EQ(in, zst.size());
  }
  auto tiny = Decode(Zstd("x"), Compression::kZstd, 1, 1);
  ASSERT_TRUE(tiny.ok()) << tiny.status().ToString();
  EXPECT_EQ(*tiny, "x");
}

TEST(DecompressTest, ZstdTruncatedEmptyAndCorrupt) {
  const std::string zst = Zstd(SampleText(300000, 8));
  for (size_t cut : {size_t{3}, zst.size() / 2, zst.size() - 1}) {
    auto out = Decode(zst.substr(0, cut), Compression::kZstd, 4096);
    ASSERT_FALSE(out.ok()) << "cut at " << cut;
    EXPECT_EQ(out.status().code(), StatusCode::kDataLoss);
    EXPECT_THAT(out.status().message(), HasSubstr("/data/x.gz: truncated zstd data"));
    EXPECT_THAT(out.status().message(), HasSubstr("compressed byte " + std::to_string(cut)));
  }
  auto empty = Decode("", Compression::kZstd);
  ASSERT_FALSE(empty.ok());
  EXPECT_THAT(empty.status().message(), HasSubstr("empty"));

  auto corrupt = Decode("definitely not zstd", Compression::kZstd);
  ASSERT_FALSE(corrupt.ok());
  EXPECT_EQ(corrupt.status().code(), StatusCode::kDataLoss);
  EXPECT_THAT(corrupt.status().message(), HasSubstr("corrupt zstd data"));
}

}  // namespace
}  // namespace tokenmill
