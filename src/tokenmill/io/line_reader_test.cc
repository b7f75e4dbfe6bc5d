#include "tokenmill/io/line_reader.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tokenmill/base/utf8.h"
#include "tokenmill/io/string_stream.h"

namespace tokenmill {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

struct Line {
  std::string text;
  uint64_t number;
  uint64_t offset;
  bool operator==(const Line&) const = default;
};

std::ostream& operator<<(std::ostream& os, const Line& l) {
  return os << "{\"" << l.text << "\", " << l.number << ", " << l.offset << "}";
}

// With `append`, lines come from NextAppend, onto what a string already holds.
StatusOr<std::vector<Line>> Split(std::string data, size_t chunk = SIZE_MAX,
                                  size_t buffer = kLineBufferSize, size_t max_line = 1 << 20,
                                  bool append = false) {
  StringReadStream stream(std::move(data), chunk);
  LineReader reader(&stream, InputPosition{"/in.txt", 0, false}, max_line, buffer);
  std::vector<Line> lines;
  std::string_view line;
  std::string out = "held";
  while (true) {
    if (append) {
      out.resize(4);
      TM_ASSIGN_OR_RETURN(const bool got, reader.NextAppend(&out, 64));
      if (out.substr(0, 4) != "held") return Status::Internal("NextAppend lost what *out held");
      if (out.capacity() < out.size() + 64) return Status::Internal("no slack");
      if (!got) break;
      lines.push_back({out.substr(4), reader.line_number(), reader.line_offset()});
      continue;
    }
    TM_ASSIGN_OR_RETURN(const bool got, reader.Next(&line));
    if (!got) break;
    lines.push_back({std::string(line), reader.line_number(), reader.line_offset()});
  }
  return lines;
}

TEST(LineReaderTest, SplitsOnNewlineOnly) {
  // '\r', U+0085, U+2028 and U+2029 do not end lines.
  auto lines = Split(
      "a\rb\nc\xC2\x85"
      "d\xE2\x80\xA8"
      "e\xE2\x80\xA9"
      "f\r\n\ng");
  ASSERT_TRUE(lines.ok());
  EXPECT_THAT(*lines, ElementsAre(Line{"a\rb", 1, 0},
                                  Line{"c\xC2\x85"
                                       "d\xE2\x80\xA8"
                                       "e\xE2\x80\xA9"
                                       "f\r",
                                       2, 4},
                                  Line{"", 3, 18}, Line{"g", 4, 19}));
}

TEST(LineReaderTest, EdgesOfTheStream) {
  EXPECT_THAT(*Split(""), ElementsAre());
  EXPECT_THAT(*Split("\n"), ElementsAre(Line{"", 1, 0}));
  EXPECT_THAT(*Split("\n\n"), ElementsAre(Line{"", 1, 0}, Line{"", 2, 1}));
  EXPECT_THAT(*Split("x"), ElementsAre(Line{"x", 1, 0}));
  EXPECT_THAT(*Split("x\n"), ElementsAre(Line{"x", 1, 0}));
  EXPECT_THAT(*Split("x\ny"), ElementsAre(Line{"x", 1, 0}, Line{"y", 2, 2}));
}

TEST(LineReaderTest, SameLinesWhateverTheBufferAndReadSizes) {
  std::string data;
  for (int i = 0; i < 3000; ++i) {
    data += std::string(static_cast<size_t>(i % 97), static_cast<char>('a' + i % 26));
    data += (i % 5 == 0) ? "\n\n" : "\n";
  }
  data += "no newline at the end";
  auto expected = Split(data);
  ASSERT_TRUE(expected.ok());
  for (size_t chunk : {size_t{1}, size_t{3}, size_t{64}, size_t{100000}}) {
    for (size_t buffer : {size_t{1}, size_t{2}, size_t{16}, size_t{4096}}) {
      for (bool append : {false, true}) {
        auto lines = Split(data, chunk, buffer, 1 << 20, append);
        ASSERT_TRUE(lines.ok()) << lines.status().ToString();
        EXPECT_EQ(*lines, *expected)
            << "chunk " << chunk << " buffer " << buffer << " append " << append;
      }
    }
  }
}

TEST(LineReaderTest, LinesReportedValidAreValidWhateverTheBufferAndReadSizes) {
  // Valid lines (ASCII, two- to four-byte characters, which the reads and the buffer cut),
  // among lines with invalid bytes, a truncated character, a surrogate or an overlong form.
  const std::vector<std::string> bad = {"\xff", "ab\xE4\xB8", "\xED\xA0\x80", "\xC0\xAF", "x\x80y"};
  std::string data;
  uint32_t x = 7;
  size_t invalid_lines = 0;
  for (int i = 0; i < 2000; ++i) {
    x = x * 1103515245u + 12345u;
    if ((x >> 16) % 50 == 0) {
      data += bad[(x >> 8) % bad.size()];
      ++invalid_lines;
    } else {
      for (uint32_t k = 0; k < (x >> 20) % 40; ++k) {
        data += k % 3 == 0 ? "\xE4\xB8\xAD" : k % 3 == 1 ? "\xF0\x9F\x98\x80" : "a\xC3\xA9";
      }
    }
    data += "\n";
  }
  data += "\xE4\xB8\xAD at the end";
  for (size_t chunk : {size_t{1}, size_t{5}, size_t{4096}, size_t{1} << 20}) {
    for (size_t buffer : {size_t{1}, size_t{7}, size_t{256}, size_t{1} << 20}) {
      for (bool append : {false, true}) {
        StringReadStream stream(data, chunk);
        LineReader reader(&stream, InputPosition{"/in.txt", 0, false}, 1 << 20, buffer);
        size_t lines = 0, reported_valid = 0, valid = 0;
        std::string out;
        while (true) {
          std::string_view line;
          if (append) {
            out.clear();
            auto got = reader.NextAppend(&out);
            ASSERT_TRUE(got.ok());
            if (!*got) break;
            line = out;
          } else {
            auto got = reader.Next(&line);
            ASSERT_TRUE(got.ok());
            if (!*got) break;
          }
          ++lines;
          const bool is_valid = FindInvalidUtf8(line) == std::string_view::npos;
          valid += is_valid ? 1 : 0;
          if (reader.line_is_valid_utf8()) {
            ++reported_valid;
            EXPECT_TRUE(is_valid) << "line " << reader.line_number() << " chunk " << chunk
                                  << " buffer " << buffer;
          }
        }
        EXPECT_EQ(lines, 2001u);
        EXPECT_EQ(valid, 2001u - invalid_lines);
        if (chunk == (size_t{1} << 20) && buffer == (size_t{1} << 20)) {
          // One read: every valid line before the first invalid one is known valid at once.
          EXPECT_GT(reported_valid, 0u);
        }
      }
    }
  }
}

TEST(LineReaderTest, LongLinesGrowTheBufferUpToTheLimit) {
  for (bool append : {false, true}) {
    SCOPED_TRACE(append);
    const std::string big(100000, 'x');
    auto ok = Split(big + "\nshort\n" + big, 1000, 64, 100000, append);
    ASSERT_TRUE(ok.ok()) << ok.status().ToString();
    ASSERT_EQ(ok->size(), 3u);
    EXPECT_EQ((*ok)[2].text, big);
    EXPECT_EQ((*ok)[2].offset, 100007u);

    auto too_long = Split("first\n" + big + "x\n", 1000, 64, 100000, append);
    ASSERT_FALSE(too_long.ok());
    EXPECT_EQ(too_long.status().code(), StatusCode::kInvalidArgument);
    EXPECT_THAT(too_long.status().message(), HasSubstr("/in.txt:2 (byte 6)"));
    EXPECT_THAT(too_long.status().message(), HasSubstr("longer than 100000 bytes"));

    auto no_newline = Split(std::string(300000, 'y'), 4096, 4096, 100000, append);
    ASSERT_FALSE(no_newline.ok());
    EXPECT_THAT(no_newline.status().message(), HasSubstr("/in.txt:1 (byte 0)"));
  }
}

TEST(LineReaderTest, NextAppendMovesAHugeLineOutOfItsBuffer) {
  // A line of 1000 buffers: held once, in the caller's string, not in a grown buffer.
  const std::string big(64000, 'z');
  StringReadStream stream("a\n" + big + "\nb", 100);
  LineReader reader(&stream, InputPosition{"/in.txt", 0, false}, 1 << 20, 64);
  std::string out;
  ASSERT_TRUE(*reader.NextAppend(&out));
  EXPECT_EQ(out, "a");
  out.clear();
  ASSERT_TRUE(*reader.NextAppend(&out));
  EXPECT_EQ(out, big);
  EXPECT_EQ(reader.line_number(), 2u);
  EXPECT_EQ(reader.line_offset(), 2u);
  out.clear();
  ASSERT_TRUE(*reader.NextAppend(&out));
  EXPECT_EQ(out, "b");
  EXPECT_EQ(reader.line_offset(), 64003u);
  EXPECT_FALSE(*reader.NextAppend(&out));
}

TEST(InputPositionTest, DescribesWholeInputsAndRanges) {
  EXPECT_EQ((InputPosition{"/a.txt", 0, false}).Describe(3, 10), "/a.txt:3 (byte 10)");
  EXPECT_EQ((InputPosition{"/a.gz", 0, true}).Describe(3, 10), "/a.gz:3 (decompressed byte 10)");
  EXPECT_EQ((InputPosition{"s3://b/a.txt", 1000, false}).Describe(2, 10),
            "s3://b/a.txt byte 1010 (line 2 of the range starting at byte 1000)");
}

}  // namespace
}  // namespace tokenmill
