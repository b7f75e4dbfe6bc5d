#include "tokenmill/base/small_file.h"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <fstream>
#include <string>

namespace tokenmill {
namespace {

TEST(ReadSmallFile, WholeContentOrNothing) {
  char tmpl[] = "/tmp/tokenmill-small-file-XXXXXX";
  const int fd = mkstemp(tmpl);
  ASSERT_GE(fd, 0);
  close(fd);
  const std::string content("line 1\nline 2 \0 with a NUL\n", 27);
  std::ofstream(tmpl, std::ios::binary) << content;
  EXPECT_EQ(ReadSmallFile(tmpl), content);
  std::ofstream(tmpl, std::ios::binary | std::ios::trunc);
  EXPECT_EQ(ReadSmallFile(tmpl), "");
  unlink(tmpl);
  EXPECT_EQ(ReadSmallFile(tmpl), std::nullopt);
}

}  // namespace
}  // namespace tokenmill
