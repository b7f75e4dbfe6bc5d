// RemoveStaleScratch: the scratch folders that killed workers of this host left behind.
#include "tokenmill/job/worker.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>

#include "tokenmill/testing/temp_dir.h"

namespace tokenmill {
namespace {

namespace fs = std::filesystem;

// A pid that no longer runs: a child that has exited and been waited for.
pid_t DeadPid() {
  const pid_t child = ::fork();
  if (child == 0) ::_exit(0);
  int status = 0;
  ::waitpid(child, &status, 0);
  return child;
}

class StaleScratchTest : public ::testing::Test {
 protected:
  // A folder with a partial shard in a task folder, last touched `age` ago.
  std::string Make(const std::string& name, std::chrono::seconds age) {
    const std::string path = dir_ + "/" + name;
    fs::create_directories(path + "/task-3-1");
    std::ofstream(path + "/task-3-1/part-000003-000.tfrecord") << "partial";
    fs::last_write_time(path, fs::file_time_type::clock::now() - age);
    return path;
  }
  testing::TempDir tmp_{"tm_scratch"};
  const std::string dir_ = tmp_.path();
};

TEST_F(StaleScratchTest, RemovesOnlyOldFoldersOfThisHostsDeadWorkers) {
  const auto old = std::chrono::hours(2);
  const std::string dead = std::to_string(DeadPid());
  const std::string live = std::to_string(::getpid());
  const std::string gone = Make("tokenmill-node7-" + dead + "-00beef", old);
  const std::string running = Make("tokenmill-node7-" + live + "-00beef", old);
  const std::string recent = Make("tokenmill-node7-" + dead + "-00cafe", std::chrono::seconds(5));
  const std::string other_host = Make("tokenmill-node8-" + dead + "-00beef", old);
  const std::string not_ours = Make("tokenmill-node7-" + dead + "-notes", old);
  const std::string other_name = Make("tm-node7-" + dead + "-00beef", old);
  std::ofstream(dir_ + "/tokenmill-node7-" + dead + "-00face") << "a file, not a folder";

  EXPECT_EQ(RemoveStaleScratch(dir_, "node7"), 1);
  EXPECT_FALSE(fs::exists(gone));
  EXPECT_TRUE(fs::exists(running + "/task-3-1/part-000003-000.tfrecord"));
  EXPECT_TRUE(fs::exists(recent));
  EXPECT_TRUE(fs::exists(other_host));
  EXPECT_TRUE(fs::exists(not_ours));
  EXPECT_TRUE(fs::exists(other_name));
  EXPECT_TRUE(fs::exists(dir_ + "/tokenmill-node7-" + dead + "-00face"));
  EXPECT_EQ(RemoveStaleScratch(dir_, "node7"), 0);
}

TEST_F(StaleScratchTest, AMissingParentRemovesNothing) {
  EXPECT_EQ(RemoveStaleScratch(dir_ + "/none", "node7"), 0);
}

}  // namespace
}  // namespace tokenmill
