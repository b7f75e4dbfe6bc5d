#include "tokenmill/storage/counting_storage.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "tokenmill/storage/local_storage.h"
#include "tokenmill/testing/temp_dir.h"

namespace tokenmill {
namespace {

namespace fs = std::filesystem;

class CountingStorageTest : public ::testing::Test {
 protected:
  std::string P(const std::string& name) const { return dir_ + "/" + name; }

  LocalStorage local_;
  testing::TempDir tmp_{"tm_counting"};
  const std::string dir_ = tmp_.path();
};

TEST_F(CountingStorageTest, CountsEachKindOfRequestAndBytes) {
  CountingStorage counting(&local_);
  ASSERT_TRUE(counting.Write(P("a"), "hello").ok());
  std::ofstream(P("src")) << "0123456789";
  ASSERT_TRUE(counting.WriteFile(P("b"), P("src")).ok());
  ASSERT_TRUE(counting.WriteFinishedFile(P("b2"), P("src")).ok());
  EXPECT_EQ(*counting.Read(P("a"), 1, 2), "el");
  std::string g = *counting.CreateIfAbsent(P("c"), "v1");
  EXPECT_FALSE(counting.CreateIfAbsent(P("c"), "v1").ok());
  ASSERT_TRUE(counting.CompareAndSwap(P("c"), "v22", g).ok());
  EXPECT_EQ(counting.ReadVersioned(P("c"))->data, "v22");
  ASSERT_TRUE(counting.Stat(P("a")).ok());
  auto stream = counting.OpenRead(P("b"));
  ASSERT_TRUE(stream.ok());
  char buf[64];
  EXPECT_EQ(*(*stream)->Read(buf, sizeof(buf)), 10u);
  ASSERT_TRUE(counting.List(P("")).ok());
  ASSERT_TRUE(counting.Delete(P("a")).ok());
  EXPECT_FALSE(counting.Read(P("a")).ok());  // failed calls count too

  StorageCounters c = counting.counters();
  EXPECT_EQ(c.writes, 3u);
  EXPECT_EQ(c.reads, 5u);  // Read x2, ReadVersioned, Stat, OpenRead
  EXPECT_EQ(c.creates, 2u);
  EXPECT_EQ(c.cas, 1u);
  EXPECT_EQ(c.lists, 1u);
  EXPECT_EQ(c.deletes, 1u);
  EXPECT_EQ(c.retries, 0u);
  EXPECT_EQ(c.bytes_written, 5u + 10u + 10u + 2u + 3u);
  EXPECT_EQ(c.bytes_read, 2u + 3u + 10u);

  // Calls made on the backend directly are not counted by the wrapper.
  ASSERT_TRUE(local_.Write(P("direct"), "x").ok());
  EXPECT_EQ(counting.counters().writes, 3u);

  counting.ResetCounters();
  c = counting.counters();
  EXPECT_EQ(
      c.reads + c.writes + c.creates + c.cas + c.lists + c.deletes + c.bytes_read + c.bytes_written,
      0u);
}

}  // namespace
}  // namespace tokenmill
