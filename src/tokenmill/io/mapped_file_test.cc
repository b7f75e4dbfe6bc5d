#include "tokenmill/io/mapped_file.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

namespace tokenmill {
namespace {

std::string TempPath(const std::string& name) {
  return (std::filesystem::temp_directory_path() /
          ("tm-mapped-" + std::to_string(::getpid()) + "-" + name))
      .string();
}

void WriteFile(const std::string& path, const std::string& data) {
  std::ofstream(path, std::ios::binary) << data;
}

TEST(MappedFileTest, MapsARegularFileWhole) {
  const std::string path = TempPath("whole");
  const std::string data(100000, 'x');
  WriteFile(path, data);
  auto f = MappedFile::Open(path);
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->text(), data);
  EXPECT_EQ(f->Populate(0), data.size());  // less than kPopulateBytes: to the end
  EXPECT_EQ(f->Release(5000) % 4096, 0u);
  EXPECT_EQ(f->text().substr(99990), std::string(10, 'x'));  // released pages read again
  std::filesystem::remove(path);
}

TEST(MappedFileTest, EmptyMissingAndNonRegularFilesAreNotMapped) {
  const std::string empty = TempPath("empty");
  WriteFile(empty, "");
  EXPECT_EQ(MappedFile::Open(empty), nullptr);
  EXPECT_EQ(MappedFile::Open(TempPath("missing")), nullptr);
  EXPECT_EQ(MappedFile::Open(std::filesystem::temp_directory_path().string()), nullptr);
  std::filesystem::remove(empty);
}

TEST(MappedFileDeathTest, ATruncatedFileIsAClearErrorNotACrash) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  const std::string path = TempPath("truncated");
  // The child removes the file before it dies (a mapping outlives its name), so nothing is left.
  EXPECT_EXIT(
      {
        WriteFile(path, std::string(1 << 20, 'y'));
        auto f = MappedFile::Open(path);
        if (f == nullptr) std::_Exit(3);
        const int fd = ::open(path.c_str(), O_RDWR);
        if (fd < 0 || ::unlink(path.c_str()) != 0) std::_Exit(5);
        if (::ftruncate(fd, 0) != 0) std::_Exit(6);  // another process would do this
        volatile char c = f->text()[(1 << 20) - 1];  // a page past the new end: SIGBUS
        (void)c;
        std::_Exit(4);
      },
      ::testing::ExitedWithCode(1), "became shorter while it was read");
}

TEST(MappedFileDeathTest, OtherBusErrorsKeepTheirDefaultAction) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  const std::string path = TempPath("other");
  WriteFile(path, "text");
  auto f = MappedFile::Open(path);  // installs the handler
  ASSERT_NE(f, nullptr);
  std::filesystem::remove(path);  // before the death test's child (which runs this too) dies
  EXPECT_EXIT(std::raise(SIGBUS), ::testing::KilledBySignal(SIGBUS), "");
}

}  // namespace
}  // namespace tokenmill
