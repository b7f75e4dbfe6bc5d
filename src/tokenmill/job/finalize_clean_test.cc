// RemoveIncompleteOutput: the orphaned temporary files of the job's own names go, others stay.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "tokenmill/job/finalize.h"
#include "tokenmill/storage/local_storage.h"
#include "tokenmill/testing/temp_dir.h"

namespace tokenmill {
namespace {

namespace fs = std::filesystem;

TEST(FinalizeClean, OwnNames) {
  for (const char* name :
       {"part-000000-000.tfrecord", "part-123456-999.bin", "part-1234567-000.idx", "manifest.json",
        "megatron-prefixes.txt", "merged.bin", "merged.idx"}) {
    EXPECT_TRUE(IsOwnOutputName(name)) << name;
  }
  for (const char* name :
       {"part-00000-000.bin", "part-000000-00.bin", "part-000000-000", "part-000000-000.",
        "notes.txt", "part-x00000-000.bin", "sub/part-000000-000.bin", "manifest.json.bak"}) {
    EXPECT_FALSE(IsOwnOutputName(name)) << name;
  }
}

TEST(FinalizeClean, RemovesOrphanedTemporariesOfOwnNamesOnly) {
  const testing::TempDir tmp("tm_clean");
  const std::string dir = tmp.path();
  auto touch = [&](const std::string& name) { std::ofstream(dir + "/" + name) << "partial"; };
  touch(".part-000223-000.tfrecord.tmp.1506.091701db85f258cb");  // a killed worker's shard
  touch(".manifest.json.tmp.77.aa");
  touch(".notes.txt.tmp.1.bb");       // somebody else's
  touch("part-000001-000.tfrecord");  // a published shard
  fs::create_directories(dir + "/_job");
  touch("_job/.job.json.tmp.5.cc");  // the job store is not the output's business
  LocalStorage local;
  auto listed = local.ListIncomplete(dir);
  ASSERT_TRUE(listed.ok()) << listed.status().ToString();
  ASSERT_EQ(listed->size(), 3u);
  EXPECT_EQ((*listed)[0].url, dir + "/manifest.json");
  auto removed = RemoveIncompleteOutput(local, dir);
  ASSERT_TRUE(removed.ok()) << removed.status().ToString();
  EXPECT_EQ(*removed, 2u);
  EXPECT_FALSE(fs::exists(dir + "/.part-000223-000.tfrecord.tmp.1506.091701db85f258cb"));
  EXPECT_FALSE(fs::exists(dir + "/.manifest.json.tmp.77.aa"));
  EXPECT_TRUE(fs::exists(dir + "/.notes.txt.tmp.1.bb"));
  EXPECT_TRUE(fs::exists(dir + "/part-000001-000.tfrecord"));
  EXPECT_TRUE(fs::exists(dir + "/_job/.job.json.tmp.5.cc"));
  // A handle that is not a temporary file of its object is refused.
  EXPECT_EQ(
      local.RemoveIncomplete({dir + "/part-000001-000.tfrecord", dir + "/part-000001-000.tfrecord"})
          .code(),
      StatusCode::kInvalidArgument);
  EXPECT_TRUE(fs::exists(dir + "/part-000001-000.tfrecord"));
  fs::remove_all(dir);
}

}  // namespace
}  // namespace tokenmill
